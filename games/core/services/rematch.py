"""Playing a finished game again: "play again" opens a new table with the same game and
options, its asker seated, its bots' seats taken by bots of the same kinds, and every other
player invited back to the seat they had (:class:`~games.models.Invitation`: the seat is kept
for them; they are told by mail, and their pages show it). The table starts by itself when the
last of them sits down (the lobby's start).

One new table per finished game, whoever asks first: the finished game's row is locked, and
its ``rematch`` names the table once made. A player who asks after that gets the same table,
and their seat in it (asking is joining). Locking: the finished game's row, then the new
table's (always in that order).
"""

from __future__ import annotations

import secrets
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from games.core import events, selectors
from games.core.catalog import get_game
from games.core.errors import Forbidden, GameNotActive, NotFound
from games.core.services.lobby import STAFF_OPTIONS, _default_name, _start_if_full, join_game
from games.core.services.write import lock
from games.models import Game, Invitation, Seat


def rematch(user, game_id) -> tuple[dict[str, Any], bool]:
    """The table that plays finished game ``game_id`` again, as ``user`` sees it, and whether
    this call made it. Asked by one of its human players; a second asker gets the same table
    and takes the seat kept for them there."""
    with transaction.atomic():
        old = lock(game_id)
        seats = selectors.seats_of(old)
        if not selectors.can_see(old, seats, user):
            raise NotFound(_("No such game."))
        if not any(seat.user_id == user.pk for seat in seats):
            raise Forbidden(_("Only the game's players can ask to play it again."))
        if old.status != Game.Status.FINISHED:
            raise GameNotActive(_("Only a finished game can be played again."))
        if old.rematch_id is not None:
            return _take_seat(user, old.rematch_id), False
        new = _new_table(user, old, seats)
        new_seats = selectors.seats_of(new)
        old.rematch = new
        old.version += 1  # (its page now leads to the new table)
        old.save(update_fields=["rematch", "version", "updated_at"])
        events.publish(events.GameChanged(game=old, seats=seats))
        return selectors.game_payload(_start_if_full(new, new_seats), user), True


def _new_table(user, old: Game, seats: list[Seat]) -> Game:
    """The new table: the old one's options (less the staff's: a fixed deal, a first seat), a
    new seed; ``user`` at their old seat, bots at theirs, the others invited to theirs."""
    engine = get_game(old.kind)
    options = engine.normalize_options({key: value for key, value in old.options.items()
                                        if key not in STAFF_OPTIONS})
    new = Game.objects.create(
        kind=old.kind, name=_default_name(user), options=options, seed=secrets.randbits(63),
        private=old.private, invite_code=secrets.token_urlsafe(9) if old.private else "",
        created_by=user, seat_count=engine.player_count(options),
        min_reliability=old.min_reliability)
    Seat.objects.bulk_create(
        [Seat(game=new, position=seat.position, user=user if seat.user_id == user.pk else None,
              bot_kind=seat.bot_kind) for seat in seats
         if seat.user_id == user.pk or seat.is_bot])
    invitations = Invitation.objects.bulk_create(
        [Invitation(game=new, user=seat.user, position=seat.position, invited_by=user)
         for seat in seats if seat.user_id is not None and seat.user_id != user.pk])
    events.publish(events.PlayersInvited(game=new, invitations=invitations, by=user))
    return new


def _take_seat(user, new_id) -> dict[str, Any]:
    """``user`` asks for a table made already: their seat there (taken now if it was kept for
    them and the table is still open), and the table as they see it."""
    new = lock(new_id)
    seats = selectors.seats_of(new)
    if (new.status == Game.Status.OPEN and not any(s.user_id == user.pk for s in seats)
            and Invitation.objects.filter(game=new, user=user).exists()):
        return join_game(user, new_id)
    loaded = selectors.load_for_viewer(new, user)
    if loaded is None:  # (a private table they declined)
        raise NotFound(_("No such game."))
    return selectors.game_payload(loaded, user)
