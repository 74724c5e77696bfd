"""`manage.py grant_app_role <role>`: the privileges of the service's application role, given by
the tables' owner (run it, as the owner, after each `migrate`: new tables get theirs).

The application role (the service's ``DATABASE_URL``) reads and writes every table but for what
it only appends to: the move records, the moderation log and the table chat's messages and
hides, which it may read and insert into, never update, delete or truncate (their triggers
refuse those too, with no session-level escape).
It owns nothing, so it can neither drop nor disable a trigger; it is not a superuser, so it
cannot switch ``session_replication_role``. See the README, "Security".
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

#: Tables the application only reads and appends to.
APPEND_ONLY = ("games_moverecord", "moderation_moderationlog", "games_chatmessage",
               "games_chathide")


class Command(BaseCommand):
    help = "Grant the application role its privileges (run as the tables' owner, after migrate)."

    def add_arguments(self, parser):
        parser.add_argument("role", help="the application role (a PostgreSQL role that exists)")

    def handle(self, *args, role: str, **options):
        if connection.vendor != "postgresql":
            raise CommandError("Database roles are PostgreSQL's: nothing to grant here.")
        from psycopg import sql

        name = sql.Identifier(role)
        statements = [
            sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(name),
            sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public "
                    "TO {}").format(name),
            sql.SQL("REVOKE UPDATE, DELETE, TRUNCATE ON {} FROM {}").format(
                sql.SQL(", ").join(sql.Identifier(t) for t in APPEND_ONLY), name),
            sql.SQL("GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {}")
            .format(name),
        ]
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement.as_string(connection.connection))
        self.stdout.write(f"{role}: reads and writes every table; only reads and appends to "
                          f"{', '.join(APPEND_ONLY)}.")
