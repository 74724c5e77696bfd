"""``make prod-local`` as it runs: ``docker/prod_local.py start`` on free ports, against a
PostgreSQL database of its own (made beside the tests' one, dropped after) and a Redis of its
own, then everything seen from outside, as the soak (``bench/soak.py``) sees it:

- every program RUNNING under supervisord, ``DEBUG=0`` (no debug page), a page through nginx
  with the static files it links to (the manifest's hashed names), an API call;
- event streams opened through nginx reach the stream processes, both of them (nginx balances);
- web-1's main process killed with SIGKILL: the site keeps answering through web-2, web-1
  comes back by itself, and nothing of its previous process group is left;
- ``stop`` leaves no process of it and no port open.

Needs PostgreSQL, nginx and redis-server (``apt-get install nginx redis-server``; ``.ci/run``
installs them): skips without them, fails under ``REQUIRE_SERVICES=1``. Beside it, without any
service: what prod-local shares with the compose file (the start scripts, the settings), and the
nginx template filled in.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from .servers import installed, prod_local

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docker" / "prod_local.py"


def _free_ports(count: int) -> int:
    """The first of ``count`` consecutive free ports, below the range the system gives
    connections their ports from (32768 and up), so that none takes one meanwhile."""
    for _ in range(200):
        base = random.randrange(20000, 32000)
        try:
            for port in range(base, base + count):
                with socket.socket() as sock:
                    sock.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise AssertionError("no free ports")


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


class Stack:
    def __init__(self, run_dir: Path, env: dict[str, str]):
        self.dir, self.env = run_dir, env
        self.info = json.loads((run_dir / "prod-local.json").read_text())
        self.port = self.info["port"]

    def ctl(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*self.info["supervisorctl"], *args], capture_output=True,
                              text=True, timeout=60, check=False)

    def pid(self, name: str) -> int:
        return int(self.ctl("pid", name).stdout.strip() or 0)

    def script(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(SCRIPT), *args], env=self.env, cwd=ROOT,
                              capture_output=True, text=True, timeout=400, check=False)

    def request(self, method: str, path: str, body: dict | None = None,
                headers: dict[str, str] | None = None, port: int | None = None):
        conn = http.client.HTTPConnection("127.0.0.1", port or self.port, timeout=30)
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers={"Host": "127.0.0.1", "Content-Type": "application/json",
                              **(headers or {})})
        answer = conn.getresponse()
        return answer.status, answer.read(), answer


def _database_url() -> str:
    """A database of its own on the tests' PostgreSQL server."""
    from django.db import connection

    settings = connection.settings_dict
    url = os.environ.get("DATABASE_URL", "")
    assert url.startswith(("postgres://", "postgresql://")), url
    parts = urlsplit(url)
    name = f"{settings['NAME']}_prodlocal_{uuid.uuid4().hex[:8]}"
    return urlunsplit(parts._replace(path=f"/{name}"))


def _drop(url: str) -> None:
    import psycopg
    from psycopg import sql
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    name = conninfo_to_dict(url)["dbname"]
    with psycopg.connect(make_conninfo(url, dbname="postgres"), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
                     .format(sql.Identifier(name)))


@pytest.fixture
def stack(tmp_path):
    for command in ("nginx", "redis-server"):
        installed(command)
    database_url = _database_url()
    env = {**os.environ, "PROD_LOCAL_DIR": str(tmp_path / "run"),
           "PROD_LOCAL_PORT": str(_free_ports(7)), "DATABASE_URL": database_url}
    for name in ("REDIS_URL", "EMAIL_URL", "SECRET_KEY", "DEBUG"):
        env.pop(name, None)
    # What Celery writes into the environment of a process that ran a worker (celery.app.log;
    # a test of this process may have): a number the celery command refuses as --loglevel, so
    # the programs must not take it.
    env["CELERY_LOG_LEVEL"] = "40"
    started = subprocess.run([sys.executable, str(SCRIPT), "start"], env=env, cwd=ROOT,
                             capture_output=True, text=True, timeout=400, check=False)
    try:
        assert started.returncode == 0, (started.stdout + started.stderr)[-5000:]
        assert "Ready: http://127.0.0.1:" in started.stdout
        yield Stack(tmp_path / "run", env)
    finally:
        subprocess.run([sys.executable, str(SCRIPT), "stop"], env=env, cwd=ROOT,
                       capture_output=True, timeout=200, check=False)
        _drop(database_url)


def _group(pgid: int) -> list[int]:
    """The processes of process group ``pgid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[2]) == pgid and stat[0] != "Z":
                found.append(int(entry.name))
    return found


def _established(port: int) -> int:
    """Connections established to a local ``port`` (IPv4)."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "01":
            count += 1
    return count


def _wait(what: str, condition, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


@pytest.mark.postgres
def test_prod_local_serves_recovers_and_stops_clean(stack):
    info, ports = stack.info, stack.info["ports"]
    # Every program, under supervisord's name.
    status = stack.ctl("status")
    assert status.returncode == 0, status.stdout
    states = dict(re.findall(r"^(\S+)\s+(\S+)", status.stdout, re.M))
    assert states == dict.fromkeys(("redis", "web-1", "web-2", "stream-1", "stream-2",
                                    "worker-1", "worker-2", "beat", "mailin", "nginx"),
                                   "RUNNING")
    assert info["env"]["DEBUG"] == "0" and info["own_redis"]

    # A page through nginx, its static files, an API call; DEBUG off: no debug page.
    status, body, _answer = stack.request("GET", "/rules/")
    assert status == 200, body[-2000:]
    links = set(re.findall(r'(?:href|src)="(/static/[^"]+)"', body.decode()))
    assert any(re.fullmatch(r"/static/favicon\.[0-9a-f]{12}\.svg", link) for link in links)
    for link in sorted(links):
        status, _body, answer = stack.request("GET", link)
        assert status == 200, link
        assert "immutable" in (answer.getheader("Cache-Control") or ""), link
    status, body, _answer = stack.request("GET", "/api/v1/games/")
    assert status == 200 and "results" in json.loads(body)
    status, body, _answer = stack.request("GET", "/no-such-page/")
    assert status == 404 and b"URLconf" not in body

    # A player (made with the processes' own settings), a token through nginx, and two event
    # streams through nginx: one on each stream process.
    made = stack.script("manage", "shell", "-c", (
        "from accounts.models import User\n"
        "from allauth.account.models import EmailAddress\n"
        "user = User.objects.create_user('prodlocal', 'prodlocal@example.com', "
        "'prod-local-Password-1')\n"
        "EmailAddress.objects.create(user=user, email=user.email, primary=True, verified=True)\n"))
    assert made.returncode == 0, made.stderr[-3000:]
    status, body, _answer = stack.request("POST", "/api/v1/auth/token/", {
        "username": "prodlocal", "password": "prod-local-Password-1"})
    assert status in (200, 201), body
    auth = {"Authorization": f"Token {json.loads(body)['token']}"}
    streams = []
    try:
        for _ in range(2):
            conn = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=30)
            conn.request("GET", "/api/v1/me/stream/", headers={"Host": "127.0.0.1", **auth})
            answer = conn.getresponse()
            assert answer.status == 200
            assert answer.getheader("Content-Type", "").startswith("text/event-stream")
            assert answer.readline().startswith(b"retry:")
            streams.append(conn)
        assert _established(ports["stream-1"]) >= 1 and _established(ports["stream-2"]) >= 1
    finally:
        for conn in streams:
            conn.close()

    # web-1 killed with SIGKILL: the site answers through web-2; web-1 comes back by itself,
    # and the worker its main process left behind is gone.
    pid = stack.pid("web-1")
    group = _group(pid)
    assert len(group) >= 2, group  # granian's main process and its worker
    os.kill(pid, signal.SIGKILL)
    status, _body, _answer = stack.request("GET", "/healthz")
    assert status == 200
    _wait("web-1 back", lambda: stack.pid("web-1") not in (0, pid)
          and "RUNNING" in stack.ctl("status", "web-1").stdout)
    _wait("web-1 serving", lambda: stack.request("GET", "/healthz",
                                                 port=ports["web-1"])[0] == 200
          if _listening(ports["web-1"]) else False)
    assert _group(pid) == []

    # Stopped: no process of its session, no port open.
    session = int((stack.dir / "session").read_text())
    stopped = stack.script("stop")
    assert stopped.returncode == 0, stopped.stderr
    assert prod_local().members(session) == []
    assert not [port for port in (stack.port, *ports.values()) if _listening(port)]


# --- What prod-local shares with the compose file (no service needed) ----------------------------


def test_prod_local_runs_the_compose_services_start_scripts_with_their_settings(tmp_path):
    """Each program runs the start script its compose service runs, which the image copies, with
    the settings compose gives that service; only the documented loopback changes differ."""
    import yaml

    module = prod_local()
    compose = yaml.safe_load((ROOT / "docker" / "compose.yml").read_text())
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    caller = {"PATH": "/usr/bin:/bin", "PROD_LOCAL_DIR": str(tmp_path), "PROD_LOCAL_PORT": "18000"}
    stack = module.Stack.from_environment(caller)
    services = set()
    for name, (service, argv, _offset) in module.PROGRAMS.items():
        if service is None:
            continue
        services.add(service)
        assert argv[0] == "sh" and argv[1].startswith("docker/start-"), argv
        script = Path(argv[1]).name
        assert compose["services"][service]["command"] == [script], service
        assert f"docker/{script}" in dockerfile, script
        env = stack.program_env(name)
        for key, value in compose["services"][service].get("environment", {}).items():
            value = re.sub(r"^\$\{\w+:-([^}]*)\}$", r"\1", str(value))
            if key not in ("DATABASE_URL", "DATABASE_OWNER_URL", "DB_APP_ROLE", "REDIS_URL",
                           "EMAIL_URL", "ALLOWED_HOSTS", "SITE_URL", "CSRF_TRUSTED_ORIGINS",
                           "SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE",
                           "SECURE_HSTS_SECONDS", "SECRET_KEY", "WEB_WORKERS", "STREAM_WORKERS"):
                assert env.get(key, "") == value, (name, key)
        assert env["DEBUG"] == "0" and len(env["SECRET_KEY"]) >= 50
        assert env["SECURE_SSL_REDIRECT"] == "0" and env["ALLOWED_HOSTS"] == "127.0.0.1,localhost"
    # Every application service of compose's but the webhook worker (prod-local's two workers
    # take its queue too) has its programs.
    app = {name for name, spec in compose["services"].items() if "build" in spec}
    assert app - services == {"webhook-worker"}
    assert stack.program_env("worker-1")["CELERY_QUEUES"] == "celery,webhooks"
    # The caller's environment wins where compose lets it (${NAME:-default}), never for DEBUG.
    stack = module.Stack.from_environment({**caller, "ALLOWED_HOSTS": "example.org",
                                           "DEBUG": "1", "MAIL_DOMAIN": "soak.test"})
    env = stack.program_env("web-1")
    assert (env["ALLOWED_HOSTS"], env["DEBUG"], env["MAIL_DOMAIN"]) == ("example.org", "0",
                                                                         "soak.test")


def test_prod_local_fills_in_every_variable_of_the_nginx_template(tmp_path):
    module = prod_local()
    stack = module.Stack.from_environment({"PATH": "/usr/bin", "PROD_LOCAL_DIR": str(tmp_path),
                                           "PROD_LOCAL_PORT": "18000"})
    _main, server = stack.nginx_conf()
    assert "${" not in server and "listen 127.0.0.1:18000;" in server
    web = server[server.index("upstream web {"):]
    assert "server 127.0.0.1:18001; server 127.0.0.1:18002;" in web[:web.index("}")]
    assert "server 127.0.0.1:18003; server 127.0.0.1:18004;" in server
    with pytest.raises(module.Failed, match="NGINX_LISTEN"):
        module.render_template("listen ${NGINX_LISTEN};", {})
