"""Every message the stream docs list (docs/api/README.md, "Event streams") is sent: a game is
played to its end with the streams open, on each server a stream may run on (uvicorn woken
through Redis, as the compose file runs it; uvicorn without Redis, polling; ``make run``'s WSGI
server, polling), and each message of the docs' tables arrives. A push message lost costs time,
never a ``game_started`` or ``game_ended``: the next full check tells it."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from games.core import selectors, services
from games.core.catalog import get_game
from games.core.services import chat
from games.live import push
from games.models import Game

from .factories import UserFactory, token_for
from .helpers import game_url
from .streaming import EventStream, asgi_server, collect

README = Path(django_settings.BASE_DIR) / "docs" / "api" / "README.md"


def documented_messages() -> dict[str, set[str]]:
    """The messages of each stream's table in docs/api/README.md, by path."""
    text = README.read_text()
    section = text.split("## Event streams, every game", 1)[1].split("\n## ", 1)[0]
    out = {}
    for part in section.split("\n### `GET ")[1:]:
        path = part.split("`", 1)[0]
        out[path] = set(re.findall(r"^\| `([a-z_]+)` \|", part, flags=re.MULTILINE))
    return out


def test_the_docs_list_the_messages_of_both_streams():
    assert documented_messages() == {
        "/api/v1/games/{id}/stream/": {"move", "game", "chat", "you", "end"},
        "/api/v1/me/stream/": {"decision", "game_started", "game_ended"},
    }


@pytest.fixture(params=[
    pytest.param("asgi", marks=pytest.mark.redis),
    "asgi-polling",
    "wsgi",
])
def server(request, transactional_db, settings):
    """A stream server of each kind; yields its port."""
    settings.STREAM_HEARTBEAT_SECONDS = 2.0
    settings.STREAM_POLL_SECONDS = 0.05
    settings.STREAM_WSGI_HOLD_SECONDS = 300.0
    if request.param != "asgi":
        settings.REDIS_URL = ""
    if request.param == "wsgi":  # (make run's kind: Django's threaded WSGI server)
        yield int(request.getfixturevalue("live_server").url.rsplit(":", 1)[1])
    else:
        with asgi_server() as port:
            yield port


def play_to_the_end(game_id, users_by_player: dict, on_move=None) -> Game:
    """Random legal moves of the awaited players, through the write path, to the end."""
    rng = random.Random(11)
    game = Game.objects.get(pk=game_id)
    engine = get_game(game.kind)
    for count in range(3000):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return game
        loaded = selectors.load_for_viewer(selectors.find_game(game.pk), None)
        player = sorted(game.pending_decisions.values_list("player", flat=True))[0]
        if on_move is not None:
            on_move(count, game, player)
        move = rng.choice(engine.legal_moves(loaded.state, player))
        services.submit_move(game.pk, move, user=users_by_player[player], expected_seq=game.seq)
    raise AssertionError("the game did not end in 3000 moves")


@pytest.mark.postgres
def test_a_game_played_to_its_end_sends_every_message_the_docs_list(server):
    documented = documented_messages()
    users = [UserFactory() for _ in range(4)]
    created = services.create_game(users[0], "mascarade", {"players": 4}).body
    mine = {user.pk: EventStream(server, "/api/v1/me/stream/", token_for(user))
            for user in users}
    table = EventStream(server, game_url(created["id"], "stream/"), token_for(users[0]))
    seen: dict[int, list] = {user.pk: [] for user in users}
    at_table: list = []
    try:
        assert table.status == 200 and all(s.status == 200 for s in mine.values())
        # (each stream's first check done: what happens next is news to it)
        at_table += collect(table, 10, until=lambda m: m["event"] == "game")
        for user in users[1:]:
            services.join_game(user, created["id"])
        by_player = dict(enumerate(users))

        def on_move(count, game, player):
            user = by_player[player]
            if count == 0:  # the first decision arrives before it is answered
                seen[user.pk] += collect(mine[user.pk], 20,
                                         until=lambda m: m["event"] == "decision")
            if count == 5:
                chat.post_message(users[1], game.pk, "Good luck, all!")

        game = play_to_the_end(created["id"], by_player, on_move)
        assert game.status == Game.Status.FINISHED
        for user in users:
            seen[user.pk] += collect(mine[user.pk], 20,
                                     until=lambda m: m["event"] == "game_ended")
        at_table += collect(table, 20, until=lambda m: m["event"] == "<closed>")
    finally:
        for stream in (table, *mine.values()):
            stream.close()
    for user in users:
        events = [message["event"] for message in seen[user.pk]]
        assert "game_started" in events and events[-1] == "game_ended", events
        started = next(m for m in seen[user.pk] if m["event"] == "game_started")["data"]
        assert started["game"] == created["id"] and started["kind"] == "mascarade"
        assert started["status"] == "active"
        assert seen[user.pk][-1]["data"] == {"game": created["id"], "kind": "mascarade",
                                             "seq": game.seq, "status": "finished",
                                             "winners": game.winners}
    told = {message["event"] for messages in seen.values() for message in messages}
    assert documented["/api/v1/me/stream/"] <= told, told
    events = [message["event"] for message in at_table]
    assert events[-3:] == ["game", "end", "<closed>"], events[-5:]
    assert documented["/api/v1/games/{id}/stream/"] <= set(events), set(events)


@pytest.mark.postgres
@pytest.mark.redis
def test_a_lost_push_message_of_a_start_or_end_is_told_at_the_next_full_check(
        transactional_db, settings, monkeypatch):
    """Redis dropped the start's and the end's messages to the players (a lost connection):
    their streams still tell both, at their next full check."""
    settings.STREAM_CHECK_SECONDS = 1.0
    publish = push.publish

    def lossy(messages):
        return publish([(channel, message) for channel, message in messages
                        if message.get("kind") not in (push.STARTED, push.ENDED)])

    monkeypatch.setattr(push, "publish", lossy)
    users = [UserFactory() for _ in range(4)]
    created = services.create_game(users[0], "mascarade", {"players": 4}).body
    with asgi_server() as port:
        stream = EventStream(port, "/api/v1/me/stream/", token_for(users[2]))
        try:
            collect(stream, 1.5)  # (its first check done)
            for user in users[1:]:
                services.join_game(user, created["id"])
            game = play_to_the_end(created["id"], dict(enumerate(users)))
            messages = collect(stream, 20, until=lambda m: m["event"] == "game_ended")
        finally:
            stream.close()
    events = [message["event"] for message in messages]
    assert events.count("game_started") == 1 and events.count("game_ended") == 1, events
    assert messages[-1]["data"] == {"game": created["id"], "kind": "mascarade",
                                    "seq": game.seq, "status": "finished",
                                    "winners": game.winners}


def test_a_start_or_end_is_told_once_whether_the_push_or_the_check_comes_first(
        transactional_db):
    """The full check and the push message may both see a start or an end: told once."""
    from games.live import streams

    users = [UserFactory() for _ in range(4)]
    created = services.create_game(users[0], "mascarade", {"players": 4}).body
    stream = streams.UserStream(streams.Viewer(users[0]))
    assert stream.step(None, True).messages == []  # the first check takes note
    for user in users[1:]:
        services.join_game(user, created["id"])
    game = Game.objects.get(pk=created["id"])
    started = {"game": created["id"], "seq": 0, "kind": push.STARTED,
               "event": {"kind": "mascarade", "status": "active"}}
    told = stream.quick([started]).messages
    assert [m.split(b"\n", 1)[0] for m in told] == [b"event: game_started"]
    full = stream.step(None, False).messages
    assert not any(b"game_started" in message for message in full)
    # An end the check finds first, then its push message: told once.
    from moderation import services as moderation

    moderator = UserFactory(is_staff=True, is_superuser=True)
    moderation.abort(moderator, game.pk, "a test of the stream")
    game.refresh_from_db()
    found = stream.step(None, False).messages
    assert [m.split(b"\n", 1)[0] for m in found if b"game_" in m] == [b"event: game_ended"]
    ended = {"game": created["id"], "seq": game.seq, "kind": push.ENDED,
             "event": {"kind": "mascarade", "status": "aborted", "winners": []}}
    assert stream.quick([ended]).messages == []
