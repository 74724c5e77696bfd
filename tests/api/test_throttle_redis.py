"""The throttles' Redis way (``games/api/throttling.py``): DRF's rule in one atomic round trip,
on the real Redis, checked against DRF's own implementation."""

from __future__ import annotations

import threading
import uuid

import pytest
from django.core.cache.backends.locmem import LocMemCache
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.throttling import SimpleRateThrottle

from games.api.throttling import KEY_PREFIX, _client, _Throttle

pytestmark = pytest.mark.redis


def _pair(rate: str, key: str, clock: list[float]) -> tuple[SimpleRateThrottle, _Throttle]:
    """DRF's throttle (on a cache of its own) and ours (on the Redis cache), same rate, key and
    clock."""

    class Drf(SimpleRateThrottle):
        cache = LocMemCache(f"drf-{key}", {})

        def get_cache_key(self, request, view):
            return key

    class Ours(_Throttle):
        def get_cache_key(self, request, view):
            return key

    Drf.rate = Ours.rate = rate
    made = []
    for cls in (Drf, Ours):
        throttle = cls()
        throttle.timer = lambda: clock[0]
        made.append(throttle)
    return made[0], made[1]


@pytest.fixture
def redis_client():
    client = _client()
    assert client is not None, "REDIS_URL set: the throttles have their Redis client"
    return client


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(limit=st.integers(1, 4), period=st.sampled_from(["s", "m"]),
       # whole seconds too, so that an entry is often exactly one period old (the boundary)
       steps=st.lists(st.one_of(st.integers(0, 61).map(float),
                                st.floats(0, 90, allow_nan=False)), min_size=1, max_size=14))
def test_same_answers_and_waits_as_drf(redis_client, limit, period, steps):
    """Request after request (each after the given pause, in seconds), ours lets through the
    same requests as DRF's and names the same wait (Retry-After) for the others."""
    key = f"test-throttle-{uuid.uuid4().hex}"
    clock = [1_700_000_000.0]
    try:
        for pause in steps:
            clock[0] += pause
            drf, ours = _pair(f"{limit}/{period}", key, clock)
            expected = drf.allow_request(None, None)
            assert ours.allow_request(None, None) is expected
            if not expected:
                assert ours.wait() == pytest.approx(drf.wait())
    finally:
        redis_client.delete(f"{KEY_PREFIX}{key}")


def test_parallel_requests_cannot_pass_the_limit(redis_client):
    """Twenty requests of one client at once, a limit of 10: exactly 10 pass (DRF's
    read-then-write lets requests that read the same history all pass)."""
    key = f"test-throttle-{uuid.uuid4().hex}"
    clock = [1_700_000_000.0]
    start = threading.Barrier(20)
    answers: list[bool] = []

    def one() -> None:
        _drf, ours = _pair("10/m", key, clock)
        start.wait()
        answers.append(ours.allow_request(None, None))

    threads = [threading.Thread(target=one) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert answers.count(True) == 10
        assert answers.count(False) == 10
    finally:
        redis_client.delete(f"{KEY_PREFIX}{key}")


def test_the_list_expires_with_the_period(redis_client):
    key = f"test-throttle-{uuid.uuid4().hex}"
    _drf, ours = _pair("5/m", key, [1_700_000_000.0])
    assert ours.allow_request(None, None)
    full = f"{KEY_PREFIX}{key}"
    assert redis_client.llen(full) == 1
    assert 0 < redis_client.ttl(full) <= 60
    redis_client.delete(full)


def test_without_redis_it_takes_drfs_way_on_the_cache(redis_client, settings):
    """``REDIS_URL`` unset (development): DRF's own read-then-write on the default cache, which
    counts as well; nothing under the script's key."""
    settings.REDIS_URL = ""
    key = f"test-throttle-{uuid.uuid4().hex}"
    _drf, ours = _pair("1/m", key, [1_700_000_000.0])
    assert ours.allow_request(None, None)
    assert not ours.allow_request(None, None)
    assert ours.wait() == pytest.approx(60)
    assert not redis_client.exists(f"{KEY_PREFIX}{key}")
