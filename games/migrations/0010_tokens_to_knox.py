"""API tokens move from DRF's table (one per user, kept in plain text) to django-rest-knox's
(several per user, kept as digests): each existing token is kept working, as its digest, and the
plain-text table is dropped."""

from django.db import migrations


def carry_over(apps, schema_editor):
    from knox.crypto import hash_token
    from knox.settings import CONSTANTS

    connection = schema_editor.connection
    if "authtoken_token" not in connection.introspection.table_names():
        return
    AuthToken = apps.get_model("knox", "AuthToken")
    with connection.cursor() as cursor:
        cursor.execute("SELECT key, user_id, created FROM authtoken_token")
        rows = cursor.fetchall()
    AuthToken.objects.bulk_create([
        AuthToken(digest=hash_token(key), token_key=key[:CONSTANTS.TOKEN_KEY_LENGTH],
                  user_id=user_id, created=created, expiry=None)
        for key, user_id, created in rows], ignore_conflicts=True)
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE authtoken_token")


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_table_seqs_and_new_state_format"),
        ("knox", "0009_extend_authtoken_field"),
    ]

    operations = [migrations.RunPython(carry_over, migrations.RunPython.noop)]
