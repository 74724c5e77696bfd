#!/bin/sh
# The web process: apply migrations as the tables' owner (DATABASE_OWNER_URL), grant the
# application role (DB_APP_ROLE) its privileges, then serve with gunicorn as that role
# (DATABASE_URL). Without DATABASE_OWNER_URL, one role does both. mascarade_site/gunicorn.py makes
# the workers threaded (GUNICORN_THREADS, 2) and keeps connections alive (GUNICORN_KEEPALIVE, 75 s),
# each worker on a listening socket of its own.
set -eu
OWNER_URL="${DATABASE_OWNER_URL:-$DATABASE_URL}"
DATABASE_URL="$OWNER_URL" python manage.py migrate --noinput
if [ -n "${DB_APP_ROLE:-}" ]; then
    DATABASE_URL="$OWNER_URL" python manage.py grant_app_role "$DB_APP_ROLE"
fi
exec gunicorn mascarade_site.wsgi:application \
    --config python:mascarade_site.gunicorn \
    --bind 0.0.0.0:8000 \
    --workers "${GUNICORN_WORKERS:-2}" \
    --timeout "${GUNICORN_TIMEOUT:-30}" \
    --access-logfile - \
    --forwarded-allow-ips "${FORWARDED_ALLOW_IPS:-127.0.0.1}"
