"""Every statement of the hot requests can be served by an index on the tables that grow with
the site's history: none of them needs to read a large table whole.

The statements are those the real code sends (Django's ``CaptureQueriesContext`` around the
requests, as the site serves them): the lobby, the home page and "your games", a table's page
(a game under way and a finished one), a game's read, a move, the player's page and its API
read when the site has them (its reliability counted at once: no figures stored for the day),
and the periodic sweep (nothing due, then deadlines due).

How a small test database can say it: its tables hold a few rows, and on them PostgreSQL rightly
prefers a sequential scan to any index. So each statement is planned (``EXPLAIN``, never run)
with ``enable_seqscan`` off: the planner then takes any path that avoids reading the table whole
when one exists (a disabled scan stays possible, at a prohibitive cost, when nothing else can
do). A ``Seq Scan`` of a large table left in the plan therefore means that no index can serve
that statement; so does an index read whole, without a condition on the index and without a
``LIMIT`` above it to stop it early (the planner's way round the disabled scan). What this does
not show is that the planner chooses those indexes at the sizes of a full site: that is
``bench/full_database.py``'s part, which plans the same requests' statements on the database of
``bench/fill.py`` (100,000 finished games, about 5 million moves) with the planner's own
statistics and settings (``docs/performance.md``).
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import Resolver404, resolve
from django.utils import timezone

from games import tasks
from games.core import services
from games.models import Game, PendingDecision
from tests.api.factories import UserFactory, client_for
from tests.api.helpers import game_url, peaceful, play_service_moves, start_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

#: The tables that grow with the site's history (every game, seat, move and message ever).
LARGE = {"games_game", "games_seat", "games_moverecord", "games_snapshot", "games_notification",
         "games_chatmessage", "games_webhookdelivery", "accounts_user", "games_ratings_rating",
         "games_ratings_ratingchange", "games_ratings_reliability"}
PLANNED = ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH")
FULL_INDEX_SCANS = ("Index Scan", "Index Only Scan", "Bitmap Index Scan")


def whole_reads(plan: dict, limited: bool = False) -> list[str]:
    """The large tables a plan reads whole: sequential scans, and index scans without an
    index condition and without a ``LIMIT`` above them."""
    found = []
    relation = plan.get("Relation Name")
    if relation is None and plan.get("Node Type") == "Bitmap Index Scan":
        relation = plan.get("Index Name")  # (its table is its Bitmap Heap Scan's)
    if plan.get("Node Type") == "Seq Scan" and relation in LARGE:
        found.append(f"Seq Scan on {relation}")
    if (plan.get("Node Type") in FULL_INDEX_SCANS and "Index Cond" not in plan and not limited
            and (relation in LARGE or any(plan.get("Index Name", "").startswith(t)
                                          for t in LARGE))):
        found.append(f"{plan['Node Type']} of {plan.get('Index Name')} without a condition")
    limited = limited or plan.get("Node Type") == "Limit"
    for child in plan.get("Plans", ()):
        found += whole_reads(child, limited)
    return found


def explain(sql: str) -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        try:
            cursor.execute("EXPLAIN (FORMAT JSON) " + sql)
            plan = cursor.fetchone()[0]
        finally:
            cursor.execute("SET LOCAL enable_seqscan = on")
    return (json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]


def statements(request) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        request()
    return [q["sql"] for q in queries.captured_queries
            if q["sql"].split(None, 1)[0].upper() in PLANNED]


def ok(answer, status: int = 200):
    assert answer.status_code == status, answer.content[:500]
    return answer


@pytest.fixture
def site(site_test_settings):
    """Four players with two games of Mascarade under way, a finished game of L'Ère des
    Masques, and an open game."""
    users = [UserFactory() for _ in range(4)]
    by_player = dict(enumerate(users))
    games = [start_game(users[0], users[1:]) for _ in range(2)]
    for game in games:
        play_service_moves(game, 5, by_player, choose=peaceful)
    finished = Game.objects.get(pk=services.create_game(users[0], "ere_des_masques", {})
                                .body["id"])
    services.join_game(users[1], finished.pk)
    while finished.status != Game.Status.FINISHED:
        play_service_moves(finished, 1, by_player)
    services.create_game(UserFactory(), "mascarade", {"players": 4})
    return users, games, finished


def hot_requests(site) -> dict:
    users, games, finished = site
    game = games[0]
    page, api = client_for(users[0]), client_for(users[0])
    page.force_login(users[0])

    def move():
        game.refresh_from_db()
        awaited = game.pending_decisions.order_by("deadline", "player").first()
        mover = client_for(users[awaited.player])
        moves = ok(mover.get(game_url(game.pk, "legal-moves/"))).json()["moves"]
        ok(mover.post(game_url(game.pk, "moves/"), {"move": peaceful(moves),
                                                    "expected_seq": game.seq}, format="json"),
           201)

    def due():
        PendingDecision.objects.filter(game__in=games).update(
            deadline=timezone.now() - dt.timedelta(seconds=1))
        tasks.sweep()

    requests = {
        "lobby": lambda: ok(page.get("/games/")),
        "lobby, finished games": lambda: ok(page.get("/games/?status=finished")),
        "home": lambda: ok(page.get("/")),
        "your games (API)": lambda: ok(api.get("/api/v1/me/games/")),
        "table page": lambda: ok(page.get(f"/games/{game.pk}/")),
        "finished table page": lambda: ok(page.get(f"/games/{finished.pk}/")),
        "replay": lambda: ok(page.get(f"/games/{finished.pk}/?at=3")),
        "game read (API)": lambda: ok(api.get(game_url(game.pk))),
        "move (API)": move,
        "sweep, nothing due": tasks.sweep,
        "sweep, deadlines due": due,
    }
    player_page = f"/players/{users[0].username}/"
    player_read = f"/api/v1/players/{users[0].username}/"
    try:
        resolve(player_page)
        resolve(player_read)
        requests["player page"] = lambda: ok(page.get(player_page))
        requests["player read (API)"] = lambda: ok(api.get(player_read))
    except Resolver404:
        pass
    return requests


def test_no_hot_statement_reads_a_large_table_whole(site):
    seen = {}
    for name, request in hot_requests(site).items():
        sqls = statements(request)
        assert sqls, name
        for sql in sqls:
            reads = whole_reads(explain(sql))
            if reads:
                seen.setdefault(name, []).append((reads, sql[:400]))
    assert not seen, json.dumps(seen, indent=1)


def test_the_check_sees_a_statement_no_index_serves(site):
    """The check is not blind: a look-up no index serves (the moves by their channel) is
    read whole, and one an index serves (a game's moves after a seq) is not."""
    game = site[1][0]
    unserved = "SELECT * FROM games_moverecord WHERE channel = 'mail'"
    served = (f"SELECT * FROM games_moverecord WHERE game_id = '{game.pk}' "  # noqa: S608
              "AND seq > 3")
    assert whole_reads(explain(unserved)) == ["Seq Scan on games_moverecord"]
    assert whole_reads(explain(served)) == []
