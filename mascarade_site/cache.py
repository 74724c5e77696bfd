"""The cache on Redis (django-redis) that fails open: with Redis down, what it holds reads as
empty (``IGNORE_EXCEPTIONS``, each failure logged), and :meth:`FailOpenRedisCache.add` reports
success. allauth's rate limits take a lock with ``cache.add`` before counting; with django-redis's
own ``add``, which then answers ``None``, every login was refused (429) while Redis was down.
"""

from __future__ import annotations

from django_redis.cache import RedisCache, omit_exception


class FailOpenRedisCache(RedisCache):
    @omit_exception(return_value=True)
    def add(self, *args, **kwargs):
        return self.client.add(*args, **kwargs)
