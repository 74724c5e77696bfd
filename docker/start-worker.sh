#!/bin/sh
# A Celery worker (no beat: the beat process runs alone, so periodic tasks run once), taking
# the queues of CELERY_QUEUES ("celery": bots, deadlines, mail...; the compose file's
# webhook-worker takes "webhooks" on threads: CELERY_POOL=threads), named CELERY_HOSTNAME
# (celery@<host>; two workers on one host need two names).
set -eu
exec celery -A mascarade_site worker --loglevel "${LOG_LEVEL:-INFO}" \
    --hostname "${CELERY_HOSTNAME:-celery@%h}" \
    --queues "${CELERY_QUEUES:-celery}" \
    --pool "${CELERY_POOL:-prefork}" \
    --concurrency "${CELERY_CONCURRENCY:-2}"
