#!/bin/sh
# Run once by the postgres image when its data directory is created: the application role, which
# logs in, owns nothing and is no superuser (its privileges come from `manage.py grant_app_role`,
# run by start-web.sh as the owner after each migration).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    -v app_password="$APP_DB_PASSWORD" <<'SQL'
CREATE ROLE mascarade_app LOGIN PASSWORD :'app_password' NOSUPERUSER NOCREATEDB NOCREATEROLE;
GRANT CONNECT ON DATABASE mascarade TO mascarade_app;
SQL
