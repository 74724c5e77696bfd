"""Work for the Celery worker, sent by task name once the transaction that calls for it commits.

Services and notifications never import ``games.tasks`` (the worker's entry points, which import
them): they ask for work here, by the task's name. The task is looked up in the Celery app's
registry, filled by Celery's own autodiscovery (``app.loader.import_default_modules()``, which a
worker runs at its start and this module runs once in any other process), and sent through its
``apply_async``, so that the eager mode of the tests and their stand-ins apply; a name the
registry does not know goes to the broker as it is (``send_task``).

Nothing depends on a task arriving: every task is idempotent, safe to run twice or late, and the
periodic sweep finds whatever a lost task left (a due deadline, a bot's turn, a message). So a
broker that does not answer at once is reported, not waited for, and never fails the caller.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable

from celery import current_app
from django.db import transaction

logger = logging.getLogger(__name__)

#: A broker that does not answer at once is reported, not waited for (moves never fail on it).
QUICK_RETRY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}

PLAY_BOTS = "games.play_bots"
RESOLVE_DEADLINE = "games.resolve_deadline"
RESOLVE_GAMES = "games.resolve_games"
DELIVER_QUEUED = "games.deliver_queued"
DELIVER_NOTIFICATION = "games.deliver_notification"
REFRESH_SNAPSHOT = "games.refresh_snapshot"
DELIVER_WEBHOOKS = "games.deliver_webhooks"
DELIVER_PUSHES = "games.deliver_pushes"


_discovered = False


def _discover() -> None:
    """Celery's autodiscovery of the apps' task modules, in this process (once)."""
    global _discovered
    _discovered = True
    current_app.loader.import_default_modules()


def send(name: str, args: list, *, eta: dt.datetime | None = None) -> bool:
    """Send the task ``name`` now; ``False`` (logged) if the broker did not take it."""
    try:
        task = current_app.tasks.get(name)
        if task is None and not _discovered:
            _discover()
            task = current_app.tasks.get(name)
        if task is not None:
            task.apply_async(args=args, eta=eta, retry_policy=QUICK_RETRY)
        else:
            current_app.send_task(name, args=args, eta=eta, retry_policy=QUICK_RETRY)
    except Exception:
        logger.exception("could not send the task %s %s; the sweep will do its work", name,
                         args)
        return False
    return True


def after_commit(name: str, args: list, *, eta: dt.datetime | None = None) -> None:
    """Send the task ``name`` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: send(name, args, eta=eta))


def play_bots(game_id, seq: int) -> None:
    """The bots' pending decisions of a game at ``seq``, after the commit."""
    after_commit(PLAY_BOTS, [str(game_id), seq])


def countdowns(game_id, rows: Iterable[tuple[int, dt.datetime]]) -> None:
    """A task at each deadline (``(pending id, deadline)`` pairs), after the commit."""
    rows = list(rows)
    game_id = str(game_id)

    def send_all() -> None:
        for pending_id, deadline in rows:
            if not send(RESOLVE_DEADLINE, [game_id, pending_id], eta=deadline):
                return

    transaction.on_commit(send_all)


def resolve_games(chunks: list[tuple[list[str], dt.datetime | None]]) -> int:
    """A task per chunk of game ids (run at its ``eta``, or now), sent now; how many games were
    handed out (a broker that does not answer leaves the rest to the sweep)."""
    handed = 0
    for ids, eta in chunks:
        if not send(RESOLVE_GAMES, [ids], eta=eta):
            break
        handed += len(ids)
    return handed


def deliver(keys: list[str], *, eta: dt.datetime | None = None) -> None:
    """Deliver the messages with these dedupe keys, after the commit (at ``eta``: a debounce)."""
    keys = list(keys)
    if keys:
        after_commit(DELIVER_QUEUED, [keys], eta=eta)


def deliver_webhooks(ids: list[str]) -> None:
    """Post these webhook deliveries (their ids), after the commit."""
    ids = list(ids)
    if ids:
        after_commit(DELIVER_WEBHOOKS, [ids])


def deliver_pushes(notification_ids: list[int]) -> None:
    """Push these messages (their ids) to their users' devices, after the commit."""
    ids = list(notification_ids)
    if ids:
        after_commit(DELIVER_PUSHES, [ids])


def refresh_snapshot(game_id) -> None:
    """Rebuild and store a game's snapshot (a read found it missing or behind)."""
    send(REFRESH_SNAPSHOT, [str(game_id)])
