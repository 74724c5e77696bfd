"""normalize_options: every option of API.md's table, its default, and every refusal."""

import pytest

from games.engine import InvalidOptions
from games.mascarade.rules import MASCARADE as M
from games.mascarade.rules import SCENARIOS

CUSTOM_8 = ["judge", "king", "empress", "spy", "thief", "widow", "peasant", "peasant"]


def refuse(options, field, code):
    with pytest.raises(InvalidOptions) as info:
        M.normalize_options(options)
    assert info.value.field == field
    assert info.value.code == code
    assert info.value.message.endswith(".")
    return info.value


def test_defaults_fill_every_option():
    assert M.normalize_options({"players": 8}) == {
        "players": 8, "scenario": "A", "masks": list(SCENARIOS["A"][8]), "center": 0,
        "challenge_mode": "sequential", "speed": "normal", "move_timeout": 86400,
        "challenge_timeout": 43200, "log_masks": True, "absent_after": 3, "absent_policy": "bot",
    }
    assert M.normalize_options({"players": 4, "scenario": "B"})["center"] == 2
    assert M.normalize_options({"players": 5})["center"] == 1
    assert M.player_count({"players": 7}) == 7


@pytest.mark.parametrize("options", [
    {"players": 4},
    {"players": 12, "scenario": "B", "challenge_mode": "simultaneous", "log_masks": False},
    {"players": 8, "scenario": "custom", "masks": CUSTOM_8},
    {"players": 7, "scenario": "custom", "center": 2,
     "masks": ["judge", "king", "empress", "gambler", "spy", "thief", "guru", "crook", "fool"]},
    {"players": 6, "move_timeout": 60, "challenge_timeout": 604800, "absent_after": 10,
     "absent_policy": "wait", "first_seat": 5,
     "deal": ["sorceress", "cheater", "thief", "empress", "king", "judge"]},
])
def test_normalize_is_idempotent(options):
    once = M.normalize_options(options)
    assert M.normalize_options(once) == once
    assert once is not options
    assert {k: once[k] for k in options} == options


def test_named_scenario_accepts_its_own_masks_and_center():
    masks = list(reversed(SCENARIOS["B"][5]))
    out = M.normalize_options({"players": 5, "scenario": "B", "masks": masks, "center": 1})
    assert out["masks"] == list(SCENARIOS["B"][5])


@pytest.mark.parametrize(("options", "field", "code"), [
    ([], None, "wrong_type"),
    ({}, "players", "required"),
    ({"players": True}, "players", "wrong_type"),
    ({"players": "8"}, "players", "wrong_type"),
    ({"players": 8.0}, "players", "wrong_type"),
    ({"players": 3}, "players", "out_of_range"),
    ({"players": 13}, "players", "out_of_range"),
    ({"players": 8, "colour": "red"}, "colour", "unknown_option"),
    ({"players": 8, "scenario": "C"}, "scenario", "invalid_choice"),
    ({"players": 8, "scenario": ["A"]}, "scenario", "invalid_choice"),
    ({"players": 8, "challenge_mode": "fast"}, "challenge_mode", "invalid_choice"),
    ({"players": 8, "move_timeout": 59}, "move_timeout", "out_of_range"),
    ({"players": 8, "move_timeout": 1209601}, "move_timeout", "out_of_range"),
    ({"players": 8, "move_timeout": True}, "move_timeout", "wrong_type"),
    ({"players": 8, "challenge_timeout": 29}, "challenge_timeout", "out_of_range"),
    ({"players": 8, "challenge_timeout": 604801}, "challenge_timeout", "out_of_range"),
    ({"players": 8, "log_masks": 1}, "log_masks", "wrong_type"),
    ({"players": 8, "log_masks": "true"}, "log_masks", "wrong_type"),
    ({"players": 8, "absent_after": 0}, "absent_after", "out_of_range"),
    ({"players": 8, "absent_after": 11}, "absent_after", "out_of_range"),
    ({"players": 8, "absent_after": False}, "absent_after", "wrong_type"),
    ({"players": 8, "absent_policy": "kick"}, "absent_policy", "invalid_choice"),
    ({"players": 8, "first_seat": 8}, "first_seat", "out_of_range"),
    ({"players": 8, "first_seat": -1}, "first_seat", "out_of_range"),
    ({"players": 8, "first_seat": True}, "first_seat", "wrong_type"),
    ({"players": 8, "deal": "judge"}, "deal", "wrong_type"),
    ({"players": 8, "deal": [1, 2]}, "deal", "wrong_type"),
    ({"players": 8, "deal": list(SCENARIOS["A"][8])[:-1]}, "deal", "deal_not_permutation"),
    ({"players": 8, "deal": [*list(SCENARIOS["A"][8])[:-1], "king"]}, "deal",
     "deal_not_permutation"),
    ({"players": 8, "masks": CUSTOM_8}, "masks", "masks_custom_only"),
    ({"players": 8, "center": 1}, "center", "center_not_choosable"),
    ({"players": 4, "scenario": "custom", "center": 0,
      "masks": ["judge", "king", "empress", "thief"]}, "center", "center_not_choosable"),
    ({"players": 8, "scenario": "custom", "masks": CUSTOM_8, "center": 3}, "center",
     "out_of_range"),
    ({"players": 8, "scenario": "custom"}, "masks", "required"),
    ({"players": 8, "scenario": "custom", "masks": "judge"}, "masks", "wrong_type"),
])
def test_refusals(options, field, code):
    refuse(options, field, code)


def test_gambler_only_in_custom():
    masks = [*list(SCENARIOS["A"][8])[:-2], "gambler", "king"]
    error = refuse({"players": 8, "masks": masks}, "masks", "gambler_custom_only")
    assert "Gambler" in error.message
    masks = ["judge", "king", "empress", "spy", "thief", "gambler", "peasant", "peasant"]
    assert M.normalize_options({"players": 8, "scenario": "custom", "masks": masks})["masks"] == (
        masks)


@pytest.mark.parametrize(("masks", "players", "center", "code", "words"), [
    (["king", "empress", "spy", "thief", "widow", "fool"], 6, 0, "custom_needs_judge", "Judge"),
    (["judge", "king", "spy", "thief", "cheater", "crook", "guru"], 7, 0,
     "custom_too_few_stars", "third"),
    (["judge", "king", "empress", "spy", "thief", "cheater", "fool", "peasant"], 8, 0,
     "custom_peasant_pair", "pair"),
    (["judge", "king", "empress", "spy", "spy", "fool"], 6, 0, "custom_duplicate_mask",
     "twice"),
    (["judge", "king", "empress", "puppeteer", "fool", "thief"], 5, None, "custom_min_players",
     "puppeteer needs 6"),
    (["judge", "king", "empress", "spy", "thief", "fool", "guru"], 6, 0, "custom_mask_count",
     "exactly 6"),
    (["judge", "king", "empress", "spy", "thief", "fool"], 6, 2, "custom_mask_count",
     "exactly 8"),
    (["judge", "king", "empress", "spy", "thief", "dragon"], 6, 0, "unknown_mask", "dragon"),
])
def test_custom_rules_each_have_their_message(masks, players, center, code, words):
    options = {"players": players, "scenario": "custom", "masks": masks}
    if center is not None:
        options["center"] = center
    error = refuse(options, "masks", code)
    assert words in error.message
    assert "§3" in error.message or code == "unknown_mask"
    assert error.extra["errors"][0] == (code, error.message)


def test_custom_reports_every_broken_rule():
    error = refuse({"players": 6, "scenario": "custom",
                    "masks": ["spy", "spy", "thief", "crook", "peasant"]}, "masks",
                   "custom_needs_judge")
    assert [code for code, _ in error.extra["errors"]] == [
        "custom_needs_judge", "custom_too_few_stars", "custom_peasant_pair",
        "custom_duplicate_mask", "custom_min_players", "custom_mask_count"]


def test_custom_center_for_six_or_more():
    masks = ["judge", "king", "empress", "spy", "thief", "fool", "guru", "crook"]
    out = M.normalize_options({"players": 6, "scenario": "custom", "masks": masks, "center": 2})
    assert out["center"] == 2
    assert M.normalize_options({"players": 8, "scenario": "custom", "masks": masks})["center"] == 0
    # 4 and 5 players: the center is fixed, and giving that very value is accepted.
    five = ["judge", "king", "empress", "spy", "thief", "fool"]
    assert M.normalize_options({"players": 5, "scenario": "custom", "masks": five,
                                "center": 1})["center"] == 1
