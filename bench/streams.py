"""Benchmark of the event streams' server: one uvicorn process (as docker/start-stream.sh runs it)
holding 1,000 idle streams, its memory and CPU; then how long a move takes to reach the streams
of its game.

    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python bench/streams.py [--streams 1000]
                                                              [--idle 20] [--moves 200]

The database named in ``BENCH_DATABASE_URL`` (default: ``mascarade_bench_streams`` on the local
PostgreSQL) is dropped and created anew; ``REDIS_URL`` is used on the bench's own database
number, as in bench/api.py (pub/sub channels are the server's, whatever the number: run it
beside nothing else that streams). Without ``REDIS_URL`` the streams poll the database
(``STREAM_POLL_SECONDS``), which the figures then show.

It prints, for ``--streams`` game streams (each a player's, with its token, of a game of four),
then as many ``/me/stream/``: the server's resident memory before and after they opened, per
stream; the CPU the server used while they sat idle for ``--idle`` seconds (heartbeats: one
comment and one access check per stream every ``STREAM_HEARTBEAT_SECONDS``); then, with the
game streams open, ``--moves`` moves played one after the other through the write path (in this
process), each move's time from the call of the move service (its own write of a few ms
included) to the ``move`` message at each of its game's four streams (p50/p95/p99, max).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from api import free_port, fresh_database, make_tables, percentile, server_env  # noqa: E402
from push import raise_file_limit, start_uvicorn  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/mascarade_bench_streams"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Stream:
    """One stream over a raw connection: the lines it sends, parsed just enough."""

    def __init__(self, port: int, path: str, token: str):
        self.port, self.path, self.token = port, path, token
        self.first = asyncio.get_running_loop().create_future()
        self.moves: dict[int, float] = {}
        self.task: asyncio.Task | None = None

    async def run(self) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        writer.write(f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     f"Authorization: Token {self.token}\r\nAccept: text/event-stream\r\n\r\n"
                     .encode())
        await writer.drain()
        try:
            while True:
                line = await reader.readline()
                if not line:
                    return
                if line.startswith(b"HTTP/1.1 ") and not self.first.done():
                    if not line.startswith(b"HTTP/1.1 200"):
                        raise RuntimeError(f"{self.path}: {line!r}")
                    self.first.set_result(time.monotonic())
                elif line.startswith(b"id: "):
                    seq = int(line[4:])
                    self.moves.setdefault(seq, time.monotonic())
        finally:
            writer.close()


async def open_streams(port: int, paths_tokens: list[tuple[str, str]]) -> list[Stream]:
    streams = [Stream(port, path, token) for path, token in paths_tokens]
    for index, stream in enumerate(streams):
        stream.task = asyncio.get_running_loop().create_task(stream.run())
        if index % 100 == 99:
            await asyncio.sleep(0.05)
    await asyncio.wait_for(asyncio.gather(*(s.first for s in streams)), 120)
    return streams


async def close_streams(streams: list[Stream]) -> None:
    for stream in streams:
        stream.task.cancel()
    await asyncio.gather(*(s.task for s in streams), return_exceptions=True)


async def idle(pid: int, seconds: float) -> tuple[float, float]:
    before = cpu_seconds(pid)
    start = time.monotonic()
    await asyncio.sleep(seconds)
    return cpu_seconds(pid) - before, time.monotonic() - start


def play_one(table: dict) -> tuple[int, float]:
    """One move of the awaited player of this game, through the write path (the service
    publishes once it commits); its seq and the moment the service was called."""
    from games.core import selectors, services
    from games.models import Game

    game = Game.objects.get(pk=table["game"])
    row = game.pending_decisions.order_by("player").first()
    user = game.seats.get(position=row.player).user
    loaded = selectors.load_for_viewer(selectors.find_game(game.pk), user)
    moves = selectors.legal_moves_payload(loaded, user)["moves"]
    move = next((m for m in moves if m["type"] in ("look", "pass")), moves[0])
    called = time.monotonic()
    services.submit_move(game.pk, move, user=user, expected_seq=game.seq)
    return game.seq + 1, called


async def fan_out(streams_by_game: dict[str, list[Stream]], tables: list[dict],
                  moves: int) -> list[float]:
    delays = []
    loop = asyncio.get_running_loop()
    for k in range(moves):
        table = tables[k % len(tables)]
        seq, committed = await loop.run_in_executor(None, play_one, table)
        targets = streams_by_game[table["game"]]
        deadline = time.monotonic() + 10
        while not all(seq in s.moves for s in targets) and time.monotonic() < deadline:
            await asyncio.sleep(0.0005)
        delays += [(s.moves.get(seq, float("inf")) - committed) * 1000 for s in targets]
    return delays


async def main_async(args, pid: int, port: int, tables: list[dict]) -> None:
    per_game = [(t["game"], name, token) for t in tables for name, token in t["tokens"].items()]
    per_game = per_game[:args.streams]
    base = rss_mb(pid)
    print(f"uvicorn, 1 process: {base:.1f} MB resident before any stream")

    started = time.monotonic()
    game_streams = await open_streams(
        port, [(f"/api/v1/games/{game}/stream/", token) for game, _n, token in per_game])
    opened = time.monotonic() - started
    held = rss_mb(pid)
    print(f"{len(game_streams)} game streams open in {opened:.1f} s: {held:.1f} MB resident, "
          f"{(held - base) * 1024 / len(game_streams):.1f} KB per stream")
    cpu, wall = await idle(pid, args.idle)
    print(f"  idle {wall:.0f} s: the server used {cpu:.2f} s of CPU "
          f"({cpu / wall * 100:.1f} % of a core; heartbeats every "
          f"{os.environ.get('STREAM_HEARTBEAT_SECONDS', '15')} s)")

    by_game: dict[str, list[Stream]] = {}
    for (game, _n, _t), stream in zip(per_game, game_streams, strict=True):
        by_game.setdefault(game, []).append(stream)
    playable = [t for t in tables if t["game"] in by_game]
    delays = await fan_out(by_game, playable, args.moves)
    finite = [d for d in delays if d != float("inf")]
    print(f"  {args.moves} moves, one after the other, each to its game's 4 streams: from the "
          f"move's call (its own write included) to the stream's message "
          f"p50 {percentile(finite, 0.5):.1f} ms, "
          f"p95 {percentile(finite, 0.95):.1f}, p99 {percentile(finite, 0.99):.1f}, "
          f"max {max(finite):.1f}; {len(delays) - len(finite)} never arrived")
    await close_streams(game_streams)
    await asyncio.sleep(1)

    base = rss_mb(pid)
    me_streams = await open_streams(
        port, [("/api/v1/me/stream/", token) for _g, _n, token in per_game])
    held = rss_mb(pid)
    print(f"{len(me_streams)} /me/stream/ open: {held:.1f} MB resident, "
          f"{(held - base) * 1024 / len(me_streams):.1f} KB per stream")
    cpu, wall = await idle(pid, args.idle)
    print(f"  idle {wall:.0f} s: {cpu:.2f} s of CPU ({cpu / wall * 100:.1f} % of a core)")
    await close_streams(me_streams)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--idle", type=float, default=20.0)
    parser.add_argument("--moves", type=int, default=200)
    args = parser.parse_args()
    raise_file_limit()
    db_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    env = server_env(db_url)
    env["VAR_DIR"] = str(ROOT / "var" / "bench-streams")
    fresh_database(db_url, env)
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "DEBUG", "SECRET_KEY",
                                           "ALLOWED_HOSTS", "VAR_DIR")})
    if env.get("REDIS_URL"):
        os.environ["REDIS_URL"] = env["REDIS_URL"]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mascarade_site.settings")
    import django

    django.setup()
    print(f"streams woken through {'Redis pub/sub' if env.get('REDIS_URL') else 'polling'}")
    tables = make_tables((args.streams + 3) // 4, "st")
    port = free_port()
    proc = start_uvicorn(env, port)
    try:
        asyncio.run(main_async(args, proc.pid, port, tables))
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()
