"""A game's name (issue 42, item 12): what the players call it. The games already there get the
default a new game gets, "<creator> #<n>" (their creator's n-th game, oldest first); a game whose
creator's account is gone, the start of its id."""

from django.db import migrations, models


def name_existing(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    counts: dict = {}
    games = Game.objects.filter(name="").select_related("created_by").order_by("created_at", "id")
    for game in games.iterator(chunk_size=2000):
        if game.created_by_id is None:
            game.name = str(game.id)[:8]
        else:
            counts[game.created_by_id] = counts.get(game.created_by_id, 0) + 1
            game.name = f"{game.created_by.username} #{counts[game.created_by_id]}"
        game.save(update_fields=["name"])


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0019_game_kind_without_default'),
    ]

    operations = [
        migrations.AddField(
            model_name='game',
            name='name',
            field=models.CharField(blank=True, default='', max_length=80, verbose_name='name'),
        ),
        migrations.RunPython(name_existing, migrations.RunPython.noop, elidable=True),
    ]
