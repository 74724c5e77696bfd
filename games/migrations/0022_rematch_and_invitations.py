"""Issue 46: a game's minimum reliability to join, the rematch that plays a finished game again,
the seats kept for the players invited back to it, and their mail's kind."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0021_inbound_mail_limits"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="min_reliability",
            field=models.PositiveSmallIntegerField(blank=True, null=True,
                                                   verbose_name="minimum reliability"),
        ),
        migrations.AddField(
            model_name="game",
            name="rematch",
            field=models.OneToOneField(blank=True, null=True,
                                       on_delete=django.db.models.deletion.SET_NULL,
                                       related_name="rematch_of", to="games.game"),
        ),
        migrations.AlterField(
            model_name="notification",
            name="kind",
            field=models.CharField(choices=[
                ("your_turn", "your turn"),
                ("challenge", "challenge window"),
                ("power", "power decision"),
                ("reminder", "deadline near"),
                ("started", "game started"),
                ("invited", "invited to play again"),
                ("ended", "game ended"),
                ("absent", "marked absent"),
                ("moderation", "moderator's action"),
                ("chat_digest", "daily chat digest"),
                ("mail_reply", "answer to a mail"),
                ("webhook_disabled", "webhook endpoint disabled"),
            ], max_length=16),
        ),
        migrations.CreateModel(
            name="Invitation",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                           verbose_name="ID")),
                ("position", models.PositiveSmallIntegerField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("game", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                           related_name="invitations", to="games.game")),
                ("invited_by", models.ForeignKey(blank=True, null=True,
                                                 on_delete=django.db.models.deletion.SET_NULL,
                                                 related_name="+",
                                                 to=settings.AUTH_USER_MODEL)),
                ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                           related_name="invitations",
                                           to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "ordering": ["game_id", "position"],
                "constraints": [
                    models.UniqueConstraint(fields=("game", "user"),
                                            name="invitation_unique_user"),
                    models.UniqueConstraint(fields=("game", "position"),
                                            name="invitation_unique_position"),
                ],
            },
        ),
    ]
