"""Per-user and anonymous throttles whose rates are read at each request.

The rates live in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (from ``API_THROTTLE_*`` in the
environment, see the README); DRF's own classes read them once at import, these read them through
``api_settings`` so that a settings change (tests) applies at once.

The rule is DRF's: a throttle keeps the times of the requests it let through in the last period
(newest first), and lets a request through while fewer than the rate's number are there; a
refused request waits as DRF computes it (``Retry-After``). With the Redis cache (production),
that list is a Redis list changed by one Lua script: one round trip per request instead of DRF's
two (a read of the whole pickled list, then a write of it), and atomic: with DRF's read-then-write,
concurrent requests of one client each read the same list and each let themselves through, so a
client sending in parallel could pass its limit. Other caches (the local-memory one of development
and tests without Redis) go DRF's way.
"""

from __future__ import annotations

from django.core.cache import caches
from rest_framework.settings import api_settings
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle

from mascarade_site.redis_cache import RedisCache

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
        backend = caches["default"]
        if self.rate is None or not isinstance(backend, RedisCache):
            return super().allow_request(request, view)
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        # Its own key (":log"): a list, where DRF's way keeps a pickled value; neither reads
        # the other's (a Redis list read as a value is an error).
        key = backend.make_and_validate_key(f"{self.key}:log")
        client = backend._cache.get_client(key, write=True)
        self.now = self.timer()
        allowed, count, oldest = _script(client)(
            keys=[key], args=[repr(self.now), self.duration, self.num_requests], client=client)
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


_SCRIPT = None


def _script(client):
    """The script, registered once (redis-py hashes it and sends EVALSHA, or EVAL the first
    time a server lacks it); called with each request's client."""
    global _SCRIPT
    if _SCRIPT is None:
        _SCRIPT = client.register_script(_LUA)
    return _SCRIPT


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
