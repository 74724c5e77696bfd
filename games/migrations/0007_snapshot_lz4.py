"""The snapshot column compressed with lz4 rather than pglz on PostgreSQL (a long game's state is
tens of kilobytes, rewritten and read on every move: lz4 does both several times faster). A
server built without lz4 keeps its default; other databases have nothing to change."""

from django.db import migrations

LZ4 = """
DO $$
BEGIN
    ALTER TABLE games_snapshot ALTER COLUMN state SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'lz4 is not available: the snapshot keeps the default compression';
END $$;
"""
PGLZ = "ALTER TABLE games_snapshot ALTER COLUMN state SET COMPRESSION DEFAULT;"


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(LZ4)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(PGLZ)


class Migration(migrations.Migration):
    dependencies = [("games", "0006_snapshot_state_as_text")]

    operations = [migrations.RunPython(forwards, backwards)]
