"""A game in the admin (issue 42, item 17): its page links to the table and to its move history
as each viewer saw it, through the one projection per viewer: a spectator's for any staff
member, a seat's and the whole truth for moderators only, each such reading written to the
moderation log as the full table's is; the full table reads as tables, not a JSON dump; the
moderation log's list shows the reason in a column wide enough to read (the browser test
measures it at 1280 px)."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from games.core import services
from games.models import PendingDecision
from moderation import services as moderation
from moderation.models import ModerationLog
from tests.api.factories import UserFactory
from tests.api.helpers import start_game
from tests.browser.test_chat_in_a_browser import logged_in
from tests.browser.test_play_in_a_browser import chromium  # noqa: F401

pytestmark = pytest.mark.django_db

SWAPPED = "(you know: really swapped)"


@pytest.fixture
def players():
    return [UserFactory() for _ in range(4)]


@pytest.fixture
def game(players):
    """A game whose first move is a preparatory exchange really swapped (a secret of its
    player's), by the seat returned with it."""
    game = start_game(players[0], players[1:], options={"players": 4})
    row = PendingDecision.objects.get(game=game)
    services.submit_move(game.pk, {"type": "exchange", "target": (row.player + 1) % 4,
                                   "swap": True}, user=players[row.player])
    game.refresh_from_db()
    return game, row.player


def admin_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def staff():
    """A staff member who is not a moderator, allowed to view games in the admin."""
    from django.contrib.auth.models import Permission

    user = UserFactory(is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_game"))
    return user


def history(page: str) -> list[str]:
    items = re.search(r'<ul class="history">(.*?)</ul>', page, re.S).group(1)
    return [html.unescape(re.sub(r"<[^>]+>", "", item)).strip()
            for item in re.findall(r"<li>(.*?)</li>", items, re.S)]


def test_the_game_page_links_to_the_table_and_to_each_viewers_history(moderator, game):
    game, _mover = game
    page = admin_client(moderator).get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert f'href="/games/{game.pk}/"' in page
    for viewer in ("spectator", "0", "1", "2", "3", "moderator"):
        assert f'href="/admin/games/game/{game.pk}/history/{viewer}/"' in page


def test_a_spectators_history_is_for_any_staff_member_and_tells_no_secret(staff, game):
    game, _mover = game
    answer = admin_client(staff).get(f"/admin/games/game/{game.pk}/history/spectator/")
    assert answer.status_code == 200
    lines = history(answer.content.decode())
    assert lines[0].startswith("#1 ") and "exchanged (or pretended to)" in lines[0]
    assert not any(SWAPPED in line for line in lines)
    assert not ModerationLog.objects.exists()


def test_a_seats_and_the_whole_history_are_for_moderators_and_logged(moderator, staff, game):
    game, mover = game
    for viewer in (str(mover), "moderator"):
        url = f"/admin/games/game/{game.pk}/history/{viewer}/"
        before = ModerationLog.objects.count()
        assert admin_client(staff).get(url).status_code == 403
        assert ModerationLog.objects.count() == before  # (a refusal reads nothing)
        answer = admin_client(moderator).get(url)
        assert answer.status_code == 200
        assert any(SWAPPED in line for line in history(answer.content.decode()))
        assert "written to the moderation log" in answer.content.decode()
    logged = ModerationLog.objects.filter(action="history", game=game, moderator=moderator)
    assert sorted(entry.details["viewer"] for entry in logged) == sorted(
        [f"seat {mover}", "moderator"])
    # Another seat saw no secret of the mover's.
    other = (mover + 1) % 4
    page = admin_client(moderator).get(f"/admin/games/game/{game.pk}/history/{other}/")
    assert not any(SWAPPED in line for line in history(page.content.decode()))
    bad = admin_client(moderator).get(f"/admin/games/game/{game.pk}/history/9/")
    assert bad.status_code == 404


def test_the_admin_history_is_the_projections_own(moderator, game):
    """The lines are the history's sentences of ``selectors.events_payload`` for that viewer."""
    from games.core import catalog
    from games.core.kit import history_lines

    game, mover = game
    loaded, events = moderation.game_history(moderator, game.pk, mover)
    names = {seat.position: seat.name for seat in loaded.seats}
    expected = [line["text"] for line in history_lines(catalog.get_kit(game.kind), events,
                                                       names)]
    page = admin_client(moderator).get(f"/admin/games/game/{game.pk}/history/{mover}/")
    assert [line.split(" ", 1)[1] if line.startswith("#") else line
            for line in history(page.content.decode())] == expected


def test_the_full_table_reads_as_tables_and_links_to_the_table(moderator, game):
    game, _mover = game
    page = admin_client(moderator).get(f"/admin/games/game/{game.pk}/full/").content.decode()
    assert '<table class="full-table">' in page and "<pre" not in page
    assert '<th scope="row">moderator</th>' in page and '<th scope="col">mask</th>' in page
    assert '{"' not in page and "&quot;" not in page.split('class="full-table"', 1)[1]
    assert f'href="/games/{game.pk}/"' in page
    assert ModerationLog.objects.filter(action="full_table", game=game).count() == 1


def test_the_moderation_logs_reason_is_wrapped_and_the_game_short(moderator, game):
    game, _mover = game
    moderation.pause(moderator, game.pk, "checking a report " * 10)
    page = admin_client(moderator).get("/admin/moderation/moderationlog/").content.decode()
    assert re.search(r'<div class="log-reason">checking a report', page)
    assert re.search(r'<link href="[^"]*moderation/admin\.css"', page)
    assert f">mascarade {str(game.pk)[:8]}…</a>" in page


@pytest.mark.postgres
def test_the_reason_is_readable_at_1280_px(live_server, chromium, game):  # noqa: F811
    # (a superuser moderates: a live server's test may run after another has flushed the
    # Moderators group its migration made)
    moderator = UserFactory(is_staff=True, is_superuser=True)
    game, _mover = game
    reason = ("The player kept insulting the others in the chat after two warnings; "
              "paused until they answer. ") * 3
    moderation.pause(moderator, game.pk, reason)
    page = logged_in(chromium, live_server.url, moderator,
                     viewport={"width": 1280, "height": 800}).new_page()
    page.goto(f"{live_server.url}/admin/moderation/moderationlog/")
    cell = page.locator("#result_list td.field-reason_text").first
    box = cell.bounding_box()
    assert box["x"] + box["width"] <= 1280, box  # in sight, no sideways scroll to reach it
    assert box["width"] >= 250, box  # wide enough to read: lines of words, not of letters
    assert cell.inner_text().strip() == reason.strip()
    assert cell.is_visible()
    page.screenshot(path="/tmp/pagesB_log_1280.png")
