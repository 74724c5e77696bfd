"""Indexes no query needs, each written at every move, dropped.

- ``moverecord.game_id`` and ``pendingdecision.game_id``: ``move_unique_seq`` (game, seq) and
  ``pending_unique_player`` (game, player) begin with the game and serve every look-up by it.
  Only the index goes (the foreign keys stay as they are, not dropped and validated again, which
  Django's ``AlterField`` would do on a table of every move).
- ``notification.status`` and ``notification.next_attempt_at`` (and the text-pattern index of
  ``status``): every query on them names a status, which ``outbox_due`` (status,
  next_attempt_at) serves.
- ``notification.dedupe_key``: unique by a constraint instead of ``unique=True``, which also
  made a text-pattern index (``LIKE``) that no query uses.
"""

import django.db.models.deletion
from django.db import migrations, models


def _drop_index(model_name: str, field: models.Field, index: str, table: str, column: str):
    return migrations.SeparateDatabaseAndState(
        state_operations=[migrations.AlterField(model_name=model_name, name="game",
                                                field=field)],
        database_operations=[migrations.RunSQL(
            f'DROP INDEX IF EXISTS "{index}"',
            reverse_sql=f'CREATE INDEX IF NOT EXISTS "{index}" ON "{table}" ("{column}")')],
    )


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0016_seat_seen_seq"),
    ]

    operations = [
        _drop_index("moverecord", models.ForeignKey(
            db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name="moves",
            to="games.game"), "games_moverecord_game_id_6d15b994", "games_moverecord", "game_id"),
        _drop_index("pendingdecision", models.ForeignKey(
            db_index=False, on_delete=django.db.models.deletion.CASCADE,
            related_name="pending_decisions", to="games.game"),
            "games_pendingdecision_game_id_b876433d", "games_pendingdecision", "game_id"),
        migrations.AlterField(
            model_name="notification",
            name="next_attempt_at",
            field=models.DateTimeField(),
        ),
        migrations.AlterField(
            model_name="notification",
            name="status",
            field=models.CharField(choices=[("pending", "pending"), ("sending", "sending"),
                                            ("sent", "sent"), ("folded", "folded into another"),
                                            ("skipped", "skipped (notifications off)"),
                                            ("failed", "failed")],
                                   default="pending", max_length=16),
        ),
        migrations.AlterField(
            model_name="notification",
            name="dedupe_key",
            field=models.CharField(max_length=200),
        ),
        migrations.AddConstraint(
            model_name="notification",
            constraint=models.UniqueConstraint(fields=("dedupe_key",),
                                               name="notification_unique_dedupe_key"),
        ),
    ]
