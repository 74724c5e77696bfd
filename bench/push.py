"""bench/api.py's push mode (``bench/api.py --push``): clients that never read a game. Each
client plays games of four seats whose four users it holds; it listens to the four users'
``/api/v1/me/stream/`` (served by uvicorn beside the web server, as in production, woken through
Redis) and answers each ``decision`` with one ``POST /moves/`` over one kept-alive connection to
the web server, carrying the decision's ``seq`` as ``expected_seq``; when the answer shows that the
mover must decide again (a Spy's swap, a challenge...), it answers from the answer's own
``you.legal_moves``. A client whose game ended goes on with another game of its four users,
made before the run (the streams already told it that game's first decision).

The runs: the open loop first (``--open-clients``, 50, offering ``--push-rates``, 300 and 600
moves/s together, on a schedule from a random phase; a move's time counts from its due time to
its answer, the wait for its decision included), then the closed loop at each of ``--clients``
(10, 50, 200). Each prints moves/s, the ``POST`` p50/p95/p99 (from its sending), the cores used
by the web server, uvicorn, PostgreSQL, Redis and the clients, and per move; and how the clients'
connections were shared between the web server's workers, read from /proc at the run's end, with
the lowest and highest mean ``POST`` of each worker's clients (a worker keeps the connections it
accepted: in a closed loop, the clients of the one that holds more wait longer). Before them, the
statements one move costs, counted in this process: the ``POST`` through Django's WSGI handler
(bench/api_cpu.py's count: psycopg's cursors, BEGIN and COMMIT included) and the step of the
awaited player's stream that sends the next decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]

#: Moves a random game lasts, about (spare games are made for the moves a run may play).
GAME_MOVES = 35


def raise_file_limit() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def start_uvicorn(env: dict[str, str], port: int) -> subprocess.Popen:
    """The stream server as docker/start-stream.sh runs it (one process)."""
    from api import answering

    uvicorn = Path(sys.executable).with_name("uvicorn")
    proc = subprocess.Popen(
        [str(uvicorn), "mascarade_site.asgi:application", "--host", "127.0.0.1", "--port",
         str(port), "--workers", "1", "--loop", "uvloop", "--http", "httptools",
         "--timeout-keep-alive", "30", "--timeout-graceful-shutdown", "2", "--no-access-log",
         "--log-level", "warning"],
        cwd=ROOT, env={**env, "STREAM_MAX_PER_USER": "1000"}, preexec_fn=raise_file_limit)
    return answering(proc, port, "/healthz", "uvicorn")


def make_groups(count: int, games: int, tag: str) -> list[dict]:
    """``count`` groups of four users (with their tokens), each seated at ``games`` started
    games of four."""
    from accounts.models import User
    from games.api.tokens import new_token
    from games.core import services

    users = User.objects.bulk_create([User(username=f"{tag}{i}", email=f"{tag}{i}@bench.test")
                                      for i in range(4 * count)])
    groups = []
    for k in range(count):
        seated = users[4 * k:4 * k + 4]
        ids = []
        for _ in range(games):
            game_id = services.create_game(seated[0], "mascarade", {"players": 4}).body["id"]
            for user in seated[1:]:
                services.join_game(user, game_id)
            ids.append(game_id)
        groups.append({"tokens": {u.username: new_token(u)[1] for u in seated}, "games": ids})
    return groups


class _Stream(asyncio.Protocol):
    """A user's ``/me/stream/``, each ``decision`` handed to ``on_decision``."""

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
            status = self.buffer[:end].split(b" ", 2)[1]
            if status != b"200":
                self.opened.set_exception(RuntimeError(f"stream refused: {self.buffer[:200]!r}"))
                return
            self.head, self.buffer = False, self.buffer[end + 4:]
            self.opened.set_result(None)
        # (uvicorn answers in chunks, HTTP/1.0 or not: each message is one chunk, so the
        # chunks' size lines come between messages, never inside one)
        *messages, self.buffer = self.buffer.split(b"\n\n")
        for message in messages:
            at = message.find(b"event: decision\ndata: ")
            if at >= 0:
                self.on_decision(orjson.loads(message[at + 22:]))

    def connection_lost(self, exc) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionResetError("stream closed"))


class PushClient:
    """One client: its four users' streams, one kept-alive connection for its moves."""

    def __init__(self, api_port: int, stream_port: int, group: dict, seed: int,
                 interval: float = 0.0):
        from api import _KeptAlive

        self.kept_alive = _KeptAlive
        self.api_port, self.stream_port, self.group = api_port, stream_port, group
        self.games = list(group["games"])
        self.rng = random.Random(seed)
        self.interval = interval
        self.latest: dict[str, dict] = {}  # game → the newest decision told for it
        self.news = asyncio.Event()
        self.streams: list[_Stream] = []
        self.conn = None
        self.post_ms: list[float] = []
        self.move_ms: list[float] = []
        self.moves = 0
        self.errors: dict[int, int] = {}
        self.due: float | None = None
        self.move_due: float | None = None

    def told(self, user: str, decision: dict) -> None:
        known = self.latest.get(decision["game"])
        if known is None or decision["seq"] >= known["seq"]:
            self.latest[decision["game"]] = {**decision, "user": user}
            self.news.set()

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        for user, token in self.group["tokens"].items():
            _t, stream = await loop.create_connection(
                lambda token=token, user=user: _Stream(token, lambda d, u=user: self.told(u, d)),
                "127.0.0.1", self.stream_port)
            self.streams.append(stream)
        await asyncio.gather(*(s.opened for s in self.streams))
        _t, self.conn = await loop.create_connection(self.kept_alive, "127.0.0.1", self.api_port)

    def port(self) -> int | None:
        """The local port of this client's connection to the web server, if open."""
        if self.conn is None or self.conn.closed or self.conn.transport is None:
            return None
        sockname = self.conn.transport.get_extra_info("sockname")
        return sockname[1] if sockname else None

    def close(self) -> None:
        for stream in self.streams:
            if stream.transport is not None:
                stream.transport.close()
        if self.conn is not None and not self.conn.closed:
            self.conn.transport.close()

    async def post(self, path: str, token: str, body: dict) -> tuple[int, dict, float]:
        data = orjson.dumps(body)
        request = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {token}\r\n"
                   f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
                   ).encode() + data
        loop = asyncio.get_running_loop()
        start = time.perf_counter()
        if self.conn.closed:
            _t, self.conn = await loop.create_connection(self.kept_alive, "127.0.0.1",
                                                         self.api_port)
        done = loop.create_future()
        self.conn.send(request, done)
        raw = await done
        elapsed = (time.perf_counter() - start) * 1000
        head, _sep, payload = raw.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        return status, (orjson.loads(payload) if payload else {}), elapsed

    async def decision(self, game: str, at_least: int, stop: asyncio.Event) -> dict | None:
        while not stop.is_set():
            known = self.latest.get(game)
            if known is not None and known["seq"] >= at_least and known["legal_moves"]:
                return known
            self.news.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.news.wait(), 1.0)
        return None

    async def run(self, stop: asyncio.Event) -> None:
        from games.core.catalog import get_bot

        bot = get_bot("mascarade", "random")
        game, at_least = self.games.pop(0), 0
        self.due = time.perf_counter() + self.rng.random() * self.interval
        try:
            while not stop.is_set():
                if self.interval and self.move_due is None:
                    await asyncio.sleep(max(0.0, self.due - time.perf_counter()))
                    self.move_due = self.due
                    self.due += self.interval
                told = await self.decision(game, at_least, stop)
                if told is None:
                    break
                move = bot.choose({}, told["legal_moves"], [], self.rng)
                token = self.group["tokens"][told["user"]]
                status, answer, ms = await self.post(f"/api/v1/games/{game}/moves/", token,
                                                     {"move": move, "expected_seq": told["seq"]})
                move_due, self.move_due = self.move_due, None
                if stop.is_set():
                    break
                self.post_ms.append(ms)
                if status != 201:
                    self.errors[status] = self.errors.get(status, 0) + 1
                    at_least = max(told["seq"] + 1, answer.get("seq", 0))
                    continue
                self.moves += 1
                if move_due is not None:
                    self.move_ms.append((time.perf_counter() - move_due) * 1000)
                read = answer["game"]
                at_least = answer["seq"]
                if read["status"] != "active":
                    if not self.games:
                        raise SystemExit("bench/push.py: a client ran out of games")
                    game, at_least = self.games.pop(0), 0
                    continue
                mine = (read.get("you") or {}).get("legal_moves")
                if mine:  # the mover decides again: no need to be told
                    self.latest[game] = {"seq": read["seq"], "legal_moves": mine,
                                         "user": told["user"], "game": game}
        finally:
            self.close()


def run_push(api_port: int, stream_port: int, groups: list[dict],
             seconds: float, warm: float, rate: float = 0.0) -> dict:
    from api import LATE_MS, measure_cpu, percentile, run_without_collections, web_worker_of

    interval = len(groups) / rate if rate else 0.0
    clients = [PushClient(api_port, stream_port, group, i, interval)
               for i, group in enumerate(groups)]

    async def measure():
        for k in range(0, len(clients), 25):  # (the streams open a few at a time)
            await asyncio.gather(*(c.open() for c in clients[k:k + 25]))
        stop = asyncio.Event()
        tasks = [asyncio.create_task(c.run(stop)) for c in clients]
        await asyncio.sleep(warm)
        for c in clients:
            c.post_ms.clear()
            c.move_ms.clear()
            c.moves = 0
            c.errors.clear()
        elapsed, cpu = await measure_cpu(seconds)
        snapshot = [(c.moves, list(c.post_ms), dict(c.errors), list(c.move_ms)) for c in clients]
        ports = [c.port() for c in clients]
        workers = web_worker_of({port for port in ports if port})
        stop.set()
        await asyncio.wait(tasks, timeout=30)
        for task in tasks:
            if task.done() and task.exception() is not None:
                raise task.exception()
        return elapsed, snapshot, cpu, [workers.get(port) for port in ports]

    elapsed, snapshot, cpu, worker = run_without_collections(measure)
    post = [ms for s in snapshot for ms in s[1]]
    errors: dict[int, int] = {}
    for s in snapshot:
        for code, n in s[2].items():
            errors[code] = errors.get(code, 0) + n
    result = {"moves_per_s": sum(s[0] for s in snapshot) / elapsed,
              "post": [percentile(post, q) for q in (0.5, 0.95, 0.99)], "errors": errors,
              "cpu": cpu, "workers": by_worker(snapshot, worker)}
    if rate:
        answered = [ms for s in snapshot for ms in s[3]]
        result.update(offered=rate, move=[percentile(answered, q) for q in (0.5, 0.95, 0.99)],
                      late=sum(ms > LATE_MS for ms in answered), answered=len(answered))
    return result


def by_worker(snapshot: list, worker: list[int | None]) -> list[tuple[int, float, float]]:
    """For each web worker (the busiest first): how many of the clients' connections it held,
    and the lowest and highest of those clients' mean ``POST`` latency (ms)."""
    means: dict[int, list[float]] = {}
    for (_moves, post_ms, _errors, _move_ms), pid in zip(snapshot, worker, strict=True):
        if pid is not None and post_ms:
            means.setdefault(pid, []).append(sum(post_ms) / len(post_ms))
    return sorted(((len(m), min(m), max(m)) for m in means.values()), reverse=True)


def report(label: str, result: dict) -> None:
    from api import LATE_MS

    post = result["post"]
    errors = f"  non-201: {result['errors']}" if result["errors"] else ""
    print(f"{label:<40} {result['moves_per_s']:8.1f} moves/s   POST /moves/ p50 {post[0]:6.1f}"
          f"  p95 {post[1]:6.1f}  p99 {post[2]:6.1f} ms{errors}", flush=True)
    if "offered" in result:
        move = result["move"]
        print(f"{'':<40} a move from its due time to its answer: p50 {move[0]:6.1f}  "
              f"p95 {move[1]:6.1f}  p99 {move[2]:6.1f} ms; late by over {LATE_MS:.0f} ms: "
              f"{result['late']} of {result['answered']}", flush=True)
    if len(result["workers"]) > 1:
        print(f"{'':<40} the web workers' share of the connections: "
              + ", ".join(f"{n} (a client's mean POST {low:.0f} to {high:.0f} ms)"
                          for n, low, high in result["workers"]), flush=True)
    if result["moves_per_s"]:
        share = "  ".join(f"{name} {used * 100:.0f} %" + (
            "" if name == "others" else f" ({used * 1000 / result['moves_per_s']:.2f} ms/move)")
            for name, used in result["cpu"].items())
        print(f"{'':<40} cores busy: {share}", flush=True)


def statements_per_move(groups: list[dict]) -> tuple[float, float]:
    """The statements of a move's ``POST`` (through Django's WSGI handler, as the web server calls
    it) and of the awaited player's stream step that tells the next decision (woken by the
    messages that ``POST`` published), counted in this process over a few moves of one group's
    games."""
    import statistics

    from api_cpu import TRANSACTION_ENTRIES, sent_statements, the_server
    from django.conf import settings
    from django.db import connection

    from accounts.models import User
    from games.core import selectors
    from games.core.catalog import get_bot
    from games.live import push
    from games.live.streams import UserStream, Viewer

    settings.SECURE_SSL_REDIRECT = False  # (this process's settings are DEBUG=0's)
    bot = get_bot("mascarade", "random")
    rng = random.Random(3)
    server = the_server()
    group = groups[0]
    posts, steps = [], []
    users = {u.username: u for u in User.objects.filter(username__in=list(group["tokens"]))}
    streams = {name: UserStream(Viewer(user)) for name, user in users.items()}
    for stream in streams.values():
        stream.step(None, False)
    for game_id in group["games"][:3]:
        for _ in range(10):
            game = selectors.find_game(game_id)
            if game.status != "active":
                break
            row = game.pending_decisions.order_by("player").first()
            user = game.seats.get(position=row.player).user
            loaded = selectors.load_for_viewer(game, user)
            move = bot.choose({}, selectors.legal_moves_payload(loaded, user)["moves"], [], rng)
            body = orjson.dumps({"move": move, "expected_seq": game.seq})
            connection.force_debug_cursor = True
            connection.queries_log.clear()
            published: list[tuple[str, dict]] = []
            publish, push.publish = push.publish, published.extend
            try:
                with sent_statements() as sent:
                    status, _content = server.request("POST", f"/api/v1/games/{game_id}/moves/",
                                                      group["tokens"][user.username], body)
            finally:
                connection.force_debug_cursor = False
                push.publish = publish
            if status != 201:
                raise SystemExit(f"bench/push.py: a move refused: {status} {_content[:300]!r}")
            posts.append(sent[0] + sum(q["sql"] in TRANSACTION_ENTRIES
                                       for q in connection.queries_log))
            game = selectors.find_game(game_id)
            row = game.pending_decisions.order_by("player").first()
            if row is None or row.user_id is None:
                continue
            name = next(n for n, u in users.items() if u.pk == row.user_id)
            mine = [message for channel, message in published
                    if channel == push.user_channel(row.user_id)]
            with sent_statements() as sent:
                told = streams[name].step(mine, False)
            if told.messages:
                steps.append(sent[0])
    return statistics.fmean(posts), statistics.fmean(steps)


def main(args, env: dict[str, str], api_port: int, analyze) -> None:
    """The push runs (called by bench/api.py with its server up and Django set up)."""
    from urllib.parse import urlsplit

    import api
    from api import free_port, levels, rates, warm_up

    # (this module's copy of bench/api.py, imported by name, counts the bench's own backends)
    api.BENCH_DB = urlsplit(env["DATABASE_URL"]).path.lstrip("/").encode()
    raise_file_limit()
    if not env.get("REDIS_URL"):
        print("push mode: without REDIS_URL the streams poll the database every second; "
              "set REDIS_URL for the figures of production", flush=True)
    stream_port = free_port()
    stream_server = start_uvicorn(env, stream_port)
    warm = warm_up(args.seconds)
    tags = iter(range(10**6))

    def groups_for(clients: int, rate: float) -> list[dict]:
        moves = (args.seconds + warm) * rate * 1.3
        games = int(moves / GAME_MOVES / clients) + 2
        made = make_groups(clients, games, f"p{next(tags)}x")
        analyze()
        return made

    try:
        posts, steps = statements_per_move(make_groups(1, 3, "pstmt"))
        print(f"\nPUSH: each client listens to its four users' /me/stream/ (uvicorn, 1 process, "
              f"on 127.0.0.1:{stream_port}) and answers each decision with one POST over a "
              f"kept-alive connection; no read. Statements per move: POST /moves/ {posts:.1f}, "
              f"the stream's step telling the next decision {steps:.1f}", flush=True)
        n = args.open_clients
        if n > 0:
            for rate in rates(args.push_rates):
                report(f"{n:>3} clients, offered {rate:5g} moves/s",
                       run_push(api_port, stream_port,
                                groups_for(n, rate), args.seconds, warm, rate))
        for clients in levels(args.clients):  # (--clients 0: no closed-loop run)
            report(f"{clients:>3} clients, closed loop",
                   run_push(api_port, stream_port,
                            groups_for(clients, 700.0), args.seconds, warm))
    finally:
        stream_server.terminate()
        stream_server.wait(10)
