"""Reliability: how often a player answers in time, counted from the records the site keeps.

Over the 90 full days (UTC) before a day ``as_of``:

- **decisions**: the rules' moves of the player's seats (table moves left out) that were theirs
  to make: those they sent (``actor`` ``player``), those the deadline played (``timeout``, or a
  moderator's "timeout now") and those a bot played while they were absent; moves made on a day
  of one of their vacations are left out (their clocks stop then, and a bot may stand in).
  **answered**: those they sent. The share is ``answered / decisions``.
- **removed**: games whose seat was given to someone else (a table ``replace`` naming them);
  **left**: games that ended (finished or aborted) in those days with them marked absent
  (their seats' ``ended_at``, written with the game's end).

A figure of a day never changes afterwards (moves and table moves are append-only, vacations
cannot be declared in the past), so it is computed once a day for everyone
(:func:`games.ratings.services.refresh_reliability`, stored in :class:`Reliability` and read with
every seat) and, for one player's page, at once by :func:`measure`.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, Q

from accounts.models import User, Vacation
from games.models import Game, MoveRecord, Seat

#: The days counted.
WINDOW_DAYS = 90

Actor = MoveRecord.Actor
#: The actors of a decision that was the player's (a bot on a human's seat: standing in for an
#: absent player).
COUNTED = (Actor.PLAYER, Actor.TIMEOUT, Actor.MODERATOR, Actor.BOT)


@dataclass(frozen=True)
class Figures:
    as_of: dt.date
    decisions: int = 0
    answered: int = 0
    removed: int = 0
    left: int = 0

    @property
    def percent(self) -> int | None:
        """The share answered in time, in percent rounded down; ``None`` without decisions."""
        return self.answered * 100 // self.decisions if self.decisions else None


def window(as_of: dt.date) -> tuple[dt.datetime, dt.datetime]:
    end = dt.datetime.combine(as_of, dt.time(), tzinfo=dt.UTC)
    return end - dt.timedelta(days=WINDOW_DAYS), end


def _zone(user: User) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(user.timezone or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def vacation_spans(users: list[User], start: dt.datetime, end: dt.datetime
                   ) -> dict[int, list[tuple[dt.datetime, dt.datetime]]]:
    """The users' vacations that overlap ``start``–``end``, as spans of time (their days from
    midnight to midnight in the user's time zone, as the deadlines count them:
    ``games.core.selectors.vacations.interval``), by user: one query."""
    by_id = {user.pk: user for user in users}
    out: dict[int, list[tuple[dt.datetime, dt.datetime]]] = {}
    # (a day more on each side: the users' time zones)
    for vacation in Vacation.objects.filter(user_id__in=list(by_id),
                                            end__gte=start.date() - dt.timedelta(days=1),
                                            start__lte=end.date() + dt.timedelta(days=1)):
        zone = _zone(by_id[vacation.user_id])
        begin = dt.datetime.combine(vacation.start, dt.time(), tzinfo=zone)
        finish = dt.datetime.combine(vacation.end + dt.timedelta(days=1), dt.time(),
                                     tzinfo=zone)
        out.setdefault(vacation.user_id, []).append((begin.astimezone(dt.UTC),
                                                     finish.astimezone(dt.UTC)))
    return out


def measure(users: Iterable[User], as_of: dt.date) -> dict[int, Figures]:
    """The figures of ``users`` (by id) over the :data:`WINDOW_DAYS` days before ``as_of``:
    five queries whatever their number (their vacations, their seats of the window, their
    decisions, the seats given away, the games left)."""
    users = [user for user in users if user is not None]
    ids = [user.pk for user in users]
    if not ids:
        return {}
    start, end = window(as_of)
    away = vacation_spans(users, start, end)
    # The seats whose moves may be of the window: those not ended, or ended since its start
    # (two ranges of the index seat_user_ended), not every seat the players ever had. Read
    # apart from their moves: joined to them, the planner read the whole seats table for the
    # player of 3,500 games of bench/fill.py's full database (a parallel plan, 48 ms; this
    # way 1 ms for their 459 seats, then 9 ms for the 6,586 moves of the window).
    seats = dict(Seat.objects.filter(Q(ended_at__isnull=True) | Q(ended_at__gte=start),
                                     user_id__in=ids).order_by().values_list("id", "user_id"))
    on_vacation = Q()
    for user_id, spans in away.items():
        theirs = [seat for seat, owner in seats.items() if owner == user_id]
        for begin, finish in spans:
            if theirs and finish > start and begin < end:
                on_vacation |= Q(seat_id__in=theirs, created_at__gte=begin,
                                 created_at__lt=finish)
    moves = (MoveRecord.objects.filter(seat_id__in=list(seats), created_at__gte=start,
                                       created_at__lt=end, actor__in=COUNTED)
             .exclude(payload__type="table"))
    if on_vacation:
        moves = moves.exclude(on_vacation)
    counts: dict[int, dict[str, int]] = {}
    for row in moves.values("seat_id").annotate(
            decisions=Count("id"), answered=Count("id", filter=Q(actor=Actor.PLAYER))):
        mine = counts.setdefault(seats[row["seat_id"]], {"decisions": 0, "answered": 0})
        mine["decisions"] += row["decisions"]
        mine["answered"] += row["answered"]
    previous = {f"user:{user_id}": user_id for user_id in ids}
    # The replacements of the window (a moderator's: few), read through the partial index
    # move_replaced_user, whose condition is this filter's, and matched to these users here (a
    # lookup on the key's text compiles to JSON on SQLite, which the index's text is not).
    removed_games: dict[int, set] = defaultdict(set)
    for payload, game_id in (MoveRecord.objects.filter(payload__action="replace",
                                                       created_at__gte=start, created_at__lt=end)
                             .values_list("payload", "game_id")):
        user_id = previous.get(payload.get("previous"))
        if user_id is not None:
            removed_games[user_id].add(game_id)
    # (the games that ended in the window: their seats' ended_at, an entry of seat_user_ended)
    left = dict(
        Seat.objects.filter(user_id__in=ids, absent=True,
                            game__status__in=[Game.Status.FINISHED, Game.Status.ABORTED],
                            ended_at__gte=start, ended_at__lt=end)
        .values("user_id").annotate(n=Count("game_id", distinct=True))
        .values_list("user_id", "n"))
    removed_by_user = {user_id: len(games) for user_id, games in removed_games.items()}
    return {user_id: Figures(as_of=as_of,
                             decisions=counts.get(user_id, {}).get("decisions", 0),
                             answered=counts.get(user_id, {}).get("answered", 0),
                             removed=removed_by_user.get(user_id, 0), left=left.get(user_id, 0))
            for user_id in ids}
