"""The stream server (uvicorn, the site's ASGI application) as an operator meets it: it recovers
from a database restart at the next stream, and its ``/healthz`` looks at the database through
the threads the streams read with."""

from __future__ import annotations

import http.client
import threading
import time

import orjson
import pytest
from django.db import connection

from mascarade_site import views

from .factories import UserFactory, token_for
from .helpers import game_url, start_game
from .streaming import EventStream, asgi_server


@pytest.fixture
def server(transactional_db, settings):
    # (a user stream with nothing to tell sends its first heartbeat soon)
    settings.STREAM_HEARTBEAT_SECONDS = 0.5
    with asgi_server() as port:
        yield port


@pytest.fixture
def four(transactional_db):
    users = [UserFactory() for _ in range(4)]
    return users, start_game(users[0], users[1:])


def healthz(port: int) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/healthz")
    answer = conn.getresponse()
    body = orjson.loads(answer.read())
    conn.close()
    return answer.status, body


def first_news(stream: EventStream) -> bool:
    """Whether ``stream`` sent something after its ``retry:`` line (a message, or its first
    heartbeat when it has nothing to tell) rather than ending: a stream whose step failed
    ends."""
    while True:
        line = stream.response.readline().decode()
        if not line:
            return False
        if line.startswith(("event:", ": heartbeat")):
            return True


def open_streams(port: int, game, users) -> list[str]:
    """A game stream and a user stream for each of ``users``, and an anonymous game stream for
    each: how each went (``"ok"`` once it sent something, else its status or ``"ended"``)."""
    out = []
    for user in users:
        for path, token in ((game_url(game.pk, "stream/"), token_for(user)),
                            ("/api/v1/me/stream/", token_for(user)),
                            (game_url(game.pk, "stream/"), None)):
            stream = EventStream(port, path, token)
            if stream.status != 200:
                out.append(stream.status)
            else:
                out.append("ok" if first_news(stream) else "ended")
            stream.close()
    return out


def terminate_the_other_backends() -> int:
    """``pg_terminate_backend`` on every other connection to this database (what a restart of
    PostgreSQL, or a proxy's cut, does to the stream server's connections)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        return cursor.fetchone()[0]


@pytest.mark.postgres
def test_streams_open_right_after_the_databases_connections_were_cut(server, four):
    users, game = four
    # Every stream thread holds a connection (more streams than threads), then none is open.
    assert set(open_streams(server, game, users)) == {"ok"}
    assert healthz(server)[0] == 200
    assert terminate_the_other_backends() > 0
    # At once: each check a stream makes when it opens (its token, the game's visibility, the
    # user stream's decisions) closes a dead connection first, as Django does around a request.
    assert set(open_streams(server, game, users)) == {"ok"}
    status, body = healthz(server)
    assert status == 200 and body["database"] == "ok"


@pytest.mark.postgres
def test_the_stream_servers_health_check_reads_through_the_streams_threads(server,
                                                                          monkeypatch):
    """Under ASGI, ``/healthz`` looks at the database on a thread of the streams' pool (each
    holding the connection streams read with), after closing a dead one, as they do; the web
    service (WSGI) looks on its request's thread."""
    seen = []
    check = views._check_database

    def spying():
        seen.append(threading.current_thread().name)
        return check()

    monkeypatch.setattr(views, "_check_database", spying)
    assert healthz(server)[0] == 200
    assert len(seen) == 1 and seen[0].startswith("stream-db"), seen
    # Cut: the stream threads' connections are dead, and the next check says the database
    # answers, since the next stream's reads will (a dead connection is closed first).
    terminate_the_other_backends()
    for _ in range(8):
        status, body = healthz(server)
        assert status == 200 and body["database"] == "ok", body


@pytest.mark.postgres
def test_anonymous_streams_are_capped_per_client_address(server, four, settings):
    """Anonymous streams of one address (as the throttles count it: here behind one trusted
    proxy, from X-Forwarded-For) past ``STREAM_MAX_PER_ADDRESS``: 429, in the viewer's
    language, with Retry-After; another address is not held back, nor an account, and a stream
    closed frees its place."""
    _users, game = four
    settings.STREAM_MAX_PER_ADDRESS = 2
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    path = game_url(game.pk, "stream/")

    def anonymous(address: str, **headers) -> EventStream:
        return EventStream(server, path, headers={"X-Forwarded-For": address, **headers})

    held = [anonymous("203.0.113.7") for _ in range(2)]
    try:
        assert [first_news(stream) for stream in held] == [True, True]
        refused = anonymous("203.0.113.7", **{"Accept-Language": "fr"})
        assert refused.status == 429 and refused.response.getheader("Retry-After") == "10"
        assert refused.json() == {
            "code": "throttled",
            "detail": "Trop de flux ouverts depuis votre adresse sans compte (2 au plus) : "
                      "fermez-en un d’abord, ou connectez-vous."}
        refused.close()
        other = anonymous("198.51.100.9")
        assert other.status == 200
        other.close()
        member = EventStream(server, path, token_for(_users[0]),
                             headers={"X-Forwarded-For": "203.0.113.7"})
        assert member.status == 200
        member.close()
    finally:
        held.pop().close()
    # One closed: its place is free again (once the server has seen it go).
    for _ in range(50):
        again = anonymous("203.0.113.7")
        status = again.status
        again.close()
        if status == 200:
            break
        time.sleep(0.1)
    assert status == 200
    for stream in held:
        stream.close()
