"""The API's own cost per request, in one process: CPU (user time) and SQL statements of
``GET /games/{id}/`` and ``POST /moves/``, through the whole Django stack (middleware, DRF,
services) on PostgreSQL, for new games and for games that already have 1,000 moves.

    .venv/bin/python bench/api_cpu.py [--moves 600] [--rounds 3] [--long-moves 1000]

``bench/api.py`` measures the service under load, but there gunicorn, PostgreSQL and the clients
share two cores and its figures move by 10 to 20 % from one run to the next; this one times each
request of a single client with ``getrusage`` (the process's user CPU, which neither the database
nor the other processes add to), so that a change of the code's cost shows. It plays as
``bench/api.py`` does (read the game as the awaited player, send one of its legal moves), through
Django's test client, whose own cost (building the request, reading the answer) is included and
small; the connection's health check at the start of each request under gunicorn (a look at its
socket, no statement: ``mascarade_site/postgres/base.py``) is not, the test client leaving
connections alone between requests. The database named in
``BENCH_DATABASE_URL`` (default: ``mascarade_bench_cpu`` on the local PostgreSQL) is dropped and
created anew.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/mascarade_bench_cpu"


def user_cpu() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime


def play(client, tables: list[dict], moves: int, policy: str, rng: random.Random,
         timings: dict[str, list[float]] | None, statements: dict[str, list[int]] | None
         ) -> None:
    """``moves`` moves, each a read then a send, taking the next table when a game ends."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from bench.api import quiet
    from games.engine.bots import get_bot

    bot = get_bot("mascarade", "random")
    tables = list(tables)
    table = tables.pop()
    awaited = table["first"]
    done = 0

    def call(kind: str, fn, *args, **kwargs):
        if statements is not None:
            with CaptureQueriesContext(connection) as queries:
                answer = fn(*args, **kwargs)
            statements[kind].append(len(queries))
            return answer
        start = user_cpu()
        answer = fn(*args, **kwargs)
        if timings is not None:
            timings[kind].append((user_cpu() - start) * 1000)
        return answer

    while done < moves:
        url = f"/api/v1/games/{table['game']}/"
        auth = f"Token {table['tokens'][awaited]}"
        game = json.loads(call("GET", client.get, url, HTTP_AUTHORIZATION=auth).content)
        if game.get("status") != "active":
            if not tables:
                raise SystemExit("bench/api_cpu.py: out of games; make more tables")
            table = tables.pop()
            awaited = table["first"]
            continue
        moves_now = (game.get("you") or {}).get("legal_moves")
        if not moves_now:
            awaited = game["state"]["awaiting"][0]["player"]
            continue
        move = (bot.choose({}, moves_now, [], rng) if policy == "random"
                else quiet(moves_now, policy))
        answer = call("POST", client.post, url + "moves/",
                      json.dumps({"move": move, "expected_seq": game["seq"]}),
                      content_type="application/json", HTTP_AUTHORIZATION=auth)
        if answer.status_code != 201:
            raise SystemExit(f"bench/api_cpu.py: move refused: {answer.status_code} "
                             f"{answer.content[:300]!r}")
        awaiting = json.loads(answer.content)["game"]["state"]["awaiting"]
        awaited = awaiting[0]["player"] if awaiting else awaited
        done += 1


def measure(label: str, make, moves: int, rounds: int, policy: str) -> None:
    from django.test import Client

    from bench.api import analyze

    client = Client(HTTP_HOST="127.0.0.1")
    rng = random.Random(7)
    statements: dict[str, list[int]] = {"GET": [], "POST": []}
    play(client, make(), 20, policy, rng, None, statements)  # statements of a few moves
    medians: dict[str, list[float]] = {"GET": [], "POST": []}
    for _ in range(rounds):
        tables = make()
        analyze()
        play(client, tables, 30, policy, rng, None, None)  # warm: compiled queries, caches
        timings: dict[str, list[float]] = {"GET": [], "POST": []}
        play(client, tables, moves, policy, rng, timings, None)
        for kind in medians:
            medians[kind].append(statistics.median(timings[kind]))
    out = []
    for kind, path in (("GET", "GET /games/{id}/"), ("POST", "POST /moves/")):
        per_round = " ".join(f"{m:.2f}" for m in medians[kind])
        counts = sorted(set(statements[kind]))
        out.append(f"{path} {statistics.median(medians[kind]):5.2f} ms CPU (rounds: "
                   f"{per_round}), statements {'/'.join(map(str, counts))}")
    print(f"{label:<34} " + "   ".join(out), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=600, help="timed moves per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--long-moves", type=int, default=1000)
    args = parser.parse_args()
    from bench.api import fresh_database, make_tables, server_env

    db_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    env = server_env(db_url)
    env["VAR_DIR"] = str(ROOT / "var" / "bench-api-cpu")
    fresh_database(db_url, env)
    os.environ.update(env)
    import django

    django.setup()
    counter = iter(range(10**9))
    print(f"one process, PostgreSQL {db_url.rsplit('/', 1)[-1]}; median user CPU per request "
          f"over {args.moves} moves, {args.rounds} rounds", flush=True)
    # Random games end after about 40 moves: enough of them for a round.
    measure("new games, random bot", lambda: make_tables(args.moves // 15 + 10,
                                                          f"c{next(counter)}x"),
            args.moves, args.rounds, "random")
    measure("new games, exchanges", lambda: make_tables(4, f"c{next(counter)}x",
                                                         policy="exchanges"),
            args.moves, args.rounds, "exchanges")
    measure(f"{args.long_moves}-move games, exchanges", lambda: make_tables(
        4, f"c{next(counter)}x", moves_before=args.long_moves, policy="exchanges"),
        args.moves, args.rounds, "exchanges")


if __name__ == "__main__":
    main()
