"""The engine state of a game: from its :class:`~games.models.Snapshot` when current, else
from the snapshot plus the moves after it, else from a full replay of the stored moves; either
way the number of queries does not depend on the length of the game.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.exceptions import ObjectDoesNotExist

from games.core import dispatch
from games.core.catalog import get_game
from games.engine.table import is_table_move
from games.models import Game, MoveRecord, Snapshot


def iso(value: dt.datetime | None) -> str | None:
    """ISO 8601 in UTC with a ``Z``, to the second (API.md "Conventions")."""
    if value is None:
        return None
    return value.astimezone(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def cached_snapshot(game: Game) -> Snapshot | None:
    """The snapshot loaded with ``select_related("snapshot")`` (or by one query), if any."""
    try:
        return game.snapshot
    except ObjectDoesNotExist:
        return None


def load_state(game: Game, *, ask_refresh: bool = True) -> Any:
    """The engine state after ``game.seq`` moves, or ``None`` for a game that never started (open,
    or aborted before its last seat was taken).

    Current snapshot: no replay. Older snapshot: the moves after it are applied. None (or one
    ahead of the game row read earlier): a full replay from the seed. A selector never writes:
    when the snapshot was missing or behind, a task is asked to rebuild it
    (``games.core.services.snapshots``); the write path keeps it current otherwise.
    """
    if game.status == Game.Status.OPEN or game.started_at is None:
        return None
    engine = get_game(game.kind)
    snap = cached_snapshot(game)
    if snap is not None and snap.seq == game.seq:
        return engine.from_json(snap.state)
    if snap is not None and snap.seq < game.seq:
        state, after = engine.from_json(snap.state), snap.seq
    else:
        state, after = engine.setup(game.options, game.seed), 0
    moves = (MoveRecord.objects.filter(game_id=game.pk, seq__gt=after, seq__lte=game.seq)
             .order_by("seq").values_list("seat__position", "payload"))
    for player, payload in moves:
        if is_table_move(payload):  # pauses, replacements...: the site's, not the rules'
            continue
        state, _events = engine.apply(state, player, payload)
    if ask_refresh:
        dispatch.refresh_snapshot(game.pk)
    return state
