"""The Celery app: settings under the `CELERY_` namespace, tasks autodiscovered."""

import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mascarade_site.settings")

app = Celery("mascarade_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _freeze_startup_objects(**kwargs) -> None:
    """Each pool process, once started: the objects it inherited and loaded are out of the
    collector's way (mascarade_site.memory)."""
    from mascarade_site.memory import freeze_now

    freeze_now()


@app.task(name="mascarade_site.ping")
def ping() -> str:
    """A no-op round trip used by the health check tests and operators."""
    return "pong"
