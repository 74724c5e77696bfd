"""The Redis cache backend that keeps one ``redis.Redis`` per connection pool
(``mascarade_site/redis_cache.py``), on the real Redis."""

from __future__ import annotations

import secrets
import threading

import pytest
from django.conf import settings
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache

from mascarade_site.redis_cache import RedisCache

pytestmark = pytest.mark.redis


@pytest.fixture
def cache():
    """A cache of its own on the test Redis (its own key prefix), emptied of its keys after."""
    made = RedisCache(settings.REDIS_URL, {"KEY_PREFIX": f"test-{secrets.token_hex(6)}"})
    yield made
    client = made._cache.get_client(write=True)
    keys = list(client.scan_iter(match=f"{made.key_prefix}:*"))
    if keys:
        client.delete(*keys)


def test_one_client_per_pool(cache):
    first = cache._cache.get_client("a", write=True)
    assert cache._cache.get_client("b", write=True) is first
    assert cache._cache.get_client("c") is first  # one server: reads use the same pool
    other = RedisCache(settings.REDIS_URL, {})
    assert other._cache.get_client("a") is not first


def test_behaves_as_djangos(cache):
    """The same operations give the same results as Django's own backend on the same keys."""
    theirs = DjangoRedisCache(settings.REDIS_URL, {"KEY_PREFIX": cache.key_prefix})
    cache.set("history", [3.5, 2.25, 1.0], 60)
    assert theirs.get("history") == [3.5, 2.25, 1.0]
    theirs.set("count", 41, 60)
    assert cache.incr("count") == 42
    assert theirs.get("count") == 42
    assert cache.add("count", 0) is False
    assert cache.add("fresh", {"a": 1}, 60) is True
    assert cache.get_many(["history", "fresh", "missing"]) == {
        "history": [3.5, 2.25, 1.0], "fresh": {"a": 1}}
    assert cache.delete("fresh") is True
    assert theirs.get("fresh", "gone") == "gone"
    cache.set("short", 1, 0)  # a timeout of 0 deletes, as Django's does
    assert theirs.get("short") is None
    assert cache.touch("history", 5) is True
    assert 0 < cache._cache.get_client().ttl(cache.make_key("history")) <= 5


def test_shared_client_between_threads(cache):
    """Threads using the one client each get their own values back (the pool gives each
    command its own connection)."""
    errors: list[str] = []

    def work(n: int) -> None:
        for i in range(50):
            key = f"t{n}-{i}"
            cache.set(key, (n, i), 60)
            got = cache.get(key)
            if got != (n, i):
                errors.append(f"{key}: {got!r}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(cache._cache._clients) == 1
