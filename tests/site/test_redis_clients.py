"""``games.core.redis_clients``: one client per URL and options, shared by the process's
threads (its commands take connections from its pool); a forked child makes its own."""

from __future__ import annotations

import os
import threading

import pytest

from games.core import redis_clients

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


def test_the_process_shares_one_client_per_url_and_options(url):
    mine = redis_clients.client(url, socket_timeout=1)
    assert redis_clients.client(url, socket_timeout=1) is mine
    assert redis_clients.client(url, socket_timeout=2) is not mine
    assert _in_thread(lambda: redis_clients.client(url, socket_timeout=1)) is mine
    assert mine.connection is None  # (its commands take connections from its pool)
    assert mine.ping() and _in_thread(mine.ping)


def test_a_forked_child_makes_its_own(url):
    parent = redis_clients.client(url, socket_timeout=1)
    assert parent.ping()
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
