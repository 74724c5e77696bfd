"""Helpers to script Shadow House Mascarade games in tests (no test here): fixed deals through the
staff option ``deal``, staged positions, scripted moves, random play.

A deal is given as the hands, seat 0 first, and the top of the pile: :func:`box` turns it into a
box order that set-up deals exactly so (SH-1: the round's deck first, then the pile, then the
cards of the box the round does not use, in §1 order).
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from games.shadow_house.rules import BOX_COUNTS, CARDS, GAME
from games.shadow_house.rules.cards import FIXED, OTHERS, in_order
from games.shadow_house.rules.state import State

G = GAME

#: A 4-player deal: seat 0 opens with the First on scene, seat 1 holds the Culprit.
HANDS4 = (
    ("first_on_scene", "detective", "alibi", "maid"),
    ("culprit", "sharing", "rumour", "toby"),
    ("accomplice", "sheriff", "witness", "exchange"),
    ("panic", "divining_hat", "governess", "little_one"),
)


def box(hands: Sequence[Sequence[str]], pile: Sequence[str] = ()) -> list[str]:
    """A box order (36 ids) that deals ``hands`` (4 cards each, seat 0 first) and puts ``pile``
    on top of the draw pile, the rest of the pile following in §1 order."""
    n = len(hands)
    deck = [card for hand in hands for card in hand]
    assert all(len(hand) == 4 for hand in hands), hands
    tally = Counter(deck)
    assert all(tally[c] >= k for c, k in FIXED[n].items()), f"the deck lacks a fixed card: {deck}"
    assert len(deck) == sum(FIXED[n].values()) + OTHERS[n]
    left = Counter(BOX_COUNTS)
    left.subtract(deck)
    left.subtract(pile)
    assert min(left.values()) >= 0, f"more cards than the box holds: {left}"
    return [*deck, *pile, *(card for card in CARDS for _ in range(left[card]))]


def options(hands: Sequence[Sequence[str]] = HANDS4, pile: Sequence[str] = (),
            **more: Any) -> dict[str, Any]:
    return {"players": len(hands), "deal": [box(hands, pile)], **more}


def start(hands: Sequence[Sequence[str]] = HANDS4, pile: Sequence[str] = (), seed: int = 1,
          **more: Any) -> State:
    """A game dealt ``hands`` (the First on scene already played for its holder), under the
    rules' latest revision (the options normalized, as for a new game) unless ``more`` names
    one."""
    return G.setup(G.normalize_options(options(hands, pile, **more)), seed)


def stage(s: State, **fields: Any) -> State:
    """``s`` with other fields (hands, pile, points, protected, handcuffs...); hands are put in
    §1 order. The cards are not checked: a staged position may leave some out."""
    data = {**G.to_json(s), **copy.deepcopy(fields)}
    data["hands"] = [in_order(hand) for hand in data["hands"]]
    return State.from_json(data)


def everything(s: State) -> list[str]:
    """Every card of the round wherever it is (hands, pile, in front of players, discards)."""
    return [*s.pile, *s.discards, *(c for h in s.hands for c in h),
            *(c for p in s.played for c in p)]


def do(s: State, player: int, move: dict[str, Any]) -> tuple[State, list[dict[str, Any]]]:
    return G.apply(s, player, move)


def decide(s: State, move: dict[str, Any]) -> tuple[State, list[dict[str, Any]]]:
    """The single pending player sends ``move``."""
    (p,) = G.pending(s)
    return G.apply(s, p.player, move)


def script(s: State, *moves: dict[str, Any]) -> tuple[State, list[dict[str, Any]]]:
    """The single pending player sends each move in turn; all the events."""
    events: list[dict[str, Any]] = []
    for move in moves:
        s, more = decide(s, move)
        events += more
    return s, events


def play(card: str, target: int | None = None) -> dict[str, Any]:
    move: dict[str, Any] = {"type": "play", "card": card}
    if target is not None:
        move["target"] = target
    return move


def card_move(mtype: str, card: str) -> dict[str, Any]:
    return {"type": mtype, "card": card}


def of_type(events: list[dict[str, Any]], etype: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == etype]


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def random_game(opts: dict[str, Any], seed: int, play_seed: int, timeout_rate: float = 0.0,
                cap: int = 5000) -> Iterator[tuple[State, int, dict[str, Any], State, list]]:
    """Yield ``(before, player, move, after, events)`` for each move of a random game (a random
    pending player; a random legal move, or the timeout move at ``timeout_rate``)."""
    rnd = random.Random(play_seed)
    s = G.setup(opts, seed)
    for _ in range(cap):
        if G.result(s) is not None:
            return
        p = rnd.choice(G.pending(s))
        if rnd.random() < timeout_rate:
            move = G.timeout_move(s, p.player)
        else:
            move = rnd.choice(G.legal_moves(s, p.player))
        new, events = G.apply(s, p.player, move)
        yield s, p.player, move, new, events
        s = new
    raise AssertionError(f"no end after {cap} moves: options={opts} seed={seed}")
