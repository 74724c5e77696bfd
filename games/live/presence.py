"""Whether a player has their game's table open in a live page: recorded by the player's
stream of the game when it opens and at each of its heartbeats (under uvicorn and Redis, and
under WSGI's polling stream alike), and by the table's page and its polling, as a
:class:`TableWatch` row whose ``until`` lapses :func:`window` after the last of them. One table
for every process (the web server, the stream server, the worker that pushes), with or without
Redis.

A page closed counts for at most :func:`window` more; a tab left open in the background counts
as long as its browser keeps its stream or its polling going."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.utils import timezone

from games.live.models import TableWatch


def window() -> dt.timedelta:
    """How long a sign of the page counts: two heartbeats of its stream and its reconnection
    delay (a WSGI stream ends every ``STREAM_WSGI_HOLD_SECONDS`` and comes back after
    ``STREAM_RETRY_SECONDS``), at least the hidden tab's polling (30 s) and a margin."""
    heartbeat = float(getattr(settings, "STREAM_HEARTBEAT_SECONDS", 15.0))
    retry = float(getattr(settings, "STREAM_RETRY_SECONDS", 3.0))
    return dt.timedelta(seconds=max(2 * heartbeat + retry, 30.0) + 5)


def watching(user_id, game_id, now: dt.datetime | None = None) -> None:
    """``user_id`` has ``game_id``'s table open now: one statement (an INSERT that updates the
    row it meets, ``ON CONFLICT DO UPDATE``), whatever was there before."""
    if user_id is None:
        return
    until = (now or timezone.now()) + window()
    TableWatch.objects.bulk_create(
        [TableWatch(user_id=user_id, game_id=game_id, until=until)], update_conflicts=True,
        unique_fields=["user", "game"], update_fields=["until"])


def watchers(pairs: set[tuple], now: dt.datetime | None = None) -> set[tuple]:
    """Those of the ``(user id, game id)`` pairs whose table is open in a live page now (one
    query)."""
    if not pairs:
        return set()
    now = now or timezone.now()
    users = {user for user, _game in pairs}
    games = {game for _user, game in pairs}
    wanted = {(user, str(game)) for user, game in pairs}
    found = TableWatch.objects.filter(user_id__in=users, game_id__in=games, until__gt=now)
    return {(user, str(game)) for user, game in found.values_list("user_id", "game_id")
            if (user, str(game)) in wanted}
