"""The registered games and a replay helper shared by the site and the tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .base import Event, Game, InvalidOptions, Move


def _load() -> dict[str, Game]:
    from .mascarade import MASCARADE

    return {MASCARADE.id: MASCARADE}


GAMES: dict[str, Game] = _load()


def get_game(game_id: str) -> Game:
    try:
        return GAMES[game_id]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise InvalidOptions(f"Unknown game {game_id!r}; known games: {known}.",
                             code="unknown_game", field="game") from None


def replay(game: Game, options: dict[str, Any], seed: int,
           moves: Iterable[tuple[int, Move]]) -> tuple[Any, list[list[Event]]]:
    """Replay ``(player, move)`` pairs from the seed: the final state and each move's events."""
    state = game.setup(options, seed)
    all_events: list[list[Event]] = []
    for player, move in moves:
        state, events = game.apply(state, player, move)
        all_events.append(events)
    return state, all_events
