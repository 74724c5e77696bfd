"""The production shape on one machine, without containers (``make prod-local``).

The processes of ``docker/compose.yml``, started on this machine by supervisord (the
``supervisor`` package) from the same start scripts (``docker/start-*.sh``) and the same
settings (the compose file's environment, read from it), against PostgreSQL and a Redis of its
own, behind Debian's nginx running the compose file's ``docker/nginx.conf``, with ``DEBUG=0``
and the static files built by the image's own step (``docker/build-static.sh``).

Commands (``python docker/prod_local.py COMMAND``; ``make prod-local`` is ``up``)::

    up       prepare, start everything, wait until it is ready, print how to reach and control
             it, then stay in the foreground: Ctrl-C (or ``stop`` elsewhere) stops everything
    start    the same, but return once ready, leaving it running (for scripts and tests)
    stop     stop everything (``make prod-local-stop``): no process of it is left
    status   supervisorctl's status of every program
    manage   ``manage.py ARGS`` with the settings the processes run with
    exec     (supervisord's own: starts one program, see "Restarts")

Preparing: the database of ``DATABASE_URL`` is created if missing, migrated once
(``docker/migrate.sh``), and the static files are collected into the run directory.

The programs, named so in supervisord, and their ports (from nginx's, ``PROD_LOCAL_PORT``)::

    redis      redis-server, no persistence (only when REDIS_URL is not set)    port + 6
    web-1      start-web.sh: granian, one worker process                        port + 1
    web-2      the same                                                         port + 2
    stream-1   start-stream.sh: uvicorn, one process                            port + 3
    stream-2   the same                                                         port + 4
    worker-1   start-worker.sh: Celery, queues "celery" and "webhooks"
    worker-2   the same
    beat       start-beat.sh: Celery beat
    mailin     start-mailreceiver.sh: the play-by-email receiver (LMTP)         port + 5
    nginx      /usr/sbin/nginx, in the foreground                               port

nginx balances ``/api/v1/games/{id}/stream/`` and ``/api/v1/me/stream/`` over both stream
processes and everything else over both web processes (each upstream lists both). Static files
are served by WhiteNoise in the web processes, as in the image.

Environment (read by ``up`` and ``start``; every other variable is passed on to the processes,
which read the settings' names, as in compose):

- ``PROD_LOCAL_DIR``: the run directory (``var/prod-local``): the generated
  ``supervisord.conf`` and ``nginx/nginx.conf``, the secret key (made once, kept), ``logs/``
  (a log per program), ``var/`` (the processes' ``VAR_DIR``: beat's schedule, mail files),
  ``static/``, and ``prod-local.json`` (below).
- ``PROD_LOCAL_PORT``: nginx's port (8080); the other ports follow it (table above), all on
  127.0.0.1.
- ``DATABASE_URL``: ``postgres://postgres@127.0.0.1:5432/mascarade_prodlocal`` by default.
- ``REDIS_URL``: unset, a Redis of its own is started (the ``redis`` program, database 0),
  which can be stopped and started without touching anyone else's.
- ``EMAIL_URL``: outgoing mail (``smtp://127.0.0.1:PORT`` for a local sink); by default, one
  file per mail under the run directory's ``var/mail/``.

The compose file's values are taken but for what a single machine on loopback HTTP needs:
``ALLOWED_HOSTS`` ``127.0.0.1,localhost``, ``SITE_URL`` and ``CSRF_TRUSTED_ORIGINS`` nginx's
address, ``SECURE_SSL_REDIRECT``, ``SESSION_COOKIE_SECURE``, ``CSRF_COOKIE_SECURE`` and
``SECURE_HSTS_SECONDS`` 0, no application role (``DB_APP_ROLE``, ``DATABASE_OWNER_URL``):
each of these yields to the environment. The addresses of the processes, one worker process
per web or stream program, ``DEBUG=0``, ``VAR_DIR`` and ``STATIC_ROOT`` never do.

Control (what ``bench/soak.py`` uses): ``prod-local.json`` in the run directory describes the
running stack (``url``, ``ports`` per program, ``programs``, ``supervisorctl``: the command line
to run with an action appended, ``env``: the settings the processes got). With ``CTL`` that
command line (``.venv/bin/supervisorctl -c $PROD_LOCAL_DIR/supervisord.conf``)::

    CTL status               every program and its state (RUNNING...), exit status 0 if all run
    CTL pid web-1            the program's main process id (kill -9 it: it comes back by itself)
    CTL stop redis           stop one program (supervisord does not start it again)...
    CTL start redis          ... until it is started

Ready means: every program RUNNING, ``/healthz`` answering 200 from each web and stream
process and through nginx, the mail receiver accepting connections.

Restarts: every program has ``autorestart``: one that exits or is killed is started again at
once. A main process killed with SIGKILL cannot stop its children (granian's worker, Celery's
pool, nginx's workers): each program starts through ``exec``, which first kills what is left of
the program's previous process group (supervisord makes each program a group of its own, in its
session), then ``exec``s the start script, so the program's process id is the server's own.
``stop`` stops supervisord, which stops each program (SIGTERM, then SIGKILL to its group after
its grace time), then kills any process still in supervisord's session.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import xmlrpc.client
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCKER = ROOT / "docker"
COMPOSE = DOCKER / "compose.yml"
NGINX_TEMPLATE = DOCKER / "nginx.conf"

DEFAULT_DIR = ROOT / "var" / "prod-local"
DEFAULT_PORT = 8080
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/mascarade_prodlocal"
HOST = "127.0.0.1"

#: Each program: its compose service (whose environment it gets), what it runs, and the offset
#: of its port from nginx's (None: no port).
PROGRAMS: dict[str, tuple[str | None, list[str], int | None]] = {
    "redis": (None, [], 6),
    "web-1": ("web", ["sh", "docker/start-web.sh"], 1),
    "web-2": ("web", ["sh", "docker/start-web.sh"], 2),
    "stream-1": ("stream", ["sh", "docker/start-stream.sh"], 3),
    "stream-2": ("stream", ["sh", "docker/start-stream.sh"], 4),
    "worker-1": ("worker", ["sh", "docker/start-worker.sh"], None),
    "worker-2": ("worker", ["sh", "docker/start-worker.sh"], None),
    "beat": ("beat", ["sh", "docker/start-beat.sh"], None),
    "mailin": ("mailreceiver", ["sh", "docker/start-mailreceiver.sh"], 5),
    "nginx": (None, [], 0),
}
#: Seconds a program is given to stop before its group is killed (compose's own grace times).
STOP_SECONDS = {"web-1": 30, "web-2": 30, "mailin": 40, "worker-1": 30, "worker-2": 30}
READY_SECONDS = 180

_COMPOSE_VALUE = re.compile(r"^\$\{(\w+):-([^}]*)\}$")


class Failed(Exception):
    """Something this script cannot do, said plainly (printed, exit status 1)."""


# --- The configuration ----------------------------------------------------------------------------


class Stack:
    """The stack of one run directory: its ports, its files and the processes' environments."""

    def __init__(self, run_dir: Path, port: int, environ: dict[str, str]):
        self.dir = run_dir.resolve()
        self.port = port
        self.environ = environ
        self.own_redis = not environ.get("REDIS_URL")

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> Stack:
        environ = dict(os.environ if environ is None else environ)
        run_dir = Path(environ.get("PROD_LOCAL_DIR") or DEFAULT_DIR)
        port = int(environ.get("PROD_LOCAL_PORT") or DEFAULT_PORT)
        return cls(run_dir, port, environ)

    # Files
    conf = property(lambda self: self.dir / "supervisord.conf")
    socket_path = property(lambda self: self.dir / "supervisor.sock")
    pid_file = property(lambda self: self.dir / "supervisord.pid")
    session_file = property(lambda self: self.dir / "session")
    description = property(lambda self: self.dir / "prod-local.json")
    logs = property(lambda self: self.dir / "logs")
    var_dir = property(lambda self: self.dir / "var")
    static_root = property(lambda self: self.dir / "static")
    nginx_dir = property(lambda self: self.dir / "nginx")

    def programs(self) -> list[str]:
        return [name for name in PROGRAMS if name != "redis" or self.own_redis]

    def port_of(self, name: str) -> int | None:
        offset = PROGRAMS[name][2]
        return None if offset is None else self.port + offset

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def redis_url(self) -> str:
        return self.environ.get("REDIS_URL") or f"redis://{HOST}:{self.port_of('redis')}/0"

    @property
    def database_url(self) -> str:
        return self.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL

    def secret_key(self) -> str:
        if self.environ.get("SECRET_KEY"):
            return self.environ["SECRET_KEY"]
        path = self.dir / "secret_key"
        if not path.exists():
            self.dir.mkdir(parents=True, exist_ok=True)
            path.touch(mode=0o600)
            path.write_text(secrets.token_urlsafe(50))
        return path.read_text().strip()

    def settings(self, service: str) -> dict[str, str]:
        """The settings of a process of compose's ``service``: the compose file's environment
        for it (a ``${NAME:-default}`` is the caller's NAME if set, as compose does), changed
        for one machine on loopback HTTP (each change yielding to the caller's environment)."""
        import yaml

        compose = yaml.safe_load(COMPOSE.read_text())
        local = {
            "DATABASE_URL": self.database_url,
            "DATABASE_OWNER_URL": "",
            "DB_APP_ROLE": "",
            "REDIS_URL": self.redis_url,
            "EMAIL_URL": f"filemail://{self.var_dir / 'mail'}",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SITE_URL": self.url,
            "CSRF_TRUSTED_ORIGINS": f"{self.url},http://localhost:{self.port}",
            "SECURE_SSL_REDIRECT": "0",
            "SESSION_COOKIE_SECURE": "0",
            "CSRF_COOKIE_SECURE": "0",
            "SECURE_HSTS_SECONDS": "0",
        }
        env: dict[str, str] = {}
        for name, value in compose["services"][service].get("environment", {}).items():
            value = str(value)
            match = _COMPOSE_VALUE.match(value)
            if name in self.environ and (match or name in local):
                env[name] = self.environ[name]
            elif name in local:
                env[name] = local[name]
            elif match:
                env[name] = match.group(2)
            else:
                assert "$" not in value, (service, name, value)
                env[name] = value
        # Never the caller's: what makes it production, and where everything is.
        env.update({
            "DEBUG": "0",
            "SECRET_KEY": self.secret_key(),
            "VAR_DIR": str(self.var_dir),
            "STATIC_ROOT": str(self.static_root),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{self.environ.get('PATH', '')}",
        })
        return {name: value for name, value in env.items() if value != "" or name in local}

    def program_env(self, name: str) -> dict[str, str]:
        """What a program gets beside the environment it inherits."""
        service = PROGRAMS[name][0]
        if service is None:
            return {}
        env = self.settings(service)
        port = self.port_of(name)
        if service == "web":
            env.update(WEB_HOST=HOST, WEB_PORT=str(port), WEB_WORKERS="1", WEB_MIGRATE="0")
        elif service == "stream":
            env.update(STREAM_HOST=HOST, STREAM_PORT=str(port), STREAM_WORKERS="1")
        elif service == "worker":
            env.update(CELERY_HOSTNAME=f"{name}@%h", CELERY_QUEUES="celery,webhooks")
        elif service == "mailreceiver":
            env.update(MAIL_RECEIVER_HOST=HOST, MAIL_RECEIVER_PORT=str(port))
        return env

    def program_argv(self, name: str) -> list[str]:
        if name == "redis":
            return [binary("redis-server", "redis-server"), "--bind", HOST,
                    "--port", str(self.port_of("redis")), "--save", "", "--appendonly", "no",
                    "--dir", str(self.dir / "redis")]
        if name == "nginx":
            return [binary("nginx", "nginx"), "-p", str(self.nginx_dir),
                    "-c", str(self.nginx_dir / "nginx.conf"), "-e", "stderr"]
        return PROGRAMS[name][1]

    # Generated files

    def nginx_conf(self) -> tuple[str, str]:
        """The top-level nginx.conf and the rendered template (``default.conf``)."""
        values = {
            "NGINX_LISTEN": f"{HOST}:{self.port}",
            "NGINX_WEB_SERVERS": " ".join(f"server {HOST}:{self.port_of(name)};"
                                          for name in ("web-1", "web-2")),
            "NGINX_STREAM_SERVERS": " ".join(f"server {HOST}:{self.port_of(name)};"
                                             for name in ("stream-1", "stream-2")),
        }
        server = render_template(NGINX_TEMPLATE.read_text(), values)
        temp = "".join(f"    {kind}_temp_path {self.nginx_dir / kind};\n"
                       for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        main = ("user root;\n" if os.geteuid() == 0 else "") + (
            "daemon off;\n"
            "worker_processes 2;\n"
            f"pid {self.nginx_dir / 'nginx.pid'};\n"
            "error_log stderr warn;\n"
            "events { worker_connections 4096; }\n"
            "http {\n"
            "    access_log off;\n"
            f"{temp}"
            f"    include {self.nginx_dir / 'default.conf'};\n"
            "}\n")
        return main, server

    def supervisord_conf(self) -> str:
        def value(text: str) -> str:
            return str(text).replace("%", "%%")

        me = [sys.executable, str(Path(__file__).resolve()), "--dir", str(self.dir)]
        lines = [
            "; Generated by docker/prod_local.py: changes are lost at the next start.",
            "[unix_http_server]",
            f"file={value(self.socket_path)}",
            "chmod=0700",
            "",
            "[supervisord]",
            f"logfile={value(self.logs / 'supervisord.log')}",
            f"pidfile={value(self.pid_file)}",
            f"childlogdir={value(self.logs)}",
            "nodaemon=true",
            "silent=true",
            "",
            "[rpcinterface:supervisor]",
            "supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface",
            "",
            "[supervisorctl]",
            f"serverurl=unix://{value(self.socket_path)}",
        ]
        for name in self.programs():
            priority = 10 if name == "redis" else 90 if name == "nginx" else 50
            lines += [
                "",
                f"[program:{name}]",
                f"command={value(shlex.join([*me, 'exec', name]))}",
                f"directory={value(ROOT)}",
                f"priority={priority}",
                "autostart=true",
                "autorestart=true",
                "startsecs=2",
                "startretries=10",
                "stopsignal=TERM",
                f"stopwaitsecs={STOP_SECONDS.get(name, 10)}",
                "stopasgroup=false",
                "killasgroup=true",
                "redirect_stderr=true",
                f"stdout_logfile={value(self.logs / f'{name}.log')}",
                "stdout_logfile_maxbytes=20MB",
                "stdout_logfile_backups=1",
            ]
        return "\n".join(lines) + "\n"

    def supervisorctl(self) -> list[str]:
        return [str(Path(sys.executable).with_name("supervisorctl")), "-c", str(self.conf)]

    def write(self) -> None:
        """Every file the programs read, written anew."""
        for folder in (self.dir, self.logs, self.var_dir, self.static_root, self.nginx_dir,
                       self.dir / "redis", self.dir / "env"):
            folder.mkdir(parents=True, exist_ok=True)
        main, server = self.nginx_conf()
        (self.nginx_dir / "nginx.conf").write_text(main)
        (self.nginx_dir / "default.conf").write_text(server)
        for name in self.programs():
            path = self.dir / "env" / f"{name}.json"
            path.touch(mode=0o600)
            path.write_text(json.dumps({"argv": self.program_argv(name),
                                        "env": self.program_env(name)}, indent=1))
        self.conf.write_text(self.supervisord_conf())
        self.description.write_text(json.dumps({
            "url": self.url,
            "port": self.port,
            "ports": {name: self.port_of(name) for name in self.programs()
                      if self.port_of(name) is not None},
            "programs": self.programs(),
            "own_redis": self.own_redis,
            "redis_url": self.redis_url,
            "database_url": self.database_url,
            "mail_receiver": [HOST, self.port_of("mailin")],
            "supervisorctl": self.supervisorctl(),
            "logs": str(self.logs),
            "env": self.settings("web"),
        }, indent=1))


def render_template(text: str, values: dict[str, str]) -> str:
    """``text`` with each ``${NAME}`` of ``values`` replaced, as the nginx image's envsubst does
    with the variables set; a ``${NAME}`` left without a value is an error."""
    for name, value in values.items():
        text = text.replace("${" + name + "}", value)
    left = sorted(set(re.findall(r"\$\{(\w+)\}", text)))
    if left:
        raise Failed(f"no value for {', '.join(left)} in {NGINX_TEMPLATE}")
    return text


def binary(command: str, package: str) -> str:
    found = shutil.which(command) or next(
        (path for path in (f"/usr/sbin/{command}", f"/usr/local/sbin/{command}",
                           f"/usr/bin/{command}") if os.path.exists(path)), None)
    if found is None:
        raise Failed(f"{command} is not installed (Debian: apt-get install {package})")
    return found


# --- Processes ------------------------------------------------------------------------------------


def _stat(pid: int) -> tuple[str, int, int] | None:
    """``(state, process group, session)`` of a process, or None if it is gone."""
    try:
        data = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = data.rsplit(")", 1)[1].split()
    return fields[0], int(fields[2]), int(fields[3])


def members(session: int, group: int | None = None) -> list[int]:
    """The running processes of ``session`` (of its process ``group`` only, when given; a
    zombie, dead and waiting for its parent to read its status, runs nothing)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        stat = _stat(int(entry.name))
        if stat and stat[0] != "Z" and stat[2] == session and group in (None, stat[1]):
            found.append(int(entry.name))
    return found


def kill_all(pids_of, seconds: float = 10) -> None:
    """SIGKILL every process ``pids_of()`` lists, until it lists none."""
    deadline = time.monotonic() + seconds
    while pids := pids_of():
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            raise Failed(f"processes {pids} outlived SIGKILL")
        time.sleep(0.05)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def exec_program(stack: Stack, name: str) -> None:
    """supervisord's command for ``name``: the leftovers of its previous start killed, then the
    program ``exec``'d in this process (so that supervisord's pid for it is the server's)."""
    session, group = os.getsid(0), os.getpgrp()
    record = stack.dir / "env" / f"{name}.group"
    with contextlib.suppress(FileNotFoundError, ValueError):
        previous = int(record.read_text())
        # A process group's number is not given to a new process while the group has a
        # member, so members of a group whose leader is gone are the previous start's.
        if previous != group and not alive(previous):
            kill_all(lambda: members(session, previous))
    record.write_text(str(group))
    spec = json.loads((stack.dir / "env" / f"{name}.json").read_text())
    os.chdir(ROOT)
    os.execvpe(spec["argv"][0], spec["argv"], {**os.environ, **spec["env"]})  # noqa: S606


def rpc(stack: Stack):
    from supervisor.xmlrpc import SupervisorTransport

    transport = SupervisorTransport(None, None, serverurl=f"unix://{stack.socket_path}")
    return xmlrpc.client.ServerProxy("http://127.0.0.1", transport=transport)


def states(stack: Stack) -> dict[str, str]:
    """Each program's supervisord state (empty if supervisord does not answer)."""
    try:
        found = rpc(stack).supervisor.getAllProcessInfo()
        return {info["name"]: info["statename"] for info in found}
    except (OSError, xmlrpc.client.Error):
        return {}


def answers(port: int, path: str = "/healthz") -> bool:
    try:
        conn = http.client.HTTPConnection(HOST, port, timeout=5)
        conn.request("GET", path, headers={"Host": HOST})
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except (OSError, http.client.HTTPException):
        return False


def accepts(port: int) -> bool:
    try:
        socket.create_connection((HOST, port), timeout=2).close()
        return True
    except OSError:
        return False


def not_ready(stack: Stack) -> list[str]:
    """What is not ready yet (nothing: ready)."""
    running = states(stack)
    failed = [name for name, state in running.items() if state == "FATAL"]
    if failed:
        raise Failed(f"{', '.join(failed)} could not start (see {stack.logs}/)")
    waiting = [f"{name} ({running.get(name, 'not started')})" for name in stack.programs()
               if running.get(name) != "RUNNING"]
    if waiting:
        return waiting
    waiting = [f"{name} (/healthz)" for name in ("web-1", "web-2", "stream-1", "stream-2")
               if not answers(stack.port_of(name))]
    if not accepts(stack.port_of("mailin")):
        waiting.append("mailin (port)")
    # nginx last: asked while a web process does not answer yet, it would count it as down.
    if not waiting and not answers(stack.port):
        waiting.append("nginx (/healthz)")
    return waiting


def running_pid(stack: Stack) -> int | None:
    """The process id of the stack's supervisord, if it runs (the number in the session file
    is checked to be that supervisord's, with this run directory's configuration)."""
    with contextlib.suppress(FileNotFoundError, ValueError, OSError):
        pid = int(stack.session_file.read_text())
        if alive(pid) and str(stack.conf).encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
            return pid
    return None


def belongs(stack: Stack, pid: int) -> bool:
    """Whether ``pid`` works where the stack's programs work (the checkout, or the run
    directory), so that a session number taken again since by others is never swept."""
    try:
        cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
    except OSError:
        return False
    return cwd == ROOT or cwd.is_relative_to(stack.dir)


# --- Commands -------------------------------------------------------------------------------------


def create_database(url: str) -> None:
    """The database of ``url`` (PostgreSQL), created if missing."""
    if not url.startswith(("postgres://", "postgresql://")):
        return
    import psycopg
    from psycopg import sql
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    name = conninfo_to_dict(url)["dbname"]
    try:
        with psycopg.connect(make_conninfo(url, dbname="postgres"), autocommit=True) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
                print(f"created the database {name}")
    except psycopg.Error as error:
        raise Failed(f"PostgreSQL at {url}: {error}".strip()) from error


def run_step(stack: Stack, what: str, argv: list[str]) -> None:
    print(f"{what}...", flush=True)
    done = subprocess.run(argv, cwd=ROOT, env={**stack.environ, **stack.settings("web")},  # noqa: S603
                          capture_output=True, text=True, check=False)
    if done.returncode:
        raise Failed(f"{what} failed:\n{(done.stdout + done.stderr)[-3000:]}")


def start(stack: Stack) -> subprocess.Popen:
    """Prepare, start supervisord and wait until everything is ready."""
    if running_pid(stack):
        raise Failed(f"already running from {stack.dir}: stop it first (make prod-local-stop)")
    # What a supervisord that was killed left running (it would hold the ports).
    stop(stack, quiet=True)
    for name in ("nginx", "redis-server") if stack.own_redis else ("nginx",):
        binary(name, name)
    stack.write()
    create_database(stack.database_url)
    run_step(stack, "static files (docker/build-static.sh)", ["sh", "docker/build-static.sh"])
    run_step(stack, "migrations (docker/migrate.sh)", ["sh", "docker/migrate.sh"])
    supervisord = Path(sys.executable).with_name("supervisord")
    with (stack.logs / "supervisord.out").open("ab") as out:
        proc = subprocess.Popen([str(supervisord), "-c", str(stack.conf)], cwd=ROOT,  # noqa: S603
                                env=stack.environ, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    stack.session_file.write_text(str(proc.pid))
    print("starting: " + ", ".join(stack.programs()), flush=True)
    deadline = time.monotonic() + READY_SECONDS
    try:
        while waiting := not_ready(stack):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise Failed(f"not ready after {READY_SECONDS} s: {', '.join(waiting)}")
            time.sleep(0.5)
    except Failed as error:
        paths = [*sorted(stack.logs.glob("*.log")), stack.logs / "supervisord.out"]
        logs = "".join(f"\n--- {path.name}\n" + path.read_text(errors="replace")[-1500:]
                       for path in paths if path.exists())
        stop(stack, quiet=True)
        raise Failed(f"{error}{logs}") from None
    return proc


def stop(stack: Stack, quiet: bool = False) -> None:
    """supervisord stopped (it stops each program), then whatever is left of its session
    killed."""
    session = None
    with contextlib.suppress(FileNotFoundError, ValueError):
        session = int(stack.session_file.read_text())
    if session is None:
        if not quiet:
            print("not running")
        return
    if running_pid(stack) == session:
        with contextlib.suppress(ProcessLookupError):
            os.kill(session, signal.SIGTERM)
        deadline = time.monotonic() + max(STOP_SECONDS.values()) + 30
        while alive(session) and time.monotonic() < deadline:
            time.sleep(0.1)
    kill_all(lambda: [pid for pid in members(session) if belongs(stack, pid)])
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(session, os.WNOHANG)
    stack.session_file.unlink(missing_ok=True)
    if not quiet:
        print("stopped")


def summary(stack: Stack) -> str:
    ctl = " ".join(shlex.quote(os.path.relpath(part, Path.cwd()) if "/" in part else part)
                   for part in stack.supervisorctl())
    return (f"Ready: {stack.url}/ (DEBUG=0; database {stack.database_url}, "
            f"Redis {stack.redis_url})\n"
            f"  programs: {', '.join(stack.programs())}; logs in {stack.logs}/\n"
            f"  control:  {ctl} status | pid NAME | stop NAME | start NAME\n"
            f"  stop:     make prod-local-stop (or Ctrl-C here)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", help="the run directory (PROD_LOCAL_DIR)")
    parser.add_argument("command", choices=["up", "start", "stop", "status", "manage", "exec"])
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    environ = dict(os.environ)
    if options.dir:
        environ["PROD_LOCAL_DIR"] = options.dir
    stack = Stack.from_environment(environ)
    try:
        if options.command == "exec":
            exec_program(stack, options.args[0])
        elif options.command == "stop":
            stop(stack)
        elif options.command == "status":
            return subprocess.call([*stack.supervisorctl(), "status"])  # noqa: S603
        elif options.command == "manage":
            return subprocess.call([sys.executable, "manage.py", *options.args],  # noqa: S603
                                   cwd=ROOT,
                                   env={**environ, **stack.settings("web")})
        else:
            # Ctrl-C and SIGTERM stop everything (even when started with SIGINT ignored, as a
            # shell's background job is).
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, signal.default_int_handler)
            try:
                proc = start(stack)
            except KeyboardInterrupt:
                stop(stack, quiet=True)
                return 130
            print(summary(stack), flush=True)
            if options.command == "start":
                return 0
            with contextlib.suppress(KeyboardInterrupt):
                proc.wait()
            print("stopping...", flush=True)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            stop(stack, quiet=True)
            print("stopped")
    except Failed as error:
        print(f"prod-local: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
