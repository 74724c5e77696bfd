"""The moderation log refuses UPDATE and DELETE with no session-level escape (see
``games/migrations/0011_append_only_without_escape.py``)."""

from django.db import migrations


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        from games.migrations import _append_only

        schema_editor.execute(_append_only.protect("moderation_moderationlog"), params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        from games.migrations import _append_only

        schema_editor.execute(_append_only.unprotect("moderation_moderationlog"),
                              params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("moderation", "0003_moderators_view_users_only"),
        ("games", "0011_append_only_without_escape"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
