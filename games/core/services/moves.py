"""A move: from a client (the API, a page), a bot, a timeout, a moderator, the system.

Locking duties: the game's row is locked (:func:`games.core.services.write.open_table`) before
anything is read, so moves of one game are applied one at a time, each against the state its
sender saw when it sends ``expected_seq``; the ``Idempotency-Key`` is checked and stored under
that same lock.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from games.core import selectors
from games.core.errors import Forbidden, GameNotActive, NotFound, StaleSeq
from games.core.services import idempotency
from games.core.services.write import commit, open_table
from games.models import Game, MoveRecord

Actor = MoveRecord.Actor


def submit_move(game_id, move: Any, *, user=None, player: int | None = None,
                actor: str = Actor.PLAYER, by_user=None, expected_seq: int | None = None,
                idem: idempotency.Idempotency | None = None,
                schedule: bool = True, own_decision_stands: bool = False,
                channel: str = "") -> idempotency.Outcome:
    """Apply one move, as ``user`` (a client) or as ``player`` (bots, timeouts, moderators,
    the system, who name the engine player index they act for).

    Under the game lock: the idempotency key (a stored answer is given again), the seat,
    ``expected_seq`` (any other seq is stale, as the API's contract says; with
    ``own_decision_stands``, the pages' rule: a seq at which the mover's decision was already
    awaited stands, so that a choice made "all at once" is not refused because another player
    chose first), then the engine, which raises its own errors (mapped by the edges). The
    answer's body is ``{"seq"}`` (the move record says its ``channel``: ``"api"``, ``"web"``,
    ``"mail"``), with ``"game"`` (the game as ``user`` now sees it, exactly what their read
    of it would answer, and its ``etag``) for a client. ``schedule=False``: the bots are not
    asked to play after the commit (the bots' own task goes on by itself). The number of
    queries does not depend on the length of the game.
    """

    def work() -> idempotency.Outcome:
        with transaction.atomic():
            table = open_table(game_id)
            first = idempotency.stored(idem)
            if first is not None:
                return first
            game, seats = table.game, table.seats
            mover = player
            if user is not None:
                if not selectors.can_see(game, seats, user):
                    raise NotFound(_("No such game."))
                if mover is None:
                    mine = [seat.position for seat in seats if seat.user_id == user.pk]
                    if not mine:
                        raise Forbidden(_("You have no seat in this game."))
                    mover = mine[0]
            if mover is None:
                raise ValueError("submit_move needs a user or a player")
            if game.status != Game.Status.ACTIVE:
                raise GameNotActive(_("This game is %(status)s: it takes no moves now.") % {
                    "status": game.get_status_display()})
            if expected_seq is not None and expected_seq != game.seq:
                # Others may have moved since the sender looked; with own_decision_stands the
                # answer still stands when the decision it answers was already awaited then
                # (the rules check it against the state now).
                own = next((row for row in table.pending if row.player == mover), None)
                if (not own_decision_stands or own is None
                        or not own.seq <= expected_seq < game.seq):
                    raise StaleSeq(game.seq)
            table.play(mover, move, actor=actor,
                       by_user=user if user is not None else by_user, channel=channel)
            if not schedule:
                table.bots_maybe = False
            commit(table)
            body: dict[str, Any] = {"seq": game.seq}
            etag = None
            if user is not None:
                body["game"] = selectors.game_payload(table.loaded(), user)
                etag = selectors.etag(game, user)
            outcome = idempotency.Outcome(body, etag=etag)
            idempotency.store(idem, outcome)
            return outcome

    return idempotency.once(idem, work)
