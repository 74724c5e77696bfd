#!/bin/sh
# The Celery beat scheduler: exactly one in a deployment.
set -eu
exec celery -A mascarade_site beat --loglevel "${LOG_LEVEL:-INFO}" \
    --schedule "${VAR_DIR:-/app/var}/celerybeat-schedule"
