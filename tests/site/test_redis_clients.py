"""``mascarade_site.redis_clients``: a client of one connection per thread (perf's
``redis_single``), or one shared by the process; a forked child makes its own."""

from __future__ import annotations

import os
import threading

import pytest

from mascarade_site import redis_clients

pytestmark = pytest.mark.redis


@pytest.fixture
def url(settings):
    return settings.REDIS_URL  # (the redis marker: skipped without it, failed under CI)


def _in_thread(func):
    out = []
    thread = threading.Thread(target=lambda: out.append(func()))
    thread.start()
    thread.join()
    return out[0]


def test_each_thread_has_its_client_of_one_connection(url, settings):
    settings.PERF_OFF = frozenset()
    mine = redis_clients.client(url, socket_timeout=1)
    assert redis_clients.client(url, socket_timeout=1) is mine
    assert redis_clients.client(url, socket_timeout=2) is not mine
    other = _in_thread(lambda: redis_clients.client(url, socket_timeout=1))
    assert other is not mine
    assert mine.connection is not None and mine.ping()
    assert mine.connection is not other.connection


def test_off_the_process_shares_one_client(url, settings):
    settings.PERF_OFF = frozenset({"redis_single"})
    mine = redis_clients.client(url, socket_timeout=1)
    assert _in_thread(lambda: redis_clients.client(url, socket_timeout=1)) is mine
    assert mine.connection is None  # (its commands take connections from its pool)


def test_a_forked_child_makes_its_own(url, settings):
    settings.PERF_OFF = frozenset()
    parent = redis_clients.client(url, socket_timeout=1)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a new client, whose connection works
        try:
            child = redis_clients.client(url, socket_timeout=1)
            ok = child is not parent and child.ping()
            os.write(write, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(write)
    assert os.read(read, 1) == b"1"
    os.waitpid(pid, 0)
    assert redis_clients.client(url, socket_timeout=1) is parent and parent.ping()
