"""What every game's options share: the site's own options (deadlines and absences, which the
site reads from a game's options whatever the game: API.md "Mascarade options" and each game's
page under ``docs/api/``), and the checks of a whole number and of a choice, with the same
messages and codes in every game. Pure: no Django."""

from __future__ import annotations

from typing import Any

from .base import InvalidOptions, spell

#: The site's options every game takes, with their defaults, ranges and choices. A game's
#: ``speed`` (:func:`speed_options`) sets its timers: ``move_timeout`` for a turn,
#: ``challenge_timeout`` (half of it) to answer another's move; or a time bank per seat
#: (``bank_initial``, ``bank_increment``); or ``"custom"``, the timers as given.
SITE_OPTIONS = ("speed", "move_timeout", "challenge_timeout", "bank_initial", "bank_increment",
                "absent_after", "absent_policy")
SITE_DEFAULTS: dict[str, Any] = {
    "speed": "normal",
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

#: The speeds a game is played at: three fixed ones (the seconds of a turn; answering another's
#: move, a challenge window, takes half of it), a time bank, or the timers as given.
SPEEDS = ("fast", "normal", "slow", "bank", "custom")
SPEED_TURN: dict[str, int] = {"fast": 3600, "normal": 86_400, "slow": 259_200}
TIMERS = ("move_timeout", "challenge_timeout")
#: A time bank: every seat starts with ``bank_initial`` seconds, and each of its decisions adds
#: ``bank_increment`` to what is left, never above ``bank_initial``.
BANK_KEYS = ("bank_initial", "bank_increment")
BANK_DEFAULTS: dict[str, int] = {"bank_initial": 259_200, "bank_increment": 43_200}
BANK_RANGES: dict[str, tuple[int, int]] = {"bank_initial": (3600, 2_592_000),
                                           "bank_increment": (60, 604_800)}


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
    out: dict[str, Any] = speed_options(options)
    key = "absent_after"
    out[key] = (whole_number(options, key, *SITE_RANGES[key]) if key in options
                else SITE_DEFAULTS[key])
    for key, allowed in SITE_CHOICES.items():
        out[key] = choice(options, key, allowed, SITE_DEFAULTS[key])
    return out


def speed_options(options: dict) -> dict[str, Any]:
    """The game's speed and its clock's options, checked: ``speed`` and the timers it sets
    (``move_timeout``, ``challenge_timeout``: fixed for a named speed, as given for
    ``"custom"``), or, for ``"bank"``, ``bank_initial`` and ``bank_increment`` (a time bank
    has no timer per decision).

    Without ``speed``: ``"custom"`` when a timer is given (what options said before speeds
    existed), ``"bank"`` when a bank's option is, else ``"normal"``. A named speed accepts its
    own timers (normalizing normalized options gives the same dict) and refuses others."""
    speed = options.get("speed")
    if speed is None:
        speed = ("custom" if any(key in options for key in TIMERS)
                 else "bank" if any(key in options for key in BANK_KEYS) else "normal")
    speed = choice({"speed": speed}, "speed", SPEEDS, "normal")
    out: dict[str, Any] = {"speed": speed}
    if speed == "bank":
        for key in TIMERS:
            if key in options:
                raise InvalidOptions(f"A game played with a time bank has no {key!r}: each "
                                     f"seat's bank gives its deadlines.", code="bank_no_timers",
                                     field=key)
        for key in BANK_KEYS:
            out[key] = (whole_number(options, key, *BANK_RANGES[key]) if key in options
                        else BANK_DEFAULTS[key])
        if out["bank_increment"] > out["bank_initial"]:
            raise InvalidOptions("The time added per decision cannot exceed the bank's initial "
                                 "time (its cap).", code="increment_above_cap",
                                 field="bank_increment")
        return out
    for key in BANK_KEYS:
        if key in options:
            raise InvalidOptions(f"The option {key!r} is for the speed 'bank' only.",
                                 code="bank_only", field=key)
    if speed == "custom":
        for key in TIMERS:
            out[key] = (whole_number(options, key, *SITE_RANGES[key]) if key in options
                        else SITE_DEFAULTS[key])
        return out
    turn = SPEED_TURN[speed]
    for key, value in (("move_timeout", turn), ("challenge_timeout", turn // 2)):
        if key in options and options[key] != value:
            raise InvalidOptions(f"The speed {speed!r} gives {value} seconds to {key!r}; leave "
                                 f"it out, or choose the speed 'custom'.", code="speed_sets_timer",
                                 field=key)
        out[key] = value
    return out


def speed_of(options: dict) -> str:
    """The speed a game with these (normalized or stored) options is played at: its option
    ``speed``; for options stored before speeds existed, the named speed whose timers they
    hold, else ``"custom"``."""
    speed = options.get("speed")
    if speed in SPEEDS:
        return speed
    for name, turn in SPEED_TURN.items():
        if (options.get("move_timeout", SITE_DEFAULTS["move_timeout"]) == turn
                and options.get("challenge_timeout", SITE_DEFAULTS["challenge_timeout"])
                == turn // 2):
            return name
    return "custom"


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


def speed_schema() -> dict[str, Any]:
    """The JSON Schemas of the speed's options (:func:`speed_options`), for each game's options
    schema (OpenAPI 3.0's dialect)."""
    return {
        "speed": {"type": "string", "enum": list(SPEEDS),
                  "description": "fast (an hour a turn), normal (a day), slow (three days): "
                                 "a challenge window takes half; bank: a time bank per seat "
                                 "(bank_initial, bank_increment); custom: the timers as "
                                 "given. Without it: custom if a timer is given, bank if a "
                                 "bank's option is, else normal."},
        **{key: {"type": "integer", "minimum": low, "maximum": high, "description": text}
           for (key, (low, high)), text in zip(BANK_RANGES.items(), (
               "seconds: each seat's bank at the start, and its cap (speed bank)",
               "seconds added to a seat's bank at each of its decisions, up to the cap "
               "(speed bank)"), strict=True)},
    }
