#!/bin/sh
# The database brought up to date: migrations applied as the tables' owner (DATABASE_OWNER_URL,
# else DATABASE_URL), then the application role (DB_APP_ROLE, when set) granted its privileges.
# Run by start-web.sh before it serves (WEB_MIGRATE=0 skips it), and once by docker/prod_local.py
# before it starts its two web processes.
set -eu
OWNER_URL="${DATABASE_OWNER_URL:-$DATABASE_URL}"
DATABASE_URL="$OWNER_URL" python manage.py migrate --noinput
if [ -n "${DB_APP_ROLE:-}" ]; then
    DATABASE_URL="$OWNER_URL" python manage.py grant_app_role "$DB_APP_ROLE"
fi
