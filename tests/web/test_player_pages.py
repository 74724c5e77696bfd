"""Issue 46's pages: a player's page (ratings with the chart of their history, its figures as a
table, reliability, games played and won, recent games to replay, games under way), each game's
leaderboard, paginated, and every table's seats and the lobby's open tables showing their
players' rating and reliability, with links to their pages."""

from __future__ import annotations

import random
import re

import pytest

from games.ratings import selectors as rating_selectors
from games.ratings.models import Rating, Reliability
from games.ratings.selectors import today
from games.web.players import LEADERBOARD_PAGE, RECENT_GAMES, chart
from tests.api.factories import UserFactory
from tests.ratings.play import new_game, play_to_end

from .helpers import browser

pytestmark = pytest.mark.django_db


@pytest.fixture
def rivals():
    """Two players who played three games of L'Ère des Masques against each other, and have
    one more under way."""
    ada, bob = UserFactory(username="ada"), UserFactory(username="bob")
    rng = random.Random(4)
    finished = [play_to_end(new_game("ere_des_masques", [ada, bob]), rng) for _ in range(3)]
    assert all(game.status == "finished" for game in finished)
    new_game("ere_des_masques", [ada, bob])
    Reliability.objects.create(user=ada, as_of=today(), decisions=40, answered=37, percent=92)
    return ada, bob, finished


def _chart_svg(html: str, kind: str) -> str:
    found = re.search(rf'<svg[^>]*aria-labelledby="chart-title-{kind} chart-desc-{kind}".*?</svg>',
                      html, re.S)
    assert found, "no chart"
    return found.group(0)


def test_a_player_s_page_shows_ratings_a_chart_and_its_figures(rivals):
    ada, _bob, finished = rivals
    answer = browser().get(f"/players/{ada.username}/")
    assert answer.status_code == 200
    html = answer.content.decode()
    svg = _chart_svg(html, "ere_des_masques")
    assert 'role="img"' in svg and "<title" in svg and "<desc" in svg
    assert len(re.findall(r"<circle ", svg)) == 3 and "<polyline" in svg
    rating = Rating.objects.get(user=ada, kind="ere_des_masques")
    assert rating.games == 3
    # The text alternative: a row per rated game, with a link to it.
    rows = re.findall(r"<tr><td>(\d+)</td>", html)
    assert rows == ["1", "2", "3"]
    for game in finished:
        assert f'href="/games/{game.pk}/?at=0"' in html  # (the recent games, to replay)
    assert "92%" in html and "37 of 40 decisions taken in time" in html
    assert "3 games played" in html
    assert "Games under way" in html and "Recent finished games" in html
    # In French.
    french = browser().get(f"/players/{ada.username}/", HTTP_ACCEPT_LANGUAGE="fr").content
    assert "Fiabilité" in french.decode() and "parties jouées" in french.decode()
    # (the drawing's numbers unlocalized: "21.5", never French's "21,5")
    assert not re.search(r'(?:x|y|x1|y1|x2|y2|cx|cy)="\d+,\d', _chart_svg(
        french.decode(), "ere_des_masques"))


def test_a_long_history_charts_its_latest_games_numbered_among_all(rivals, monkeypatch):
    """The chart draws the latest rated games only (the page keeps its size whatever the
    history), numbers them among all and says of how many, in both languages."""
    ada, _bob, _finished = rivals
    monkeypatch.setattr(rating_selectors, "CHART_GAMES", 2)
    html = browser().get(f"/players/{ada.username}/").content.decode()
    assert len(re.findall(r"<circle ", _chart_svg(html, "ere_des_masques"))) == 2
    assert re.findall(r"<tr><td>(\d+)</td>", html) == ["2", "3"]
    assert re.search(r"over the latest 2 rated games of 3 \(highest \d+, lowest \d+\)\.", html)
    assert re.search(r"to \d+ over the latest 2 rated games of 3\.</p>", html)
    french = browser().get(f"/players/{ada.username}/",
                           HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "sur les 2 dernières des 3 parties classées." in french


def test_a_player_page_without_games_says_so_and_an_unknown_player_is_404():
    newcomer = UserFactory()
    html = browser().get(f"/players/{newcomer.username}/").content.decode()
    assert "No rated game yet" in html and "<svg" not in html
    assert browser().get("/players/nobody-here/").status_code == 404


def test_the_chart_places_its_points_by_game_and_rating():
    history = [{"game": "g", "name": "n", "at": f"2026-11-0{i + 1}T10:00:00Z", "rating": r,
                "place": 1, "players": 2} for i, r in enumerate([1000, 1040, 1020])]
    drawn = chart(history)
    xs = [p["x"] for p in drawn["points"]]
    ys = [p["y"] for p in drawn["points"]]
    assert xs == sorted(xs) and xs[0] == drawn["left"] and xs[-1] == drawn["right"]
    assert ys[1] < ys[2] < ys[0]  # (the highest rating drawn highest)
    assert drawn["top"] <= min(ys) and max(ys) <= drawn["base"]
    assert chart([]) is None
    # (the latest games of a longer history: numbered among all)
    assert [p["number"] for p in chart(history, 10)["points"]] == [8, 9, 10]
    assert chart(history, 10)["total"] == 10 and chart(history)["total"] == 3
    assert chart(history[:1])["points"][0]["y"] == pytest.approx(
        (drawn["top"] + drawn["base"]) / 2, abs=1)


def test_the_leaderboard_is_paginated_best_first_with_links_to_players():
    import datetime as dt

    from django.utils import timezone

    users = [UserFactory() for _ in range(LEADERBOARD_PAGE + 3)]
    Rating.objects.bulk_create([
        Rating(user=user, kind="mascarade", mu=25 + i / 10, sigma=2, ordinal=19 + i / 10,
               games=12, updated_at=timezone.now()) for i, user in enumerate(users)])
    # (neither a provisional rating nor a player who has not played for 90 days)
    novice, gone = UserFactory(username="novice"), UserFactory(username="gone")
    Rating.objects.create(user=novice, kind="mascarade", mu=40, sigma=1, ordinal=37, games=9,
                          updated_at=timezone.now())
    Rating.objects.create(user=gone, kind="mascarade", mu=40, sigma=1, ordinal=37, games=30,
                          updated_at=timezone.now() - dt.timedelta(days=91))
    first = browser().get("/leaderboards/mascarade/").content.decode()
    names = re.findall(r'<td><a href="/players/([^/]+)/">', first)
    assert len(names) == LEADERBOARD_PAGE and names[0] == users[-1].username
    assert 'rel="next"' in first and "Page 1 of 2" in first
    second = browser().get("/leaderboards/mascarade/?page=2").content.decode()
    assert len(re.findall(r'<td><a href="/players/', second)) == 3
    assert re.findall(r"<tr><td>(\d+)</td>", second)[0] == str(LEADERBOARD_PAGE + 1)
    assert "/players/novice/" not in first + second and "/players/gone/" not in first + second
    assert browser().get("/leaderboards/chess/").status_code == 404
    assert browser().get("/leaderboards/")["Location"].startswith("/leaderboards/")


def test_every_seat_and_the_lobby_show_rating_and_reliability(users):
    Reliability.objects.create(user=users[1], as_of=today(), decisions=10, answered=8,
                               percent=80)
    game = new_game("mascarade", users[:2], options={"players": 4})
    lobby = browser().get("/games/").content.decode()
    assert f'href="/players/{users[1].username}/"' in lobby
    assert "reliability 80%" in lobby and "rating 1000" in lobby
    waiting = browser(users[2]).get(f"/games/{game.pk}/").content.decode()
    assert "reliability 80%" in waiting and "reliability not known yet" in waiting
    from games.core import services

    for user in users[2:]:
        services.join_game(user, game.pk)
    table = browser(users[3]).get(f"/games/{game.pk}/").content.decode()
    assert table.count('class="badge rating"') == 4
    assert "reliability 80%" in table


def test_the_recent_games_are_the_latest_finished_public_ones_whatever_the_history():
    """The page lists the player's latest finished public games, the latest ended first (games
    private, aborted or under way apart), and reads as many statements for a long history as
    for a short one."""
    import datetime as dt

    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from games.models import Game, Seat

    player = UserFactory()
    now = timezone.now()

    def game(name: str, status: str, hours_ago: int, private: bool = False) -> Game:
        over = status in ("finished", "aborted")
        ended = now - dt.timedelta(hours=hours_ago) if over else None
        made = Game.objects.create(kind="mascarade", name=name, seed=hours_ago, status=status,
                                   private=private, seat_count=4, finished_at=ended,
                                   winners=[0] if status == "finished" else [])
        Seat.objects.create(game=made, position=0, user=player, ended_at=ended)
        return made

    def recent_names() -> list[str]:
        html = browser().get(f"/players/{player.username}/").content.decode()
        section = html.split('id="recent-title"')[1].split('id="current-title"')[0]
        return re.findall(r'class="game-title">([^<]+)</a>', section)

    def statements() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert browser().get(f"/players/{player.username}/").status_code == 200
        return len(queries.captured_queries)

    for n in (5, 3):
        game(f"old {n}", "finished", 100 + n)
    statements()  # (once to warm up)
    few = statements()
    for n in range(RECENT_GAMES + 2):
        game(f"finished {n}", "finished", 10 + n)
    game("secret table", "finished", 1, private=True)
    game("called-off table", "aborted", 2)
    game("table under way", "active", 0)
    assert recent_names() == [f"finished {n}" for n in range(RECENT_GAMES)]
    html = browser().get(f"/players/{player.username}/").content.decode()
    assert ">table under way</a>" in html.split('id="current-title"')[1]
    assert "secret table" not in html and "called-off table" not in html
    assert statements() == few
