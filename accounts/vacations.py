"""Vacations: declaring and cancelling them, and what they do to deadlines.

A vacation is a span of whole days in the user's time zone. While a user is away, their deadlines
do not run: a deadline is pushed later by the vacation time that falls between now and it (and by
any further vacation the pushed deadline reaches).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections import defaultdict
from collections.abc import Iterable

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from .models import VACATION_DAYS_PER_YEAR, User, Vacation

Interval = tuple[dt.datetime, dt.datetime]


class VacationError(ValueError):
    """A vacation that cannot be declared; ``field`` and a sentence say why."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field, self.message = field, message


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


def push_deadline(intervals: Iterable[Interval], now: dt.datetime,
                  deadline: dt.datetime) -> dt.datetime:
    """The deadline once the time from ``now`` to it stops running during the intervals."""
    remaining = deadline - now
    at = now
    for start, end in sorted(intervals):
        if end <= at:
            continue
        if start > at:
            if start - at >= remaining:
                break
            remaining -= start - at
        at = end
    return at + remaining


def intervals_by_user(users: Iterable[User], now: dt.datetime | None = None
                      ) -> dict[int, list[Interval]]:
    """The vacations still to come or under way of several users, in one query."""
    users = {user.pk: user for user in users if user is not None}
    out: dict[int, list[Interval]] = defaultdict(list)
    if not users:
        return out
    earliest = (now or timezone.now()).date() - dt.timedelta(days=1)
    for vacation in Vacation.objects.filter(user_id__in=list(users), end__gte=earliest):
        out[vacation.user_id].append(interval(vacation, users[vacation.user_id]))
    return out


def _days_in_year(vacations: Iterable[Vacation], year: int) -> int:
    first, last = dt.date(year, 1, 1), dt.date(year, 12, 31)
    total = 0
    for vacation in vacations:
        start, end = max(vacation.start, first), min(vacation.end, last)
        if start <= end:
            total += (end - start).days + 1
    return total


def declare(user: User, start: dt.date, end: dt.date) -> Vacation:
    """Declare days off. Refused (:class:`VacationError`) when the span is reversed, starts in
    the past, overlaps another, or would take the year over the allowance."""
    if end < start:
        raise VacationError("end", "The last day comes before the first day.")
    if start < today_for(user):
        raise VacationError("start", "A vacation cannot start in the past.")
    if (end - start).days + 1 > VACATION_DAYS_PER_YEAR:
        raise VacationError("end", f"A vacation lasts at most {VACATION_DAYS_PER_YEAR} days.")
    with transaction.atomic():
        # One declaration at a time per user: the allowance check cannot be raced.
        User.objects.select_for_update().filter(pk=user.pk).first()
        existing = list(Vacation.objects.filter(user=user).filter(
            Q(start__year__in=[start.year, end.year]) | Q(end__year__in=[start.year, end.year])))
        if any(v.start <= end and start <= v.end for v in existing):
            raise VacationError("start", "These days overlap a vacation you already declared.")
        new = Vacation(user=user, start=start, end=end)
        for year in range(start.year, end.year + 1):
            used = _days_in_year(existing, year)
            wanted = _days_in_year([new], year)
            if used + wanted > VACATION_DAYS_PER_YEAR:
                left = max(0, VACATION_DAYS_PER_YEAR - used)
                raise VacationError(
                    "end", f"You have {left} vacation day(s) left in {year} "
                           f"({VACATION_DAYS_PER_YEAR} per calendar year).")
        new.save()
        from games.services import push_deadlines_for_vacation

        push_deadlines_for_vacation(user)
    return new


def cancel(user: User, vacation_id: int) -> bool:
    """Cancel a vacation that has not started yet (days already taken stay taken)."""
    with transaction.atomic():
        vacation = Vacation.objects.select_for_update().filter(pk=vacation_id, user=user).first()
        if vacation is None:
            return False
        if vacation.start <= today_for(user):
            raise VacationError("start", "This vacation has started: it can no longer be "
                                         "cancelled.")
        vacation.delete()
    return True
