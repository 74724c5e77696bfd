"""Posting the outbox's pushes (:mod:`games.notify.pushes`) to the devices' push services.

Like the mails: a row is taken with ``SELECT … FOR UPDATE SKIP LOCKED`` while ``pending`` and
due, marked ``sending`` before its post and ``sent`` right after; a failed post is retried with
the mails' backoff (:func:`games.notify.delivery.backoff`), up to their
:data:`~games.notify.delivery.MAX_ATTEMPTS`; a post interrupted by its worker's end is made
again (a device shows a repeated push in place of the first: same ``tag``, and the push
service replaces one it still holds: same ``Topic``). A push service that answers 404 or 410
says the device is gone: its subscription is deleted (and its deliveries with it).

Just before the post, a push is skipped if its user switched that kind off, muted the game, is
no longer active, has the game's table open in a live page (:mod:`games.live.presence`), or if
its decision was answered or the game is no longer under way.

What a push says (:func:`payload`), in its user's language: the game's name, the decision's
question (the kit's, as the table's banner asks it, without its context: no card), the time
left. Its ``id`` is the outbox message's (``Notification``), the same on each of the user's
devices and at every attempt; ``cause`` its ``dedupe_key``."""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from games.core import catalog, dispatch
from games.core.kit import GameKit, time_left
from games.live import presence
from games.models import Game, Notification, Seat
from games.notify import pushes
from games.notify.delivery import (
    DECISION_KINDS,
    MAX_ATTEMPTS,
    SENDING_STALE_AFTER,
    backoff,
    decision_of,
    live_decisions,
    sweep_deliveries,
)
from games.webpush import service, subscriptions
from games.webpush.models import PushDelivery

logger = logging.getLogger(__name__)

Kind = Notification.Kind
Status = PushDelivery.Status

#: How long a push about a game's start or end waits at its push service for an offline device.
NEWS_TTL = 24 * 3600


def payload(note: Notification, now: dt.datetime | None = None) -> dict[str, Any]:
    """What the device shows, in the user's language: public facts only."""
    now = now or timezone.now()
    game = note.game
    kit = (catalog.find_kit(game.kind) if game is not None else None) or GameKit()
    ctx = note.context or {}
    deadline = dt.datetime.fromisoformat(ctx["deadline"]) if ctx.get("deadline") else None
    with translation.override(note.user.language or settings.LANGUAGE_CODE):
        name = _("“%(name)s”") % {"name": game.title if game is not None else "?"}
        decision = ctx.get("decision", "")
        if note.kind in DECISION_KINDS:
            body = _("Your turn at %(game)s: %(question)s") % {
                "game": name, "question": kit.decision_question(decision)}
        elif note.kind == Kind.REMINDER:
            body = _("Your deadline is near at %(game)s: %(question)s") % {
                "game": name, "question": kit.decision_question(decision)}
        elif note.kind == Kind.STARTED:
            body = _("%(game)s has started.") % {"game": name}
        else:
            body = (_("%(game)s is over: you won!") if ctx.get("won")
                    else _("%(game)s is over.")) % {"game": name}
        if deadline is not None:
            body = f"{body} — {time_left(deadline, now)}"
        title = str(kit.name) if game is not None and kit.name else _("Mascarade Online")
    return {
        "id": note.pk, "cause": note.dedupe_key, "kind": note.kind, "title": title,
        "body": body, "game": str(note.game_id) if note.game_id else None,
        "decision": decision or None, "deadline": ctx.get("deadline"),
        "url": f"/games/{note.game_id}/" if note.game_id else "/",
        "tag": f"game-{note.game_id}" if note.game_id else f"note-{note.pk}",
    }


def _ttl(note: Notification, now: dt.datetime) -> int:
    deadline = note.context.get("deadline") if note.context else None
    if deadline and note.kind in (*DECISION_KINDS, Kind.REMINDER):
        left = (dt.datetime.fromisoformat(deadline) - now).total_seconds()
        return max(60, int(left))
    return NEWS_TTL


def _skip_reasons(rows: list[PushDelivery], now: dt.datetime) -> dict[int, str]:
    """Why some of these pushes should not go (a few queries for the whole batch)."""
    notes = [row.notification for row in rows]
    games = {note.game_id for note in notes if note.game_id}
    users = {note.user_id for note in notes}
    muted = set(Seat.objects.filter(game_id__in=games, user_id__in=users, muted=True)
                .values_list("game_id", "user_id")) if games else set()
    awaited = [note for note in notes if note.kind in (*DECISION_KINDS, Kind.REMINDER)]
    live = live_decisions(awaited)
    watched = presence.watchers({(note.user_id, note.game_id) for note in notes
                                 if note.game_id}, now)
    reasons = {}
    for row in rows:
        note, user = row.notification, row.notification.user
        reason = ""
        if not user.is_active or user.blocked_reason(now):
            reason = "inactive user"
        elif not pushes.wants(user, note.kind):
            reason = "push off for this kind"
        elif (note.game_id, user.pk) in muted:
            reason = "game muted"
        elif note.kind in (*DECISION_KINDS, Kind.REMINDER) and (
                decision_of(note) not in live or note.game.status != Game.Status.ACTIVE):
            reason = "decision no longer awaited"
        elif note.game_id and (user.pk, str(note.game_id)) in watched:
            reason = "table open in a live page"
        if reason:
            reasons[row.pk] = reason
    return reasons


def deliver(notification_ids: list[int] | None = None, limit: int = 100,
            now: dt.datetime | None = None) -> dict[int, str]:
    """Post the due pushes (those of these outbox messages, or the ``limit`` oldest due);
    returns what became of each row taken. Safe to run twice or late."""
    now = now or timezone.now()
    outcome: dict[int, str] = {}
    with transaction.atomic():
        qs = (PushDelivery.objects.select_for_update(skip_locked=True, of=("self",))
              .select_related("subscription", "notification", "notification__user",
                              "notification__game", "notification__game__created_by")
              .filter(status=Status.PENDING, next_attempt_at__lte=now))
        if notification_ids is not None:
            qs = qs.filter(notification_id__in=notification_ids)
        rows = list(qs.order_by("next_attempt_at", "pk")[:limit])
        if not rows:
            return outcome
        reasons = _skip_reasons(rows, now)
        skipped = [row for row in rows if row.pk in reasons]
        for row in skipped:
            row.status, row.last_error = Status.SKIPPED, reasons[row.pk]
            outcome[row.pk] = Status.SKIPPED
        PushDelivery.objects.bulk_update(skipped, ["status", "last_error"])
        sending = [row for row in rows if row.pk not in reasons]
        for row in sending:
            row.status, row.attempts, row.next_attempt_at = Status.SENDING, row.attempts + 1, now
        PushDelivery.objects.bulk_update(sending, ["status", "attempts", "next_attempt_at"])
    for row in sending:
        note = row.notification
        result = service.send(row.subscription, payload(note, now), ttl=_ttl(note, now),
                              topic=f"n{note.pk}",
                              urgency="normal" if note.kind in (Kind.STARTED, Kind.ENDED)
                              else "high")
        outcome[row.pk] = _record(row, result)
    return outcome


def _record(row: PushDelivery, result: service.Outcome) -> str:
    """What came of one post, recorded before the next."""
    now = timezone.now()
    if result.ok:
        PushDelivery.objects.filter(pk=row.pk).update(
            status=Status.SENT, sent_at=now, last_status_code=result.status, last_error="")
        type(row.subscription).objects.filter(pk=row.subscription_id).update(last_used_at=now)
        return Status.SENT
    if result.gone:
        logger.info("push subscription %s gone (%s): deleted", row.subscription_id,
                    result.status)
        subscriptions.forget(row.subscription_id)
        return "gone"
    failed = row.attempts >= MAX_ATTEMPTS
    logger.warning("push %s: attempt %s failed: %s", row.pk, row.attempts, result.error)
    retry_at = now + backoff(row.attempts)
    PushDelivery.objects.filter(pk=row.pk).update(
        status=Status.FAILED if failed else Status.PENDING, next_attempt_at=retry_at,
        last_status_code=result.status, last_error=result.error[:2000])
    if not failed:
        transaction.on_commit(lambda: _retry_later(row.notification_id, retry_at))
    return Status.FAILED if failed else Status.PENDING


def _retry_later(notification_id: int, when: dt.datetime) -> None:
    dispatch.send(dispatch.DELIVER_PUSHES, [[notification_id]], eta=when)


def recover_interrupted(now: dt.datetime) -> int:
    """Pushes left ``sending`` for the mails' :data:`SENDING_STALE_AFTER`: their worker
    stopped mid-post; made again (at least once), or failed past their last attempt."""
    stale = PushDelivery.objects.filter(status=Status.SENDING,
                                        next_attempt_at__lt=now - SENDING_STALE_AFTER)
    note = "Interrupted during delivery: it may have gone out; sent again."
    given_up = stale.filter(attempts__gte=MAX_ATTEMPTS).update(status=Status.FAILED,
                                                               last_error=note)
    retried = stale.update(status=Status.PENDING, next_attempt_at=now, last_error=note)
    return given_up + retried


def deliver_due(now: dt.datetime | None = None, batch: int = 100, budget: float = 10.0) -> int:
    """The sweep's part: the due pushes (their task lost, a retry due), batch after batch for
    at most ``budget`` seconds. Returns how many went."""
    return sweep_deliveries(recover_interrupted, deliver, Status.SENT, now, batch, budget)
