"""The webhooks' outbox's subscriptions to the write path's events (:mod:`games.core.events`),
connected in :class:`games.webhooks.apps.WebhooksConfig`: a delivery row for each active
endpoint of each user concerned, written in the transaction of its cause
(:mod:`games.webhooks.outbox`)."""

from __future__ import annotations

from games.core import events
from games.webhooks import outbox


@events.subscribe(events.DecisionsAwaited)
def decisions_awaited(event: events.DecisionsAwaited) -> None:
    outbox.decisions_awaited(event.games)


@events.subscribe(events.GameStarted)
def game_started(event: events.GameStarted) -> None:
    outbox.game_started(event.game, event.seats)


@events.subscribe(events.GameEnded)
def game_ended(event: events.GameEnded) -> None:
    outbox.game_ended(event.game, event.seats)
