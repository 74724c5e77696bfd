"""Game speeds and time banks (issue 47): a game's ``speed``, kept on its row for the lobby's
estimates, and each seat's ``bank_seconds`` (a game played with a time bank). The games already
there keep their timers: their speed is what those timers say (a named speed's, else
"custom"), from their stored options, which do not change."""

from django.db import migrations, models

from games.engine.options import speed_of


def speed_of_existing(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    changed = []
    for game in Game.objects.filter(speed="").only("id", "options").iterator(chunk_size=2000):
        game.speed = speed_of(game.options if isinstance(game.options, dict) else {})
        changed.append(game)
        if len(changed) >= 2000:
            Game.objects.bulk_update(changed, ["speed"])
            changed = []
    Game.objects.bulk_update(changed, ["speed"])


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0022_rematch_and_invitations'),
    ]

    operations = [
        migrations.AddField(
            model_name='game',
            name='speed',
            field=models.CharField(blank=True, default='', max_length=8, verbose_name='speed'),
        ),
        migrations.AddField(
            model_name='seat',
            name='bank_seconds',
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(speed_of_existing, migrations.RunPython.noop, elidable=True),
    ]
