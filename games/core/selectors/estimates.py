"""How long a game lasts, for the lobby: the median length (start to end) of the latest
finished games of the same kind, speed and player count.

One query for every kind, speed and player count at once (each group's latest
:data:`SAMPLE` games, a window function), kept in the cache for :data:`CACHE_SECONDS`: a
lobby's page never asks per table. A cache that does not answer (Redis down) costs that query
on the page.
"""

from __future__ import annotations

import statistics
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.db.models import F, Window
from django.db.models.functions import RowNumber

from games.models import Game

#: The finished games of a kind, speed and player count the median is taken over (the latest).
SAMPLE = 101
CACHE_KEY = "lobby:length-estimates:1"
CACHE_SECONDS = 600

Key = tuple[str, str, int]


def _read() -> dict[Key, int]:
    """Each (kind, speed, players)'s median length in seconds, from its latest finished games:
    one query."""
    lengths: dict[Key, list[float]] = {}
    for kind, speed, players, started, finished in _latest():
        lengths.setdefault((kind, speed, players), []).append(
            max(0.0, (finished - started).total_seconds()))
    return {key: round(statistics.median(values)) for key, values in lengths.items()}


#: The latest :data:`SAMPLE` finished games of each (kind, speed, players), on PostgreSQL:
#: the groups found by skipping through the index ``games_finished_lengths`` from one group to
#: the next (a recursive query, one probe per group), then each group's latest games read from
#: it in order (``LATERAL ... LIMIT``): a few hundred index entries whatever the number of
#: games. The window function of :func:`_latest` sorts every finished game: on
#: ``bench/fill.py``'s database (100,000 finished games, 8 groups) 2.8 s cold, 1.1 s warm (a
#: sequential scan of the games and a sort spilled to disk); this, 24 ms cold, 11 ms warm
#: (``EXPLAIN ANALYZE`` of both, docs/performance.md).
_LATEST_SQL = """
WITH RECURSIVE kinds (kind, speed, seat_count) AS (
    (SELECT kind, speed, seat_count FROM games_game
      WHERE status = %(finished)s AND started_at IS NOT NULL AND finished_at IS NOT NULL
      ORDER BY kind, speed, seat_count LIMIT 1)
    UNION ALL
    SELECT later.kind, later.speed, later.seat_count FROM kinds, LATERAL (
        SELECT kind, speed, seat_count FROM games_game
         WHERE status = %(finished)s AND started_at IS NOT NULL AND finished_at IS NOT NULL
           AND (kind, speed, seat_count) > (kinds.kind, kinds.speed, kinds.seat_count)
         ORDER BY kind, speed, seat_count LIMIT 1) later
)
SELECT kinds.kind, kinds.speed, kinds.seat_count, latest.started_at, latest.finished_at
  FROM kinds, LATERAL (
    SELECT started_at, finished_at FROM games_game
     WHERE status = %(finished)s AND started_at IS NOT NULL AND finished_at IS NOT NULL
       AND kind = kinds.kind AND speed = kinds.speed AND seat_count = kinds.seat_count
     ORDER BY finished_at DESC LIMIT %(sample)s) latest
"""


def _latest() -> list[tuple[str, str, int, Any, Any]]:
    """The latest :data:`SAMPLE` finished games (started and ended) of each kind, speed and
    player count: (kind, speed, players, started_at, finished_at) of each: one query."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_LATEST_SQL, {"finished": Game.Status.FINISHED, "sample": SAMPLE})
            return list(cursor.fetchall())
    return list(Game.objects.filter(status=Game.Status.FINISHED, started_at__isnull=False,
                                    finished_at__isnull=False)
                .annotate(recent=Window(RowNumber(),
                                        partition_by=[F("kind"), F("speed"), F("seat_count")],
                                        order_by=F("finished_at").desc()))
                .filter(recent__lte=SAMPLE)
                .values_list("kind", "speed", "seat_count", "started_at", "finished_at"))


def length_estimates() -> dict[Key, int]:
    """Every (kind, speed, players)'s median length in seconds (absent: no finished game yet),
    from the cache, else read once and cached."""
    found = cache.get(CACHE_KEY)
    if isinstance(found, list):
        return {(kind, speed, players): seconds for kind, speed, players, seconds in found}
    estimates = _read()
    cache.set(CACHE_KEY, [[*key, seconds] for key, seconds in estimates.items()],
              CACHE_SECONDS)
    return estimates


def length_estimate(estimates: dict[Key, int], game: Any) -> int | None:
    """The estimated length in seconds of ``game`` (a :class:`Game`), or ``None`` when no
    finished game of its kind, speed and player count is known."""
    return estimates.get((game.kind, game.speed, game.seat_count))
