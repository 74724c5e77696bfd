"""The snapshot, a cache of a game's engine state at its seq: rebuilt and stored when a read
found it missing or behind (reads never write: they ask for this by a task)."""

from __future__ import annotations

from django.db import transaction

from games.core import selectors
from games.core.catalog import get_game
from games.core.errors import NotFound
from games.core.services.write import lock
from games.models import Snapshot


def refresh(game_id) -> bool:
    """Store the state at the game's seq if its snapshot is missing or behind; idempotent.
    Returns whether one was written."""
    with transaction.atomic():
        try:
            game = lock(game_id)
        except NotFound:
            return False
        if game.started_at is None:
            return False
        snap = selectors.cached_snapshot(game)
        if snap is not None and snap.seq == game.seq:
            return False
        state = selectors.load_state(game, ask_refresh=False)
        Snapshot.objects.update_or_create(
            game_id=game.pk, defaults={"seq": game.seq,
                                       "state": get_game(game.kind).to_json(state)})
        return True
