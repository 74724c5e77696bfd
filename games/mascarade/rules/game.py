"""The :class:`Mascarade` game object: the :class:`games.engine.base.Game` protocol over
:mod:`.rules` and :mod:`.views` (:class:`games.engine.base.ModuleGame`)."""

from __future__ import annotations

from games.engine.base import ModuleGame, Result, places

from . import options, rules, views
from .data import MAX_PLAYERS, MIN_PLAYERS
from .state import State


class Mascarade(ModuleGame):
    id = "mascarade"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    rules_module, views_module, options_module, state_class = rules, views, options, State

    def result(self, state: State) -> Result | None:
        if state.phase != "over":
            return None
        winners = tuple(state.at[x] for x in state.winners)
        # The places: the winners first (a Cheater's win puts the Cheater first whatever the
        # others' coins), then the others by their coins (each player's: the seat they end at).
        coins = [state.coins[state.seat_of[p]] for p in range(state.n)]
        return Result(winner_seats=tuple(state.winners), winner_players=winners,
                      reason=state.reason, details={"coins": list(state.coins)},
                      ranks=places(coins, winners))


MASCARADE = Mascarade()
