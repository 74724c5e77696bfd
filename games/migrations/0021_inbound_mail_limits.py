"""Inbound mail (issue 44, item 5): the statuses of a mail whose sender is not authenticated
(``refused``), of too many mails (``throttled``, then ``silenced``), an expired reply address now
answered; an index for the limits' counts of one sender's recent mails."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0020_game_name"),
    ]

    operations = [
        migrations.AlterField(
            model_name="inboundmessage",
            name="status",
            field=models.CharField(choices=[
                ("played", "move played"),
                ("word", "command done (help, status, pause, back, mute)"),
                ("unreadable", "command not understood"),
                ("illegal", "move refused by the rules"),
                ("stale", "the decision had passed"),
                ("automatic", "automatic mail (ignored)"),
                ("duplicate", "same message again (ignored)"),
                ("no_token", "no reply address of ours (ignored)"),
                ("bad_token", "forged reply address (ignored)"),
                ("expired", "expired reply address (the player told)"),
                ("wrong_sender", "sender is not the player (ignored)"),
                ("too_large", "too large (ignored)"),
                ("malformed", "unreadable mail (ignored)"),
                ("refused", "sender not authenticated (refused, the player told)"),
                ("throttled", "too many mails (the player told once)"),
                ("silenced", "too many mails (ignored)"),
            ], db_index=True, max_length=16),
        ),
        migrations.AddIndex(
            model_name="inboundmessage",
            index=models.Index(fields=["sender", "received_at"],
                               name="games_inbound_sender_time"),
        ),
    ]
