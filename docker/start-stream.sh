#!/bin/sh
# The event streams' server (Server-Sent Events: /api/v1/games/{id}/stream/, /api/v1/me/stream/):
# the site's ASGI application under uvicorn on STREAM_HOST:STREAM_PORT (0.0.0.0:8001), beside
# granian's WSGI workers (start-web.sh); the proxy (nginx.conf) sends it the stream paths only.
# A stream waits without holding a thread, so one process holds thousands (see
# docs/api-guide.md, "Event streams"); STREAM_WORKERS adds processes.
# Migrations are the web service's: this one only serves.
set -eu
exec uvicorn mascarade_site.asgi:application \
    --host "${STREAM_HOST:-0.0.0.0}" \
    --port "${STREAM_PORT:-8001}" \
    --workers "${STREAM_WORKERS:-1}" \
    --loop uvloop \
    --http httptools \
    --proxy-headers \
    --forwarded-allow-ips "${FORWARDED_ALLOW_IPS:-127.0.0.1}" \
    --timeout-keep-alive 30 \
    --timeout-graceful-shutdown 5 \
    --no-access-log
