"""Notifications through a transactional outbox.

Whatever causes a message (a decision now awaited, a game started or ended, a seat marked absent, a
deadline getting near) writes a :class:`~games.models.Notification` row *in the same transaction*:
rolled back with it, committed with it. After the commit a Celery task is asked to deliver it; if
the broker is down the row waits and the periodic sweep delivers it later. Each row has a unique
``dedupe_key`` (one message per cause), and delivery takes the row with ``SELECT … FOR UPDATE
SKIP LOCKED`` and marks it ``sending`` before the mail goes out and ``sent`` after, so two tasks
never send it twice. A failed send is retried with exponential backoff, up to :data:`MAX_ATTEMPTS`.

Decision mails ("your turn", "a challenge window is open for you", "a power decision awaits you")
are folded: at most one per game per user every :data:`FOLD_WINDOW`; those that come meanwhile wait
and go out as one message.

What a mail says comes from public facts only (the game's players, the kind of decision, its
deadline, the winners): never a card.
"""

from __future__ import annotations

import datetime as dt
import logging
import zoneinfo
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from .models import Game, Notification, PendingDecision, Seat

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
#: A message left "sending" this long (its worker died mid-send) is marked failed, not resent.
SENDING_STALE_AFTER = dt.timedelta(minutes=15)
DECISION_KINDS = (Kind.YOUR_TURN, Kind.CHALLENGE, Kind.POWER)
UNSUBSCRIBE_SALT = "games.notifications.unsubscribe"


# --------------------------------------------------------------------------------------------
# Writing messages (inside the transaction of their cause)


def _queue(rows: list[Notification]) -> list[Notification]:
    """Insert (skipping causes already queued) and ask for delivery once committed."""
    if not rows:
        return []
    created = Notification.objects.bulk_create(rows, ignore_conflicts=True)
    keys = [row.dedupe_key for row in created]
    transaction.on_commit(lambda: enqueue_delivery(keys))
    return created


def _decision_kind(decision: str) -> str:
    if decision in ("turn", "prep"):
        return Kind.YOUR_TURN
    if decision == "challenge":
        return Kind.CHALLENGE
    return Kind.POWER


def decisions_awaited(game: Game, rows: list[PendingDecision], seats: list[Seat]) -> None:
    """New decisions awaited from human players."""
    now = timezone.now()
    _queue([Notification(user_id=row.user_id, game_id=game.pk,
                         kind=_decision_kind(row.decision),
                         dedupe_key=f"decision:{row.pk}", next_attempt_at=now,
                         context={"decision": row.decision, "pending": row.pk,
                                  "deadline": row.deadline.isoformat(), "seq": game.seq})
            for row in rows if row.user_id is not None and not row.bot])


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


def queue_reminders(now: dt.datetime | None = None, limit: int = 500) -> int:
    """"A deadline is near" for decisions at 80% of their time, once per decision (the row's
    ``remind_at`` is cleared); a decision already answered has no row left, so no reminder."""
    now = now or timezone.now()
    with transaction.atomic():
        rows = list(PendingDecision.objects.select_for_update(skip_locked=True)
                    .filter(remind_at__lte=now, remaining__isnull=True, bot=False,
                            user__isnull=False, game__status=Game.Status.ACTIVE)
                    .order_by("remind_at")[:limit])
        if not rows:
            return 0
        _queue([Notification(user_id=row.user_id, game_id=row.game_id, kind=Kind.REMINDER,
                             dedupe_key=f"reminder:{row.pk}", next_attempt_at=now,
                             context={"decision": row.decision, "pending": row.pk,
                                      "deadline": row.deadline.isoformat()})
                for row in rows])
        PendingDecision.objects.filter(pk__in=[row.pk for row in rows]).update(remind_at=None)
    return len(rows)


# --------------------------------------------------------------------------------------------
# Delivering


def enqueue_delivery(keys: list[str]) -> None:
    """Ask a worker to deliver these messages. Never raises: the sweep delivers what is left."""
    from .tasks import deliver_notification

    ids = Notification.objects.filter(dedupe_key__in=keys).values_list("pk", flat=True)
    for pk in ids:
        try:
            deliver_notification.apply_async(
                args=[pk], retry_policy={"max_retries": 1, "interval_start": 0,
                                         "interval_step": 0.2, "interval_max": 0.2})
        except Exception:
            logger.exception("could not enqueue notification %s; the sweep will deliver it", pk)
            return


def backoff(attempts: int) -> dt.timedelta:
    return min(MAX_BACKOFF, BASE_BACKOFF * (2 ** max(0, attempts - 1)))


def deliver(notification_id: int) -> str:
    """Deliver one message if it is due; returns what became of it (its status, or "not due").

    Safe to call twice or late: the row is taken with SKIP LOCKED and only while ``pending``.
    """
    now = timezone.now()
    with transaction.atomic():
        note = (Notification.objects.select_for_update(skip_locked=True, of=("self",))
                .select_related("user", "game").filter(pk=notification_id,
                                                        status=Status.PENDING).first())
        if note is None or note.next_attempt_at > now:
            return "not due"
        reason = _skip_reason(note)
        if reason:
            note.status, note.last_error = Status.SKIPPED, reason
            note.save(update_fields=["status", "last_error"])
            return note.status
        folded: list[Notification] = []
        if note.kind in DECISION_KINDS:
            last = (Notification.objects.filter(user_id=note.user_id, game_id=note.game_id,
                                                kind__in=DECISION_KINDS, status=Status.SENT)
                    .order_by("-sent_at").values_list("sent_at", flat=True).first())
            if last is not None and now < last + FOLD_WINDOW:
                note.next_attempt_at = last + FOLD_WINDOW
                note.save(update_fields=["next_attempt_at"])
                pk = note.pk
                transaction.on_commit(lambda: _retry_later(pk, last + FOLD_WINDOW))
                return "not due"
            folded = list(Notification.objects.select_for_update(skip_locked=True)
                          .filter(user_id=note.user_id, game_id=note.game_id,
                                  kind__in=DECISION_KINDS, status=Status.PENDING)
                          .exclude(pk=note.pk))
        note.status = Status.SENDING
        note.attempts += 1
        note.next_attempt_at = now
        note.save(update_fields=["status", "attempts", "next_attempt_at"])
        Notification.objects.filter(pk__in=[f.pk for f in folded]).update(
            status=Status.FOLDED, folded_into=note)
    try:
        message = build_email(note, folded)
        message.send(fail_silently=False)
    except Exception as exc:  # SMTP down, refused address...: retry with backoff
        logger.warning("notification %s: attempt %s failed: %s", note.pk, note.attempts, exc)
        failed = note.attempts >= MAX_ATTEMPTS
        Notification.objects.filter(pk=note.pk).update(
            status=Status.FAILED if failed else Status.PENDING,
            next_attempt_at=now + backoff(note.attempts), last_error=str(exc)[:2000])
        Notification.objects.filter(folded_into=note).update(status=Status.PENDING,
                                                             folded_into=None)
        if not failed:
            _retry_later(note.pk, now + backoff(note.attempts))
        return Status.FAILED if failed else Status.PENDING
    Notification.objects.filter(pk=note.pk).update(status=Status.SENT, sent_at=timezone.now())
    return Status.SENT


def _retry_later(pk: int, when: dt.datetime) -> None:
    from .tasks import deliver_notification

    try:
        deliver_notification.apply_async(args=[pk], eta=when, retry_policy={"max_retries": 0})
    except Exception:
        logger.warning("could not schedule notification %s; the sweep will", pk)


def _skip_reason(note: Notification) -> str:
    user = note.user
    if not user.is_active:
        return "inactive user"
    if not user.notify_email:
        return "email notifications are off"
    if not user.email:
        return "no email address"
    if note.game_id and Seat.objects.filter(game_id=note.game_id, user_id=user.pk,
                                            muted=True).exists():
        return "game muted"
    if note.kind in (*DECISION_KINDS, Kind.REMINDER):
        pending = note.context.get("pending")
        if not PendingDecision.objects.filter(pk=pending, bot=False).exists():
            return "decision no longer awaited"
        if note.game.status != Game.Status.ACTIVE:
            return f"game {note.game.status}"
    return ""


def deliver_due(now: dt.datetime | None = None, limit: int = 200) -> int:
    """The sweep's part: deliver messages that are due (their task lost, or the broker was down
    when they were written)."""
    now = now or timezone.now()
    # A message left "sending" (its worker died between taking it and recording the result) may
    # or may not have gone out: it is not sent again (no second mail), it is marked failed.
    Notification.objects.filter(status=Status.SENDING,
                                next_attempt_at__lt=now - SENDING_STALE_AFTER).update(
        status=Status.FAILED,
        last_error="The worker stopped during delivery; not retried, to never send it twice.")
    due = list(Notification.objects.filter(status=Status.PENDING, next_attempt_at__lte=now)
               .order_by("next_attempt_at").values_list("pk", flat=True)[:limit])
    return sum(1 for pk in due if deliver(pk) == Status.SENT)


# --------------------------------------------------------------------------------------------
# The message


def unsubscribe_token(user) -> str:
    return signing.dumps({"u": user.pk}, salt=UNSUBSCRIBE_SALT, compress=True)


def user_from_token(token: str):
    """The user a signed unsubscribe token names, or ``None`` if it was tampered with."""
    from accounts.models import User

    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    return User.objects.filter(pk=data.get("u")).first() if isinstance(data, dict) else None


def game_url(game_id) -> str:
    return f"{settings.SITE_URL}/games/{game_id}/"


def _subject_and_lines(note: Notification, folded: list[Notification]) -> tuple[str, list[str]]:
    game = note.game
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
    if note.kind == Kind.YOUR_TURN:
        subject = _("Your turn in %(game)s") % {"game": label}
        lines = [_("It is your turn in %(game)s.") % {"game": label}]
    elif note.kind == Kind.CHALLENGE:
        subject = _("A challenge window is open for you in %(game)s") % {"game": label}
        lines = [_("A mask was announced: you may claim it or pass.")]
    elif note.kind == Kind.POWER:
        subject = _("A power decision awaits you in %(game)s") % {"game": label}
        lines = [_("Your mask's power asks you to decide.")]
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
                 _("Winners: %(winners)s.") % {"winners": winners or "—"}]
    else:  # absent
        subject = _("You were marked absent in %(game)s") % {"game": label}
        lines = [_("Several of your deadlines passed in a row, so your seat was marked absent.")]
        if ctx.get("policy") == "bot":
            lines.append(_("A bot plays for you until you make a move again."))
    if deadline and note.kind in (*DECISION_KINDS, Kind.REMINDER):
        lines.append(_("Deadline: %(deadline)s.") % {"deadline": deadline})
    if folded:
        lines.append(_("(%(count)d more decision(s) awaited you in this game meanwhile.)")
                     % {"count": len(folded)})
    return f"[Mascarade] {subject}", lines


def build_email(note: Notification, folded: list[Notification] | None = None
                ) -> EmailMultiAlternatives:
    """The message for ``note``, in its user's language, text and HTML, with a link to the game
    and a one-click signed unsubscribe link (also in the ``List-Unsubscribe`` header)."""
    user = note.user
    with translation.override(user.language or settings.LANGUAGE_CODE):
        subject, lines = _subject_and_lines(note, folded or [])
        unsubscribe = settings.SITE_URL + reverse("unsubscribe",
                                                  args=[unsubscribe_token(user)])
        context: dict[str, Any] = {
            "user": user, "lines": lines, "subject": subject,
            "game_url": game_url(note.game_id) if note.game_id else settings.SITE_URL + "/",
            "unsubscribe_url": unsubscribe,
        }
        text = render_to_string("email/notification.txt", context)
        html = render_to_string("email/notification.html", context)
    domain = settings.SITE_URL.split("//", 1)[-1].split("/", 1)[0].split(":", 1)[0]
    message = EmailMultiAlternatives(
        subject=subject, body=text, to=[user.email],
        headers={"List-Unsubscribe": f"<{unsubscribe}>",
                 "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
                 "Message-ID": f"<{note.dedupe_key.replace(':', '.')}@{domain}>"})
    message.attach_alternative(html, "text/html")
    return message
