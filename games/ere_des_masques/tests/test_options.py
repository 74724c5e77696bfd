"""L'Ère des Masques's normalize_options: every option, its default, and every refusal."""

from __future__ import annotations

import pytest

from games.engine import InvalidOptions
from games.engine.options import BANK_KEYS
from games.ere_des_masques.rules import GAME as G
from games.ere_des_masques.rules import KINDS, OPTION_KEYS

from .support import deal

HUGE = [10**5000, -(10**5000), 10**4300, 2**20_000, -(2**64), 10**40]
DEFAULTS = {"players": 2, "speed": "normal", "move_timeout": 86400, "challenge_timeout": 43200,
            "absent_after": 3, "absent_policy": "bot", "revision": 2}


def refuse(options, field, code):
    with pytest.raises(InvalidOptions) as info:
        G.normalize_options(options)
    error = info.value
    assert (error.field, error.code) == (field, code), error.message
    assert error.message.endswith(".") and len(error.message) < 400
    return error


def test_defaults_fill_every_option():
    assert G.normalize_options({}) == DEFAULTS
    assert G.normalize_options({"players": 2}) == DEFAULTS
    assert G.player_count({}) == 2
    assert (G.id, G.min_players, G.max_players) == ("ere_des_masques", 2, 2)
    assert set(OPTION_KEYS) == {*DEFAULTS, *BANK_KEYS, "deal", "first_seat"}


@pytest.mark.parametrize("options", [
    {},
    {"players": 2, "move_timeout": 60, "challenge_timeout": 604800, "absent_after": 10,
     "absent_policy": "wait"},
    {"move_timeout": 1_209_600, "challenge_timeout": 30, "absent_after": 1},
    {"deal": deal(), "first_seat": 1},
    {"deal": None, "first_seat": None},
    {"first_seat": 0},
    {"revision": 1},
    {"revision": 2},
])
def test_normalize_is_idempotent_and_keeps_what_was_given(options):
    once = G.normalize_options(options)
    assert G.normalize_options(once) == once
    assert once is not options
    assert {k: once[k] for k in options} == options
    if "deal" in options and options["deal"] is not None:
        assert once["deal"] is not options["deal"], "the deal list is shared"


@pytest.mark.parametrize(("options", "field", "code"), [
    ({"players": 1}, "players", "out_of_range"),
    ({"players": 3}, "players", "out_of_range"),
    ({"players": 0}, "players", "out_of_range"),
    ({"players": True}, "players", "wrong_type"),
    ({"players": "2"}, "players", "wrong_type"),
    ({"players": 2.0}, "players", "wrong_type"),
    ({"players": None}, "players", "wrong_type"),
    ({"colour": "red"}, "colour", "unknown_option"),
    ({"scenario": "A"}, "scenario", "unknown_option"),
    ({"move_timeout": 59}, "move_timeout", "out_of_range"),
    ({"move_timeout": 1_209_601}, "move_timeout", "out_of_range"),
    ({"move_timeout": True}, "move_timeout", "wrong_type"),
    ({"move_timeout": 3600.0}, "move_timeout", "wrong_type"),
    ({"challenge_timeout": 29}, "challenge_timeout", "out_of_range"),
    ({"challenge_timeout": 604_801}, "challenge_timeout", "out_of_range"),
    ({"challenge_timeout": "60"}, "challenge_timeout", "wrong_type"),
    ({"absent_after": 0}, "absent_after", "out_of_range"),
    ({"absent_after": 11}, "absent_after", "out_of_range"),
    ({"absent_after": False}, "absent_after", "wrong_type"),
    ({"absent_policy": "kick"}, "absent_policy", "invalid_choice"),
    ({"absent_policy": None}, "absent_policy", "invalid_choice"),
    ({"absent_policy": ["bot"]}, "absent_policy", "invalid_choice"),
    ({"first_seat": 2}, "first_seat", "out_of_range"),
    ({"first_seat": -1}, "first_seat", "out_of_range"),
    ({"first_seat": True}, "first_seat", "wrong_type"),
    ({"first_seat": "0"}, "first_seat", "wrong_type"),
    ({"first_seat": 0.0}, "first_seat", "wrong_type"),
    ({"deal": "noble"}, "deal", "wrong_type"),
    ({"deal": {"noble": 8}}, "deal", "wrong_type"),
    ({"deal": []}, "deal", "deal_not_permutation"),
    ({"deal": deal()[:39]}, "deal", "deal_not_permutation"),
    ({"deal": [*deal(), "noble"]}, "deal", "deal_not_permutation"),
    ({"deal": ["noble"] * 40}, "deal", "deal_not_permutation"),
    ({"deal": [*deal()[:39], 1]}, "deal", "wrong_type"),
    ({"deal": [*deal()[:39], None]}, "deal", "wrong_type"),
    ({"deal": [*deal()[:39], "joker"]}, "deal", "unknown_kind"),
    ({"deal": [*deal()[:39], "Noble"]}, "deal", "unknown_kind"),
    ({"revision": 0}, "revision", "out_of_range"),
    ({"revision": 3}, "revision", "out_of_range"),
    ({"revision": "2"}, "revision", "wrong_type"),
    ({"revision": None}, "revision", "wrong_type"),
    ({"revision": True}, "revision", "wrong_type"),
])
def test_refusals(options, field, code):
    refuse(options, field, code)


def test_options_must_be_an_object():
    for options in (None, [], "players", 2):
        with pytest.raises(InvalidOptions) as info:
            G.normalize_options(options)
        assert info.value.code == "wrong_type"


def test_players_out_of_range_are_refused_by_player_count_too():
    for players in (1, 3):
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
        refuse({"deal": [*deal()[:39], value]}, "deal", "wrong_type")


def test_long_and_many_values_give_short_messages():
    refuse({"deal": ["x" * 10_000] * 100}, "deal", "unknown_kind")
    refuse({"deal": list(KINDS) * 1000}, "deal", "deal_not_permutation")
    refuse({"x" * 10_000: 1}, "x" * 10_000, "unknown_option")
    with pytest.raises(InvalidOptions) as info:
        G.normalize_options({10**5000: 1})
    assert info.value.code == "unknown_option" and len(info.value.message) < 400


def test_the_deal_fixes_the_cards():
    cards = deal(pile=("assassin", "assassin", "spy"))
    s = G.setup({"deal": cards, "first_seat": 0}, seed=99)
    assert s.pile == cards[14:]


def test_a_new_game_plays_the_latest_revision_and_stored_options_without_one_the_first():
    """Normalized options name the latest revision (2: rulings E3b and E5), so a new game plays
    it; options stored before revisions existed have none, and ``setup`` plays revision 1 for
    them, as they were played."""
    assert G.setup(G.normalize_options({}), 5).revision == 2
    assert G.setup({"revision": 1}, 5).revision == 1
    stored = {key: value for key, value in DEFAULTS.items() if key != "revision"}
    assert G.setup(stored, 5).revision == 1
