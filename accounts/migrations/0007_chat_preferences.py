"""Table chat: the daily digest switch and per-viewer chat mutes."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0006_alter_user_username'),
    ]

    operations = [
        migrations.AddField(
            model_name='user',
            name='notify_chat_digest',
            field=models.BooleanField(default=True, verbose_name='daily digest of new table chat messages'),
        ),
        migrations.CreateModel(
            name='ChatMute',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('muted', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='chat_mutes', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'muted chat',
                'verbose_name_plural': 'muted chats',
                'ordering': ['user_id', 'created_at', 'id'],
                'constraints': [models.UniqueConstraint(fields=('user', 'muted'), name='chat_mute_unique'), models.CheckConstraint(condition=models.Q(('user', models.F('muted')), _negated=True), name='chat_mute_not_oneself')],
            },
        ),
    ]
