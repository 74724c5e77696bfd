"""A game recorded by an earlier engine, stored as the site stores games (its options, seed and
append-only move records, a snapshot written then) and read back by today's site: the helper of
each game's ``test_recorded_games.py`` (no test here; see ``tests/engine/recorded.py``)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from games.core import selectors
from games.core.services import snapshots
from games.engine import Game as Engine
from games.models import Game, MoveRecord, Seat, Snapshot
from tests.engine.recorded import as_recorded, moves_of


def store(engine: Engine, entry: dict[str, Any], *, snapshot: bool) -> Game:
    """The recorded game stored whole (bots in every seat), with the snapshot recorded with it
    or without any."""
    moves = moves_of(entry)
    players = engine.player_count(entry["options"])
    game = Game.objects.create(kind=engine.id, options=entry["options"], seed=entry["seed"],
                               status=Game.Status.ACTIVE, seat_count=players, seq=len(moves),
                               started_at=timezone.now())
    seats = {p: Seat.objects.create(game=game, position=p, bot_kind="random")
             for p in range(players)}
    MoveRecord.objects.bulk_create([
        MoveRecord(game=game, seq=k, seat=seats[player], actor=MoveRecord.Actor.BOT,
                   payload=move)
        for k, (player, move) in enumerate(moves, 1)])
    if snapshot:
        Snapshot.objects.create(game=game, seq=entry["snapshot"]["seq"],
                                state=entry["snapshot"]["state"])
    return Game.objects.select_related("snapshot").get(pk=game.pk)


def check_the_site_reads_it_as_recorded(engine: Engine, entry: dict[str, Any]) -> None:
    """Stored without a snapshot, the game replays from its seed to the recorded end; with the
    snapshot stored then, from the snapshot and the moves after it; its snapshot rewritten by
    today's engine (``games.core.services.snapshots``) loads the same."""
    game = store(engine, entry, snapshot=False)
    assert as_recorded(engine, selectors.load_state(game, ask_refresh=False)) == entry["final"]
    game = store(engine, entry, snapshot=True)
    assert game.snapshot.seq < game.seq
    assert as_recorded(engine, selectors.load_state(game, ask_refresh=False)) == entry["final"]
    assert snapshots.refresh(game.pk)
    game = Game.objects.select_related("snapshot").get(pk=game.pk)
    assert game.snapshot.seq == game.seq
    assert as_recorded(engine, selectors.load_state(game, ask_refresh=False)) == entry["final"]
