"""The tables drawn as tables, in a real browser: an 8-player Shadow House Mascarade table (two
people, six bots, a few moves in) and a game of L'Ère des Masques fit a 375 px phone without
horizontal scrolling, every card picture loads (no broken image, no refused resource), and the
8-player table's pictures go to ``docs/screenshots/shadow-table-8-*.png``. Same requirements as
``test_play_in_a_browser``."""

from __future__ import annotations

import random
from unittest import mock

import pytest

from games.core import selectors, services
from games.core.catalog import get_game
from games.models import Game, PendingDecision
from tests.api.factories import UserFactory

from .test_chat_in_a_browser import logged_in, watch_console
from .test_play_in_a_browser import SHOTS, chromium  # noqa: F401

BROKEN = "[...document.images].filter(i => !i.complete || i.naturalWidth === 0).length"
WIDE = "document.documentElement.scrollWidth"


@pytest.fixture(autouse=True)
def _settings(settings, fast_passwords, eager_celery):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def played_until(game_id: int, person, steps: int) -> None:
    """``steps`` moves by whichever person is awaited (the bots play by themselves), then on
    until ``person`` is awaited."""
    engine = None
    rng = random.Random(8)
    for step in range(steps + 40):
        rows = (PendingDecision.objects.filter(game_id=game_id, user__isnull=False)
                .select_related("user").order_by("seat"))
        if not rows or (step >= steps and any(row.user == person for row in rows)):
            break
        row = rows.first()
        loaded = selectors.load_for_viewer(selectors.find_game(game_id), None)
        engine = engine or get_game(loaded.game.kind)
        moves = [m for m in engine.legal_moves(loaded.state, row.player) if m["type"] != "say"]
        services.submit_move(game_id, rng.choice(moves or engine.legal_moves(
            loaded.state, row.player)), user=row.user)


@pytest.mark.postgres
def test_the_tables_fit_a_phone_with_every_card_drawn(live_server, chromium):  # noqa: F811
    base = live_server.url
    people = [UserFactory(username=name) for name in ("ivy", "jon")]
    with mock.patch("games.core.services.lobby.secrets.randbits", return_value=20261124):
        body = services.create_game(people[0], "shadow_house", {"players": 8, "flash": True}).body
    shadow = body["id"]
    services.join_game(people[1], shadow)
    services.add_bots(people[0], shadow, 6)
    assert Game.objects.get(pk=shadow).status == "active"
    played_until(shadow, people[0], 6)
    ere = services.create_game(people[0], "ere_des_masques", {}).body["id"]
    services.join_game(people[1], ere)
    played_until(ere, people[0], 4)

    refused: list[str] = []
    phone = logged_in(chromium, base, people[0], viewport={"width": 375, "height": 800})
    page = phone.new_page()
    watch_console(page, refused)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for game_id, shot in ((shadow, "shadow-table-8-375"), (ere, None)):
        page.goto(f"{base}/games/{game_id}/")
        page.wait_for_load_state("load")
        assert page.evaluate(WIDE) <= 375, "the table scrolls sideways on a phone"
        assert page.locator(".seat").count() == (8 if game_id == shadow else 2)
        assert page.evaluate(BROKEN) == 0, "a card's picture did not load"
        if shot:
            page.locator("section.sh-table").screenshot(path=str(SHOTS / f"{shot}.png"))
    phone.close()
    desktop = logged_in(chromium, base, people[0], viewport={"width": 1280, "height": 900})
    wide = desktop.new_page()
    wide.goto(f"{base}/games/{shadow}/")
    wide.locator("section.sh-table").screenshot(path=str(SHOTS / "shadow-table-8-desktop.png"))
    assert wide.evaluate(BROKEN) == 0
    desktop.close()
    assert refused == []
