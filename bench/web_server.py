"""The web server's own cost: granian (as ``docker/start-web.sh`` runs it) against gunicorn (as
it ran before, ``mascarade_site/gunicorn.py``), in turns.

    .venv/bin/python bench/web_server.py [--requests 3000] [--rounds 3]

One client on one kept-alive connection sends ``GET /api/v1/games/{id}/`` (a game read: the same
application work each time, no state changed) ``--requests`` times to each server in turn,
``--rounds`` times; it prints the server processes' CPU per request (read from /proc, all their
processes) and the latency per request. With a single client nothing queues: the difference
between the two is what each server spends around the application (reading the request,
handing it to a thread, writing the answer). ``bench/api.py --web gunicorn`` compares them
under load. Drops and recreates the database ``mascarade_bench_web`` (``BENCH_DATABASE_URL``).
"""

from __future__ import annotations

import argparse
import http.client
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/mascarade_bench_web"
WARM = 300


def web_cpu() -> dict[int, float]:
    import api

    return {pid: used for pid, (group, used) in api.cpu_seconds().items() if group == "web"}


def run(server: str, env: dict[str, str], table: dict, requests: int) -> tuple[float, float]:
    """``(CPU ms, latency ms)`` per request of ``server``."""
    import api

    api.WEB_SERVER = server
    port = api.free_port()
    proc = api.start_web(env, port)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        url = f"/api/v1/games/{table['game']}/"
        headers = {"Authorization": f"Token {table['tokens'][table['first']]}"}

        def get() -> None:
            conn.request("GET", url, headers=headers)
            answer = conn.getresponse()
            answer.read()
            if answer.status != 200:
                raise SystemExit(f"{server}: {answer.status}")

        for _ in range(WARM):
            get()
        before = web_cpu()
        start = time.perf_counter()
        for _ in range(requests):
            get()
        elapsed = time.perf_counter() - start
        after = web_cpu()
        cpu = sum(used - before.get(pid, used) for pid, used in after.items())
        return cpu / requests * 1000, elapsed / requests * 1000
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import api

    db_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    api.BENCH_DB = db_url.rsplit("/", 1)[-1].encode()
    env = api.server_env(db_url)
    env["VAR_DIR"] = str(ROOT / "var" / "bench-web")
    api.fresh_database(db_url, env)
    os.environ.update(env)
    import django

    django.setup()
    from django.db import connection

    table = api.make_tables(1, "w")[0]
    connection.close()
    print(f"one client, one kept-alive connection, {args.requests} GET /api/v1/games/{{id}}/ per "
          f"run after {WARM}; 2 workers of 2 threads each; {os.cpu_count()} cores", flush=True)
    for _ in range(args.rounds):
        for server in ("granian", "gunicorn"):
            cpu, latency = run(server, env, table, args.requests)
            print(f"{server:9s} CPU {cpu:.3f} ms per request   latency {latency:.3f} ms",
                  flush=True)


if __name__ == "__main__":
    main()
