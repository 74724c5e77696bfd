"""The garbage collector in long-lived processes (the web server's workers, Celery's).

A process of this site holds some 100,000 objects that live as long as it does: modules, Django's
and DRF's machinery, URL patterns, translations. Python's collector walks all of them in each
full collection, and requests that build large states (a game of 1,000 moves whose players
looked at many cards: some thousands of small lists) set such collections off often.
:func:`gc.freeze` moves the objects alive at that moment out of the collector's sight (they are
never freed; they would not have been anyway); what requests and tasks allocate afterwards is
collected as before.

Called when a granian worker builds the WSGI application (``mascarade_site/wsgi.py``) and
from Celery's ``worker_process_init`` signal (``mascarade_site/celery.py``).
"""

from __future__ import annotations

import gc

from django.core.signals import request_finished


def freeze_now() -> None:
    """Collect what is garbage now, then leave everything still alive out of later collections."""
    gc.collect()
    gc.freeze()


def freeze_after_first_request() -> None:
    """Freeze at once (what loading the application made), and again when the first request has
    been answered (what Django and DRF build lazily on it: URL resolvers, translations, the
    serializers' fields)."""
    freeze_now()

    def once(**kwargs) -> None:
        request_finished.disconnect(once, dispatch_uid=__name__)
        freeze_now()

    request_finished.connect(once, dispatch_uid=__name__, weak=False)
