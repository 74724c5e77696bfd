"""What every game's pure rules share: the protocol (:mod:`.base`), the table moves that are no
rule of any game (:mod:`.table`), replays (:mod:`.replay`), the seeded generator (:mod:`.rng`) and
the bot protocol (:mod:`.bots`). Each game's rules live in its own package
(``games/<game>/rules/``); the site finds them through ``games.core.catalog``."""

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
from .replay import replay, replay_records, view_event

__all__ = [
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
    "replay",
    "replay_records",
    "view_event",
]
