"""The WSGI application. The web process serves it with granian (``docker/start-web.sh``), whose
workers build it by calling :func:`served` (``--factory``): the application, with each worker's
long-lived objects then left out of the garbage collector's walks (:mod:`mascarade_site.memory`:
granian has no worker hooks). Importing this module freezes nothing (the tests import it)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mascarade_site.settings")

application = get_wsgi_application()


def served():
    """The application as a granian worker serves it (``granian --factory
    mascarade_site.wsgi:served``), called once in each worker after it started."""
    from mascarade_site.memory import freeze_after_first_request

    freeze_after_first_request()
    return application
