"""Playing by mail, the incoming half: one service for every way a mail comes in (the SMTP/LMTP
receiver, a provider's webhook).

:func:`receive_mail` keeps every message (its first ``INBOUND_KEPT_BYTES``) with what became of
it, and plays a move only when all of this holds:

- the message is not larger than ``inbound_mail.MAX_BYTES`` and can be read;
- it is not automatic (an auto-reply, an out-of-office, a bounce, a list's mail): such a mail is
  never played and never answered, so that no two robots answer each other;
- it is addressed to a reply address of ours whose signature holds and which has not expired
  (``games.mail.outgoing``);
- its sender is the address of the player the listing was for, and that address is verified;
- the same message (its Message-ID, from that sender) was not handled already.

Those refusals are silent: the sender may not be who they say, and an answer to a forged or
stray mail would be spam. Past them, the command (the first line of the reply's own text) is
read against the listing the mail answered (``games.mail.commands``): a number is the move listed
with it, a command names a move in English or French, and ``help``, ``status``, ``pause``,
``back`` and ``mute`` work as on the pages. A move goes through :func:`~.moves.submit_move`, like
the API's and the pages' (lock, checks, idempotency, deadlines, events, bots), with the seq of the
listing and the pages' rule: it is played only while the decision it answers is still awaited;
otherwise nothing is played and the answer shows the situation now.

Every handled mail is answered, in the player's language, through the outbox
(``Notification.Kind.MAIL_REPLY``): what the move did and what comes next, or why nothing was
played, with the moves listed again and a new reply address.

Locking duties: the listing's row is locked while its message is handled, so that the same
message delivered twice at once is handled once; the game's row is locked by the move's service
after it (always in that order).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.conf import settings
from django.db import transaction
from django.utils import translation

from games.core import catalog, events
from games.core.errors import ApplicationError, StaleSeq, text_of
from games.core.services.moves import submit_move
from games.core.services.table import come_back, mute_game, request_pause
from games.engine import EngineError
from games.mail import commands
from games.mail import parsing as inbound_mail
from games.mail.outgoing import names_and_board, play_of
from games.models import INBOUND_KEPT_BYTES, InboundMessage, MailPlay

logger = logging.getLogger(__name__)

Status = InboundMessage.Status


def receive_mail(raw: bytes, *, recipients: Sequence[str] = (), sender: str | None = None,
                 via: str) -> InboundMessage:
    """Store and act on one inbound message (see the module's text). Never raises for a bad
    message: it is stored with what became of it. Raises only if the database is down."""
    row = InboundMessage(via=via[:32], size=len(raw), raw=bytes(raw[:INBOUND_KEPT_BYTES]))
    if len(raw) > inbound_mail.MAX_BYTES:
        return _keep(row, Status.TOO_LARGE)
    try:
        mail = inbound_mail.parse(raw, envelope_recipients=recipients, envelope_sender=sender)
    except inbound_mail.MalformedMail as exc:
        return _keep(row, Status.MALFORMED, str(exc))
    row.message_id = mail.message_id[:255]
    row.sender = mail.sender[:254]
    row.subject = mail.subject[:255]
    row.command = (mail.command or "")[:500]
    if mail.automatic:
        return _keep(row, Status.AUTOMATIC, mail.automatic)
    play, problem = None, "no_token"
    for address in mail.recipients:
        play, problem = play_of(address)
        if problem != "no_token":
            row.recipient = address[:254]
            break
    if problem:
        status = {"no_token": Status.NO_TOKEN, "bad_token": Status.BAD_TOKEN,
                  "expired": Status.EXPIRED}[problem]
        if play is not None:
            row.user, row.game = play.user, play.game
        return _keep(row, status)
    row.user, row.game, row.play = play.user, play.game, play
    if not _sender_is_the_player(mail.sender, play.user):
        return _keep(row, Status.WRONG_SENDER)
    with transaction.atomic():
        MailPlay.objects.select_for_update().filter(pk=play.pk).first()
        if row.message_id and InboundMessage.objects.filter(
                message_id=row.message_id, sender=row.sender,
                status__in=_HANDLED).exists():
            return _keep(row, Status.DUPLICATE)
        _act(row, play, mail.command)
        row.save()
        events.publish(events.MailHandled(row=row))
    return row


#: The outcomes of a message that was handled (a second copy of it is a duplicate).
_HANDLED = (Status.PLAYED, Status.WORD, Status.UNREADABLE, Status.ILLEGAL, Status.STALE)


def _keep(row: InboundMessage, status: str, detail: str = "") -> InboundMessage:
    row.status, row.detail = status, detail[:2000]
    row.save()
    return row


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
