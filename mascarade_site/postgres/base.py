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

And it keeps one cursor open for :meth:`DatabaseWrapper.kept_cursor`, through which
``mascarade_site.prepared`` runs the hot paths' statements: Django makes a new psycopg cursor
(which then looks up the adapters of each parameter and column anew) and a wrapper for every
statement, about half the client's cost of a short query.

``ENGINE: "mascarade_site.postgres"`` (the settings choose it for a ``postgres://`` URL).
"""

from __future__ import annotations

import datetime as dt
import select

import psycopg
from django.db.backends.postgresql import base
from psycopg import pq

#: psycopg's own text loader of ``timestamptz`` (its C one when psycopg-binary is installed).
_TIMESTAMPTZ = psycopg.adapters.get_loader(base.TIMESTAMPTZ_OID, pq.Format.TEXT)


class DatabaseWrapper(base.DatabaseWrapper):
    _kept = None

    def kept_cursor(self):
        """A psycopg cursor of the open connection, the same from one call to the next, or
        ``None`` where the statement must take Django's own way: when queries are being
        recorded (``DEBUG``, ``CaptureQueriesContext``), when execute wrappers are installed, or
        in a session whose time zone is not UTC. The checks Django makes before each statement
        are made here too (health check, thread, broken transaction); the caller runs its
        statement inside ``self.wrap_database_errors`` and reads all of its result before the
        next one (no iterating while another statement runs)."""
        if self.queries_logged or self.execute_wrappers:
            return None
        self.close_if_health_check_failed()
        self.ensure_connection()
        self.validate_thread_sharing()
        self.validate_no_broken_transaction()
        if not self._utc_session():
            return None
        cursor = self._kept
        if cursor is None or cursor.connection is not self.connection or cursor.closed:
            cursor = self._kept = self.create_cursor()
        return cursor

    def create_cursor(self, name=None):
        loader = self.connection.adapters.get_loader(base.TIMESTAMPTZ_OID, pq.Format.TEXT)
        if name is None and self._utc_session():
            if loader is not _TIMESTAMPTZ:
                self.connection.adapters.register_loader(base.TIMESTAMPTZ_OID, _TIMESTAMPTZ)
            return self.connection.cursor()
        # A named (server-side) cursor, or a session in another time zone: Django's way, with
        # Django's loader (put back on the connection if psycopg's is there).
        if loader is _TIMESTAMPTZ:
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
