"""Web Push from the outbox: when the outbox writes a message that a push may carry (a decision
awaits, a deadline is near, a game starts or ends), one :class:`~games.webpush.models.PushDelivery`
row per device of its user that wants that kind, in the same transaction, due at once (pushes
are neither debounced nor folded, unlike the mails); after the commit a task posts them
(:mod:`games.notify.push_delivery`), and the sweep posts those whose task was lost. A row is
unique per (device, message): a cause pushed once per device, whatever runs twice.

The user's choice is read twice: here (nothing is queued for a kind they switched off) and just
before the post (switched off meanwhile: skipped)."""

from __future__ import annotations

from django.utils import timezone

from games.core import dispatch
from games.models import Notification
from games.webpush import service
from games.webpush.models import PushDelivery, PushSubscription

Kind = Notification.Kind

#: The messages a push carries, and the user's preference (``accounts.User``) for each.
PREFERENCE = {
    Kind.YOUR_TURN: "push_decisions", Kind.CHALLENGE: "push_decisions",
    Kind.POWER: "push_decisions", Kind.REMINDER: "push_reminders",
    Kind.STARTED: "push_games", Kind.ENDED: "push_games",
}


def wants(user, kind: str) -> bool:
    """Whether ``user`` (read now) wants ``kind`` pushed to their devices, if they have any."""
    field = PREFERENCE.get(kind)
    return bool(field and user.has_push and getattr(user, field, False))


def queue(rows: list[Notification], users: set | None = None) -> int:
    """Push deliveries for the messages ``rows`` (just written, maybe without their pks: they
    are found by their ``dedupe_key``), to every device of their users that wants their kind.
    ``users``: the users of ``rows`` who may have devices (``None``: look). Due now, posted by a
    task after the commit. Returns how many rows were written."""
    if not service.enabled():
        return 0
    wanted = [row for row in rows if row.kind in PREFERENCE
              and (users is None or row.user_id in users)]
    if not wanted:
        return 0
    devices: dict[int, list[tuple[int, dict[str, bool]]]] = {}
    for pk, user_id, *choices in (PushSubscription.objects.filter(
            user_id__in={row.user_id for row in wanted})
            .values_list("pk", "user_id", "user__push_decisions", "user__push_reminders",
                         "user__push_games")):
        preferences = dict(zip(("push_decisions", "push_reminders", "push_games"), choices,
                               strict=True))
        devices.setdefault(user_id, []).append((pk, preferences))
    wanted = [row for row in wanted if any(prefs[PREFERENCE[row.kind]]
                                           for _pk, prefs in devices.get(row.user_id, []))]
    if not wanted:
        return 0
    ids = dict(Notification.objects.filter(dedupe_key__in=[row.dedupe_key for row in wanted])
               .values_list("dedupe_key", "pk"))
    now = timezone.now()
    deliveries = [PushDelivery(subscription_id=pk, notification_id=ids[row.dedupe_key],
                               next_attempt_at=now)
                  for row in wanted if row.dedupe_key in ids
                  for pk, prefs in devices[row.user_id] if prefs[PREFERENCE[row.kind]]]
    PushDelivery.objects.bulk_create(deliveries, ignore_conflicts=True)
    dispatch.deliver_pushes(sorted({delivery.notification_id for delivery in deliveries}))
    return len(deliveries)
