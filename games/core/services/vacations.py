"""Vacations: declaring and cancelling them, and what they do to deadlines.

A vacation (``accounts.models.Vacation``) is a span of whole days in the user's time zone. While
a user is away, their deadlines do not run (:mod:`games.core.deadlines`): each pending decision's
deadline is computed from its stored base and the vacations in force, so a declaration and a
cancellation both simply recompute it, and no sequence of them moves a deadline further than the
days still declared.

Locking duties: :func:`declare` and :func:`cancel` lock the user's row (one request at a time per
user: the yearly allowance cannot be raced), then each game with a decision of theirs in turn,
as a move would, to recompute its deadlines.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import VACATION_DAYS_PER_YEAR, User, Vacation
from games.core.deadlines import place
from games.core.errors import Invalid, NotFound
from games.core.selectors import intervals_for_rows, today_for
from games.core.services.scheduling import schedule_countdowns
from games.core.services.table import user_changed
from games.core.services.write import lock
from games.models import Game, PendingDecision

#: The last day a vacation may end on (so that the day after it is a date).
LAST_DAY = dt.date(9998, 12, 31)


def _days_in_year(vacations: Iterable[Vacation], year: int) -> int:
    first, last = dt.date(year, 1, 1), dt.date(year, 12, 31)
    total = 0
    for vacation in vacations:
        start, end = max(vacation.start, first), min(vacation.end, last)
        if start <= end:
            total += (end - start).days + 1
    return total


def declare(user: User, start: dt.date, end: dt.date) -> Vacation:
    """Declare days off; the user's deadlines are recomputed. Refused (:class:`Invalid`) when
    the span is reversed, starts in the past, overlaps another, or would take the year over
    the allowance."""
    if end < start:
        message = _("The last day comes before the first day.")
        raise Invalid({"end": [message]}, message)
    if start < today_for(user):
        message = _("A vacation cannot start in the past.")
        raise Invalid({"start": [message]}, message)
    if (end - start).days + 1 > VACATION_DAYS_PER_YEAR:
        message = _("A vacation lasts at most %(n)d days.") % {"n": VACATION_DAYS_PER_YEAR}
        raise Invalid({"end": [message]}, message)
    if end > LAST_DAY:
        message = _("A vacation ends on %(day)s at the latest.") % {"day": LAST_DAY.isoformat()}
        raise Invalid({"end": [message]}, message)
    with transaction.atomic():
        # One declaration at a time per user: the allowance check cannot be raced.
        User.objects.select_for_update().filter(pk=user.pk).first()
        existing = list(Vacation.objects.filter(user=user).filter(
            Q(start__year__in=[start.year, end.year]) | Q(end__year__in=[start.year, end.year])))
        if any(v.start <= end and start <= v.end for v in existing):
            message = _("These days overlap a vacation you already declared.")
            raise Invalid({"start": [message]}, message)
        new = Vacation(user=user, start=start, end=end)
        for year in range(start.year, end.year + 1):
            used = _days_in_year(existing, year)
            wanted = _days_in_year([new], year)
            if used + wanted > VACATION_DAYS_PER_YEAR:
                left = max(0, VACATION_DAYS_PER_YEAR - used)
                message = ngettext(
                    "You have %(left)d vacation day left in %(year)d (%(per)d per calendar "
                    "year).",
                    "You have %(left)d vacation days left in %(year)d (%(per)d per calendar "
                    "year).", left) % {"left": left, "year": year, "per": VACATION_DAYS_PER_YEAR}
                raise Invalid({"end": [message]}, message)
        new.save()
        recompute_deadlines(user)
    return new


def cancel(user: User, vacation_id: int) -> None:
    """Cancel a vacation that has not started yet (days already taken stay taken); the user's
    deadlines are recomputed without it. :class:`NotFound` if it is not theirs."""
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()
        vacation = Vacation.objects.filter(pk=vacation_id, user=user).first()
        if vacation is None:
            raise NotFound(_("No such vacation."))
        if vacation.start <= today_for(user):
            message = _("This vacation has started: it can no longer be cancelled.")
            raise Invalid({"start": [message]}, message)
        vacation.delete()
        recompute_deadlines(user)


def recompute_deadlines(user: User) -> int:
    """The user's vacations changed: each running deadline of theirs is computed again from its
    base (each game locked in turn, as a move would), and every game they sit at shows it (its
    version is bumped: the players' ``vacation`` flags and the deadlines are in its answers).
    Returns how many deadlines moved."""
    now = timezone.now()
    moved = 0
    for game_id in sorted({str(g) for g in PendingDecision.objects.filter(
            user=user, bot=False).values_list("game_id", flat=True)}):
        with transaction.atomic():
            game = lock(game_id)
            rows = list(PendingDecision.objects.filter(game_id=game.pk, user=user, bot=False,
                                                       remaining__isnull=True))
            away = intervals_for_rows(rows).get(user.pk, []) if rows else []
            changed = []
            for row in rows:
                before = (row.deadline, row.remind_at)
                place(row, away)
                if (row.deadline, row.remind_at) != before:
                    changed.append(row)
            if changed:
                PendingDecision.objects.bulk_update(changed, ["deadline", "remind_at"])
                # (under the lock, with the change: the locking duty of games.core.services.write)
                Game.objects.filter(pk=game.pk).update(version=F("version") + 1)
                if game.status == Game.Status.ACTIVE:
                    schedule_countdowns(game.pk, changed, now)
            moved += len(changed)
    user_changed(user)
    return moved
