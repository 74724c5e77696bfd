"""A real browser at a table served as in production: the site's ASGI application under uvicorn,
woken through Redis. A move by another player comes in through the game's event stream (the
polling made too slow to do it); with the stream blocked, the polling brings it. Same
requirements as ``test_play_in_a_browser``."""

from __future__ import annotations

import pytest

from games.core import services
from games.web import table as web
from tests.api.factories import UserFactory
from tests.api.helpers import start_game
from tests.api.streaming import asgi_server

from .test_chat_in_a_browser import logged_in, watch_console
from .test_play_in_a_browser import chromium  # noqa: F401

pytestmark = [pytest.mark.postgres, pytest.mark.redis]
PHONE = {"viewport": {"width": 375, "height": 800}}


@pytest.fixture
def server(transactional_db, settings, fast_passwords, eager_celery):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    with asgi_server() as port:
        yield f"http://127.0.0.1:{port}"


def someone_moves(game) -> int:
    """The awaited player (not the page's) exchanges without swapping; the new seq."""
    game.refresh_from_db()
    row = game.pending_decisions.order_by("player").first()
    seat = game.seats.get(position=row.player)
    services.submit_move(game.pk, {"type": "exchange", "target": (row.player + 1) % 4,
                                   "swap": False}, user=seat.user, expected_seq=game.seq)
    game.refresh_from_db()
    return game.seq


def table(chromium, base, user, game, monkeypatch, poll_seconds):  # noqa: F811
    monkeypatch.setattr(web, "LIVE_POLL_SECONDS", poll_seconds)
    page = logged_in(chromium, base, user, **PHONE).new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    return page, requests


def open_with_its_stream(page, base, game_id, requests: list[str]) -> None:
    """The game's page, once its event stream answered (200)."""
    streams: list[int] = []
    page.on("response", lambda response: streams.append(response.status)
            if response.url.endswith(f"/api/v1/games/{game_id}/stream/") else None)
    page.goto(f"{base}/games/{game_id}/")
    for _ in range(40):
        if streams:
            break
        page.wait_for_timeout(200)
    assert streams == [200], requests


def test_a_move_comes_in_through_the_stream(server, chromium, monkeypatch):  # noqa: F811
    users = [UserFactory(username=name) for name in ("ida", "jon", "kim", "lea")]
    game = start_game(users[0], users[1:], options={"players": 4})
    watcher = users[(game.pending_decisions.get().player + 2) % 4]
    refused: list[str] = []
    page, requests = table(chromium, server, watcher, game, monkeypatch, poll_seconds=600)
    watch_console(page, refused)
    open_with_its_stream(page, server, game.pk, requests)
    seq = someone_moves(game)
    page.locator("#live .history li", has_text=f"#{seq} ").first.wait_for(timeout=8000)
    seq = someone_moves(game)
    page.locator("#live .history li", has_text=f"#{seq} ").first.wait_for(timeout=8000)
    assert not refused, refused


def test_with_the_stream_blocked_the_polling_brings_the_move(server, chromium,  # noqa: F811
                                                             monkeypatch):
    users = [UserFactory(username=name) for name in ("max", "nia", "oto", "pia")]
    game = start_game(users[0], users[1:], options={"players": 4})
    watcher = users[(game.pending_decisions.get().player + 2) % 4]
    page, requests = table(chromium, server, watcher, game, monkeypatch, poll_seconds=1)
    page.route("**/stream/**", lambda route: route.abort())
    page.goto(f"{server}/games/{game.pk}/")
    seq = someone_moves(game)
    page.locator("#live .history li", has_text=f"#{seq} ").first.wait_for(timeout=8000)
    assert any(url.endswith(f"/games/{game.pk}/live/") or "/live/" in url for url in requests)


def test_a_join_answered_after_the_game_started_is_not_cut_short(server, chromium,  # noqa: F811
                                                                  monkeypatch):
    """The waiting room reloads itself once the game started (``HX-Refresh``, on the stream's
    word). The last player's own join starts it: while its answer is still on the way, the
    stream says so, and the page must not reload over the join's navigation."""
    import time

    from games.models import Game

    users = [UserFactory(username=name) for name in ("qed", "rio", "sam", "tia")]
    game_id = services.create_game(users[0], "mascarade", {"players": 4}).body["id"]
    for user in users[1:3]:
        services.join_game(user, game_id)
    page, requests = table(chromium, server, users[3], None, monkeypatch, poll_seconds=600)
    # A page still loading something when the reader clicks gets its first load's "pageshow"
    # (not from the browser's cache) after the click: it must not undo the guard.
    page.add_init_script("""document.addEventListener("submit", function () {
        setTimeout(function () {
            window.dispatchEvent(new PageTransitionEvent("pageshow", {persisted: false}));
        }, 50);
    });""")
    open_with_its_stream(page, server, game_id, requests)

    def answered_late(route):
        answer = route.fetch(max_redirects=0)  # the join reaches the server: the game starts
        time.sleep(2)  # meanwhile the page's stream says the game started
        route.fulfill(response=answer)

    page.route(f"**/games/{game_id}/join/", answered_late)
    sent = len(requests)
    with page.expect_navigation(timeout=15000):
        page.locator("text=Join this game").click()
    assert Game.objects.get(pk=game_id).status == Game.Status.ACTIVE
    page.locator("#live .banner").wait_for(timeout=8000)
    # Nothing of the waiting room was asked again once the join was on its way.
    assert not [url for url in requests[sent:] if "since=open" in url], requests[sent:]
