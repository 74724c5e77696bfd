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


def test_the_engine_bench_runs():
    out = run("bench/engine.py", "--game", "mascarade", "--quick", "--games", "5", timeout=120)
    assert "random games,  4 players:" in out
    assert "replay of a 300-move 12-player game:" in out
    assert "its bot (" in out


@pytest.mark.postgres
@pytest.mark.skipif(not (shutil.which("pg_config") and shutil.which("redis-server"))
                    and os.environ.get("REQUIRE_SERVICES") != "1",
                    reason="starts its own PostgreSQL and Redis: their servers' binaries "
                           "(with REQUIRE_SERVICES=1 it runs, and fails without them)")
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
