"""What every game's options share: the site's own options (deadlines and absences, which the
site reads from a game's options whatever the game: API.md "Mascarade options" and each game's
page under ``docs/api/``), and the checks of a whole number and of a choice, with the same
messages and codes in every game. Pure: no Django."""

from __future__ import annotations

from typing import Any

from .base import InvalidOptions, spell

#: The site's options every game takes, with their defaults, ranges and choices.
SITE_OPTIONS = ("move_timeout", "challenge_timeout", "absent_after", "absent_policy")
SITE_DEFAULTS: dict[str, Any] = {
    "move_timeout": 86400,
    "challenge_timeout": 43200,
    "absent_after": 3,
    "absent_policy": "bot",
}
SITE_RANGES: dict[str, tuple[int, int]] = {
    "move_timeout": (60, 1_209_600),
    "challenge_timeout": (30, 604_800),
    "absent_after": (1, 10),
}
SITE_CHOICES: dict[str, tuple[str, ...]] = {"absent_policy": ("bot", "wait")}


def is_int(value: Any) -> bool:
    """A JSON whole number (``True`` is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def known_options(options: Any, keys: tuple[str, ...]) -> None:
    """``options`` is an object whose keys are all among ``keys``."""
    if not isinstance(options, dict):
        raise InvalidOptions("The options must be a JSON object.", code="wrong_type")
    unknown = [k for k in options if k not in keys]
    if unknown:
        key = unknown[0]
        raise InvalidOptions(f"Unknown option {spell(key)}. Known options: "
                             f"{', '.join(keys)}.", code="unknown_option",
                             field=key if isinstance(key, str) else spell(key))


def whole_number(options: dict, key: str, low: int, high: int) -> int:
    """``options[key]``, a whole number from ``low`` to ``high``."""
    value = options[key]
    if not is_int(value):
        raise InvalidOptions(f"The option {key!r} must be a whole number.",
                             code="wrong_type", field=key)
    if not low <= value <= high:
        raise InvalidOptions(f"The option {key!r} must be between {low} and {high}; "
                             f"got {spell(value)}.", code="out_of_range", field=key)
    return value


def choice(options: dict, key: str, allowed: tuple[str, ...], default: str) -> str:
    """``options[key]`` (``default`` when absent), one of ``allowed``."""
    value = options.get(key, default)
    if not isinstance(value, str) or value not in allowed:
        listed = ", ".join(repr(c) for c in allowed)
        raise InvalidOptions(f"The option {key!r} must be one of {listed}; got {spell(value)}.",
                             code="invalid_choice", field=key)
    return value


def site_options(options: dict) -> dict[str, Any]:
    """The site's options from ``options``, checked, defaults filled in."""
    out: dict[str, Any] = {}
    for key, (low, high) in SITE_RANGES.items():
        out[key] = whole_number(options, key, low, high) if key in options else SITE_DEFAULTS[key]
    for key, allowed in SITE_CHOICES.items():
        out[key] = choice(options, key, allowed, SITE_DEFAULTS[key])
    return out


#: The option naming the revision of a game's rules a game is played by (see :func:`revision`).
REVISION = "revision"
#: The revision of games whose stored options have no ``revision``: they were created before
#: their game had revisions, and replay as they were played.
FIRST_REVISION = 1


def revision(options: dict, latest: int) -> int:
    """The option ``revision`` of ``options`` being normalized: a whole number from
    :data:`FIRST_REVISION` to ``latest``, ``latest`` when absent (a new game plays the current
    rules).

    A game's rules may change what a seed or a list of moves gives (a ruling that draws cards
    differently, a decision taken at once). Stored games replay from their options, seed and
    moves, so a change that does that comes as a new revision: the rules go on playing every
    earlier one exactly as it was, and a game plays the revision in its options for its whole
    life. Normalized options always hold it; options stored before the game had revisions lack
    it and are :data:`FIRST_REVISION` (:func:`played_revision`)."""
    if REVISION not in options:
        return latest
    return whole_number(options, REVISION, FIRST_REVISION, latest)


def played_revision(options: dict) -> int:
    """The revision a game with these (normalized or stored) options plays: the option
    ``revision``, or :data:`FIRST_REVISION` for options stored before it existed. ``setup`` reads
    it from the options it was given, never from their normalization (which gives a new game the
    latest), once they are checked."""
    return options.get(REVISION, FIRST_REVISION)
