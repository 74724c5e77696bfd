"""gunicorn's configuration hooks for the web processes (``gunicorn -c
python:mascarade_site.gunicorn mascarade_site.wsgi``; the command line's options still apply).

``post_worker_init`` runs in each worker once it has loaded the application: its long-lived
objects go out of the garbage collector's way (:mod:`mascarade_site.memory`).
"""

from __future__ import annotations


def post_worker_init(worker) -> None:
    from mascarade_site.memory import freeze_after_first_request

    freeze_after_first_request()
