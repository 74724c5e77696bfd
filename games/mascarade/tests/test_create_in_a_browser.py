"""Mascarade's create page in a real browser (Chromium, at 375 px, in English then French;
issue 42, item 15): with scenario A chosen the custom scenario's fields are out of sight and
of the keyboard's path; choosing "Custom" shows them; the scenario table counts the two
Peasants; what happens to an absent player is offered and reaches the game. Same requirements
as ``tests/browser/test_play_in_a_browser``."""

from __future__ import annotations

import pytest

from games.models import Game
from tests.api.factories import UserFactory
from tests.browser.test_chat_in_a_browser import logged_in, watch_console
from tests.browser.test_play_in_a_browser import chromium  # noqa: F401

PHONE = {"width": 375, "height": 812}


@pytest.mark.postgres
@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_custom_fields_show_only_for_a_custom_scenario(live_server, chromium, language):  # noqa: F811
    base = live_server.url
    user = UserFactory(username="ada", language=language)
    page = logged_in(chromium, base, user, viewport=PHONE).new_page()
    page.set_default_timeout(10_000)
    refused: list[str] = []
    watch_console(page, refused)
    page.goto(f"{base}/games/new/?game=mascarade")
    assert page.locator("html").get_attribute("lang") == language

    builder, center = page.locator("fieldset.builder"), page.locator("#id_center")
    assert page.input_value("select[name=scenario]") == "A"
    assert not builder.is_visible() and not center.is_visible()
    # Out of the keyboard's path: from the scenario, Tab goes past the masks and the center.
    page.focus("select[name=scenario]")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.name") == "challenge_mode"

    page.select_option("select[name=scenario]", "custom")
    assert builder.is_visible() and center.is_visible()
    page.focus("select[name=scenario]")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.name") == "masks"
    page.select_option("select[name=scenario]", "B")
    assert not builder.is_visible()

    peasant = "Paysan" if language == "fr" else "Peasant"
    row = page.locator("section[aria-labelledby=scen-title] tbody tr").nth(4)  # 8 players
    assert row.locator("th").inner_text() == "8"
    assert f"{peasant} ×2" in row.locator("td").first.inner_text()

    absent = page.locator("select[name=absent_policy]")
    assert absent.is_visible()
    page.select_option("select[name=scenario]", "A")
    absent.select_option("wait")
    with page.expect_navigation():
        page.locator("form.stacked button[type=submit]").click()
    game = Game.objects.get(created_by=user)
    assert game.options["absent_policy"] == "wait" and game.options["scenario"] == "A"
    assert refused == []
