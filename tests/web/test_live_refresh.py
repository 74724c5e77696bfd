"""The live refresh of the pages: the waiting room refreshes itself like a table (and the whole
page comes back once the game started), the live fragment answers 304 to its own ETag and a
changed fragment after a move, and every page's title (and header) counts the games awaiting
the logged-in user."""

from __future__ import annotations

import re
from html import unescape

import pytest

from games.core import selectors, services
from games.models import Game, PendingDecision
from tests.api.factories import UserFactory
from tests.api.helpers import start_game

from .helpers import browser

pytestmark = pytest.mark.django_db




@pytest.fixture
def users():
    return [UserFactory() for _ in range(4)]


def open_game(creator, *others, private=False) -> Game:
    body = services.create_game(creator, "mascarade", {"players": 4}, private=private).body
    for user in others:
        services.join_game(user, body["id"], body.get("invite_code"))
    return Game.objects.get(pk=body["id"])


def test_the_waiting_room_refreshes_itself_until_the_game_starts(users):
    game = open_game(users[0], users[1])
    client = browser(users[0])
    html = client.get(f"/games/{game.pk}/").content.decode()
    assert f'hx-get="/games/{game.pk}/live/?since=open"' in html
    # The game's event stream refreshes it at once; the polling, while the stream is not open.
    assert f'sse-connect="/api/v1/games/{game.pk}/stream/" sse-close="end"' in html
    assert 'hx-trigger="sse:game, sse:chat, sse:you, every 2s' in html
    assert 'hx-select="#live"' in html
    assert "2 of 4 seats free" in html

    live = f"/games/{game.pk}/live/?since=open"
    first = client.get(live)
    assert first.status_code == 200 and "2 of 4 seats free" in first.content.decode()
    etag = first["ETag"]
    assert client.get(live, HTTP_IF_NONE_MATCH=etag).status_code == 304
    services.join_game(users[2], game.pk)
    seats = client.get(live, HTTP_IF_NONE_MATCH=etag)
    assert seats.status_code == 200 and "1 of 4 seats free" in seats.content.decode()
    assert users[2].username in seats.content.decode()
    # The last seat filled: the game starts and the page reloads as the table.
    services.join_game(users[3], game.pk)
    started = client.get(live, HTTP_IF_NONE_MATCH=seats["ETag"])
    assert started.status_code == 204 and started["HX-Refresh"] == "true"
    assert 'class="banner"' in client.get(f"/games/{game.pk}/").content.decode()


def test_an_invite_links_waiting_room_refreshes_too(users):
    game = open_game(users[0], users[1], private=True)
    client = browser(users[2])
    html = client.get(f"/games/{game.pk}/?invite={game.invite_code}").content.decode()
    assert f"/games/{game.pk}/live/?since=open&amp;invite={game.invite_code}" in html
    live = client.get(f"/games/{game.pk}/live/?since=open&invite={game.invite_code}")
    assert live.status_code == 200 and "Join this game" in live.content.decode()
    assert f'value="{game.invite_code}"' in live.content.decode()


def test_the_page_carries_its_live_etag_and_the_live_view_answers_304_to_it(users):
    game = start_game(users[0], users[1:], options={"players": 4})
    client = browser(users[0])
    html = client.get(f"/games/{game.pk}/").content.decode()
    etag = unescape(re.search(r'<div id="live"[^>]* data-etag="([^"]+)"', html).group(1))
    assert "visibilitychange from:document" in html and "js/live.js" in html
    live = f"/games/{game.pk}/live/"
    unchanged = client.get(live, HTTP_IF_NONE_MATCH=etag)
    assert unchanged.status_code == 304 and unchanged["ETag"] == etag and not unchanged.content
    first = client.get(live)
    assert first["ETag"] == etag
    assert unescape(re.search(r'data-etag="([^"]+)"', first.content.decode()).group(1)) == etag
    p = PendingDecision.objects.filter(game=game).first().player
    loaded = selectors.load_for_viewer(Game.objects.get(pk=game.pk), users[p])
    move = selectors.legal_moves_payload(loaded, users[p])["moves"][0]
    services.submit_move(game.pk, move, user=users[p])
    changed = client.get(live, HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag
    assert "#1" in changed.content.decode()


def awaited_in_two_games(users):
    """A player awaited in two games (seat 0 first in both), and the two games."""
    staff = UserFactory(is_staff=True)
    games = []
    for _ in range(2):
        body = services.create_game(staff, "mascarade", {"players": 4, "first_seat": 0}).body
        for user in users[1:]:
            services.join_game(user, body["id"])
        games.append(Game.objects.get(pk=body["id"]))
    return staff, games


def test_every_page_title_counts_the_games_awaiting_the_user(users):
    staff, games = awaited_in_two_games(users)
    client = browser(staff)
    for path in ("/", "/games/", f"/games/{games[0].pk}/", "/rules/"):
        html = client.get(path).content.decode()
        title = re.search(r"<title>\s*(.*?)\s*</title>", html, re.S).group(1)
        assert title.startswith("(2) "), (path, title)
        assert re.search(r'<a href="/games/#mine-title"[^>]*>\s*Your turn \(2\)\s*</a>', html)
    # Those not awaited (and anonymous visitors) see no count.
    for client_ in (browser(users[1]), browser()):
        html = client_.get("/games/").content.decode()
        assert "<title>(" not in html and "Your turn (" not in html

    # The table's live refresh brings the title: once the user played in one game, the other
    # game's fragment changes (its ETag too) and says (1).
    live = f"/games/{games[1].pk}/live/"
    first = client.get(live)
    assert re.match(r"\s*<title>\(2\) ", first.content.decode())
    loaded = selectors.load_for_viewer(Game.objects.get(pk=games[0].pk), staff)
    move = selectors.legal_moves_payload(loaded, staff)["moves"][0]
    services.submit_move(games[0].pk, move, user=staff)
    again = client.get(live, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and re.match(r"\s*<title>\(1\) ", again.content.decode())
