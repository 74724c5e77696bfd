"""What the tests of the web servers share (``test_web_server.py``: granian, as the start script
runs it; ``test_gunicorn.py``: gunicorn, as it ran before): an application that answers with the
pid of the worker that served it, and a free port."""

from __future__ import annotations

import http.client
import socket
import subprocess
import time
from collections import Counter

#: Answers with the pid of the worker that served the request.
PID_APP = '''
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


def assert_kept_alive_and_spread(port: int, clients: int = 40, workers: int = 2) -> None:
    """``clients`` connecting at once to the pid application on ``port``: each served twice on
    its one connection by one worker, and each of the ``workers`` serves a fair share of them."""
    connections = [http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                   for _ in range(clients)]
    for connection in connections:
        connection.connect()
    served = []
    for connection in connections:
        pids = []
        for _ in range(2):
            connection.request("GET", "/")
            answer = connection.getresponse()
            assert answer.status == 200 and answer.getheader("Connection") != "close"
            pids.append(answer.read().decode())
        assert pids[0] == pids[1]
        served.append(pids[0])
    for connection in connections:
        connection.close()
    shares = Counter(served)
    assert len(shares) == workers and min(shares.values()) >= clients // (workers * 3), shares


def listening(proc: subprocess.Popen, port: int, seconds: float = 60) -> subprocess.Popen:
    """``proc`` once its server accepts connections on ``port`` (it is killed, and the test
    fails with the end of its error output, if it does not within ``seconds``)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                errors = proc.stderr.read().decode()[-2000:] if proc.stderr else ""
                raise AssertionError(f"no server on port {port}: {errors}") from None
            time.sleep(0.1)
