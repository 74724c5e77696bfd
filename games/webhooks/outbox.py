"""The webhooks' outbox: what concerns a user with an active endpoint ("a decision awaits you", "a
game of yours started", "... ended") written as :class:`~games.models.WebhookDelivery` rows in
the transaction of its cause, one per endpoint, and a task asked to post them once it commits
(:mod:`games.webhooks.endpoints` posts them; the sweep posts those whose task was lost).

The functions that take an event subscribe to the write path's events (:mod:`games.core.events`),
in the transaction of their cause (this module is imported by
:class:`games.webhooks.apps.WebhooksConfig`'s ``ready()``); they run for every move. A move
whose players have no endpoint costs nothing here, not one statement: the seats are read with
their users (``selectors.seats_of``), and each user carries ``has_webhooks``, kept by the
webhooks' service (an endpoint made, turned on or off, deleted). Only when one of them has an
endpoint are they read (one ``SELECT``) and the rows written (one ``INSERT``).

A body says only what its reader could see at the table: the game, its kind, the seq, the seat
and kind of a decision awaited and its deadline (every player sees who is awaited, for what,
until when), the status, the winning seats of a game over. It is serialized once, here, and the
very text is posted (and signed) at every attempt.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable
from typing import Any

import orjson
from django.utils import timezone

from games.core import dispatch, events
from games.models import Seat, WebhookDelivery, WebhookEndpoint

Type = WebhookDelivery.Type


def iso(value: dt.datetime | None) -> str | None:
    """ISO 8601 in UTC with a ``Z``, to the second (as every date of the API)."""
    if value is None:
        return None
    return value.astimezone(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def body(delivery_id: uuid.UUID, event_type: str, created: dt.datetime,
         data: dict[str, Any]) -> str:
    """The JSON text posted: ``{"id", "type", "created", "data"}``."""
    return orjson.dumps({"id": str(delivery_id), "type": event_type, "created": iso(created),
                         "data": data}).decode()


def _users_with_webhooks(seats: Iterable[Seat]) -> set[int]:
    """The seats' users who may have an active endpoint: read from the users loaded with the
    seats (no query); a seat whose user was not loaded with it counts as maybe."""
    users = set()
    for seat in seats:
        if seat.user_id is None:
            continue
        if not Seat.user.is_cached(seat) or seat.user.has_webhooks:
            users.add(seat.user_id)
    return users


def _queue(events: list[tuple[int, str, str, dict[str, Any]]]) -> list[WebhookDelivery]:
    """``(user id, type, cause, data)`` events: a row for each active endpoint of each user, one
    ``SELECT`` and one ``INSERT`` for them all (a cause already queued for an endpoint is
    skipped), and one task for them after the commit."""
    if not events:
        return []
    endpoints: dict[int, list[int]] = {}
    for endpoint_id, user_id in (WebhookEndpoint.objects
                                 .filter(user_id__in={e[0] for e in events}, active=True)
                                 .order_by("pk").values_list("pk", "user_id")):
        endpoints.setdefault(user_id, []).append(endpoint_id)
    if not endpoints:
        return []
    now = timezone.now()
    rows = []
    for user_id, event_type, cause, data in events:
        for endpoint_id in endpoints.get(user_id, ()):
            pk = uuid.uuid4()
            rows.append(WebhookDelivery(id=pk, endpoint_id=endpoint_id, event_type=event_type,
                                        cause=cause, body=body(pk, event_type, now, data),
                                        next_attempt_at=now, created_at=now))
    if rows:
        WebhookDelivery.objects.bulk_create(rows, ignore_conflicts=True)
        dispatch.deliver_webhooks([str(row.pk) for row in rows])
    return rows


@events.subscribe(events.DecisionsAwaited)
def decisions_awaited(event: events.DecisionsAwaited) -> None:
    """New decisions awaited from human players (bots' and absent players' played by a bot
    excepted), in several games."""
    queued = []
    for game, rows, seats in event.games:
        wanting = _users_with_webhooks(seats)
        if not wanting:
            continue
        queued += [(row.user_id, Type.DECISION, f"decision:{row.pk}",
                    {"game": str(game.pk), "kind": game.kind, "seq": row.seq, "seat": row.seat,
                     "decision": row.decision, "deadline": iso(row.deadline)})
                   for row in rows if row.user_id in wanting and not row.bot]
    _queue(queued)


@events.subscribe(events.GameStarted)
def game_started(event: events.GameStarted) -> None:
    game, seats = event.game, event.seats
    data = {"game": str(game.pk), "kind": game.kind, "status": game.status}
    _queue([(user_id, Type.GAME_STARTED, f"started:{game.pk}", data)
            for user_id in sorted(_users_with_webhooks(seats))])


@events.subscribe(events.GameEnded)
def game_ended(event: events.GameEnded) -> None:
    game, seats = event.game, event.seats
    data = {"game": str(game.pk), "kind": game.kind, "status": game.status,
            "winners": list(game.winners or [])}
    _queue([(user_id, Type.GAME_ENDED, f"ended:{game.pk}", data)
            for user_id in sorted(_users_with_webhooks(seats))])


def ping(endpoint: WebhookEndpoint) -> WebhookDelivery:
    """A ``ping`` to one endpoint (its owner asked for it), posted once committed."""
    now = timezone.now()
    pk = uuid.uuid4()
    row = WebhookDelivery(id=pk, endpoint_id=endpoint.pk, event_type=Type.PING,
                          cause=f"ping:{pk}", next_attempt_at=now, created_at=now,
                          body=body(pk, Type.PING, now, {"webhook": endpoint.pk}))
    row.save(force_insert=True)
    dispatch.deliver_webhooks([str(pk)])
    return row
