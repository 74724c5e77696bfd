"""A real browser (Chromium at 375 px) at a page that refreshes itself: the waiting room shows
the seats filling and then the table once the game started; at a table, a move by another
player comes in without closing an open panel, moving the focus or losing a half-chosen move;
the tab's title counts the games awaiting the player. No Content-Security-Policy refusal. Same
requirements as ``test_play_in_a_browser``."""

from __future__ import annotations

import pytest

from games.core import services
from games.models import Game
from tests.api.factories import UserFactory

from .test_chat_in_a_browser import logged_in, watch_console
from .test_play_in_a_browser import chromium  # noqa: F401

PHONE = {"viewport": {"width": 375, "height": 800}}


@pytest.fixture(autouse=True)
def _settings(settings, fast_passwords, eager_celery):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.mark.postgres
def test_the_waiting_room_fills_then_becomes_the_table(live_server, chromium):  # noqa: F811
    base = live_server.url
    users = [UserFactory(username=name) for name in ("ada", "bea", "cyd", "dov")]
    game_id = services.create_game(users[0], "mascarade", {"players": 4}).body["id"]
    services.join_game(users[1], game_id)
    refused: list[str] = []
    ada = logged_in(chromium, base, users[0], **PHONE).new_page()
    watch_console(ada, refused)
    ada.goto(f"{base}/games/{game_id}/")
    seats = ada.locator("#seats-title")
    assert "2 of 4 seats free" in seats.inner_text()

    services.join_game(users[2], game_id)
    ada.locator("#seats-title", has_text="1 of 4 seats free").wait_for(timeout=8000)
    assert ada.locator("#live li", has_text="cyd").count() == 1

    services.join_game(users[3], game_id)
    assert Game.objects.get(pk=game_id).status == Game.Status.ACTIVE
    ada.locator("#live .banner").wait_for(timeout=8000)
    assert ada.locator("#seats-title").count() == 0
    ada.locator("#tools-title").wait_for()  # the whole table, its tools too
    assert not refused, refused



def refreshed(page, statuses: list[int]) -> None:
    """Wait for the next refresh that brought something new (a 200 of the live view)."""
    statuses.clear()
    for _ in range(40):
        if 200 in statuses:
            page.wait_for_timeout(300)  # (swapped and settled)
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"no new live fragment: {statuses}")


@pytest.mark.postgres
def test_a_refresh_keeps_open_panels_the_focus_and_a_half_chosen_move(live_server,
                                                                       chromium):  # noqa: F811
    from games.core import selectors
    from games.core.catalog import get_game
    from tests.api.helpers import start_game

    base = live_server.url
    users = [UserFactory(username=name) for name in ("eve", "fay", "gus", "hal")]
    game = start_game(users[0], users[1:], options={"players": 4})
    first = game.pending_decisions.get().player
    other, watcher = (first + 1) % 4, (first + 2) % 4
    refused: list[str] = []
    pages, statuses = {}, {}
    for who in (first, watcher):
        page = logged_in(chromium, base, users[who], **PHONE).new_page()
        watch_console(page, refused)
        statuses[who] = seen = []
        page.on("response", lambda r, seen=seen: seen.append(r.status)
                if "/live/" in r.url else None)
        page.goto(f"{base}/games/{game.pk}/")
        page.locator("#live").wait_for()
        pages[who] = page
    mover, watching = pages[first], pages[watcher]

    # Nothing changed: each refresh is answered 304, nothing sent again.
    mover.wait_for_timeout(4500)
    assert statuses[first] and set(statuses[first]) == {304}, statuses[first]

    # The starting deal open, a move half chosen (the focus on its radio).
    for page in (mover, watching):
        page.locator("#live details summary").first.click()
    radio = mover.locator("#live section.moves input[type=radio]").nth(1)
    radio.check()
    radio.focus()
    chosen = radio.get_attribute("id")
    watching.locator("#live details summary").first.focus()

    # Another player asks for a pause (a table move): the mover's page comes again.
    services.request_pause(users[other], game.pk, True)
    refreshed(mover, statuses[first])
    assert mover.evaluate("document.querySelector('#live details').open")
    assert mover.evaluate("document.activeElement && document.activeElement.id") == chosen
    assert mover.locator(f"#{chosen}").is_checked()

    # The mover's move arrives at the watcher's page: the panel stays open, the focus kept.
    loaded = selectors.load_for_viewer(selectors.find_game(game.pk), None)
    services.submit_move(game.pk, get_game("mascarade").legal_moves(loaded.state, first)[0],
                         user=users[first])
    refreshed(watching, statuses[watcher])
    watching.locator(".history li").first.wait_for(timeout=8000)
    assert watching.evaluate("document.querySelector('#live details').open")
    assert watching.evaluate("document.activeElement && document.activeElement.tagName") == (
        "SUMMARY")
    assert not refused, refused


@pytest.mark.postgres
def test_the_tab_title_counts_the_games_awaiting_the_player(live_server, chromium):  # noqa: F811
    from games.core import selectors

    base = live_server.url
    staff = UserFactory(username="ivy", is_staff=True)
    others = [UserFactory(username=name) for name in ("jon", "kim", "lou")]
    games = []
    for _ in range(2):
        body = services.create_game(staff, "mascarade", {"players": 4, "first_seat": 0}).body
        for user in others:
            services.join_game(user, body["id"])
        games.append(body["id"])
    refused: list[str] = []
    page = logged_in(chromium, base, staff, **PHONE).new_page()
    watch_console(page, refused)
    page.goto(f"{base}/games/{games[1]}/")
    assert page.title().startswith("(2) ")
    assert page.locator("header a.your-turn").inner_text() == "Your turn (2)"

    # Played elsewhere: the table's refresh brings the new count into the title.
    loaded = selectors.load_for_viewer(selectors.find_game(games[0]), staff)
    services.submit_move(games[0], selectors.legal_moves_payload(loaded, staff)["moves"][0],
                         user=staff)
    for _ in range(40):  # (wait_for_function evaluates a string: the CSP refuses it)
        if page.title().startswith("(1) "):
            break
        page.wait_for_timeout(250)
    assert page.title().startswith("(1) "), page.title()
    # The header's link too (an out-of-band part of the same answer).
    page.locator("header a.your-turn", has_text="Your turn (1)").wait_for(timeout=4000)
    assert page.locator("#live").count() == 1
    assert not refused, refused


@pytest.mark.postgres
def test_a_hidden_tab_refreshes_slowly_and_at_once_when_shown(live_server,
                                                             chromium):  # noqa: F811
    from tests.api.helpers import start_game

    base = live_server.url
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:], options={"players": 4})
    context = logged_in(chromium, base, users[1], **PHONE)
    # The tab's visibility, as the test says (Playwright's init script, not the page's).
    context.add_init_script("""
        window.__hidden = false;
        Object.defineProperty(Document.prototype, 'hidden',
                              {get() { return window.__hidden; }, configurable: true});""")
    page = context.new_page()
    refused: list[str] = []
    watch_console(page, refused)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/live/" in r.url else None)
    page.goto(f"{base}/games/{game.pk}/")
    page.wait_for_timeout(2500)
    assert asked  # every 2 s while shown

    page.evaluate("() => { window.__hidden = true; "
                  "document.dispatchEvent(new Event('visibilitychange')); }")
    page.wait_for_timeout(300)
    asked.clear()
    page.wait_for_timeout(6000)
    assert asked == [], asked  # hidden: not before 30 s

    page.evaluate("() => { window.__hidden = false; "
                  "document.dispatchEvent(new Event('visibilitychange')); }")
    page.wait_for_timeout(700)
    assert len(asked) == 1, asked  # shown again: at once
    assert not refused, refused
