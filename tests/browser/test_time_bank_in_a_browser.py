"""Issue 47 as players see it in Chromium on a phone (375 × 812), in English and in French: a
game played with a time bank shows every seat's bank on the table, running for the seats it
awaits (a simultaneous challenge window: three banks run at once) and stopped for the others;
the lobby lists the game with its speed and says no estimate of its length is known yet.

Screenshot: ``docs/screenshots/table-banks-375.png``. Same requirements as
``test_play_in_a_browser``."""

from __future__ import annotations

import datetime as dt
from unittest import mock

import pytest
from django.core.cache import cache
from django.utils import timezone

from games.core import services
from games.core.selectors import estimates
from games.models import Game, PendingDecision, Seat
from tests.api.factories import UserFactory

from .test_accessibility import AXE, axe_violations
from .test_chat_in_a_browser import logged_in, watch_console
from .test_play_in_a_browser import SHOTS, chromium  # noqa: F401

PHONE = {"width": 375, "height": 812}
DEAL = ["judge", "empress", "spy", "king", "princess", "cheater"]
BANK = {"speed": "bank", "bank_initial": 3 * 86_400, "bank_increment": 12 * 3600}


@pytest.fixture(autouse=True)
def _settings(settings, fast_passwords, eager_celery):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    cache.delete(estimates.CACHE_KEY)  # (the lobby's estimates, from this test's games)
    yield
    cache.delete(estimates.CACHE_KEY)


def banked_window() -> tuple[Game, dict]:
    """A Mascarade game played with a time bank (3 days, +12 hours a decision), its players
    taking their time over the preparatory turns, then bob announcing the Empress: ada, cyd
    and dov answer at once (simultaneous challenges), each on their own bank; cyd has
    answered."""
    staff = UserFactory(username="ada", is_staff=True, language="en")
    others = [UserFactory(username=n, language="en") for n in ("bob", "cyd", "dov")]
    start = timezone.now() - dt.timedelta(hours=70)
    hand = {"now": start}
    with mock.patch("django.utils.timezone.now", lambda: hand["now"]):
        body = services.create_game(staff, "mascarade", {
            "players": 4, "scenario": "custom", "masks": DEAL, "deal": DEAL, "first_seat": 1,
            "challenge_mode": "simultaneous", **BANK}, name="Slow masks").body
        for user in others:
            services.join_game(user, body["id"])
        by_player = {0: staff, 1: others[0], 2: others[1], 3: others[2]}
        game = Game.objects.get(pk=body["id"])

        def play(player, move, after_hours):
            hand["now"] += dt.timedelta(hours=after_hours)
            services.submit_move(game.pk, move, user=by_player[player])

        for seat, hours in ((1, 5), (2, 20), (3, 2), (0, 30)):
            play(seat, {"type": "exchange", "target": (seat + 1) % 4, "swap": False}, hours)
        play(1, {"type": "announce", "mask": "empress"}, 3)
        play(2, {"type": "pass"}, 1)
    assert sorted(PendingDecision.objects.filter(game=game).values_list("player", flat=True)
                  ) == [0, 3]
    game.refresh_from_db()
    return game, by_player


def badges(page) -> dict[str, str]:
    """Each seat's bank badge on the board, by player name."""
    out = {}
    for name in ("ada", "bob", "cyd", "dov"):
        seat = page.locator(".seat", has=page.locator(f"text={name}")).first
        out[name] = " ".join(seat.locator(".badge.bank").text_content().split())
    return out


@pytest.mark.postgres
def test_the_seats_banks_on_a_phone(live_server, chromium):  # noqa: F811
    base = live_server.url
    game, by_player = banked_window()
    banks = dict(Seat.objects.filter(game=game).values_list("position", "bank_seconds"))
    # What the decisions left: 72 h (the increment would pass the cap) less the time each
    # preparatory turn took; bob's announcement took 3 h of his 72; cyd answered in an hour,
    # with her 52 h and the increment.
    assert banks == {0: 42 * 3600, 1: 69 * 3600, 2: 63 * 3600, 3: 70 * 3600}
    refused: list[str] = []
    page = logged_in(chromium, base, by_player[3], viewport=PHONE).new_page()
    watch_console(page, refused)
    page.goto(f"{base}/games/{game.pk}/")
    shown = badges(page)
    # Bob and cyd wait: their banks are stopped. Ada's and dov's run (their answers are
    # awaited), from what they had plus the increment, less the hour or so since.
    # (ada: 42 h + 12 h since the window opened, 10 hours ago; dov: his whole bank, 72 h.)
    assert shown["bob"] == "bank: 2 d 21 h (time bank, stopped)"
    assert shown["cyd"] == "bank: 2 d 15 h (time bank, stopped)"
    assert shown["ada"].startswith("▶ bank: 1 d 1")
    assert shown["ada"].endswith(" h (time bank, running)")
    assert shown["dov"].startswith("▶ bank: 2 d 1")
    assert shown["dov"].endswith(" h (time bank, running)")
    assert "time bank: 3 days, +12 hours per decision" in page.locator(
        ".table-subtitle").inner_text()
    assert axe_violations(page, AXE.read_text()) == []
    page.screenshot(path=str(SHOTS / "table-banks-375.png"))

    # The lobby: the speed, and no estimate of a length before the first such game ends.
    page.goto(f"{base}/games/?status=active")
    row = page.locator(".game-list li", has=page.locator("text=Slow masks")).first
    text = " ".join(row.inner_text().split())
    assert "time bank: 3 days, +12 hours per decision" in text
    assert "no estimate of its length yet" in text

    # In French.
    dov = by_player[3]
    dov.language = "fr"
    dov.save(update_fields=["language"])
    french = logged_in(chromium, base, dov, viewport=PHONE).new_page()
    watch_console(french, refused)
    french.goto(f"{base}/games/{game.pk}/")
    assert badges(french)["bob"] == "réserve : 2 j 21 h (réserve de temps, arrêtée)"
    assert badges(french)["dov"].endswith(" h (réserve de temps, en cours)")
    assert refused == []
