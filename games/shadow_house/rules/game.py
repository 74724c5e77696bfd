"""The :class:`ShadowHouse` game object: the :class:`games.engine.base.Game` protocol over
:mod:`.rules` and :mod:`.views` (:class:`games.engine.base.ModuleGame`)."""

from __future__ import annotations

from typing import Any

from games.engine.base import ModuleGame, Result, places

from . import options, rules, views
from .cards import MAX_PLAYERS, MIN_PLAYERS
from .state import State


class ShadowHouse(ModuleGame):
    id = "shadow_house"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    rules_module, views_module, options_module, state_class = rules, views, options, State

    def example_options(self, players: int) -> dict[str, Any]:
        """Minimal options for ``players`` (the protocol's simulation tests use them)."""
        return {"players": players}

    def result(self, state: State) -> Result | None:
        if state.decision != "over":
            return None
        winners = tuple(state.winners)
        if state.flash:
            # One round, two sides: the Culprit's (with its Accomplices) and the others; the
            # winners are one of them.
            sides = tuple(0 if p in winners else 1 for p in range(state.n))
            ranks = sides
        else:  # the winners first, then the others by their points over the rounds
            sides, ranks = (), places(list(state.points), winners)
        return Result(winner_seats=winners, winner_players=winners, reason=state.reason,
                      details={"points": list(state.points), "case": state.case},
                      ranks=ranks, teams=sides)


GAME = ShadowHouse()
