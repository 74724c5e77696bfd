"""Benchmark of the REST API: clients playing bot moves over HTTP against gunicorn (2 workers) on
PostgreSQL. Prints sustained moves/s and p50/p95/p99 latencies of ``POST /moves/`` and
``GET /games/{id}/``, at 10, 50 and 200 clients, then on games that already have 1,000 moves.

    .venv/bin/python bench/api.py [--seconds 15] [--clients 10,50,200] [--long-clients 10,50]
                                     [--rate 100,150]

The database named in ``BENCH_DATABASE_URL`` (default: ``mascarade_bench`` on the local
PostgreSQL) is dropped and created anew, and analysed after each set-up. ``REDIS_URL``, when
set, is used as in production (broker of the tasks the moves queue, such as a game's start and
end mails; cache for the throttles). Each client owns a game of four seats (four users, four
tokens) and plays it in two requests per move: it reads the game as the awaited player (named by
the answer to its last move), lets a bot choose one of the ``you.legal_moves`` it carries and
sends it with ``expected_seq``; a client whose game ended takes a new one made before the run.
``--seconds`` sets the length of each measured run. Under each run's figures: how busy the cores
were with gunicorn, PostgreSQL and the clients (this process), and that per move.

By default each client sends its next request as soon as it has the answer to the last (a closed
loop: the server always holds as many requests as there are clients, so at 50 clients the mean
latency is 50 divided by the requests answered per second). ``--rate R`` (moves/s for all the
clients together; several rates separated by commas) adds runs in which each client moves on a
schedule instead, one move every ``clients / R`` seconds from a random phase (an open loop, as
players who do not all act at once): the latencies then tell what a client waits for at that
load. A latency counts from the moment the move was due, so a server that falls behind shows it
(no coordinated omission).

The long games are measured twice, each against new games played the same way: made of
exchanges without swap (the length alone: the state keeps its size), and made of looks (each
look adds an entry to its player's ``knowledge``, which API.md has the game read list in full:
after 1,000 moves, about 250 entries per player and a 31 KB state).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import http.client
import os
import random
import secrets
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


def server_env(db_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG",)}
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
    subprocess.run(["dropdb", "--if-exists", *args, name], check=True)
    subprocess.run(["createdb", *args, name], check=True)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT,
                   env=env, check=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_gunicorn(env: dict[str, str], port: int) -> subprocess.Popen:
    gunicorn = Path(sys.executable).with_name("gunicorn")
    proc = subprocess.Popen([str(gunicorn), "mascarade_site.wsgi", "--workers", "2",
                             "--bind", f"127.0.0.1:{port}", "--backlog", "2048",
                             "--log-level", "warning"], cwd=ROOT, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/api/v1/games/")
            if conn.getresponse().status == 200:
                return proc
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise SystemExit("gunicorn did not answer")


# --------------------------------------------------------------------------------------------
# Set-up through the ORM (not measured)


def make_tables(count: int, tag: str, moves_before: int = 0, policy: str = "looks"
                ) -> list[dict]:
    """``count`` started games of 4 seats, each with its 4 users' tokens; ``moves_before`` moves
    already played, chosen by ``policy`` (see :func:`quiet`)."""
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from accounts.models import User
    from games import services
    from games.engine import get_game
    from games.models import Game, MoveRecord

    engine = get_game("mascarade")
    users = User.objects.bulk_create([User(username=f"{tag}{i}", email=f"{tag}{i}@bench.test")
                                      for i in range(4 * count)])
    tokens = Token.objects.bulk_create([Token(user=u, key=Token.generate_key()) for u in users])
    tables = []
    for k in range(count):
        seat_users = users[4 * k:4 * k + 4]
        game_id = services.create_game(seat_users[0], "mascarade",
                                       {"players": 4}).body["id"]
        for user in seat_users[1:]:
            services.join_game(user, game_id)
        if moves_before:
            game = Game.objects.get(pk=game_id)
            seats = list(game.seats.order_by("position"))
            state = engine.setup(game.options, game.seed)
            records = []
            for seq in range(1, moves_before + 1):
                player = engine.pending(state)[0].player
                move = quiet(engine.legal_moves(state, player), policy)
                state, events = engine.apply(state, player, move)
                records.append(MoveRecord(game=game, seq=seq, seat=seats[player],
                                          payload=move, events=events))
            MoveRecord.objects.bulk_create(records, batch_size=500)
            game.seq = moves_before
            game.save(update_fields=["seq", "updated_at"])
            services._write_snapshot(game, state)
            services._sync_pending(game, state, seats, None, timezone.now())
        tables.append({"game": game_id,
                       "tokens": {u.username: t.key for u, t in
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


class Client:
    """One client: reads its game as the awaited player, sends a move, and again, on its own
    connection for each request (gunicorn's sync workers close it after each answer). All the
    clients share one asyncio loop: the load generator takes as little of the shared cores as
    it can."""

    def __init__(self, port: int, table: dict, policy: str, seed: int, new_table,
                 interval: float = 0.0):
        self.port, self.table, self.policy = port, table, policy
        self.interval = interval  # seconds between two moves' due times; 0: at once
        self.rng = random.Random(seed)
        self.new_table = new_table
        self.post_ms: list[float] = []
        self.get_ms: list[float] = []
        self.moves = 0
        self.errors: dict[int, int] = {}

    async def call(self, method: str, path: str, token: str, body=None, since: float | None = None
                   ) -> tuple[int, dict, float]:
        data = orjson.dumps(body) if body is not None else b""
        head = (f"{method} {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                f"Authorization: Token {token}\r\n")
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        start = time.perf_counter() if since is None else since
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        await loop.create_connection(lambda: _OneExchange(head.encode() + b"\r\n" + data, done),
                                     "127.0.0.1", self.port)
        raw = await done  # HTTP/1.0: the answer ends when the server closes
        elapsed = (time.perf_counter() - start) * 1000
        header, _, payload = raw.partition(b"\r\n\r\n")
        status = int(header.split(b" ", 2)[1])
        return status, orjson.loads(payload) if payload else {}, elapsed

    async def run(self, stop: asyncio.Event) -> None:
        from games.engine.bots import get_bot

        bot = get_bot("mascarade", "random")
        awaited = self.table["first"]
        due = time.perf_counter() + self.rng.random() * self.interval
        move_due = None  # on a schedule: when the move being made was due
        while not stop.is_set():
            since = None
            if self.interval and move_due is None:  # wait for the next move's time, if ahead
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                since = move_due = due
                due += self.interval
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
            move_due = None
            if stop.is_set():
                break
            self.post_ms.append(ms)
            if status == 201:
                self.moves += 1
                awaiting = answer["game"]["state"]["awaiting"]
                awaited = awaiting[0]["player"] if awaiting else awaited
            else:
                self.errors[status] = self.errors.get(status, 0) + 1


def cpu_seconds(known: dict[int, tuple[str, float]] | None = None
                ) -> dict[int, tuple[str, float]]:
    """CPU time used so far by each process of the server (gunicorn), of PostgreSQL and by this
    one (the clients), read from /proc (Linux); empty elsewhere. With ``known`` (an earlier
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
                group = ("clients" if pid == os.getpid() else "gunicorn" if b"gunicorn" in cmd
                         else "postgres" if b"postgres" in cmd else None)
        except OSError:
            continue
        if group:
            out[pid] = (group, (int(fields[11]) + int(fields[12])) / tick)
    return out


def cpu_share(before: dict, after: dict, elapsed: float) -> dict[str, float]:
    """Cores used by each group between two :func:`cpu_seconds` readings (a process that
    started meanwhile counts from its start; one that ended counts up to its last reading in
    ``after``, which :func:`watch_cpu` keeps)."""
    out = {"gunicorn": 0.0, "postgres": 0.0, "clients": 0.0}
    for pid, (group, used) in after.items():
        out[group] += (used - before.get(pid, (group, 0.0))[1]) / elapsed
    return out


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


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_level(port: int, tables: list[dict], policy: str, seconds: float, spare,
              rate: float = 0.0) -> dict:
    """One measured run; ``rate``: moves/s offered by all the clients together (0: each client
    goes on as soon as it has its answer)."""
    interval = len(tables) / rate if rate else 0.0
    clients = [Client(port, table, policy, i, spare, interval)
               for i, table in enumerate(tables)]

    async def measure() -> tuple[float, list, dict[str, float]]:
        stop = asyncio.Event()
        tasks = [asyncio.create_task(client.run(stop)) for client in clients]
        await asyncio.sleep(min(3.0, seconds / 4))  # warm-up, not counted
        for client in clients:
            client.post_ms.clear()
            client.get_ms.clear()
            client.moves = 0
        cpu_before = cpu_seconds()
        start = time.perf_counter()
        seen = dict(cpu_before)
        watching = asyncio.Event()
        watcher = asyncio.create_task(watch_cpu(seen, watching))
        await asyncio.sleep(seconds)
        elapsed = time.perf_counter() - start
        watching.set()
        await watcher
        seen.update(cpu_seconds())
        cpu = cpu_share(cpu_before, seen, elapsed)
        snapshot = [(c.moves, list(c.post_ms), list(c.get_ms), dict(c.errors))
                    for c in clients]
        stop.set()
        await asyncio.wait(tasks, timeout=60)
        return elapsed, snapshot, cpu

    # The load generator must not pause: a full collection of this process's heap (Django and
    # the tables set up here) took 80 ms, during which the answers of all the clients waited
    # unread and their latencies grew by as much: about 1 % of them, enough to move the p99.
    # Everything alive now is left out of collections, and none runs during the measured run
    # (what the clients leave behind in 15 s is a few MB); collected again after it.
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        elapsed, snapshot, cpu = asyncio.run(measure())
    finally:
        gc.enable()
        gc.unfreeze()
        gc.collect()
    moves = sum(s[0] for s in snapshot)
    post = [ms for s in snapshot for ms in s[1]]
    get = [ms for s in snapshot for ms in s[2]]
    errors: dict[int, int] = {}
    for s in snapshot:
        for code, n in s[3].items():
            errors[code] = errors.get(code, 0) + n
    return {"moves_per_s": moves / elapsed,
            "post": [percentile(post, q) for q in (0.5, 0.95, 0.99)],
            "get": [percentile(get, q) for q in (0.5, 0.95, 0.99)],
            "errors": errors, "cpu": cpu}


def levels(text: str) -> list[int]:
    """``"10,50"`` → ``[10, 50]``; empty or zero levels are left out (``--long-clients 0``)."""
    return [n for n in (int(x) for x in text.split(",") if x.strip()) if n > 0]


def report(label: str, result: dict) -> None:
    post, get = result["post"], result["get"]
    errors = f"  non-201: {result['errors']}" if result["errors"] else ""
    print(f"{label:<34} {result['moves_per_s']:8.1f} moves/s   "
          f"POST /moves/ p50 {post[0]:6.1f}  p95 {post[1]:6.1f}  p99 {post[2]:6.1f} ms   "
          f"GET /games/{{id}}/ p50 {get[0]:6.1f}  p95 {get[1]:6.1f}  p99 {get[2]:6.1f} ms"
          f"{errors}", flush=True)
    if result["cpu"] and result["moves_per_s"]:
        share = "  ".join(f"{name} {used * 100:.0f} % ({used * 1000 / result['moves_per_s']:.1f}"
                          f" ms/move)" for name, used in result["cpu"].items())
        print(f"{'':<34} cores busy: {share}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--clients", default="10,50,200")
    parser.add_argument("--long-clients", default="10,50")
    parser.add_argument("--long-moves", type=int, default=1000)
    parser.add_argument("--rate", default="",
                        help="moves/s offered by the clients together, on a schedule: runs at "
                             "each of these rates (e.g. 150,200) after the closed-loop ones")
    args = parser.parse_args()
    db_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    env = server_env(db_url)
    fresh_database(db_url, env)
    # (VAR_DIR too: the start mails of the games set up here are queued in the bench's own
    # var/, not in the queue that `make run`'s worker would then have to work through first)
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "DEBUG", "SECRET_KEY",
                                            "ALLOWED_HOSTS", "DJANGO_SETTINGS_MODULE",
                                            "VAR_DIR")})
    import django

    django.setup()
    from django.db import connection

    port = free_port()
    server = start_gunicorn(env, port)
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

        print(f"gunicorn 2 workers on 127.0.0.1:{port}, PostgreSQL {urlsplit(db_url).path[1:]}, "
              f"cache {'Redis' if os.environ.get('REDIS_URL') else 'local memory'}; "
              f"{args.seconds:.0f} s per run; {os.cpu_count()} cores", flush=True)
        for n in levels(args.clients):
            tables = make_tables(n, f"n{n}x")
            # random games end after about 40 moves: enough new ones for the run at up to
            # 600 moves/s (more are made during the run if need be, which slows it)
            wanted = int(args.seconds * 15) + n
            spares[:] = make_tables(wanted, f"s{n}x")
            analyze()
            report(f"{n:>3} clients, new games, random bot", run_level(
                port, tables, "random", args.seconds, spare))
            for rate in [float(r) for r in args.rate.split(",") if r.strip()]:
                tables = make_tables(n, f"r{n}x{rate:g}x")
                spares[:] = make_tables(int(args.seconds * rate / 30) + n, f"t{n}x{rate:g}x")
                analyze()
                report(f"{n:>3} clients, {rate:g} moves/s offered", run_level(
                    port, tables, "random", args.seconds, spare, rate))
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
