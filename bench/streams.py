"""Event streams at scale: one stream server process holding ``--streams`` idle authenticated
streams (5,000 by default), and one move reaching them.

    .venv/bin/python bench/streams.py [--streams 5000] [--me-streams 1000] [--idle 60]
                                      [--heartbeat SECONDS] [--check SECONDS]

The servers are started here and stopped at the end, as ``bench/api.py`` starts them (its
``Servers``): a PostgreSQL cluster and a Redis of their own in a temporary folder, and ONE stream
server: the ``exec uvicorn`` line of ``docker/start-stream.sh``, its variables at their defaults
(one worker), connected to PostgreSQL as the role ``stream``. No web server: the users, their
API tokens (django-rest-knox) and the games are made by this process through the ORM and the
game services, and the move too (``games.core.services.submit_move``, the write path under
``POST /moves/``), against the same database and Redis.

The streams, each of its own user and its own connection, authenticated by ``Authorization:
Token``, held by this process (one asyncio protocol per connection, no reader objects):

- ``--streams`` minus ``--me-streams`` game streams (``/api/v1/games/{id}/stream/``) of one public
  game of Mascarade: its four players and, for the rest, spectators with an account;
- ``--me-streams`` user streams (``/api/v1/me/stream/``): the four players' own, and those of
  users each seated at a game of their own (with three bots, which nobody plays here).

It prints, for the stream process: its memory (``VmRSS``) before the streams (after a few
opened and closed, so that what a first stream loads is not counted) and with them, and so per
stream; its open file descriptors (``/proc/<pid>/fd``) and, among them, its connections to
PostgreSQL and to Redis; the connections ``pg_stat_activity`` shows for its role; its threads.
Then, the streams idle for ``--idle`` seconds (one full check's interval by default): the CPU
the process used and the SQL statements it ran (``pg_stat_statements``), per second. Then one
move in the watched game: the time from the call of the move service to each game stream's
``event: move`` (p50, p99, max; and from the commit), and to the ``decision`` on the next
player's ``/me/stream/`` when one is told.

The file descriptor limit of this process is raised to its hard limit (the stream process, its
child, inherits it); both are printed, and too low a hard limit stops the script.
``--heartbeat`` and ``--check`` set the stream server's ``STREAM_HEARTBEAT_SECONDS`` and
``STREAM_CHECK_SECONDS`` (a long check interval measures a move's fan-out apart from the full
checks). ``--port-base P`` serves PostgreSQL,
Redis and the stream server on P, P+1, P+2 (default: free ports).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

from _common import bench_module

ROOT = Path(__file__).resolve().parents[1]
#: The game every game stream watches, and whose move is measured, has this many seats.
SEATS = 4
#: Streams being opened at once (each is one authentication and one first step on the stream
#: process's database threads).
OPENING = 100


# --------------------------------------------------------------------------------------------
# The stream process, read from /proc


def status(pid: int) -> dict[str, int]:
    """``VmRSS``, ``VmHWM`` (kB) and ``Threads`` of ``pid``."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            name, _sep, value = line.partition(":")
            if name in ("VmRSS", "VmHWM", "Threads"):
                out[name] = int(value.split()[0])
    return out


def sockets_to(pid: int, ports: dict[str, int]) -> dict[str, int]:
    """The open file descriptors of ``pid`` (``"fds"``) and, by name, how many of them are TCP
    connections to each of ``ports`` (from its sockets' inodes and /proc/net/tcp)."""
    inodes = set()
    fds = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        fds += 1
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    by_port = {f"{port:04X}": name for name, port in ports.items()}
    out = {"fds": fds, **dict.fromkeys(ports, 0)}
    for table in ("tcp", "tcp6"):
        try:
            with open(f"/proc/{pid}/net/{table}") as f:
                next(f)
                for line in f:
                    fields = line.split()
                    remote_port = fields[2].rsplit(":", 1)[1]
                    if fields[9] in inodes and remote_port in by_port:
                        out[by_port[remote_port]] += 1
        except OSError:
            continue
    return out


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --------------------------------------------------------------------------------------------
# The clients


class Stream(asyncio.Protocol):
    """One stream held open: its answer's status, and when it first sent each watched event
    after :meth:`arm`."""

    def __init__(self, path: str, token: str):
        # (a user stream with nothing to tell sends nothing before its first heartbeat: its
        # ``retry:`` line, sent once it listens, will do; a game stream's first ``event: game``
        # sets its cursor, which a move must not precede)
        self.ready = (b"retry:",) if path.endswith("/me/stream/") else (b"event:", b": heartbeat")
        self.request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream"
                        f"\r\nAuthorization: Token {token}\r\n\r\n").encode()
        loop = asyncio.get_running_loop()
        self.opened = loop.create_future()
        self.first = loop.create_future()  # once it is ready (:attr:`ready`)
        self.head = True
        self.buffer = b""
        self.watch: bytes | None = None
        self.seen: float | None = None
        self.got = loop.create_future()
        self.heartbeats = 0
        self.transport = None

    def connection_made(self, transport) -> None:
        self.transport = transport
        transport.write(self.request)

    def arm(self, marker: bytes) -> None:
        self.watch, self.seen = marker, None
        self.got = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if self.head:
            self.buffer += data
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            code = self.buffer[:end].split(b" ", 2)[1]
            if code != b"200":
                if not self.opened.done():
                    self.opened.set_exception(RuntimeError(f"{code.decode()}: "
                                                           f"{self.buffer[:300]!r}"))
                self.transport.close()
                return
            self.head, data, self.buffer = False, self.buffer[end + 4:], b""
            if not self.opened.done():
                self.opened.set_result(None)
        self.heartbeats += data.count(b": heartbeat")
        if not self.first.done() and any(marker in data for marker in self.ready):
            self.first.set_result(None)
        # (the markers are short and each message comes in one chunk: no need to keep a tail)
        if self.watch is not None and self.seen is None and self.watch in data:
            self.seen = now
            if not self.got.done():
                self.got.set_result(now)

    def connection_lost(self, exc) -> None:
        for future in (self.opened, self.first):
            if not future.done():
                future.set_exception(exc or ConnectionResetError("the stream ended"))


async def open_streams(port: int, wanted: list[tuple[str, str]], within: float,
                       progress: bool = False) -> tuple[list[Stream], list]:
    """Opens a stream for each ``(path, token)``, :data:`OPENING` at a time, and waits until
    each one is ready (:attr:`Stream.ready`), for at most ``within`` seconds in all (those not open
    by then are counted as failed, and closed). ``(streams opened, errors)``."""
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(OPENING)
    streams: list[Stream] = []
    errors: list[str] = []
    started = time.perf_counter()

    async def one(path: str, token: str) -> None:
        async with gate:
            stream = None
            try:
                _transport, stream = await loop.create_connection(
                    lambda: Stream(path, token), "127.0.0.1", port)
                await stream.opened
                await stream.first
                streams.append(stream)
                if progress and len(streams) % 1000 == 0:
                    print(f"  {len(streams):,} streams open after "
                          f"{time.perf_counter() - started:.0f} s", flush=True)
            except Exception as exc:  # (counted, and the first printed)
                errors.append(f"{path}: {exc!r}"[:300])
            except asyncio.CancelledError:
                errors.append(f"{path}: not open after {within:g} s")
                if stream is not None:
                    stream.transport.close()
                raise

    tasks = [asyncio.ensure_future(one(path, token)) for path, token in wanted]
    _done, late = await asyncio.wait(tasks, timeout=within)
    for task in late:
        task.cancel()
    await asyncio.gather(*late, return_exceptions=True)
    return streams, errors


# --------------------------------------------------------------------------------------------
# The data, made through the ORM and the services (this process is set up as the site)


def make_users(count: int) -> list[tuple[object, str]]:
    """``count`` users, each with an API token: ``(user, token)``."""
    from django.db import transaction
    from knox.models import AuthToken

    from accounts.models import User

    users = User.objects.bulk_create([User(username=f"s{i}", email=f"s{i}@bench.test")
                                      for i in range(count)])
    with transaction.atomic():
        return [(user, AuthToken.objects.create(user, expiry=None)[1]) for user in users]


def make_games(players: list, others: list) -> str:
    """The watched game (public, ``players`` at its seats, started) and a game with three bots
    for each of ``others``; the watched game's id."""
    from games.core import services

    body = services.create_game(players[0], "mascarade", {"players": SEATS}).body
    for user in players[1:]:
        services.join_game(user, body["id"])
    for user in others:
        services.create_game(user, "mascarade", {"players": SEATS}, bots=SEATS - 1)
    return str(body["id"])


def move(game_id: str, users: dict) -> tuple[int, int | None, float]:
    """One move in ``game_id`` by the player it awaits (a random legal one, through the move
    service): ``(the game's new seq, the user id of a human now awaited or None, when it
    committed)``."""
    from games.core import selectors, services
    from games.core.catalog import get_game
    from games.models import PendingDecision

    game = selectors.find_game(game_id)
    pending = PendingDecision.objects.filter(game_id=game_id).order_by("player").first()
    legal = get_game(game.kind).legal_moves(selectors.load_state(game), pending.player)
    outcome = services.submit_move(game.pk, random.Random(7).choice(legal),
                                   user=users[pending.user_id], expected_seq=game.seq)
    committed = time.perf_counter()
    after = PendingDecision.objects.filter(game_id=game_id, bot=False).order_by("player").first()
    return outcome.body["seq"], (after.user_id if after else None), committed


# --------------------------------------------------------------------------------------------


def raise_fd_limit(needed: int) -> tuple[int, int]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, needed)
    if target < needed:
        raise SystemExit(f"bench/streams.py: {needed} file descriptors needed, the hard limit "
                         f"is {hard}: raise it (ulimit -Hn, as root) or pass fewer --streams")
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return target, hard


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


async def run(args, servers, percentile) -> None:
    from asgiref.sync import sync_to_async

    loop = asyncio.get_running_loop()
    pid = servers.procs["stream"].pid
    port = servers.ports["stream"]
    watched_ports = {"postgres": servers.ports["postgres"], "redis": servers.ports["redis"]}
    games_streams = args.streams - args.me_streams
    spectators = games_streams - SEATS
    others = args.me_streams - SEATS

    t = time.perf_counter()
    made = await sync_to_async(make_users)(SEATS + others + spectators)
    players, rest = made[:SEATS], made[SEATS:]
    seated, watching = rest[:others], rest[others:]
    game_id = await sync_to_async(make_games)([u for u, _ in players], [u for u, _ in seated])
    print(f"{len(made):,} users with their tokens, the watched game and {others:,} games with "
          f"bots made in {time.perf_counter() - t:.1f} s", flush=True)
    game_path = f"/api/v1/games/{game_id}/stream/"
    me_path = "/api/v1/me/stream/"

    # A few streams opened and closed: what a first stream loads is not counted per stream.
    warm, errors = await open_streams(port, [(game_path, tok) for _u, tok in players]
                                      + [(me_path, tok) for _u, tok in players], 60)
    if errors:
        raise SystemExit(f"bench/streams.py: the first streams failed: {errors[:3]}")
    for stream in warm:
        stream.transport.close()
    await asyncio.sleep(2)
    before = status(pid)
    before_sockets = sockets_to(pid, watched_ports)

    wanted = ([(game_path, tok) for _u, tok in players] + [(me_path, tok) for _u, tok in players]
              + [(me_path, tok) for _u, tok in seated]
              + [(game_path, tok) for _u, tok in watching])
    t = time.perf_counter()
    streams, errors = await open_streams(port, wanted, args.open_within, progress=True)
    opening = time.perf_counter() - t
    print(f"{len(streams):,} of {len(wanted):,} streams opened in {opening:.1f} s "
          f"({games_streams:,} of the watched game, {args.me_streams:,} /me/stream/)"
          + (f"; {len(errors)} failed, e.g. {errors[0]}" if errors else ""), flush=True)
    await asyncio.sleep(3)
    after = status(pid)
    sockets = sockets_to(pid, watched_ports)
    held = await servers.apsql("SELECT count(*) FROM pg_stat_activity WHERE usename = 'stream'",
                               "mascarade_bench")
    per_stream = (after["VmRSS"] - before["VmRSS"]) / max(len(streams), 1)
    print(f"stream process (pid {pid}): memory {before['VmRSS'] / 1024:,.1f} MB before the "
          f"streams, {after['VmRSS'] / 1024:,.1f} MB with them (peak {after['VmHWM'] / 1024:,.1f} "
          f"MB): {per_stream:.1f} kB per stream", flush=True)
    print(f"  file descriptors: {before_sockets['fds']:,} before, {sockets['fds']:,} with the "
          f"streams; connections to PostgreSQL {sockets['postgres']} (pg_stat_activity, role "
          f"stream: {held[0]}), to Redis {sockets['redis']}; threads {after['Threads']}",
          flush=True)

    # Idle: the heartbeats and the periodic full checks only.
    from django.conf import settings

    heartbeat = args.heartbeat or settings.STREAM_HEARTBEAT_SECONDS
    await servers.apsql("SELECT pg_stat_statements_reset()")
    beats = sum(stream.heartbeats for stream in streams)
    cpu, t = cpu_seconds(pid), time.perf_counter()
    await asyncio.sleep(args.idle)
    idle = time.perf_counter() - t
    used = cpu_seconds(pid) - cpu
    beats = sum(stream.heartbeats for stream in streams) - beats
    counted = await servers.apsql(
        "SELECT coalesce(sum(s.calls), 0) FROM pg_stat_statements s JOIN pg_roles r "
        "ON r.oid = s.userid WHERE r.rolname = 'stream'")
    print(f"idle for {idle:.0f} s: the stream process used {used / idle:.0%} of a core, ran "
          f"{int(counted[0]) / idle:,.0f} SQL statements/s; {beats:,} heartbeats received "
          f"({beats / max(len(streams), 1) / idle * heartbeat:.2f} per stream per "
          f"{heartbeat:g} s)", flush=True)

    # One move.
    game_streams = [s for s in streams if s.request.startswith(f"GET {game_path}".encode())]
    me_streams = {s.request.split(b"Token ")[1].split(b"\r\n")[0].decode(): s for s in streams
                  if s.request.startswith(f"GET {me_path}".encode())}
    token_of = {user.pk: token for user, token in made}
    users = {user.pk: user for user, _token in made}
    for stream in game_streams:
        stream.arm(b"event: move")
    for stream in me_streams.values():
        stream.arm(b"event: decision")
    cpu = cpu_seconds(pid)
    start = time.perf_counter()
    seq, awaited, committed = await loop.run_in_executor(None, move, game_id, users)
    pending = [s.got for s in game_streams]
    if pending:
        await asyncio.wait(pending, timeout=args.wait)
    reached = [s.seen - start for s in game_streams if s.seen is not None]
    decided = me_streams.get(token_of.get(awaited, ""))
    print(f"one move (seq {seq}), the service called to its commit in {ms(committed - start)}; "
          f"its event: move reached {len(reached):,} of {len(game_streams):,} game streams: "
          f"p50 {ms(percentile(reached, 0.5))}, p99 {ms(percentile(reached, 0.99))}, max "
          f"{ms(max(reached)) if reached else 'none'} (from the call; the last one "
          f"{ms(max(reached) - (committed - start)) if reached else 'none'} after the commit); "
          f"the stream process used {cpu_seconds(pid) - cpu:.2f} s of CPU meanwhile",
          flush=True)
    if decided is not None and decided.seen is not None:
        print(f"  the next player's /me/stream/ got the decision in {ms(decided.seen - start)}",
              flush=True)
    peak = status(pid)
    print(f"  stream process after the move: {peak['VmRSS'] / 1024:,.1f} MB (peak "
          f"{peak['VmHWM'] / 1024:,.1f} MB), connections to PostgreSQL "
          f"{sockets_to(pid, watched_ports)['postgres']}", flush=True)
    for stream in streams:
        stream.transport.close()
    await asyncio.sleep(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=5000, help="streams held (5000)")
    parser.add_argument("--me-streams", type=int, default=1000,
                        help="of which /me/stream/ (1000); the rest watch one game")
    parser.add_argument("--idle", type=float, default=60,
                        help="seconds the idle streams are watched (60: one full check's "
                             "interval)")
    parser.add_argument("--open-within", type=float, default=900,
                        help="the longest wait for the streams to open (900 s); those not "
                             "open by then are counted as failed")
    parser.add_argument("--wait", type=float, default=120,
                        help="the longest wait for a move to reach every stream (120 s)")
    parser.add_argument("--heartbeat", type=float, default=0,
                        help="the stream server's STREAM_HEARTBEAT_SECONDS (default: the "
                             "settings', 15)")
    parser.add_argument("--check", type=float, default=0,
                        help="the stream server's STREAM_CHECK_SECONDS (default: the "
                             "settings', 60): a long one leaves a move's fan-out alone, "
                             "without the full checks")
    parser.add_argument("--port-base", type=int, default=0,
                        help="PostgreSQL, Redis and the stream server on this port and the "
                             "next two (default: free ports)")
    args = parser.parse_args()
    if not SEATS <= args.me_streams <= args.streams - SEATS:
        parser.error(f"--me-streams: between {SEATS} and --streams minus {SEATS}")
    soft, hard = raise_fd_limit(args.streams + 500)
    print(f"file descriptors: this process and the stream server may open {soft:,} (hard limit "
          f"{hard:,})", flush=True)
    api = bench_module("api")
    servers = api.Servers(ROOT)
    if args.port_base:
        servers.ports.update(postgres=args.port_base, redis=args.port_base + 1,
                             stream=args.port_base + 2)
    try:
        servers.start_postgres()
        servers.start_redis()
        env = servers.env("postgres")
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
                       cwd=ROOT, env=env, check=True)
        command = api.script_command(ROOT, "start-stream.sh", "uvicorn", servers.ports["stream"])
        stream_env = servers.env("stream")
        if args.heartbeat:
            stream_env["STREAM_HEARTBEAT_SECONDS"] = f"{args.heartbeat:g}"
        if args.check:
            stream_env["STREAM_CHECK_SECONDS"] = f"{args.check:g}"
        servers.launch("stream", [*command, "--log-level", "warning"], stream_env)
        servers.ready("stream", lambda: api.answers(servers.ports["stream"], "/healthz"))
        os.environ.update(env)
        import django

        django.setup()
        from django.conf import settings

        print("load average (1, 5, 15 min) at the start: "
              + ", ".join(f"{x:.1f}" for x in os.getloadavg()), flush=True)
        print(f"{servers.describe()}\n  STREAM_DB_THREADS={settings.STREAM_DB_THREADS}, "
              f"STREAM_HEARTBEAT_SECONDS="
              f"{args.heartbeat or settings.STREAM_HEARTBEAT_SECONDS:g}, STREAM_CHECK_SECONDS="
              f"{args.check or settings.STREAM_CHECK_SECONDS:g}", flush=True)
        asyncio.run(run(args, servers, api.percentile))
        print("load average (1, 5, 15 min) at the end: "
              + ", ".join(f"{x:.1f}" for x in os.getloadavg()), flush=True)
    finally:
        servers.stop()


if __name__ == "__main__":
    main()
