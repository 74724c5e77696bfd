"""Shadow House Mascarade's normalize_options: every option, its default, and every refusal."""

from __future__ import annotations

import pytest

from games.engine import InvalidOptions
from games.engine.options import BANK_KEYS
from games.shadow_house.rules import GAME as G
from games.shadow_house.rules import OPTION_KEYS
from games.shadow_house.rules.cards import BOX
from games.shadow_house.rules.options import DEFAULTS as OPTION_DEFAULTS
from games.shadow_house.rules.options import RANGES

from .support import HANDS4, box

HUGE = [10**5000, -(10**5000), 10**4300, 2**20_000, -(2**64), 10**40]
DEFAULTS = {"players": 5, "flash": False, "speed": "normal", "move_timeout": 86400,
            "challenge_timeout": 43200, "absent_after": 3, "absent_policy": "bot", "revision": 2}
ORDER = list(BOX)


def refuse(options, field, code):
    with pytest.raises(InvalidOptions) as info:
        G.normalize_options(options)
    error = info.value
    assert (error.field, error.code) == (field, code), error.message
    assert error.message.endswith(".") and len(error.message) < 400
    return error


def test_defaults_fill_every_option():
    assert G.normalize_options({}) == DEFAULTS == OPTION_DEFAULTS
    assert G.player_count({}) == 5 and G.player_count({"players": 8}) == 8
    assert set(OPTION_KEYS) == {*DEFAULTS, *BANK_KEYS, "deal", "first_seat"}
    assert RANGES["players"] == (3, 8)


@pytest.mark.parametrize("options", [
    {},
    {"players": 3, "flash": True},
    {"players": 8, "move_timeout": 60, "challenge_timeout": 604800, "absent_after": 10,
     "absent_policy": "wait"},
    {"players": 4, "deal": [box(HANDS4)], "first_seat": 3},
    {"players": 4, "deal": [ORDER, ORDER[::-1], ORDER]},
    {"deal": None, "first_seat": None},
    {"players": 6, "first_seat": 5},
    {"revision": 1},
    {"players": 3, "revision": 2},
])
def test_normalize_is_idempotent_and_keeps_what_was_given(options):
    once = G.normalize_options(options)
    assert G.normalize_options(once) == once
    assert once is not options
    assert {k: once[k] for k in options} == options
    if options.get("deal"):
        assert once["deal"] is not options["deal"]
        assert all(a is not b for a, b in zip(once["deal"], options["deal"], strict=True))


@pytest.mark.parametrize(("options", "field", "code"), [
    ({"players": 2}, "players", "out_of_range"),
    ({"players": 9}, "players", "out_of_range"),
    ({"players": 0}, "players", "out_of_range"),
    ({"players": True}, "players", "wrong_type"),
    ({"players": "4"}, "players", "wrong_type"),
    ({"players": 4.0}, "players", "wrong_type"),
    ({"players": None}, "players", "wrong_type"),
    ({"flash": 1}, "flash", "wrong_type"),
    ({"flash": "true"}, "flash", "wrong_type"),
    ({"flash": None}, "flash", "wrong_type"),
    ({"colour": "red"}, "colour", "unknown_option"),
    ({"goal": 7}, "goal", "unknown_option"),
    ({"scenario": "A"}, "scenario", "unknown_option"),
    ({"move_timeout": 59}, "move_timeout", "out_of_range"),
    ({"move_timeout": True}, "move_timeout", "wrong_type"),
    ({"challenge_timeout": 604_801}, "challenge_timeout", "out_of_range"),
    ({"absent_after": 0}, "absent_after", "out_of_range"),
    ({"absent_policy": "kick"}, "absent_policy", "invalid_choice"),
    ({"first_seat": 5}, "first_seat", "out_of_range"),
    ({"players": 3, "first_seat": 3}, "first_seat", "out_of_range"),
    ({"first_seat": -1}, "first_seat", "out_of_range"),
    ({"first_seat": True}, "first_seat", "wrong_type"),
    ({"first_seat": "0"}, "first_seat", "wrong_type"),
    ({"first_seat": 0.0}, "first_seat", "wrong_type"),
    ({"deal": ORDER}, "deal", "wrong_type"),
    ({"deal": "culprit"}, "deal", "wrong_type"),
    ({"deal": {"1": ORDER}}, "deal", "wrong_type"),
    ({"deal": []}, "deal", "deal_empty"),
    ({"deal": [[]]}, "deal", "deal_not_permutation"),
    ({"deal": [ORDER[:35]]}, "deal", "deal_not_permutation"),
    ({"deal": [[*ORDER, "alibi"]]}, "deal", "deal_not_permutation"),
    ({"deal": [["alibi"] * 36]}, "deal", "deal_not_permutation"),
    ({"deal": [[*ORDER[:35], "culprit"]]}, "deal", "deal_not_permutation"),
    ({"deal": [ORDER, ORDER[1:]]}, "deal", "deal_not_permutation"),
    ({"deal": [ORDER, None]}, "deal", "wrong_type"),
    ({"deal": [[*ORDER[:35], 1]]}, "deal", "wrong_type"),
    ({"deal": [[*ORDER[:35], None]]}, "deal", "wrong_type"),
    ({"deal": [[*ORDER[:35], "joker"]]}, "deal", "unknown_card"),
    ({"deal": [[*ORDER[:35], "Exchange"]]}, "deal", "unknown_card"),
    ({"revision": 0}, "revision", "out_of_range"),
    ({"revision": 3}, "revision", "out_of_range"),
    ({"revision": "1"}, "revision", "wrong_type"),
    ({"revision": None}, "revision", "wrong_type"),
    ({"revision": 2.0}, "revision", "wrong_type"),
])
def test_refusals(options, field, code):
    refuse(options, field, code)


def test_messages_name_the_problem():
    assert "8" in refuse({"players": 9}, "players", "out_of_range").message
    error = refuse({"deal": [ORDER, [*ORDER[:35], "culprit"]]}, "deal", "deal_not_permutation")
    assert "round 2" in error.message and "2 culprit (not 1)" in error.message
    assert "0 to 3" in refuse({"players": 4, "first_seat": 4}, "first_seat",
                              "out_of_range").message


def test_options_must_be_an_object():
    for options in (None, [], "players", 4):
        with pytest.raises(InvalidOptions) as info:
            G.normalize_options(options)
        assert info.value.code == "wrong_type"


def test_player_counts_out_of_range_are_refused_by_player_count_too():
    for players in (2, 9):
        with pytest.raises(InvalidOptions):
            G.player_count({"players": players})


def test_huge_ints_are_out_of_range_and_short():
    for key in ("players", "move_timeout", "challenge_timeout", "absent_after", "first_seat",
                "revision"):
        for value in HUGE:
            error = refuse({key: value}, key, "out_of_range")
            if abs(value) >= 10**40:
                assert "a number too large" in error.message
    for value in HUGE:
        refuse({"deal": [[*ORDER[:35], value]]}, "deal", "wrong_type")


def test_long_and_many_values_give_short_messages():
    refuse({"deal": [["x" * 10_000] * 100]}, "deal", "unknown_card")
    refuse({"deal": [list(range(5000))]}, "deal", "wrong_type")
    refuse({"deal": [["alibi"] * 10_000]}, "deal", "deal_not_permutation")


def test_the_options_shape_the_game():
    for n in range(3, 9):
        s = G.setup({"players": n}, 5)
        assert s.n == n and len(s.hands) == n and not s.flash
    assert G.setup({"players": 3, "flash": True}, 5).flash


def test_a_new_game_plays_the_latest_revision_and_stored_options_without_one_the_first():
    """Normalized options name the latest revision (2: ruling S6, SH-16), so a new game plays
    it; options stored before revisions existed have none, and ``setup`` plays revision 1 for
    them, as they were played."""
    assert G.setup(G.normalize_options({}), 5).revision == 2
    assert G.setup({"revision": 1}, 5).revision == 1
    stored = {key: value for key, value in DEFAULTS.items() if key != "revision"}
    assert G.setup(stored, 5).revision == 1
