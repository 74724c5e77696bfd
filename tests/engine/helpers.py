"""Helpers to script Mascarade games in tests: fixed deals, fixed first seat, scripted answers."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from games.engine.mascarade import MASCARADE as M
from games.engine.mascarade.data import PREP_TURNS
from games.engine.mascarade.state import State

#: Scenario A for 8 players, in a known order (seat i gets A8[i]).
A8 = ["judge", "king", "empress", "cheater", "sorceress", "fool", "peasant", "peasant"]
#: Scenario B for 8 players.
B8 = ["judge", "guru", "crook", "princess", "patron", "puppeteer", "empress", "beggar"]


def custom_options(deal: list[str], players: int | None = None, **options: Any) -> dict:
    players = players if players is not None else len(deal) - options.get("center", 0)
    return {"players": players, "scenario": "custom", "masks": list(deal), "deal": list(deal),
            **options}


def start(deal: list[str], first_seat: int = 0, players: int | None = None,
          **options: Any) -> State:
    """A custom game dealing ``deal`` (seats, then center slots), ``first_seat`` first."""
    return M.setup(custom_options(deal, players, first_seat=first_seat, **options), seed=1)


def do(s: State, player: int, move: dict) -> tuple[State, list[dict]]:
    return M.apply(s, player, move)


def at_turn(deal: list[str], seat: int, players: int | None = None,
            **options: Any) -> State:
    """The state of turn 5 (the first real turn) with ``seat`` to play and the deal unchanged:
    the four preparatory turns exchange with the left neighbour without swapping."""
    n = players if players is not None else len(deal) - options.get("center", 0)
    s = start(deal, first_seat=(seat - PREP_TURNS) % n, players=n, **options)
    for _ in range(PREP_TURNS):
        s, _ = do(s, s.at[s.seat], {"type": "exchange", "target": (s.seat + 1) % n,
                                     "swap": False})
    assert s.phase == "turn" and s.seat == seat
    return s


def announce(s: State, mask: str, claims: tuple[int, ...] = ()) -> tuple[State, list[dict]]:
    """The turn's seat announces ``mask``; seats in ``claims`` claim, the others pass."""
    s, events = do(s, s.at[s.seat], {"type": "announce", "mask": mask})
    while s.phase == "challenge":
        seat = M.pending(s)[0].seat
        s, more = do(s, s.at[seat], {"type": "claim" if seat in claims else "pass"})
        events += more
    return s, events


def decide(s: State, move: dict) -> tuple[State, list[dict]]:
    """The single pending player sends ``move``."""
    (p,) = M.pending(s)
    return do(s, p.player, move)


def with_coins(s: State, coins: list[int] | None = None, justice: int | None = None) -> State:
    """``s`` with other fortunes (a scripted table, as in the rulebook's examples)."""
    return replace(s, coins=list(coins) if coins is not None else list(s.coins),
                   justice=s.justice if justice is None else justice)


def of_type(events: list[dict], etype: str) -> list[dict]:
    return [e for e in events if e["type"] == etype]


def cards(s: State) -> list[dict]:
    return M.view(s, "moderator")["moderator"]["cards"]
