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

It overrides one documented hook of Django's backend, ``close_if_health_check_failed``, and reads
the socket through psycopg's public ``pgconn``. ``PERF_OFF=health`` in the environment (read at
each check, see :mod:`mascarade_site.perf`) puts Django's own check back, for
``bench/api_cpu.py`` to show what this one saves.

It also gives each new connection a ``timestamptz`` loader (:class:`UTCTimestamptzLoader`) that
reads with psycopg's own (in C with psycopg's binary package) while the session's time zone is
UTC, as Django sets it. Django puts on every connection a loader written in Python, which parses
each value then sets its time zone, and a request reads about twenty such values; with a UTC
session psycopg's gives the same values, in ``datetime.timezone.utc`` as Django's. It is
registered from Django's ``connection_created`` signal through psycopg's public adapters map,
and it has the ``timezone`` Django compares with its own before each cursor (equal: Django
leaves it in place). ``PERF_OFF=timestamptz`` (read as each query's loaders are made) reads with
Django's loader.

``ENGINE: "mascarade_site.postgres"`` (the settings choose it for a ``postgres://`` URL).
"""

from __future__ import annotations

import datetime as dt
import select

import psycopg
from django.db.backends.postgresql import base
from django.db.backends.postgresql.psycopg_any import BaseTzLoader
from django.db.backends.signals import connection_created
from django.dispatch import receiver
from psycopg import adapt, pq

from mascarade_site import perf

#: psycopg's own text loader of ``timestamptz`` (its C one with psycopg's binary package).
_PSYCOPG_TIMESTAMPTZ = psycopg.adapters.get_loader(base.TIMESTAMPTZ_OID, pq.Format.TEXT)


class _DjangoUTCLoader(BaseTzLoader):
    """Django's loader for a connection in UTC (what ``register_tzloader`` makes)."""

    timezone = dt.UTC


class UTCTimestamptzLoader(adapt.Loader):
    """Reads ``timestamptz`` with psycopg's loader while the session is in UTC, with Django's
    otherwise (or with ``PERF_OFF=timestamptz``). Made for each query's result (psycopg makes
    its loaders then), it takes the chosen loader's ``load`` as its own."""

    #: What Django's ``create_cursor`` compares with the connection's time zone.
    timezone = dt.UTC

    def __init__(self, oid, context=None):
        super().__init__(oid, context)
        utc = (self.connection is not None
               and self.connection.pgconn.parameter_status(b"TimeZone") == b"UTC")
        chosen = _PSYCOPG_TIMESTAMPTZ if utc and perf.on("timestamptz") else _DjangoUTCLoader
        self._chosen = chosen(oid, context)
        # The chosen loader's own method, found on the instance before the class's: psycopg
        # calls it for each value, with no frame of this class's in between.
        self.load = self._chosen.load

    def load(self, data):
        return self._chosen.load(data)


@receiver(connection_created, dispatch_uid="mascarade_site.postgres.timestamptz")
def _read_timestamptz_in_c(sender, connection, **kwargs) -> None:
    if isinstance(connection, DatabaseWrapper) and connection.timezone is dt.UTC:
        connection.connection.adapters.register_loader(base.TIMESTAMPTZ_OID,
                                                       UTCTimestamptzLoader)


class DatabaseWrapper(base.DatabaseWrapper):
    def close_if_health_check_failed(self) -> None:
        if not perf.on("health"):
            return super().close_if_health_check_failed()
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
