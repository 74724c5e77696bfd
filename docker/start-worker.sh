#!/bin/sh
# The Celery worker (no beat: the beat process runs alone, so periodic tasks run once).
set -eu
exec celery -A mascarade_site worker --loglevel "${CELERY_LOG_LEVEL:-INFO}" \
    --concurrency "${CELERY_CONCURRENCY:-2}"
