"""Issue 42, items 10–13, as a player sees them in Chromium on a phone (375 × 812) and at
desktop width, in English and in French:

* the claim-or-pass window: the banner, on the first screen under a compact header, says who
  announced which mask and asks "claim or pass?"; its link takes the focus to the form's
  heading in one tap, and the keyboard goes on from there into the form; the player who
  announced reads whom the game waits for, and why;
* "since your last visit" leaves the player's own move out;
* "your games": three games of one creator told apart by their names, each with its players,
  whose turn it is and the deadline, a paused one marked paused;
* the paused game says who paused it, why, and who can resume it.

Screenshots: ``docs/screenshots/claim-or-pass-375.png`` (the phone's first screen) and
``docs/screenshots/your-games-375.png`` (the list). Same requirements as
``test_play_in_a_browser``."""

from __future__ import annotations

import pytest

from games.core import services
from games.models import Game, PendingDecision
from tests.api.factories import UserFactory

from .test_accessibility import AXE, axe_violations
from .test_chat_in_a_browser import logged_in, watch_console
from .test_play_in_a_browser import SHOTS, chromium  # noqa: F401

PHONE = {"width": 375, "height": 812}
DESKTOP = {"width": 1280, "height": 900}
#: A phone's header takes at most this much of its 812 px (it took about 250).
HEADER_MOST = 100
DEAL = ["judge", "empress", "spy", "king", "princess", "cheater"]


@pytest.fixture(autouse=True)
def _settings(settings, fast_passwords, eager_celery):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def the_window() -> tuple[Game, dict]:
    """A Mascarade game named "Friday masks", dealt (staff), in which bob (seat 1) has just
    announced the Empress: cyd (seat 2) is the first asked to claim or pass."""
    staff = UserFactory(username="ada", is_staff=True, language="en")
    others = [UserFactory(username=n, language="en") for n in ("bob", "cyd", "dov")]
    body = services.create_game(staff, "mascarade", {
        "players": 4, "scenario": "custom", "masks": DEAL, "deal": DEAL, "first_seat": 1},
        name="Friday masks").body
    for user in others:
        services.join_game(user, body["id"])
    by_player = {0: staff, 1: others[0], 2: others[1], 3: others[2]}
    game = Game.objects.get(pk=body["id"])

    def play(move):
        row = PendingDecision.objects.filter(game=game).order_by("seat").first()
        services.submit_move(game.pk, move, user=by_player[row.player])

    for seat in (1, 2, 3, 0):
        play({"type": "exchange", "target": (seat + 1) % 4, "swap": False})
    play({"type": "announce", "mask": "empress"})
    assert PendingDecision.objects.get(game=game).player == 2
    game.refresh_from_db()
    return game, by_player


def visible_text(page, selector: str) -> str:
    return " ".join(page.locator(selector).first.inner_text().split())


@pytest.mark.postgres
def test_the_claim_or_pass_window_on_a_phone(live_server, chromium):  # noqa: F811
    base = live_server.url
    game, by_player = the_window()
    cyd, bob = by_player[2], by_player[1]
    url = f"{base}/games/{game.pk}/"
    refused: list[str] = []
    page = logged_in(chromium, base, cyd, viewport=PHONE).new_page()
    watch_console(page, refused)
    page.goto(url)

    # The header is compact; the banner names the decision with its context, on the first
    # screen, with its link to the form.
    header = page.locator("header.site-header").bounding_box()
    assert header["height"] <= HEADER_MOST, header
    yours = page.locator("#live .banner .decision.yours")
    assert visible_text(page, "#live .banner .decision.yours strong") == (
        "bob announced the Empress: claim or pass?")
    link = yours.get_by_role("link", name="Go to your move")
    box = link.bounding_box()
    assert box["y"] + box["height"] <= PHONE["height"], box
    assert box["height"] >= 44 and box["width"] >= 44
    page.screenshot(path=str(SHOTS / "claim-or-pass-375.png"))

    # One tap: the form's heading takes the focus and is on screen; the keyboard goes on into
    # the form (the claim, then the pass), and the answer is played from there.
    link.click()
    page.wait_for_function("document.activeElement && document.activeElement.id === "
                           "'moves-title'")
    heading = page.locator("#moves-title").bounding_box()
    assert 0 <= heading["y"] < PHONE["height"], heading
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('section.moves') !== null")
    assert page.evaluate("document.activeElement.type") == "radio"
    radio = "input[type=radio][value*='\"pass\"']"
    pass_radio = page.locator(f"section.moves {radio}")
    pass_radio.focus()
    page.keyboard.press("Space")
    assert pass_radio.is_checked()
    form = page.locator("section.moves form", has=page.locator(radio))
    form.locator("button[type=submit]").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert game.moves.order_by("-seq").first().payload == {"type": "pass"}
    # The player's own answer is not news to them when they come back.
    page.goto(url)
    assert page.locator("#since-visit").count() == 0

    # The announcer reads whom the game waits for, and why; no link (nothing to answer).
    other = logged_in(chromium, base, bob, viewport=PHONE).new_page()
    watch_console(other, refused)
    other.goto(url)
    assert visible_text(other, "#live .banner .decision") .startswith(
        "Waiting for dov: claim or pass (bob announced the Empress).")
    assert other.locator(".go-to-move").count() == 0

    # In French, at desktop width too.
    cyd.language = "fr"
    cyd.save(update_fields=["language"])
    dov = by_player[3]
    dov.language = "fr"
    dov.save(update_fields=["language"])
    for viewport in (PHONE, DESKTOP):
        french = logged_in(chromium, base, dov, viewport=viewport).new_page()
        watch_console(french, refused)
        french.goto(url)
        assert visible_text(french, "#live .banner .decision.yours strong") == (
            "bob s'annonce Impératrice : revendiquer ou passer ?")
        french.get_by_role("link", name="Aller à votre coup").click()
        french.wait_for_function("document.activeElement.id === 'moves-title'")
        assert axe_violations(french, AXE.read_text()) == []
    assert refused == []


@pytest.mark.postgres
def test_your_games_and_a_paused_game_on_a_phone(live_server, chromium):  # noqa: F811
    base = live_server.url
    _game, by_player = the_window()  # (cyd's move: claim or pass)
    cyd = by_player[2]
    people = list(by_player.values())
    paused_id = services.create_game(cyd, "mascarade", {"players": 4}).body["id"]
    for user in people:
        if user != cyd:
            services.join_game(user, paused_id)
    for user in people:
        services.request_pause(user, paused_id, True)
    services.create_game(cyd, "shadow_house", {"players": 3}, name="Manor after dark")
    refused: list[str] = []
    page = logged_in(chromium, base, cyd, viewport=PHONE).new_page()
    watch_console(page, refused)
    page.goto(f"{base}/games/")
    lines = [" ".join(text.split()) for text in
             page.locator("section[aria-labelledby=mine-title] li.your-game").all_inner_texts()]
    names = [line.split(" Mascarade")[0].split(" Shadow House")[0] for line in lines]
    assert sorted(names) == ["Friday masks", "Manor after dark", "cyd #1"], lines
    by_name = dict(zip(names, lines, strict=True))
    assert "your move" in by_name["Friday masks"] and "your deadline:" in by_name["Friday masks"]
    assert "Players: ada, bob, cyd, dov" in by_name["Friday masks"]
    assert "paused" in by_name["cyd #1"] and "deadline" not in by_name["cyd #1"]
    assert "waiting for players: 2 seats free" in by_name["Manor after dark"]
    assert page.locator(".badge.status-paused").is_visible()
    page.locator("section[aria-labelledby=mine-title]").screenshot(
        path=str(SHOTS / "your-games-375.png"))
    assert axe_violations(page, AXE.read_text()) == []

    # The paused game says who paused it, why, and who can resume it, on the first screen.
    page.get_by_role("link", name="cyd #1").click()
    note = page.locator("#pause-note")
    assert note.bounding_box()["y"] < PHONE["height"]
    said = " ".join(note.inner_text().split())
    assert said.startswith("The game is paused. Every player asked for a pause, dov last"), said
    assert "Any player can resume it" in said
    note.get_by_role("link").click()
    page.wait_for_function("document.activeElement.id === 'tools-title'")
    with page.expect_navigation():
        page.get_by_role("button", name="Resume the game").click()
    assert Game.objects.get(pk=paused_id).status == "active"
    assert refused == []
