"""The benches of a full database run as a person runs them, through their command lines
(nothing of theirs is imported here): ``bench/fill.py`` at a small scale, then
``bench/full_database.py`` on what it made. Each migrates a database of its own (two for the
second): a few minutes on a busy machine, so CI's run has it (``thorough``), ``make test``
leaves it out."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.thorough
@pytest.mark.postgres
def test_the_full_database_benches_run(db):
    """A fill of 50 finished games (with those under way and open), read back through the
    site; then the hot requests measured on it beside an empty database: the same statements
    in both, a figure for each."""
    import psycopg
    from django.db import connection

    settings = connection.settings_dict
    server = (f"postgres://{settings['USER']}@{settings['HOST'] or '127.0.0.1'}:"
              f"{settings['PORT'] or 5432}")
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        for name in ("mascarade_fill_bench_test", "mascarade_fill_bench_test_empty"):
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
    env = {**os.environ, "BENCH_DATABASE_URL": f"{server}/mascarade_fill_bench_test"}
    done = subprocess.run([sys.executable, "bench/fill.py", "--scale", "0.0005", "--workers",
                           "2", "--batch", "20", "--check", "2"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert re.search(r"written: 50 games, [\d,]+ move records", done.stdout), done.stdout
    assert re.search(r"; [1-9][\d,]* players' tallies counted", done.stdout), done.stdout
    assert "2 games read back: pages, API reads and replays agree" in done.stdout, done.stdout
    done = subprocess.run([sys.executable, "bench/full_database.py", "--repeat", "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    for name in ("lobby", "your games (API)", "table page, finished", "game read (API)",
                 "move (API)", "player page", "player read (API)", "sweep, 4 games due"):
        assert re.search(rf"^{re.escape(name)} +\d+ +\d+ +[\d.]+ +[\d.]+ ", done.stdout,
                         re.MULTILINE), done.stdout
    assert "not the same statements" not in done.stdout, done.stdout
