"""Helpers to script L'Ère des Masques games in tests (no test here): fixed deals through the
staff option ``deal``, staged positions, scripted moves, random play.

A deal is laid out as set-up reads it (top of the deck first): seat 0's two zone cards, seat 1's
two, seat 0's five hand cards, seat 1's five, then the pile, top first.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from games.ere_des_masques.rules import GAME, KINDS
from games.ere_des_masques.rules.state import State

G = GAME
COPIES = 8


def deal(zone0: Sequence[str] = ("noble", "recruiter"), zone1: Sequence[str] = ("noble", "spy"),
         hand0: Sequence[str] = ("noble", "recruiter", "spy", "brute", "assassin"),
         hand1: Sequence[str] = ("noble", "recruiter", "spy", "brute", "assassin"),
         pile: Sequence[str] = ()) -> list[str]:
    """A 40-card deal: the given zones (2 cards), hands (5) and top of the pile; the rest of the
    pile follows, the remaining cards taken in turn in the order of §1."""
    assert len(zone0) == len(zone1) == 2 and len(hand0) == len(hand1) == 5
    top = [*zone0, *zone1, *hand0, *hand1, *pile]
    left = Counter(dict.fromkeys(KINDS, COPIES))
    left.subtract(top)
    assert min(left.values()) >= 0, f"more than 8 of a kind: {left}"
    rest: list[str] = []
    while sum(left.values()):
        for kind in KINDS:
            if left[kind]:
                rest.append(kind)
                left[kind] -= 1
    return [*top, *rest]


def start(first: int = 0, revision: int | None = None, **parts: Any) -> State:
    """A game dealt :func:`deal` ``(**parts)``, ``first`` to play, under the rules' latest
    revision (the options normalized, as for a new game) or ``revision``."""
    options = {"deal": deal(**parts), "first_seat": first}
    if revision is not None:
        options["revision"] = revision
    return G.setup(G.normalize_options(options), seed=1)


def stage(s: State, rest: int | None = None, **fields: Any) -> State:
    """``s`` with other fields (zones, hands, pile, discard...), the 40 cards kept. Without a
    given pile, the pile keeps its order but gives up the cards the fields added elsewhere and
    takes the ones they left out at its bottom; with a given pile, the cards left out go to the
    bottom of the pile, or to seat ``rest``'s hand."""
    s = State.from_json({**G.to_json(s), **copy.deepcopy(fields)})
    left = Counter(dict.fromkeys(KINDS, COPIES))
    if "pile" not in fields:
        pile, s.pile = s.pile, []
        left.subtract(everything(s))
        kept = []
        for card in pile:
            if left[card] > 0:
                kept.append(card)
                left[card] -= 1
        s.pile = kept
    else:
        left.subtract(everything(s))
    assert min(left.values()) >= 0, f"more than 8 of a kind: {left}"
    extra = [kind for kind in KINDS for _ in range(left[kind])]
    if rest is None:
        s.pile = [*s.pile, *extra]
    else:
        s.hands[rest] = sorted([*s.hands[rest], *extra], key=KINDS.index)
    return s


def everything(s: State) -> list[str]:
    """Every card of the game wherever it is."""
    cards = [*s.pile, *s.discard, *s.recruited, *(c for h in s.hands for c in h),
             *(c for z in s.zones for c in z)]
    if s.played:
        cards.append(s.played)
    return cards


def do(s: State, player: int, move: dict[str, Any]) -> tuple[State, list[dict[str, Any]]]:
    return G.apply(s, player, move)


def decide(s: State, move: dict[str, Any]) -> tuple[State, list[dict[str, Any]]]:
    """The pending player sends ``move``."""
    (p,) = G.pending(s)
    return G.apply(s, p.player, move)


def script(s: State, *moves: dict[str, Any]) -> tuple[State, list[dict[str, Any]]]:
    """The pending player sends each move in turn; all the events."""
    events: list[dict[str, Any]] = []
    for move in moves:
        s, more = decide(s, move)
        events += more
    return s, events


def of_type(events: list[dict[str, Any]], etype: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == etype]


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def random_game(options: dict[str, Any], seed: int, play_seed: int, timeout_rate: float = 0.0,
                cap: int = 5000) -> Iterator[tuple[State, int, dict[str, Any], State, list]]:
    """Yield ``(before, player, move, after, events)`` for each move of a random game."""
    rnd = random.Random(play_seed)
    s = G.setup(options, seed)
    for _ in range(cap):
        if G.result(s) is not None:
            return
        (p,) = G.pending(s)
        if rnd.random() < timeout_rate:
            move = G.timeout_move(s, p.player)
        else:
            move = rnd.choice(G.legal_moves(s, p.player))
        new, events = G.apply(s, p.player, move)
        yield s, p.player, move, new, events
        s = new
    raise AssertionError(f"no end after {cap} moves: options={options} seed={seed}")
