"""The live push's subscriptions to the write path's events (:mod:`games.core.events`),
connected in :class:`games.live.apps.LiveConfig`: once a change commits, the streams of the game
and of the players concerned are woken (:mod:`games.live.push`)."""

from __future__ import annotations

from games.core import events, selectors
from games.core.catalog import get_game
from games.live import push
from games.models import Game


@events.subscribe(events.GameChanged, after_commit=True)
def game_changed(event: events.GameChanged) -> None:
    """Wake the game's streams, and each player's whom the change concerns: the game started or
    ended (with what their stream says of it), they moved, a decision was given to them."""
    if not push.enabled():
        return
    game = event.game
    wake: list[tuple[int, str]] = []
    told_events: dict[str, dict] = {}
    for happened, kind in ((event.started, push.STARTED), (event.ended, push.ENDED)):
        if happened:
            wake += [(seat.user_id, kind) for seat in event.seats if seat.user_id]
            told_events[kind] = push.game_event(game, kind)
    wake += [(seat.user_id, push.MOVED) for seat in event.seats
             if seat.position in event.movers and seat.user_id]
    push.game_changed(game.pk, game.seq, game.version, wake, told(event), told_events)


def told(event: events.GameChanged) -> list[tuple[int, dict]]:
    """The decisions this transaction gave to players, and those it left awaited while the
    game moved on (others answered theirs, or a table action was recorded: each advances the
    seq; told again at the game's new seq, which the answer's ``expected_seq`` must name), each
    as its player's stream tells it (``games.live.streams.UserStream``): the decision with its
    deadline and the player's legal moves, from the state in hand (so that the stream reads
    nothing); without the state in hand (a table action), only which game: the stream reads
    it."""
    game = event.game
    created = {row.pk for row in event.created}
    rows = [row for row in event.pending
            if row.user_id and not row.bot and (row.pk in created or row.seq < game.seq)]
    if not rows:
        return []
    if event.state is None or game.status != Game.Status.ACTIVE:
        return [(row.user_id, {}) for row in rows]
    engine = get_game(game.kind)
    return [(row.user_id, {"kind": game.kind, "player": row.player, "since": row.seq,
                           "seat": row.seat, "decision": row.decision,
                           "deadline": selectors.iso(row.deadline),
                           "legal_moves": engine.legal_moves(event.state, row.player)})
            for row in rows]


@events.subscribe(events.ChatChanged, after_commit=True)
def chat_changed(event: events.ChatChanged) -> None:
    push.chat_changed(event.game_id)
