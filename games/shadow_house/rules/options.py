"""Shadow House Mascarade's game options: validation and defaults.

:func:`normalize_options` returns a new dict holding every option, defaults filled in:

===================== ============================================================ ==========
option                values                                                       default
===================== ============================================================ ==========
``players``           3…8                                                          5
``flash``             ``true``: one round, no points (Enquête flash)               ``false``
``move_timeout``      seconds, 60…1 209 600 (a turn, the Witness's swap, the hat)  86 400
``challenge_timeout`` seconds, 30…604 800 (give, discard, contribute)              43 200
``absent_after``      consecutive timeouts before a seat is marked absent, 1…10    3
``absent_policy``     ``"bot"`` (a bot plays for the absent seat) or ``"wait"``    ``"bot"``
``deal``              staff only: a non-empty list of rounds, each the 36 box card ids in a
                      box order (a permutation of the box, S1), or null (seeded)
``first_seat``        staff only: the seat holding the First on scene in round 1, or null
``revision``          the rules' revision the game plays, 1…:data:`REVISION`       the latest
===================== ============================================================ ==========

The four site options (timeouts, absence) have the other games' names, ranges and defaults.
``deal`` and ``first_seat`` are kept only when given (null included: null means "as the seed
gives it", as when absent), so normalizing normalized options gives the same dict. The points
goal (5) is not an option.

``revision`` (:func:`games.engine.options.revision`): a new game plays the latest; options
stored before revisions existed lack it and play revision 1 (``setup`` reads it so). Revision 1
is the rules before ruling S6 and [SH-16]: a seeded round shuffled the whole box and kept the
first copy of each fixed type, so a type's spare copy was seldom among the "others"; and a
Sharing, a Panic or an Exchange whose every card was given at once passed the turn twice.
Revision 2 (:data:`REVISION`) draws the others evenly (S6) and passes the turn once.

How set-up reads ``deal`` [SH-1]: round *k* (1-based) uses the *k*-th list when there is one,
later rounds are seeded. The round's fixed cards (§2) are the first cards of each fixed type in
that box order, the others the first cards of the rest of the box; the round's deck keeps the box
order and is dealt in packets of 4 (seat 0 gets cards 1–4 of the deck, seat 1 cards 5–8...); the
unused cards are the draw pile, top first. A list that starts with the round's deck and ends with
the pile therefore deals exactly that (see :func:`games.shadow_house.rules.cards.round_cards`).
``first_seat`` [SH-2]: after the round-1 deal, if the First on scene is elsewhere it swaps places
with the first card dealt to that seat.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.engine.base import InvalidOptions, spell
from games.engine.options import (
    SITE_CHOICES,
    SITE_DEFAULTS,
    SITE_RANGES,
    is_int,
    known_options,
    revision,
    site_options,
    whole_number,
)

from .cards import BOX_COUNTS, BOX_SIZE, CARDS, MAX_PLAYERS, MIN_PLAYERS

OPTION_KEYS = ("players", "flash", "speed", "move_timeout", "challenge_timeout", "bank_initial",
               "bank_increment", "absent_after", "absent_policy", "deal", "first_seat", "revision")
PLAYERS_DEFAULT = 5
#: The rules' latest revision, which new games play (ruling S6, [SH-16]).
REVISION = 2

CHOICES = dict(SITE_CHOICES)
DEFAULTS: dict[str, Any] = {"players": PLAYERS_DEFAULT, "flash": False, **SITE_DEFAULTS,
                            "revision": REVISION}
RANGES: dict[str, tuple[int, int]] = {"players": (MIN_PLAYERS, MAX_PLAYERS), **SITE_RANGES}


def _flash(options: dict) -> bool:
    value = options.get("flash", False)
    if not isinstance(value, bool):
        raise InvalidOptions("The option 'flash' must be true or false.", code="wrong_type",
                             field="flash")
    return value


def _box_order(value: Any, k: int) -> list[str]:
    where = f"round {k} of the deal"
    if not isinstance(value, list):
        raise InvalidOptions(f"Each round of the deal must be a list of the {BOX_SIZE} card ids "
                             f"of the box; {where} is {spell(value)}.", code="wrong_type",
                             field="deal")
    for card in value:
        if not isinstance(card, str):
            raise InvalidOptions(f"The deal must list card ids; {spell(card)} in {where} is not "
                                 f"one.", code="wrong_type", field="deal")
        if card not in BOX_COUNTS:
            raise InvalidOptions(f"{spell(card)} in {where} is not a card id. Ids: "
                                 f"{', '.join(CARDS)}.", code="unknown_card", field="deal")
    tally = Counter(value)
    if len(value) != BOX_SIZE or any(tally[c] != n for c, n in BOX_COUNTS.items()):
        wrong = [f"{tally[c]} {c} (not {n})" for c, n in BOX_COUNTS.items() if tally[c] != n]
        listed = ", ".join(wrong[:3]) + (f" and {len(wrong) - 3} more" if len(wrong) > 3 else "")
        raise InvalidOptions(f"Each round of the deal must list the {BOX_SIZE} cards of the box "
                             f"(S1); {where} has {len(value)}: {listed}.",
                             code="deal_not_permutation", field="deal")
    return list(value)


def _deal(value: Any) -> list[list[str]] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise InvalidOptions("The option 'deal' must be a list of rounds (each a list of the "
                             f"{BOX_SIZE} card ids of the box) or null.", code="wrong_type",
                             field="deal")
    if not value:
        raise InvalidOptions("The option 'deal' must list at least one round, or be null.",
                             code="deal_empty", field="deal")
    return [_box_order(order, k) for k, order in enumerate(value, 1)]


def _first_seat(value: Any, players: int) -> int | None:
    if value is None:
        return None
    if not is_int(value):
        raise InvalidOptions("The option 'first_seat' must be a seat number or null.",
                             code="wrong_type", field="first_seat")
    if not 0 <= value < players:
        raise InvalidOptions(f"The first seat must be a seat of the table, 0 to {players - 1}; "
                             f"got {spell(value)}.", code="out_of_range", field="first_seat")
    return value


def normalize_options(options: Any) -> dict[str, Any]:
    """Validate Shadow House Mascarade options and return them complete. Raises
    :class:`InvalidOptions` (``field`` names the option)."""
    known_options(options, OPTION_KEYS)
    players = (whole_number(options, "players", MIN_PLAYERS, MAX_PLAYERS)
               if "players" in options else PLAYERS_DEFAULT)
    out: dict[str, Any] = {"players": players, "flash": _flash(options)}
    out.update(site_options(options))
    out["revision"] = revision(options, REVISION)
    if "deal" in options:
        out["deal"] = _deal(options["deal"])
    if "first_seat" in options:
        out["first_seat"] = _first_seat(options["first_seat"], players)
    return out
