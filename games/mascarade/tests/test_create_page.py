"""Mascarade's create page (issue 42, item 15): the custom scenario's fields are marked to show
only with "Custom" chosen (the browser test checks what a player sees), the scenario table says
that the Peasants come as two, and the form offers what happens to an absent player, as the
other games' forms do."""

from __future__ import annotations

import re

import pytest

from games.models import Game
from tests.api.factories import UserFactory
from tests.web.helpers import browser

pytestmark = pytest.mark.django_db


FORM = {"game": "mascarade", "players": 5, "scenario": "A", "challenge_mode": "sequential",
        "move_timeout": 3600, "challenge_timeout": 600, "log_masks": "on", "bots": 0}


def scenario_row(html: str, players: int) -> str:
    return re.search(rf"<tr><th scope=\"row\">{players}</th>(.*?)</tr>", html, re.S).group(1)


def test_the_scenario_table_counts_the_two_peasants():
    html = browser(UserFactory()).get("/games/new/?game=mascarade").content.decode()
    a_cell = scenario_row(html, 8).split("</td>")[0]
    assert "Peasant ×2" in a_cell and a_cell.count("Peasant") == 1
    assert "Peasant" not in scenario_row(html, 7)
    french = browser(UserFactory(language="fr")).get("/games/new/?game=mascarade")
    assert "Paysan ×2" in scenario_row(french.content.decode(), 12)


def test_the_custom_fields_are_marked_and_the_page_links_their_stylesheet():
    html = browser(UserFactory()).get("/games/new/?game=mascarade").content.decode()
    assert re.search(r'<link rel="stylesheet" href="[^"]*mascarade/create\.css"', html)
    assert re.search(r'<fieldset class="builder custom-only"', html)
    center = re.search(r'<p class="custom-only">\s*<label for="id_center"', html)
    assert center, "the center cards' choice is a custom-only field"
    # The other games' pages do not link Mascarade's stylesheet.
    other = browser(UserFactory()).get("/games/new/?game=shadow_house").content.decode()
    assert "mascarade/create.css" not in other


@pytest.mark.parametrize("policy", ["bot", "wait"])
def test_the_form_offers_what_happens_to_an_absent_player(policy):
    user = UserFactory()
    client = browser(user)
    html = client.get("/games/new/?game=mascarade").content.decode()
    assert '<select name="absent_policy"' in html
    assert '<label for="id_absent_policy">When a player misses three deadlines in a row' in html
    answer = client.post("/games/new/", {**FORM, "absent_policy": policy})
    game = Game.objects.get(created_by=user)
    assert answer.status_code == 302 and game.options["absent_policy"] == policy


def test_an_absent_policy_the_rules_do_not_know_is_refused():
    user = UserFactory()
    answer = browser(user).post("/games/new/", {**FORM, "absent_policy": "kick"})
    assert answer.status_code == 200 and "Select a valid choice" in answer.content.decode()
    assert not Game.objects.filter(created_by=user).exists()
