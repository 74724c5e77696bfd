"""Per-user and anonymous throttles whose rates are read at each request.

The rates live in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (from ``API_THROTTLE_*`` in the
environment, see docs/configuration.md); DRF's own classes read them once at import, these read
them through ``api_settings`` so that a settings change (tests) applies at once.

The rule is DRF's: a throttle keeps the times of the requests it let through in the last period
(newest first), and lets a request through while fewer than the rate's number are there; a
refused request waits as DRF computes it (``Retry-After``). With the Redis cache (production),
that list is a Redis list changed by one Lua script: one round trip per request instead of
DRF's two (a read of the whole pickled list, then a write of it), and atomic: with DRF's
read-then-write, concurrent requests of one client each read the same list and each let
themselves through, so a client sending in parallel could pass its limit. The script runs on the
process's Redis client of ``REDIS_URL`` (:mod:`games.core.redis_clients`); without Redis
(development, tests without it), DRF's own way on the default cache.

Redis down fails no request: the throttles let requests through for :data:`FAIL_OPEN_SECONDS`,
then try again, and the log says so (the cache, django-redis, likewise reads as empty).
"""

from __future__ import annotations

import logging
import time
from typing import Any

import redis
from django.conf import settings
from rest_framework.settings import api_settings
from rest_framework.throttling import (
    AnonRateThrottle,
    BaseThrottle,
    SimpleRateThrottle,
    UserRateThrottle,
)

from games.core import redis_clients

logger = logging.getLogger(__name__)

#: The prefix of the throttles' keys in Redis (the cache's keys have their own).
KEY_PREFIX = "mascarade:throttle:"
#: Redis did not answer: the throttles let requests through for this long (seconds) before they
#: try it again, and say so once in the log.
FAIL_OPEN_SECONDS = 10.0

#: KEYS[1] the list of the times let through, newest first; ARGV now, period (s), limit.
#: Drops the times older than the period, then adds ``now`` if fewer than ``limit`` remain.
#: Answers {let through (1/0), entries now, oldest entry (text) or false}.
_LUA = """
local key = KEYS[1]
local now = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local oldest = redis.call('LINDEX', key, -1)
while oldest and tonumber(oldest) <= now - period do
  redis.call('RPOP', key)
  oldest = redis.call('LINDEX', key, -1)
end
local count = redis.call('LLEN', key)
if count >= limit then
  return {0, count, oldest}
end
redis.call('LPUSH', key, ARGV[1])
redis.call('EXPIRE', key, period)
return {1, count + 1, redis.call('LINDEX', key, -1)}
"""


class _Throttle(SimpleRateThrottle):
    """DRF's rule, in one atomic round trip on Redis (see the module's docstring)."""

    #: On the Redis way: the entries after this request and the oldest one, for :meth:`wait`.
    _count: int | None = None
    _oldest: float | None = None

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view):
        if self.rate is None or not settings.REDIS_URL:
            return super().allow_request(request, view)
        self.key = self.get_cache_key(request, view)
        if self.key is None or _failing_open():
            return True
        key = f"{KEY_PREFIX}{self.key}"
        self.now = self.timer()
        try:
            client = _client()
            allowed, count, oldest = _script(client)(
                keys=[key], args=[repr(self.now), self.duration, self.num_requests],
                client=client)
        except redis.RedisError as exc:
            _fail_open(exc)
            return True
        self._count = int(count)
        self._oldest = None if oldest is None else float(oldest)
        return bool(allowed)

    def wait(self):
        """DRF's: the time left until the oldest entry leaves the period, shared among the
        requests that will then be free."""
        if self._count is None:
            return super().wait()
        remaining = (self.duration - (self.now - self._oldest) if self._count
                     else self.duration)
        available = self.num_requests - self._count + 1
        if available <= 0:
            return None
        return remaining / float(available)


#: The script (redis-py's, which knows its hash), run on the client of each thread.
_the_script: Any = None
#: Until when (``time.monotonic()``) the throttles let everything through: Redis failed.
_open_until = 0.0


def _failing_open() -> bool:
    return time.monotonic() < _open_until


def _fail_open(exc: Exception) -> None:
    """Redis did not answer: no request fails for it. The throttles let requests through for
    :data:`FAIL_OPEN_SECONDS` (then try Redis again), which the log says once."""
    global _open_until
    _open_until = time.monotonic() + FAIL_OPEN_SECONDS
    logger.warning("Redis did not answer (%s): the API throttles let requests through for "
                   "%.0f s", exc, FAIL_OPEN_SECONDS)


def _client() -> redis.Redis:
    """The throttles' Redis client (``REDIS_URL``: the process's,
    :func:`games.core.redis_clients.client`)."""
    return redis_clients.client(settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1)


def _script(client: redis.Redis):
    """The script, registered once (redis-py hashes it and sends EVALSHA, or EVAL the first
    time a server lacks it); run with ``client=`` the client of the thread."""
    global _the_script
    if _the_script is None:
        _the_script = client.register_script(_LUA)
    return _the_script


def client_address(request) -> str:
    """The client's address as the throttles count it (DRF's ``get_ident``: the connection's
    address, or with ``TRUSTED_PROXIES`` the one our proxies appended to X-Forwarded-For); a
    plain Django request will do (the event streams' views)."""
    return BaseThrottle().get_ident(request)


class UserThrottle(_Throttle, UserRateThrottle):
    """Authenticated clients, per user."""

    scope = "user"


class AnonThrottle(_Throttle, AnonRateThrottle):
    """Anonymous clients (spectators), per IP address."""

    scope = "anon"


class AuthThrottle(_Throttle):
    """Registration and token login, per IP address whoever asks (slows password guessing)."""

    scope = "auth"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class WebhookThrottle(_Throttle, UserRateThrottle):
    """Changes of webhook endpoints, per user (``API_THROTTLE_WEBHOOKS``): registering one,
    changing it, pinging it, giving it a new secret (``POST`` and ``PATCH``: each looks a host up
    or queues a post). Reads and deletions are not counted."""

    scope = "webhooks"

    def allow_request(self, request, view):
        if request.method not in ("POST", "PATCH"):
            return True
        return super().allow_request(request, view)
