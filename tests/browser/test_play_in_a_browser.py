"""A real browser (Playwright driving Debian's Chromium) plays a whole game through the pages:
four people sign up (with the verification mail), one creates a custom game with the Spy and the
Princess, three join from the lobby, and they play to the end, including a challenge, a Spy
decision and a Princess reveal; a waiting player's page refreshes by itself; the pages speak
French on request.

Needs ``/usr/bin/chromium`` (``apt-get install chromium``) and the ``playwright`` package (dev
extra). Without them the test skips saying so, except with ``REQUIRE_SERVICES=1`` (CI), where it
fails: ``.ci/run`` installs Chromium when it is missing.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from django.core import mail

from games.models import Game
from tests.conftest import _require_services

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
#: The README shows the pictures this test takes of the pages it plays through.
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PASSWORD = "Ma5que-de-Venise!"
MASKS = ["judge", "spy", "princess", "king", "empress", "cheater"]


def _browser_or_skip():
    problem = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        problem = "the playwright package is not installed (pip install -e '.[dev]')"
        sync_playwright = None
    if problem is None and not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        problem = "Chromium is missing: apt-get install chromium (or set CHROMIUM=/path)"
    if problem:
        if _require_services():
            pytest.fail(f"browser tests must run under REQUIRE_SERVICES=1: {problem}")
        pytest.skip(f"browser test skipped: {problem}")
    return sync_playwright


@pytest.fixture
def chromium():
    sync_playwright = _browser_or_skip()
    # Playwright's sync API runs an event loop in this thread; the test's own ORM reads are
    # synchronous and safe here.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM if os.path.exists(CHROMIUM)
                                    else shutil.which("chromium"),
                                    args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield browser
        browser.close()
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture(autouse=True)
def _settings(settings, fast_passwords, eager_celery):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    # allauth limits verification mails per address (in the cache, which outlives a run).
    settings.ACCOUNT_RATE_LIMITS = False


def sign_up(page, base, name):
    page.goto(f"{base}/accounts/signup/")
    page.fill("input[name=email]", f"{name}@example.org")
    page.fill("input[name=username]", name)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    with page.expect_navigation():
        page.locator("form button[type=submit]").last.click()
    message = next(m for m in reversed(mail.outbox) if m.to == [f"{name}@example.org"])
    link = re.search(r"https?://\S+/accounts/confirm-email/\S+/", message.body).group(0)
    page.goto(re.sub(r"^https?://[^/]+", base, link))
    # Confirmed in the browser that signed up: logged in at once (no log-in page).
    with page.expect_navigation():
        page.locator("form button[type=submit]").last.click()
    assert not page.url.startswith(f"{base}/accounts/login/")
    assert name in page.content()


def awaited_page(pages, names, base, game_id):
    """The awaited player's page, loaded (the test asks the database whom to drive; every
    action goes through that player's page)."""
    from games.models import PendingDecision

    row = (PendingDecision.objects.filter(game_id=game_id).select_related("user")
           .order_by("deadline", "seat").first())
    if row is None or row.user is None:
        return None
    page = pages[names.index(row.user.username)]
    goto(page, f"{base}/games/{game_id}/")
    page.locator("section.moves").wait_for(timeout=5000)
    return page


def goto(page, url: str) -> None:
    """``page.goto(url)``, again if the page's own reload interrupted it (a waiting room reloads
    itself when its game starts: ``HX-Refresh``, at its next refresh)."""
    from playwright.sync_api import Error

    for attempt in range(3):
        try:
            page.goto(url)
            return
        except Error as exc:
            if "interrupted by another navigation" not in str(exc) or attempt == 2:
                raise


def choose(page, *wanted: str) -> str:
    """Pick the first radio whose label contains one of ``wanted`` (in order), else the first
    one; then press its form's Play button. Returns the label played."""
    labels = page.locator("section.moves label")
    texts = [labels.nth(i).inner_text() for i in range(labels.count())]
    index = None
    for want in wanted:
        index = next((i for i, text in enumerate(texts) if want in text), None)
        if index is not None:
            break
    if index is None:
        index = 0
    labels.nth(index).click()
    forms = page.locator("section.moves form")
    seen = 0
    for k in range(forms.count()):
        count = forms.nth(k).locator("label").count()
        if index < seen + count:
            with page.expect_navigation():
                forms.nth(k).locator("button[type=submit]").click()
            break
        seen += count
    return texts[index]


def announce_or_look(page, mask: str) -> str:
    """A turn: announce ``mask`` from the announce form's select when it is offered, else look
    at the card (its own button). Returns what was played."""
    select = page.locator("section.moves select[id^=announce-mask]")
    if select.count() and mask in select.locator("option").all_inner_texts():
        select.select_option(label=mask)
        with page.expect_navigation():
            select.locator("xpath=ancestor::form[1]").locator("button[type=submit]").click()
        return f"I am the {mask}"
    with page.expect_navigation():
        page.locator("section.moves button", has_text="Look at your card").click()
    return "Look at your card"


@pytest.mark.postgres
def test_four_players_play_a_whole_game_in_the_browser(live_server, chromium):
    base = live_server.url
    names = ["ada", "bea", "cyd", "dov"]
    contexts = [chromium.new_context(viewport={"width": 375, "height": 800}) for _ in names]
    pages = [context.new_page() for context in contexts]
    # The pages must work under their Content-Security-Policy: any refusal is a failure.
    refused: list[str] = []
    for page in pages:
        page.on("console", lambda message: refused.append(message.text)
                if "Content Security Policy" in message.text else None)
    for page, name in zip(pages, names, strict=True):
        sign_up(page, base, name)

    # Ada creates a custom game with the Spy and the Princess.
    ada = pages[0]
    ada.goto(f"{base}/games/new/")
    ada.select_option("select[name=players]", "4")
    ada.select_option("select[name=scenario]", "custom")
    for mask in MASKS:
        ada.check(f"input[name=masks][value={mask}]")
    ada.locator("text=This scenario follows the rules").wait_for(timeout=5000)
    ada.select_option("select[name=speed]", "fast")
    SHOTS.mkdir(parents=True, exist_ok=True)
    ada.screenshot(path=str(SHOTS / "create-375.png"))
    with ada.expect_navigation():
        ada.locator("form.stacked button[type=submit]").click()
    game_id = ada.url.rstrip("/").rsplit("/", 1)[-1]

    # The others find it in the lobby and join.
    for page in pages[1:]:
        page.goto(f"{base}/games/")
        page.locator(f"a[href='/games/{game_id}/']").first.click()
        with page.expect_navigation():
            page.locator("text=Join this game").click()
    game = Game.objects.get(pk=game_id)
    assert game.status == "active" and sorted(game.options["masks"]) == sorted(MASKS)
    goto(pages[1], f"{base}/games/?status=active")
    pages[1].screenshot(path=str(SHOTS / "lobby-375.png"))

    # A waiting player's page refreshes by itself when someone moves.
    mover = awaited_page(pages, names, base, game_id)
    watcher = next(p for p in pages if p is not mover)
    goto(watcher, f"{base}/games/{game_id}/")
    before = watcher.locator(".history li").count()
    choose(mover, "Only pretend")
    # (a locator, not a script of the test's evaluated in the page: the page's
    # Content-Security-Policy refuses eval)
    watcher.locator(".history li").nth(before).wait_for(timeout=6000)

    # Then to the end: announce the Spy, then the Princess, then the King with a challenge,
    # then the King over and over; everyone else passes or looks.
    plan = ["Spy", "Princess", "King"]
    shot_taken = False
    seen = {"spy": False, "challenge": False}
    for _step in range(400):
        game.refresh_from_db()
        if game.status != "active":
            break
        page = awaited_page(pages, names, base, game_id)
        assert page is not None, "somebody must be awaited"
        if not shot_taken and game.seq >= 12:
            page.screenshot(path=str(SHOTS / "table-375.png"), full_page=True)
            desktop = contexts[0].browser.new_context(viewport={"width": 1280, "height": 900})
            wide = desktop.new_page()
            wide.context.add_cookies(page.context.cookies())
            wide.goto(page.url)
            wide.screenshot(path=str(SHOTS / "table-desktop.png"))
            desktop.close()
            shot_taken = True
        labels = page.locator("section.moves label").all_inner_texts()
        turn = page.locator("section.moves button", has_text="Look at your card").count()
        if any("Only pretend" in t for t in labels) and not turn:
            choose(page, "Only pretend")  # a preparatory turn
        elif turn:
            target = plan.pop(0) if plan else "King"
            played = announce_or_look(page, target)
            if target not in played and target != "King":
                plan.insert(0, target)
        elif any("Claim" in t for t in labels):
            if not seen["challenge"] and "announced the King" in page.content():
                choose(page, "Claim")
                seen["challenge"] = True
            else:
                choose(page, "Pass")
        elif any("Swap the two cards" in t for t in labels):
            choose(page, "Leave the cards")
            seen["spy"] = True
        else:
            choose(page)  # a power's target
    game.refresh_from_db()
    assert game.status == "finished", "the game did not end"
    assert seen["spy"] and seen["challenge"] and shot_taken
    for name in ("table-desktop", "table-375", "lobby-375", "create-375"):
        assert (SHOTS / f"{name}.png").stat().st_size > 10_000
    from games.models import MoveRecord

    types = set(MoveRecord.objects.filter(game=game).values_list("payload__type", flat=True))
    assert {"spy", "spy_swap", "princess", "claim", "announce"} <= types
    end = pages[1]
    end.goto(f"{base}/games/{game_id}/")
    assert "The game is over" in end.content()
    # The Princess's reveal: everyone but its target saw the card in their history.
    princess = MoveRecord.objects.filter(game=game, payload__type="princess").first()
    target = princess.payload["target"]
    for index, page in enumerate(pages):
        page.goto(f"{base}/games/{game_id}/?at={princess.seq}")
        shown = "Their card is shown" in page.content()
        seat_now = index  # nobody changed seats: no Puppeteer in this game
        assert shown == (seat_now != target)

    # French on request, from the switcher.
    french = pages[2]
    french.goto(f"{base}/games/")
    french.select_option("#lang-select", "fr")
    with french.expect_navigation():
        french.locator("form.lang-switch button").click()
    assert "Parties publiques" in french.content()
    french.goto(f"{base}/rules/")
    assert "Marionnettiste" in french.content() and "Règles" in french.content()
    assert refused == []
    for context in contexts:
        context.close()
