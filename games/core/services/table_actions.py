"""The table actions' effects on a locked game's rows: one handler per action.

A table action (``games.engine.table``: pause, resume, absent, back, extend, replace, abort) is
recorded by :meth:`games.core.services.write.Table.act`, which checks the game's status against
the action's :attr:`TableAction.statuses`, records the move and calls the action's handler here
with the table, the move, the seat it names (if any) and the pending decisions (none before the
start). A handler changes the rows in memory and says which fields changed
(``table.seat_changed``, ``table.row_changed``): the commit writes them.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from games.core import deadlines, events, selectors
from games.core.errors import AlreadySeated, Invalid
from games.engine import IllegalMove
from games.models import Game, PendingDecision, Seat


class Table(Protocol):
    """What a handler uses of the locked table (:class:`games.core.services.write.Table`)."""

    game: Game
    seats: list[Seat]
    now: dt.datetime
    game_fields: set[str]
    bots_maybe: bool
    ended: bool

    def seat_changed(self, seat: Seat, *names: str) -> None: ...

    def row_changed(self, row: PendingDecision, *names: str) -> None: ...

    def recompute(self, rows: list[PendingDecision]) -> None: ...


Handler = Callable[[Table, dict, "Seat | None", list[PendingDecision]], None]


@dataclass(frozen=True)
class TableAction:
    #: The game statuses in which the action may be taken.
    statuses: tuple[str, ...]
    #: Why it may not be taken in another (``%(status)s``: the game's).
    refusal: Promise
    handle: Handler


def bot_plays(game: Game, seat: Seat) -> bool:
    """A bot decides for this seat: a bot seat, or an absent player's under the "bot" policy."""
    return seat.is_bot or (seat.absent and game.options.get("absent_policy", "bot") == "bot")


def occupant(seat: Seat) -> str:
    return f"bot:{seat.bot_kind}" if seat.is_bot else f"user:{seat.user_id}"


def _pause(table: Table, move: dict, seat: Seat | None, pending: list[PendingDecision]) -> None:
    """The clocks stop: each running decision keeps the time it has left."""
    table.game.status = Game.Status.PAUSED
    away = selectors.intervals_for_rows(pending)
    for row in pending:
        row.remaining = int(deadlines.seconds_left(away.get(row.user_id, ()), row.clock_from,
                                                   row.clock_seconds, None, table.now))
        table.row_changed(row, "remaining")
    table.game_fields.add("status")


def _resume(table: Table, move: dict, seat: Seat | None, pending: list[PendingDecision]) -> None:
    """The clocks run again from now, with the time each decision had left."""
    table.game.status = Game.Status.ACTIVE
    for row in pending:
        if row.remaining is not None:
            row.clock_from, row.clock_seconds = table.now, row.remaining
        row.remaining = None
        table.row_changed(row, "remaining", "clock_from", "clock_seconds")
    table.recompute(pending)
    table.game_fields.add("status")
    table.bots_maybe = True


def _absent_or_back(table: Table, move: dict, seat: Seat | None,
                    pending: list[PendingDecision]) -> None:
    """A seat marked absent (a bot may play for it, by the game's policy), or given back."""
    absent = move["action"] == "absent"
    seat.absent = absent
    table.seat_changed(seat, "absent")
    if not absent:
        seat.timeouts_in_row = 0
        table.seat_changed(seat, "timeouts_in_row")
    for row in pending:
        if row.player == seat.position:
            row.bot = bot_plays(table.game, seat)
            table.row_changed(row, "bot")
    if absent:
        events.publish(events.SeatAbsent(game=table.game, seat=seat))
    table.bots_maybe = True


def _extend(table: Table, move: dict, seat: Seat | None, pending: list[PendingDecision]) -> None:
    """More time for one seat's decision, or for every decision awaited (in a game with a
    time bank, up to the bank's cap)."""
    player = move.get("player")
    rows = [row for row in pending if player is None or row.player == player]
    if not rows:
        raise IllegalMove((_("No decision is awaited from seat %(seat)s: there is no "
                             "deadline to extend.") % {"seat": player})
                          if player is not None else
                          _("No decision is awaited: there is no deadline to extend."),
                          code="nothing_to_extend")
    bank = deadlines.bank_of(table.game.options)
    away = selectors.intervals_for_rows(rows) if bank is not None else {}
    for row in rows:
        added = move["seconds"]
        if bank is not None:  # a seat's bank grows up to its cap, no further
            left = math.ceil(deadlines.seconds_left(
                away.get(row.user_id, ()) if not row.bot else (), row.clock_from,
                row.clock_seconds, row.remaining, table.now))
            added = max(0, bank.extended(left, added) - left)
        row.given_seconds += added
        if row.remaining is not None:
            row.remaining += added
        else:
            row.clock_seconds += added
        table.row_changed(row, "given_seconds", "remaining", "clock_seconds")
    table.recompute([row for row in rows if row.remaining is None])


def _replace(table: Table, move: dict, seat: Seat | None, pending: list[PendingDecision]) -> None:
    """Another user, or a bot, takes the seat (its decisions follow)."""
    kind, _sep, ident = move["occupant"].partition(":")
    if kind == "user":
        user = User.objects.filter(pk=int(ident)).first()
        if user is None:
            raise Invalid({"occupant": [f"There is no user {ident}."]})
        if any(other.user_id == user.pk for other in table.seats if other.pk != seat.pk):
            raise AlreadySeated()
        seat.user, seat.bot_kind = user, ""
    else:
        seat.user, seat.bot_kind = None, ident
    table.seat_changed(seat, "user", "bot_kind")
    mine = [row for row in pending if row.player == seat.position]
    for row in mine:
        row.user_id, row.bot = seat.user_id, bot_plays(table.game, seat)
        table.row_changed(row, "user", "bot")
    table.recompute([row for row in mine if row.remaining is None])
    table.bots_maybe = True


def _abort(table: Table, move: dict, seat: Seat | None, pending: list[PendingDecision]) -> None:
    """The game ends without a result (its pending decisions go at the commit)."""
    table.game.status = Game.Status.ABORTED
    table.game.finished_at = table.now
    table.game_fields |= {"status", "finished_at"}
    table.ended = True


_UNDER_WAY = (Game.Status.ACTIVE, Game.Status.PAUSED)
_AT_TABLE = gettext_lazy("This game is %(status)s: nothing can change at its table.")

ACTIONS: dict[str, TableAction] = {
    "pause": TableAction((Game.Status.ACTIVE,),
                         gettext_lazy("This game is %(status)s: it cannot be paused now."),
                         _pause),
    "resume": TableAction((Game.Status.PAUSED,),
                          gettext_lazy("This game is %(status)s: it cannot be resumed now."),
                         _resume),
    "absent": TableAction(_UNDER_WAY, _AT_TABLE, _absent_or_back),
    "back": TableAction(_UNDER_WAY, _AT_TABLE, _absent_or_back),
    "extend": TableAction(_UNDER_WAY, _AT_TABLE, _extend),
    "replace": TableAction(_UNDER_WAY, _AT_TABLE, _replace),
    "abort": TableAction((Game.Status.OPEN, *_UNDER_WAY),
                         gettext_lazy("This game is %(status)s: it cannot be aborted now."),
                         _abort),
}


def action(name: Any) -> TableAction:
    """The action named ``name``; an action the engine does not know is left to it to refuse
    (``apply_table``), with the statuses of any action at the table."""
    return ACTIONS.get(name) or TableAction(_UNDER_WAY, _AT_TABLE, lambda *args: None)
