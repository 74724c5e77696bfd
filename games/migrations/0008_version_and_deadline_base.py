"""Games get a ``version`` (the ETag's base); pending decisions store the base their deadline is
computed from (``clock_from``, ``clock_seconds``, ``given_seconds``); the stored idempotent
answers keep their body only; the outbox has moderators' messages.

Existing pending decisions get a base that gives back the deadline they have: their clock runs
from when they were created, for the running time between then and their deadline (the time of
their user's vacations in between does not run, so that it is not counted twice when the
deadline is next computed).
"""

import datetime as dt
import zoneinfo

from django.db import migrations, models


def _interval(vacation, zone_name):
    try:
        zone = zoneinfo.ZoneInfo(zone_name or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("UTC")
    start = dt.datetime.combine(vacation.start, dt.time(), tzinfo=zone)
    end = dt.datetime.combine(vacation.end + dt.timedelta(days=1), dt.time(), tzinfo=zone)
    return start.astimezone(dt.UTC), end.astimezone(dt.UTC)


def _running(intervals, start, end):
    if end <= start:
        return 0
    total = (end - start).total_seconds()
    covered = start
    for begin, finish in sorted(intervals):
        begin, finish = max(begin, covered), min(finish, end)
        if finish > begin:
            total -= (finish - begin).total_seconds()
            covered = finish
    return max(0, int(total))


def fill_bases(apps, schema_editor):
    PendingDecision = apps.get_model("games", "PendingDecision")
    Vacation = apps.get_model("accounts", "Vacation")
    for row in PendingDecision.objects.select_related("game", "user").iterator():
        timer = "challenge_timeout" if row.decision == "challenge" else "move_timeout"
        given = row.game.options.get(timer)
        intervals = []
        if row.user_id is not None and not row.bot:
            intervals = [_interval(v, row.user.timezone)
                         for v in Vacation.objects.filter(user_id=row.user_id)]
        row.clock_from = row.created_at
        if row.remaining is not None:
            row.clock_seconds = row.remaining
        else:
            row.clock_seconds = _running(intervals, row.created_at, row.deadline)
        if not isinstance(given, int) or given < row.clock_seconds:
            given = max(row.clock_seconds, int((row.deadline - row.created_at).total_seconds()))
        row.given_seconds = max(0, given)
        row.save(update_fields=["clock_from", "clock_seconds", "given_seconds"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_ordering_by_column"),
        ("games", "0007_snapshot_lz4"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="version",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="pendingdecision",
            name="clock_from",
            field=models.DateTimeField(null=True),
        ),
        migrations.AddField(
            model_name="pendingdecision",
            name="clock_seconds",
            field=models.PositiveIntegerField(null=True),
        ),
        migrations.AddField(
            model_name="pendingdecision",
            name="given_seconds",
            field=models.PositiveIntegerField(null=True),
        ),
        migrations.RunPython(fill_bases, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="pendingdecision",
            name="clock_from",
            field=models.DateTimeField(),
        ),
        migrations.AlterField(
            model_name="pendingdecision",
            name="clock_seconds",
            field=models.PositiveIntegerField(),
        ),
        migrations.AlterField(
            model_name="pendingdecision",
            name="given_seconds",
            field=models.PositiveIntegerField(),
        ),
        migrations.RemoveField(
            model_name="idempotencykey",
            name="status_code",
        ),
        migrations.AlterField(
            model_name="notification",
            name="kind",
            field=models.CharField(
                choices=[("your_turn", "your turn"), ("challenge", "challenge window"),
                         ("power", "power decision"), ("reminder", "deadline near"),
                         ("started", "game started"), ("ended", "game ended"),
                         ("absent", "marked absent"), ("moderation", "moderator's action")],
                max_length=16),
        ),
    ]
