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


def test_timestamptz_values_read_as_djangos_loader_reads_them(other):
    from django.db.backends.postgresql.psycopg_any import BaseTzLoader
    from psycopg import pq

    other.ensure_connection()
    sql = ("SELECT '2026-01-02 03:04:05.678901+00'::timestamptz, "
           "'1999-12-31 23:30:00-05'::timestamptz, NULL::timestamptz")
    with other.cursor() as cursor:
        cursor.execute(sql)
        ours = cursor.fetchone()
    loader = other.connection.adapters.get_loader(1184, pq.Format.TEXT)
    assert not issubclass(loader, BaseTzLoader)  # psycopg's own, not Django's
    if pq.__impl__ == "binary":
        assert loader.__module__.startswith("psycopg_binary")
    expected = (dt.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=dt.UTC),
                dt.datetime(2000, 1, 1, 4, 30, tzinfo=dt.UTC), None)
    assert ours == expected
    assert all(value.tzinfo is dt.UTC for value in ours[:2])
    # Through Django's own loader: the same.
    with other.cursor() as cursor:
        base.register_tzloader(other.timezone, cursor.cursor)
        cursor.execute(sql)
        assert cursor.fetchone() == expected
    # A session moved to another time zone gets Django's loader back.
    with other.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'Europe/Paris'")
    with other.cursor() as cursor:
        assert issubclass(other.connection.adapters.get_loader(1184, pq.Format.TEXT),
                          BaseTzLoader)
        cursor.execute("SET TIME ZONE 'UTC'")
    with other.cursor() as cursor:
        cursor.execute(sql)
        assert cursor.fetchone() == expected
    assert other.connection.adapters.get_loader(1184, pq.Format.TEXT) is loader


@pytest.mark.django_db(transaction=True)
def test_a_server_side_cursor_reads_timestamptz_too():
    from games.models import Notification
    from tests.api.factories import UserFactory

    user = UserFactory()
    now = dt.datetime(2026, 11, 23, 17, 0, 1, 234567, tzinfo=dt.UTC)
    Notification.objects.bulk_create([Notification(user=user, kind="started", dedupe_key=f"k{i}",
                                                   next_attempt_at=now) for i in range(3)])
    with connection.cursor():
        pass  # psycopg's loader in place on the connection
    streamed = list(Notification.objects.filter(user=user)
                    .values_list("next_attempt_at", flat=True).iterator(chunk_size=2))
    assert streamed == [now] * 3
    assert list(Notification.objects.filter(user=user)
                .values_list("next_attempt_at", flat=True)) == [now] * 3


def test_the_kept_cursor_is_reused_and_stands_aside_when_asked(other, monkeypatch):
    """``kept_cursor``: the same psycopg cursor statement after statement; none (Django's way)
    while queries are recorded or an execute wrapper is installed, or in a session moved off
    UTC; a new one on a new connection."""
    from django.test.utils import CaptureQueriesContext

    from mascarade_site.prepared import execute

    first = other.kept_cursor()
    assert first is not None and other.kept_cursor() is first
    assert execute(other, "SELECT %s::int + 1", [41], fetch=True) == ([(42,)], 1)
    assert other.kept_cursor() is first

    with CaptureQueriesContext(other) as queries:
        assert other.kept_cursor() is None
        assert execute(other, "SELECT %s::int", [7], fetch=True)[0] == [(7,)]
    assert [q["sql"] for q in queries] == ["SELECT 7::int"]  # seen by query counts

    seen = []

    def wrapper(execute_, sql, params, many, context):
        seen.append(sql)
        return execute_(sql, params, many, context)

    with other.execute_wrapper(wrapper):
        assert other.kept_cursor() is None
        execute(other, "SELECT 1", [])
    assert seen == ["SELECT 1"]

    with other.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'Europe/Paris'")
    assert other.kept_cursor() is None
    with other.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'UTC'")

    other.close()
    again = other.kept_cursor()
    assert again is not None and again is not first and again.connection is other.connection


@pytest.mark.django_db(transaction=True)
def test_the_kept_cursor_wraps_errors_and_respects_a_broken_transaction():
    """A failed statement raises Django's exception; inside ``atomic`` the transaction is then
    marked for rollback and the next statement is refused as Django refuses it, until the
    block ends."""
    from django.db import DatabaseError, IntegrityError, transaction
    from django.db.transaction import TransactionManagementError

    from mascarade_site.prepared import execute

    with pytest.raises(DatabaseError) as error:
        execute(connection, "SELECT 1/0", [])
    assert type(error.value).__module__ == "django.db.utils"
    assert execute(connection, "SELECT 2", [], fetch=True)[0] == [(2,)]  # autocommit: usable again

    with transaction.atomic(using=connection.alias):
        with pytest.raises(IntegrityError), transaction.atomic(using=connection.alias,
                                                               savepoint=False):
            execute(connection, "CREATE TEMPORARY TABLE kept (n int PRIMARY KEY)", [])
            execute(connection, "INSERT INTO kept VALUES (1), (1)", [])
        with pytest.raises(TransactionManagementError):
            execute(connection, "SELECT 3", [])
    assert execute(connection, "SELECT 4", [], fetch=True)[0] == [(4,)]
