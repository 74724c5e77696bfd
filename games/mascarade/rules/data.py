"""Mascarade's material as data: the masks, the named scenarios, the center-card counts.

Everything here follows ``shared/rules/mascarade.md`` §1–§3. Display names are the site's job
(translations); the engine only knows the lowercase English ids.

- :data:`MASKS` maps each mask id to a :class:`Mask` (★, minimum player count, copies in the box,
  whether it is a custom-only mask, an English power summary). The box holds 16 masks, the Peasant
  twice: 17 cards (:data:`BOX`). The Gambler is not in the box: custom scenarios only.
- :data:`SCENARIOS` maps ``"A"`` / ``"B"`` to ``{players: (mask ids...)}`` for 4…12 players, exactly
  §3's table ([R3]). Each tuple holds ``players + center`` cards.
- :data:`CENTER_CARDS` gives the center-card count of a named scenario per player count (§2).
- :func:`scenario_problems` lists every custom-scenario rule (§3) a selection breaks, one
  ``(code, message)`` per broken rule.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from games.engine.base import spell


@dataclass(frozen=True, slots=True)
class Mask:
    id: str
    star: bool
    min_players: int
    power: str
    copies: int = 1
    custom_only: bool = False


def _masks(*masks: Mask) -> dict[str, Mask]:
    return {m.id: m for m in masks}


# [R1] ★ marks and minimum player counts are the project's house values (rules §1).
MASKS: dict[str, Mask] = _masks(
    Mask("judge", False, 4, "Take all coins on the Justice board."),
    Mask("king", True, 4, "Take 2 coins from the Bank."),
    Mask("empress", True, 4, "Take 3 coins from the Bank."),
    Mask("cheater", False, 4, "If you have 10 or more coins, you win immediately."),
    Mask("thief", False, 4,
         "Take 1 coin from your left neighbour, then 1 from your right neighbour."),
    Mask("spy", False, 4,
         "Choose another player; secretly look at their card and yours; then swap them or not."),
    Mask("sorceress", False, 4, "You may exchange your whole fortune with another player's."),
    Mask("fool", True, 4,
         "Take 1 coin from the Bank; then swap (or not) the cards of two other players, "
         "without looking."),
    Mask("guru", False, 4,
         "Choose another player; they name their mask, then reveal; if wrong they pay you "
         "4 coins."),
    Mask("crook", False, 4,
         "Take 2 coins from the richest other player (you choose among tied richest)."),
    Mask("widow", True, 4, "Take coins from the Bank until you have 10 (no effect at 10 or more)."),
    Mask("princess", True, 4,
         "Take 2 coins from the Bank; then choose another player whose card is shown to everyone "
         "but its owner."),
    Mask("patron", True, 4,
         "Take 3 coins from the Bank; your left and right neighbours take 1 each."),
    Mask("puppeteer", False, 6,
         "Take 1 coin from each of two other players; those two then change seats."),
    Mask("beggar", False, 6,
         "Clockwise from your left, every player strictly richer than you at that moment gives "
         "you 1 coin."),
    Mask("peasant", True, 8,
         "Take 1 coin; if both Peasants are revealed in a challenge, each takes 2 instead.",
         copies=2),
    Mask("gambler", True, 4,
         "Take 3 coins from the Bank and hide 1-3 of them; a chosen player guesses how many; "
         "right: they gain the hidden coins; wrong: you gain them; the rest go back to the Bank.",
         custom_only=True),
)

#: The 17 cards of the box (the Peasant twice); the Gambler is not among them.
BOX: tuple[str, ...] = tuple(
    m.id for m in MASKS.values() if not m.custom_only for _ in range(m.copies)
)

MIN_PLAYERS = 4
MAX_PLAYERS = 12
START_COINS = 6
WIN_COINS = 13
PREP_TURNS = 4

#: Center cards of a named scenario (and of any 4- or 5-player game), §2.
CENTER_CARDS: dict[int, int] = {n: (2 if n == 4 else 1 if n == 5 else 0)
                                for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


def _build_scenarios() -> dict[str, dict[int, tuple[str, ...]]]:
    a = {
        4: ("judge", "king", "empress", "thief", "cheater", "spy"),
        5: ("judge", "king", "empress", "thief", "cheater", "sorceress"),
        6: ("judge", "king", "empress", "thief", "cheater", "sorceress"),
    }
    b = {
        4: ("judge", "guru", "crook", "princess", "widow", "spy"),
        5: ("judge", "guru", "crook", "princess", "patron", "sorceress"),
        6: ("judge", "guru", "crook", "princess", "patron", "puppeteer"),
    }
    a[7] = (*a[6], "fool")
    b[7] = (*b[6], "empress")
    a[8] = ("judge", "king", "empress", "cheater", "sorceress", "fool", "peasant", "peasant")
    b[8] = (*b[7], "beggar")
    for n, (add_a, add_b) in zip(range(9, 13),
                                 [("spy", "widow"), ("widow", "spy"), ("thief", "fool"),
                                  ("patron", "sorceress")], strict=True):
        a[n] = (*a[n - 1], add_a)
        b[n] = (*b[n - 1], add_b)
    return {"A": a, "B": b}


#: Named scenarios, rules §3 ([R3]): ``SCENARIOS[side][players]`` is the tuple of masks in play.
SCENARIOS: dict[str, dict[int, tuple[str, ...]]] = _build_scenarios()


GAMBLER_CUSTOM_ONLY = ("gambler_custom_only",
                       "The Gambler may only be used in a custom scenario (§1).")


def stars_needed(count: int) -> int:
    """At least a third of the masks, rounded up, must carry ★ (§3)."""
    return -(-count // 3)


def scenario_problems(masks: list[str], players: int, center: int,
                      custom: bool = True) -> list[tuple[str, str]]:
    """Every custom-scenario rule (rules §3) that ``masks`` breaks, as ``(code, message)``.

    ``masks`` may hold unknown ids (reported first, the other rules then judge the known ones).
    """
    problems: list[tuple[str, str]] = []
    unknown = [m for m in masks if m not in MASKS]
    if unknown:
        known = ", ".join(MASKS)
        # The ids come from the client: a few, each spelled short, keep the message a sentence.
        named = ", ".join(spell(m) for m in unknown[:3])
        if len(unknown) > 3:
            named += f" and {len(unknown) - 3} more"
        problems.append(("unknown_mask", f"Unknown mask id(s): {named}. Known masks: {known}."))
    ids = [m for m in masks if m in MASKS]
    counts = Counter(ids)
    if "judge" not in counts:
        problems.append(("custom_needs_judge",
                         "A scenario must include the Judge (§3)."))
    stars = sum(1 for m in ids if MASKS[m].star)
    if stars < stars_needed(len(masks)):
        problems.append(("custom_too_few_stars",
                         f"At least a third of the masks (rounded up) must carry a star: "
                         f"{stars_needed(len(masks))} of {len(masks)} needed, {stars} given (§3)."))
    if counts.get("peasant", 0) not in (0, 2):
        problems.append(("custom_peasant_pair",
                         "The Peasants come as a pair or not at all (§3)."))
    twice = sorted(m for m, k in counts.items() if k > 1 and m != "peasant")
    if twice:
        problems.append(("custom_duplicate_mask",
                         f"No mask other than the Peasant may appear twice: "
                         f"{', '.join(twice)} (§3)."))
    too_few = sorted({m for m in ids if MASKS[m].min_players > players})
    if too_few:
        detail = ", ".join(f"{m} needs {MASKS[m].min_players}" for m in too_few)
        problems.append(("custom_min_players",
                         f"Some masks need more players than {players}: {detail} (§3)."))
    if len(masks) != players + center:
        problems.append(("custom_mask_count",
                         f"A game of {players} players with {center} center card(s) uses exactly "
                         f"{players + center} masks; {len(masks)} given (§3)."))
    if not custom and "gambler" in counts:
        problems.append(GAMBLER_CUSTOM_ONLY)
    return problems
