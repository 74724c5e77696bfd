"""What the tests of the web servers share (``test_web_server.py``: granian, as the start script
runs it; ``test_gunicorn.py``: gunicorn, as it ran before): an application that answers with the
pid of the worker that served it, and a free port; and what the tests of the proxy and of the
production shape share (``test_proxy.py``, ``test_prod_local.py``): a command installed (nginx,
redis-server), ``docker/prod_local.py`` imported."""

from __future__ import annotations

import http.client
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.plugin import _require_services

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


def installed(command: str) -> str:
    """The path of ``command`` (Debian's package of that name: nginx, redis-server), found on
    ``PATH`` or in the sbin directories; the test skips without it, and fails under
    ``REQUIRE_SERVICES=1``."""
    found = shutil.which(command) or next(
        (path for path in (f"/usr/sbin/{command}", f"/usr/local/sbin/{command}")
         if os.path.exists(path)), None)
    if found is None:
        if _require_services():
            pytest.fail(f"REQUIRE_SERVICES=1 but {command} is not installed "
                        f"(apt-get install {command})")
        pytest.skip(f"needs {command} (apt-get install {command})")
    return found


def prod_local():
    """``docker/prod_local.py`` (a script beside the start scripts, not a package's module),
    imported once."""
    if "prod_local" not in sys.modules:
        path = Path(__file__).resolve().parents[2] / "docker" / "prod_local.py"
        spec = importlib.util.spec_from_file_location("prod_local", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["prod_local"] = module
        spec.loader.exec_module(module)
    return sys.modules["prod_local"]


def compose_proxy_env() -> dict[str, str]:
    """The environment the compose file gives its proxy (nginx), which fills in the template
    ``docker/nginx.conf``."""
    import yaml

    compose = yaml.safe_load((Path(__file__).resolve().parents[2] / "docker" / "compose.yml")
                             .read_text())
    return {name: str(value)
            for name, value in compose["services"]["proxy"]["environment"].items()}
