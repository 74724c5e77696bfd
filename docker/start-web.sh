#!/bin/sh
# The web process: apply migrations as the tables' owner (DATABASE_OWNER_URL), grant the
# application role (DB_APP_ROLE) its privileges, then serve the WSGI application with granian
# (HTTP in Rust) as that role (DATABASE_URL): WEB_WORKERS processes
# (2) of WEB_THREADS threads (2) each; client connections kept alive, an idle one closed after
# 60 s, granian's most (longer than nginx keeps its idle connections to web, 50 s, nginx.conf:
# nginx closes them, never web under its feet). HTTPS behind a TLS proxy:
# SECURE_PROXY_SSL_HEADER_ENABLED=1 (README).
set -eu
OWNER_URL="${DATABASE_OWNER_URL:-$DATABASE_URL}"
DATABASE_URL="$OWNER_URL" python manage.py migrate --noinput
if [ -n "${DB_APP_ROLE:-}" ]; then
    DATABASE_URL="$OWNER_URL" python manage.py grant_app_role "$DB_APP_ROLE"
fi
exec granian mascarade_site.wsgi:served --factory \
    --interface wsgi \
    --host 0.0.0.0 \
    --port 8000 \
    --http 1 \
    --workers "${WEB_WORKERS:-2}" \
    --blocking-threads "${WEB_THREADS:-2}" \
    --http1-keep-alive \
    --http1-header-read-timeout 60000 \
    --respawn-failed-workers \
    --workers-kill-timeout 30 \
    --access-log \
    --log-level info
