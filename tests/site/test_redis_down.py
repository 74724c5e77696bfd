"""With Redis down the API and the pages keep working: the throttles let requests through for a
short, logged while, allauth's rate limits too (the cache reads as empty), moves go in, and
/healthz says Redis is down. On a Redis the test starts, then stops."""

from __future__ import annotations

import socket
import subprocess
import time

import pytest

from games.api import throttling
from tests.api.factories import PASSWORD, UserFactory, client_for
from tests.api.helpers import game_url, start_game

pytestmark = [pytest.mark.redis, pytest.mark.django_db]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_redis(port: int, directory) -> subprocess.Popen:
    """A redis-server on ``port``, once it answers."""
    import redis

    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(directory)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while True:
        try:
            redis.Redis(host="127.0.0.1", port=port).ping()
            return server
        except redis.RedisError:
            assert time.monotonic() < deadline, "the test's Redis did not start"
            time.sleep(0.05)


@pytest.fixture
def own_redis(tmp_path, settings, fast_passwords, eager_celery):
    """A Redis of the test's own, used by the cache and the throttles; stopped by the test."""
    port = _free_port()
    server = _start_redis(port, tmp_path)
    url = f"redis://127.0.0.1:{port}/0"
    settings.REDIS_URL = url
    settings.CACHES = {"default": {
        "BACKEND": "mascarade_site.cache.FailOpenRedisCache", "LOCATION": url, "KEY_PREFIX": "test",
        "OPTIONS": {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.5,
                    "SOCKET_TIMEOUT": 0.5}}}
    rates = {"user": "1000/minute", "anon": "1000/minute", "auth": "1000/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    throttling._open_until = 0.0
    yield server, url
    server.kill()
    server.wait(timeout=10)
    throttling._open_until = 0.0


def test_with_redis_down_the_api_and_the_pages_keep_working(own_redis, caplog):
    import redis
    from django.test import Client

    server, url = own_redis
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:], options={"players": 4})
    player = game.pending_decisions.get().player
    mover = client_for(users[player])
    # Up: the throttles count in this Redis.
    assert client_for().get("/api/v1/games/").status_code == 200
    assert redis.Redis.from_url(url).keys(f"{throttling.KEY_PREFIX}*")
    server.terminate()
    server.wait(timeout=10)
    # Down: nothing fails.
    assert client_for().get("/api/v1/games/").status_code == 200
    assert mover.get(game_url(game.pk)).status_code == 200
    legal = mover.get(game_url(game.pk, "legal-moves/")).json()
    moved = mover.post(game_url(game.pk, "moves/"),
                       {"move": legal["moves"][0], "expected_seq": legal["seq"]}, format="json")
    assert moved.status_code == 201
    assert client_for().post("/api/v1/auth/token/", {
        "username": users[0].username, "password": PASSWORD}, format="json").status_code == 200
    registered = client_for().post("/api/v1/auth/register/", {
        "username": "newcomer", "email": "newcomer@example.org",
        "password": "Correct-horse-88"}, format="json")
    assert registered.status_code == 201
    browser = Client()
    assert browser.get("/accounts/login/").status_code == 200
    login = browser.post("/accounts/login/", {"login": users[1].username,
                                              "password": PASSWORD})
    assert login.status_code == 302
    assert browser.get("/").status_code == 200
    assert "API throttles let requests through" in caplog.text
    health = Client().get("/healthz")
    assert health.status_code == 503
    assert health.json()["redis"] == "down" and "redis" in health.json()["failing"]


def test_with_redis_down_from_the_start_nothing_fails(own_redis, caplog,
                                                      django_capture_on_commit_callbacks):
    """Redis down before a thread ever spoke to it: its client cannot even be made (redis-py's
    single-connection client connects when made); the throttles let requests through, the
    push messages are lost with a line in the log, the move goes in."""
    server, _url = own_redis
    server.terminate()
    server.wait(timeout=10)
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:], options={"players": 4})
    player = game.pending_decisions.get().player
    mover = client_for(users[player])
    legal = mover.get(game_url(game.pk, "legal-moves/")).json()
    with django_capture_on_commit_callbacks(execute=True):
        moved = mover.post(game_url(game.pk, "moves/"), {
            "move": legal["moves"][0], "expected_seq": legal["seq"]}, format="json")
    assert moved.status_code == 201
    assert "API throttles let requests through" in caplog.text
    assert "could not publish" in caplog.text


def test_a_redis_restarted_costs_no_throttle_nor_message(own_redis, caplog, tmp_path,
                                                         django_capture_on_commit_callbacks):
    """Redis restarted (or an idle connection closed by its ``timeout``) under the process's
    pooled clients: the pool's checkout sees the socket closed and connects again; the
    throttles do not open up, no push message is lost."""
    import redis

    from games.live import push

    server, url = own_redis
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:], options={"players": 4})
    mover = client_for(users[game.pending_decisions.get().player])
    assert mover.get(game_url(game.pk)).status_code == 200  # (the thread's connections made)
    with django_capture_on_commit_callbacks(execute=True):
        push.chat_changed(game.pk)
    server.terminate()
    server.wait(timeout=10)
    again = _start_redis(port, tmp_path)
    try:
        listener = redis.Redis.from_url(url).pubsub()
        listener.subscribe(push.game_channel(game.pk))
        assert listener.get_message(timeout=2)["type"] == "subscribe"
        assert mover.get(game_url(game.pk)).status_code == 200
        assert redis.Redis.from_url(url).keys(f"{throttling.KEY_PREFIX}*")
        with django_capture_on_commit_callbacks(execute=True):
            push.chat_changed(game.pk)
        message = listener.get_message(timeout=2)
        assert message is not None and message["type"] == "message"
        assert "let requests through" not in caplog.text
        assert "could not publish" not in caplog.text
    finally:
        again.kill()
        again.wait(timeout=10)
