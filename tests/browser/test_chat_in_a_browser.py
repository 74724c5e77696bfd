"""A real browser at the table chat: while one player is typing (at 375 px), another's message
comes in through the table's live refresh, and a move too, without the text being typed or the
focus lost; a message goes with the Send button and with Ctrl+Enter (htmx), and without
JavaScript (the form posts and the page comes back); text is shown as typed, never as HTML; no
Content-Security-Policy refusal. A screenshot of the chat on a phone goes to
``docs/screenshots/``. Same requirements as ``test_play_in_a_browser``."""

from __future__ import annotations

import pytest
from django.test import Client

from games.core import services
from games.models import ChatMessage
from tests.api.factories import UserFactory
from tests.api.helpers import start_game

from .test_play_in_a_browser import SHOTS, chromium  # noqa: F401


@pytest.fixture(autouse=True)
def _settings(settings, fast_passwords, eager_celery):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def logged_in(browser, base, user, **options):
    client = Client()
    client.force_login(user)
    context = browser.new_context(**options)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                          "url": base}])
    return context


def watch_console(page, refused: list[str]) -> None:
    """Script errors and Content-Security-Policy refusals (not a missing favicon)."""
    page.on("console", lambda message: refused.append(message.text)
            if message.type == "error" and "404" not in message.text else None)
    page.on("pageerror", lambda error: refused.append(str(error)))


@pytest.mark.postgres
def test_the_chat_comes_live_without_losing_what_is_typed(live_server, chromium):  # noqa: F811
    base = live_server.url
    users = [UserFactory(username=name) for name in ("ada", "bea", "cyd", "dov")]
    game = start_game(users[0], users[1:], options={"players": 4})
    url = f"{base}/games/{game.pk}/"
    refused: list[str] = []
    ada = logged_in(chromium, base, users[0], viewport={"width": 375, "height": 800}).new_page()
    bea = logged_in(chromium, base, users[1], viewport={"width": 1200, "height": 900}).new_page()
    for page in (ada, bea):
        watch_console(page, refused)
        page.goto(url)
        page.locator("#chat-form").wait_for()

    # Ada is typing when Bea's message comes in.
    box = ada.locator("#chat-text")
    box.click()
    box.type("half a thought")
    bea.fill("#chat-text", "Hello from Bea <b>not bold</b>")
    bea.locator("#chat-form button[type=submit]").click()
    bea.locator("#chat-messages li", has_text="Hello from Bea").wait_for(timeout=5000)
    assert bea.input_value("#chat-text") == ""
    assert bea.evaluate("document.activeElement && document.activeElement.id") == "chat-text"
    incoming = ada.locator("#chat-messages li", has_text="Hello from Bea")
    incoming.wait_for(timeout=8000)
    assert "<b>not bold</b>" in incoming.inner_text()
    assert ada.locator("#chat-messages b").count() == 0
    assert box.input_value() == "half a thought"
    assert ada.evaluate("document.activeElement && document.activeElement.id") == "chat-text"

    # A move meanwhile: the table's live part changes, the box does not.
    from games.core import selectors
    from games.core.catalog import get_game

    player = game.pending_decisions.get().player
    loaded = selectors.load_for_viewer(selectors.find_game(game.pk), None)
    services.submit_move(game.pk, get_game("mascarade").legal_moves(loaded.state, player)[0],
                         user=users[player])
    ada.locator(".history li").first.wait_for(timeout=8000)
    box.type(", finished")
    assert box.input_value() == "half a thought, finished"
    assert ada.evaluate("document.activeElement && document.activeElement.id") == "chat-text"
    assert ada.locator("#chat-messages li", has_text="Hello from Bea").count() == 1

    # Ctrl+Enter sends it (htmx): in the list once, the box empty and still focused.
    box.press("Control+Enter")
    mine = ada.locator("#chat-messages li", has_text="half a thought, finished")
    mine.wait_for(timeout=5000)
    assert box.input_value() == ""
    assert ada.evaluate("document.activeElement && document.activeElement.id") == "chat-text"
    bea.locator("#chat-messages li", has_text="half a thought, finished").wait_for(timeout=8000)
    ada.wait_for_timeout(2500)  # another refresh: nothing doubled
    assert mine.count() == 1
    SHOTS.mkdir(parents=True, exist_ok=True)
    ada.locator("#chat").screenshot(path=str(SHOTS / "table-chat-375.png"))

    # A refused message stays in the box with its error beside it.
    box.fill("   ")
    box.evaluate("box => box.removeAttribute('required')")
    ada.locator("#chat-form button[type=submit]").click()
    ada.locator("#chat-error").wait_for(timeout=5000)
    assert ada.locator("#chat-text").get_attribute("aria-invalid") == "true"
    assert ChatMessage.objects.filter(game=game).count() == 2
    assert not refused, refused


@pytest.mark.postgres
def test_the_chat_works_without_javascript(live_server, chromium):  # noqa: F811
    base = live_server.url
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:], options={"players": 4})
    page = logged_in(chromium, base, users[2], java_script_enabled=False,
                     viewport={"width": 375, "height": 800}).new_page()
    page.goto(f"{base}/games/{game.pk}/")
    page.fill("#chat-text", "no script needed")
    with page.expect_navigation():
        page.locator("#chat-form button[type=submit]").click()
    assert page.url.endswith(f"/games/{game.pk}/#chat")
    assert page.locator("#chat-messages li", has_text="no script needed").count() == 1
