#!/bin/sh
# The web process: apply migrations as the tables' owner and grant the application role its
# privileges (migrate.sh; WEB_MIGRATE=0 skips it), then serve the WSGI application with granian
# (HTTP in Rust) as that role (DATABASE_URL) on WEB_HOST:WEB_PORT (0.0.0.0:8000): WEB_WORKERS
# processes (2) of WEB_THREADS threads (2) each; client connections kept alive, an idle one
# closed after 60 s, granian's most (longer than nginx keeps its idle connections to web, 50 s,
# nginx.conf: nginx closes them, never web under its feet). HTTPS behind a TLS proxy:
# SECURE_PROXY_SSL_HEADER_ENABLED=1 (README).
set -eu
if [ "${WEB_MIGRATE:-1}" != 0 ]; then
    sh "$(dirname "$0")/migrate.sh"
fi
exec granian mascarade_site.wsgi:served --factory \
    --interface wsgi \
    --host "${WEB_HOST:-0.0.0.0}" \
    --port "${WEB_PORT:-8000}" \
    --http 1 \
    --workers "${WEB_WORKERS:-2}" \
    --blocking-threads "${WEB_THREADS:-2}" \
    --http1-keep-alive \
    --http1-header-read-timeout 60000 \
    --respawn-failed-workers \
    --workers-kill-timeout 30 \
    --access-log \
    --log-level info
