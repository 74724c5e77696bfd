"""The benches run as a person runs them, through their command lines (nothing of theirs is
imported here): the engine bench with a few games, and the API's load script in push mode, one
client for a second against the servers it starts (PostgreSQL and Redis of its own included)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, timeout: float) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done.stdout


#: A bench that starts its own PostgreSQL and Redis needs their servers' binaries; with
#: REQUIRE_SERVICES=1 (CI) it runs, and fails without them.
own_servers = pytest.mark.skipif(
    not (shutil.which("pg_config") and shutil.which("redis-server"))
    and os.environ.get("REQUIRE_SERVICES") != "1",
    reason="starts its own PostgreSQL and Redis: their servers' binaries "
           "(with REQUIRE_SERVICES=1 it runs, and fails without them)")


def test_the_engine_bench_runs():
    out = run("bench/engine.py", "--game", "mascarade", "--quick", "--games", "5", timeout=120)
    assert "random games,  4 players:" in out
    assert "replay of a 300-move 12-player game:" in out
    assert "its bot (" in out


@pytest.mark.postgres
@own_servers
def test_the_api_bench_runs_in_push_mode():
    out = run("bench/api.py", "--push", "--clients", "1", "--seconds", "1", timeout=300)
    moves = re.search(r"1 clients, closed loop +([\d.]+) moves/s +POST /moves/ p50 ", out)
    assert moves and float(moves.group(1)) > 0, out
    assert "not 201" not in out
    cpu = re.search(r"CPU per move: web ([\d.]+) +stream [\d.]+ +postgres ([\d.]+) +redis "
                    r"[\d.]+ += servers ([\d.]+) ms", out)
    assert cpu and all(float(figure) > 0 for figure in cpu.groups()), out
    sql = re.search(r"SQL statements per move: web ([\d.]+) +stream [\d.]+ += ([\d.]+)", out)
    assert sql and float(sql.group(1)) >= 1, out


@pytest.mark.postgres
@pytest.mark.skipif(not shutil.which("createdb") and os.environ.get("REQUIRE_SERVICES") != "1",
                    reason="makes its database with createdb (with REQUIRE_SERVICES=1 it runs, "
                           "and fails without it)")
def test_the_mail_receiver_bench_runs(db):
    """Two small messages at once, one session: one is told to come back, both are stored."""
    from django.db import connection

    settings = connection.settings_dict
    url = (f"postgres://{settings['USER']}@{settings['HOST'] or '127.0.0.1'}:"
           f"{settings['PORT'] or 5432}/mascarade_bench_mail_test")
    done = subprocess.run([sys.executable, "bench/mail_receiver.py", "--clients", "2",
                           "--megabytes", "0.2", "--retry", "0.1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=180,
                          env={**os.environ, "BENCH_DATABASE_URL": url,
                               "MAIL_RECEIVER_MAX_SESSIONS": "1"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    memory = re.search(r"memory: (\d+) MB at rest, peak (\d+) MB \(VmHWM\)", done.stdout)
    assert memory and 0 < int(memory.group(1)) <= int(memory.group(2)), done.stdout
    assert "stored 2 of 2" in done.stdout, done.stdout


@own_servers
def test_the_mail_latency_bench_runs():
    """Five games, their humans answering in 4 to 6 s: the decisions of the few seconds
    measured are mailed, and the latency's figures printed."""
    out = run("bench/mail_latency.py", "--games", "5", "--seconds", "8", "--warmup", "5",
              "--think", "4,6", timeout=300)
    counts = re.search(r"(\d+) decisions awaited from the humans during the 8 s measured: "
                       r"(\d+) mailed in (\d+) mails, (\d+) skipped \(passed before their "
                       r"mail\), (\d+) not mailed", out)
    assert counts, out
    decisions, mailed, _mails, skipped, unsent = map(int, counts.groups())
    assert decisions > 0 and mailed > 0 and mailed + skipped == decisions and unsent == 0, out
    assert re.search(r"decision to mail at the SMTP sink: p50 [\d.]+ s, p99 [\d.]+ s", out), out


@own_servers
def test_the_streams_bench_runs():
    """Twenty streams (sixteen of one game, four /me/stream/) held by one stream server: its
    figures printed, every stream opened and reached by the move."""
    out = run("bench/streams.py", "--streams", "20", "--me-streams", "4", "--idle", "1",
              timeout=600)
    assert "20 of 20 streams opened" in out, out
    memory = re.search(r"memory ([\d,.]+) MB before the streams, ([\d,.]+) MB with them", out)
    assert memory and float(memory.group(1).replace(",", "")) > 0, out
    held = re.search(r"file descriptors: \d+ before, (\d+) with the streams; connections to "
                     r"PostgreSQL (\d+) \(pg_stat_activity, role stream: (\d+)\), to Redis (\d+)",
                     out)
    assert held and int(held.group(1)) >= 20 and int(held.group(4)) == 1, out
    reached = re.search(r"its event: move reached (\d+) of (\d+) game streams: p50", out)
    assert reached and reached.group(1) == reached.group(2) == "16", out


@pytest.mark.postgres
@pytest.mark.skipif(not shutil.which("createdb") and os.environ.get("REQUIRE_SERVICES") != "1",
                    reason="bench/fill.py makes its database (with REQUIRE_SERVICES=1 it runs, "
                           "and fails without it)")
def test_the_ratings_bench_runs(db):
    """A few finished games (bench/fill.py's smallest database): every one of them with two
    humans or more rated again, every player's reliability stored, the heaviest's read."""
    from django.db import connection

    settings = connection.settings_dict
    url = (f"postgres://{settings['USER']}@{settings['HOST'] or '127.0.0.1'}:"
           f"{settings['PORT'] or 5432}/mascarade_bench_ratings_test")
    env = {**os.environ, "BENCH_DATABASE_URL": url}
    for args in (["bench/fill.py", "--scale", "0.0003", "--users", "40", "--workers", "1"],
                 ["bench/ratings.py", "--repeat", "2"]):
        done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=600, env=env)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    out = done.stdout
    rated = re.search(r"recompute: (\d+) of (\d+) finished games rated in", out)
    assert rated and 0 < int(rated.group(1)) <= int(rated.group(2)), out
    stored = re.search(r"reliability of the day: (\d+) players stored in", out)
    assert stored and int(stored.group(1)) > 0, out
    assert re.search(r"the heaviest player \(\d+ games\): reliability counted in [\d.]+ ms", out)
