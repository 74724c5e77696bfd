"""The PostgreSQL backend (mascarade_site/postgres/base.py): its health check sends nothing on a
quiet connection and opens a new one after the server closed the old; its ``timestamptz`` values
are those Django's loader gives."""

from __future__ import annotations

import datetime as dt
import select
import time
import uuid

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


def test_hot_statements_run_direct_and_stand_aside_when_asked(other):
    """``run_hot``: statements prepared once per connection and run through libpq, with the
    values a cursor gives; Django's way (nothing sent here) while queries are recorded or an
    execute wrapper is installed, in a session moved off UTC, for a ``%`` other than the
    placeholders; a new ``Direct`` on a new connection."""
    from django.test.utils import CaptureQueriesContext

    from mascarade_site.prepared import execute

    sql = ("SELECT %s::int + 1, %s::text, %s::timestamptz, %s::jsonb, %s::uuid, %s::date, "
           "%s::bigint, %s::text IS NULL")

    when = dt.datetime(2026, 11, 23, 18, 0, 1, 5, tzinfo=dt.UTC)
    values = [41, "été ? %s 100%", when, '{"a": [1, "é"]}', uuid.UUID(int=7),
              dt.date(2026, 2, 28), 2**40, None]
    with other.cursor() as cursor:
        cursor.execute(sql, values)
        expected = cursor.fetchall()
    assert other.run_hot(sql, values, True) == (expected, 1)
    direct = other._direct
    assert direct is not None and len(direct.names) == 1
    assert execute(other, sql, values, fetch=True) == (expected, 1)
    assert len(direct.names) == 1  # prepared once
    assert other.run_hot(sql, [1, "", when, "[]", uuid.UUID(int=1), dt.date.min, 0, "x"],
                         True)[0][0][0] == 2
    assert other.run_hot("SELECT 1 WHERE %s::text LIKE '100%%'", ["x"], True) is None
    # Past the most statements a connection prepares, the others are sent unprepared.
    direct.PREPARED_MAX = len(direct.names)
    assert other.run_hot("SELECT %s::int * 2", [21], True) == ([(42,)], 1)
    assert len(direct.names) == direct.PREPARED_MAX
    del direct.PREPARED_MAX

    with CaptureQueriesContext(other) as queries:
        assert other.run_hot("SELECT %s::int", [7], True) is None
        assert execute(other, "SELECT %s::int", [7], fetch=True)[0] == [(7,)]
    assert [q["sql"] for q in queries] == ["SELECT 7::int"]  # seen by query counts

    seen = []

    def wrapper(execute_, sql, params, many, context):
        seen.append(sql)
        return execute_(sql, params, many, context)

    with other.execute_wrapper(wrapper):
        assert other.run_hot("SELECT 1", [], True) is None
        execute(other, "SELECT 1", [])
    assert seen == ["SELECT 1"]

    with other.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'Europe/Paris'")
    assert other.run_hot("SELECT 1", [], True) is None
    with other.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'UTC'")

    other.settings_dict["OPTIONS"]["server_side_binding"] = False  # as with DB_PREPARED=0
    try:
        assert other.run_hot("SELECT 1", [], True) is None
    finally:
        other.settings_dict["OPTIONS"]["server_side_binding"] = True

    other.close()
    assert other.run_hot("SELECT %s::int", [3], True) == ([(3,)], 1)
    assert other._direct is not direct and other._direct.conn is other.connection


def test_a_long_value_and_many_rows_go_through():
    """A value of several hundred kilobytes (more than a socket buffer) is sent whole; every
    row of a long answer comes back."""
    big = "x" * 600_000
    rows, count = connection.run_hot("SELECT length(%s::text), g FROM generate_series(1, 5000) g",
                                     [big], True)
    assert count == 5000 and rows[0] == (600_000, 1) and rows[-1] == (600_000, 5000)


@pytest.mark.django_db(transaction=True)
def test_hot_statements_in_transactions_and_their_errors():
    """Outside autocommit the first statement begins the transaction (its writes are rolled
    back with it; a statement prepared in it stays usable); a failed statement raises Django's
    exception; inside ``atomic`` the transaction is then marked for rollback and the next
    statement refused as Django refuses it, until the block ends."""
    from django.db import DatabaseError, IntegrityError, transaction
    from django.db.transaction import TransactionManagementError

    from mascarade_site.prepared import execute

    # psycopg's own preparation is off: after a rollback it would send DEALLOCATE ALL, and
    # the statements prepared here would be gone.
    connection.ensure_connection()
    assert connection.connection.prepare_threshold is None
    execute(connection, "CREATE TABLE IF NOT EXISTS hot_direct (n int PRIMARY KEY)", [])
    try:
        with pytest.raises(DatabaseError) as error:
            execute(connection, "SELECT 1/%s::int", [0])
        assert type(error.value).__module__ == "django.db.utils"
        assert execute(connection, "SELECT %s::int", [2], fetch=True)[0] == [(2,)]

        class Undo(Exception):
            pass

        with pytest.raises(Undo), transaction.atomic():
            assert execute(connection, "INSERT INTO hot_direct VALUES (%s)", [1]) == (None, 1)
            assert connection.connection.pgconn.transaction_status == 2  # INTRANS
            raise Undo
        assert execute(connection, "SELECT count(*) FROM hot_direct WHERE n > %s", [-1],
                       fetch=True)[0] == [(0,)]
        with transaction.atomic():
            execute(connection, "INSERT INTO hot_direct VALUES (%s)", [1])
        assert execute(connection, "SELECT count(*) FROM hot_direct WHERE n > %s", [-1],
                       fetch=True)[0] == [(1,)]

        with transaction.atomic():  # a savepoint rolled back, as Django does it
            with pytest.raises(IntegrityError), transaction.atomic():
                execute(connection, "INSERT INTO hot_direct VALUES (%s)", [1])
            assert execute(connection, "SELECT count(*) FROM hot_direct WHERE n > %s", [-1],
                           fetch=True)[0] == [(1,)]
        with transaction.atomic():
            with pytest.raises(IntegrityError), transaction.atomic(savepoint=False):
                execute(connection, "INSERT INTO hot_direct VALUES (%s)", [1])
            with pytest.raises(TransactionManagementError):
                execute(connection, "SELECT %s::int", [3])
        assert execute(connection, "SELECT %s::int", [4], fetch=True)[0] == [(4,)]
    finally:
        execute(connection, "DROP TABLE hot_direct", [])
