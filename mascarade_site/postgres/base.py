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

``ENGINE: "mascarade_site.postgres"`` (the settings choose it for a ``postgres://`` URL).
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg import pq

from mascarade_site import perf


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
