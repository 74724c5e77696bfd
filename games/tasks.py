"""Celery tasks of the games app: thin, taking ids, idempotent, safe to run twice or late.

Only the worker imports this module (Celery's autodiscovery); the rest of the site sends these
tasks by name through :mod:`games.core.dispatch`.
"""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from games.core import dispatch, services
from games.core.services import ratings
from games.mail import receive as inbound
from games.notify import delivery, digests, outbox, push_delivery
from games.webhooks import endpoints as webhooks


@shared_task(name=dispatch.PLAY_BOTS, ignore_result=True, acks_late=True)
def play_bots(game_id: str, seq: int) -> int:
    """Play the bots' pending decisions of ``game_id`` scheduled at ``seq``: a game that moved
    on (or ended) since is left alone, and each move is sent with ``expected_seq``."""
    return services.play_bots(game_id, seq)


@shared_task(name=dispatch.RESOLVE_DEADLINE, ignore_result=True, acks_late=True)
def resolve_deadline(game_id: str, pending_id: int) -> int | None:
    """The countdown of one pending decision: play its timeout if it is still awaited and due
    (a decision answered, replaced, paused or extended meanwhile is left alone)."""
    return services.play_timeout(game_id, pending_id)


@shared_task(name=dispatch.RESOLVE_GAMES, ignore_result=True, acks_late=True)
def resolve_games(game_ids: list[str]) -> int:
    """A share of a burst of due deadlines, or of the deadlines falling due before the next
    sweep."""
    return services.resolve_games(game_ids)


@shared_task(name=dispatch.DELIVER_NOTIFICATION, ignore_result=True, acks_late=True)
def deliver_notification(notification_id: int) -> str:
    return delivery.deliver(notification_id)


@shared_task(name=dispatch.DELIVER_QUEUED, ignore_result=True, acks_late=True)
def deliver_queued(keys: list[str]) -> dict[int, str]:
    """The messages one commit queued, by their dedupe keys (those already delivered, or not
    due, are left alone)."""
    return delivery.deliver_batch(keys=keys)


@shared_task(name=dispatch.DELIVER_PUSHES, ignore_result=True, acks_late=True)
def deliver_pushes(notification_ids: list[int]) -> dict[int, str]:
    """Push these outbox messages to their users' devices (those pushed already, skipped, or
    not due again yet, are left alone)."""
    return push_delivery.deliver(notification_ids)


@shared_task(name=dispatch.DELIVER_WEBHOOKS, ignore_result=True, acks_late=True)
def deliver_webhooks(ids: list[str]) -> dict[str, str]:
    """Post the webhook deliveries one commit queued (those delivered already, or not due
    again yet, are left alone)."""
    return webhooks.deliver(ids)


@shared_task(name=dispatch.REFRESH_SNAPSHOT, ignore_result=True, acks_late=True)
def refresh_snapshot(game_id: str) -> bool:
    """A read found the game's snapshot missing or behind: store the current one."""
    return services.refresh_snapshot(game_id)


@shared_task(name="games.sweep", ignore_result=True)
def sweep() -> dict[str, int]:
    """The periodic sweep (Celery beat): deadlines falling due before the next sweep, due
    deadlines, lost bot turns, reminders, undelivered messages, expired idempotency keys (the
    webhooks have a sweep of their own, on their own queue: :func:`webhook_sweep`).
    Everything here is also safe to run twice at once."""
    return {
        "anticipated": services.anticipate_deadlines(),
        "handed_out": services.fan_out_due_deadlines(),
        "timeouts": services.resolve_due_deadlines(budget=settings.SWEEP_SECONDS * 4),
        "bots": services.play_stale_bots(),
        "reminders": outbox.queue_reminders(),
        "delivered": delivery.deliver_due(),
        "pushed": push_delivery.deliver_due(),
        "idempotency_keys": services.forget_old_keys(),
    }


@shared_task(name="games.webhook_sweep", ignore_result=True)
def webhook_sweep() -> int:
    """The webhooks' periodic sweep (queue ``webhooks``): due retries, and posts whose task was
    lost. Safe to run twice at once."""
    return webhooks.deliver_due()


@shared_task(name="games.forget_webhook_deliveries", ignore_result=True)
def forget_webhook_deliveries() -> int:
    """Daily: the deliveries made or abandoned longer than ``WEBHOOK_KEEP_DAYS`` ago deleted
    (safe to run twice or late)."""
    return webhooks.forget_old()


@shared_task(name="games.forget_inbound_mail", ignore_result=True)
def forget_inbound_mail() -> int:
    """Daily: inbound mails past ``MAIL_KEEP_ANSWERED_DAYS`` (answered ones) or
    ``MAIL_KEEP_IGNORED_DAYS`` (ignored ones) deleted (safe to run twice or late)."""
    return inbound.forget_old()


@shared_task(name="games.chat_digest", ignore_result=True)
def chat_digest() -> int:
    """The daily "new messages at your table" mails (Celery beat, once a day): safe to run
    twice or late (one digest per user and day; what each went through is kept)."""
    return digests.queue_chat_digests()


@shared_task(name="games.refresh_reliability", ignore_result=True)
def refresh_reliability() -> int:
    """Daily, just after midnight UTC: every player's reliability of the day stored (the
    figures every seat shows; safe to run twice or late: a day's figures never change)."""
    return ratings.refresh_reliability()
