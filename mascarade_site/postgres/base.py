"""Django's PostgreSQL backend with a health check that costs no round trip.

With ``CONN_HEALTH_CHECKS`` Django checks a reused connection at the first query of each request
(and of each Celery task) by sending ``SELECT 1``: one more round trip to the server on every
request. Here the check looks at the connection's socket instead. An idle connection on which the
server has said something, or which it closed, is readable: that is how a server's restart, a
terminated backend (``pg_terminate_backend``, ``idle_session_timeout``) or a broken TCP
connection shows, and such a connection is dropped and a new one opened, as Django's own check
does. A quiet socket on an open connection is used as it is. What neither check can see in
advance (a network path that died silently) fails that request, and the connection is dropped
at its end, as with Django's check when the failure comes just after it.

It also reads ``timestamptz`` values with psycopg's own loader (in C with psycopg's binary
package) when the session's time zone is UTC, as the settings make it: Django installs, for every
connection, a loader written in Python that parses each value and then sets its time zone, which
costs about 4 µs a value (a read of a game has about twenty). With a UTC session psycopg's loader
gives the same values, in ``datetime.timezone.utc`` as Django's. With another time zone, Django's.

And it runs the hot paths' statements (``mascarade_site.prepared``) through libpq directly
(:meth:`DatabaseWrapper.run_hot`, ``direct.py``): for a short query, Django's cursor wrapper and
a new psycopg cursor cost the client more than four times what the query itself does.

``ENGINE: "mascarade_site.postgres"`` (the settings choose it for a ``postgres://`` URL).
"""

from __future__ import annotations

import datetime as dt
import select

import psycopg
from django.db.backends.postgresql import base
from psycopg import pq

from .direct import Direct

#: psycopg's own text loader of ``timestamptz`` (its C one when psycopg-binary is installed).
_TIMESTAMPTZ = psycopg.adapters.get_loader(base.TIMESTAMPTZ_OID, pq.Format.TEXT)


class DatabaseWrapper(base.DatabaseWrapper):
    _direct: Direct | None = None

    def run_hot(self, sql: str, params: list, fetch: bool) -> tuple[list | None, int] | None:
        """Run one statement through libpq directly (:mod:`.direct`): its rows (if ``fetch``)
        and row count; or ``None``, having sent nothing, where it must take Django's own way:
        while queries are being recorded (``DEBUG``, ``CaptureQueriesContext``); with execute
        wrappers installed; without server-side binding (``DB_PREPARED=0``, for a pooler in
        transaction mode, where a prepared statement may not be found again); in a session
        whose time zone is not UTC; with an isolation level or access mode set on the
        connection; for SQL with a ``%`` other than its placeholders. The checks Django makes
        before each statement are made here too (health check, thread, broken transaction) and
        errors are Django's (``wrap_database_errors``)."""
        if (self.queries_logged or self.execute_wrappers
                or not self.settings_dict["OPTIONS"].get("server_side_binding")):
            return None
        self.close_if_health_check_failed()
        self.ensure_connection()
        self.validate_thread_sharing()
        self.validate_no_broken_transaction()
        conn = self.connection
        if (not self._utc_session() or conn.isolation_level is not None
                or conn.read_only is not None or conn.deferrable is not None):
            return None
        direct = self._direct
        if direct is None or direct.conn is not conn:
            self._psycopg_timestamptz()
            direct = self._direct = Direct(conn)
        with self.wrap_database_errors:
            return direct.run(sql, params, fetch)

    def _psycopg_timestamptz(self) -> None:
        """psycopg's loader of ``timestamptz`` on the connection (a UTC session)."""
        if (self.connection.adapters.get_loader(base.TIMESTAMPTZ_OID, pq.Format.TEXT)
                is not _TIMESTAMPTZ):
            self.connection.adapters.register_loader(base.TIMESTAMPTZ_OID, _TIMESTAMPTZ)

    def create_cursor(self, name=None):
        if name is None and self._utc_session():
            self._psycopg_timestamptz()
            return self.connection.cursor()
        # A named (server-side) cursor, or a session in another time zone: Django's way, with
        # Django's loader (put back on the connection if psycopg's is there).
        if (self.connection.adapters.get_loader(base.TIMESTAMPTZ_OID, pq.Format.TEXT)
                is _TIMESTAMPTZ):
            base.register_tzloader(self.timezone, self.connection)
        return super().create_cursor(name)

    def _utc_session(self) -> bool:
        """Django's time zone and the session's are both UTC: psycopg's loader then reads
        ``timestamptz`` as Django's does."""
        return (self.timezone is dt.UTC
                and self.connection.pgconn.parameter_status(b"TimeZone") == b"UTC")

    def close_if_health_check_failed(self) -> None:
        if self.connection is None or not self.health_check_enabled or self.health_check_done:
            return
        if not self.is_quiet():
            self.close()
        self.health_check_done = True

    def is_quiet(self) -> bool:
        """The connection is open and the server has sent nothing since the last answer."""
        pgconn = self.connection.pgconn
        if self.connection.closed or pgconn.status != pq.ConnStatus.OK:
            return False
        try:
            fd = pgconn.socket
        except Exception:  # psycopg.OperationalError: the connection has no socket any more
            return False
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLPRI)
        return not poller.poll(0)  # readable, hung up or in error: not quiet
