"""gunicorn as the web process runs it (mascarade_site/gunicorn.py): connections kept alive, and
spread over the workers by their own listening sockets."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Answers with the pid of the worker that served the request.
APP = '''
import os

def app(environ, start_response):
    body = str(os.getpid()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"),
                              ("Content-Length", str(len(body)))])
    return [body]
'''


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def gunicorn(tmp_path):
    (tmp_path / "pid_app.py").write_text(APP)
    port = free_port()
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", "DEBUG": "1"}
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("gunicorn")), "pid_app:app",
         "--config", "python:mascarade_site.gunicorn", "--workers", "2",
         "--bind", f"127.0.0.1:{port}", "--log-level", "warning"], cwd=tmp_path, env=env)
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise
            time.sleep(0.1)
    time.sleep(1)  # (both workers booted)
    yield port
    proc.terminate()
    proc.wait(timeout=30)


def test_connections_are_kept_alive_and_spread_over_the_workers(gunicorn):
    """40 clients connecting at once: each served twice on its one connection by one worker,
    and both workers have a fair share of them (with one socket shared by the workers, whichever
    woke first took nearly all)."""
    clients = [http.client.HTTPConnection("127.0.0.1", gunicorn, timeout=10)
               for _ in range(40)]
    for client in clients:
        client.connect()
    served = []
    for client in clients:
        pids = []
        for _ in range(2):
            client.request("GET", "/")
            answer = client.getresponse()
            assert answer.status == 200 and answer.getheader("Connection") != "close"
            pids.append(answer.read().decode())
        assert pids[0] == pids[1]
        served.append(pids[0])
    for client in clients:
        client.close()
    shares = Counter(served)
    assert len(shares) == 2 and min(shares.values()) >= 6, shares
