"""What the site's hot requests cost on a full database (``bench/fill.py``'s) and on an empty
one: the SQL statements of each, their time, and the plans PostgreSQL chooses for them.

    .venv/bin/python bench/fill.py                  # once: the full database
    .venv/bin/python bench/full_database.py         # the figures, empty beside full
    .venv/bin/python bench/full_database.py --repeat 50

The full database is ``BENCH_DATABASE_URL`` (by default ``mascarade_fill``; migrated first);
the empty one has the same name with ``_empty`` (dropped, made anew and migrated by each run).
Each is measured by a process of its own (this script, ``--measure URL``), in one transaction
rolled back at its end: both databases are left as they were.

The same few rows are made in each, through the site's services: four players (the first of
them, in the full database, the fill's user with the most games: thousands of finished ones),
four games of Mascarade of theirs under way, a few moves into each (the same deals in both
databases: the same moves, the same statements), a finished game of theirs
(``bench/fill.py``'s) and a fifth player's game waiting for players. Then each request is made
``--repeat`` times by Django's test client, in this process, as the first player unless said:

- the lobby (``/games/``), the finished games' lobby, the home page (the player's games
  awaiting them), "your games" (``/api/v1/me/games/``);
- a table's page (a game under way; a finished one), a game's read (``GET /api/v1/games/{id}/``),
  a move (``POST /moves/``, by whoever is awaited);
- the first player's page (``/players/<name>/``: ratings, reliability, games played, recent
  finished games, games under way) and its API twin (``GET /api/v1/players/{name}/``), when the
  site has them;
- the periodic sweep (the beat task ``games.sweep``), with nothing due, and with a deadline due
  in each of the four games.

For each it prints the statements one request sends (Django's ``CaptureQueriesContext``;
``SAVEPOINT`` and ``RELEASE`` where a request has ``BEGIN`` and ``COMMIT``: it runs in the
rolled-back transaction), the median and 99th percentile of its time, and, from the full
database, every sequential scan of a large table in the plans of its statements (``EXPLAIN`` of
each, the planner's settings and statistics as they are).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from fill import DEFAULT_DATABASE, create_database  # noqa: E402

#: Tables that grow with the site's history: a plan may read them by index only (as
#: ``tests/site/test_query_plans.py`` says; the pending decisions are those of the games under
#: way only, a table the planner rightly reads whole). The ratings' tables grow too, but
#: ``bench/fill.py`` leaves them empty (its games are rated by ``recompute_ratings``, not
#: here), and an empty table is rightly read whole: the test's check covers them.
BIG_TABLES = ("games_game", "games_seat", "games_moverecord", "games_snapshot",
              "games_notification", "games_chatmessage", "games_webhookdelivery",
              "accounts_user")
#: Moves into each game under way before the figures are taken.
OPENING_MOVES = 5
#: The game the fixture's games are of, and their seeds.
KIND = "mascarade"
SEED = 20_261_129


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# --------------------------------------------------------------------------------------------
# In the measuring process


def seq_scans(sql: str) -> list[str]:
    """The large tables a statement's plan reads by a sequential scan."""
    from django.db import connection

    if sql.split(None, 1)[0].upper() not in ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH"):
        return []
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql)
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    found = []

    def walk(node: dict) -> None:
        if node.get("Node Type") == "Seq Scan" and node.get("Relation Name") in BIG_TABLES:
            found.append(node["Relation Name"])
        for child in node.get("Plans", ()):
            walk(child)

    walk(plan[0]["Plan"])
    return found


def calm_move(moves: list[dict]) -> dict:
    """A move that leaves the game going much as it was (a look, a pass, an exchange without
    swap where the game has them), else the first one."""
    for move in moves:
        if move.get("type") in ("look", "pass"):
            return move
    return next((m for m in moves if m.get("type") == "exchange" and not m.get("swap")),
                moves[0])


class Fixture:
    """The rows every measured request reads, made by the site's services."""

    def __init__(self):
        from django.contrib.auth import get_user_model
        from fill import username

        from games.core import services
        from games.models import Game

        User = get_user_model()
        veteran = User.objects.filter(username=username(0)).first()
        if veteran is None:
            veteran = User.objects.create_user(username(0), f"{username(0)}@example.org", "x")
        others = [User.objects.create_user(f"bench-{n}", f"bench-{n}@example.org", "x")
                  for n in range(1, 5)]
        # (the fifth one's game waits for players: the lists of open games have one)
        services.create_game(others.pop(), KIND, {"players": 4})
        self.users = [veteran, *others]
        self.games = []
        for n in range(4):
            game_id = services.create_game(veteran, KIND, {"players": 4}).body["id"]
            # (the same deal in both databases: the same moves, the same statements)
            Game.objects.filter(pk=game_id).update(seed=SEED + n)
            for user in others:
                services.join_game(user, game_id)
            self.games.append(Game.objects.get(pk=game_id))
        for game in self.games:
            for _ in range(OPENING_MOVES):
                self.play(game)
        self.finished = self.finished_game()

    def awaited(self, game) -> tuple[Any, dict]:
        """The user awaited in ``game`` and the move they make."""
        from games.core import selectors

        loaded = selectors.find_and_load(game.pk, None)
        row = sorted(loaded.pending, key=lambda r: (r.deadline, r.player))[0]
        user = next(u for u in self.users if u.pk == row.user_id)
        return user, calm_move(selectors.legal_moves_for(loaded, row.player))

    def play(self, game) -> None:
        from games.core import services

        user, move = self.awaited(game)
        services.submit_move(game.pk, move, user=user, schedule=False)

    def finished_game(self):
        """A finished game of the four players, as ``bench/fill.py`` writes them."""
        import random

        from django.db import connection
        from django.utils import timezone
        from fill import Batch, game_id, make_game, reserve_ids

        from games import models as m
        from games.core import catalog

        number = 10**9
        rnd = random.Random(number)
        engine = catalog.get_game(KIND)
        planned = {"rnd": rnd, "kind": KIND, "engine": engine,
                   "options": engine.normalize_options({"players": 4}), "count": 4,
                   "seed": SEED, "seat_users": {n: u.pk for n, u in enumerate(self.users)}}
        batch = Batch(m)
        with connection.cursor() as cursor:
            make_game(number, planned, "bench finished", batch,
                      reserve_ids(cursor, m.Seat, 4), timezone.now(), "finished")
            batch.write(cursor)
        return m.Game.objects.get(pk=game_id(number))


def measure(repeat: int, explain: bool) -> dict[str, Any]:
    from django.db import connection, transaction
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import Resolver404, resolve
    from django.utils import timezone

    from games import tasks
    from games.models import Game, Notification, PendingDecision, Seat

    out: dict[str, Any] = {}
    with transaction.atomic():
        fx = Fixture()
        veteran = fx.users[0]
        clients = {}
        for user in fx.users:
            clients[user.pk] = Client()
            clients[user.pk].force_login(user)
        me = clients[veteran.pk]
        game, finished = fx.games[0], fx.finished
        out["veteran_games"] = Seat.objects.filter(user=veteran).count()
        out["games"] = Game.objects.count()
        player_page = f"/players/{veteran.username}/"
        player_read = f"/api/v1/players/{veteran.username}/"
        try:
            resolve(player_page)
            resolve(player_read)
            has_player_page = True
        except Resolver404:
            has_player_page = False
        out["player_page"] = has_player_page

        def get(path: str, client=None):
            def request():
                answer = (client or me).get(path)
                assert answer.status_code == 200, (path, answer.status_code)
            return request

        def move():
            target = fx.games[move.n % len(fx.games)]
            move.n += 1
            target.refresh_from_db()
            user, chosen = fx.awaited(target)
            answer = clients[user.pk].post(f"/api/v1/games/{target.pk}/moves/",
                                           {"move": chosen, "expected_seq": target.seq},
                                           content_type="application/json")
            assert answer.status_code == 201, answer.content
        move.n = 0

        def quiet():
            # (the mails the requests before wrote taken as sent: a sweep finds none due, whatever
            # the time the requests took)
            Notification.objects.filter(status="pending").update(status="sent")

        def due():
            quiet()
            # (each seat's timeouts in a row forgotten: no seat is marked absent)
            Seat.objects.filter(game__in=fx.games).update(timeouts_in_row=0)
            PendingDecision.objects.filter(game__in=fx.games).update(
                deadline=timezone.now() - dt.timedelta(seconds=1))

        requests: list[tuple[str, Any, Any]] = [
            ("lobby", get("/games/"), None),
            ("lobby, finished games", get("/games/?status=finished"), None),
            ("home (your games awaiting you)", get("/"), None),
            ("your games (API)", get("/api/v1/me/games/"), None),
            ("table page, under way", get(f"/games/{game.pk}/"), None),
            ("table page, finished", get(f"/games/{finished.pk}/"), None),
            ("game read (API)", get(f"/api/v1/games/{game.pk}/"), None),
            ("move (API)", move, None),
        ]
        if has_player_page:
            requests += [("player page", get(player_page), None),
                         ("player read (API)", get(player_read), None)]
        requests += [("sweep, nothing due", tasks.sweep, quiet),
                     ("sweep, 4 games due", tasks.sweep, due)]
        out["due_before_sweep"] = PendingDecision.objects.filter(
            deadline__lte=timezone.now(), remaining__isnull=True,
            game__status="active").count()
        rows = []
        for name, request, before in requests:
            times = []
            statements: list[str] = []
            for n in range(repeat + 2):
                if before is not None:
                    before()
                with CaptureQueriesContext(connection) as queries:
                    started = time.perf_counter()
                    request()
                    elapsed = time.perf_counter() - started
                if n >= 2:  # (two to warm up)
                    times.append(elapsed * 1000)
                statements = [q["sql"] for q in queries.captured_queries]
            scans = sorted({table for sql in statements for table in seq_scans(sql)}
                           ) if explain else []
            scanned = [sql[:300] for sql in statements if explain and seq_scans(sql)]
            rows.append({"name": name, "statements": len(statements), "scanned": scanned,
                         "p50": statistics.median(times), "p99": percentile(times, 0.99),
                         "seq_scans": scans,
                         "kinds": [sql.split(None, 1)[0] for sql in statements]})
        out["rows"] = rows
        transaction.set_rollback(True)
    return out


def child(url: str, repeat: int, explain: bool) -> None:
    from fill import setup_django

    # The settings of the test suite: the development defaults, DEBUG turned off once set up
    # (as pytest-django does), the throttles out of the way.
    os.environ.update({
        "DEBUG": "1", "API_THROTTLE_USER": "1000000/minute",
        "API_THROTTLE_ANON": "1000000/minute", "API_THROTTLE_AUTH": "1000000/minute",
        "VAR_DIR": tempfile.mkdtemp(prefix="mascarade-full-db-")})
    os.environ.pop("REDIS_URL", None)  # (kombu's filesystem transport: no worker takes them)
    os.environ["LOG_LEVEL"] = "WARNING"
    setup_django(url)
    from django.conf import settings

    settings.DEBUG = False
    print(json.dumps(measure(repeat, explain)))


# --------------------------------------------------------------------------------------------
# The driver


def run_child(url: str, repeat: int, explain: bool) -> dict[str, Any]:
    args = [sys.executable, __file__, "--measure", url, "--repeat", str(repeat)]
    if explain:
        args.append("--explain")
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"measuring {url} failed:\n{done.stdout[-3000:]}{done.stderr[-5000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def migrate(url: str) -> None:
    subprocess.run([sys.executable, str(HERE.parent / "manage.py"), "migrate", "--noinput",
                    "-v", "0"], check=True,
                   env={**os.environ, "DATABASE_URL": url, "DEBUG": "1"})


def empty_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    name = url.rsplit("/", 1)[1].split("?")[0]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
    create_database(url)
    migrate(url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE))
    parser.add_argument("--empty", default=None, help="default: the full one's name + _empty")
    parser.add_argument("--repeat", type=int, default=30, help="times each request is made")
    parser.add_argument("--verbose", action="store_true",
                        help="then the statements whose plans scan a large table")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--explain", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        child(args.measure, args.repeat, args.explain)
        return
    empty = args.empty or args.full.split("?")[0] + "_empty"
    empty_database(empty)
    migrate(args.full)  # (a fill made by older code gets the newer migrations)
    results = {"empty": run_child(empty, args.repeat, False),
               "full": run_child(args.full, args.repeat, True)}
    full, none = results["full"], results["empty"]
    print(f"full database: {full['games']:,} games; its first player in "
          f"{full['veteran_games']:,} of them (in the empty one: {none['veteran_games']})")
    if full["due_before_sweep"]:
        print(f"(the full database had {full['due_before_sweep']} decisions due before the "
              f"sweeps: they count in its sweeps)")
    if not full["player_page"]:
        print("the player's page (/players/<name>/, /api/v1/players/{name}/): not in this "
              "site")
    print(f"{'':34} {'statements':>12}   {'median (ms)':>15}   {'p99 (ms)':>15}   "
          f"sequential scans")
    print(f"{'':34} {'empty':>5} {'full':>6}   {'empty':>7} {'full':>7}   {'empty':>7} "
          f"{'full':>7}   (full)")
    for a, b in zip(none["rows"], full["rows"], strict=True):
        same = "" if a["kinds"] == b["kinds"] else "  (not the same statements)"
        print(f"{a['name']:34} {a['statements']:>5} {b['statements']:>6}   {a['p50']:>7.1f} "
              f"{b['p50']:>7.1f}   {a['p99']:>7.1f} {b['p99']:>7.1f}   "
              f"{', '.join(b['seq_scans']) or 'none'}{same}")
    if args.verbose:
        for row in full["rows"]:
            for sql in row["scanned"]:
                print(f"\n{row['name']}: {sql}")


if __name__ == "__main__":
    main()
