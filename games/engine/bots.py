"""The bot protocol shared by every game, and the random bot any game can use (each game's own
bots live with its rules; the site finds them through ``games.core.catalog``).

A bot decides from what its player may know, never from the full state: its inputs are the
player's projection (``Game.view(state, player)``), the legal moves, and the player's own view of
the history (``Game.view_event`` of every event so far, oldest first, each with its ``seq``). It is
a pure function of those and ``rng``, so a seeded rng makes its choice reproducible.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from .base import Event, Move


class Bot(Protocol):
    kind: str

    def choose(self, view: dict[str, Any], legal_moves: list[Move], history: list[Event],
               rng: random.Random) -> Move:
        """One of ``legal_moves`` (never empty when called)."""


class RandomBot:
    """Uniform over the legal moves: the baseline, and a fair stand-in for any game."""

    kind = "random"

    def choose(self, view, legal_moves, history, rng):
        return rng.choice(legal_moves)


def bot_rng(seed: int, seq: int, player: int) -> random.Random:
    """The rng a bot uses for its decision at ``seq``: reproducible, independent per decision."""
    return random.Random(f"bot:{seed}:{seq}:{player}")
