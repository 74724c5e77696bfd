"""The event streams (``/api/v1/games/{id}/stream/``, ``/api/v1/me/stream/``) served by uvicorn
on the test database, woken through Redis: what each viewer receives is exactly ``/events/``'s,
in order and once; ``Last-Event-ID`` resumes; a viewer who loses access is cut off; a bot can
play through its stream, one ``POST`` per move."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter

import pytest
from django.test import Client
from knox.models import AuthToken

from games.core import services
from games.live import presence, push, streams
from games.models import Game

from .factories import UserFactory, client_for, token_for
from .helpers import game_url, play_service_moves, start_game
from .streaming import EventStream, asgi_server, collect

pytestmark = [pytest.mark.postgres, pytest.mark.redis]


@pytest.fixture
def server(transactional_db, settings):
    settings.STREAM_HEARTBEAT_SECONDS = 2.0
    with asgi_server() as port:
        yield port


@pytest.fixture
def four(transactional_db):
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    return users, game


def all_events(client, game_id, after=0) -> list[dict]:
    out = []
    while True:
        body = client.get(game_url(game_id, "events/"), {"after": after}).json()
        out += body["results"]
        after = body["next_after"]
        if not body["more"]:
            return out


def read_up_to(stream: EventStream, seq: int) -> list[dict]:
    """The events of the ``move`` messages until the ``game`` message at ``seq``."""
    events = []
    for message in stream.until(lambda m: m["event"] == "game" and m["data"]["seq"] >= seq):
        if message["event"] == "move":
            assert message["id"] == str(message["data"]["seq"])
            assert all(event["seq"] == message["data"]["seq"]
                       for event in message["data"]["events"])
            events += message["data"]["events"]
    return events


def test_each_viewer_streams_exactly_what_events_shows_after_every_move(server, four):
    users, game = four
    by_player = {seat.position: seat.user for seat in game.seats.all()}
    streams = {
        "player": EventStream(server, game_url(game.pk, "stream/?after=0"), token_for(users[0])),
        "spectator": EventStream(server, game_url(game.pk, "stream/?after=0")),
    }
    clients = {"player": client_for(users[0]), "spectator": client_for()}
    received = {name: [] for name in streams}
    try:
        for stream in streams.values():
            assert stream.status == 200
            assert stream.response.getheader("Content-Type").startswith("text/event-stream")
        for _ in range(25):
            play_service_moves(game, 1, by_player)
            for name, stream in streams.items():
                received[name] += read_up_to(stream, game.seq)
                assert received[name] == all_events(clients[name], game.pk), name
        assert len(received["player"]) >= 25
    finally:
        for stream in streams.values():
            stream.close()


def test_last_event_id_resumes_with_no_gap_and_no_duplicate(server, four):
    users, game = four
    by_player = {seat.position: seat.user for seat in game.seats.all()}
    token = token_for(users[1])
    first = EventStream(server, game_url(game.pk, "stream/?after=0"), token)
    play_service_moves(game, 5, by_player)
    seen = read_up_to(first, game.seq)
    last_id = game.seq
    first.close()
    play_service_moves(game, 6, by_player)
    again = EventStream(server, game_url(game.pk, "stream/"), token,
                        headers={"Last-Event-ID": str(last_id)})
    try:
        resumed = read_up_to(again, game.seq)
    finally:
        again.close()
    everything = all_events(client_for(users[1]), game.pk)
    assert seen + resumed == everything
    assert all(event["seq"] > last_id for event in resumed)
    assert resumed


def test_a_stream_without_a_cursor_starts_now(server, four):
    users, game = four
    by_player = {seat.position: seat.user for seat in game.seats.all()}
    play_service_moves(game, 3, by_player)
    stream = EventStream(server, game_url(game.pk, "stream/"), token_for(users[2]))
    try:
        first = stream.next()
        assert first["event"] == "game" and first["data"]["seq"] == game.seq
        assert first["data"]["status"] == "active" and first["id"] == str(game.seq)
        assert stream.retry == 3000
        play_service_moves(game, 1, by_player)
        assert read_up_to(stream, game.seq) == all_events(client_for(users[2]), game.pk,
                                                          game.seq - 1)
    finally:
        stream.close()


def test_a_revoked_token_is_cut_off(server, four):
    users, game = four
    token = token_for(users[0])
    stream = EventStream(server, game_url(game.pk, "stream/"), token)
    try:
        assert stream.next()["event"] == "game"
        AuthToken.objects.filter(user=users[0]).delete()
        error = stream.until(lambda m: m["event"] == "error")[-1]
        assert error["data"]["code"] == "not_authenticated"
        assert stream.next() is None
    finally:
        stream.close()
    again = EventStream(server, game_url(game.pk, "stream/"), token)
    assert again.status == 401 and again.json()["code"] == "not_authenticated"
    again.close()


def test_a_banned_user_is_cut_off(server, four):
    users, _game = four
    stream = EventStream(server, "/api/v1/me/stream/", token_for(users[3]))
    try:
        users[3].banned = True
        users[3].moderation_reason = "cheating"
        users[3].save()
        error = stream.until(lambda m: m["event"] == "error")[-1]
        assert error["data"]["code"] == "forbidden" and "cheating" in error["data"]["detail"]
        assert stream.next() is None
    finally:
        stream.close()


@pytest.mark.parametrize("by", ["token", "session"])
def test_a_demoted_staff_member_is_cut_off_from_a_private_game(server, four, by):
    """Staff see every private game; once demoted, their stream of one they have no seat in
    ends as soon as their account is saved (the access check reads the account anew), though
    the game did not move."""
    users, _game = four
    private = services.create_game(users[0], "mascarade", {"players": 4}, private=True).body
    staff = UserFactory(is_staff=True)
    if by == "token":
        stream = EventStream(server, game_url(private["id"], "stream/"), token_for(staff))
    else:
        client = Client()
        client.force_login(staff)
        cookie = f"sessionid={client.cookies['sessionid'].value}"
        stream = EventStream(server, game_url(private["id"], "stream/"),
                             headers={"Cookie": cookie})
    try:
        assert stream.status == 200 and stream.next()["event"] == "game"
        staff.is_staff = False
        staff.save()
        error = stream.until(lambda m: m["event"] == "error", seconds=10)[-1]
        assert error["data"]["code"] == "not_found"
        assert stream.next() is None
    finally:
        stream.close()
    again = EventStream(server, game_url(private["id"], "stream/"), token_for(staff))
    assert again.status == 404
    again.close()


def test_a_private_game_is_not_found_for_others_and_errors_are_the_apis(server, four):
    users, _game = four
    private = services.create_game(users[0], "mascarade", {"players": 4}, private=True).body
    outsider = UserFactory()
    stream = EventStream(server, game_url(private["id"], "stream/"), token_for(outsider))
    assert stream.status == 404 and stream.json()["code"] == "not_found"
    stream.close()
    stream = EventStream(server, game_url(private["id"], "stream/"))
    assert stream.status == 404
    stream.close()
    stream = EventStream(server, game_url(private["id"], "stream/?after=x"), token_for(users[0]))
    assert stream.status == 400 and stream.json()["code"] == "invalid"
    stream.close()
    # A cursor past the game's seq (no stream sent it; waiting for it would skip the moves up to
    # it): refused, in the viewer's language.
    seq = Game.objects.get(pk=private["id"]).seq
    stream = EventStream(server, game_url(private["id"], "stream/"), token_for(users[0]),
                         headers={"Last-Event-ID": str(seq + 1), "Accept-Language": "fr"})
    refused = stream.json()
    assert stream.status == 400 and refused["code"] == "invalid"
    assert refused["detail"] == (f"Last-Event-ID (ou ?after=) dépasse le dernier numéro de coup "
                                 f"de cette partie, {seq}.")
    stream.close()
    stream = EventStream(server, game_url(private["id"], f"stream/?after={seq}"),
                         token_for(users[0]))
    assert stream.status == 200
    stream.close()
    stream = EventStream(server, "/api/v1/me/stream/")
    assert stream.status == 401 and stream.json()["code"] == "not_authenticated"
    stream.close()
    stream = EventStream(server, "/api/v1/me/stream/", headers={"Authorization": "Bearer x"})
    assert stream.status == 401
    stream.close()


def test_streams_per_account_are_capped(server, four, settings):
    users, game = four
    settings.STREAM_MAX_PER_USER = 2
    token = token_for(users[0])
    held = [EventStream(server, game_url(game.pk, "stream/"), token) for _ in range(2)]
    try:
        for stream in held:
            assert stream.next()["event"] == "game"
        refused = EventStream(server, game_url(game.pk, "stream/"), token)
        assert refused.status == 429 and refused.json()["code"] == "throttled"
        assert refused.response.getheader("Retry-After") == "10"
        refused.close()
    finally:
        for stream in held:
            stream.close()


def test_streams_opened_at_once_stay_within_the_cap(server, four, settings):
    users, game = four
    settings.STREAM_MAX_PER_USER = 2
    token = token_for(users[0])
    opened: list[EventStream] = []

    def open_one() -> None:
        opened.append(EventStream(server, game_url(game.pk, "stream/"), token))

    threads = [threading.Thread(target=open_one) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert sorted(stream.status for stream in opened) == [200] * 2 + [429] * 10
    finally:
        for stream in opened:
            stream.close()
    # Closed, their slots are free again (once the server has seen them go).
    for _ in range(50):
        again = EventStream(server, game_url(game.pk, "stream/"), token)
        status = again.status
        again.close()
        if status == 200:
            break
        time.sleep(0.1)
    assert status == 200


def test_a_busy_stream_still_makes_its_full_check(server, four, monkeypatch, settings):
    """A stream woken all the time (a lively chat) still sends its heartbeat, and makes its full
    check every ``STREAM_CHECK_SECONDS``: a revocation whose message was lost cuts it off
    then."""
    settings.STREAM_HEARTBEAT_SECONDS = 0.5
    settings.STREAM_CHECK_SECONDS = 2.0
    # (the first periodic check at the end of its interval, after heartbeats)
    monkeypatch.setattr(streams.random, "uniform", lambda low, high: high)
    users, game = four
    stream = EventStream(server, game_url(game.pk, "stream/"), token_for(users[0]), timeout=60)
    try:
        assert collect(stream, 3, until=lambda m: m["event"] == "game")[0]["event"] == "game"
        chat = push.game_channel(game.pk)

        def busy() -> None:
            push.publish([(chat, {"game": str(game.pk), "chat": True})])

        # Busy from now on, it sends its heartbeat. (The process's hub, once subscribed, wakes
        # its streams for a full check, as it does after a lost connection: the revocation comes
        # after that one, so that only the periodic check can see it.)
        deadline = time.monotonic() + 30
        while not ("heartbeat" in stream.comments and streams.hub_connected()):
            assert time.monotonic() < deadline, stream.comments
            assert all(m["event"] != "<closed>" for m in collect(stream, 0.3, keep_busy=busy))
        monkeypatch.setattr(push, "user_changed", lambda user_id: None)  # its message lost
        AuthToken.objects.filter(user=users[0]).delete()
        seen = collect(stream, 10, keep_busy=busy,
                       until=lambda m: m["event"] in ("error", "<closed>"))
        assert seen and seen[-1]["event"] == "error", seen
        assert seen[-1]["data"]["code"] == "not_authenticated"
    finally:
        stream.close()


def eventually(test, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not test():
        assert time.monotonic() < deadline, "not within the deadline"
        time.sleep(0.05)


def test_the_heartbeat_and_the_full_check_keep_their_own_pace(server, four, monkeypatch,
                                                              settings):
    """Woken through Redis, a stream sends its heartbeat (a comment) every
    ``STREAM_HEARTBEAT_SECONDS`` and makes its full check (its viewer's access, everything read
    again) every ``STREAM_CHECK_SECONDS``, each without the other. Between two full checks, a
    player's heartbeat records their table open (one statement); a spectator's reads nothing."""
    users, game = four
    full: Counter = Counter()
    beats: Counter = Counter()
    step, beat = streams.GameStream.step, streams.GameStream.beat

    def counted_step(self, wakes, recheck):
        if wakes is None:
            full[self.viewer.user.pk] += 1
        return step(self, wakes, recheck)

    def counted_beat(self):
        beats[self.viewer.user.pk] += 1
        return beat(self)

    monkeypatch.setattr(streams.GameStream, "step", counted_step)
    monkeypatch.setattr(streams.GameStream, "beat", counted_beat)
    # (each stream's first periodic check at the end of its interval, not at a random phase)
    monkeypatch.setattr(streams.random, "uniform", lambda low, high: high)
    spectator = UserFactory()

    # Heartbeats often, the full check not within the test: only the opening's (and the hub's
    # when it first connects, which wakes the streams already listening).
    settings.STREAM_HEARTBEAT_SECONDS = 0.1
    settings.STREAM_CHECK_SECONDS = 3600.0
    player = EventStream(server, game_url(game.pk, "stream/"), token_for(users[0]))
    watcher = EventStream(server, game_url(game.pk, "stream/"), token_for(spectator))
    try:
        for stream in (player, watcher):
            collect(stream, 0.1)  # (read from now on)
            eventually(lambda stream=stream: stream.comments.count("heartbeat") >= 3)
        opened = dict(full)
        for stream in (player, watcher):
            eventually(lambda stream=stream: stream.comments.count("heartbeat") >= 8)
        assert full == opened and 1 <= full[users[0].pk] <= 2 and 1 <= full[spectator.pk] <= 2
        # (each heartbeat's comment is sent before its record: the last one may be on its way)
        sent = player.comments.count("heartbeat")
        assert beats[users[0].pk] >= sent - 1
        assert beats[spectator.pk] == 0
        assert presence.watchers({(users[0].pk, game.pk), (spectator.pk, game.pk)}) == {
            (users[0].pk, str(game.pk))}
    finally:
        player.close()
        watcher.close()

    # The full check often, the heartbeat not within the test.
    settings.STREAM_HEARTBEAT_SECONDS = 3600.0
    settings.STREAM_CHECK_SECONDS = 0.2
    other = EventStream(server, game_url(game.pk, "stream/"), token_for(users[1]))
    try:
        collect(other, 0.1)
        eventually(lambda: full[users[1].pk] >= 5)
        collect(other, 0.3)
        assert "heartbeat" not in other.comments and beats[users[1].pk] == 0
    finally:
        other.close()


def test_a_busy_user_stream_gets_a_lost_decision_at_its_full_check(server, transactional_db,
                                                                    monkeypatch, settings):
    settings.STREAM_CHECK_SECONDS = 2.0
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:], options={"players": 4})
    by_player = {seat.position: seat.user for seat in game.seats.all()}
    me = users[0]
    for _ in range(60):  # a moment when no decision awaits me
        if not game.pending_decisions.filter(user=me).exists():
            break
        play_service_moves(game, 1, by_player)
    stream = EventStream(server, "/api/v1/me/stream/", token_for(me), timeout=60)
    try:
        collect(stream, 1)
        told = push.game_changed
        monkeypatch.setattr(push, "game_changed", lambda *args, **kwargs: None)  # lost
        for _ in range(60):
            if game.pending_decisions.filter(user=me).exists():
                break
            play_service_moves(game, 1, by_player)
        monkeypatch.setattr(push, "game_changed", told)
        assert game.pending_decisions.filter(user=me).exists()
        mine = push.user_channel(me.pk)  # the user busy elsewhere: their moves in other games
        seen = collect(stream, 10, keep_busy=lambda: push.publish([(mine, {
            "game": "00000000-0000-0000-0000-000000000000", "seq": 1, "kind": push.MOVED})]),
            until=lambda m: m["event"] == "decision")
        assert seen and seen[-1]["event"] == "decision", seen
        assert seen[-1]["data"]["game"] == str(game.pk)
    finally:
        stream.close()


def test_the_channels_are_the_redis_databases_own(server, four, settings):
    """Redis's pub/sub knows no databases: a site on another database of the same server (here
    a message published as one on database 15 would be) is not heard."""
    users, game = four
    me = users[0]
    stream = EventStream(server, "/api/v1/me/stream/", token_for(me), timeout=60)
    try:
        collect(stream, 1)
        elsewhere = push._prefix("redis://127.0.0.1:6379/15") + f"user:{me.pk}"
        assert elsewhere != push.user_channel(me.pk)
        decision = {"game": str(game.pk), "seq": 999, "kind": push.DECISION, "decision": {
            "kind": "mascarade", "player": 0, "since": 999, "seat": 0, "decision": "turn",
            "deadline": None, "legal_moves": [{"type": "look"}]}}
        push.publish([(elsewhere, decision)])
        assert not [m for m in collect(stream, 1.5) if m["event"] == "decision"]
        push.publish([(push.user_channel(me.pk), decision)])  # (the same, on its own channel)
        seen = collect(stream, 3, until=lambda m: m["event"] == "decision")
        assert seen and seen[-1]["data"]["seq"] == 999
    finally:
        stream.close()


def test_a_mailbox_that_nobody_reads_is_bounded():
    listener = streams.Listener(("a",))
    for number in range(streams.MAILBOX_MAX + 10):
        listener.put({"n": number})
    assert len(listener.items) < streams.MAILBOX_MAX
    # What overflowed is dropped for a full check, which reads what the messages said.
    assert asyncio.run(listener.wait(0.1)) is None
    assert asyncio.run(listener.wait(0.01)) == []  # (nothing came)


def test_bots_play_a_whole_game_from_their_streams_one_post_per_move(server, four):
    """Each player's ``/me/stream/`` says when a decision awaits them, with its legal moves; the
    answer is one ``POST /moves/`` with the decision's seq: no read at all."""
    bots_play(server, *four)


def test_a_decision_still_awaited_is_told_again_when_the_game_moves_on(server,
                                                                       transactional_db):
    """Simultaneous challenges: several players are awaited at once; when one answers, the
    others' decisions stand, and their streams tell them again at the game's new seq, the one
    their answer must name (``expected_seq``): no bot waits for its deadline."""
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:], options={"players": 4, "challenge_mode": "simultaneous"})
    bots_play(server, users, game, several_awaited=True)


def bots_play(server, users, game, several_awaited=False):
    streams = {user.pk: EventStream(server, "/api/v1/me/stream/", token_for(user))
               for user in users}
    clients = {user.pk: client_for(user) for user in users}
    posts = 0
    at_once = 0
    try:
        for _ in range(2000):
            game.refresh_from_db()
            if game.status != Game.Status.ACTIVE:
                break
            awaited = set(game.pending_decisions.values_list("user_id", flat=True))
            at_once = max(at_once, len(awaited))
            # (the last one awaited: with several, the first ones answer before it)
            user_id = sorted(awaited)[-1 if several_awaited else 0]
            # (within the heartbeats' 2 s and more: a decision is told when given, and again
            # when the game moves on while it stands)
            decision = streams[user_id].until(lambda m: m["event"] == "decision",
                                              seconds=10)[-1]["data"]
            if decision["seq"] != game.seq:
                continue  # sent before a later move: a newer one follows
            assert decision["game"] == str(game.pk) and decision["kind"] == "mascarade"
            # (told by the write path from the state it had in hand: what the API lists)
            assert decision["legal_moves"] == clients[user_id].get(
                game_url(game.pk, "legal-moves/")).json()["moves"]
            move = sorted(decision["legal_moves"], key=repr)[0]
            answer = clients[user_id].post(game_url(game.pk, "moves/"),
                                           {"move": move, "expected_seq": decision["seq"]},
                                           format="json")
            assert answer.status_code == 201, answer.json()
            assert answer.json()["game"]["seq"] == answer.json()["seq"]
            posts += 1
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED and posts >= 20
        assert at_once > 1 if several_awaited else True
        for stream in streams.values():
            ended = stream.until(lambda m: m["event"] == "game_ended")[-1]["data"]
            assert ended["status"] == "finished" and ended["winners"] == game.winners
        # The game's stream of a finished game: what is left, then "end"; afterwards, 204 (an
        # EventSource does not come back).
        last = EventStream(server, game_url(game.pk, f"stream/?after={game.seq - 1}"),
                           token_for(users[0]))
        messages = last.until(lambda m: m["event"] == "end")
        assert [m["event"] for m in messages][-2:] == ["game", "end"]
        assert last.next() is None
        last.close()
        done = EventStream(server, game_url(game.pk, f"stream/?after={game.seq}"),
                           token_for(users[0]))
        assert done.status == 204
        done.close()
    finally:
        for stream in streams.values():
            stream.close()


def test_the_user_stream_tells_a_game_started_and_ended(server, transactional_db):
    users = [UserFactory() for _ in range(4)]
    body = services.create_game(users[0], "mascarade", {"players": 4}).body
    stream = EventStream(server, "/api/v1/me/stream/", token_for(users[0]))
    try:
        for user in users[1:]:
            services.join_game(user, body["id"])
        started = stream.until(lambda m: m["event"] == "game_started")[-1]["data"]
        assert started == {"game": body["id"], "kind": "mascarade", "seq": 0,
                           "status": "active"}
    finally:
        stream.close()


def test_a_stream_polls_the_database_without_redis(transactional_db, settings, four):
    users, game = four
    settings.REDIS_URL = ""
    settings.STREAM_POLL_SECONDS = 0.1
    by_player = {seat.position: seat.user for seat in game.seats.all()}
    with asgi_server() as port:
        stream = EventStream(port, game_url(game.pk, "stream/?after=0"), token_for(users[0]))
        try:
            play_service_moves(game, 4, by_player)
            assert read_up_to(stream, game.seq) == all_events(client_for(users[0]), game.pk)
        finally:
            stream.close()


def test_under_wsgi_a_stream_sends_what_is_there_and_ends(four, settings):
    """``make run``'s server (WSGI): the stream polls for a while, then ends; the browser comes
    back with ``Last-Event-ID``."""
    users, game = four
    by_player = {seat.position: seat.user for seat in game.seats.all()}
    play_service_moves(game, 3, by_player)
    settings.STREAM_WSGI_HOLD_SECONDS = 0
    response = client_for(users[0]).get(game_url(game.pk, "stream/"),
                                        HTTP_LAST_EVENT_ID="1")
    assert response.status_code == 200
    body = b"".join(response.streaming_content).decode()
    assert body.startswith("retry: 3000\n\n")
    assert f"id: {game.seq}\nevent: game\n" in body
    assert body.count("event: move") == len({e["seq"] for e in all_events(
        client_for(users[0]), game.pk, 1)})


def test_a_table_stream_tells_of_the_chat_and_of_the_viewers_other_games(server, four):
    """What the table's page shows besides the game: its chat (``chat``), and how many games
    await the viewer (``you``), changed by moves elsewhere."""
    from games.core import selectors

    users, game = four
    other = start_game(users[0], users[1:])
    by_player = {seat.position: seat.user for seat in other.seats.all()}
    stream = EventStream(server, game_url(game.pk, "stream/"), token_for(users[0]))
    try:
        assert stream.next()["event"] == "game"
        services.chat.post_message(users[1], game.pk, "Hello, table")
        chat = stream.until(lambda m: m["event"] == "chat")[-1]["data"]
        assert chat == {"version": selectors.chat_version(game, users[0])}
        count = selectors.your_turn_count(users[0])
        for _ in range(30):
            play_service_moves(other, 1, by_player)
            if selectors.your_turn_count(users[0]) != count:
                break
        else:
            raise AssertionError("the viewer's count never changed")
        you = stream.until(lambda m: m["event"] == "you")[-1]["data"]
        assert you == {"awaiting": selectors.your_turn_count(users[0])}
    finally:
        stream.close()


def test_streams_share_a_few_database_connections(server, four, settings):
    """However many streams a process holds, their reads go through ``STREAM_DB_THREADS``
    threads, each with one connection (under ASGI, a request's own thread would keep one per
    stream)."""
    from django.db import connection

    users, game = four
    settings.STREAM_MAX_PER_ADDRESS = 12  # (the 12 anonymous streams come from one address)

    def connections() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity "
                           "WHERE datname = current_database()")
            return cursor.fetchone()[0]

    before = connections()
    held = [EventStream(server, game_url(game.pk, "stream/"), token_for(users[k % 4]))
            for k in range(12)]
    held += [EventStream(server, game_url(game.pk, "stream/")) for _ in range(12)]
    held += [EventStream(server, "/api/v1/me/stream/", token_for(users[k % 4]))
             for k in range(12)]
    try:
        for stream in held[:24]:
            assert stream.next()["event"] == "game"
        by_player = {seat.position: seat.user for seat in game.seats.all()}
        play_service_moves(game, 2, by_player)
        for stream in held[:24]:
            read_up_to(stream, game.seq)
        assert connections() - before <= settings.STREAM_DB_THREADS
    finally:
        for stream in held:
            stream.close()


def test_a_user_streams_step_needs_no_database_for_a_told_decision(four):
    """``UserStream.quick`` sends a decision told with its legal moves, once, and passes over
    the user's own move; any other wake is the full step's."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.live import push
    from games.live.streams import UserStream, Viewer

    users, game = four
    stream = UserStream(Viewer(user=users[0]))
    told = {"game": str(game.pk), "seq": 3, "kind": push.DECISION,
            "decision": {"player": 0, "since": 3, "kind": "mascarade", "seat": 0,
                         "decision": "turn", "deadline": None, "legal_moves": [{"type": "x"}]}}
    moved = {"game": str(game.pk), "seq": 3, "kind": push.MOVED}
    with CaptureQueriesContext(connection) as queries:
        step = stream.quick([moved, told, told])
        again = stream.quick([told])
    assert len(queries) == 0
    assert [m.split(b"\n", 1)[0] for m in step.messages] == [b"event: decision"]
    assert b'"legal_moves":[{"type":"x"}]' in step.messages[0]
    assert again.messages == []
    assert stream.quick([{"game": str(game.pk), "seq": 3, "kind": push.STARTED}]) is None
    assert stream.quick([{"game": str(game.pk), "seq": 3, "kind": push.DECISION}]) is None


def parse_sse(message: bytes) -> tuple[str, dict]:
    lines = dict(line.split(": ", 1) for line in message.decode().strip().split("\n"))
    return lines["event"], json.loads(lines["data"])


def test_a_user_streams_step_needs_no_database_for_a_told_start_or_end(four):
    """A game's start or end told by the write path with what the stream says of it: sent
    without a read, as the read would have sent it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.live import push
    from games.live.streams import UserStream, Viewer

    users, game = four
    stream = UserStream(Viewer(user=users[0]))
    started = {"game": str(game.pk), "seq": 0, "kind": push.STARTED,
               "event": {"kind": "mascarade", "status": "active"}}
    ended = {"game": str(game.pk), "seq": 41, "kind": push.ENDED,
             "event": {"kind": "mascarade", "status": "finished", "winners": [2]}}
    with CaptureQueriesContext(connection) as queries:
        step = stream.quick([started, ended])
    assert len(queries) == 0
    assert [parse_sse(m) for m in step.messages] == [
        ("game_started", {"game": str(game.pk), "kind": "mascarade", "seq": 0,
                          "status": "active"}),
        ("game_ended", {"game": str(game.pk), "kind": "mascarade", "seq": 41,
                        "status": "finished", "winners": [2]})]
    # Without it (a message of an older writer): the full step reads the game, and says the same.
    read = stream.step([{"game": str(game.pk), "seq": 0, "kind": push.STARTED}], False)
    assert [parse_sse(m) for m in read.messages] == [
        ("game_started", {"game": str(game.pk), "kind": "mascarade", "seq": game.seq,
                          "status": "active"})]


def test_the_write_path_tells_the_players_streams_the_start_with_what_they_say(
        transactional_db, settings, monkeypatch, django_capture_on_commit_callbacks):
    from games.live import push

    settings.REDIS_URL = "redis://127.0.0.1:6379/15"
    published = []
    monkeypatch.setattr(push, "publish", lambda messages: published.extend(messages) or True)
    users = [UserFactory() for _ in range(4)]
    body = services.create_game(users[0], "mascarade", {"players": 4}).body
    for user in users[1:]:
        with django_capture_on_commit_callbacks(execute=True):
            services.join_game(user, body["id"])
    starts = {channel: message for channel, message in published
              if message.get("kind") == push.STARTED}
    assert set(starts) == {push.user_channel(user.pk) for user in users}
    assert all(message == {"game": body["id"], "seq": 0, "kind": push.STARTED,
                           "event": {"kind": "mascarade", "status": "active"}}
               for message in starts.values())


def test_an_aborted_game_is_told_ended_with_its_status(server, four):
    """``game_ended`` comes for an aborted game too (as docs/api/README.md says): its status
    says ``aborted``, and it has no winners."""
    from moderation import services as moderation

    users, game = four
    # (a superuser moderates: the Moderators group, made by a migration, is gone once a
    # transactional test before this one flushed the tables)
    moderator = UserFactory(is_staff=True, is_superuser=True)
    stream = EventStream(server, "/api/v1/me/stream/", token_for(users[1]))
    try:
        moderation.abort(moderator, game.pk, "a test of the stream")
        ended = stream.until(lambda m: m["event"] == "game_ended", seconds=20)[-1]["data"]
        game.refresh_from_db()
        assert ended == {"game": str(game.pk), "kind": "mascarade", "seq": game.seq,
                         "status": "aborted", "winners": []}
    finally:
        stream.close()


def test_the_game_streams_a_move_wakes_share_its_reads(four):
    """200 spectators' streams of a game woken by a move read it once between them: the game,
    its seats and state, and the move's events as spectators see them (what a stream server
    holding thousands of them needs: ``bench/streams.py``); each player's stream still gets
    its own view, exactly what a stream reading alone gets."""
    from django.contrib.auth.models import AnonymousUser
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.live.streams import GameStream, Viewer

    users, game = four
    players = [GameStream(Viewer(user=user), game.pk, None) for user in users]
    spectators = [GameStream(Viewer(user=AnonymousUser()), game.pk, None) for _ in range(200)]
    for stream in players + spectators:
        stream.step(None, True)
    cursor = game.seq
    play_service_moves(game, 1, {seat.position: seat.user for seat in game.seats.all()})
    wake = [{"game": str(game.pk), "seq": game.seq, "version": game.version}]
    streams.shared.clear()
    with CaptureQueriesContext(connection) as first:
        seen = [stream.step(wake, False).messages for stream in players + spectators[:1]]
    with CaptureQueriesContext(connection) as others:
        rest = [stream.step(wake, False).messages for stream in spectators[1:]]
    assert len(first) > 0 and len(others) == 0
    assert all(messages == seen[-1] for messages in rest)
    assert [m.split(b"\n")[1] for m in seen[-1]] == [b"event: move", b"event: game"]
    for user, messages in zip([*users, AnonymousUser()], seen, strict=True):
        streams.shared.clear()
        alone = GameStream(Viewer(user=user), game.pk, cursor)
        assert alone.step(None, True).messages == messages
