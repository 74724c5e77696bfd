"""A Celery round trip through a real worker: on Redis, and on the filesystem transport."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from celery.contrib.testing.worker import start_worker

from mascarade_site.celery import app, ping

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.redis
def test_round_trip_through_a_real_worker_on_redis():
    assert app.conf.broker_url.startswith("redis://")
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        result = ping.delay()
        assert result.get(timeout=20) == "pong"


FILESYSTEM_PROBE = """
import django
django.setup()
from celery.contrib.testing.worker import start_worker
from mascarade_site.celery import app, ping
assert app.conf.broker_url == "filesystem://", app.conf.broker_url
with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
    print(ping.delay().get(timeout=20))
"""


def test_round_trip_through_a_real_worker_on_the_filesystem_transport(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    env.update({"DJANGO_SETTINGS_MODULE": "mascarade_site.settings", "DEBUG": "1",
                "VAR_DIR": str(tmp_path)})
    proc = subprocess.run([sys.executable, "-c", FILESYSTEM_PROBE], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "pong"
    # The message really went through the queue folder (and was consumed from it).
    assert (tmp_path / "celery" / "queue").is_dir()
    assert list((tmp_path / "celery" / "results").iterdir()), "no result file was written"
