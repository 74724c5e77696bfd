import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mascarade_site.settings")

application = get_asgi_application()

# Imported by each server process: its long-lived objects out of the collector's way.
from mascarade_site.memory import freeze_after_first_request  # noqa: E402

freeze_after_first_request()
