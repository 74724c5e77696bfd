"""gunicorn as the web process runs it (mascarade_site/gunicorn.py): connections kept alive, and
spread over the workers by their own listening sockets."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .servers import PID_APP, assert_kept_alive_and_spread, free_port, listening

ROOT = Path(__file__).resolve().parents[2]

@pytest.fixture
def gunicorn(tmp_path):
    (tmp_path / "pid_app.py").write_text(PID_APP)
    port = free_port()
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", "DEBUG": "1"}
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("gunicorn")), "pid_app:app",
         "--config", "python:mascarade_site.gunicorn", "--workers", "2",
         "--bind", f"127.0.0.1:{port}", "--log-level", "warning"], cwd=tmp_path, env=env)
    listening(proc, port, 30)
    time.sleep(1)  # (both workers booted)
    yield port
    proc.terminate()
    proc.wait(timeout=30)


def test_connections_are_kept_alive_and_spread_over_the_workers(gunicorn):
    """40 clients connecting at once: each served twice on its one connection by one worker,
    and both workers have a fair share of them (with one socket shared by the workers, whichever
    woke first took nearly all)."""
    assert_kept_alive_and_spread(gunicorn)
