"""Deadlines: the timeout of a decision whose deadline passed, and the periodic sweep's share of
them.

A decision's timeout default (the rules' ``timeout_move``) is applied like any move, by actor
``timeout``, on the game locked. The sweep finds every due deadline, also those set while the
broker or the worker was down: each game is taken with ``SELECT … FOR UPDATE SKIP LOCKED``, so
several workers share the work and never play a timeout twice (a game locked by a move or by
another sweep is left for the next round); a burst of them is written a batch of games at a
time, in a few queries per batch (:func:`games.core.services.write.commit_many`).

Locking duties: :func:`play_timeout` locks its game; :func:`resolve_games` takes its games with
``SKIP LOCKED``, each batch in one transaction.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.core import dispatch, selectors
from games.core.catalog import get_game
from games.core.errors import DecisionGone, GameNotActive
from games.core.services.write import Table, commit, commit_many, finish, open_table
from games.models import Game, MoveRecord, PendingDecision

logger = logging.getLogger(__name__)

Actor = MoveRecord.Actor

#: Due games per fan-out task when many deadlines fall due at once.
FANOUT_CHUNK = 50
#: Games whose timeouts are played in one transaction (see :func:`resolve_games`).
RESOLVE_BATCH = 25
#: Deadlines anticipated together share a task if they fall within this of the first one.
ANTICIPATE_SPREAD = dt.timedelta(milliseconds=500)


def play_timeout(game_id, pending_id: int, *, actor: str = Actor.TIMEOUT, by_user=None,
                 force: bool = False) -> int | None:
    """Play the timeout default (rules §10) of one pending decision whose deadline passed.

    Idempotent and safe late: under the game lock, acts only if that very decision (its row, by
    id) is still awaited, the game is active and, unless ``force`` (a moderator's "play the
    timeout now"), its deadline has passed. Returns the new seq, or ``None`` when there was
    nothing to do.
    """
    with transaction.atomic():
        table = open_table(game_id)
        row = next((row for row in table.pending if row.pk == pending_id), None)
        if row is None or table.game.status != Game.Status.ACTIVE:
            return None
        if not force and row.deadline > timezone.now():
            return None
        move = get_game(table.game.kind).timeout_move(table.state, row.player)
        table.play(row.player, move, actor=actor, by_user=by_user)
        commit(table)
        return table.game.seq


def play_timeout_now(game_id, player: int, *, expected_seq: int | None = None,
                     actor: str = Actor.MODERATOR, by_user=None) -> tuple[int, str]:
    """Play, now, the timeout default of the decision awaited from ``player`` (a moderator's
    "timeout now"): under the game lock, :class:`StaleSeq` if ``expected_seq`` is given and the
    game moved on, :class:`DecisionGone` if nothing is awaited from ``player`` any more (it was
    answered or timed out meanwhile). Returns the new seq and the decision that timed out."""
    with transaction.atomic():
        table = open_table(game_id, expected_seq=expected_seq)
        if table.game.status != Game.Status.ACTIVE:
            raise GameNotActive(_("This game is %(status)s: no decision is awaited.")
                                % {"status": table.game.get_status_display()})
        row = next((row for row in table.pending if row.player == player), None)
        if row is None:
            raise DecisionGone(_("No decision is awaited from seat %(seat)s now: it was "
                                 "answered meanwhile, or another one is awaited.")
                               % {"seat": player})
        move = get_game(table.game.kind).timeout_move(table.state, row.player)
        table.play(row.player, move, actor=actor, by_user=by_user)
        commit(table)
        return table.game.seq, row.decision


def due_game_ids(now: dt.datetime | None = None, limit: int = 200, among=None) -> list:
    """Active games with a decision past its deadline (``among`` these ids, if given)."""
    now = now or timezone.now()
    rows = PendingDecision.objects.filter(deadline__lte=now, remaining__isnull=True,
                                          game__status=Game.Status.ACTIVE)
    if among is not None:
        rows = rows.filter(game_id__in=list(among))
    return list(rows.order_by("game_id").values_list("game_id", flat=True).distinct()[:limit])


def resolve_due_deadlines(now: dt.datetime | None = None, limit: int = 200,
                          budget: float = 0.0) -> int:
    """Play the timeout of every decision past its deadline in active games; returns how many.

    With a ``budget`` (seconds), rounds of ``limit`` games go on while due deadlines remain and
    time is left (a burst of deadlines is worked through at once; another worker's sweep shares
    it).
    """
    started = time.monotonic()
    played = _resolve_in_batches(due_game_ids(now, limit), now)
    while played and budget and time.monotonic() - started < budget:
        more = _resolve_in_batches(due_game_ids(now, limit), now)
        if not more:
            break
        played += more
    return played


def fan_out_due_deadlines(now: dt.datetime | None = None, limit: int = 5000) -> int:
    """Many games due at once: hand them out in chunks to tasks, so every worker process
    starts on them at once (each game is still taken with SKIP LOCKED). Returns how many
    games were handed out; a broker that does not answer leaves them to the sweep itself."""
    ids = [str(game_id) for game_id in due_game_ids(now, limit)]
    # (the first chunk is the sweep's own)
    return dispatch.resolve_games([(ids[start:start + FANOUT_CHUNK], None)
                                   for start in range(FANOUT_CHUNK, len(ids), FANOUT_CHUNK)])


def anticipate_deadlines(now: dt.datetime | None = None, horizon: float | None = None,
                         limit: int = 5000) -> int:
    """Deadlines that fall due before the next sweep (within ``horizon`` seconds, by default
    ``SWEEP_SECONDS``) get a task now, run by the broker when they pass: a deadline is resolved
    when it falls due, not up to a sweep interval later. Games go in chunks of at most
    :data:`FANOUT_CHUNK` whose deadlines lie within :data:`ANTICIPATE_SPREAD`; a chunk runs at
    its last deadline.

    Nothing depends on these tasks: a chunk run twice, late or never leaves its games to the
    next sweep, and a game another task already resolved is skipped. Returns how many games
    were handed out.
    """
    now = now or timezone.now()
    horizon = settings.SWEEP_SECONDS if horizon is None else horizon
    firsts: dict[str, dt.datetime] = {}
    for game_id, deadline in (PendingDecision.objects
                              .filter(deadline__gt=now,
                                      deadline__lte=now + dt.timedelta(seconds=horizon),
                                      remaining__isnull=True, game__status=Game.Status.ACTIVE)
                              .order_by("deadline").values_list("game_id", "deadline")[:limit]):
        firsts.setdefault(str(game_id), deadline)
    chunks: list[list[tuple[str, dt.datetime]]] = []
    for game_id, deadline in firsts.items():  # in deadline order
        if (not chunks or len(chunks[-1]) >= FANOUT_CHUNK
                or deadline - chunks[-1][0][1] > ANTICIPATE_SPREAD):
            chunks.append([])
        chunks[-1].append((game_id, deadline))
    return dispatch.resolve_games([([game_id for game_id, _ in chunk], chunk[-1][1])
                                   for chunk in chunks])


def resolve_games(game_ids, now: dt.datetime | None = None) -> int:
    """Play the due timeouts of these games (each taken with SKIP LOCKED: a game another
    worker holds is left to it); returns how many were played.

    Games are resolved :data:`RESOLVE_BATCH` to a transaction, their timeouts written together
    (a few queries and one commit for them all; their mails and bot tasks are sent once it is
    made). If one of them fails, the batch is undone and its games are resolved one by one, so
    a broken game cannot hold the others back (it is logged, and left due for the next sweep).
    """
    # One query first: the games with nothing due (resolved by another task, a duplicate
    # chunk, a late run) are not locked one by one.
    ids = [str(game_id) for game_id in game_ids]
    due = {str(game_id) for game_id in due_game_ids(now, len(ids), among=ids)} if ids else set()
    return _resolve_in_batches([game_id for game_id in ids if game_id in due], now)


def _resolve_in_batches(ids: list, now: dt.datetime | None) -> int:
    """:func:`resolve_games` for games known to have something due."""
    played = 0
    for start in range(0, len(ids), RESOLVE_BATCH):
        batch = ids[start:start + RESOLVE_BATCH]
        try:
            with transaction.atomic():
                played += _resolve_batch(batch, now)
            continue
        except Exception:
            logger.warning("a batch of due deadlines failed: its games are resolved one by one",
                           exc_info=True)
        for game_id in batch:
            try:
                with transaction.atomic():
                    played += _resolve_batch([game_id], now)
            except Exception:
                logger.exception("could not resolve the due deadlines of game %s", game_id)
    return played


def _resolve_batch(game_ids: list, now: dt.datetime | None) -> int:
    """Inside a transaction: lock these games (SKIP LOCKED) and play their due timeouts, in
    deadline order within each game. Each round plays one timeout in every game that has one
    due, all written together (:func:`commit_many`); a timeout may close a window or end the
    game, so the rows are looked at again after each round (in memory: they come back from the
    commit). A few queries per round, whatever the number of games."""
    games = list(Game.objects.select_for_update(skip_locked=True, of=("self",))
                 .select_related("snapshot").filter(pk__in=game_ids, status=Game.Status.ACTIVE)
                 .order_by())
    if not games:
        return 0
    now = now or timezone.now()
    rows: dict[Any, list[PendingDecision]] = {game.pk: [] for game in games}
    for row in PendingDecision.objects.filter(game_id__in=list(rows)).order_by():
        rows[row.game_id].append(row)
    tables: dict[Any, Table] = {}
    played = 0
    for _round in range(max(game.seat_count for game in games) * 2):
        steps = []
        for game in games:
            table = tables.get(game.pk)
            pending = table.pending if table is not None else rows[game.pk]
            due = [row for row in pending if row.remaining is None and row.deadline <= now]
            if not due or game.status != Game.Status.ACTIVE:
                continue
            if table is None:
                if not tables:  # read once, for every game, only if something is due
                    seats = selectors.seats_by_game(games)
                table = tables[game.pk] = Table(game=game, seats=seats[game.pk],
                                                _pending=rows[game.pk])
            row = min(due, key=lambda row: (row.deadline, row.seat))
            move = get_game(game.kind).timeout_move(table.state, row.player)
            table.play(row.player, move, actor=Actor.TIMEOUT)
            steps.append(table)
        if not steps:
            break
        commit_many(steps)
        played += len(steps)
    finish(list(tables.values()))
    return played
