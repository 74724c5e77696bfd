"""The :class:`EreDesMasques` game object: the :class:`games.engine.base.Game` protocol over
:mod:`.rules` and :mod:`.views` (:class:`games.engine.base.ModuleGame`)."""

from __future__ import annotations

from typing import Any

from games.engine.base import ModuleGame, Result

from . import options, rules, views
from .cards import PLAYERS
from .state import State


class EreDesMasques(ModuleGame):
    id = "ere_des_masques"
    min_players = PLAYERS
    max_players = PLAYERS
    rules_module, views_module, options_module, state_class = rules, views, options, State

    def example_options(self, players: int) -> dict[str, Any]:
        """Minimal options for ``players`` (the protocol's simulation tests use them)."""
        return {"players": players}

    def result(self, state: State) -> Result | None:
        if state.phase != "over":
            return None
        details = {"kind": state.kind} if state.kind else {}
        # One against one: the winner first; no winner (a stalemate, the turn limit) is a draw.
        ranks = tuple(0 if p in state.winners or not state.winners else 1 for p in range(2))
        return Result(winner_seats=tuple(state.winners), winner_players=tuple(state.winners),
                      reason=state.reason, details=details, ranks=ranks)


GAME = EreDesMasques()
