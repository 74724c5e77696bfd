"""The web server as ``docker/start-web.sh`` runs it (granian, its WSGI interface): the script's
own command line, read from the script, serves the site; connections are kept alive and spread
over the workers; an idle connection is closed only after the time nginx keeps its own idle
connections to web (so that nginx closes them first, never web under its feet)."""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .servers import (
    PID_APP,
    assert_kept_alive_and_spread,
    compose_proxy_env,
    free_port,
    listening,
    prod_local,
)

ROOT = Path(__file__).resolve().parents[2]


def start_web_command(port: int) -> list[str]:
    """The ``exec granian ...`` of ``docker/start-web.sh``, its variables at their defaults, bound
    to ``127.0.0.1:port``, granian taken beside this interpreter."""
    script = (ROOT / "docker" / "start-web.sh").read_text()
    line = script[script.index("exec granian"):].replace("\\\n", " ").splitlines()[0]
    line = re.sub(r'"\$\{\w+:-([^}]*)\}"', r"\1", line)
    args = shlex.split(line)[1:]
    assert "$" not in " ".join(args), f"a variable without a default in {args}"
    args[0] = str(Path(sys.executable).with_name("granian"))
    args[args.index("--host") + 1] = "127.0.0.1"
    args[args.index("--port") + 1] = str(port)
    return args


def serve(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen:
    """The server in a process group of its own (granian forks its workers), so that
    :func:`stop` ends the workers too."""
    proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    return listening(proc, int(args[args.index("--port") + 1]))


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM to the server's group, SIGKILL after 30 s; then to whatever of the group is
    left (a worker whose main process was killed would outlive the test otherwise)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    except ProcessLookupError:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def test_the_start_scripts_command_serves_the_site(tmp_path):
    port = free_port()
    env = {**os.environ, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "mascarade_site.settings",
           "VAR_DIR": str(tmp_path)}
    env.pop("DATABASE_URL", None)
    proc = serve(start_web_command(port), env, ROOT)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        deadline = time.monotonic() + 60
        for _ in range(2):  # twice on one connection
            while True:
                try:
                    conn.request("GET", "/rules/")
                    answer = conn.getresponse()
                    break
                except (OSError, http.client.HTTPException):
                    assert time.monotonic() < deadline
                    conn.close()
                    time.sleep(0.2)
            assert answer.status == 200 and b"Mascarade" in answer.read()
            assert answer.getheader("Connection") != "close"
        conn.close()
    finally:
        stop(proc)


@pytest.fixture
def pid_server(tmp_path):
    """The script's command serving an application that answers with its worker's pid."""
    (tmp_path / "pid_app.py").write_text(PID_APP)
    port = free_port()
    args = start_web_command(port)
    args[1] = "pid_app:app"
    args.remove("--factory")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    proc = serve(args, env, tmp_path)
    time.sleep(1)  # (both workers started)
    yield port, args
    stop(proc)


def test_connections_are_kept_alive_and_spread_over_the_workers(pid_server):
    """40 clients connecting at once: each served twice on its one connection by one worker,
    and both workers serve a fair share of them."""
    port, _args = pid_server
    assert_kept_alive_and_spread(port)


def test_an_idle_connection_outlives_nginxs_own():
    """granian closes a connection that waited for its next request longer than
    ``--http1-header-read-timeout``: the script's must exceed the time nginx keeps an idle
    connection to web (``keepalive_timeout`` of its ``upstream web``)."""
    args = start_web_command(8000)
    timeout_ms = int(args[args.index("--http1-header-read-timeout") + 1])
    nginx = prod_local().render_template((ROOT / "docker" / "nginx.conf").read_text(),
                                         compose_proxy_env())
    upstream = nginx[nginx.index("upstream web {"):]
    upstream = upstream[:upstream.index("}")]
    nginx_s = int(re.search(r"keepalive_timeout (\d+)s;", upstream).group(1))
    assert timeout_ms / 1000 > nginx_s + 5, (timeout_ms, nginx_s)


def test_an_idle_connection_is_closed_after_the_header_read_timeout(tmp_path):
    """The mechanism the previous test relies on, with a short timeout: open after half of it,
    closed after it."""
    (tmp_path / "pid_app.py").write_text(PID_APP)
    port = free_port()
    args = start_web_command(port)
    args[1] = "pid_app:app"
    args.remove("--factory")
    args[args.index("--http1-header-read-timeout") + 1] = "1500"
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    proc = serve(args, env, tmp_path)
    try:
        def idle_then_closed(wait: float) -> bool:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/")
            conn.getresponse().read()
            time.sleep(wait)
            conn.sock.settimeout(0.2)
            try:
                return conn.sock.recv(1) == b""
            except TimeoutError:
                return False
            finally:
                conn.close()

        assert not idle_then_closed(0.5)
        assert idle_then_closed(3.0)
    finally:
        stop(proc)

