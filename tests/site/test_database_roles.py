"""The move records and the moderation log refuse UPDATE and DELETE with no session-level escape:
not for the application role (``grant_app_role``: it may only read and append to them), and not
for a role that was given every DML privilege either (their trigger without escape refuses, even
after ``pgtrigger.ignore`` is set); neither can switch ``session_replication_role``, nor disable
a trigger of a table it does not own."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction

from moderation.models import ModerationLog
from tests.api.factories import UserFactory
from tests.api.helpers import play_service_moves, start_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

APP = "mascarade_test_app"
DML = "mascarade_test_dml"


@pytest.fixture
def played(db):
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    play_service_moves(game, 3, dict(enumerate(users)))
    ModerationLog.objects.create(moderator=users[0], action="pause", game=game, reason="test")
    return game


def _refused(cursor, statement: str, match: str) -> None:
    with pytest.raises(DatabaseError, match=match), transaction.atomic():
        cursor.execute(statement)


def _ignore_every_trigger(cursor) -> None:
    """What pgtrigger's escape hatch asks of a session: name the triggers to skip."""
    cursor.execute("SELECT tgname FROM pg_trigger WHERE tgrelid IN "
                   "('games_moverecord'::regclass, 'moderation_moderationlog'::regclass) "
                   "AND NOT tgisinternal")
    names = [name for (name,) in cursor.fetchall()]
    assert any(name.startswith("pgtrigger_") for name in names), names
    cursor.execute("SELECT set_config('pgtrigger.ignore', %s, true)",
                   ["{" + ",".join(names) + "}"])


def test_no_role_of_the_service_can_change_the_append_only_tables(played):
    game = played
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE ROLE {APP} NOLOGIN")  # (rolled back with the test)
        cursor.execute(f"CREATE ROLE {DML} NOLOGIN")
        call_command("grant_app_role", APP)
        cursor.execute(f"GRANT USAGE ON SCHEMA public TO {DML}")
        cursor.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public "
                       f"TO {DML}")
        for role in (APP, DML):
            cursor.execute(f"SET LOCAL ROLE {role}")
            cursor.execute("SELECT count(*) FROM games_moverecord WHERE game_id = %s",
                           [str(game.pk)])
            assert cursor.fetchone()[0] == 3
            _ignore_every_trigger(cursor)
            # The application role lacks the grant; the DML role meets the trigger, whatever
            # pgtrigger.ignore says.
            refusal = "permission denied" if role == APP else "is append-only"
            for table in ("games_moverecord", "moderation_moderationlog"):
                _refused(cursor, f"UPDATE {table} SET id = id", refusal)  # noqa: S608 (fixed)
                _refused(cursor, f"DELETE FROM {table}", refusal)  # noqa: S608
            _refused(cursor, "SET session_replication_role = replica", "permission denied")
            _refused(cursor, "ALTER TABLE games_moverecord DISABLE TRIGGER ALL", "must be owner")
            cursor.execute("RESET ROLE")
        # The application role writes what the service writes elsewhere.
        cursor.execute(f"SET LOCAL ROLE {APP}")
        cursor.execute("UPDATE games_game SET version = version + 1 WHERE id = %s",
                       [str(game.pk)])
        cursor.execute("RESET ROLE")
    assert ModerationLog.objects.count() == 1
