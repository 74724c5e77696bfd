"""The notification outbox's subscriptions to the write path's events (:mod:`games.core.events`),
connected in :class:`games.notify.apps.NotifyConfig`. Each writes its messages' rows in the
transaction of their cause (:mod:`games.notify.outbox`)."""

from __future__ import annotations

from games.core import events
from games.models import Notification
from games.notify import outbox


@events.subscribe(events.DecisionsAwaited)
def decisions_awaited(event: events.DecisionsAwaited) -> None:
    """A message for each new decision awaited from a human player who wants mail (delivered by
    the sweep, which folds a game's decision mails)."""
    notes = outbox.decision_notes(event.games)
    if notes:
        Notification.objects.bulk_create(notes, ignore_conflicts=True)


@events.subscribe(events.GameStarted)
def game_started(event: events.GameStarted) -> None:
    outbox.game_started(event.game, event.seats)


@events.subscribe(events.GameEnded)
def game_ended(event: events.GameEnded) -> None:
    outbox.game_ended(event.game, event.seats)


@events.subscribe(events.SeatAbsent)
def seat_absent(event: events.SeatAbsent) -> None:
    outbox.marked_absent(event.game, event.seat)


@events.subscribe(events.MailHandled)
def mail_handled(event: events.MailHandled) -> None:
    outbox.mail_reply(event.row)


@events.subscribe(events.WebhookDisabled)
def webhook_disabled(event: events.WebhookDisabled) -> None:
    outbox.webhook_disabled(event.endpoint)
