"""Delivering the outbox's messages by mail.

Delivery takes the row with ``SELECT … FOR UPDATE SKIP LOCKED`` and marks it ``sending`` before the
mail goes out and ``sent`` after, so two tasks never send it at once. A failed send is retried with
exponential backoff, up to :data:`MAX_ATTEMPTS`; a send interrupted by its worker's end is retried
too (at least once, each message with a Message-ID of its own cause, so that receivers drop a
duplicate).

Decision mails ("your turn", "a challenge window is open for you", "a power decision awaits you")
are folded: at most one per game per user every :data:`FOLD_WINDOW`; those that come meanwhile wait
and go out as one message. A message whose decision has already passed is not sent.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections import defaultdict

from django.core.mail import get_connection
from django.db import transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from games.core import dispatch
from games.models import Game, Notification, PendingDecision, Seat
from games.notify.messages import build_email, digest_sections
from games.notify.outbox import DECISION_KINDS, Kind, Status

logger = logging.getLogger(__name__)

#: At most one decision mail per game and user in this window; the others are folded into it.
FOLD_WINDOW = dt.timedelta(minutes=10)


#: Delivery attempts before a message is marked failed.
MAX_ATTEMPTS = 8


#: First retry delay; doubled at each attempt, capped at :data:`MAX_BACKOFF`.
BASE_BACKOFF = dt.timedelta(seconds=30)


MAX_BACKOFF = dt.timedelta(hours=2)


#: A message left "sending" this long had its worker stop mid-delivery: it is sent again.
SENDING_STALE_AFTER = dt.timedelta(minutes=15)


def backoff(attempts: int) -> dt.timedelta:
    return min(MAX_BACKOFF, BASE_BACKOFF * (2 ** max(0, attempts - 1)))


def deliver(notification_id: int) -> str:
    """Deliver one message if it is due; returns what became of it (its status, or "not due").

    Safe to call twice or late: the row is taken with SKIP LOCKED and only while ``pending``.
    """
    return deliver_batch(ids=[notification_id]).get(notification_id, "not due")


def deliver_batch(ids: list[int] | None = None, limit: int = 100,
                  now: dt.datetime | None = None, keys: list[str] | None = None
                  ) -> dict[int, str]:
    """Deliver due messages (those of ``ids``, or of the dedupe ``keys``, or the ``limit`` oldest
    due ones) over one SMTP connection; returns each claimed message's fate.

    Phase 1, one transaction: the rows are taken with ``FOR UPDATE SKIP LOCKED`` (another worker
    takes others), those with nothing to say are skipped, decision mails of a game that had one
    less than :data:`FOLD_WINDOW` ago are postponed, the others are marked ``sending`` (with the
    pending decision mails of the same game and user folded into them). Phase 2: the mails go
    out. Phase 3: ``sent``, or back to ``pending`` with a backoff (``failed`` after
    :data:`MAX_ATTEMPTS`). A worker dying during phase 2 leaves rows ``sending``: the sweep
    sends them again later (:func:`recover_interrupted`).
    """
    now = now or timezone.now()
    outcome: dict[int, str] = {}
    with transaction.atomic():
        qs = (Notification.objects.select_for_update(skip_locked=True, of=("self",))
              .select_related("user", "game", "game__created_by")
              .filter(status=Status.PENDING, next_attempt_at__lte=now))
        if ids is not None:
            qs = qs.filter(pk__in=ids)
        if keys is not None:
            qs = qs.filter(dedupe_key__in=keys)
            limit = max(limit, len(keys))
        notes = list(qs.order_by("next_attempt_at", "pk")[:limit])
        if not notes:
            return outcome
        reasons = _skip_reasons(notes)
        skipped = [n for n in notes if reasons.get(n.pk)]
        for note in skipped:
            note.status, note.last_error = Status.SKIPPED, reasons[note.pk]
            outcome[note.pk] = Status.SKIPPED
        Notification.objects.bulk_update(skipped, ["status", "last_error"])
        live = [n for n in notes if not reasons.get(n.pk)]
        decisions = [n for n in live if n.kind in DECISION_KINDS]
        pairs = {(n.user_id, n.game_id) for n in decisions}
        last_sent: dict[tuple, dt.datetime] = {}
        others: dict[tuple, list[Notification]] = defaultdict(list)
        if pairs:
            users, games = {u for u, _g in pairs}, {g for _u, g in pairs}
            for user_id, game_id, sent_at in (
                    Notification.objects.filter(user_id__in=users, game_id__in=games,
                                                kind__in=DECISION_KINDS, status=Status.SENT)
                    .values_list("user_id", "game_id").annotate(last=Max("sent_at"))):
                last_sent[(user_id, game_id)] = sent_at
            claimed = {n.pk for n in notes}
            for other in (Notification.objects.select_for_update(skip_locked=True)
                          .filter(user_id__in=users, game_id__in=games,
                                  kind__in=DECISION_KINDS, status=Status.PENDING)
                          .exclude(pk__in=claimed).order_by("pk")):
                others[(other.user_id, other.game_id)].append(other)
        sending: list[Notification] = []
        folded: dict[int, list[Notification]] = {}
        postponed: list[Notification] = []
        leader: dict[tuple, Notification] = {}
        for note in live:
            key = (note.user_id, note.game_id)
            if note.kind in DECISION_KINDS:
                last = last_sent.get(key)
                if last is not None and now < last + FOLD_WINDOW:
                    note.next_attempt_at = last + FOLD_WINDOW
                    postponed.append(note)
                    outcome[note.pk] = "not due"
                    continue
                if key in leader:  # a second decision mail of the batch: folded
                    folded[leader[key].pk].append(note)
                    outcome[note.pk] = Status.FOLDED
                    continue
                leader[key] = note
                folded[note.pk] = list(others.get(key, []))
            note.status = Status.SENDING
            note.attempts += 1
            note.next_attempt_at = now
            sending.append(note)
        Notification.objects.bulk_update(postponed, ["next_attempt_at"])
        Notification.objects.bulk_update(sending, ["status", "attempts", "next_attempt_at"])
        for lead_pk, rows in folded.items():
            if rows:
                Notification.objects.filter(pk__in=[r.pk for r in rows]).update(
                    status=Status.FOLDED, folded_into_id=lead_pk)
        later = [(n.pk, n.next_attempt_at) for n in postponed]
        if later:
            transaction.on_commit(lambda: [_retry_later(pk, when) for pk, when in later])
    sent: list[int] = []
    connection = None
    try:
        for note in sending:
            try:
                if connection is None:
                    connection = get_connection(fail_silently=False)
                    connection.open()
                message = build_email(note, folded.get(note.pk, []))
                message.connection = connection
                message.send(fail_silently=False)
            except Exception as exc:  # SMTP down, refused address...: retry with backoff
                logger.warning("notification %s: attempt %s failed: %s", note.pk,
                               note.attempts, exc)
                outcome[note.pk] = _failed(note, exc, now)
                if connection is not None:
                    _close(connection)
                    connection = None
                continue
            sent.append(note.pk)
            outcome[note.pk] = Status.SENT
    finally:
        if connection is not None:
            _close(connection)
        if sent:
            Notification.objects.filter(pk__in=sent).update(status=Status.SENT,
                                                            sent_at=timezone.now())
    return outcome


def _close(connection) -> None:
    try:
        connection.close()
    except Exception:  # a broken connection may fail to close; it is dropped either way
        logger.warning("could not close the mail connection cleanly", exc_info=True)


def _failed(note: Notification, exc: Exception, now: dt.datetime) -> str:
    failed = note.attempts >= MAX_ATTEMPTS
    Notification.objects.filter(pk=note.pk).update(
        status=Status.FAILED if failed else Status.PENDING,
        next_attempt_at=now + backoff(note.attempts), last_error=str(exc)[:2000])
    Notification.objects.filter(folded_into=note).update(status=Status.PENDING,
                                                         folded_into=None)
    if not failed:
        _retry_later(note.pk, now + backoff(note.attempts))
    return Status.FAILED if failed else Status.PENDING


def _retry_later(pk: int, when: dt.datetime) -> None:
    dispatch.send(dispatch.DELIVER_NOTIFICATION, [pk], eta=when)


def _skip_reasons(notes: list[Notification]) -> dict[int, str]:
    """Why some of these messages should not go (notifications off, game muted, the decision
    answered already...), in two queries for the whole batch."""
    games = {n.game_id for n in notes if n.game_id}
    muted = set(Seat.objects.filter(game_id__in=games, muted=True,
                                    user_id__in={n.user_id for n in notes})
                .values_list("game_id", "user_id")) if games else set()
    awaited = [n for n in notes if n.kind in (*DECISION_KINDS, Kind.REMINDER)]
    live = _live_decisions(awaited)
    reasons = {}
    for note in notes:
        user = note.user
        reason = ""
        if note.kind in (Kind.MODERATION, Kind.MAIL_REPLY, Kind.WEBHOOK_DISABLED):
            if not user.email:
                reasons[note.pk] = "no email address"
            continue
        if not user.is_active:
            reason = "inactive user"
        elif not user.notify_email:
            reason = "email notifications are off"
        elif not user.email:
            reason = "no email address"
        elif (note.game_id, user.pk) in muted:
            reason = "game muted"
        elif note.kind == Kind.CHAT_DIGEST:
            if not user.notify_chat_digest:
                reason = "chat digest is off"
            elif not digest_sections(note):
                reason = "nothing left to tell (hidden or muted since)"
        elif note.kind in (*DECISION_KINDS, Kind.REMINDER):
            if _decision_of(note) not in live:
                reason = "decision no longer awaited"
            elif note.game.status != Game.Status.ACTIVE:
                reason = f"game {note.game.status}"
        if reason:
            reasons[note.pk] = reason
    return reasons


def _decision_of(note: Notification) -> tuple:
    """Which decision a message is about: a reminder (and a decision message written before
    ``decision_notes`` named them so) by its row's key; a decision message by its game, player
    and seq."""
    pending = note.context.get("pending")
    if pending is not None:
        return ("pk", pending)
    return ("turn", str(note.game_id), note.context.get("player"), note.context.get("seq"))


def _live_decisions(notes: list[Notification]) -> set[tuple]:
    """The decisions of these messages still awaited from a human (as :func:`_decision_of`
    names them): one query."""
    if not notes:
        return set()
    named = [_decision_of(note) for note in notes]
    keys = [name[1] for name in named if name[0] == "pk"]
    games = {name[1] for name in named if name[0] == "turn"}
    live = set()
    for pk, game_id, player, seq in (PendingDecision.objects.filter(
            Q(pk__in=keys) | Q(game_id__in=games), bot=False)
            .values_list("pk", "game_id", "player", "seq")):
        live |= {("pk", pk), ("turn", str(game_id), player, seq)}
    return live


def recover_interrupted(now: dt.datetime) -> int:
    """Messages left ``sending`` for :data:`SENDING_STALE_AFTER`: their worker stopped (killed,
    or its database connection cut) between taking them and recording the result, so each may or
    may not have gone out. Delivery is at least once: each is sent again (with the same
    Message-ID, so that a receiver can drop a duplicate), its ``interrupted`` count says how many
    of its attempts ended unknown; one past its last attempt is marked failed. Returns how many
    were taken back."""
    stale = Notification.objects.filter(status=Status.SENDING,
                                        next_attempt_at__lt=now - SENDING_STALE_AFTER)
    note = ("Interrupted during delivery: it may have gone out; sent again with the same "
            "Message-ID.")
    given_up = stale.filter(attempts__gte=MAX_ATTEMPTS).update(
        status=Status.FAILED, interrupted=F("interrupted") + 1,
        last_error=note + " No attempt left.")
    retried = stale.update(status=Status.PENDING, interrupted=F("interrupted") + 1,
                           next_attempt_at=now, last_error=note)
    if given_up or retried:
        logger.warning("%s interrupted deliveries taken back (%s given up)", given_up + retried,
                       given_up)
    return given_up + retried


def deliver_due(now: dt.datetime | None = None, batch: int = 100, budget: float = 30.0) -> int:
    """The sweep's part: deliver messages that are due (their task lost, or the broker was down
    when they were written), batch after batch for at most ``budget`` seconds."""
    now = now or timezone.now()
    recover_interrupted(now)
    sent = 0
    deadline = time.monotonic() + budget
    while time.monotonic() < deadline:
        outcome = deliver_batch(limit=batch, now=now)
        sent += sum(1 for status in outcome.values() if status == Status.SENT)
        if len(outcome) < batch:
            break
    return sent
