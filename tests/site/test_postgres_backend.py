"""The PostgreSQL backend (mascarade_site/postgres/base.py): its health check sends nothing on a
quiet connection and opens a new one after the server closed the old."""

from __future__ import annotations

import select
import time

import pytest
from django.db import connection, connections

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


@pytest.fixture
def other():
    """A second connection to the test database, outside the test's transaction, as a
    process's persistent connection between two requests."""
    conn = connections.create_connection("default")
    assert conn.settings_dict["CONN_HEALTH_CHECKS"]
    yield conn
    conn.close()


def backend_pid(conn) -> int:
    conn.close_if_unusable_or_obsolete()  # what request_started (and Celery's task start) call
    with conn.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def test_a_quiet_connection_is_reused_without_a_select_1(other, monkeypatch):
    first = backend_pid(other)

    def no_round_trip():
        raise AssertionError("the health check sent a statement")

    monkeypatch.setattr(other, "is_usable", no_round_trip)
    assert [backend_pid(other) for _ in range(3)] == [first] * 3


@pytest.mark.parametrize("how", ["terminated", "closed by the driver"])
def test_a_connection_the_server_closed_is_replaced_before_the_query(other, monkeypatch, how):
    first = backend_pid(other)
    if how == "terminated":  # as at a server restart or an idle_session_timeout
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [first])
        readable = select.poll()
        readable.register(other.connection.pgconn.socket, select.POLLIN)
        deadline = time.monotonic() + 10
        while not readable.poll(50) and time.monotonic() < deadline:
            pass
    else:
        other.connection.close()
    monkeypatch.setattr(other, "is_usable", lambda: pytest.fail("a round trip was sent"))
    second = backend_pid(other)  # no error: the check opened a new connection
    assert second != first
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [first])
        assert cursor.fetchone()[0] == 0


def test_switched_off_it_is_djangos_select_1(other, settings):
    """``PERF_OFF=health``: Django's own check (``is_usable``, a ``SELECT 1``) is back, for the
    bench to compare."""
    settings.PERF_OFF = frozenset({"health"})
    backend_pid(other)
    calls = []
    real = other.is_usable
    other.is_usable = lambda: calls.append(1) or real()
    try:
        backend_pid(other)
    finally:
        del other.is_usable
    assert calls == [1]
