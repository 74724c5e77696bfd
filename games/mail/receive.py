"""Playing by mail, the incoming half: one service for every way a mail comes in (the SMTP/LMTP
receiver, a provider's webhook).

:func:`receive_mail` keeps messages (their first ``INBOUND_KEPT_BYTES``) with what became of
them, and plays a move only when all of this holds:

- the message is not larger than ``inbound_mail.MAX_BYTES`` and can be read;
- it is not automatic (an auto-reply, an out-of-office, a bounce, a list's mail, anything sent
  from the null envelope sender ``<>``): such a mail is never played and never answered, so that
  no two robots answer each other;
- it is addressed to a reply address of ours whose signature holds;
- its sender (its From) is the address of the player the listing was for, and that address is
  verified;
- the same message (its Message-ID, from that sender) was not handled already.

Those refusals are silent (the mail is *ignored*): the sender may not be who they say, and an
answer to a forged or stray mail would be spam. Past them, the mail comes from the player's
address, and the player is answered (at that address, their account's, never at the
envelope's), but nothing is done when:

- the sender is not authenticated (``refused``): the envelope sender is known and is not the
  From, or an ``Authentication-Results`` header written by our own MTA (its authserv-id is one of
  ``MAIL_AUTHSERV_IDS``; any other is not trusted) gives a result of ``MAIL_AUTH_FAILURES``
  (``dmarc=fail``, ``spf=fail``): the player is told that a mail in their name was not played;
- the reply address is older than ``MAIL_REPLY_DAYS`` (``expired``): the player is told so, with
  the game now and a new address;
- the player was answered ``MAIL_ANSWERS_PER_WINDOW`` times in that game in the last
  ``MAIL_WINDOW_SECONDS`` (``throttled``, told once; then ``silenced``: no answer).

Ignored mails are stored at most ``MAIL_IGNORED_PER_WINDOW`` per sender address and window; more
are not stored (logged). Every count is of the stored rows (the database, whether or not Redis
runs). :func:`forget_old` (a daily beat task) deletes the answered mails after
``MAIL_KEEP_ANSWERED_DAYS`` and the ignored ones after ``MAIL_KEEP_IGNORED_DAYS``.

Otherwise the command (the first line of the reply's own text) is read against the listing the
mail answered (``games.mail.commands``): a number is the move listed with it, a command names a
move in English or French, and ``help``, ``status``, ``pause``, ``back`` and ``mute`` work as on
the pages. A move goes through :func:`~.moves.submit_move`, like the API's and the pages' (lock,
checks, idempotency, deadlines, events, bots), with the seq of the listing and the pages' rule:
it is played only while the decision it answers is still awaited (so a reply address plays only
the decision its mail listed); otherwise nothing is played and the answer shows the situation
now.

Every answered mail is answered, in the player's language, through the outbox
(``Notification.Kind.MAIL_REPLY``): what the move did and what comes next, or why nothing was
played, with the moves listed again and a new reply address.

Locking duties: the game's row, then the listing's row, are locked while a message from the
player is handled, so that the limits count exactly and the same message delivered twice at
once is handled once; the move's service locks the game's row again (it holds it already).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation

from games.core import catalog, events
from games.core.errors import ApplicationError, StaleSeq, text_of
from games.core.services.moves import submit_move
from games.core.services.table import come_back, mute_game, request_pause
from games.engine import EngineError
from games.mail import commands
from games.mail import parsing as inbound_mail
from games.mail.outgoing import names_and_board, play_of
from games.models import INBOUND_KEPT_BYTES, Game, InboundMessage, MailPlay

logger = logging.getLogger(__name__)

Status = InboundMessage.Status


def receive_mail(raw: bytes, *, recipients: Sequence[str] = (), sender: str | None = None,
                 via: str) -> InboundMessage:
    """Store and act on one inbound message (see the module's text). ``sender`` is the envelope
    sender: ``None`` when unknown, ``""`` for the null sender ``<>``. Never raises for a bad
    message: it is stored with what became of it (or, over the limit of ignored mails, only
    logged: the row returned has no pk). Raises only if the database is down."""
    row = InboundMessage(via=via[:32], size=len(raw), raw=bytes(raw[:INBOUND_KEPT_BYTES]))
    row.sender = (sender or "").strip("<> ").lower()[:254]  # until its From is read
    if len(raw) > inbound_mail.MAX_BYTES:
        return _ignore(row, Status.TOO_LARGE)
    try:
        mail = inbound_mail.parse(raw, envelope_recipients=recipients, envelope_sender=sender)
    except inbound_mail.MalformedMail as exc:
        return _ignore(row, Status.MALFORMED, str(exc))
    row.message_id = mail.message_id[:255]
    row.sender = mail.sender[:254]
    row.subject = mail.subject[:255]
    row.command = (mail.command or "")[:500]
    if mail.automatic:
        return _ignore(row, Status.AUTOMATIC, mail.automatic)
    play, problem = None, "no_token"
    for address in mail.recipients:
        play, problem = play_of(address)
        if problem != "no_token":
            row.recipient = address[:254]
            break
    if problem in ("no_token", "bad_token"):
        return _ignore(row, Status.NO_TOKEN if problem == "no_token" else Status.BAD_TOKEN)
    row.user, row.game, row.play = play.user, play.game, play
    if not _sender_is_the_player(mail.sender, play.user):
        return _ignore(row, Status.WRONG_SENDER)
    refusal = unauthenticated(mail)
    with transaction.atomic():
        Game.objects.select_for_update().filter(pk=play.game_id).first()
        MailPlay.objects.select_for_update().filter(pk=play.pk).first()
        if row.message_id and InboundMessage.objects.filter(
                message_id=row.message_id, sender=row.sender,
                status__in=ANSWERED).exists():
            return _ignore(row, Status.DUPLICATE)
        limit = _answers_limit(row)
        if limit == Status.SILENCED:
            return _ignore(row, Status.SILENCED)
        if limit:
            row.status = Status.THROTTLED
        elif refusal:
            row.status, row.detail = Status.REFUSED, refusal
        elif problem == "expired":
            row.status = Status.EXPIRED
        else:
            _act(row, play, mail.command)
        row.save()
        events.publish(events.MailHandled(row=row))
    return row


#: The outcomes of a message the player is answered about (a second copy of it is a duplicate).
ANSWERED = (Status.PLAYED, Status.WORD, Status.UNREADABLE, Status.ILLEGAL, Status.STALE,
            Status.EXPIRED, Status.REFUSED, Status.THROTTLED)
#: The answers counted by ``MAIL_ANSWERS_PER_WINDOW`` (the "too many mails" one is not).
_COUNTED = tuple(status for status in ANSWERED if status != Status.THROTTLED)
#: The outcomes of an ignored message (no answer), stored at most ``MAIL_IGNORED_PER_WINDOW``
#: per sender address and window.
IGNORED = tuple(status for status in Status if status not in ANSWERED)


def unauthenticated(mail: inbound_mail.Inbound) -> str:
    """Why the player's From cannot be trusted (``""``: nothing against it): the envelope sender
    is known and differs (``envelope <address>``), or our MTA's Authentication-Results says a
    check of ``MAIL_AUTH_FAILURES`` failed (``dmarc=fail``)."""
    if mail.return_path and mail.return_path != mail.sender:
        return f"envelope {mail.return_path}"[:2000]
    trusted = {name.strip().lower() for name in settings.MAIL_AUTHSERV_IDS if name.strip()}
    failures = {name.strip().lower() for name in settings.MAIL_AUTH_FAILURES}
    for authserv, method, result in mail.authentication:
        if authserv in trusted and f"{method}={result}" in failures:
            return f"{method}={result}"
    return ""


def _window_start():
    return timezone.now() - dt.timedelta(seconds=settings.MAIL_WINDOW_SECONDS)


def _answers_limit(row: InboundMessage) -> str:
    """``""`` while the player may be answered in this game; past ``MAIL_ANSWERS_PER_WINDOW``
    answers in the window, ``THROTTLED`` (the one "too many mails" answer), then ``SILENCED``."""
    recent = InboundMessage.objects.filter(user=row.user, game=row.game,
                                           received_at__gte=_window_start())
    if recent.filter(status__in=_COUNTED).count() < settings.MAIL_ANSWERS_PER_WINDOW:
        return ""
    if recent.filter(status=Status.THROTTLED).exists():
        return Status.SILENCED
    return Status.THROTTLED


def _ignore(row: InboundMessage, status: str, detail: str = "") -> InboundMessage:
    """Store an ignored message, unless its sender address had ``MAIL_IGNORED_PER_WINDOW`` of
    them stored in the window (then only logged)."""
    row.status, row.detail = status, detail[:2000]
    stored = InboundMessage.objects.filter(sender=row.sender, received_at__gte=_window_start(),
                                           status__in=IGNORED).count()
    if stored >= settings.MAIL_IGNORED_PER_WINDOW:
        logger.warning("inbound mail from %r (%s) not stored: %d ignored mails from that "
                       "address in the last %d s", row.sender, status, stored,
                       settings.MAIL_WINDOW_SECONDS)
        return row
    row.save()
    return row


def forget_old(now: dt.datetime | None = None, batch: int = 1000) -> int:
    """Delete the inbound mails received more than ``MAIL_KEEP_ANSWERED_DAYS`` ago (answered
    ones) or ``MAIL_KEEP_IGNORED_DAYS`` ago (ignored ones), ``batch`` at a time; how many. The
    table is not append-only: the application role may delete from it (``grant_app_role``)."""
    now = now or timezone.now()
    old = (Q(received_at__lt=now - dt.timedelta(days=settings.MAIL_KEEP_ANSWERED_DAYS))
           | Q(received_at__lt=now - dt.timedelta(days=settings.MAIL_KEEP_IGNORED_DAYS),
               status__in=IGNORED))
    forgotten = 0
    while True:
        ids = list(InboundMessage.objects.filter(old).values_list("pk", flat=True)[:batch])
        if not ids:
            return forgotten
        forgotten += InboundMessage.objects.filter(old, pk__in=ids).delete()[0]


def _sender_is_the_player(sender: str, user) -> bool:
    """The sender is the player's address, and that address is verified (allauth)."""
    from allauth.account.models import EmailAddress

    if not sender or not user.is_active or user.blocked_reason():
        return False
    return EmailAddress.objects.filter(user=user, email__iexact=sender, verified=True).exists()


def _act(row: InboundMessage, play: MailPlay, command: str | None) -> None:
    """Read the command against the listing and do it; ``row`` says what became of it (a
    refusal's reason in the player's language: the answer quotes it)."""
    with translation.override(play.user.language or settings.LANGUAGE_CODE):
        _act_in_language(row, play, command)


def _act_in_language(row: InboundMessage, play: MailPlay, command: str | None) -> None:
    game, user = play.game, play.user
    kit = catalog.get_kit(game.kind)
    if not command:
        row.status, row.detail = Status.UNREADABLE, "empty"
        return
    names, _board, _payload = names_and_board(game, user)
    read = commands.read_command(kit, command, play.moves, names)
    if read.kind == "word":
        row.status, row.detail = Status.WORD, read.word
        try:
            if read.word == "pause":
                request_pause(user, game.pk, True)
            elif read.word == "back":
                come_back(user, game.pk)
            elif read.word == "mute":
                mute_game(user, game.pk, True)
        except ApplicationError as exc:
            row.detail = f"{read.word}: {text_of(exc)}"
        return
    if read.kind != "move":
        row.status, row.detail = Status.UNREADABLE, read.kind
        return
    try:
        outcome = submit_move(game.pk, read.move, user=user, expected_seq=play.seq,
                              own_decision_stands=True, channel="mail")
    except StaleSeq:
        row.status = Status.STALE
        return
    except (EngineError, ApplicationError) as exc:
        row.status = Status.ILLEGAL
        row.detail = text_of(exc, kit)[:2000]
        return
    row.status, row.move_seq = Status.PLAYED, outcome.body["seq"]
    row.detail = read.move.get("type", "")
