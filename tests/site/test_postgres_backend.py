"""The PostgreSQL backend (mascarade_site/postgres/base.py): its health check sends nothing on a
quiet connection and opens a new one after the server closed the old; its ``timestamptz`` values
are those Django's loader gives."""

from __future__ import annotations

import datetime as dt
import select
import time

import pytest
from django.db import connection, connections
from django.db.backends.postgresql import base
from django.db.backends.postgresql.psycopg_any import BaseTzLoader
from psycopg import pq

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


TIMESTAMPTZ_SQL = ("SELECT '2026-01-02 03:04:05.678901+00'::timestamptz, "
                   "'1999-12-31 23:30:00-05'::timestamptz, NULL::timestamptz")
TIMESTAMPTZ_VALUES = (dt.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=dt.UTC),
                      dt.datetime(2000, 1, 1, 4, 30, tzinfo=dt.UTC), None)


def read_timestamps(conn):
    with conn.cursor() as cursor:
        cursor.execute(TIMESTAMPTZ_SQL)
        return cursor.fetchone()


@pytest.fixture
def used(monkeypatch):
    """The loaders that read ``timestamptz`` meanwhile, in order: psycopg's or Django's."""
    from mascarade_site.postgres import base as ours

    made = []
    for name in ("_PSYCOPG_TIMESTAMPTZ", "_DjangoUTCLoader"):
        real = getattr(ours, name)
        monkeypatch.setattr(ours, name, lambda oid, context, real=real: (
            made.append(real), real(oid, context))[1])
    return made


def test_timestamptz_values_read_by_psycopgs_loader_as_djangos_reads_them(other, used):
    from mascarade_site.postgres.base import UTCTimestamptzLoader

    other.ensure_connection()
    assert other.connection.adapters.get_loader(
        base.TIMESTAMPTZ_OID, pq.Format.TEXT) is UTCTimestamptzLoader
    ours = read_timestamps(other)
    assert not issubclass(used[0], BaseTzLoader)  # psycopg's own, not Django's
    if pq.__impl__ == "binary":
        assert used[0].__module__.startswith("psycopg_binary")  # in C
    assert ours == TIMESTAMPTZ_VALUES
    assert all(value.tzinfo is dt.UTC for value in ours[:2])
    # Through Django's own loader: the same.
    with other.cursor() as cursor:
        base.register_tzloader(other.timezone, cursor.cursor)
        cursor.execute(TIMESTAMPTZ_SQL)
        assert cursor.fetchone() == TIMESTAMPTZ_VALUES
    # A session moved to another time zone reads with Django's loader, then psycopg's again.
    with other.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'Europe/Paris'")
    read_timestamps(other)
    assert issubclass(used[1], BaseTzLoader)
    with other.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'UTC'")
    assert read_timestamps(other) == TIMESTAMPTZ_VALUES
    assert used[2] is used[0]


def test_switched_off_timestamptz_is_read_by_djangos_loader(other, settings, used):
    """``PERF_OFF=timestamptz``: Django's loader, in Python, for the bench to compare."""
    settings.PERF_OFF = frozenset({"timestamptz"})
    assert read_timestamps(other) == TIMESTAMPTZ_VALUES
    settings.PERF_OFF = frozenset()
    assert read_timestamps(other) == TIMESTAMPTZ_VALUES
    assert issubclass(used[0], BaseTzLoader)
    assert not issubclass(used[1], BaseTzLoader)


@pytest.mark.django_db(transaction=True)
def test_a_server_side_cursor_reads_timestamptz_as_the_others():
    from games.models import Notification
    from tests.api.factories import UserFactory

    user = UserFactory()
    now = dt.datetime(2026, 11, 23, 17, 0, 1, 234567, tzinfo=dt.UTC)
    Notification.objects.bulk_create([Notification(user=user, kind="started", dedupe_key=f"k{i}",
                                                   next_attempt_at=now) for i in range(3)])
    assert list(Notification.objects.filter(user=user).values_list(
        "next_attempt_at", flat=True)) == [now] * 3  # psycopg's loader
    streamed = list(Notification.objects.filter(user=user)
                    .values_list("next_attempt_at", flat=True).iterator(chunk_size=2))
    assert streamed == [now] * 3  # a server-side cursor
