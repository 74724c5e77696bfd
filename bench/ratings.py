"""The ratings' and reliability's work on a database as the site has it after a while
(``bench/fill.py``'s: finished games of every game, humans and bots, over two years):

- every rating recomputed from the finished games, in order (``manage.py recompute_ratings``,
  ``games.core.services.ratings.recompute``): games rated per second;
- every player's reliability of the day stored (the daily beat task,
  ``refresh_reliability``): players per second;
- the heaviest player's figures: their reliability counted at once
  (``games.ratings.reliability.measure``, what a player's page does before the day's task
  ran) and their public profile (``GET /api/v1/players/{name}/``): time and queries.

    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/mascarade_bench_ratings \\
        .venv/bin/python bench/fill.py --scale 0.02 --users 2000 --workers 1   # once
    BENCH_DATABASE_URL=... .venv/bin/python bench/ratings.py

The database is ``BENCH_DATABASE_URL`` (by default ``mascarade_bench_ratings``), migrated
first; everything is measured in one transaction rolled back at its end: the database is left
as it was.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
DEFAULT_DATABASE = "postgres://postgres@127.0.0.1:5432/mascarade_bench_ratings"


class Rollback(Exception):
    pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default=os.environ.get("BENCH_DATABASE_URL",
                                                             DEFAULT_DATABASE))
    parser.add_argument("--repeat", type=int, default=20,
                        help="times the heaviest player's figures are read")
    args = parser.parse_args()
    from fill import setup_django

    os.environ.pop("REDIS_URL", None)
    os.environ["LOG_LEVEL"] = "WARNING"
    setup_django(args.database)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.db import connection, transaction
    from django.db.models import Count
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from accounts.models import User
    from games.core import catalog
    from games.core.services import ratings as services
    from games.models import Game
    from games.ratings import selectors
    from games.ratings.reliability import measure

    finished = Game.objects.filter(status=Game.Status.FINISHED).count()
    print(f"database: {finished} finished games, {User.objects.count()} users")
    try:
        with transaction.atomic():
            start = time.perf_counter()
            rated = services.recompute()
            took = time.perf_counter() - start
            print(f"recompute: {rated} of {finished} finished games rated in {took:.1f} s "
                  f"({rated / took:.0f} games/s)")
            start = time.perf_counter()
            stored = services.refresh_reliability()
            took = time.perf_counter() - start
            print(f"reliability of the day: {stored} players stored in {took:.1f} s "
                  f"({stored / took:.0f} players/s)")
            heaviest = (User.objects.annotate(n=Count("seats")).order_by("-n").first())
            today = timezone.now().date()
            times, profile = [], []
            for _ in range(args.repeat):
                start = time.perf_counter()
                measure([heaviest], today)
                times.append(time.perf_counter() - start)
                with CaptureQueriesContext(connection) as queries:
                    start = time.perf_counter()
                    selectors.player_profile(heaviest, catalog.ids())
                    profile.append(time.perf_counter() - start)
            print(f"the heaviest player ({heaviest.n} games): reliability counted in "
                  f"{statistics.median(times) * 1000:.1f} ms (median of {args.repeat}); "
                  f"profile in {statistics.median(profile) * 1000:.1f} ms, "
                  f"{len(queries.captured_queries)} queries")
            raise Rollback
    except Rollback:
        pass


if __name__ == "__main__":
    main()
