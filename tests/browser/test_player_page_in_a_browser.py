"""A player's page in a real browser (Chromium, 375 px), in English then French: the chart of a
rating's history is drawn (an SVG the server made) within the phone's width with labels a
person can read, announced as an image with its title and description, its figures a table
that opens from the keyboard; the page has no horizontal scroll, no script error, and no
serious axe-core violation. A screenshot goes to ``docs/screenshots/player-375.png``.

Same requirements as ``test_play_in_a_browser``."""

from __future__ import annotations

import random

import pytest

from games.ratings.models import Rating, Reliability
from games.ratings.selectors import today
from tests.api.factories import UserFactory
from tests.ratings.play import new_game, play_to_end

from .test_accessibility import AXE, axe_violations
from .test_chat_in_a_browser import watch_console
from .test_play_in_a_browser import SHOTS, chromium  # noqa: F401

PHONE = {"width": 375, "height": 800}
GAMES = 6


@pytest.fixture(autouse=True)
def _settings(settings, fast_passwords, eager_celery):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.mark.postgres
def test_a_player_s_page_and_its_chart_on_a_phone_in_both_languages(live_server, chromium):  # noqa: F811
    base = live_server.url
    ada, bob = UserFactory(username="ada"), UserFactory(username="bob")
    rng = random.Random(8)
    for _ in range(GAMES):
        assert play_to_end(new_game("ere_des_masques", [ada, bob]), rng).status == "finished"
    new_game("ere_des_masques", [ada, bob])  # (one under way)
    Reliability.objects.create(user=ada, as_of=today(), decisions=120, answered=113, percent=94)
    assert Rating.objects.get(user=ada, kind="ere_des_masques").games == GAMES

    refused: list[str] = []
    context = chromium.new_context(viewport=PHONE, locale="en-GB")
    page = context.new_page()
    watch_console(page, refused)
    page.goto(f"{base}/players/ada/")
    chart = page.locator("svg[role=img][aria-labelledby='chart-title-ere_des_masques "
                         "chart-desc-ere_des_masques']")
    chart.wait_for()
    assert chart.locator("title").text_content() == (
        "Rating at L'Ère des Masques, after each rated game")
    assert chart.locator("desc").text_content().startswith("From ")
    assert chart.locator("circle").count() == GAMES
    box = chart.bounding_box()
    assert 300 <= box["width"] <= PHONE["width"] and box["x"] >= 0
    # Every label of the axes at least 10 px high on the phone, and inside the drawing.
    for label in chart.locator("text").all():
        drawn = label.bounding_box()
        assert drawn["height"] >= 10, label.text_content()
        assert box["x"] <= drawn["x"] and drawn["x"] + drawn["width"] <= box["x"] + box["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert "94%" in page.locator("#reliability-title + p").inner_text()

    # The figures as a table, opened from the keyboard.
    summary = page.locator("details.chart-figures summary").first
    summary.focus()
    page.keyboard.press("Enter")
    rows = page.locator("details.chart-figures tbody tr")
    rows.first.wait_for()
    assert rows.count() == GAMES
    page.screenshot(path=str(SHOTS / "player-375.png"), full_page=True)
    assert axe_violations(page, AXE.read_text()) == []

    # In French, through the header's switcher.
    page.select_option("#lang-select", "fr")
    with page.expect_navigation():
        page.locator("form.lang-switch button[type=submit]").click()
    chart.wait_for()
    assert page.locator("html").get_attribute("lang") == "fr"
    assert chart.locator("title").text_content() == (
        "Classement à L'Ère des Masques, après chaque partie classée")
    assert chart.locator("desc").text_content().startswith("De ")
    assert page.locator("#reliability-title").inner_text() == "Fiabilité"
    assert "parties jouées" in page.locator("main").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert axe_violations(page, AXE.read_text()) == []
    assert refused == []
    context.close()
