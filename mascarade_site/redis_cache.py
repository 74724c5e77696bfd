"""Django's Redis cache, with one ``redis.Redis`` client per connection pool instead of one for
each call.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` around the (kept)
connection pool for every cache operation; building one costs about 50 µs (redis-py copies its
table of response callbacks into each), as much as the operation itself. The API's throttle
reads and writes the cache on every request, so that was about 0.1 ms of CPU per request. A
``redis.Redis`` is safe to share between threads (each command takes a connection from the
pool and gives it back), so one is kept per pool.

``BACKEND: "mascarade_site.redis_cache.RedisCache"`` (the settings choose it with ``REDIS_URL``).
"""

from __future__ import annotations

from django.core.cache.backends import redis as django_redis


class RedisCacheClient(django_redis.RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(django_redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient
