"""The Python client of docs/api/README.md ("Reading a stream") works as printed: its code,
taken from the page, plays a whole game against bots through ``/api/v1/me/stream/``, on uvicorn
and on ``make run``'s kind of server (WSGI), where the stream ends every few seconds and the
client opens it again. So the page cannot rot."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from games.core import services
from games.models import Game

from .factories import UserFactory, token_for
from .streaming import asgi_server

pytestmark = [pytest.mark.postgres]

README = Path(django_settings.BASE_DIR) / "docs" / "api" / "README.md"
#: How long a stream lasts under WSGI here.
HOLD = 8.0


def documented_client() -> str:
    """The code of the page's Python client, as printed."""
    section = README.read_text().split("### Reading a stream", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) == 1, blocks
    return blocks[0]


def test_the_page_says_how_to_read_a_stream_next_to_its_client():
    section = README.read_text().split("### Reading a stream", 1)[1].split("\n## ", 1)[0]
    assert "`make run`" in section and "25 s" in section
    assert "iter_lines()" in section and "chunk_size=1" in section
    code = documented_client()
    assert "iter_lines(chunk_size=1" in code and "while True" in code
    compile(code, "README.md", "exec")


@pytest.fixture(params=[pytest.param("asgi", marks=pytest.mark.redis), "wsgi"])
def server(request, transactional_db, settings):
    """uvicorn woken through Redis, or Django's threaded WSGI server (``make run``'s kind),
    whose streams end after :data:`HOLD` seconds here (25 s under ``make run``); yields
    ``(kind, port)``."""
    settings.STREAM_POLL_SECONDS = 0.1
    settings.STREAM_WSGI_HOLD_SECONDS = HOLD
    if request.param == "wsgi":
        settings.REDIS_URL = ""
        yield "wsgi", int(request.getfixturevalue("live_server").url.rsplit(":", 1)[1])
    else:
        with asgi_server() as port:
            yield "asgi", port


def test_the_documented_client_plays_a_game_to_its_end(server, tmp_path):
    kind, port = server
    user = UserFactory()
    game_id = services.create_game(user, "mascarade", {"players": 4}, bots=3).body["id"]
    output = tmp_path / "client.out"
    with output.open("w") as out:
        client = subprocess.Popen(
            [sys.executable, "-c", documented_client()], stdout=out, stderr=subprocess.STDOUT,
            env={**os.environ, "MASCARADE_URL": f"http://127.0.0.1:{port}",
                 "MASCARADE_TOKEN": token_for(user)})
        try:
            started = time.monotonic()
            deadline = started + 120
            game = Game.objects.get(pk=game_id)
            # Its first move comes while the first stream is open, not once it ended: a client
            # reading by blocks (iter_lines' default) would hold the decision till then.
            while not game.moves.filter(by_user=user).exists():
                assert client.poll() is None, output.read_text()
                assert time.monotonic() - started < HOLD / 2, "the decision was held"
                time.sleep(0.1)
            while game.status == Game.Status.ACTIVE:
                assert client.poll() is None, output.read_text()
                assert time.monotonic() < deadline, "the client did not finish the game"
                time.sleep(0.2)
                game.refresh_from_db()
            assert game.status == Game.Status.FINISHED
            assert game.moves.filter(by_user=user).count() >= 1
            if kind == "asgi":
                # (under WSGI, an end in the instant between two streams is not told: the
                # page says where it is then)
                while '"status":"finished"' not in output.read_text():
                    assert time.monotonic() < deadline, output.read_text()
                    time.sleep(0.2)
                assert f'game_ended {{"game":"{game_id}"' in output.read_text()
            else:
                time.sleep(HOLD + 1)  # (a stream of its ended meanwhile: it came back)
                assert client.poll() is None, output.read_text()
        finally:
            client.terminate()
            client.wait(10)
