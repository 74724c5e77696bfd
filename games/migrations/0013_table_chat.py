"""The table chat: messages and moderators' hides (append-only), the digest's marks."""

import django.db.models.deletion
import django.db.models.functions.text
import django.db.models.lookups
import pgtrigger.compiler
import pgtrigger.migrations
from django.conf import settings
from django.db import migrations, models

from games.migrations._append_only import protect, unprotect

#: The chat's append-only tables get the trigger without a session escape too (0011).
APPEND_ONLY = ("games_chatmessage", "games_chathide")


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for table in APPEND_ONLY:
            schema_editor.execute(protect(table), params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for table in APPEND_ONLY:
            schema_editor.execute(unprotect(table), params=None)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0012_notification_interrupted'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name='notification',
            name='kind',
            field=models.CharField(choices=[('your_turn', 'your turn'), ('challenge', 'challenge window'), ('power', 'power decision'), ('reminder', 'deadline near'), ('started', 'game started'), ('ended', 'game ended'), ('absent', 'marked absent'), ('moderation', "moderator's action"), ('chat_digest', 'daily chat digest')], max_length=16),
        ),
        migrations.CreateModel(
            name='ChatMessage',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('seat', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('text', models.TextField()),
                ('source', models.CharField(blank=True, max_length=64)),
                ('seq', models.PositiveIntegerField(default=0)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('author', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('game', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='chat_messages', to='games.game')),
            ],
            options={
                'verbose_name': 'chat message',
                'verbose_name_plural': 'chat messages',
                'ordering': ['game_id', 'id'],
            },
        ),
        migrations.CreateModel(
            name='ChatHide',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reason', models.TextField(verbose_name='reason')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('moderator', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('message', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='hide', to='games.chatmessage')),
            ],
            options={
                'verbose_name': 'hidden chat message',
                'verbose_name_plural': 'hidden chat messages',
            },
        ),
        migrations.CreateModel(
            name='ChatDigestMark',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('last_message_id', models.BigIntegerField(default=0)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('game', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='games.game')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('user', 'game'), name='chat_digest_mark_unique')],
            },
        ),
        migrations.AddIndex(
            model_name='chatmessage',
            index=models.Index(fields=['game', 'id'], name='chat_game_id'),
        ),
        migrations.AddIndex(
            model_name='chatmessage',
            index=models.Index(fields=['author', 'game', 'created_at'], name='chat_author_recent'),
        ),
        migrations.AddConstraint(
            model_name='chatmessage',
            constraint=models.CheckConstraint(condition=models.Q(django.db.models.lookups.LessThanOrEqual(django.db.models.functions.text.Length('text'), 500), django.db.models.lookups.GreaterThan(django.db.models.functions.text.Length('text'), 0)), name='chat_text_length'),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name='chatmessage',
            trigger=pgtrigger.compiler.Trigger(name='chat_message_append_only', sql=pgtrigger.compiler.UpsertTriggerSql(func="RAISE EXCEPTION 'pgtrigger: Cannot update or delete rows from % table', TG_TABLE_NAME;", hash='91f3e2e167449222d0472b8c18d995262932faec', operation='UPDATE OR DELETE', pgid='pgtrigger_chat_message_append_only_7bab0', table='games_chatmessage', when='BEFORE')),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name='chathide',
            trigger=pgtrigger.compiler.Trigger(name='chat_hide_append_only', sql=pgtrigger.compiler.UpsertTriggerSql(func="RAISE EXCEPTION 'pgtrigger: Cannot update or delete rows from % table', TG_TABLE_NAME;", hash='6bceec593bc4ca33e6aa7cd11d58239f34af39c2', operation='UPDATE OR DELETE', pgid='pgtrigger_chat_hide_append_only_99254', table='games_chathide', when='BEFORE')),
        ),
        migrations.RunPython(forwards, backwards),
    ]
