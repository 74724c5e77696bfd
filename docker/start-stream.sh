#!/bin/sh
# The event streams' server (Server-Sent Events: /api/v1/games/{id}/stream/, /api/v1/me/stream/):
# the site's ASGI application under uvicorn, beside granian's WSGI workers (start-web.sh); the
# proxy (nginx.conf) sends it the stream paths only. A stream waits without holding a thread, so
# one process holds thousands (see the README, "Event streams"); STREAM_WORKERS adds processes.
# Migrations are the web service's: this one only serves.
set -eu
exec uvicorn mascarade_site.asgi:application \
    --host 0.0.0.0 \
    --port 8001 \
    --workers "${STREAM_WORKERS:-1}" \
    --loop uvloop \
    --http httptools \
    --proxy-headers \
    --forwarded-allow-ips "${FORWARDED_ALLOW_IPS:-127.0.0.1}" \
    --timeout-keep-alive 30 \
    --timeout-graceful-shutdown 5 \
    --no-access-log
