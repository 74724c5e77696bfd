"""The cards of L'Ère des Masques (``shared/rules/ere-des-masques.md`` §1) and the sums on a play
zone that the victory (§2, E3) and the views need.

The printed cards tell the five kinds apart by colour only; the project names them by their
power (**[E1]**). :data:`KINDS` is the order of §1, which every list the engine shows a hand, a
zone or a choice in follows, and which the timeouts' defaults (§5) use.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

#: The five kinds, in the order of §1.
KINDS: tuple[str, ...] = ("noble", "recruiter", "spy", "brute", "assassin")
#: The French names printed on the cards.
FRENCH: dict[str, str] = {
    "noble": "Le Noble",
    "recruiter": "L'Enrôleuse",
    "spy": "L'Espionne",
    "brute": "La Brute",
    "assassin": "L'Assassin",
}
#: What each power does when it resolves for a player (§1).
POWERS: dict[str, str] = {
    "noble": "Draw 2 cards.",
    "recruiter": "Draw 5 cards, keep 1 in your hand, discard the other 4.",
    "spy": "Draw 1 card and look at your opponent's hand.",
    "brute": "Discard 1 card at random from your opponent's hand.",
    "assassin": "Discard 1 card of your choice from your opponent's play zone.",
}
COPIES = 8
DECK_SIZE = COPIES * len(KINDS)  # 40
#: Set-up (§2): face-up cards in each play zone, cards in each hand.
ZONE_START = 2
HAND_START = 5
#: The recruiter draws this many cards (§1).
RECRUIT_DRAW = 5
#: Victory (§2): this many cards of one kind, or one card of each kind.
SAME_KIND_TO_WIN = 4
PLAYERS = 2

ORDER = {kind: i for i, kind in enumerate(KINDS)}


def in_order(cards: Iterable[str]) -> list[str]:
    """``cards`` sorted in the order of §1 (a hand as the views show it)."""
    return sorted(cards, key=ORDER.__getitem__)


def distinct(cards: Iterable[str]) -> list[str]:
    """The kinds present in ``cards``, each once, in the order of §1."""
    present = set(cards)
    return [kind for kind in KINDS if kind in present]


def counts(cards: Iterable[str]) -> dict[str, int]:
    """``{kind: count}`` for the kinds present, in the order of §1."""
    tally = Counter(cards)
    return {kind: tally[kind] for kind in KINDS if tally[kind]}


def to_win(zone: Iterable[str]) -> dict[str, int]:
    """How far a zone is from each victory: the fewest cards missing for four of one kind, and
    the number of kinds missing for the five kinds. A 0 is a victory."""
    tally = Counter(zone)
    most = max(tally.values(), default=0)
    return {"four_of_a_kind": max(0, SAME_KIND_TO_WIN - most),
            "five_kinds": sum(1 for kind in KINDS if not tally[kind])}


def victory(zone: Iterable[str]) -> tuple[str, str] | None:
    """``(reason, kind)`` when ``zone`` wins (E3): ``("four_of_a_kind", kind)`` — the first such
    kind in §1 order — or ``("five_kinds", "")``; ``None`` otherwise. One card can never complete
    both at once (the fourth card of a kind is not the first of a kind), so the order of the two
    checks only matters for zones no game reaches."""
    tally = Counter(zone)
    for kind in KINDS:
        if tally[kind] >= SAME_KIND_TO_WIN:
            return "four_of_a_kind", kind
    if all(tally[kind] for kind in KINDS):
        return "five_kinds", ""
    return None
