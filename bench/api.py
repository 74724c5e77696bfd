"""Load on the REST API: clients playing Mascarade over HTTP against the servers as production runs
them, all started here from the source tree named by ``--tree`` (default: this one).

    .venv/bin/python bench/api.py [--push] [--clients 50] [--rates 0] [--seconds 15]
                                  [--tree PATH]

Two trees compare under identical settings when the same command runs against each in turns:

    git worktree add /tmp/before-house before-house
    .venv/bin/python bench/api.py --push --clients 50 --tree /tmp/before-house
    .venv/bin/python bench/api.py --push --clients 50

The servers, started here and stopped at the end (none of the machine's own is used):

- PostgreSQL: a cluster of its own in a temporary folder (``initdb`` of ``pg_config --bindir``, its
  default settings, as the postgres image of docker/compose.yml has them) with
  ``pg_stat_statements`` loaded, so that the server itself counts the statements, whatever code
  sends them. The web server connects as the role ``web``, the stream server as ``stream``.
- Redis: a ``redis-server`` of its own, with an append-only file as in docker/compose.yml.
- web: the ``exec granian`` line of the tree's ``docker/start-web.sh``, its variables at their
  defaults, on 127.0.0.1, without its access log.
- stream: the ``exec uvicorn`` line of the tree's ``docker/start-stream.sh``, likewise.

Both run the tree's code (its folder first on ``PYTHONPATH``) with this script's interpreter and
the same settings (``DEBUG=0``, the throttles out of the way, nothing else taken from the
environment). The tree's migrations are applied first; the users and their API tokens are made by
the tree's ``manage.py shell`` (the ORM and django-rest-knox), their games through the API
(``POST /api/v1/games/``, then ``/join/``). The clients run in this process and import nothing of
the tree.

Each client holds four users and plays games of four seats with them, one after the other (new
games for each run, made before it), for whichever of its users the game awaits: a random one of
that user's ``you.legal_moves``, sent with ``expected_seq`` over one kept-alive connection.

- poll (default): the client reads the game as the awaited user (``GET /api/v1/games/{id}/``),
  then sends the move: two requests per move.
- push (``--push``): the client listens to its four users' ``/api/v1/me/stream/`` and answers
  each ``decision`` with one ``POST /moves/``; it never reads the game (when the answer shows that
  the mover decides again, it answers from the answer's own ``you.legal_moves``).

One run for each number of ``--clients`` and each of ``--rates``. Rate 0 is the closed loop: each
client sends its next move as soon as it has the answer to its last. A rate R is the open loop:
the clients together offer R moves/s, each on a schedule from a random phase; a move's time counts
from when it was due (so a server that falls behind shows), and a move is late when answered more
than ``LATE_MS`` after that, those still unanswered at the end counted too. Each run has a warm-up
of a quarter of ``--seconds`` (3 s at most), then ``--seconds`` measured, of which it prints:

- moves/s, and the latency of ``POST /moves/`` (p50/p95/p99), of ``GET`` too in poll mode;
- the CPU per move of each server (its process and all its descendants, read from /proc, those
  that ended meanwhile included) and of the servers together, then the share of the machine's
  cores used by the clients (this process) and by anything else ("others": the machine is shared);
- the SQL statements per move counted by ``pg_stat_statements`` (``BEGIN`` and ``COMMIT``
  included; not the foreign keys' checks, which PostgreSQL runs as the tables' owner): those of
  the web server's connections, of the stream server's, and their sum.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import http.client
import json
import os
import random
import re
import resource
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson
import uvloop

HERE = Path(__file__).resolve().parents[1]
DATABASE = "mascarade_bench"
#: The roles of the two application servers, one each: their statements count apart.
ROLES = ("web", "stream")
SERVERS = ("web", "stream", "postgres", "redis")
#: On a schedule, a move answered more than this long after its due time is late (ms).
LATE_MS = 100.0
#: Moves a random game of four lasts, about (to make enough games before a run).
GAME_MOVES = 35
#: The moves/s a closed-loop run is given games for (more are made during it if need be).
CLOSED_LOOP_GAMES_FOR = 800


# --------------------------------------------------------------------------------------------
# The servers


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def answers(port: int, path: str) -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", path)
        return conn.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False


def script_command(tree: Path, script: str, program: str, port: int) -> list[str]:
    """The ``exec <program> ...`` line of the tree's ``docker/<script>``, its variables at their
    defaults, serving on ``127.0.0.1:port``, the program taken beside this interpreter."""
    text = (tree / "docker" / script).read_text()
    line = text[text.index(f"exec {program} "):].replace("\\\n", " ").splitlines()[0]
    line = re.sub(r'"\$\{\w+:-([^}]*)\}"', r"\1", line)
    args = shlex.split(line)[1:]
    if any("$" in arg for arg in args):
        raise SystemExit(f"bench/api.py: docker/{script}: a variable without a default: {args}")
    args[0] = str(Path(sys.executable).with_name(program))
    args[args.index("--host") + 1] = "127.0.0.1"
    args[args.index("--port") + 1] = str(port)
    return args


class Servers:
    """PostgreSQL, Redis, web and stream, started from ``tree`` by :meth:`start`; their processes
    in :attr:`procs`, stopped by :meth:`stop`."""

    def __init__(self, tree: Path):
        for program in ("pg_config", "redis-server"):
            if shutil.which(program) is None:
                raise SystemExit(f"bench/api.py: {program} not found: the bench starts its own "
                                 f"PostgreSQL (its server's binaries) and Redis")
        self.bindir = Path(subprocess.run(["pg_config", "--bindir"], capture_output=True,
                                          text=True, check=True).stdout.strip())
        self.tree = tree
        self.tmp = Path(tempfile.mkdtemp(prefix="mascarade-bench-"))
        self.procs: dict[str, subprocess.Popen] = {}
        self.procs_args: dict[str, list[str]] = {}
        self.ports = {name: free_port() for name in SERVERS}
        self.secret = secrets.token_urlsafe(50)

    def env(self, role: str) -> dict[str, str]:
        """The settings of the tree's processes, connected to PostgreSQL as ``role``."""
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.tmp),
            "LANG": "C.UTF-8", "PYTHONPATH": str(self.tree),
            "DJANGO_SETTINGS_MODULE": "mascarade_site.settings",
            "DATABASE_URL": f"postgres://{role}@127.0.0.1:{self.ports['postgres']}/{DATABASE}",
            "REDIS_URL": f"redis://127.0.0.1:{self.ports['redis']}/0",
            "DEBUG": "0", "SECRET_KEY": self.secret, "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "0", "SESSION_COOKIE_SECURE": "0", "CSRF_COOKIE_SECURE": "0",
            "SECURE_HSTS_SECONDS": "0", "API_THROTTLE_USER": "1000000/minute",
            "API_THROTTLE_ANON": "1000000/minute", "API_THROTTLE_AUTH": "1000000/minute",
            "LOG_LEVEL": "WARNING", "VAR_DIR": str(self.tmp / "var"),
        }

    def psql(self, sql: str, database: str = "postgres") -> list[str]:
        out = subprocess.run(self.psql_args(sql, database), capture_output=True, text=True,
                             check=True).stdout
        return out.splitlines()

    async def apsql(self, sql: str, database: str = "postgres") -> list[str]:
        """:meth:`psql` without blocking the clients' loop."""
        proc = await asyncio.create_subprocess_exec(*self.psql_args(sql, database),
                                                    stdout=subprocess.PIPE)
        out, _ = await proc.communicate()
        if proc.returncode:
            raise SystemExit(f"bench/api.py: psql failed on {sql!r}")
        return out.decode().splitlines()

    def psql_args(self, sql: str, database: str) -> list[str]:
        return [str(self.bindir / "psql"), "-h", "127.0.0.1", "-p", str(self.ports["postgres"]),
                "-U", "postgres", "-d", database, "-Atq", "-v", "ON_ERROR_STOP=1", "-c", sql]

    def start(self, users: int) -> list[tuple[str, str]]:
        """Starts the servers; ``users`` users made meanwhile, each with an API token:
        ``(username, token)``."""
        self.start_postgres()
        self.start_redis()
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                       cwd=self.tree, env=self.env("postgres"), check=True)
        web = script_command(self.tree, "start-web.sh", "granian", self.ports["web"])
        web = ["--no-access-log" if arg == "--access-log" else arg for arg in web]
        web[web.index("--log-level") + 1] = "warning"
        self.launch("web", [*web, "--backlog", "2048"], self.env("web"))
        stream = script_command(self.tree, "start-stream.sh", "uvicorn", self.ports["stream"])
        self.launch("stream", [*stream, "--log-level", "warning"], self.env("stream"))
        made = self.make_users(users)
        self.ready("web", lambda: answers(self.ports["web"], "/api/v1/games/"))
        self.ready("stream", lambda: answers(self.ports["stream"], "/healthz"))
        return made

    def launch(self, name: str, args: list[str], env: dict[str, str], **kwargs) -> None:
        self.procs_args[name] = args
        self.procs[name] = subprocess.Popen(args, cwd=kwargs.pop("cwd", self.tree), env=env,
                                            **kwargs)

    def ready(self, name: str, check, seconds: float = 60) -> None:
        """Waits until ``check()`` says the server ``name`` answers."""
        deadline = time.monotonic() + seconds
        while not check():
            if self.procs[name].poll() is not None:
                raise SystemExit(f"bench/api.py: {name} exited with {self.procs[name].returncode}")
            if time.monotonic() > deadline:
                raise SystemExit(f"bench/api.py: {name} did not start in {seconds:g} s")
            time.sleep(0.1)

    def start_postgres(self) -> None:
        data = self.tmp / "postgres"
        data.mkdir()
        owner = {}
        if os.geteuid() == 0:  # (PostgreSQL refuses to run as root)
            owner = {"user": "postgres", "group": "postgres", "extra_groups": []}
            self.tmp.chmod(0o711)
            shutil.chown(data, "postgres", "postgres")
        subprocess.run([str(self.bindir / "initdb"), "-D", str(data), "-U", "postgres",
                        "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"],
                       stdout=subprocess.DEVNULL, check=True, **owner)
        with (self.tmp / "postgres.log").open("w") as log:
            self.launch("postgres", [
                str(self.bindir / "postgres"), "-D", str(data), "-p", str(self.ports["postgres"]),
                "-k", str(data), "-c", "listen_addresses=127.0.0.1",
                "-c", "shared_preload_libraries=pg_stat_statements",
                "-c", "pg_stat_statements.max=10000", "-c", "cluster_name=mascarade-bench"],
                {"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8"},
                cwd=data, stdout=log, stderr=log, **owner)
        self.ready("postgres", lambda: subprocess.run(
            [str(self.bindir / "pg_isready"), "-q", "-h", "127.0.0.1", "-p",
             str(self.ports["postgres"])]).returncode == 0)
        self.psql("CREATE EXTENSION pg_stat_statements")
        for role in ROLES:
            self.psql(f"CREATE ROLE {role} LOGIN SUPERUSER")
        self.psql(f"CREATE DATABASE {DATABASE}")

    def start_redis(self) -> None:
        (self.tmp / "redis").mkdir()

        def pong() -> bool:
            try:
                with socket.create_connection(("127.0.0.1", self.ports["redis"]), 1) as sock:
                    sock.sendall(b"PING\r\n")
                    return sock.recv(16).startswith(b"+PONG")
            except OSError:
                return False

        self.launch("redis", ["redis-server", "--bind", "127.0.0.1", "--port",
                              str(self.ports["redis"]), "--dir", str(self.tmp / "redis"),
                              "--save", "", "--appendonly", "yes"],
                    {"PATH": os.environ.get("PATH", "")}, stdout=subprocess.DEVNULL)
        self.ready("redis", pong)

    def make_users(self, count: int) -> list[tuple[str, str]]:
        """``count`` users, each with an API token: ``(username, token)``."""
        code = (
            "import json\n"
            "from django.contrib.auth import get_user_model\n"
            "from knox.models import AuthToken\n"
            "User = get_user_model()\n"
            f"users = User.objects.bulk_create([User(username=f'b{{i}}', "
            f"email=f'b{{i}}@bench.test') for i in range({count})])\n"
            "print(json.dumps([(u.username, AuthToken.objects.create(u, expiry=None)[1])"
            " for u in users]))\n")
        out = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=self.tree,
                             env=self.env("postgres"), stdout=subprocess.PIPE, text=True,
                             check=True).stdout
        return [tuple(pair) for pair in json.loads(out.strip().splitlines()[-1])]

    def describe(self) -> str:
        version = subprocess.run(["git", "-C", str(self.tree), "describe", "--always", "--tags",
                                  "--dirty"], capture_output=True, text=True).stdout.strip()
        pg = self.psql("SHOW server_version")[0]
        commands = "".join(f"\n  {name}: {shlex.join([Path(args[0]).name, *args[1:]])}"
                           for name, args in self.procs_args.items() if name in ROLES)
        return (f"tree {self.tree} ({version or 'not a git checkout'}); PostgreSQL {pg} and "
                f"Redis of their own; Python {sys.version.split()[0]}; {os.cpu_count()} cores"
                + commands)

    def stop(self) -> None:
        for name in ("stream", "web", "redis", "postgres"):
            proc = self.procs.pop(name, None)
            if proc is None:
                continue
            # (PostgreSQL: an immediate shutdown, its cluster is thrown away)
            proc.send_signal(signal.SIGQUIT if name == "postgres" else signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# What the servers used


def cpu_seconds(roots: dict[str, int]) -> dict[str, float]:
    """CPU seconds used so far by each server: its process and all its descendants (for each one
    alive, its own time and what its ended children left in its children's time), read from
    /proc; and by this process (``clients``)."""
    table: dict[int, tuple[int, float]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                table[int(entry)] = (int(fields[1]), sum(int(x) for x in fields[11:15]))
    owner = {pid: name for name, pid in roots.items()}

    def server(pid: int) -> str | None:
        seen = []
        while pid > 1 and pid not in owner and pid in table:
            seen.append(pid)
            pid = table[pid][0]
        name = owner.get(pid)
        for each in seen:
            owner[each] = name
        return name

    tick = os.sysconf("SC_CLK_TCK")
    out = dict.fromkeys(roots, 0.0)
    for pid, (_parent, used) in table.items():
        name = server(pid)
        if name is not None:
            out[name] += used / tick
    times = os.times()
    out["clients"] = times.user + times.system
    return out


def machine_busy() -> float:
    """CPU seconds the machine's cores have been busy so far (/proc/stat)."""
    with open("/proc/stat") as f:
        user, nice, system, _idle, _iowait, irq, softirq = map(int, f.readline().split()[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


async def statements(servers: Servers) -> dict[str, int]:
    """The statements the connections of each application server's role have run since the last
    reset of ``pg_stat_statements`` (not the foreign keys' checks, which PostgreSQL runs as the
    tables' owner); raises if some of the counts were dropped."""
    rows = await servers.apsql(
        "SELECT r.rolname, sum(s.calls) FROM pg_stat_statements s JOIN pg_roles r "
        "ON r.oid = s.userid GROUP BY 1; SELECT 'dropped', dealloc FROM pg_stat_statements_info")
    counts = {name: int(n) for name, n in (row.split("|") for row in rows)}
    if counts.pop("dropped"):
        raise SystemExit("bench/api.py: pg_stat_statements dropped entries: raise its max")
    return {role: counts.get(role, 0) for role in ROLES}


# --------------------------------------------------------------------------------------------
# The clients


_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)", re.IGNORECASE)
_CONNECTION_CLOSE = re.compile(rb"\r\nconnection:[ \t]*close", re.IGNORECASE)


class KeptAlive(asyncio.Protocol):
    """One HTTP/1.1 connection for a client's requests, one at a time: each answer read to the
    end its ``Content-Length`` says, the connection closed when the server says so. A bare
    protocol (no stream objects): the load generator takes little of the cores it shares."""

    def __init__(self):
        self.transport = None
        self.buffer = bytearray()
        self.done: asyncio.Future | None = None
        self.length: int | None = None
        self.closed = False
        self.close_after = False

    def connection_made(self, transport) -> None:
        self.transport = transport

    def send(self, request: bytes, done: asyncio.Future) -> None:
        self.done, self.length = done, None
        self.buffer.clear()
        self.transport.write(request)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if self.done is None:
            return
        if self.length is None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end + 2])
            length = _CONTENT_LENGTH.search(head)
            if length is None:  # (chunked: the API's answers always say their length)
                self.done.set_exception(RuntimeError(f"no Content-Length: {head[:200]!r}"))
                self.done = None
                return
            self.length = end + 4 + int(length.group(1))
            self.close_after = _CONNECTION_CLOSE.search(head) is not None
        if self.length <= len(self.buffer):
            done, self.done = self.done, None
            done.set_result(bytes(self.buffer[:self.length]))
            if self.close_after:
                self.closed = True
                self.transport.close()

    def connection_lost(self, exc) -> None:
        self.closed = True
        done, self.done = self.done, None
        if done is not None and not done.done():
            done.set_exception(exc or ConnectionResetError("closed before the answer"))


class Stream(asyncio.Protocol):
    """A user's ``/me/stream/``: each ``decision`` handed to ``on_decision``."""

    def __init__(self, token: str, on_decision):
        self.request = (f"GET /api/v1/me/stream/ HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                        f"Authorization: Token {token}\r\n\r\n").encode()
        self.on_decision = on_decision
        self.buffer = b""
        self.head = True
        self.opened = asyncio.get_running_loop().create_future()
        self.transport = None

    def connection_made(self, transport) -> None:
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if self.head:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            if self.buffer[:end].split(b" ", 2)[1] != b"200":
                self.opened.set_exception(RuntimeError(f"stream refused: {self.buffer[:200]!r}"))
                return
            self.head, self.buffer = False, self.buffer[end + 4:]
            self.opened.set_result(None)
        # (each message is one chunk: the chunks' size lines fall between messages)
        *messages, self.buffer = self.buffer.split(b"\n\n")
        for message in messages:
            at = message.find(b"event: decision\ndata: ")
            if at >= 0:
                self.on_decision(orjson.loads(message[at + 22:]))

    def connection_lost(self, exc) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionResetError("stream closed"))


class Client:
    """Four users (the first creates the games, the others join them) playing their games one
    after the other, on one kept-alive connection; in push mode, told of their decisions by their
    four streams."""

    def __init__(self, ports: dict[str, int], users: list[tuple[str, str]], seed: int,
                 interval: float):
        self.ports, self.tokens = ports, dict(users)
        self.names = [name for name, _token in users]
        self.rng = random.Random(seed)
        self.interval = interval  # seconds between two moves' due times; 0: closed loop
        self.games: list[str] = []
        self.made_during_run = 0
        self.conn: KeptAlive | None = None
        self.streams: list[Stream] = []
        self.latest: dict[str, dict] = {}  # game -> the newest decision told for it
        self.news = asyncio.Event()
        self.due: float | None = None  # open loop: when the next move is due
        self.move_due: float | None = None  # open loop: when the move under way was due
        self.reset()

    def reset(self) -> None:
        self.post_ms: list[float] = []
        self.get_ms: list[float] = []
        self.move_ms: list[float] = []  # open loop: from a move's due time to its answer
        self.moves = 0
        self.errors: dict[int, int] = {}

    async def request(self, method: str, path: str, user: str, body=None,
                      since: float | None = None) -> tuple[int, dict, float]:
        data = orjson.dumps(body) if body is not None else b""
        head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Authorization: Token {self.tokens[user]}\r\n")
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        request = head.encode() + b"\r\n" + data
        loop = asyncio.get_running_loop()
        start = time.perf_counter() if since is None else since
        if self.conn is None or self.conn.closed:
            _transport, self.conn = await loop.create_connection(KeptAlive, "127.0.0.1",
                                                                 self.ports["web"])
        done = loop.create_future()
        self.conn.send(request, done)
        raw = await done
        elapsed = (time.perf_counter() - start) * 1000
        header, _sep, payload = raw.partition(b"\r\n\r\n")
        return int(header.split(b" ", 2)[1]), (orjson.loads(payload) if payload else {}), elapsed

    async def make_game(self) -> str:
        status, game, _ms = await self.request("POST", "/api/v1/games/", self.names[0], {
            "game": "mascarade", "options": {"players": 4}})
        if status != 201:
            raise SystemExit(f"bench/api.py: a game refused: {status} {game}")
        for name in self.names[1:]:
            status, answer, _ms = await self.request("POST", f"/api/v1/games/{game['id']}/join/",
                                                     name, {})
            if status != 200:
                raise SystemExit(f"bench/api.py: a join refused: {status} {answer}")
        return game["id"]

    async def next_game(self) -> str:
        if not self.games:  # (more games than made before the run: made now, and said so)
            self.made_during_run += 1
            game = await self.make_game()
            self.latest.pop(game, None)
            return game
        return self.games.pop(0)

    async def open_streams(self) -> None:
        loop = asyncio.get_running_loop()
        for name, token in self.tokens.items():
            _transport, stream = await loop.create_connection(
                lambda token=token, name=name: Stream(token, lambda d: self.told(name, d)),
                "127.0.0.1", self.ports["stream"])
            self.streams.append(stream)
        await asyncio.gather(*(stream.opened for stream in self.streams))

    def told(self, user: str, decision: dict) -> None:
        known = self.latest.get(decision["game"])
        if known is None or decision["seq"] >= known["seq"]:
            self.latest[decision["game"]] = {**decision, "user": user}
            self.news.set()

    def close(self) -> None:
        for each in (self.conn, *self.streams):
            if each is not None and each.transport is not None:
                each.transport.close()

    async def due_time(self) -> float | None:
        """Open loop: waits for the next move's due time, unless a move under way already had
        it; that time (None in a closed loop)."""
        if not self.interval:
            return None
        if self.move_due is None:
            await asyncio.sleep(max(0.0, self.due - time.perf_counter()))
            self.move_due, self.due = self.due, self.due + self.interval
        return self.move_due

    def answered(self, status: int, ms: float) -> None:
        """A move's ``POST`` answered."""
        move_due, self.move_due = self.move_due, None
        self.post_ms.append(ms)
        if status != 201:
            self.errors[status] = self.errors.get(status, 0) + 1
            return
        self.moves += 1
        if move_due is not None:
            self.move_ms.append((time.perf_counter() - move_due) * 1000)

    async def run(self, stop: asyncio.Event, push: bool) -> None:
        self.due = time.perf_counter() + self.rng.random() * self.interval
        await (self.push(stop) if push else self.poll(stop))

    async def poll(self, stop: asyncio.Event) -> None:
        game, awaited = await self.next_game(), self.names[0]
        while not stop.is_set():
            since = await self.due_time()
            status, read, ms = await self.request("GET", f"/api/v1/games/{game}/", awaited,
                                                  since=since)
            self.get_ms.append(ms)
            if read.get("status") != "active":
                game, awaited = await self.next_game(), self.names[0]
                continue
            moves = (read.get("you") or {}).get("legal_moves")
            if not moves:  # read as another user than the awaited one: read again as them
                state = read["state"]
                awaited = state["seats"][state["awaiting"][0]["seat"]]["player"]
                continue
            status, answer, ms = await self.request(
                "POST", f"/api/v1/games/{game}/moves/", awaited,
                {"move": self.rng.choice(moves), "expected_seq": read["seq"]})
            if stop.is_set():
                break
            self.answered(status, ms)
            if status == 201 and answer["game"]["state"]["awaiting"]:
                state = answer["game"]["state"]
                awaited = state["seats"][state["awaiting"][0]["seat"]]["player"]

    async def decision(self, game: str, at_least: int, stop: asyncio.Event) -> dict | None:
        while not stop.is_set():
            known = self.latest.get(game)
            if known is not None and known["seq"] >= at_least and known["legal_moves"]:
                return known
            self.news.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.news.wait(), 1.0)
        return None

    async def push(self, stop: asyncio.Event) -> None:
        game, at_least = await self.next_game(), 0
        while not stop.is_set():
            await self.due_time()
            told = await self.decision(game, at_least, stop)
            if told is None:
                break
            status, answer, ms = await self.request(
                "POST", f"/api/v1/games/{game}/moves/", told["user"],
                {"move": self.rng.choice(told["legal_moves"]), "expected_seq": told["seq"]})
            if stop.is_set():
                break
            self.answered(status, ms)
            if status != 201:
                at_least = max(told["seq"] + 1, answer.get("seq", 0))
                continue
            read, at_least = answer["game"], answer["seq"]
            if read["status"] != "active":
                game, at_least = await self.next_game(), 0
                continue
            mine = (read.get("you") or {}).get("legal_moves")
            if mine:  # the mover decides again: no need to be told
                self.latest[game] = {"game": game, "seq": read["seq"], "legal_moves": mine,
                                     "user": told["user"]}

    def overdue(self, now: float) -> list[float]:
        """Open loop: how long ago (ms) each move due by ``now`` and not answered was due."""
        if not self.interval:
            return []
        out = [] if self.move_due is None else [(now - self.move_due) * 1000]
        due = self.due
        while due <= now:
            out.append((now - due) * 1000)
            due += self.interval
        return out


# --------------------------------------------------------------------------------------------
# A run


def warm_up(seconds: float) -> float:
    return min(3.0, seconds / 4)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def one_run(servers: Servers, users: list[tuple[str, str]], clients: int, rate: float,
                  push: bool, seconds: float) -> dict:
    """``clients`` clients (four of ``users`` each) on new games, offering ``rate`` moves/s
    (0: closed loop): the figures of the measured part."""
    interval = clients / rate if rate else 0.0
    players = [Client(servers.ports, users[4 * k:4 * k + 4], k, interval)
               for k in range(clients)]
    offered = rate or CLOSED_LOOP_GAMES_FOR
    games = int((seconds + warm_up(seconds)) * offered * 1.3 / GAME_MOVES / clients) + 2

    async def make(client: Client) -> None:
        client.games = [await client.make_game() for _ in range(games)]

    await asyncio.gather(*(make(client) for client in players))
    await servers.apsql("ANALYZE", DATABASE)  # (as autovacuum keeps them in a running service)
    await servers.apsql("SELECT pg_stat_statements_reset()")
    if push:
        for k in range(0, clients, 25):  # (the streams open a few at a time)
            await asyncio.gather(*(client.open_streams() for client in players[k:k + 25]))
    for client in players:
        client.made_during_run = 0
    stop = asyncio.Event()
    tasks = [asyncio.create_task(client.run(stop, push)) for client in players]
    roots = {name: proc.pid for name, proc in servers.procs.items()}
    try:
        await asyncio.sleep(warm_up(seconds))
        for client in players:
            client.reset()
        cpu_before, busy_before = cpu_seconds(roots), machine_busy()
        start = time.perf_counter()
        sql_before = await statements(servers)  # (read as late after the start as after the end)
        await asyncio.sleep(seconds)
        now = time.perf_counter()
        elapsed = now - start
        cpu, busy = cpu_seconds(roots), machine_busy()
        counted = [(c.moves, c.post_ms, c.get_ms, c.move_ms, c.overdue(now), c.errors,
                    c.made_during_run) for c in players]
        for client in players:
            client.reset()
        sql = await statements(servers)
        sql = {role: sql[role] - sql_before[role] for role in ROLES}
    finally:
        stop.set()
        await asyncio.wait(tasks, timeout=30)
        for client in players:
            client.close()
    for task in tasks:
        if task.done() and not task.cancelled() and task.exception() is not None:
            raise task.exception()
    used = {name: (cpu[name] - cpu_before[name]) / elapsed for name in cpu}
    used["others"] = max(0.0, (busy - busy_before) / elapsed - sum(used.values()))
    errors: dict[int, int] = {}
    for *_figures, each, _made in counted:
        for status, n in each.items():
            errors[status] = errors.get(status, 0) + n
    moves = sum(c[0] for c in counted)
    answered = [ms for c in counted for ms in c[3]]
    waiting = [ms for c in counted for ms in c[4]]
    return {"moves": moves, "elapsed": elapsed, "errors": errors, "used": used, "sql": sql,
            "post": [ms for c in counted for ms in c[1]],
            "get": [ms for c in counted for ms in c[2]], "rate": rate,
            "move": answered, "late": sum(ms > LATE_MS for ms in answered + waiting),
            "scheduled": len(answered) + len(waiting),
            "made_during_run": sum(c[6] for c in counted)}


def report(label: str, r: dict) -> None:
    def quantiles(values: list[float]) -> str:
        return "  ".join(f"p{round(q * 100)} {percentile(values, q):6.1f}"
                         for q in (0.5, 0.95, 0.99)) + " ms"

    per_s = r["moves"] / r["elapsed"]
    line = f"{label:<36} {per_s:7.1f} moves/s   POST /moves/ {quantiles(r['post'])}"
    if r["get"]:
        line += f"   GET /games/{{id}}/ {quantiles(r['get'])}"
    if r["errors"]:
        line += f"   not 201: {r['errors']}"
    print(line)
    pad = " " * 4
    if r["rate"]:
        share = 100 * r["late"] / r["scheduled"] if r["scheduled"] else float("nan")
        print(f"{pad}a move from its due time to its answer: {quantiles(r['move'])}; late by "
              f"over {LATE_MS:.0f} ms: {share:.1f} % ({r['late']} of {r['scheduled']})")
    moves = r["moves"] or float("nan")
    used, elapsed = r["used"], r["elapsed"]
    servers = sum(used[name] for name in SERVERS)
    print(f"{pad}CPU per move: " + "  ".join(
        f"{name} {used[name] * elapsed * 1000 / moves:.3f}" for name in SERVERS)
        + f"  = servers {servers * elapsed * 1000 / moves:.3f} ms   (cores busy: servers "
        f"{servers * 100:.0f} %, clients {used['clients'] * 100:.0f} %, others "
        f"{used['others'] * 100:.0f} %)")
    sql = r["sql"]
    print(f"{pad}SQL statements per move: " + "  ".join(
        f"{role} {sql[role] / moves:.2f}" for role in ROLES)
        + f"  = {sum(sql.values()) / moves:.2f}")
    if r["made_during_run"]:
        print(f"{pad}(the clients ran out of games: {r['made_during_run']} made during the run, "
              f"their requests counted in the figures above)")
    sys.stdout.flush()


def numbers(text: str, kind=int) -> list:
    return [kind(x) for x in text.split(",") if x.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--push", action="store_true",
                        help="push mode: the clients are told of their decisions by their users' "
                             "/me/stream/ and never read a game")
    parser.add_argument("--clients", default="50", help="numbers of clients, one run each (50)")
    parser.add_argument("--rates", default="0",
                        help="moves/s offered by the clients together, one run each; 0: the "
                             "closed loop (0)")
    parser.add_argument("--seconds", type=float, default=15.0,
                        help="measured length of each run, after its warm-up (15)")
    parser.add_argument("--tree", default=str(HERE),
                        help="the source tree whose servers run (default: this one)")
    args = parser.parse_args()
    tree = Path(args.tree).resolve()
    if not (tree / "manage.py").exists():
        raise SystemExit(f"bench/api.py: no manage.py in {tree}")
    runs = [(n, rate) for n in numbers(args.clients) for rate in numbers(args.rates, float)]
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # (the servers inherit it)
    servers = Servers(tree)
    try:
        users = servers.start(users=4 * sum(n for n, _rate in runs))
        print(servers.describe())
        print(f"{'push' if args.push else 'poll'} mode; {args.seconds:g} s measured per run after "
              f"{warm_up(args.seconds):g} s of warm-up; CPU in ms per move; SQL statements "
              f"counted by pg_stat_statements", flush=True)
        for n, rate in runs:
            gc.collect()
            gc.disable()  # (no pause of the clients during the run)
            try:
                result = uvloop.run(one_run(servers, users, n, rate, args.push, args.seconds))
            finally:
                gc.enable()
            loop = f"offering {rate:g} moves/s" if rate else "closed loop"
            report(f"{n:>3} clients, {loop}", result)
            users = users[4 * n:]  # (new users for each run: no stream tells of older games)
    finally:
        servers.stop()


if __name__ == "__main__":
    main()
