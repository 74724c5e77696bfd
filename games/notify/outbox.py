"""The notification outbox: whatever causes a message (a decision now awaited, a game started
or ended, a seat marked absent, a deadline getting near, a moderator's action, a mail answered)
writes a :class:`~games.models.Notification` row *in the same transaction*: rolled back with it,
committed with it. Each row has a unique ``dedupe_key`` (one message per cause). After the commit
a Celery task is asked to deliver it (:mod:`games.notify.delivery`); if the broker is down the
row waits and the periodic sweep delivers it later. Decision mails and the answers to a player's
mails are due ``MAIL_DEBOUNCE_SECONDS`` after their cause, and their task is sent with that
``eta``: a burst of moves (the bots answering) gives one mail, with the decisions that stand at
its end (:func:`games.notify.delivery.deliver_batch` gathers them). The reminders are written by
the sweep, which delivers them just after.

What a message says comes from public facts only (the game's players, the kind of decision, its
deadline, the winners): never a card. The functions that take an event subscribe to the write
path's events (:mod:`games.core.events`), in the transaction of their cause: this module is
imported by :class:`games.notify.apps.NotifyConfig`'s ``ready()``.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.core import catalog, deadlines, dispatch, events
from games.models import Game, Notification, PendingDecision, Seat
from games.notify import pushes

logger = logging.getLogger(__name__)

Kind = Notification.Kind


Status = Notification.Status


DECISION_KINDS = (Kind.YOUR_TURN, Kind.CHALLENGE, Kind.POWER)


def mail_debounce() -> dt.timedelta:
    """How long a decision mail (or the answer to a mail) waits for the moves that follow its
    cause (``MAIL_DEBOUNCE_SECONDS``)."""
    return dt.timedelta(seconds=settings.MAIL_DEBOUNCE_SECONDS)


def _queue(rows: list[Notification], enqueue: bool = True,
           eta: dt.datetime | None = None, users: set | None = None) -> list[Notification]:
    """Insert (skipping causes already queued) and, with ``enqueue``, ask a worker for their
    delivery once committed, at ``eta`` if given (without, the sweep delivers them). Those a
    push carries are also queued for their users' devices (``users``: those of them who may
    have one; ``None``: look), due at once (:mod:`games.notify.pushes`)."""
    if not rows:
        return []
    created = Notification.objects.bulk_create(rows, ignore_conflicts=True)
    if enqueue:
        dispatch.deliver([row.dedupe_key for row in created], eta=eta)
    pushes.queue(created, users)  # (at once, to the devices that want them: no debounce)
    return created


def _decision_kind(game_kind: str, decision: str) -> str:
    """The mail kind of a decision, as the game's kit says (``GameKit.decision_mail``)."""
    kind = catalog.get_kit(game_kind).decision_mail(decision)[0]
    return kind if kind in DECISION_KINDS else Kind.YOUR_TURN


def _wants_mail(seat: Seat | None) -> bool:
    """A player who switched email off (and has no device that wants the decisions pushed), or
    muted this game, gets no message written at all."""
    return (seat is not None and seat.user_id is not None and not seat.muted
            and (seat.user.notify_email or pushes.wants(seat.user, Kind.YOUR_TURN)))


def _push_users(seats) -> set | None:
    """Those of ``seats``' users who have a device (read with the seats; ``None``: not read)."""
    if not all(seat.user_id is None or Seat.user.is_cached(seat) for seat in seats):
        return None
    return {seat.user_id for seat in seats if seat.user_id is not None and seat.user.has_push}


def _bank(game: Game, row: PendingDecision) -> dict:
    """In a game played with a time bank, what the seat's bank holds for this decision (its
    running time, the increment included): ``{"bank": seconds}``; else nothing."""
    return {"bank": row.clock_seconds} if deadlines.bank_of(game.options) is not None else {}


def decision_notes(games: list[tuple[Game, list[PendingDecision], list[Seat]]]
                   ) -> list[Notification]:
    """The messages of new decisions awaited from human players, in several games, not yet
    written. A message names its decision by game, player and ``seq`` (the seq at which it was
    first awaited: a decision kept from move to move keeps it, one replaced gets a new one),
    which is also its ``dedupe_key``: written once, whatever the transaction retries.

    Due :func:`mail_debounce` from now: the moves that follow within it are in the same mail."""
    due = timezone.now() + mail_debounce()
    notes = []
    for game, rows, seats in games:
        by_position = {seat.position: seat for seat in seats}
        notes += [Notification(user_id=row.user_id, game_id=game.pk,
                               kind=_decision_kind(game.kind, row.decision),
                               dedupe_key=f"decision:{game.pk}:{row.player}:{row.seq}",
                               next_attempt_at=due,
                               context={"decision": row.decision, "player": row.player,
                                        "deadline": row.deadline.isoformat(), "seq": row.seq,
                                        **_bank(game, row)})
                  for row in rows if row.user_id is not None and not row.bot
                  and _wants_mail(by_position.get(row.player))]
    return notes


@events.subscribe(events.DecisionsAwaited)
def decisions_awaited(event: events.DecisionsAwaited) -> None:
    """A message for each new decision awaited from a human player who wants mail, delivered by
    a task once the debounce has passed (one task for all of them; the sweep if it is lost)."""
    notes = decision_notes(event.games)
    if notes:
        users: set | None = set()
        for _game, _rows, seats in event.games:
            found = _push_users(seats)
            users = None if found is None or users is None else users | found
        _queue(notes, eta=notes[0].next_attempt_at, users=users)


@events.subscribe(events.MailHandled)
def mail_reply(event: events.MailHandled) -> None:
    """The answer to a player's mail that was handled (``games.mail.receive``), written in the
    transaction that handled it: what it did, then the table and the moves again. Due after
    the debounce, so that the decision the move brings (the bots answering) is in it."""
    inbound = event.row
    due = timezone.now() + mail_debounce()
    _queue([Notification(user_id=inbound.user_id, game_id=inbound.game_id, kind=Kind.MAIL_REPLY,
                         dedupe_key=f"mail_reply:{inbound.pk}", next_attempt_at=due,
                         context={"inbound": inbound.pk})], eta=due)


@events.subscribe(events.GameStarted)
def game_started(event: events.GameStarted) -> None:
    game, seats, now = event.game, event.seats, timezone.now()
    _queue([Notification(user_id=seat.user_id, game_id=game.pk, kind=Kind.STARTED,
                         dedupe_key=f"started:{game.pk}:{seat.user_id}", next_attempt_at=now)
            for seat in seats if seat.user_id is not None], users=_push_users(seats))


@events.subscribe(events.GameEnded)
def game_ended(event: events.GameEnded) -> None:
    game, seats, now = event.game, event.seats, timezone.now()
    names = {seat.position: seat.name for seat in seats}
    winners = [names.get(position, position) for position in game.winners or []]
    _queue([Notification(user_id=seat.user_id, game_id=game.pk, kind=Kind.ENDED,
                         dedupe_key=f"ended:{game.pk}:{seat.user_id}", next_attempt_at=now,
                         context={"winners": winners,
                                  "won": seat.position in (game.winners or [])})
            for seat in seats if seat.user_id is not None], users=_push_users(seats))


@events.subscribe(events.SeatAbsent)
def marked_absent(event: events.SeatAbsent) -> None:
    game, seat = event.game, event.seat
    if seat.user_id is None:
        return
    _queue([Notification(user_id=seat.user_id, game_id=game.pk, kind=Kind.ABSENT,
                         dedupe_key=f"absent:{game.pk}:{seat.position}:{game.seq}",
                         next_attempt_at=timezone.now(),
                         context={"policy": game.options.get("absent_policy", "bot")})])


@events.subscribe(events.PlayersInvited)
def players_invited(event: events.PlayersInvited) -> None:
    """Each player invited to a new table is told who asks them and where to sit down (unless
    they switched email off): once per table and player."""
    game, now = event.game, timezone.now()
    by = getattr(event.by, "username", "")
    _queue([Notification(user_id=row.user_id, game_id=game.pk, kind=Kind.INVITED,
                         dedupe_key=f"invited:{game.pk}:{row.user_id}", next_attempt_at=now,
                         context={"by": by})
            for row in event.invitations if row.user.notify_email])


def moderation_message(users, subject: str, body: str, *, cause: str, game=None,
                       **params: Any) -> None:
    """A moderator's action told to ``users`` (a seat given away, a game aborted, an account
    suspended…): through the outbox like every message (retries, no mail sent inside a web
    request), in each recipient's language at delivery: ``subject`` and ``body`` are messages
    marked with ``gettext_noop``, ``params`` fill ``body``'s ``%(name)s``. ``cause`` makes each
    recipient's message unique (``"log:<id>"``). Sent whatever the recipient's notification
    preferences: it is about their account or their seat, not a game's news."""
    now = timezone.now()
    _queue([Notification(user_id=user.pk, game_id=getattr(game, "pk", game),
                         kind=Kind.MODERATION, dedupe_key=f"moderation:{cause}:{user.pk}",
                         next_attempt_at=now,
                         context={"subject": subject, "body": body, "params": params})
            for user in users if user is not None])


@events.subscribe(events.WebhookDisabled)
def webhook_disabled(event: events.WebhookDisabled) -> None:
    """The owner of a webhook endpoint the site turned off (too many failed attempts in a row)
    is told which one, why (its last error), and how to turn it on again; in the transaction
    that turned it off. Sent whatever their notification preferences: it is about their
    account."""
    endpoint = event.endpoint
    disabled = endpoint.disabled_at or timezone.now()
    _queue([Notification(user_id=endpoint.user_id, kind=Kind.WEBHOOK_DISABLED,
                         dedupe_key=f"webhook_disabled:{endpoint.pk}:{disabled.timestamp():.0f}",
                         next_attempt_at=timezone.now(),
                         context={"webhook": endpoint.pk, "url": endpoint.url,
                                  "error": endpoint.last_error,
                                  "failures": endpoint.failures_in_row})])


def queue_reminders(now: dt.datetime | None = None, limit: int = 500) -> int:
    """"A deadline is near" for decisions at 80% of their time, once per decision (the row's
    ``remind_at`` is cleared); a decision already answered has no row left, so no reminder.
    The sweep calls it just before delivering what is due: no task of their own."""
    now = now or timezone.now()
    with transaction.atomic():
        # (of=self: the rows only, not the joined games, which moves would wait for)
        rows = list(PendingDecision.objects.select_for_update(skip_locked=True, of=("self",))
                    .filter(remind_at__lte=now, remaining__isnull=True, bot=False,
                            user__isnull=False, game__status=Game.Status.ACTIVE)
                    .order_by("remind_at")[:limit])
        if not rows:
            return 0
        _queue([Notification(user_id=row.user_id, game_id=row.game_id, kind=Kind.REMINDER,
                             dedupe_key=f"reminder:{row.pk}", next_attempt_at=now,
                             context={"decision": row.decision, "pending": row.pk,
                                      "deadline": row.deadline.isoformat()})
                for row in rows], enqueue=False)
        PendingDecision.objects.filter(pk__in=[row.pk for row in rows]).update(remind_at=None)
    return len(rows)
