"""The material as data: rules §1–§3 (R1, R3)."""

from games.mascarade.rules import BOX, CENTER_CARDS, MASKS, SCENARIOS, scenario_problems

# Rules §1, column by column: id → (★, min players).
TABLE_1 = {
    "judge": (False, 4), "king": (True, 4), "empress": (True, 4), "cheater": (False, 4),
    "thief": (False, 4), "spy": (False, 4), "sorceress": (False, 4), "fool": (True, 4),
    "guru": (False, 4), "crook": (False, 4), "widow": (True, 4), "princess": (True, 4),
    "patron": (True, 4), "puppeteer": (False, 6), "beggar": (False, 6), "peasant": (True, 8),
    "gambler": (True, 4),
}

# Rules §3, written out in full.
TABLE_3 = {
    4: ("judge king empress thief cheater spy", "judge guru crook princess widow spy"),
    5: ("judge king empress thief cheater sorceress",
        "judge guru crook princess patron sorceress"),
    6: ("judge king empress thief cheater sorceress",
        "judge guru crook princess patron puppeteer"),
    7: ("judge king empress thief cheater sorceress fool",
        "judge guru crook princess patron puppeteer empress"),
    8: ("judge king empress cheater sorceress fool peasant peasant",
        "judge guru crook princess patron puppeteer empress beggar"),
    9: ("judge king empress cheater sorceress fool peasant peasant spy",
        "judge guru crook princess patron puppeteer empress beggar widow"),
    10: ("judge king empress cheater sorceress fool peasant peasant spy widow",
         "judge guru crook princess patron puppeteer empress beggar widow spy"),
    11: ("judge king empress cheater sorceress fool peasant peasant spy widow thief",
         "judge guru crook princess patron puppeteer empress beggar widow spy fool"),
    12: ("judge king empress cheater sorceress fool peasant peasant spy widow thief patron",
         "judge guru crook princess patron puppeteer empress beggar widow spy fool sorceress"),
}


def test_masks_table_matches_rules_1():
    assert {m: (MASKS[m].star, MASKS[m].min_players) for m in MASKS} == TABLE_1
    assert all(MASKS[m].power.strip() for m in MASKS)
    assert [m for m in MASKS if MASKS[m].custom_only] == ["gambler"]


def test_box_holds_16_masks_in_17_cards():
    assert len(BOX) == 17
    assert len(set(BOX)) == 16
    assert BOX.count("peasant") == 2
    assert "gambler" not in BOX


def test_r3_scenarios_are_rules_3_table():
    assert set(SCENARIOS) == {"A", "B"}
    for side, index in (("A", 0), ("B", 1)):
        assert set(SCENARIOS[side]) == set(range(4, 13))
        for n, masks in SCENARIOS[side].items():
            assert list(masks) == TABLE_3[n][index].split(), (side, n)


def test_center_cards_rules_2():
    assert {4: 2, 5: 1, **dict.fromkeys(range(6, 13), 0)} == CENTER_CARDS
    for side in SCENARIOS.values():
        for n, masks in side.items():
            assert len(masks) == n + CENTER_CARDS[n]


def test_named_scenarios_keep_the_custom_rules():
    for side in SCENARIOS.values():
        for n, masks in side.items():
            assert scenario_problems(list(masks), n, CENTER_CARDS[n], custom=False) == []


def test_scenario_problems_one_message_per_broken_rule():
    # No Judge, too few stars, a lone Peasant, the Spy twice, a Puppeteer at 4 players, a wrong
    # count, an unknown id, and the Gambler outside a custom scenario: every rule broken at once.
    masks = ["spy", "spy", "peasant", "puppeteer", "thief", "crook", "dragon", "gambler"]
    codes = [code for code, _ in scenario_problems(masks, 4, 2, custom=False)]
    assert codes == ["unknown_mask", "custom_needs_judge", "custom_too_few_stars",
                     "custom_peasant_pair", "custom_duplicate_mask", "custom_min_players",
                     "custom_mask_count", "gambler_custom_only"]
    messages = [message for _, message in scenario_problems(masks, 4, 2, custom=False)]
    assert all(message.endswith(".") for message in messages)
    assert len(set(messages)) == len(messages)
