"""L'Ère des Masques's game options: validation and defaults.

:func:`normalize_options` returns a new dict holding every option, defaults filled in:

===================== =========================================================== ============
option                values                                                      default
===================== =========================================================== ============
``players``           2 (the game is for exactly two)                             2
``move_timeout``      seconds, 60…1 209 600 (turn, discard, keep, assassinate)    86 400
``challenge_timeout`` seconds, 30…604 800 (let it pass or counter)                43 200
``absent_after``      consecutive timeouts before a seat is marked absent, 1…10   3
``absent_policy``     ``"bot"`` (a bot plays for the absent seat) or ``"wait"``   ``"bot"``
``deal``              staff only: the 40 cards top first, 8 of each kind, or null (seeded)
``first_seat``        staff only: 0, 1 or null                                    (seeded)
``revision``          the rules' revision the game plays, 1…:data:`REVISION`      the latest
===================== =========================================================== ============

The four site options (timeouts, absence) have Mascarade's names, ranges and defaults. ``deal``
and ``first_seat`` are kept only when given (null included: null means "drawn from the seed", as
when absent), so normalizing normalized options gives the same dict.

``revision`` (:func:`games.engine.options.revision`): a new game plays the latest; options
stored before revisions existed lack it and play revision 1 (``setup`` reads it so). Revision 1
is the rules before rulings E3b and E5: the Recruiter's player chooses the card to keep and the
Assassin's the card to remove even when they have just won or have a single choice, and a player
with an empty hand is asked to let a played card pass. Revision 2 (:data:`REVISION`) follows E3b
and E5.

How set-up reads ``deal`` (top of the deck first): cards 1–2 go face up to seat 0's zone, 3–4 to
seat 1's, 5–9 to seat 0's hand, 10–14 to seat 1's hand, and cards 15–40 are the draw pile, top
first (see :func:`games.ere_des_masques.rules.rules.setup`).
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
)

from .cards import COPIES, DECK_SIZE, KINDS, PLAYERS

OPTION_KEYS = ("players", "speed", "move_timeout", "challenge_timeout", "bank_initial",
               "bank_increment", "absent_after", "absent_policy", "deal", "first_seat", "revision")

#: The rules' latest revision, which new games play (rulings E3b and E5).
REVISION = 2

CHOICES = dict(SITE_CHOICES)
DEFAULTS: dict[str, Any] = {"players": PLAYERS, **SITE_DEFAULTS, "revision": REVISION}
RANGES = dict(SITE_RANGES)


def _players(options: dict) -> int:
    if "players" not in options:
        return PLAYERS
    value = options["players"]
    if not is_int(value):
        raise InvalidOptions("The option 'players' must be a whole number (2).",
                             code="wrong_type", field="players")
    if value != PLAYERS:
        raise InvalidOptions(f"L'Ère des Masques is a game for exactly 2 players; got "
                             f"{spell(value)}.", code="out_of_range", field="players")
    return value


def _deal(value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise InvalidOptions("The option 'deal' must be a list of 40 card kinds (top of the "
                             "deck first) or null.", code="wrong_type", field="deal")
    for card in value:
        if not isinstance(card, str):
            raise InvalidOptions(f"The deal must list card kinds; {spell(card)} is not one. "
                                 f"Kinds: {', '.join(KINDS)}.", code="wrong_type", field="deal")
        if card not in KINDS:
            raise InvalidOptions(f"{spell(card)} is not a card kind. Kinds: "
                                 f"{', '.join(KINDS)}.", code="unknown_kind", field="deal")
    tally = Counter(value)
    if len(value) != DECK_SIZE or any(tally[kind] != COPIES for kind in KINDS):
        found = ", ".join(f"{tally[kind]} {kind}" for kind in KINDS)
        raise InvalidOptions(f"The deal must list the {DECK_SIZE} cards, {COPIES} of each kind; "
                             f"it has {len(value)} ({found}).", code="deal_not_permutation",
                             field="deal")
    return list(value)


def _first_seat(value: Any) -> int | None:
    if value is None:
        return None
    if not is_int(value):
        raise InvalidOptions("The option 'first_seat' must be a seat number (0 or 1) or null.",
                             code="wrong_type", field="first_seat")
    if not 0 <= value < PLAYERS:
        raise InvalidOptions(f"The first seat must be 0 or 1; got {spell(value)}.",
                             code="out_of_range", field="first_seat")
    return value


def normalize_options(options: Any) -> dict[str, Any]:
    """Validate L'Ère des Masques options and return them complete. Raises
    :class:`InvalidOptions` (``field`` names the option)."""
    known_options(options, OPTION_KEYS)
    out: dict[str, Any] = {"players": _players(options)}
    out.update(site_options(options))
    out["revision"] = revision(options, REVISION)
    if "deal" in options:
        out["deal"] = _deal(options["deal"])
    if "first_seat" in options:
        out["first_seat"] = _first_seat(options["first_seat"])
    return out
