"""Vacations as spans of time, in each user's time zone, for the deadlines' arithmetic.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections import defaultdict
from collections.abc import Iterable

from django.utils import timezone

from accounts.models import User, Vacation
from games.core.deadlines import Interval
from games.models import PendingDecision


def _zone(user: User) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(user.timezone or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def today_for(user: User, now: dt.datetime | None = None) -> dt.date:
    return (now or timezone.now()).astimezone(_zone(user)).date()


def interval(vacation: Vacation, user: User) -> Interval:
    """The vacation as a span of time: from the first day's midnight to the day after the last's,
    in the user's time zone."""
    zone = _zone(user)
    start = dt.datetime.combine(vacation.start, dt.time(), tzinfo=zone)
    end = dt.datetime.combine(vacation.end + dt.timedelta(days=1), dt.time(), tzinfo=zone)
    return start.astimezone(dt.UTC), end.astimezone(dt.UTC)


def intervals_by_user(users: Iterable[User], since: dt.datetime | None = None
                      ) -> dict[int, list[Interval]]:
    """The vacations of several users that end at ``since`` (default: now) or later, in one
    query."""
    users = {user.pk: user for user in users if user is not None}
    out: dict[int, list[Interval]] = defaultdict(list)
    if not users:
        return out
    # (a day earlier: a vacation ending that day in a time zone behind UTC)
    earliest = (since or timezone.now()).date() - dt.timedelta(days=1)
    for vacation in Vacation.objects.filter(user_id__in=list(users), end__gte=earliest):
        out[vacation.user_id].append(interval(vacation, users[vacation.user_id]))
    return out


def intervals_for_rows(rows: Iterable[PendingDecision]) -> dict[int, list[Interval]]:
    """The vacations that may stop the clocks of these pending rows, by user (one query, none
    if no human is awaited)."""
    rows = [row for row in rows if row.user_id is not None and not row.bot]
    if not rows:
        return {}
    since = min(row.clock_from for row in rows)
    return intervals_by_user(User.objects.filter(pk__in={row.user_id for row in rows}), since)
