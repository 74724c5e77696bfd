"""The Celery app: settings under the `CELERY_` namespace, tasks autodiscovered."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mascarade_site.settings")

app = Celery("mascarade_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="mascarade_site.ping")
def ping() -> str:
    """A no-op round trip used by the health check tests and operators."""
    return "pong"
