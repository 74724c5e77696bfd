"""Everyday paths in a real browser (Chromium, 375 px):

* a simultaneous challenge window answered by three people within a second: four players of a
  Mascarade game with challenge_mode "simultaneous", each logged in in a page of their own (one
  of them in French); after an announcement, the three others send their answers (claim or
  pass) through their pages' forms at once, without waiting between the submissions; all three
  answers are stored, and no page says the game moved on;
* an invitation through sign-up: a private game's invite link opened by a new visitor, who
  switches the page to French, signs up, follows the verification mail's link in the same
  browser, which logs them in and lands on the join form with the code filled in, and joins, the
  pages in French all along.

Same requirements as ``test_play_in_a_browser``."""

from __future__ import annotations

import re
from contextlib import ExitStack

import pytest
from django.core import mail

from games.core import selectors, services
from games.core.catalog import get_game
from games.models import Game, MoveRecord, PendingDecision, Seat
from tests.api.factories import UserFactory

from .test_chat_in_a_browser import logged_in, watch_console
from .test_play_in_a_browser import PASSWORD, chromium  # noqa: F401

PHONE = {"width": 375, "height": 800}


@pytest.fixture(autouse=True)
def _settings(settings, fast_passwords, eager_celery):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    # allauth limits verification mails per address (in the cache, which outlives a run).
    settings.ACCOUNT_RATE_LIMITS = False


def until_an_announcement_is_possible(game_id) -> PendingDecision:
    """Peaceful turns (a look, an exchange only pretended) through the services until the
    awaited player may announce a mask; that player's decision."""
    engine = get_game("mascarade")
    for _step in range(12):
        row = PendingDecision.objects.select_related("user").get(game_id=game_id)
        moves = engine.legal_moves(selectors.load_state(Game.objects.get(pk=game_id)),
                                   row.player)
        if any(move["type"] == "announce" for move in moves):
            return row
        move = next((m for m in moves if m["type"] == "look"), None) or next(
            m for m in moves if m["type"] == "exchange" and not m["swap"])
        services.submit_move(game_id, move, user=row.user)
    raise AssertionError("no announcement became possible")


def submit_button(page, kind: str):
    """The button of the form that holds the ``kind`` move (chosen first: a radio, or the
    announcement's select of masks, its first mask)."""
    if kind == "announce" and page.locator("section.moves select[id^=announce-mask]").count():
        form = page.locator("section.moves form",
                            has=page.locator("select[id^=announce-mask]")).first
        return form.locator("button[type=submit]")
    radio = f"input[type=radio][value*='\"{kind}\"']"
    page.locator(f"section.moves {radio}").first.check()
    form = page.locator("section.moves form", has=page.locator(radio)).first
    return form.locator("button[type=submit]")


@pytest.mark.postgres
def test_a_simultaneous_challenge_window_answered_by_three_at_once(live_server, chromium):  # noqa: F811
    base = live_server.url
    users = [UserFactory(username=name, language="en") for name in ("ada", "bea", "cyd", "dov")]
    game_id = services.create_game(users[0], "mascarade",
                                   {"players": 4, "challenge_mode": "simultaneous"}).body["id"]
    for user in users[1:]:
        services.join_game(user, game_id)
    announcer = until_an_announcement_is_possible(game_id)
    answerers = [user for user in users if user != announcer.user]
    # One of the three answers from a French page.
    answerers[2].language = "fr"
    answerers[2].save(update_fields=["language"])
    url = f"{base}/games/{game_id}/"
    refused: list[str] = []
    pages = {}
    for user in users:
        page = logged_in(chromium, base, user, viewport=PHONE).new_page()
        page.set_default_timeout(10_000)
        watch_console(page, refused)
        pages[user.username] = page

    # The announcement, through the announcer's page.
    mover = pages[announcer.user.username]
    mover.goto(url)
    with mover.expect_navigation():
        submit_button(mover, "announce").click()
    window_seq = Game.objects.get(pk=game_id).seq
    assert sorted(PendingDecision.objects.filter(game_id=game_id)
                  .values_list("user__username", flat=True)) == [u.username for u in answerers]

    # The three others load the window and choose; then the three forms go at once.
    buttons = []
    for index, user in enumerate(answerers):
        page = pages[user.username]
        page.goto(url)
        assert page.locator("html").get_attribute("lang") == user.language
        # (each form sent against the window as its page shows it)
        assert page.locator("section.moves input[name=expected_seq]").first.get_attribute(
            "value") == str(window_seq)
        buttons.append((page, submit_button(page, "claim" if index == 0 else "pass")))
    with ExitStack() as stack:
        for page, _button in buttons:
            stack.enter_context(page.expect_navigation())
        for _page, button in buttons:
            button.click(no_wait_after=True)

    records = [record for record in MoveRecord.objects.filter(game_id=game_id, seq__gt=window_seq)
               .select_related("by_user") if record.payload.get("type") in ("claim", "pass")]
    answers = {record.by_user.username: record.payload["type"] for record in records
               if record.channel == "web"}
    assert answers == {answerers[0].username: "claim", answerers[1].username: "pass",
                       answerers[2].username: "pass"}
    for user in answerers:
        page = pages[user.username]
        assert page.locator(".message.error").count() == 0, page.locator(".messages").inner_text()
        assert page.locator("html").get_attribute("lang") == user.language
    assert "Se déconnecter" in pages[answerers[2].username].content()
    assert refused == []


@pytest.mark.postgres
def test_an_invitation_through_sign_up_in_french(live_server, chromium):  # noqa: F811
    base = live_server.url
    creator = UserFactory(username="host")
    game_id = services.create_game(creator, "mascarade", {"players": 4}, private=True).body["id"]
    game = Game.objects.get(pk=game_id)
    invite = f"/games/{game_id}/?invite={game.invite_code}"
    page = chromium.new_context(viewport=PHONE, locale="en-GB").new_page()
    refused: list[str] = []
    watch_console(page, refused)

    # The link, then the page switched to French (the switcher keeps the invitation).
    page.goto(f"{base}{invite}")
    assert page.locator("html").get_attribute("lang") == "en"
    page.select_option("#lang-select", "fr")
    with page.expect_navigation():
        page.locator(".lang-switch button[type=submit]").click()
    assert page.url == f"{base}{invite}"
    assert page.locator("html").get_attribute("lang") == "fr"

    # Sign up through the header's link, which leads back to the invitation.
    with page.expect_navigation():
        page.locator(".site-header a[href^='/accounts/signup/']").click()
    assert "invite" in page.url
    page.fill("input[name=email]", "jules@example.org")
    page.fill("input[name=username]", "jules")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    with page.expect_navigation():
        page.locator("main form button[type=submit]").last.click()
    assert page.locator("html").get_attribute("lang") == "fr"
    message = next(m for m in mail.outbox if m.to == ["jules@example.org"])
    assert "Confirmez" in message.subject
    link = re.search(r"https?://\S+/accounts/confirm-email/\S+", message.body).group(0)

    # The mail's link, opened in the same browser and confirmed: logged in at once (no log-in
    # page, issue 42 item 14), on the join form with the code.
    page.goto(re.sub(r"^https?://[^/]+", base, link))
    with page.expect_navigation():
        page.locator("main form button[type=submit]").last.click()
    assert page.url == f"{base}{invite}"
    assert page.locator("form[action='/accounts/logout/']").count() == 1
    assert page.locator("html").get_attribute("lang") == "fr"
    assert page.input_value("#invite_code") == game.invite_code
    with page.expect_navigation():
        page.locator("form[action$='/join/'] button[type=submit]").click()
    assert Seat.objects.filter(game=game, user__username="jules").exists()
    assert page.locator("html").get_attribute("lang") == "fr"
    assert page.locator(".message.success").count() == 1
    assert page.locator(".message.error").count() == 0
    assert refused == []
