"""What a change to a game asks of the worker once it commits: the bots to play their decisions
(once), and a countdown for each near deadline. Subscribes to
:class:`games.core.events.GameChanged` (connected in ``games.apps``)."""

from __future__ import annotations

import datetime as dt

from games.core import dispatch, events
from games.models import Game, PendingDecision

#: Deadlines at most this far away get a countdown task; the sweep finds every deadline anyway.
COUNTDOWN_MAX = dt.timedelta(hours=1)


@events.subscribe(events.GameChanged, after_commit=True)
def game_changed(event: events.GameChanged) -> None:
    """For an active game: the bots asked to play (once) if a bot may have a decision; a
    countdown for each near human deadline this transaction set or moved."""
    game = event.game
    if game.status != Game.Status.ACTIVE:
        return
    if event.bots_may_play and any(row.bot for row in event.pending):
        dispatch.play_bots(game.pk, game.seq)
    current = {row.pk for row in event.pending if row.remaining is None and not row.bot}
    if event.now is not None:
        schedule_countdowns(game.pk, [row for row in [*event.created, *event.moved]
                                      if row.pk in current], event.now)


def schedule_countdowns(game_id, rows: list[PendingDecision], now: dt.datetime) -> None:
    """A countdown task, sent after the commit, for each of these running human deadlines less
    than :data:`COUNTDOWN_MAX` away (the sweep finds the others, and these too if the broker
    is down). A countdown left for an old deadline finds it not due and does nothing."""
    near = sorted({(row.pk, row.deadline) for row in rows
                   if not row.bot and row.remaining is None
                   and row.deadline - now <= COUNTDOWN_MAX})
    if near:
        dispatch.countdowns(game_id, near)
