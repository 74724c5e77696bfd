"""Notifications through a transactional outbox.

Whatever causes a message (a decision now awaited, a game started or ended, a seat marked absent, a
deadline getting near) writes a :class:`~games.models.Notification` row *in the same transaction*:
rolled back with it, committed with it. After the commit a Celery task is asked to deliver it; if
the broker is down the row waits and the periodic sweep delivers it later. Decision mails, which
nearly every move writes, are left to the sweep (every ``SWEEP_SECONDS``, 5 s by default): no
task per move, and one sweep delivers (or folds) all those a busy minute wrote; so are the
reminders, which the sweep itself writes just before. Each row has a unique ``dedupe_key`` (one
message per cause), and delivery takes the row with ``SELECT … FOR UPDATE SKIP LOCKED`` and
marks it ``sending`` before the mail goes out and ``sent`` after, so two tasks never send it
at once. A failed send is retried with exponential backoff, up to :data:`MAX_ATTEMPTS`; a send
interrupted by its worker's end is retried too (at least once, each message with a Message-ID of
its own cause, so that receivers drop a duplicate).

Decision mails ("your turn", "a challenge window is open for you", "a power decision awaits you")
are folded: at most one per game per user every :data:`FOLD_WINDOW`; those that come meanwhile wait
and go out as one message.

What a mail says comes from public facts only (the game's players, the kind of decision, its
deadline, the winners): never a card. No mail carries the table chat, except the daily digest of
new messages at a user's tables (:func:`queue_chat_digests`), which they can switch off
(``notify_chat_digest``; its unsubscribe link switches off the digest only).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
import zoneinfo
from collections import defaultdict
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, Max, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import dateformat, timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.core import catalog, dispatch, selectors
from games.core.kit import GameKit
from games.models import ChatDigestMark, ChatMessage, Game, Notification, PendingDecision, Seat

logger = logging.getLogger(__name__)

Kind = Notification.Kind
Status = Notification.Status

#: At most one decision mail per game and user in this window; the others are folded into it.
FOLD_WINDOW = dt.timedelta(minutes=10)
#: Delivery attempts before a message is marked failed.
MAX_ATTEMPTS = 8
#: First retry delay; doubled at each attempt, capped at :data:`MAX_BACKOFF`.
BASE_BACKOFF = dt.timedelta(seconds=30)
MAX_BACKOFF = dt.timedelta(hours=2)
#: A message left "sending" this long had its worker stop mid-delivery: it is sent again.
SENDING_STALE_AFTER = dt.timedelta(minutes=15)
DECISION_KINDS = (Kind.YOUR_TURN, Kind.CHALLENGE, Kind.POWER)
#: (the module's name when the first links were signed: links in mailboxes keep working)
UNSUBSCRIBE_SALT = "games.notifications.unsubscribe"
#: What an unsubscribe link switches off: every email, or the daily chat digest only.
ALL_MAIL, CHAT_DIGEST = "all", "chat"
#: Messages of one game a chat digest quotes (the latest; the others are counted); message ids
#: of one game it keeps.
DIGEST_QUOTED = 10
DIGEST_KEPT = 200


# --------------------------------------------------------------------------------------------
# Writing messages (inside the transaction of their cause)


def _queue(rows: list[Notification], enqueue: bool = True) -> list[Notification]:
    """Insert (skipping causes already queued) and, with ``enqueue``, ask a worker for their
    delivery once committed (without, the sweep delivers them)."""
    if not rows:
        return []
    created = Notification.objects.bulk_create(rows, ignore_conflicts=True)
    if enqueue:
        dispatch.deliver([row.dedupe_key for row in created])
    return created


def _decision_kind(game_kind: str, decision: str) -> str:
    """The mail kind of a decision, as the game's kit says (``GameKit.decision_mail``)."""
    kind = catalog.get_kit(game_kind).decision_mail(decision)[0]
    return kind if kind in DECISION_KINDS else Kind.YOUR_TURN


def _wants_mail(seat: Seat | None) -> bool:
    """A player who switched email off, or muted this game, gets no message written at all."""
    return (seat is not None and seat.user_id is not None and not seat.muted
            and seat.user.notify_email)


def decision_notes(games: list[tuple[Game, list[PendingDecision], list[Seat]]]
                   ) -> list[Notification]:
    """The messages of new decisions awaited from human players, in several games, not yet
    written. A message names its decision by game, player and ``seq`` (the seq at which it was
    first awaited: a decision kept from move to move keeps it, one replaced gets a new one),
    which is also its ``dedupe_key``: written once, whatever the transaction retries.

    Delivered by the next sweep (within ``SWEEP_SECONDS``), not by a task of their own: a
    move's commit queues nothing, and the sweep folds a game's decision mails in one pass."""
    now = timezone.now()
    notes = []
    for game, rows, seats in games:
        by_position = {seat.position: seat for seat in seats}
        notes += [Notification(user_id=row.user_id, game_id=game.pk,
                               kind=_decision_kind(game.kind, row.decision),
                               dedupe_key=f"decision:{game.pk}:{row.player}:{row.seq}",
                               next_attempt_at=now,
                               context={"decision": row.decision, "player": row.player,
                                        "deadline": row.deadline.isoformat(), "seq": row.seq})
                  for row in rows if row.user_id is not None and not row.bot
                  and _wants_mail(by_position.get(row.player))]
    return notes


def mail_reply(inbound) -> None:
    """The answer to a player's mail that was handled (``games.mail.receive``), written in the
    transaction that handled it: what it did, then the table and the moves again."""
    _queue([Notification(user_id=inbound.user_id, game_id=inbound.game_id, kind=Kind.MAIL_REPLY,
                         dedupe_key=f"mail_reply:{inbound.pk}", next_attempt_at=timezone.now(),
                         context={"inbound": inbound.pk})])


def game_started(game: Game, seats: list[Seat]) -> None:
    now = timezone.now()
    _queue([Notification(user_id=seat.user_id, game_id=game.pk, kind=Kind.STARTED,
                         dedupe_key=f"started:{game.pk}:{seat.user_id}", next_attempt_at=now)
            for seat in seats if seat.user_id is not None])


def game_ended(game: Game, seats: list[Seat]) -> None:
    now = timezone.now()
    names = {seat.position: seat.name for seat in seats}
    winners = [names.get(position, position) for position in game.winners or []]
    _queue([Notification(user_id=seat.user_id, game_id=game.pk, kind=Kind.ENDED,
                         dedupe_key=f"ended:{game.pk}:{seat.user_id}", next_attempt_at=now,
                         context={"winners": winners,
                                  "won": seat.position in (game.winners or [])})
            for seat in seats if seat.user_id is not None])


def marked_absent(game: Game, seat: Seat) -> None:
    if seat.user_id is None:
        return
    _queue([Notification(user_id=seat.user_id, game_id=game.pk, kind=Kind.ABSENT,
                         dedupe_key=f"absent:{game.pk}:{seat.position}:{game.seq}",
                         next_attempt_at=timezone.now(),
                         context={"policy": game.options.get("absent_policy", "bot")})])


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


def webhook_disabled(endpoint) -> None:
    """The owner of a webhook endpoint the site turned off (too many failed attempts in a row)
    is told which one, why (its last error), and how to turn it on again; in the transaction
    that turned it off. Sent whatever their notification preferences: it is about their
    account."""
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


def _digest_seats(now: dt.datetime):
    """The seats whose user wants the chat digest (email on, digest on, an address, not
    blocked, the game not muted) and whose game has messages since the user's digest mark
    (and since they sat down) written by someone else."""
    mark = Subquery(ChatDigestMark.objects.filter(user_id=OuterRef("user_id"),
                                                  game_id=OuterRef("game_id"))
                    .values("last_message_id")[:1])
    newer = (ChatMessage.objects.filter(game_id=OuterRef("game_id"), pk__gt=OuterRef("mark"),
                                        created_at__gte=OuterRef("joined_at"))
             .exclude(author_id=OuterRef("user_id")))
    return (Seat.objects.filter(user__isnull=False, muted=False, user__is_active=True,
                                user__notify_email=True, user__notify_chat_digest=True,
                                user__banned=False, user__email__isnull=False)
            .filter(Q(user__suspended_until__isnull=True) | Q(user__suspended_until__lte=now))
            .annotate(mark=Coalesce(mark, Value(0)))
            .filter(Exists(newer))
            .select_related("user", "game")
            .order_by("user_id", "game_id"))


def queue_chat_digests(now: dt.datetime | None = None) -> int:
    """The daily "new messages at your table" mail (Celery beat, once a day): for each user who
    wants it, the messages written at their tables since the last digest, by others, neither
    hidden by a moderator nor by a user they muted. Returns how many digests were queued.

    Safe to run twice, late or at once: each user's digest of a day (UTC) has one dedupe key,
    and their marks (how far the digest went in each game, :class:`ChatDigestMark`) move on in
    the same transaction as the digest is written; a second run of the day writes nothing and
    leaves the marks where they are (what came meanwhile goes in the next day's digest), a
    late run takes everything since the marks."""
    now = now or timezone.now()
    day = now.date().isoformat()
    by_user: dict[int, list[Seat]] = defaultdict(list)
    for seat in _digest_seats(now):
        by_user[seat.user_id].append(seat)
    queued = 0
    for user_id, seats in by_user.items():
        user = seats[0].user
        key = f"chat_digest:{user_id}:{day}"
        try:
            with transaction.atomic():
                if Notification.objects.filter(dedupe_key=key).exists():
                    continue
                games: dict[str, dict[str, Any]] = {}
                marks = []
                for seat in seats:
                    upto = ChatMessage.objects.filter(game_id=seat.game_id).aggregate(
                        last=Max("id"))["last"] or 0
                    ids = list(selectors.chat_messages(seat.game, user)
                               .filter(pk__gt=seat.mark, pk__lte=upto,
                                       created_at__gte=seat.joined_at)
                               .exclude(author_id=user_id).values_list("pk", flat=True))
                    if ids:
                        games[str(seat.game_id)] = {"count": len(ids),
                                                    "ids": ids[-DIGEST_KEPT:]}
                    marks.append(ChatDigestMark(user_id=user_id, game_id=seat.game_id,
                                                last_message_id=upto))
                if games:
                    Notification.objects.create(user_id=user_id, kind=Kind.CHAT_DIGEST,
                                                dedupe_key=key,
                                                next_attempt_at=timezone.now(),
                                                context={"day": day, "games": games})
                    dispatch.deliver([key])
                    queued += 1
                ChatDigestMark.objects.bulk_create(
                    marks, update_conflicts=True, unique_fields=["user", "game"],
                    update_fields=["last_message_id", "updated_at"])
        except IntegrityError:  # a concurrent run wrote this digest: nothing more to do
            logger.info("chat digest %s written by another run", key)
    return queued


def _digest_sections(note: Notification) -> list[dict[str, Any]]:
    """What a chat digest says, read when it is sent: per game, its name, link, how many
    messages and the latest of them, without those hidden or muted since it was written."""
    games = note.context.get("games") or {}
    wanted = [pk for entry in games.values() for pk in entry.get("ids", [])]
    if not wanted:
        return []
    by_game: dict[str, list[ChatMessage]] = defaultdict(list)
    visible = (ChatMessage.objects.filter(pk__in=wanted, hide__isnull=True)
               .exclude(author_id__in=note.user.chat_mutes.values("muted_id"))
               .select_related("author", "game", "game__created_by").order_by("id"))
    for message in visible:
        by_game[str(message.game_id)].append(message)
    try:
        zone = zoneinfo.ZoneInfo(note.user.timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("UTC")
    sections = []
    for game_id, messages in by_game.items():
        game = messages[0].game
        kit = catalog.find_kit(game.kind)
        creator = game.created_by.username if game.created_by_id else "?"
        count = games[game_id].get("count", len(messages)) - (
            len(games[game_id].get("ids", [])) - len(messages))
        quoted = messages[-DIGEST_QUOTED:]
        lines = []
        for message in quoted:
            payload = selectors.chat_payload(message, kit)
            text = message.text
            if payload["source_label"]:
                text = f"{payload['source_label']}: {text}"
            when = dateformat.format(message.created_at.astimezone(zone), "D H:i")
            lines.append({"who": payload["player"] or "?", "when": when, "text": text})
        sections.append({
            "title": _("%(name)s, the game created by %(creator)s") % {
                "name": kit.name if kit else game.kind, "creator": creator},
            "url": game_url(game.pk), "count": count, "lines": lines,
            "more": max(0, count - len(quoted))})
    return sections


# --------------------------------------------------------------------------------------------
# Delivering


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
            elif not _digest_sections(note):
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


# --------------------------------------------------------------------------------------------
# The message


def unsubscribe_token(user, scope: str = ALL_MAIL) -> str:
    """A signed one-click link's token: it switches off every email of ``user``, or with
    ``scope`` :data:`CHAT_DIGEST` their daily chat digest only."""
    data: dict[str, Any] = {"u": user.pk}
    if scope != ALL_MAIL:
        data["s"] = scope
    return signing.dumps(data, salt=UNSUBSCRIBE_SALT, compress=True)


def unsubscribe_target(token: str) -> tuple[Any, str]:
    """The user a signed unsubscribe token names and what it switches off, or ``(None, "")``
    if it was tampered with."""
    from accounts.models import User

    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None, ""
    if not isinstance(data, dict):
        return None, ""
    scope = data.get("s", ALL_MAIL)
    if scope not in (ALL_MAIL, CHAT_DIGEST):
        return None, ""
    return User.objects.filter(pk=data.get("u")).first(), scope


def user_from_token(token: str):
    """The user a signed unsubscribe token names, or ``None`` if it was tampered with."""
    return unsubscribe_target(token)[0]


def game_url(game_id) -> str:
    return f"{settings.SITE_URL}/games/{game_id}/"


def _subject_and_lines(note: Notification, folded: list[Notification]) -> tuple[str, list[str]]:
    game = note.game
    kit = catalog.find_kit(game.kind) if game else None
    creator = game.created_by.username if game and game.created_by_id else "?"
    label = _("the game created by %(creator)s") % {"creator": creator}
    ctx = note.context
    deadline = ""
    if ctx.get("deadline"):
        when = dt.datetime.fromisoformat(ctx["deadline"])
        try:
            when = when.astimezone(zoneinfo.ZoneInfo(note.user.timezone))
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            logger.warning("user %s has an unknown time zone %r", note.user_id,
                           note.user.timezone)
        deadline = when.strftime("%Y-%m-%d %H:%M %Z")
    if note.kind in DECISION_KINDS:
        _kind, subject, line = (kit or GameKit()).decision_mail(ctx.get("decision", ""))
        subject = str(subject) % {"game": label}
        lines = [str(line) % {"game": label}]
    elif note.kind == Kind.REMINDER:
        subject = _("Your deadline is near in %(game)s") % {"game": label}
        lines = [_("You have not decided yet; the deadline is near.")]
    elif note.kind == Kind.STARTED:
        subject = _("%(game)s has started") % {"game": label.capitalize()}
        lines = [_("Every seat is taken: the game has started.")]
    elif note.kind == Kind.ENDED:
        winners = ", ".join(str(w) for w in ctx.get("winners", []))
        subject = _("%(game)s is over") % {"game": label.capitalize()}
        lines = [_("You won!") if ctx.get("won") else _("The game is over."),
                 *(_ending_lines(note) or [_("Winners: %(winners)s.") % {
                     "winners": winners or "—"}])]
    elif note.kind == Kind.MAIL_REPLY:
        subject, lines = _reply_lines(note, label)
    elif note.kind == Kind.MODERATION:
        subject = _(ctx.get("subject", ""))
        lines = [_(ctx.get("body", "")) % ctx.get("params", {})]
    elif note.kind == Kind.WEBHOOK_DISABLED:
        subject, lines = _webhook_disabled_lines(ctx)
    else:  # absent
        subject = _("You were marked absent in %(game)s") % {"game": label}
        lines = [_("Several of your deadlines passed in a row, so your seat was marked absent.")]
        if ctx.get("policy") == "bot":
            lines.append(_("A bot plays for you until you make a move again."))
    if deadline and note.kind in (*DECISION_KINDS, Kind.REMINDER):
        lines.append(_("Deadline: %(deadline)s.") % {"deadline": deadline})
    if folded:
        lines.append(ngettext("(%(count)d more decision awaited you in this game meanwhile.)",
                              "(%(count)d more decisions awaited you in this game meanwhile.)",
                              len(folded)) % {"count": len(folded)})
    # The game's name, or the site's for a mail about no game.
    return f"[{kit.name if kit else _('Mascarade Online')}] {subject}", lines


def _webhook_disabled_lines(ctx: dict[str, Any]) -> tuple[str, list[str]]:
    """What the owner of a webhook endpoint turned off is told (``webhook_disabled``)."""
    path = f"/api/v1/me/webhooks/{ctx.get('webhook')}/"
    count = ctx.get("failures", 0)
    return _("Your webhook endpoint was turned off"), [
        ngettext("We turned off your webhook endpoint %(url)s after %(count)d failed attempt "
                 "in a row.",
                 "We turned off your webhook endpoint %(url)s after %(count)d failed attempts "
                 "in a row.", count) % {"url": ctx.get("url", "?"), "count": count},
        _("The last one: %(error)s") % {"error": ctx.get("error") or "—"},
        _("Nothing is posted to it any more, and the events it missed will not be sent again. "
          "Once it works, turn it back on through the API: PATCH %(url)s with "
          "{\"active\": true}; POST %(url)sping/ then checks that it answers.") % {
            "url": settings.SITE_URL + path},
    ]


def _reply_lines(note: Notification, label: str) -> tuple[str, list[str]]:
    """What an answer to a player's mail says of it (``games.mail.receive``)."""
    from games.models import InboundMessage

    Inbound = InboundMessage.Status
    inbound = InboundMessage.objects.filter(pk=note.context.get("inbound")).first()
    if inbound is None:
        return _("About your mail in %(game)s") % {"game": label}, []
    subject = inbound.subject or _("Your mail in %(game)s") % {"game": label}
    if not subject.lower().startswith("re:"):
        subject = "Re: " + subject
    command = inbound.command
    if inbound.status == Inbound.PLAYED:
        sentences = _move_sentences(note, inbound.move_seq)
        lines = [_("Your move is played: %(move)s.") % {"move": sentences[0]}, *sentences[1:]]
    elif inbound.status == Inbound.STALE:
        lines = [_("The game moved on since the mail you answered: “%(command)s” was not "
                   "played. Here is the game now.") % {"command": command}]
    elif inbound.status == Inbound.ILLEGAL:
        lines = [_("“%(command)s” cannot be played now: %(why)s") % {
            "command": command, "why": inbound.detail}]
    elif inbound.status == Inbound.WORD:
        lines = _word_lines(inbound.detail)
    elif inbound.detail == "empty":
        lines = [_("Your mail was read, but no command was found in it: write the number or "
                   "the command of your move on the first line of your answer.")]
    elif inbound.detail == "out_of_range":
        lines = [_("“%(command)s” is not the number of a move listed below.") % {
            "command": command}]
    elif inbound.detail == "ambiguous":
        lines = [_("“%(command)s” could be several of the moves below: write its number.") % {
            "command": command}]
    else:
        lines = [_("“%(command)s” is not one of the commands below: write the number or the "
                   "command of your move on the first line of your answer.") % {
            "command": command}]
    return subject, lines


def _ending_lines(note: Notification) -> list[str]:
    """Why the game ended and its final ranking, as its kit says them to this reader."""
    if note.game is None:
        return []
    from games.mail.outgoing import names_and_board

    _names, board, _payload = names_and_board(note.game, note.user)
    if board is None or board.state.get("phase") != "over":
        return []
    return [str(line) for line in catalog.get_kit(note.game.kind).ending_lines(board)]


def _word_lines(word: str) -> list[str]:
    """The answer to a table word sent by mail (``help``, ``status``, ``pause``...)."""
    if ":" in word:  # the word was refused: its reason
        return [word.split(":", 1)[1].strip()]
    return [{
        "help": _("To play by mail, answer a mail of the game with the number or the command of "
                  "your move on the first line (in English or French). Other words: “status” "
                  "(the table now), “pause” (ask for a pause), “back” (you are back from an "
                  "absence), “mute” (no more mails about this game; answers to your mails still "
                  "come), “help”."),
        "status": _("The table now:"),
        "pause": _("You asked for a pause: the game pauses when every player asks for it."),
        "back": _("Welcome back: your seat is yours again."),
        "mute": _("This game's emails are off; answers to your mails still come. Switch them "
                  "on again on the game's page."),
    }.get(word, word)]


def _move_sentences(note: Notification, seq: int | None) -> list[str]:
    """The move ``seq`` as its command, then the history's sentences of it, as the mail's
    reader saw it."""
    from games.core.kit import history_lines
    from games.models import MoveRecord

    record = MoveRecord.objects.filter(game_id=note.game_id, seq=seq or 0).first()
    if record is None:
        return ["?"]
    kit = catalog.get_kit(note.game.kind)
    loaded = selectors.load_for_viewer(note.game, note.user)
    events = selectors.events_payload(loaded, note.user, seq - 1, limit=1)["results"]
    names = {seat["seat"]: seat["player"] for seat in
             (selectors.game_payload(loaded, note.user)["state"] or {}).get("seats", [])}
    lines = history_lines(kit, [e for e in events if e.get("seq") == seq], names,
                          selectors.stand_ins(loaded, seq - 1, seq))
    return [kit.command_words(record.payload, names),
            *(f"{line['text']} ({line['by']})" if line["by"] else line["text"]
              for line in lines)]


#: Mails about a game that list its player's moves, with a reply address to play them.
PLAYABLE_KINDS = (*DECISION_KINDS, Kind.REMINDER, Kind.MAIL_REPLY)


def build_email(note: Notification, folded: list[Notification] | None = None
                ) -> EmailMultiAlternatives:
    """The message for ``note``, in its user's language, text and HTML, with a link to the game
    and a one-click signed unsubscribe link (also in the ``List-Unsubscribe`` header)."""
    user = note.user
    digest = note.kind == Kind.CHAT_DIGEST
    with translation.override(user.language or settings.LANGUAGE_CODE):
        if digest:
            sections = _digest_sections(note)
            subject = f"[{_('Mascarade Online')}] {_('New messages at your tables')}"
            lines: list[str] = []
        else:
            sections = []
            subject, lines = _subject_and_lines(note, folded or [])
        listing = None
        if note.kind in PLAYABLE_KINDS and note.game_id is not None:
            from games.mail.outgoing import listing as new_listing

            listing = new_listing(note.game, user)
        unsubscribe = settings.SITE_URL + reverse("unsubscribe", args=[unsubscribe_token(
            user, CHAT_DIGEST if digest else ALL_MAIL)])
        context: dict[str, Any] = {
            "user": user, "lines": lines, "subject": subject, "sections": sections,
            "game_url": game_url(note.game_id) if note.game_id else settings.SITE_URL + "/",
            "profile_url": settings.SITE_URL + reverse("profile"),
            "unsubscribe_url": unsubscribe, "listing": listing,
        }
        name = "email/chat_digest" if digest else "email/notification"
        text = render_to_string(f"{name}.txt", context)
        html = render_to_string(f"{name}.html", context)
    domain = settings.SITE_URL.split("//", 1)[-1].split("/", 1)[0].split(":", 1)[0]
    message = EmailMultiAlternatives(
        subject=subject, body=text, to=[user.email],
        headers={"Auto-Submitted": "auto-generated",
                 "List-Unsubscribe": f"<{unsubscribe}>",
                 "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
                 "Message-ID": f"<{note.dedupe_key.replace(':', '.')}@{domain}>"})
    if listing is not None:
        message.reply_to = [listing.reply_to]
    if note.kind == Kind.MAIL_REPLY:
        from games.models import InboundMessage

        answered = (InboundMessage.objects.filter(pk=note.context.get("inbound"))
                    .values_list("message_id", flat=True).first())
        if answered:
            message.extra_headers["In-Reply-To"] = f"<{answered}>"
            message.extra_headers["References"] = f"<{answered}>"
        message.extra_headers["Auto-Submitted"] = "auto-replied"
    message.attach_alternative(html, "text/html")
    return message
