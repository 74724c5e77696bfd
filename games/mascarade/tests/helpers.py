"""Helpers to script Mascarade games in tests: fixed deals, fixed first seat, scripted answers."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from games.mascarade.rules import MASCARADE as M
from games.mascarade.rules import MASKS
from games.mascarade.rules.data import PREP_TURNS
from games.mascarade.rules.state import State

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


#: Option sets that, between them, use every mask, both challenge modes and center cards.
EXPLORE_OPTIONS = [
    {"players": 4},
    {"players": 5, "scenario": "B", "log_masks": False},
    {"players": 8, "scenario": "B", "challenge_mode": "simultaneous"},
    {"players": 12, "scenario": "custom",
     "masks": ["judge", "spy", "fool", "puppeteer", "princess", "guru", "sorceress", "crook",
               "gambler", "peasant", "peasant", "king"]},
    {"players": 10, "scenario": "custom", "center": 2, "challenge_mode": "simultaneous",
     "masks": ["judge", "thief", "widow", "patron", "beggar", "cheater", "empress", "spy",
               "guru", "crook", "fool", "gambler"]},
]


def explore(options: dict, seed: int, moves: int = 300, claim_rate: float = 0.15):
    """Yield the states of a random game (claims kept rare so that powers resolve often)."""
    rnd = random.Random(seed)
    s = M.setup(options, seed)
    yield s
    for _ in range(moves):
        if s.phase == "over":
            return
        p = rnd.choice(M.pending(s))
        if p.decision == "challenge":
            move = {"type": "claim" if rnd.random() < claim_rate else "pass"}
        else:
            move = rnd.choice(M.legal_moves(s, p.player))
        s, _ = M.apply(s, p.player, move)
        yield s


def universe(s: State) -> list[dict]:
    """Every well-formed move for ``s``'s table (legal now or not)."""
    seats = list(range(s.n))
    slots = [*seats, *(f"center-{k}" for k in range(s.center))]
    bools = (True, False)
    moves: list[dict] = [{"type": "look"}, {"type": "claim"}, {"type": "pass"},
                         {"type": "sorceress", "target": None}]
    moves += [{"type": "exchange", "target": t, "swap": b} for t in slots for b in bools]
    moves += [{"type": kind, "mask": m} for kind in ("announce", "guru_answer") for m in MASKS]
    moves += [{"type": kind, "target": t} for kind in ("spy", "princess", "guru", "crook",
                                                       "sorceress") for t in seats]
    moves += [{"type": "spy_swap", "swap": b} for b in bools]
    pairs = [[a, b] for a in seats for b in seats]
    moves += [{"type": "fool", "targets": p, "swap": b} for p in pairs for b in bools]
    moves += [{"type": "puppeteer", "targets": p} for p in pairs]
    moves += [{"type": "gambler", "hidden": h, "target": t} for h in (1, 2, 3) for t in seats]
    moves += [{"type": "gambler_guess", "guess": g} for g in (1, 2, 3)]
    return moves
