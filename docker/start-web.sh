#!/bin/sh
# The web process: apply migrations, then serve with gunicorn.
set -eu
python manage.py migrate --noinput
exec gunicorn mascarade_site.wsgi:application \
    --bind 0.0.0.0:8000 \
    --workers "${GUNICORN_WORKERS:-2}" \
    --timeout "${GUNICORN_TIMEOUT:-30}" \
    --access-logfile - \
    --forwarded-allow-ips "*"
