"""A real browser plays a whole game of L'Ère des Masques at 375 px: two people sign up, one
creates the game from the create page's game chooser, the other finds it in the lobby's filter by
game and joins; they play to the end through the table's buttons (the hand as cards to play, the
counter as one button per kind), with a right counter and a wrong one; screenshots of the table
go to ``docs/screenshots/``. Same requirements as ``test_play_in_a_browser``."""

from __future__ import annotations

from unittest import mock

import pytest

from games.core.catalog import get_game
from games.engine import MODERATOR
from games.models import Game, MoveRecord
from tests.browser.test_play_in_a_browser import SHOTS, awaited_page, chromium, sign_up  # noqa: F401

TITLES = {"noble": "Noble", "recruiter": "Recruiter", "spy": "Spy", "brute": "Brute",
          "assassin": "Assassin"}


@pytest.fixture(autouse=True)
def _settings(settings, fast_passwords, eager_celery):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.ACCOUNT_RATE_LIMITS = False


def click(page, text: str) -> None:
    with page.expect_navigation():
        page.locator("section.moves button", has_text=text).first.click()


def the_played_card(game: Game) -> str:
    from games.core import selectors

    return get_game(game.kind).view(selectors.load_state(game), MODERATOR)["moderator"]["played"]


@pytest.mark.postgres
def test_two_players_play_a_whole_game_of_ere_des_masques(live_server, chromium):  # noqa: F811
    base = live_server.url
    names = ["eve", "fox"]
    contexts = [chromium.new_context(viewport={"width": 375, "height": 800}) for _ in names]
    pages = [context.new_page() for context in contexts]
    refused: list[str] = []
    for page in pages:
        page.on("console", lambda message: refused.append(message.text)
                if "Content Security Policy" in message.text else None)
    for page, name in zip(pages, names, strict=True):
        sign_up(page, base, name)

    eve, fox = pages
    eve.goto(f"{base}/games/new/")
    with eve.expect_navigation():
        eve.locator("a", has_text="L'Ère des Masques").first.click()
    eve.select_option("select[name=move_timeout]", "3600")
    with (mock.patch("games.core.services.lobby.secrets.randbits", return_value=20261124),
          eve.expect_navigation()):
        eve.locator("form.stacked button[type=submit]").click()
    game_id = eve.url.rstrip("/").rsplit("/", 1)[-1]
    fox.goto(f"{base}/games/?game=ere_des_masques")
    fox.locator(f"a[href='/games/{game_id}/']").first.click()
    with fox.expect_navigation():
        fox.locator("text=Join this game").click()
    game = Game.objects.get(pk=game_id)
    assert game.kind == "ere_des_masques" and game.status == "active"

    counters = {"right": False, "wrong": False}
    shots = 0
    for _step in range(600):
        game.refresh_from_db()
        if game.status != "active":
            break
        page = awaited_page(pages, names, base, game_id)
        assert page is not None, "somebody must be awaited"
        buttons = page.locator("section.moves button").all_inner_texts()
        if any("Let it pass" in text for text in buttons):
            if shots == 0:  # the face-down card, as the one who must answer sees it
                SHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SHOTS / "ere-table-375.png"), full_page=True)
                shots += 1
            card = the_played_card(game)
            if not counters["right"]:
                click(page, f"Counter: it is the {TITLES[card]}")
                counters["right"] = True
            elif not counters["wrong"]:
                wrong = next(k for k in TITLES if k != card)
                click(page, f"Counter: it is the {TITLES[wrong]}")
                counters["wrong"] = True
            else:
                click(page, "Let it pass")
        elif any(text.startswith("Play ") for text in buttons):
            click(page, "Play ")
        else:
            click(page, buttons[0])
    game.refresh_from_db()
    assert game.status == "finished", "the game did not end"
    assert counters == {"right": True, "wrong": True}
    reveals = [e for events in MoveRecord.objects.filter(game=game).values_list("events",
                                                                                 flat=True)
               for e in events if e["type"] == "reveal" and "right" in e]
    assert {e["right"] for e in reveals} == {True, False}
    end = pages[1]
    end.goto(f"{base}/games/{game_id}/")
    assert "The game is over" in end.content()
    end.screenshot(path=str(SHOTS / "ere-table-end-375.png"), full_page=True)
    desktop = contexts[0].browser.new_context(viewport={"width": 1280, "height": 900})
    wide = desktop.new_page()
    wide.context.add_cookies(pages[0].context.cookies())
    wide.goto(f"{base}/games/{game_id}/?at=6")
    wide.screenshot(path=str(SHOTS / "ere-table-desktop.png"))
    desktop.close()
    for name in ("ere-table-375", "ere-table-end-375", "ere-table-desktop"):
        assert (SHOTS / f"{name}.png").stat().st_size > 10_000
    assert refused == []
    for context in contexts:
        context.close()
