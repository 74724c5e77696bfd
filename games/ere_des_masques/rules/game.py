"""The :class:`EreDesMasques` game object: the :class:`games.engine.base.Game` protocol over
:mod:`.rules` and :mod:`.views`."""

from __future__ import annotations

from typing import Any

from games.engine.base import Event, Move, Pending, Result, Viewer

from . import rules, views
from .cards import PLAYERS
from .options import normalize_options
from .state import State


class EreDesMasques:
    id = "ere_des_masques"
    min_players = PLAYERS
    max_players = PLAYERS

    def normalize_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return normalize_options(options)

    def player_count(self, options: dict[str, Any]) -> int:
        return normalize_options(options)["players"]

    def example_options(self, players: int) -> dict[str, Any]:
        """Minimal options for ``players`` (the protocol's simulation tests use them)."""
        return {"players": players}

    def setup(self, options: dict[str, Any], seed: int) -> State:
        return rules.setup(options, seed)

    def pending(self, state: State) -> list[Pending]:
        return rules.pending(state)

    def legal_moves(self, state: State, player: int) -> list[Move]:
        return rules.legal_moves(state, player)

    def apply(self, state: State, player: int, move: Move) -> tuple[State, list[Event]]:
        return rules.apply(state, player, move)

    def timeout_move(self, state: State, player: int) -> Move:
        return rules.timeout_move(state, player)

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        return views.view(state, viewer)

    def view_event(self, event: Event, viewer: Viewer, state: State) -> Event | None:
        return views.view_event(event, viewer, state)

    def result(self, state: State) -> Result | None:
        if state.phase != "over":
            return None
        details = {"kind": state.kind} if state.kind else {}
        return Result(winner_seats=tuple(state.winners), winner_players=tuple(state.winners),
                      reason=state.reason, details=details)

    def to_json(self, state: State) -> dict[str, Any]:
        return state.to_json()

    def from_json(self, data: dict[str, Any]) -> State:
        return State.from_json(data)


GAME = EreDesMasques()
