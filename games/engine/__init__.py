"""Pure rules engines: the protocol in :mod:`games.engine.base`, lookup by :func:`get_game`."""

from __future__ import annotations

from .base import (
    MODERATOR,
    SPECTATOR,
    EngineError,
    Game,
    GameOver,
    IllegalMove,
    InvalidOptions,
    MalformedMove,
    NotYourDecision,
    Pending,
    Result,
)
from .registry import GAMES, get_game, replay, replay_records, view_event

__all__ = [
    "GAMES",
    "MODERATOR",
    "SPECTATOR",
    "EngineError",
    "Game",
    "GameOver",
    "IllegalMove",
    "InvalidOptions",
    "MalformedMove",
    "NotYourDecision",
    "Pending",
    "Result",
    "get_game",
    "replay",
    "replay_records",
    "view_event",
]
