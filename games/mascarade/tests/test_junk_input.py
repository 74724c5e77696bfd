"""Any JSON value a client may send, anywhere it may send it, gives a typed engine error or is
accepted: never another exception, never a long message.

Hypothesis draws JSON values recursively (null, booleans, ints of any size — past Python's
4,300-digit printing limit too —, floats with nan and infinities, strings long or with NULs, lists,
objects, and one list nested thousands deep) and puts them in every field of every move type (on
states of real games in every phase), in the ``player`` of ``apply``, ``legal_moves`` and
``timeout_move``, in every option of ``normalize_options`` and in every field of a table move.
"""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from games.engine import EngineError, InvalidOptions, MalformedMove
from games.engine.table import ACTIONS, apply_table, initial_table
from games.mascarade.rules import MASCARADE as M
from games.mascarade.rules import MASKS
from games.mascarade.rules.options import OPTION_KEYS
from games.mascarade.rules.rules import MOVE_FIELDS

from .helpers import EXPLORE_OPTIONS, announce, at_turn, decide, explore

#: An error message a player reads: a sentence, not a page.
MAX_MESSAGE = 400

#: Python refuses to print an int of more than 4,300 digits (``sys.get_int_max_str_digits``).
HUGE = [10**5000, -(10**5000), 10**4300, 2**20_000, -(2**64), 10**40, 10**39]

DEEP: list = []
for _ in range(3000):
    DEEP = [DEEP]


class Unprintable:
    """Stands for a value that hypothesis could not print in a failing example (a huge int, a list
    nested thousands deep); :func:`real` puts the value in its place."""

    def __init__(self, name: str, value: Any) -> None:
        self.name, self.value = name, value

    def __repr__(self) -> str:
        return self.name


def real(value: Any) -> Any:
    """``value`` with every :class:`Unprintable` replaced by the value it stands for."""
    if isinstance(value, Unprintable):
        return value.value
    if isinstance(value, list):
        return [real(v) for v in value]
    if isinstance(value, dict):
        return {k: real(v) for k, v in value.items()}
    return value


#: Values that broke, or could break, the engine's messages: too large to print, nested too deep
#: to print, too long to quote. They come up often, alone and inside lists and objects.
EXTREMES = [
    Unprintable("10**5000", 10**5000), Unprintable("-10**5000", -(10**5000)),
    Unprintable("10**4300", 10**4300), Unprintable("2**20000", 2**20_000),
    Unprintable("DEEP", DEEP), Unprintable("'x' * 10000", "x" * 10_000),
    Unprintable("'user:' + '9' * 5000", "user:" + "9" * 5000),
    Unprintable("['x' * 10000] * 100", ["x" * 10_000] * 100),
    Unprintable("list(range(5000))", list(range(5000))),
    10**40, 10**39, -(2**64), float("nan"), float("inf"), float("-inf"), "\x00" * 50,
]

#: Strings the engine gives a meaning to, so that values get past the first checks.
WORDS = [
    *MASKS, "center-0", "center-1", "center-2", "center-", "center-00", *MOVE_FIELDS,
    "A", "B", "custom", "sequential", "simultaneous", "bot", "wait", "table", *ACTIONS,
    "user:1", "user:17", "bot:heuristic", "bot:random", "", " ", "\x00", "king\x00",
    "\ud800", "'\"\\", "é" * 50,
]
SMALL = [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 30, 60, 86_400, 604_800, 2_592_000]

leaves = st.one_of(
    st.sampled_from(EXTREMES),
    st.none(),
    st.booleans(),
    st.sampled_from(SMALL),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(WORDS),
    st.text(max_size=30),
)
json_values = st.one_of(
    st.sampled_from(EXTREMES),
    leaves,
    st.recursive(
        leaves,
        lambda children: st.lists(children, max_size=4)
        | st.dictionaries(st.one_of(st.sampled_from(WORDS), st.text(max_size=8),
                                    st.sampled_from(["x" * 10_000])),
                          children, max_size=4),
        max_leaves=8,
    ),
    st.lists(st.sampled_from([*MASKS, *MASKS]), max_size=13),  # almost a mask list
)
#: A field name: the move's own ones and others.
field_names = st.one_of(st.sampled_from(["type", "target", "targets", "swap", "mask", "hidden",
                                         "guess", "action", "player"]),
                        st.sampled_from(WORDS), st.text(max_size=10),
                        st.just(Unprintable("'x' * 10000", "x" * 10_000)))


def short_error(error: EngineError) -> None:
    assert error.code and error.message
    assert len(error.message) < MAX_MESSAGE, f"a message of {len(error.message)} characters"


# Moves ---------------------------------------------------------------------------------------


@functools.cache
def states() -> list[Any]:
    """States of real games: every phase and power decision, a few of each, and a game over."""
    by_kind: dict[str, list[Any]] = {}
    for options in EXPLORE_OPTIONS:
        for seed in (1, 2, 3):
            for s in explore(options, seed, moves=250):
                pending = M.pending(s)
                kind = pending[0].decision if pending else "over"
                if len(by_kind.setdefault(kind, [])) < 4:
                    by_kind[kind].append(s)
    # The Gambler is rare in random play: script its two decisions.
    s, _ = announce(at_turn(["judge", "spy", "thief", "widow", "gambler", "king", "guru", "fool"],
                            4), "gambler")
    by_kind["gambler"] = [s]
    s, _ = decide(s, {"type": "gambler", "hidden": 2, "target": 5})
    by_kind["gambler_guess"] = [s]
    assert len(by_kind) == 15, sorted(by_kind)
    return [s for group in by_kind.values() for s in group]


def base_move(s: Any, mtype: str, draw) -> dict[str, Any]:
    """A move of ``mtype`` with plausible values (legal now when the state awaits it)."""
    for p in M.pending(s):
        legal = [m for m in M.legal_moves(s, p.player) if m["type"] == mtype]
        if legal:
            return dict(draw(st.sampled_from(legal)))
    plausible = {"slot": 1, "seat": 1, "bool": True, "mask": "judge", "pair": [1, 2],
                 "seat_or_null": None, "one_to_three": 2}
    return {"type": mtype, **{name: plausible[kind] for name, kind in MOVE_FIELDS[mtype]}}


def players(s: Any):
    pending = [p.player for p in M.pending(s)]
    return st.one_of(st.sampled_from(pending or [0]), st.integers(-2, s.n + 1), json_values)


def apply_or_refuse(s: Any, player: Any, move: Any) -> None:
    try:
        M.apply(s, player, move)
    except EngineError as error:
        short_error(error)


@given(data=st.data(), mtype=st.sampled_from(sorted(MOVE_FIELDS)), value=json_values)
def test_any_json_value_in_any_field_of_any_move(data, mtype, value):
    s = data.draw(st.sampled_from(states()))
    move = base_move(s, mtype, data.draw)
    fields = ["type", *(name for name, _kind in MOVE_FIELDS[mtype])]
    name = data.draw(st.one_of(st.sampled_from(fields), field_names))
    move[real(name)] = real(value)
    apply_or_refuse(s, real(data.draw(players(s))), move)


@given(data=st.data(), move=json_values)
def test_any_json_value_as_a_move(data, move):
    s = data.draw(st.sampled_from(states()))
    apply_or_refuse(s, real(data.draw(players(s))), real(move))


@given(data=st.data(), player=json_values)
def test_any_json_value_as_the_player(data, player):
    s = data.draw(st.sampled_from(states()))
    player = real(player)
    legal = M.legal_moves(s, player)
    assert isinstance(legal, list)
    try:
        move = M.timeout_move(s, player)
    except EngineError as error:
        short_error(error)
    else:
        assert move in legal
    for p in M.pending(s)[:1]:
        apply_or_refuse(s, player, M.timeout_move(s, p.player))


def test_a_seat_too_large_to_print_is_out_of_range():
    s = states()[-1]
    for value in HUGE:
        for move in ({"type": "exchange", "target": value, "swap": True},
                     {"type": "gambler", "hidden": value, "target": 1},
                     {"type": "gambler_guess", "guess": value},
                     {"type": "fool", "targets": [1, value], "swap": False}):
            try:
                M.apply(s, 0, move)
            except MalformedMove as error:
                assert error.code == "out_of_range"
                short_error(error)
                if abs(value) > 10**40:
                    assert "a number too large" in error.message


# Options --------------------------------------------------------------------------------------

BASE_OPTIONS = [
    {"players": 8},
    {"players": 4, "scenario": "B"},
    {"players": 8, "scenario": "custom",
     "masks": ["judge", "king", "empress", "spy", "thief", "widow", "peasant", "peasant"]},
    {"players": 7, "scenario": "custom", "center": 2,
     "masks": ["judge", "king", "empress", "gambler", "spy", "thief", "guru", "crook", "fool"]},
    {"players": 6, "deal": ["sorceress", "cheater", "thief", "empress", "king", "judge"],
     "first_seat": 2},
]


def normalize_or_refuse(options: Any) -> None:
    try:
        M.normalize_options(options)
        M.player_count(options)
    except InvalidOptions as error:
        short_error(error)


@given(base=st.sampled_from(BASE_OPTIONS),
       key=st.one_of(st.sampled_from(OPTION_KEYS), field_names), value=json_values)
def test_any_json_value_in_any_option(base, key, value):
    normalize_or_refuse({**base, real(key): real(value)})


@given(options=json_values)
def test_any_json_value_as_the_options(options):
    normalize_or_refuse(real(options))


def test_options_too_large_to_print_are_out_of_range():
    for key in ("players", "move_timeout", "challenge_timeout", "absent_after", "first_seat"):
        for value in HUGE:
            try:
                M.normalize_options({"players": 8, key: value})
            except InvalidOptions as error:
                assert (error.code, error.field) == ("out_of_range", key)
                short_error(error)


def test_many_long_unknown_masks_give_a_short_message():
    for masks in (["x" * 10_000] * 100, [f"mask{k}" for k in range(1000)]):
        try:
            M.normalize_options({"players": 8, "scenario": "custom", "masks": masks})
        except InvalidOptions as error:
            short_error(error)
            for code, message in error.extra["errors"]:
                assert code and len(message) < MAX_MESSAGE
        else:  # pragma: no cover
            raise AssertionError("unknown masks were accepted")


# Table moves ---------------------------------------------------------------------------------

TABLES = [
    initial_table(),
    {"paused": True, "paused_by": "players", "aborted": None, "absent": [1, 3],
     "occupants": {"2": "bot:heuristic"}},
    {"paused": False, "paused_by": None, "aborted": "cheating", "absent": [],
     "occupants": {}},
]
TABLE_BASE = {
    "pause": {}, "resume": {}, "absent": {"player": 1}, "back": {"player": 3},
    "replace": {"player": 2, "occupant": "user:5"}, "extend": {"seconds": 3600, "player": 0},
    "abort": {"reason": "cheating"},
}


@given(table=st.sampled_from(TABLES), action=st.sampled_from(sorted(ACTIONS)),
       name=st.one_of(st.sampled_from(["type", "action", "player", "occupant", "previous",
                                       "reason", "by", "seconds"]), field_names),
       value=json_values)
def test_any_json_value_in_any_field_of_a_table_move(table, action, name, value):
    move = {"type": "table", "action": action, **TABLE_BASE[action], real(name): real(value)}
    try:
        apply_table(table, move, 5)
    except EngineError as error:
        short_error(error)


@given(move=json_values)
def test_any_json_value_as_a_table_move(move):
    try:
        apply_table(initial_table(), real(move), 5)
    except EngineError as error:
        short_error(error)


def test_a_table_seat_too_large_to_print_is_out_of_range():
    for value in HUGE:
        for action in ("absent", "back", "replace", "extend"):
            move = {"type": "table", "action": action, **TABLE_BASE[action], "player": value}
            try:
                apply_table(initial_table(), move, 5)
            except MalformedMove as error:
                assert error.code == "seat_out_of_range"
                short_error(error)


def test_spell_prints_what_is_short_and_describes_the_rest():
    from games.engine.base import spell

    assert [spell(v) for v in (7, -3, 10**39, None, True, 2.5, [1], {"a": 1})] == [
        "7", "-3", str(10**39), "null", "a boolean", "a number", "a list", "an object"]
    for value in (10**40, -(10**40), 10**5000, -(10**5000)):
        assert spell(value) == "a number too large"
    assert spell("king") == "'king'"
    assert spell(DEEP) == "a list"
    long = spell("x" * 10_000)
    assert len(long) == 40 and long.startswith("'xxx") and long.endswith("...")
    assert spell("\x00") == repr("\x00")


def test_keys_that_json_cannot_spell_give_typed_errors_too():
    """Python callers may pass dicts with other keys than strings: still a typed error."""
    s = states()[0]
    for key in (10**5000, 3, None, ("a",)):
        table_move = {"type": "table", "action": "pause", key: 1, "zz": 2}
        calls = [(M.apply, (s, 0, {"type": "look", key: 1})),
                 (M.normalize_options, ({"players": 8, key: 1},)),
                 (apply_table, (initial_table(), table_move, 5))]
        for function, args in calls:
            try:
                function(*args)
            except EngineError as error:
                short_error(error)
