"""The Redis clients of a process (the API throttles, the push messages): one per URL and set
of options, shared by the process's threads through redis-py's connection pool. After a fork,
the child makes its own (the parent's are forgotten in it)."""

from __future__ import annotations

import os
import threading
from typing import Any

import redis

_clients: dict[tuple, redis.Redis] = {}
_lock = threading.Lock()


def _forget_in_child() -> None:
    _clients.clear()


os.register_at_fork(after_in_child=_forget_in_child)


def client(url: str, **options: Any) -> redis.Redis:
    """The process's client of ``url`` made with ``options``."""
    key = (url, tuple(sorted(options.items())))
    found = _clients.get(key)
    if found is None:
        with _lock:
            found = _clients.get(key)
            if found is None:
                found = _clients[key] = redis.Redis.from_url(url, **options)
    return found
