"""Mascarade's game options (``shared/API.md``, "Mascarade options"): validation and defaults.

:func:`normalize_options` returns a new dict holding every option, defaults filled in:

``players`` (4…12, required), ``scenario`` (``"A"``), ``masks`` (the masks in play: the named
scenario's list, or the custom list as given), ``center`` (center cards), ``challenge_mode``
(``"sequential"``), ``speed`` (``"normal"``) with ``move_timeout`` (86400) and
``challenge_timeout`` (43200), or a time bank's ``bank_initial`` and ``bank_increment``
(``games.engine.options.speed_options``), ``log_masks``
(``True``), ``absent_after`` (3), ``absent_policy`` (``"bot"``); ``deal`` and ``first_seat`` only
when given (otherwise set-up draws them from the seed).

Normalizing normalized options gives the same dict. For a named scenario ``masks`` and ``center``
are accepted only when they equal the scenario's own (that is what normalizing writes); choosing
them is what the custom scenario is for. Storing the scenario's list in the options keeps old games
replayable if a named scenario is ever changed.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from games.engine.base import InvalidOptions, spell
from games.engine.options import (
    SITE_CHOICES,
    SITE_DEFAULTS,
    SITE_RANGES,
    choice,
    is_int,
    known_options,
    speed_options,
    whole_number,
)

from .data import (
    CENTER_CARDS,
    GAMBLER_CUSTOM_ONLY,
    MAX_PLAYERS,
    MIN_PLAYERS,
    SCENARIOS,
    scenario_problems,
)

OPTION_KEYS = ("players", "scenario", "masks", "center", "challenge_mode", "speed",
               "move_timeout", "challenge_timeout", "bank_initial", "bank_increment", "log_masks",
               "absent_after", "absent_policy", "deal", "first_seat")

CHOICES = {
    "scenario": ("A", "B", "custom"),
    "challenge_mode": ("sequential", "simultaneous"),
    **SITE_CHOICES,
}
DEFAULTS: dict[str, Any] = {
    "scenario": "A",
    "challenge_mode": "sequential",
    "log_masks": True,
    **SITE_DEFAULTS,
}
RANGES = {
    "players": (MIN_PLAYERS, MAX_PLAYERS),
    "center": (0, 2),
    **SITE_RANGES,
}


def _int(options: dict, key: str) -> int:
    return whole_number(options, key, *RANGES[key])


def _choice(options: dict, key: str) -> str:
    return choice(options, key, CHOICES[key], DEFAULTS[key])


def _mask_list(options: dict, key: str) -> list[str]:
    value = options[key]
    if not isinstance(value, list) or not all(isinstance(m, str) for m in value):
        raise InvalidOptions(f"The option {key!r} must be a list of mask ids.",
                             code="wrong_type", field=key)
    return list(value)


def normalize_options(options: Any) -> dict[str, Any]:
    """Validate Mascarade options and return them complete. Raises :class:`InvalidOptions`."""
    known_options(options, OPTION_KEYS)
    if "players" not in options:
        raise InvalidOptions("The number of players is required (4 to 12).",
                             code="required", field="players")
    players = _int(options, "players")
    scenario = _choice(options, "scenario")
    out: dict[str, Any] = {"players": players, "scenario": scenario}

    default_center = CENTER_CARDS[players]
    if scenario == "custom":
        if "masks" not in options:
            raise InvalidOptions("A custom scenario needs the list of masks in play.",
                                 code="required", field="masks")
        masks = _mask_list(options, "masks")
        center = default_center
        if "center" in options:
            center = _int(options, "center")
            if players < 6 and center != default_center:
                raise InvalidOptions(
                    f"A game of {players} players always has {default_center} center card(s); "
                    f"only games of 6 or more players may choose (§2).",
                    code="center_not_choosable", field="center")
        problems = scenario_problems(masks, players, center, custom=True)
        if problems:
            code, message = problems[0]
            raise InvalidOptions(message, code=code, field="masks", errors=problems)
    else:
        masks = list(SCENARIOS[scenario][players])
        center = default_center
        if "masks" in options:
            given = _mask_list(options, "masks")
            if Counter(given) != Counter(masks):
                if "gambler" in given:
                    code, message = GAMBLER_CUSTOM_ONLY
                else:
                    code, message = ("masks_custom_only",
                                     f"Masks can only be chosen in the custom scenario; scenario "
                                     f"{scenario} for {players} players uses: "
                                     f"{', '.join(masks)} (§3).")
                raise InvalidOptions(message, code=code, field="masks")
        if "center" in options and _int(options, "center") != center:
            raise InvalidOptions(
                f"The number of center cards can only be chosen in a custom game of 6 or more "
                f"players; scenario {scenario} for {players} players has {center} (§2).",
                code="center_not_choosable", field="center")
    out["masks"] = masks
    out["center"] = center
    out["challenge_mode"] = _choice(options, "challenge_mode")
    out.update(speed_options(options))
    out["absent_after"] = (_int(options, "absent_after") if "absent_after" in options
                           else DEFAULTS["absent_after"])
    log_masks = options.get("log_masks", DEFAULTS["log_masks"])
    if not isinstance(log_masks, bool):
        raise InvalidOptions("The option 'log_masks' must be true or false.",
                             code="wrong_type", field="log_masks")
    out["log_masks"] = log_masks
    out["absent_policy"] = _choice(options, "absent_policy")

    if "deal" in options:
        deal = _mask_list(options, "deal")
        if Counter(deal) != Counter(masks):
            raise InvalidOptions(
                f"The deal must list the masks in play, each exactly once (seats 0 to "
                f"{players - 1}, then the center slots): {', '.join(masks)}.",
                code="deal_not_permutation", field="deal")
        out["deal"] = deal
    if "first_seat" in options:
        first = options["first_seat"]
        if not is_int(first):
            raise InvalidOptions("The option 'first_seat' must be a seat number.",
                                 code="wrong_type", field="first_seat")
        if not 0 <= first < players:
            raise InvalidOptions(f"The first seat must be between 0 and {players - 1}; "
                                 f"got {spell(first)}.", code="out_of_range", field="first_seat")
        out["first_seat"] = first
    return out

