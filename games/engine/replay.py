"""Replaying a game from its seed and moves, and the projection of any stored event (rules' and
table's alike): shared by the site and the tests, for every game."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .base import Event, Game, Move, Viewer, copy_json
from .table import apply_table, initial_table, is_table_event, is_table_move


def replay(game: Game, options: dict[str, Any], seed: int,
           moves: Iterable[tuple[int, Move]]) -> tuple[Any, list[list[Event]]]:
    """Replay ``(player, move)`` pairs from the seed: the final state and each move's events."""
    state = game.setup(options, seed)
    all_events: list[list[Event]] = []
    for player, move in moves:
        state, events = game.apply(state, player, move)
        all_events.append(events)
    return state, all_events


def replay_records(game: Game, options: dict[str, Any], seed: int,
                   records: Iterable[tuple[int | None, Move]]
                   ) -> tuple[Any, dict[str, Any], list[list[Event]]]:
    """Replay stored records, rules moves and table moves (:mod:`games.engine.table`) alike:
    the final engine state, the final table state and each record's events."""
    state = game.setup(options, seed)
    table = initial_table()
    count = game.player_count(options)
    all_events: list[list[Event]] = []
    for player, move in records:
        if is_table_move(move):
            table, events = apply_table(table, move, count)
        else:
            state, events = game.apply(state, player, move)
        all_events.append(events)
    return state, table, all_events


def view_event(game: Game, event: Event, viewer: Viewer, state: Any) -> Event | None:
    """An event as ``viewer`` may see it: table events are public, the others go through the
    game's own projection."""
    if is_table_event(event):
        return copy_json(event)
    return game.view_event(event, viewer, state)
