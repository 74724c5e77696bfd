import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mascarade_site.settings")

application = get_wsgi_application()

# Imported by each gunicorn worker: its long-lived objects out of the collector's way.
from mascarade_site.memory import freeze_after_first_request  # noqa: E402

freeze_after_first_request()
