"""Benchmark of the REST API: clients playing bot moves over HTTP against the web server (granian,
2 workers, as ``docker/start-web.sh`` runs it; ``--web gunicorn``: gunicorn as it ran before,
``mascarade_site/gunicorn.py``) on PostgreSQL. The headline first: 50
clients offering 100, 200 and 300 moves/s on a schedule (an open loop), with the moves/s
answered and the p50/p95/p99 latencies of ``POST /moves/`` and ``GET /games/{id}/``; then the
same at 10, 50 and 200 clients each sending as fast as it is answered (a closed loop); then
games that already have 1,000 moves.

    .venv/bin/python bench/api.py [--quick] [--seconds 15] [--open-clients 50]
                                  [--open-rates 100,200,300] [--clients 10,50,200]
                                  [--long-clients 10,50] [--long-moves 1000] [--rate 150]
                                  [--threads N] [--new-connections]

The database named in ``BENCH_DATABASE_URL`` (default: ``mascarade_bench`` on the local PostgreSQL)
is dropped and created anew, and analysed after each set-up. ``REDIS_URL``, when set, is used as in
production (broker of the tasks the moves queue, such as a game's start and end mails; the
throttles), on the bench's own database number (15, emptied at the start: its tasks never reach the
queue of `make run` or of the tests). Each client owns a game of four seats (four users, four
tokens) and plays it in two requests per move: it reads the game as the awaited player (named by the
answer to its last move), lets a bot choose one of the ``you.legal_moves`` it carries and sends it
with ``expected_seq``; a client whose game ended takes a new one made before the run. Each client
keeps one HTTP/1.1 connection alive for all its requests (``--new-connections``: a new one for
each request, as before keep-alive; ``--web gunicorn --threads 0``: gunicorn's sync worker,
which closes each connection after its answer); under each run, the connections opened during
it. ``--seconds`` sets the length of each measured run, after a warm-up of a quarter of it (3 s
at most). Under each run's figures: how busy the cores were with the web server ("web"),
PostgreSQL (its backends serving other databases left out), Redis and the clients (this
process), and that per move, and with anything else (``others``: the machine's cores are
shared, a run beside another job tells).

Open loop (``--open-clients`` clients, one run at each of ``--open-rates``, moves/s for all the
clients together): each client moves on a schedule, one move every ``clients / rate`` seconds
from a random phase, as players who do not all act at once. A ``GET``'s latency counts from the
moment its move was due, so a server that falls behind shows it (no coordinated omission); a
``POST``'s from its sending. Under those: each move's time from its due time to its answer, and
the share of moves late by over 100 ms, counting those still unanswered at the end of the run
whose time came more than 100 ms before it. ``--rate`` adds such runs at each number of
``--clients`` (after its closed-loop run).

Closed loop (``--clients``): each client sends its next request as soon as it has the answer to
the last: the server always holds as many requests as there are clients, so at 50 clients the
mean latency is 50 divided by the requests answered per second; the moves/s are the most the
service answers.

The long games (``--long-clients``, closed loop) are measured twice, each against new games
played the same way: made of exchanges without swap (the length alone: the state keeps its
size), and made of looks (each look adds an entry to its player's ``knowledge``, which API.md
has the game read list in full: after 1,000 moves, about 250 entries per player and a 31 KB
state).

``--push``: the push mode (bench/push.py): clients told of each decision by their users'
``/api/v1/me/stream/`` (uvicorn beside the web server, as in production) answer it with one ``POST``
over a kept-alive connection and never read; open loop at ``--open-clients`` offering
``--push-rates`` (300,600 moves/s), then closed loop at each of ``--clients``; the statements of
a move's ``POST`` and of its stream's step printed first.

``--quick``: a smoke run of about a minute (5 s runs; 100 and 300 moves/s offered by 50
clients, 50 clients in a closed loop, 10 on 200-move games); options given still apply.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import http.client
import os
import random
import re
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/mascarade_bench"
#: On a schedule, a move answered more than this after its due time is late (ms).
LATE_MS = 100.0


#: The Redis database the bench uses (its tasks and throttles), emptied at each start: never the
#: one ``REDIS_URL`` names, which `make run`'s worker and the tests use.
BENCH_REDIS_DB = 15


def interpreter() -> str:
    """The Python that runs the servers and the clients (a venv's ``python`` resolved to the
    interpreter it links to), and whether its configure line asked for profile-guided and
    link-time optimizations, as the production image's (``python:3.11-slim``) does: the web's
    CPU per move is about 5 % lower on such a build (README, "The interpreter"). Debian's own
    ``python3.11`` is built that way by its packaging rules, which its configure line does not
    show."""
    import sysconfig

    args = sysconfig.get_config_var("CONFIG_ARGS") or ""
    flags = [flag for flag in ("--enable-optimizations", "--with-lto") if flag in args]
    built = (f"its configure line has {' '.join(flags)}" if flags else
             "its configure line names neither --enable-optimizations nor --with-lto")
    return f"Python {sys.version.split()[0]} ({os.path.realpath(sys.executable)}, {built})"


def bench_redis_url(url: str) -> str:
    """``url`` with the bench's own database number."""
    parts = urlsplit(url)
    return parts._replace(path=f"/{BENCH_REDIS_DB}").geturl()


def server_env(db_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG",)}
    if env.get("REDIS_URL"):
        env["REDIS_URL"] = bench_redis_url(env["REDIS_URL"])
    env.update({
        "DATABASE_URL": db_url, "DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost", "SECURE_SSL_REDIRECT": "0",
        "SESSION_COOKIE_SECURE": "0", "CSRF_COOKIE_SECURE": "0", "SECURE_HSTS_SECONDS": "0",
        "API_THROTTLE_USER": "1000000/minute", "API_THROTTLE_ANON": "1000000/minute",
        "API_THROTTLE_AUTH": "1000000/minute", "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "mascarade_site.settings",
        # Its own var/ (without REDIS_URL, the filesystem broker's queue is there): the mails
        # the bench's moves queue never land in the queue of `make run`.
        "VAR_DIR": str(ROOT / "var" / "bench-api"),
    })
    return env


def fresh_database(db_url: str, env: dict[str, str]) -> None:
    parts = urlsplit(db_url)
    name = parts.path.lstrip("/")
    args = ["-h", parts.hostname or "127.0.0.1", "-p", str(parts.port or 5432),
            "-U", parts.username or "postgres"]
    shutil.rmtree(Path(env["VAR_DIR"]), ignore_errors=True)  # the last run's queued tasks
    if env.get("REDIS_URL"):  # (its own database: the last run's tasks and throttles)
        import redis

        redis.Redis.from_url(env["REDIS_URL"]).flushdb()
    subprocess.run(["dropdb", "--if-exists", *args, name], check=True)
    subprocess.run(["createdb", *args, name], check=True)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT,
                   env=env, check=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_web(env: dict[str, str], port: int, threads: int | None = None) -> subprocess.Popen:
    """The web server of the runs (:data:`WEB_SERVER`)."""
    if WEB_SERVER == "granian":
        if threads == 0:
            raise SystemExit("--threads 0 is gunicorn's sync worker: add --web gunicorn")
        return start_granian(env, port, threads)
    return start_gunicorn(env, port, threads)


def start_gunicorn(env: dict[str, str], port: int, threads: int | None = None
                   ) -> subprocess.Popen:
    """gunicorn as the web process ran it before granian (``mascarade_site/gunicorn.py``:
    threaded workers that keep connections alive), 2 workers; ``threads``: that many threads per
    worker instead of the configuration's, 0: gunicorn's sync worker (a connection per
    request)."""
    gunicorn = Path(sys.executable).with_name("gunicorn")
    workers = []
    if threads == 0:
        workers = ["--worker-class", "sync", "--threads", "1"]
    elif threads is not None:
        workers = ["--threads", str(threads)]
    proc = subprocess.Popen([str(gunicorn), "mascarade_site.wsgi",
                             "--config", "python:mascarade_site.gunicorn", "--workers", "2",
                             *workers, "--bind", f"127.0.0.1:{port}", "--backlog", "2048",
                             "--log-level", "warning"], cwd=ROOT, env=env)
    return answering(proc, port, "/api/v1/games/", "gunicorn")


#: The WSGI server of the runs (``--web``): granian as ``docker/start-web.sh`` runs it, or
#: gunicorn as it ran before (``mascarade_site/gunicorn.py``), for the comparison.
WEB_SERVER = "granian"


def start_web_command(port: int) -> list[str]:
    """The ``exec granian ...`` of ``docker/start-web.sh`` (the web process's own command line),
    its variables at their defaults, bound to ``127.0.0.1:port``."""
    script = (ROOT / "docker" / "start-web.sh").read_text()
    line = script[script.index("exec granian"):].replace("\\\n", " ").splitlines()[0]
    line = re.sub(r'"\$\{\w+:-([^}]*)\}"', r"\1", line)
    args = shlex.split(line)[1:]
    if "$" in " ".join(args):
        raise ValueError(f"docker/start-web.sh: a variable without a default in {args}")
    args[0] = str(Path(sys.executable).with_name("granian"))
    args[args.index("--host") + 1] = "127.0.0.1"
    args[args.index("--port") + 1] = str(port)
    return args


def start_granian(env: dict[str, str], port: int, threads: int | None = None
                  ) -> subprocess.Popen:
    """granian as ``docker/start-web.sh`` runs it (:func:`start_web_command`: 2 workers of 2
    threads), with ``threads`` threads per worker if given, a longer backlog and no access log
    (gunicorn's runs have none either)."""
    args = start_web_command(port)
    if threads:
        args[args.index("--blocking-threads") + 1] = str(threads)
    args[args.index("--log-level") + 1] = "warning"
    args = [("--no-access-log" if arg == "--access-log" else arg) for arg in args]
    proc = subprocess.Popen([*args, "--backlog", "2048"], cwd=ROOT, env=env)
    return answering(proc, port, "/api/v1/games/", "granian")


def answering(proc: subprocess.Popen, port: int, path: str, name: str) -> subprocess.Popen:
    """``proc``, once the server it started answers ``GET path`` on ``port`` with 200 (30 s at
    most: then it is stopped, and the bench too)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", path)
            if conn.getresponse().status == 200:
                return proc
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise SystemExit(f"{name} did not answer")


# --------------------------------------------------------------------------------------------
# Set-up through the ORM (not measured)


def make_tables(count: int, tag: str, moves_before: int = 0, policy: str = "looks"
                ) -> list[dict]:
    """``count`` started games of 4 seats, each with its 4 users' tokens; ``moves_before`` moves
    already played, chosen by ``policy`` (see :func:`quiet`)."""
    from django.db import transaction

    from accounts.models import User
    from games.api.tokens import new_token
    from games.core import services
    from games.core.catalog import get_game
    from games.core.services import write as core
    from games.models import MoveRecord

    engine = get_game("mascarade")
    users = User.objects.bulk_create([User(username=f"{tag}{i}", email=f"{tag}{i}@bench.test")
                                      for i in range(4 * count)])
    tokens = [new_token(u)[1] for u in users]
    tables = []
    for k in range(count):
        seat_users = users[4 * k:4 * k + 4]
        game_id = services.create_game(seat_users[0], "mascarade",
                                       {"players": 4}).body["id"]
        for user in seat_users[1:]:
            services.join_game(user, game_id)
        if moves_before:
            # Through the write core, in memory, then one commit (a single INSERT of the
            # records): the game as if played, with its snapshot and pending decisions.
            with transaction.atomic():
                table = core.open_table(game_id)
                for _ in range(moves_before):
                    player = engine.pending(table.state)[0].player
                    move = quiet(engine.legal_moves(table.state, player), policy)
                    table.play(player, move, actor=MoveRecord.Actor.BOT)
                core.commit(table)
        tables.append({"game": game_id,
                       "tokens": {u.username: t for u, t in
                                  zip(seat_users, tokens[4 * k:4 * k + 4], strict=True)},
                       "first": seat_users[0].username})
    return tables


def analyze() -> None:
    """Fresh statistics after the bulk set-up, as autovacuum keeps them in a running service
    (without them PostgreSQL plans for the near-empty tables it last saw)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    connection.close()


def quiet(moves: list[dict], policy: str = "looks") -> dict:
    """A move that changes no coins, so a long game stays long. ``"looks"``: a look when it
    may (each one adds to its player's ``knowledge``, which the game read lists in full);
    ``"exchanges"``: an exchange without swap (the state keeps its size however long the
    game); either passes the challenges."""
    wanted = "look" if policy == "looks" else "exchange"
    for move in moves:
        if move["type"] == "pass" or (move["type"] == wanted and not move.get("swap")):
            return move
    return next(m for m in moves if m["type"] == "exchange" and not m["swap"])


# --------------------------------------------------------------------------------------------
# Clients


class _OneExchange(asyncio.Protocol):
    """One request on its own connection, the whole answer read until the server closes it: a
    bare protocol (no stream objects), so that the load generator takes little of the cores."""

    def __init__(self, request: bytes, done: asyncio.Future):
        self.request, self.done, self.chunks = request, done, []

    def connection_made(self, transport) -> None:
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)

    def connection_lost(self, exc) -> None:
        if not self.done.done():
            if exc is None:
                self.done.set_result(b"".join(self.chunks))
            else:
                self.done.set_exception(exc)


_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)", re.IGNORECASE)
_CONNECTION_CLOSE = re.compile(rb"\r\nconnection:[ \t]*close", re.IGNORECASE)


class _KeptAlive(asyncio.Protocol):
    """One HTTP/1.1 connection kept open for a client's requests, one at a time: each answer
    read to the end its ``Content-Length`` says (to the connection's end without one), the
    connection closed when the server says ``Connection: close``. A bare protocol too."""

    def __init__(self):
        self.transport = None
        self.buffer = bytearray()
        self.done: asyncio.Future | None = None
        self.length: int | None = None  # the answer's whole length once its head is read
        self.closed = False

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
            status = int(head.split(b" ", 2)[1])
            self.length = (end + 4 + int(length.group(1)) if length
                           else end + 4 if status in (204, 304) else -1)
            self.close_after = _CONNECTION_CLOSE.search(head) is not None
        if 0 <= self.length <= len(self.buffer):
            done, self.done = self.done, None
            done.set_result(bytes(self.buffer[:self.length]))
            if self.close_after:
                self.closed = True
                self.transport.close()

    def connection_lost(self, exc) -> None:
        self.closed = True
        done, self.done = self.done, None
        if done is not None and not done.done():
            if exc is None and self.length == -1:  # an answer without a length: it ends here
                done.set_result(bytes(self.buffer))
            else:
                done.set_exception(exc or ConnectionResetError(
                    "the server closed the connection before its answer"))


class Client:
    """One client: reads its game as the awaited player, sends a move, and again, over one
    HTTP/1.1 connection kept alive (``keep_alive=False``: a new connection for each request, in
    HTTP/1.0, which the server closes after its answer). All the clients share one asyncio
    loop: the load generator takes as little of the shared cores as it can."""

    def __init__(self, port: int, table: dict, policy: str, seed: int, new_table,
                 interval: float = 0.0, keep_alive: bool = True):
        self.port, self.table, self.policy = port, table, policy
        self.keep_alive = keep_alive
        self.conn: _KeptAlive | None = None
        self.connections = 0  # connections opened
        self.interval = interval  # seconds between two moves' due times; 0: at once
        self.rng = random.Random(seed)
        self.new_table = new_table
        self.post_ms: list[float] = []
        self.get_ms: list[float] = []
        self.move_ms: list[float] = []  # on a schedule: from a move's due time to its answer
        self.moves = 0
        self.errors: dict[int, int] = {}
        self.due: float | None = None  # on a schedule: when the next move is due
        self.move_due: float | None = None  # on a schedule: when the move under way was due

    async def call(self, method: str, path: str, token: str, body=None, since: float | None = None
                   ) -> tuple[int, dict, float]:
        data = orjson.dumps(body) if body is not None else b""
        head = (f"{method} {path} HTTP/1.{1 if self.keep_alive else 0}\r\nHost: 127.0.0.1\r\n"
                f"Authorization: Token {token}\r\n")
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        request = head.encode() + b"\r\n" + data
        start = time.perf_counter() if since is None else since
        loop = asyncio.get_running_loop()
        if self.keep_alive:
            raw = await self.exchange(loop, request)
        else:
            done = loop.create_future()
            self.connections += 1
            await loop.create_connection(lambda: _OneExchange(request, done),
                                         "127.0.0.1", self.port)
            raw = await done  # HTTP/1.0: the answer ends when the server closes
        elapsed = (time.perf_counter() - start) * 1000
        header, _, payload = raw.partition(b"\r\n\r\n")
        status = int(header.split(b" ", 2)[1])
        return status, orjson.loads(payload) if payload else {}, elapsed

    async def exchange(self, loop, request: bytes) -> bytes:
        """One request and its answer on the client's kept-alive connection (opened first if
        there is none or the server closed it). If the server closed a connection that had
        already served an answer just as this request went out (an idle one past its
        keep-alive time), once more on a new one: nothing of it was read."""
        for _attempt in range(2):
            reused = self.conn is not None and not self.conn.closed
            if not reused:
                self.connections += 1
                _transport, self.conn = await loop.create_connection(
                    _KeptAlive, "127.0.0.1", self.port)
            done = loop.create_future()
            self.conn.send(request, done)
            try:
                return await done
            except OSError:
                if not reused:
                    raise
        raise ConnectionError("unreachable")

    def close(self) -> None:
        if self.conn is not None and not self.conn.closed:
            self.conn.transport.close()

    async def run(self, stop: asyncio.Event) -> None:
        from games.core.catalog import get_bot

        bot = get_bot("mascarade", "random")
        awaited = self.table["first"]
        self.due = time.perf_counter() + self.rng.random() * self.interval
        try:
            await self.play(bot, awaited, stop)
        finally:
            self.close()

    async def play(self, bot, awaited: str, stop: asyncio.Event) -> None:
        while not stop.is_set():
            since = None
            if self.interval and self.move_due is None:  # wait for the next move's time
                await asyncio.sleep(max(0.0, self.due - time.perf_counter()))
                since = self.move_due = self.due
                self.due += self.interval
            url = f"/api/v1/games/{self.table['game']}/"
            status, game, ms = await self.call("GET", url, self.table["tokens"][awaited],
                                               since=since)
            self.get_ms.append(ms)
            if game.get("status") != "active":
                self.table = await asyncio.get_running_loop().run_in_executor(
                    None, self.new_table)
                awaited = self.table["first"]
                continue
            moves = (game.get("you") or {}).get("legal_moves")
            if not moves:  # read as someone else than the awaited player: read again as them
                awaited = game["state"]["awaiting"][0]["player"]
                continue
            token = self.table["tokens"][awaited]
            move = (bot.choose({}, moves, [], self.rng) if self.policy == "random"
                    else quiet(moves, self.policy))
            status, answer, ms = await self.call("POST", url + "moves/", token,
                                                 {"move": move, "expected_seq": game["seq"]})
            move_due, self.move_due = self.move_due, None
            if stop.is_set():
                break
            self.post_ms.append(ms)
            if status == 201:
                self.moves += 1
                if move_due is not None:
                    self.move_ms.append((time.perf_counter() - move_due) * 1000)
                awaiting = answer["game"]["state"]["awaiting"]
                awaited = awaiting[0]["player"] if awaiting else awaited
            else:
                self.errors[status] = self.errors.get(status, 0) + 1

    def overdue(self, now: float) -> list[float]:
        """On a schedule: how long ago (ms) each move due by ``now`` and not yet answered was
        due (the one under way, and those whose time came while it was)."""
        if not self.interval or self.due is None:
            return []
        out = [] if self.move_due is None else [(now - self.move_due) * 1000]
        due = self.due
        while due <= now:
            out.append((now - due) * 1000)
            due += self.interval
        return out


def cpu_seconds(known: dict[int, tuple[str, float]] | None = None
                ) -> dict[int, tuple[str, float]]:
    """CPU time used so far by each process of the web server ("web"), of PostgreSQL (see
    :func:`of_bench_postgres`), of Redis and by this one (the clients), read from /proc (Linux);
    empty elsewhere. With ``known`` (an earlier
    reading), only those processes are read again (no scan of every process)."""
    out: dict[int, tuple[str, float]] = {}
    tick = os.sysconf("SC_CLK_TCK")
    try:
        pids = (list(known) if known is not None
                else [int(p) for p in os.listdir("/proc") if p.isdigit()])
    except OSError:
        return out
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if known is not None:
                group = known[pid][0]
            else:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read()
                group = ("clients" if pid == os.getpid() else "web" if (
                    b"gunicorn" in cmd or b"granian" in cmd)
                         else "uvicorn" if b"uvicorn" in cmd
                         else "postgres" if of_bench_postgres(cmd)
                         else "redis" if b"redis-server" in cmd else None)
        except OSError:
            continue
        if group:
            out[pid] = (group, (int(fields[11]) + int(fields[12])) / tick)
    return out


#: Clients keep one connection alive each (``--new-connections``: one per request).
KEEP_ALIVE = True
#: The bench's database (its backends count as PostgreSQL's; other databases' go to "others").
BENCH_DB: bytes = b""
_BACKEND = re.compile(rb"^postgres: [^:]+: \S+ (\S+) (?:\S+\(\d+\)|\[local\])")


def of_bench_postgres(cmd: bytes) -> bool:
    """A process of PostgreSQL other than a backend serving another database than the bench's
    (the machine is shared: a test run's backends are not the bench's)."""
    if b"postgres" not in cmd:
        return False
    backend = _BACKEND.match(cmd)
    return backend is None or backend.group(1) == BENCH_DB


def machine_busy() -> float:
    """CPU seconds the machine's cores have been busy so far, all processes (/proc/stat: user,
    nice, system, irq, softirq); 0 elsewhere."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:8]]
    except (OSError, ValueError):
        return 0.0
    user, nice, system, _idle, _iowait, irq, softirq = fields
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def cpu_share(before: dict, after: dict, elapsed: float) -> dict[str, float]:
    """Cores used by each group between two :func:`cpu_seconds` readings (a process that
    started meanwhile counts from its start; one that ended counts up to its last reading in
    ``after``, which :func:`watch_cpu` keeps)."""
    out = {"web": 0.0, "postgres": 0.0, "redis": 0.0, "clients": 0.0}
    for pid, (group, used) in after.items():
        out[group] = out.get(group, 0.0) + (used - before.get(pid, (group, 0.0))[1]) / elapsed
    return out


async def measure_cpu(seconds: float) -> tuple[float, dict[str, float]]:
    """Wait ``seconds`` while the clients play; the time it took, and the cores each group of
    processes used meanwhile (read every half second by :func:`watch_cpu`), and ``others``:
    whatever else ran on the shared cores."""
    before, busy_before = cpu_seconds(), machine_busy()
    start = time.perf_counter()
    seen, watching = dict(before), asyncio.Event()
    watcher = asyncio.create_task(watch_cpu(seen, watching))
    await asyncio.sleep(seconds)
    elapsed = time.perf_counter() - start
    watching.set()
    await watcher
    busy = (machine_busy() - busy_before) / elapsed
    seen.update(cpu_seconds())
    cpu = cpu_share(before, seen, elapsed)
    if busy:
        cpu["others"] = max(0.0, busy - sum(cpu.values()))
    return elapsed, cpu


async def watch_cpu(seen: dict, stop: asyncio.Event) -> None:
    """Read :func:`cpu_seconds` of the processes in ``seen`` into it every half second until
    ``stop``: a PostgreSQL backend that ends during a run (Django closes its connections after
    ``CONN_MAX_AGE``) then still counts up to its last reading instead of dropping out of the
    figures. (Those started during the run are found by the reading at its end.)"""
    known = dict(seen)
    while not stop.is_set():
        seen.update(cpu_seconds(known))  # (the processes of the start: a few files to read)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


def web_worker_of(ports: set[int]) -> dict[int, int]:
    """For clients' connections to the web server, named by their local ports: the web server
    process (pid) that holds each one (read from /proc: Linux; empty elsewhere). A worker keeps
    the connections it accepted, so this is each worker's share of the clients."""
    inodes: dict[int, int] = {}  # socket inode -> the client's port
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            remote = int(fields[2].rsplit(":", 1)[1], 16)
            if remote in ports and fields[3] == "01":  # ESTABLISHED, the server's end
                inodes[int(fields[9])] = remote
    out: dict[int, int] = {}
    for pid, (group, _used) in cpu_seconds().items():
        if group != "web":
            continue
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if link.startswith("socket:["):
                        port = inodes.get(int(link[8:-1]))
                        if port is not None:
                            out[port] = pid
    return out


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_without_collections(measure):
    """``asyncio.run(measure())`` with the garbage collector out of the way, on uvloop's event
    loop (the uvicorn of the streams has it: ``uvicorn[standard]``), which spends less of the
    cores the clients share with the servers than asyncio's own. The load generator must not
    pause: a full collection of this process's heap (Django and the tables set up here) took
    80 ms, during which the answers of all the clients waited unread and their latencies grew by
    as much: about 1 % of them, enough to move the p99. Everything alive now is left out of
    collections, and none runs during the measured run (what the clients leave behind in 15 s
    is a few MB); collected again after it."""
    import uvloop

    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        return uvloop.run(measure())
    finally:
        gc.enable()
        gc.unfreeze()
        gc.collect()


def run_level(port: int, tables: list[dict], policy: str, seconds: float, spare,
              rate: float = 0.0) -> dict:
    """One measured run; ``rate``: moves/s offered by all the clients together (0: each client
    goes on as soon as it has its answer)."""
    interval = len(tables) / rate if rate else 0.0
    clients = [Client(port, table, policy, i, spare, interval, KEEP_ALIVE)
               for i, table in enumerate(tables)]

    async def measure() -> tuple[float, list, dict[str, float]]:
        stop = asyncio.Event()
        tasks = [asyncio.create_task(client.run(stop)) for client in clients]
        await asyncio.sleep(warm_up(seconds))  # not counted
        for client in clients:
            client.post_ms.clear()
            client.get_ms.clear()
            client.move_ms.clear()
            client.moves = client.connections = 0
        elapsed, cpu = await measure_cpu(seconds)
        now = time.perf_counter()
        snapshot = [(c.moves, list(c.post_ms), list(c.get_ms), dict(c.errors), list(c.move_ms),
                     c.overdue(now), c.connections) for c in clients]
        stop.set()
        await asyncio.wait(tasks, timeout=60)
        return elapsed, snapshot, cpu

    elapsed, snapshot, cpu = run_without_collections(measure)
    moves = sum(s[0] for s in snapshot)
    post = [ms for s in snapshot for ms in s[1]]
    get = [ms for s in snapshot for ms in s[2]]
    errors: dict[int, int] = {}
    for s in snapshot:
        for code, n in s[3].items():
            errors[code] = errors.get(code, 0) + n
    result = {"moves_per_s": moves / elapsed,
              "post": [percentile(post, q) for q in (0.5, 0.95, 0.99)],
              "get": [percentile(get, q) for q in (0.5, 0.95, 0.99)],
              "errors": errors, "cpu": cpu,
              "connections": sum(s[6] for s in snapshot), "requests": len(post) + len(get)}
    if rate:
        answered = [ms for s in snapshot for ms in s[4]]
        waiting = [ms for s in snapshot for ms in s[5]]
        # The moves not yet answered at the end count too (a server that falls behind leaves
        # them waiting): late if their time came more than LATE_MS before the end.
        result.update(offered=rate, move=[percentile(answered, q) for q in (0.5, 0.95, 0.99)],
                      answered=len(answered), waiting=len(waiting),
                      late=sum(ms > LATE_MS for ms in answered + waiting))
    return result


def levels(text: str) -> list[int]:
    """``"10,50"`` → ``[10, 50]``; empty or zero levels are left out (``--long-clients 0``)."""
    return [n for n in (int(x) for x in text.split(",") if x.strip()) if n > 0]


def rates(text: str) -> list[float]:
    """``"100,200"`` → ``[100.0, 200.0]``; empty or zero rates are left out."""
    return [r for r in (float(x) for x in text.split(",") if x.strip()) if r > 0]


def warm_up(seconds: float) -> float:
    """The unmeasured start of each run (see :func:`run_level`)."""
    return min(3.0, seconds / 4)


def report(label: str, result: dict) -> None:
    post, get = result["post"], result["get"]
    errors = f"  non-201: {result['errors']}" if result["errors"] else ""
    print(f"{label:<40} {result['moves_per_s']:8.1f} moves/s   "
          f"POST /moves/ p50 {post[0]:6.1f}  p95 {post[1]:6.1f}  p99 {post[2]:6.1f} ms   "
          f"GET /games/{{id}}/ p50 {get[0]:6.1f}  p95 {get[1]:6.1f}  p99 {get[2]:6.1f} ms"
          f"{errors}", flush=True)
    if "offered" in result:
        move, total = result["move"], result["answered"] + result["waiting"]
        share = 100 * result["late"] / total if total else float("nan")
        print(f"{'':<40} a move from its due time to its answer: p50 {move[0]:6.1f}  "
              f"p95 {move[1]:6.1f}  p99 {move[2]:6.1f} ms; late by over {LATE_MS:.0f} ms: "
              f"{share:.1f} % ({result['late']} of {total}; {result['waiting']} unanswered at "
              f"the end)", flush=True)
    if result["cpu"] and result["moves_per_s"]:
        share = "  ".join(f"{name} {used * 100:.0f} %" + (
            "" if name == "others" else f" ({used * 1000 / result['moves_per_s']:.1f} ms/move)")
            for name, used in result["cpu"].items())
        print(f"{'':<40} cores busy: {share}; connections opened: {result['connections']} "
              f"for {result['requests']} requests", flush=True)


#: ``--quick``: a smoke run of about a minute (each option still overrides it).
QUICK = {"seconds": 5.0, "open_clients": 50, "open_rates": "100,300", "clients": "50",
         "long_clients": "10", "long_moves": 200}
FULL = {"seconds": 15.0, "open_clients": 50, "open_rates": "100,200,300",
        "clients": "10,50,200", "long_clients": "10,50", "long_moves": 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split(". ", 1)[0].replace("\n", " ") + ".")
    parser.add_argument("--seconds", type=float, help="length of each measured run (15)")
    parser.add_argument("--open-clients", type=int,
                        help="clients of the open-loop runs, the headline (50; 0: none)")
    parser.add_argument("--open-rates",
                        help="moves/s offered by them together, one run each (100,200,300)")
    parser.add_argument("--clients", help="closed-loop runs, one per number of clients "
                                          "(10,50,200)")
    parser.add_argument("--long-clients", help="closed-loop runs on long games (10,50)")
    parser.add_argument("--long-moves", type=int, help="moves already played in the long "
                                                       "games (1000)")
    parser.add_argument("--rate", default="",
                        help="moves/s offered on a schedule: runs at each of these rates (e.g. "
                             "150,200) at each number of --clients, after its closed-loop run")
    parser.add_argument("--threads", type=int,
                        help="the web server's threads per worker (default 2; gunicorn's: those of "
                             "mascarade_site/gunicorn.py, GUNICORN_THREADS or 2); 0: gunicorn's "
                             "sync worker, which closes each connection after its answer "
                             "(implies --new-connections)")
    parser.add_argument("--new-connections", action="store_true",
                        help="each request on a new connection (HTTP/1.0), as before keep-alive")
    parser.add_argument("--web", choices=("granian", "gunicorn"), default="granian",
                        help="the WSGI server: granian as the compose file runs it (default), "
                             "or gunicorn as it ran before (mascarade_site/gunicorn.py)")
    parser.add_argument("--push", action="store_true",
                        help="push mode (bench/push.py): clients told of their decisions by "
                             "their /me/stream/ (uvicorn) answer each with one POST, no read; "
                             "open loop at --open-clients offering --push-rates, then closed "
                             "loop at each of --clients")
    parser.add_argument("--push-rates", default="300,600",
                        help="push mode: moves/s offered by the open-loop clients (300,600)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run of about a minute: "
                             + ", ".join(f"--{k.replace('_', '-')} {v:g}" if isinstance(v, float)
                                         else f"--{k.replace('_', '-')} {v}"
                                         for k, v in QUICK.items()))
    args = parser.parse_args()
    for name, value in (QUICK if args.quick else FULL).items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    db_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    global BENCH_DB, KEEP_ALIVE, WEB_SERVER
    WEB_SERVER = args.web
    BENCH_DB = urlsplit(db_url).path.lstrip("/").encode()
    KEEP_ALIVE = not args.new_connections and args.threads != 0
    env = server_env(db_url)
    fresh_database(db_url, env)
    # (VAR_DIR too: the start mails of the games set up here are queued in the bench's own
    # var/, not in the queue that `make run`'s worker would then have to work through first)
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "DEBUG", "SECRET_KEY",
                                            "ALLOWED_HOSTS", "DJANGO_SETTINGS_MODULE",
                                            "VAR_DIR", "REDIS_URL") if k in env})
    import django

    django.setup()
    from django.db import connection

    port = free_port()
    server = start_web(env, port, args.threads)
    try:
        counter = iter(range(10**9))
        lock = threading.Lock()
        spares: list[dict] = []

        def spare() -> dict:
            """A new game for a client whose game ended: from those made before the run (making
            one costs the shared cores far more than a move), else made now."""
            with lock:
                if spares:
                    return spares.pop()
                table = make_tables(1, f"e{next(counter)}x")[0]  # (not a prefix used below)
                connection.close()
                return table

        def scheduled(n: int, rate: float, tag: str) -> dict:
            """A run of ``n`` clients offering ``rate`` moves/s together, on new games."""
            tables = make_tables(n, f"{tag}x")
            # random games end after about 40 moves: spares for the run and its warm-up
            spares[:] = make_tables(int((args.seconds + warm_up(args.seconds)) * rate / 30) + n,
                                    f"t{tag}x")
            analyze()
            return run_level(port, tables, "random", args.seconds, spare, rate)

        threads = (os.environ.get("GUNICORN_THREADS", "2") if args.threads is None
                   else args.threads)
        if args.push:
            import push

            print(f"{WEB_SERVER} 2 workers on 127.0.0.1:{port}, PostgreSQL "
                  f"{urlsplit(db_url).path[1:]}; {args.seconds:g} s per run after "
                  f"{warm_up(args.seconds):g} s of warm-up; {os.cpu_count()} cores; "
                  f"{interpreter()}", flush=True)
            push.main(args, env, port, analyze)
            return
        workers = "sync workers" if threads == 0 else f"workers of {threads} threads"
        print(f"{WEB_SERVER} 2 {workers} on 127.0.0.1:{port}, "
              f"{'kept-alive connections' if KEEP_ALIVE else 'a connection per request'}, "
              f"PostgreSQL {urlsplit(db_url).path[1:]}, "
              f"cache {'Redis' if os.environ.get('REDIS_URL') else 'local memory'}; "
              f"{args.seconds:g} s per run after {warm_up(args.seconds):g} s of warm-up; "
              f"{os.cpu_count()} cores{'; --quick' if args.quick else ''}; {interpreter()}",
              flush=True)
        runs = 0
        if args.open_clients > 0 and rates(args.open_rates):
            n = args.open_clients
            print(f"\nOPEN LOOP (the headline): {n} clients playing new games (random bot), each "
                  f"moving on a schedule from a random phase, together offering the moves/s "
                  f"named; moves/s: those answered; a GET's latency counts from its move's due "
                  f"time (a server falling behind shows), a POST's from its sending", flush=True)
            for rate in rates(args.open_rates):
                runs += 1
                report(f"{n:>3} clients, offered {rate:5g} moves/s",
                       scheduled(n, rate, f"o{runs}x{n}"))
        if levels(args.clients):
            print("\nCLOSED LOOP: each client sends its next request as soon as it has the answer "
                  "to its last (the server always holds as many requests as there are clients)"
                  + ("; then the same clients on a schedule (--rate)" if rates(args.rate) else ""),
                  flush=True)
        for n in levels(args.clients):
            tables = make_tables(n, f"n{n}x")
            # random games end after about 40 moves: enough new ones for the run at up to
            # 600 moves/s (more are made during the run if need be, which slows it)
            wanted = int(args.seconds * 15) + n
            spares[:] = make_tables(wanted, f"s{n}x")
            analyze()
            report(f"{n:>3} clients, new games, random bot", run_level(
                port, tables, "random", args.seconds, spare))
            for rate in rates(args.rate):
                runs += 1
                report(f"{n:>3} clients, offered {rate:5g} moves/s",
                       scheduled(n, rate, f"r{runs}x{n}"))
        if levels(args.long_clients):
            print(f"\nLONG GAMES (closed loop): games of {args.long_moves} moves already played, "
                  f"each after new games played the same way", flush=True)
        for n in levels(args.long_clients):
            for policy in ("exchanges", "looks"):
                short = make_tables(n, f"q{n}{policy[0]}x", policy=policy)
                analyze()
                report(f"{n:>3} clients, new games, {policy}", run_level(
                    port, short, policy, args.seconds, spare))
                long = make_tables(n, f"l{n}{policy[0]}x", moves_before=args.long_moves,
                                   policy=policy)
                analyze()
                report(f"{n:>3} clients, {args.long_moves}-move games, {policy}", run_level(
                    port, long, policy, args.seconds, spare))
    finally:
        server.terminate()
        server.wait(timeout=30)

if __name__ == "__main__":
    main()
