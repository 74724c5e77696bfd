"""Long-lived objects are frozen out of the collector's sight in the web and worker processes
(mascarade_site.memory); what requests allocate afterwards is still collected."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import weakref
from pathlib import Path

import pytest
from django.core.signals import request_finished
from django.test import Client

from mascarade_site import memory

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def unfreeze():
    yield
    gc.unfreeze()
    request_finished.disconnect(dispatch_uid=memory.__name__)


def ours() -> list:
    return [r for r in request_finished.receivers if r[0][0] == memory.__name__]


@pytest.mark.django_db
def test_frozen_at_once_and_after_the_first_request_only(unfreeze, monkeypatch):
    gc.unfreeze()
    memory.freeze_after_first_request()
    assert gc.get_freeze_count() > 10_000 and ours()
    calls = []
    real = memory.freeze_now
    monkeypatch.setattr(memory, "freeze_now", lambda: calls.append(1) or real())
    Client().get("/healthz")
    assert calls == [1] and not ours()  # once, then gone
    Client().get("/healthz")
    assert calls == [1]
    assert gc.isenabled()


def test_garbage_made_after_the_freeze_is_still_collected(unfreeze):
    memory.freeze_now()

    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle: only the collector frees it
    gone = weakref.ref(a)
    del a, b
    gc.collect()
    assert gone() is None


def _freeze_count(code: str) -> int:
    env = {**os.environ, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "mascarade_site.settings"}
    code += "; print(json.dumps(gc.get_freeze_count()))"
    out = subprocess.run([sys.executable, "-c", code],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("module", ["wsgi", "asgi"])
def test_importing_the_server_modules_freezes_nothing(module):
    assert _freeze_count(f"import gc, json, mascarade_site.{module}") == 0


def test_granians_workers_build_the_application_frozen():
    """``docker/start-web.sh`` serves ``mascarade_site.wsgi:served`` (``--factory``): each
    worker calls it once."""
    code = "import gc, json, mascarade_site.wsgi as w; assert w.served() is w.application"
    assert _freeze_count(code) > 10_000


def test_celerys_worker_processes_freeze_once_started():
    """Celery sends ``worker_process_init`` in each pool process once it started."""
    code = ("import gc, json, mascarade_site.celery; "
            "from celery.signals import worker_process_init; worker_process_init.send(None)")
    assert _freeze_count("import gc, json, mascarade_site.celery") == 0
    assert _freeze_count(code) > 10_000
