"""Games keep the seqs of their table moves (the rules number only their own moves); and every
snapshot goes, since the Mascarade state's JSON form changed (rulings R5 and R8 track players,
``moved`` is new): snapshots are a cache, rebuilt by replaying the stored moves."""

from django.db import migrations, models


def fill_table_seqs(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    MoveRecord = apps.get_model("games", "MoveRecord")
    seqs: dict = {}
    for game_id, seq in (MoveRecord.objects.filter(payload__type="table")
                         .order_by("game_id", "seq").values_list("game_id", "seq")):
        seqs.setdefault(game_id, []).append(seq)
    for game_id, table_seqs in seqs.items():
        Game.objects.filter(pk=game_id).update(table_seqs=table_seqs)


def drop_snapshots(apps, schema_editor):
    apps.get_model("games", "Snapshot").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_version_and_deadline_base"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="table_seqs",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.RunPython(fill_table_seqs, migrations.RunPython.noop),
        migrations.RunPython(drop_snapshots, migrations.RunPython.noop),
    ]
