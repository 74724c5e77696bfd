"""A game loaded for a viewer: the game, its seats, its state and its pending decisions, and
whether the viewer may see it at all.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import BooleanField, FloatField, IntegerField, QuerySet
from django.db.models.expressions import RawSQL
from django.utils import timezone

from games.core.selectors.state import load_state
from games.models import Game, PendingDecision, Seat
from games.ratings.selectors import (
    SEAT_RATED_GAMES_SQL,
    SEAT_RATING_SQL,
    SEAT_RELIABILITY_SQL,
)


@dataclass
class Loaded:
    """A game with its seats (by position), state and pending decisions, as read together."""

    game: Game
    seats: list[Seat]
    state: Any = None
    pending: list[PendingDecision] = field(default_factory=list)
    #: The pending decisions, read with the seats before the state was loaded (see
    #: :func:`complete`); ``None`` if not.
    pending_read: list[PendingDecision] | None = None

    def player_of(self, user) -> int | None:
        """The viewer's engine player index, or ``None`` for a spectator."""
        if user is None or not user.is_authenticated:
            return None
        for seat in self.seats:
            if seat.user_id == user.pk:
                return seat.position
        return None

    def seat_at(self, position: int) -> Seat:
        for seat in self.seats:
            if seat.position == position:
                return seat
        raise LookupError(position)


def game_queryset() -> QuerySet[Game]:
    return Game.objects.select_related("snapshot", "created_by")


#: The seat's user has a vacation on a day / ending on a day or later, in plain SQL (see
#: :func:`seats_with_vacations`): fixed text, the days its parameters.
_ON_VACATION = ('EXISTS (SELECT 1 FROM "accounts_vacation" v WHERE v."user_id" = '
                '"games_seat"."user_id" AND v."start" <= %s AND v."end" >= %s)')
_VACATION_AHEAD = ('EXISTS (SELECT 1 FROM "accounts_vacation" v WHERE v."user_id" = '
                   '"games_seat"."user_id" AND v."end" >= %s)')


def seats_with_vacations(today: dt.date, yesterday: dt.date) -> QuerySet[Seat]:
    """Seats with their users, each marked ``on_vacation`` (their user declared ``today``, UTC,
    a vacation day) and ``vacation_ahead`` (a vacation under way or to come; from
    ``yesterday``: one ending today in a time zone behind UTC), with their player's rating at
    the game (``rating_ordinal``, ``rated_games``) and reliability (``reliability_percent``:
    ``games.ratings.selectors.seat_figures`` shows them).

    The two marks are plain SQL (``RawSQL``): every move and every read of a game reads its
    seats, and the ORM's ``Exists(...)`` subqueries, built and compiled anew each time, doubled
    the read's CPU (1.3 ms against 0.6 ms on this project's 2-core machine,
    ``docs/performance.md``)."""
    return Seat.objects.select_related("user").annotate(
        on_vacation=RawSQL(_ON_VACATION, (today, today),  # noqa: S611 (fixed text)
                           output_field=BooleanField()),
        vacation_ahead=RawSQL(_VACATION_AHEAD, (yesterday,),  # noqa: S611 (fixed text)
                              output_field=BooleanField()),
        rating_ordinal=RawSQL(SEAT_RATING_SQL, (),  # noqa: S611 (fixed text)
                              output_field=FloatField()),
        rated_games=RawSQL(SEAT_RATED_GAMES_SQL, (),  # noqa: S611 (fixed text)
                           output_field=IntegerField()),
        reliability_percent=RawSQL(SEAT_RELIABILITY_SQL, (),  # noqa: S611 (fixed text)
                                   output_field=IntegerField()))


def days() -> tuple[dt.date, dt.date]:
    today = timezone.now().date()
    return today, today - dt.timedelta(days=1)


def pending_of(game_id) -> list[PendingDecision]:
    """The pending decisions of one game: one query."""
    return list(PendingDecision.objects.filter(game_id=game_id))


def seats_of(game: Game) -> list[Seat]:
    """The seats of one game by position, with their users and vacations: one query."""
    return seats_by_id(game.pk)


def seats_by_id(game_id) -> list[Seat]:
    return list(seats_with_vacations(*days()).filter(game_id=game_id).order_by("position"))


def seats_and_pending(game: Game) -> tuple[list[Seat], list[PendingDecision]]:
    """The seats of one game (as :func:`seats_of`) and its pending decisions: two queries."""
    return seats_of(game), pending_of(game.pk)


def can_see(game: Game, seats: list[Seat], user) -> bool:
    """Public games: everyone, anonymous spectators included. Private: their players and staff."""
    if not game.private:
        return True
    if user is None or not user.is_authenticated:
        return False
    return user.is_staff or any(seat.user_id == user.pk for seat in seats)


def find_game(game_id) -> Game | None:
    """The game row with its snapshot and creator, in one query (whoever may see it: see
    :func:`load_for_viewer`); ``None`` for no such game or an id that is no game's."""
    try:
        return game_queryset().filter(pk=game_id).first()
    except (ValueError, ValidationError):
        return None


def find_and_load(game_id, user, *, with_state: bool = True) -> Loaded | None:
    """:func:`find_game`, then :func:`load_for_viewer` with the pending decisions: the game
    with its snapshot and creator, its seats and its pending decisions; ``None`` if there is
    no such game or ``user`` may not see it."""
    game = find_game(game_id)
    if game is None:
        return None
    return load_for_viewer(game, user, with_state=with_state)


def load_for_viewer(game: Game, user, *, with_state: bool = True,
                    with_pending: bool = True) -> Loaded | None:
    """Seats, state and pending decisions of ``game``; ``None`` if ``user`` may not see it.
    The seats and the pending decisions of a game under way are read in one query, even
    without the state (``with_state=False``: :func:`complete` adds it, and takes them); those
    of a game the user may not see are read and left."""
    pending = None
    if with_pending and game.started_at is not None:
        seats, pending = seats_and_pending(game)
    else:
        seats = seats_of(game)
    if not can_see(game, seats, user):
        return None
    loaded = Loaded(game=game, seats=seats, pending_read=pending)
    if with_state:
        complete(loaded, with_pending=with_pending)
    return loaded


def complete(loaded: Loaded, *, with_pending: bool = True) -> Loaded:
    """Add the state (and pending decisions, unless already read with the seats) to a game
    loaded without them."""
    loaded.state = load_state(loaded.game)
    if with_pending and loaded.state is not None:
        loaded.pending = (pending_of(loaded.game.pk) if loaded.pending_read is None
                          else loaded.pending_read)
    return loaded
