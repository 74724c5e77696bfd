"""Actions at the table rather than in the rules: pauses, absences, replacements, extensions,
aborts (``games.engine.table``), and what a player asks of their seat (a pause, their seat back,
silence).

Each table action is a move record like any other (a replay reproduces it) and takes effect on
the site's rows in the same transaction (:meth:`games.core.services.write.Table.act`):

- ``pause``: the game's status becomes ``paused``; each pending decision keeps the running time
  it had left in ``remaining``.
- ``resume``: ``active`` again; each decision's clock starts again with what was left.
- ``absent`` / ``back`` (``player``): recorded and shown to the table; with the ``"bot"``
  absence policy a bot decides for an absent seat.
- ``replace`` (``player``, ``occupant`` ``"user:<id>"`` or ``"bot:<kind>"``): the seat changes
  hands; its pending decisions follow; ``previous`` is filled in here.
- ``extend`` (``seconds``, optional ``player``): the pending decisions (of that player, or all)
  get that much more time (while paused, their time left grows).
- ``abort`` (``reason``): the game is ``aborted``; nothing is awaited any more.

Locking duties: every function locks the game's row for its whole transaction.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils.translation import gettext as _

from games.core import events, selectors
from games.core.errors import Forbidden, GameNotActive, Invalid, NotFound
from games.core.services.write import Table, commit, open_table
from games.models import Game, MoveRecord, Seat

Actor = MoveRecord.Actor


def apply_table_move(game_id, action: str, *, actor: str = Actor.SYSTEM, by_user=None,
                     expected_seq: int | None = None, **fields: Any) -> MoveRecord:
    """Append a table move (``{"type": "table", "action": action, **fields}``) and carry out its
    effect (see the module's text), in one transaction under the game lock.

    Raises the engine's ``MalformedMove`` / ``IllegalMove`` (bad payload, or an action the table
    does not allow now), :class:`GameNotActive` for a game in the wrong status,
    :class:`StaleSeq` when ``expected_seq`` is given and the game moved on, :class:`Invalid` for
    an empty seat or an unknown user. Returns the appended record."""
    with transaction.atomic():
        table = open_table(game_id, expected_seq=expected_seq)
        record = table.act(action, actor=actor, by_user=by_user, **fields)
        commit(table)
        return record


def _my_seat(table: Table, user) -> Seat:
    if not selectors.can_see(table.game, table.seats, user):
        raise NotFound(_("No such game."))
    mine = [seat for seat in table.seats if seat.user_id == user.pk]
    if not mine:
        raise Forbidden(_("You have no seat in this game."))
    return mine[0]


def come_back(user, game_id) -> dict[str, Any]:
    """An absent player says they are back: their seat is theirs again at once (a "back" table
    move), before the bot plays its next decision. Any move of theirs does the same."""
    with transaction.atomic():
        table = open_table(game_id)
        seat = _my_seat(table, user)
        if not seat.absent:
            raise Invalid({"seat": [_("Your seat is not marked absent.")]})
        table.act("back", player=seat.position, actor=Actor.PLAYER, by_user=user)
        commit(table)
        return selectors.game_payload(table.loaded(), user)


def request_pause(user, game_id, wanted: bool) -> dict[str, Any]:
    """A player asks for a pause (``wanted``) or withdraws the request. When every human player
    of an active game has asked, the game pauses (a table move ``by`` "players"). A player
    withdrawing the request from a game the players paused resumes it; a moderator's pause is
    lifted by a moderator only."""
    with transaction.atomic():
        table = open_table(game_id)
        game = table.game
        seat = _my_seat(table, user)
        if game.status not in (Game.Status.ACTIVE, Game.Status.PAUSED):
            raise GameNotActive(_("This game is %(status)s: it cannot be paused.") % {
                "status": game.get_status_display()})
        seat.wants_pause = wanted
        table.seats_changed.setdefault(seat.pk, set()).add("wants_pause")
        humans = [s for s in table.seats if s.user_id is not None]
        if game.status == Game.Status.ACTIVE and wanted and all(s.wants_pause for s in humans):
            table.act("pause", actor=Actor.PLAYER, by_user=user, by="players",
                      reason="All the players asked for a pause.")
        elif game.status == Game.Status.PAUSED and not wanted:
            if selectors.table_state(game).get("paused_by") != "players":
                raise Forbidden(_("A moderator paused this game: only a moderator can resume it."))
            table.act("resume", actor=Actor.PLAYER, by_user=user, by="players")
            for other in humans:
                other.wants_pause = False
                table.seats_changed.setdefault(other.pk, set()).add("wants_pause")
        _commit_seat_change(table)
        return selectors.game_payload(table.loaded(), user)


def mute_game(user, game_id, muted: bool) -> dict[str, Any]:
    """Switch this game's notifications off (or on again) for ``user``."""
    with transaction.atomic():
        table = open_table(game_id)
        seat = _my_seat(table, user)
        seat.muted = muted
        table.seats_changed.setdefault(seat.pk, set()).add("muted")
        _commit_seat_change(table)
    return {"muted": muted}


def _commit_seat_change(table: Table) -> None:
    """Commit a table whose seats changed, with or without a table move: the seats are written
    and the game's version bumped either way (the players' answers show the change)."""
    if table.records:
        commit(table)
        return
    for seat in table.seats:
        names = table.seats_changed.get(seat.pk)
        if names:
            seat.save(update_fields=sorted(names))
    game = table.game
    game.version += 1
    game.updated_at = table.now
    game.save(update_fields=["version", "updated_at"])
    events.publish(events.GameChanged(game=game, seats=table.seats))
    table.seats_changed = {}


def user_changed(user) -> int:
    """Something every table shows of ``user`` changed (their name, their vacation days): the
    games they sit at, not yet over, get a new version (their answers' ETag changes). Returns
    how many."""
    return (Game.objects.filter(seats__user=user)
            .exclude(status__in=[Game.Status.FINISHED, Game.Status.ABORTED])
            .update(version=F("version") + 1))
