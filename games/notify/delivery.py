"""Delivering the outbox's messages by mail.

Delivery takes the row with ``SELECT … FOR UPDATE SKIP LOCKED`` and marks it ``sending`` before the
mail goes out and ``sent`` right after it went (each mail before the next), so two tasks never
send it at once. A failed send is retried with exponential backoff, up to :data:`MAX_ATTEMPTS`; a
send interrupted by its worker's end is retried too (at least once, each message with a
Message-ID of its own cause, so that receivers drop a duplicate): a worker killed during a batch
repeats at most the one mail that was going out.

Decision mails ("your turn", "a challenge window is open for you", "a power decision awaits you")
and the answers to a player's mails are debounced, never held back by a window: each is due
``MAIL_DEBOUNCE_SECONDS`` after its cause, and the mails of one game and user that are waiting
then go out as one (:func:`deliver_batch`), with the decisions that stand at that moment. While
the game's bots are still to move, or a newer one of those mails is not due yet, they wait (a
burst of bot moves gives one mail), but never more than ``MAIL_MAX_WAIT_SECONDS`` after the first
of them. Reminders are not held: one that is due takes the game's waiting mails with it. A
message whose decision has passed is not sent, checked again just before each mail is written.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections import defaultdict
from collections.abc import Callable

from django.conf import settings
from django.core.mail import get_connection
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from games.core import dispatch
from games.models import Game, Notification, PendingDecision, Seat
from games.notify.messages import build_email, digest_sections
from games.notify.outbox import DECISION_KINDS, Kind, Status, mail_debounce

logger = logging.getLogger(__name__)

#: The mails about a game that one user gets as one, when several are waiting together: the
#: decisions, the reminders, and the answers to the user's mails (each answer goes, carrying the
#: decisions; the others are folded into a reminder's mail, or the newest decision's).
GATHERED_KINDS = (*DECISION_KINDS, Kind.REMINDER, Kind.MAIL_REPLY)


#: Delivery attempts before a message is marked failed.
MAX_ATTEMPTS = 8


#: First retry delay; doubled at each attempt, capped at :data:`MAX_BACKOFF`.
BASE_BACKOFF = dt.timedelta(seconds=30)


MAX_BACKOFF = dt.timedelta(hours=2)


#: A message left "sending" this long had its worker stop mid-delivery: it is sent again.
SENDING_STALE_AFTER = dt.timedelta(minutes=15)


def backoff(attempts: int) -> dt.timedelta:
    return min(MAX_BACKOFF, BASE_BACKOFF * (2 ** max(0, attempts - 1)))


def max_wait() -> dt.timedelta:
    """The longest a decision mail (or an answer) waits for a burst of moves to end."""
    return dt.timedelta(seconds=settings.MAIL_MAX_WAIT_SECONDS)


def deliver(notification_id: int) -> str:
    """Deliver one message if it is due; returns what became of it (its status, or "not due").

    Safe to call twice or late: the row is taken with SKIP LOCKED and only while ``pending``.
    """
    return deliver_batch(ids=[notification_id]).get(notification_id, "not due")


def deliver_batch(ids: list[int] | None = None, limit: int = 100,
                  now: dt.datetime | None = None, keys: list[str] | None = None
                  ) -> dict[int, str]:
    """Deliver due messages (those of ``ids``, or of the dedupe ``keys``, or the ``limit`` oldest
    due ones) over one SMTP connection; returns the fate of each message it took.

    Phase 1, one transaction: the rows are taken with ``FOR UPDATE SKIP LOCKED`` (another worker
    takes others), those with nothing to say are skipped; a decision mail, reminder or answer
    takes with it the other such messages waiting for the same game and user
    (:data:`GATHERED_KINDS`, due or not); the group waits if it should (:func:`_hold_until`),
    else its answers and one other mail are marked ``sending``, the rest ``folded`` into that
    one. Phase 2: the mails go out, each marked ``sent`` as soon as it went. Phase 3, for a send
    that failed: back to ``pending`` with a backoff (``failed`` after :data:`MAX_ATTEMPTS`). A
    worker dying during phase 2 leaves the mail it was sending (and those after it) ``sending``:
    the sweep sends them again later (:func:`recover_interrupted`).
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
        notes += _waiting_with(notes, now)
        reasons = _skip_reasons(notes)
        skipped = [n for n in notes if reasons.get(n.pk)]
        for note in skipped:
            note.status, note.last_error = Status.SKIPPED, reasons[note.pk]
            outcome[note.pk] = Status.SKIPPED
        Notification.objects.bulk_update(skipped, ["status", "last_error"])
        live = [n for n in notes if not reasons.get(n.pk)]
        groups: dict[tuple, list[Notification]] = defaultdict(list)
        sending: list[Notification] = []
        for note in live:
            if note.kind in GATHERED_KINDS and note.game_id is not None:
                groups[(note.user_id, note.game_id)].append(note)
            else:
                sending.append(note)
        busy = _games_with_bots_to_move({game for _user, game in groups})
        folded: dict[int, list[Notification]] = {}
        postponed: list[Notification] = []
        retries: list[tuple[int, dt.datetime]] = []
        for (_user, game_id), group in groups.items():
            hold = _hold_until(group, now, game_id in busy)
            if hold is not None:
                held = [note for note in group if note.next_attempt_at <= now]
                for note in held:  # (those not due yet keep their own time and task)
                    note.next_attempt_at = hold
                for note in group:
                    outcome.setdefault(note.pk, "not due")
                postponed += held
                # A task's hold is followed by a task at its end (one chain per task, which
                # ends when the mail goes); the sweep's is not: the next sweeps find it.
                if held and (ids is not None or keys is not None):
                    retries.append((held[0].pk, hold))
                continue
            leaders, carrier = _leaders(group)
            sending += leaders
            folded[carrier.pk] = [n for n in group if n not in leaders]
            for note in folded[carrier.pk]:
                outcome[note.pk] = Status.FOLDED
        for note in sending:
            note.status = Status.SENDING
            note.attempts += 1
            note.next_attempt_at = now
        Notification.objects.bulk_update(postponed, ["next_attempt_at"])
        Notification.objects.bulk_update(sending, ["status", "attempts", "next_attempt_at"])
        for lead_pk, rows in folded.items():
            if rows:
                Notification.objects.filter(pk__in=[r.pk for r in rows]).update(
                    status=Status.FOLDED, folded_into_id=lead_pk)
        if retries:  # one task per group held back (its first message takes the others)
            transaction.on_commit(lambda: [_retry_later(pk, when) for pk, when in retries])
    connection = None
    try:
        for note in sending:
            try:
                with_it = _still_awaited(note, folded.get(note.pk, []), outcome)
                if with_it is None:
                    continue
                if connection is None:
                    connection = get_connection(fail_silently=False)
                    connection.open()
                message = build_email(note, with_it)
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
            # Recorded before the next mail goes: a worker killed further on sends again only
            # the mail it was sending, not every mail of its batch.
            Notification.objects.filter(pk=note.pk).update(status=Status.SENT,
                                                           sent_at=timezone.now())
            outcome[note.pk] = Status.SENT
    finally:
        if connection is not None:
            _close(connection)
    return outcome


def _waiting_with(notes: list[Notification], now: dt.datetime) -> list[Notification]:
    """The other messages of :data:`GATHERED_KINDS` waiting for the same game and user as the
    gathered ones of ``notes``, due or not (taken with SKIP LOCKED; those waiting for a retry
    after a failed send keep their backoff)."""
    pairs = {(n.user_id, n.game_id) for n in notes
             if n.kind in GATHERED_KINDS and n.game_id is not None}
    if not pairs:
        return []
    users, games = {u for u, _g in pairs}, {g for _u, g in pairs}
    found = (Notification.objects.select_for_update(skip_locked=True, of=("self",))
             .select_related("user", "game", "game__created_by")
             .filter(user_id__in=users, game_id__in=games, kind__in=GATHERED_KINDS,
                     status=Status.PENDING)
             .filter(Q(attempts=0) | Q(next_attempt_at__lte=now))
             .exclude(pk__in=[n.pk for n in notes]).order_by("pk"))
    return [n for n in found if (n.user_id, n.game_id) in pairs]


def _games_with_bots_to_move(games: set) -> set:
    """Those of ``games`` where a bot has a decision to take (its task is about to play it)."""
    if not games:
        return set()
    return set(PendingDecision.objects.filter(game_id__in=games, bot=True,
                                              remaining__isnull=True,
                                              game__status=Game.Status.ACTIVE)
               .values_list("game_id", flat=True).distinct())


def _hold_until(group: list[Notification], now: dt.datetime, bots_to_move: bool
                ) -> dt.datetime | None:
    """When a game's waiting mails to one user should go, if not now: while a newer one of them
    is not due yet (still within its debounce) or the game's bots are still to move, at most
    until :func:`max_wait` after the first of them was written, and never past a tenth of the
    time a decision of them leaves (a 30-second window is held 3 seconds at most). A reminder
    goes at once."""
    if any(note.kind == Kind.REMINDER for note in group):
        return None
    latest = max(note.next_attempt_at for note in group)
    if bots_to_move:
        latest = max(latest, now + mail_debounce())
    if latest <= now:
        return None
    cap = min(note.created_at for note in group) + max_wait()
    for note in group:
        if note.kind in DECISION_KINDS and note.context.get("deadline"):
            deadline = dt.datetime.fromisoformat(note.context["deadline"])
            cap = min(cap, note.created_at + (deadline - note.created_at) / 10)
    return min(latest, cap) if cap > now else None


def _leaders(group: list[Notification]) -> tuple[list[Notification], Notification]:
    """The mails a game's waiting messages to one user make: each answer to one of their mails
    (the newest carries the others), else the newest reminder's (a deadline is near: it says
    so first), else the newest decision's; and which one carries the others."""
    newest = sorted(group, key=lambda n: (n.created_at, n.pk))
    replies = [n for n in newest if n.kind == Kind.MAIL_REPLY]
    if replies:
        return replies, replies[-1]
    reminders = [n for n in newest if n.kind == Kind.REMINDER]
    carrier = (reminders or newest)[-1]
    return [carrier], carrier


def _still_awaited(note: Notification, folded: list[Notification], outcome: dict[int, str]
                   ) -> list[Notification] | None:
    """Just before its mail is written, the decisions ``note`` and those folded into it are
    about, checked against the game now: those that passed meanwhile are skipped (not named in
    the mail), and so is ``note`` itself if its own decision passed (``None``: no mail; the
    others it carried wait again). The folded messages still awaited are returned."""
    about = [n for n in (note, *folded) if n.kind in (*DECISION_KINDS, Kind.REMINDER)]
    if not about:
        return folded
    live = live_decisions(about)
    passed = [n.pk for n in about if decision_of(n) not in live]
    if not passed:
        return folded
    why = "decision no longer awaited"
    kept = [n for n in folded if n.pk not in passed]
    if note.pk in passed:
        Notification.objects.filter(pk__in=passed).update(status=Status.SKIPPED, last_error=why,
                                                          folded_into=None)
        Notification.objects.filter(pk__in=[n.pk for n in kept]).update(
            status=Status.PENDING, folded_into=None, next_attempt_at=timezone.now())
        for pk in passed:
            outcome[pk] = Status.SKIPPED
        for other in kept:
            outcome[other.pk] = Status.PENDING
        if kept:  # (the first takes the others along)
            _retry_later(kept[0].pk, timezone.now())
        return None
    Notification.objects.filter(pk__in=passed).update(status=Status.SKIPPED, last_error=why,
                                                      folded_into=None)
    for pk in passed:
        outcome[pk] = Status.SKIPPED
    return kept


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
    live = live_decisions(awaited)
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
            if decision_of(note) not in live:
                reason = "decision no longer awaited"
            elif note.game.status != Game.Status.ACTIVE:
                reason = f"game {note.game.status}"
        if reason:
            reasons[note.pk] = reason
    return reasons


def decision_of(note: Notification) -> tuple:
    """Which decision a message is about: a reminder (and a decision message written before
    ``decision_notes`` named them so) by its row's key; a decision message by its game, player
    and seq."""
    pending = note.context.get("pending")
    if pending is not None:
        return ("pk", pending)
    return ("turn", str(note.game_id), note.context.get("player"), note.context.get("seq"))


def live_decisions(notes: list[Notification]) -> set[tuple]:
    """The decisions of these messages still awaited from a human (as :func:`decision_of`
    names them): one query."""
    if not notes:
        return set()
    named = [decision_of(note) for note in notes]
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


def sweep_deliveries(recover: Callable[[dt.datetime], int],
                     deliver: Callable[..., dict[int, str]], sent_status: str,
                     now: dt.datetime | None, batch: int, budget: float) -> int:
    """The sweep's loop, for the mails and the pushes: ``recover(now)`` (the deliveries
    interrupted by their worker's end), then ``deliver(limit=batch, now=now)`` batch after batch
    for at most ``budget`` seconds, until a batch comes short. Returns how many reached
    ``sent_status``."""
    now = now or timezone.now()
    recover(now)
    sent = 0
    deadline = time.monotonic() + budget
    while time.monotonic() < deadline:
        outcome = deliver(limit=batch, now=now)
        sent += sum(1 for status in outcome.values() if status == sent_status)
        if len(outcome) < batch:
            break
    return sent


def deliver_due(now: dt.datetime | None = None, batch: int = 100, budget: float = 30.0) -> int:
    """The sweep's part: deliver messages that are due (their task lost, or the broker was down
    when they were written), batch after batch for at most ``budget`` seconds."""
    return sweep_deliveries(recover_interrupted, deliver_batch, Status.SENT, now, batch, budget)
