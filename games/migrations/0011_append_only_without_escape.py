"""Move records refuse UPDATE and DELETE with no session-level escape.

pgtrigger's Protect trigger (``move_append_only``) skips itself for a session that names it in
the ``pgtrigger.ignore`` setting, which any role that can write the table may set. This second
trigger has no such check, and fires ``ALWAYS``, whatever ``session_replication_role`` says
(which only a superuser may change anyway). Only the tables' owner can drop or disable it; the
service's application role does not own them (see the README, "Security").
"""

from django.db import migrations

from games.migrations._append_only import protect, unprotect

def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(protect("games_moverecord"), params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(unprotect("games_moverecord"), params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0010_tokens_to_knox"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
