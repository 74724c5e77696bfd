"""The web process's Redis clients (the API throttles, the push messages): one per thread, each
holding one connection of its own.

A client of redis-py shared by threads takes a connection from its pool for each command, and
each checkout looks at the connection's socket first (``can_read``: a few system calls) to be
sure that nothing is left unread on it. A client of a thread's own with
``single_connection_client`` keeps its one connection: no checkout, no look, and nothing to
share (a process has as many connections as it has threads that use Redis). After a fork, the
child makes its own (the parent's are forgotten in it). ``PERF_OFF=redis_single``: one client
shared by the process, as before (``bench/api_instr.py`` compares).

redis-py's single-connection client connects when it is made: :func:`client` raises
``redis.RedisError`` when Redis is down, which the callers treat as a failed command. A
connection lost meanwhile (Redis restarted, or an idle connection closed by its ``timeout``) is
made again when a command finds it lost, and the command sent again, once; a command Redis ran
before the connection broke may so run twice (a throttle counts a request twice, a push
message wakes its streams twice: both harmless).
"""

from __future__ import annotations

import os
import threading
from typing import Any

import redis

from mascarade_site import perf

_local = threading.local()
_shared: dict[tuple, redis.Redis] = {}
_lock = threading.Lock()


def _forget_in_child() -> None:
    _local.__dict__.clear()
    _shared.clear()


os.register_at_fork(after_in_child=_forget_in_child)


def client(url: str, **options: Any) -> redis.Redis:
    """A client of ``url`` made with ``options``: this thread's (one connection), or with
    ``PERF_OFF=redis_single`` the process's (a pool)."""
    key = (url, tuple(sorted(options.items())))
    if perf.on("redis_single"):
        clients = _local.__dict__.setdefault("clients", {})
        found = clients.get(key)
        if found is None:
            # (a connection Redis closed, restarted or idle past its ``timeout``, is made
            # again and the command sent again, once: a pool's checkout looks at the socket
            # first and does that without sending)
            found = clients[key] = redis.Redis.from_url(
                url, single_connection_client=True,
                retry_on_error=[redis.ConnectionError], **options)
        return found
    found = _shared.get(key)
    if found is None:
        with _lock:
            found = _shared.get(key)
            if found is None:
                found = _shared[key] = redis.Redis.from_url(url, **options)
    return found
