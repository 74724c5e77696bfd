"""What a mail says: its subject, its lines, the table and the moves a player may answer with
(:mod:`games.mail.outgoing`), in its user's language, as text and HTML, with a link to the game
and a one-click unsubscribe link (also in the ``List-Unsubscribe`` header)."""

from __future__ import annotations

import datetime as dt
import logging
import zoneinfo
from collections import defaultdict
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import dateformat, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from games.core import catalog, selectors
from games.core.kit import GameKit, bank_words
from games.mail.outgoing import message_domain, thread_headers
from games.models import ChatMessage, Notification
from games.notify.digests import DIGEST_QUOTED
from games.notify.outbox import DECISION_KINDS, Kind
from games.notify.unsubscribe import ALL_MAIL, CHAT_DIGEST, unsubscribe_token

logger = logging.getLogger(__name__)

def digest_sections(note: Notification) -> list[dict[str, Any]]:
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
        count = games[game_id].get("count", len(messages)) - (
            len(games[game_id].get("ids", [])) - len(messages))
        quoted = messages[-DIGEST_QUOTED:]
        lines = []
        for message in quoted:
            payload = selectors.chat_payload(message, kit)
            text = message.text
            if payload["source_label"]:
                text = pgettext("a chat line's source", "%(source)s:") % {
                    "source": payload["source_label"]} + " " + text
            when = dateformat.format(message.created_at.astimezone(zone), "D H:i")
            lines.append({"who": payload["player"] or "?", "when": when, "text": text,
                          "colon": pgettext("after a label", ":")})
        sections.append({
            "title": _("“%(name)s”, a game of %(game)s") % {
                "name": game.title, "game": kit.name if kit else game.kind},
            "url": game_url(game.pk), "count": count, "lines": lines,
            "more": max(0, count - len(quoted))})
    return sections


def game_url(game_id) -> str:
    return f"{settings.SITE_URL}/games/{game_id}/"


def _link(note: Notification) -> str:
    """The mail's link: its game's page (an invitation to a private table with its invite
    code: the invited player has no seat there yet), else the site."""
    if note.game_id is None:
        return settings.SITE_URL + "/"
    if note.kind == Kind.INVITED and note.game.private:
        return f"{game_url(note.game_id)}?invite={note.game.invite_code}"
    return game_url(note.game_id)


#: The mails about one game to one player: they share one subject and one conversation.
THREADED_KINDS = (*DECISION_KINDS, Kind.REMINDER, Kind.STARTED, Kind.ENDED, Kind.ABSENT,
                  Kind.MAIL_REPLY)


def _subject_and_lines(note: Notification, folded: list[Notification]
                       ) -> tuple[str, str, list[str]]:
    """The mail's subject, its headline (what it is about, for the inbox's preview of a mail
    whose subject is its game's) and its lines."""
    game = note.game
    kit = catalog.find_kit(game.kind) if game else None
    label = _("“%(name)s”") % {"name": game.title if game else "?"}
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
        subject = _("%(game)s has started") % {"game": label}
        lines = [_("Every seat is taken: the game has started.")]
    elif note.kind == Kind.INVITED:
        by = ctx.get("by") or "?"
        subject = _("%(player)s asks you to play again") % {"player": by}
        lines = [_("%(player)s opened a new table to play again, with the same game and "
                   "options: your seat there is kept for you.") % {"player": by},
                 _("Take it on the game's page; the game starts when every invited player has "
                   "sat down.")]
    elif note.kind == Kind.ENDED:
        winners = ", ".join(str(w) for w in ctx.get("winners", []))
        subject = _("%(game)s is over") % {"game": label}
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
    if isinstance(ctx.get("bank"), int) and note.kind in DECISION_KINDS:
        lines.append(_("Your time bank holds %(left)s for this decision: the deadline is when "
                       "it runs out.") % {"left": bank_words(ctx["bank"])})
    if folded and note.kind == Kind.MAIL_REPLY:
        lines += _carried_lines(folded, kit, label)
    elif folded:
        lines.append(ngettext("(%(count)d more decision awaited you in this game meanwhile.)",
                              "(%(count)d more decisions awaited you in this game meanwhile.)",
                              len(folded)) % {"count": len(folded)})
    # The game's name, or the site's for a mail about no game.
    prefix = f"[{kit.name if kit else _('Mascarade Online')}]"
    if game is not None and note.kind in THREADED_KINDS:
        # One subject for all of a game's mails, whatever they say or answer (threaded by
        # games.mail.outgoing.thread_headers): what this one is about is said by its lines.
        return f"{prefix} {label}", subject, lines
    return f"{prefix} {subject}", "", lines


def _carried_lines(folded: list[Notification], kit, label: str) -> list[str]:
    """What the answer to a player's mail says of the decisions that came to them meanwhile
    (the bots answered within the debounce: ``games.notify.delivery``): each one's line, once;
    its moves are in the listing."""
    lines: list[str] = []
    for other in folded:
        if other.kind in DECISION_KINDS:
            line = str((kit or GameKit()).decision_mail(other.context.get("decision", ""))[2]
                       ) % {"game": label}
            if line not in lines:
                lines.append(line)
    return lines


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
    subject = _("About your mail in %(game)s") % {"game": label}
    if inbound is None:
        return subject, []
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
    elif inbound.status in (Inbound.REFUSED, Inbound.EXPIRED, Inbound.THROTTLED):
        lines = _unplayed_lines(inbound)
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
            "command": command}, *_suggestion_lines(note, command)]
    return subject, lines


def _suggestion_lines(note: Notification, command: str) -> list[str]:
    """The moves listed below (the player's now) that an unknown command most likely meant
    (``games.mail.commands.CommandReader.suggest``: ``annoncer thief``), in the player's
    language with their numbers: "Did you mean “annoncer voleur” (5)?"; none if none."""
    from games.mail import commands
    from games.mail.outgoing import names_and_board
    from games.models import Game

    if not command or note.game is None or note.game.status != Game.Status.ACTIVE:
        return []
    kit = catalog.get_kit(note.game.kind)
    names, _board, payload = names_and_board(note.game, note.user)
    legal = (payload["you"] or {}).get("legal_moves", [])
    meant = commands.CommandReader(kit, legal, names).suggest(command)
    if not meant:
        return []
    listed = commands.command_list(kit, legal, names,
                                   translation.get_language() or settings.LANGUAGE_CODE)
    named = [_("“%(command)s” (%(number)d)") % {"command": listed[i][1], "number": listed[i][0]}
             for i in meant]
    if len(named) == 1:
        return [_("Did you mean %(command)s?") % {"command": named[0]}]
    return [_("Did you mean one of these: %(commands)s?") % {"commands": ", ".join(named)}]


def _unplayed_lines(inbound) -> list[str]:
    """Why a mail from the player's address was not read (``games.mail.receive``): its sender
    was not authenticated, its reply address is too old, or too many mails came."""
    Inbound = type(inbound).Status
    if inbound.status == Inbound.REFUSED:
        why = (_("the address it was sent from (its envelope) is not the one in its From")
               if inbound.detail.startswith("envelope") else
               _("the checks of the sender's mail provider (SPF, DMARC) failed for it"))
        return [_("A mail sent in your name to your reply address for this game was not "
                  "played, because its sender could not be checked: %(why)s.") % {"why": why},
                _("If you sent it, answer this mail from your usual mail account. If you did "
                  "not, someone may be trying to play in your name: nothing was done.")]
    if inbound.status == Inbound.EXPIRED:
        days = settings.MAIL_REPLY_DAYS
        return [ngettext("The mail you answered is too old (a reply address works for %(days)d "
                         "day): “%(command)s” was not played. Here is the game now, with a new "
                         "address.",
                         "The mail you answered is too old (a reply address works for %(days)d "
                         "days): “%(command)s” was not played. Here is the game now, with a new "
                         "address.", days) % {"days": days, "command": inbound.command}]
    minutes = max(1, settings.MAIL_WINDOW_SECONDS // 60)
    return [ngettext("You sent many mails about this game: this one was not read, and the next "
                     "ones will be neither read nor answered for up to %(minutes)d minute. Play "
                     "on the game's page meanwhile.",
                     "You sent many mails about this game: this one was not read, and the next "
                     "ones will be neither read nor answered for up to %(minutes)d minutes. Play "
                     "on the game's page meanwhile.", minutes) % {"minutes": minutes}]


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
            sections = digest_sections(note)
            subject = f"[{_('Mascarade Online')}] {_('New messages at your tables')}"
            headline, lines = "", []
        else:
            sections = []
            subject, headline, lines = _subject_and_lines(note, folded or [])
        listing = None
        if note.kind in PLAYABLE_KINDS and note.game_id is not None:
            from games.mail.outgoing import listing as new_listing

            listing = new_listing(note.game, user)
        unsubscribe = settings.SITE_URL + reverse("unsubscribe", args=[unsubscribe_token(
            user, CHAT_DIGEST if digest else ALL_MAIL)])
        context: dict[str, Any] = {
            "user": user, "lines": lines, "subject": subject, "sections": sections,
            "headline": headline,
            "game_url": _link(note),
            "profile_url": settings.SITE_URL + reverse("profile"),
            "unsubscribe_url": unsubscribe, "listing": listing,
        }
        name = "email/chat_digest" if digest else "email/notification"
        text = render_to_string(f"{name}.txt", context)
        html = render_to_string(f"{name}.html", context)
    domain = message_domain()
    message = EmailMultiAlternatives(
        subject=subject, body=text, to=[user.email],
        headers={"Auto-Submitted": "auto-generated",
                 "List-Unsubscribe": f"<{unsubscribe}>",
                 "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
                 "Message-ID": f"<{note.dedupe_key.replace(':', '.')}@{domain}>"})
    if listing is not None:
        message.reply_to = [listing.reply_to]
    answered = ""
    if note.kind == Kind.MAIL_REPLY:
        from games.models import InboundMessage

        answered = (InboundMessage.objects.filter(pk=note.context.get("inbound"))
                    .values_list("message_id", flat=True).first()) or ""
        message.extra_headers["Auto-Submitted"] = "auto-replied"
    if note.game_id is not None and note.kind in THREADED_KINDS:
        message.extra_headers.update(thread_headers(note.game_id, user.pk, answered,
                                                    root=note.kind == Kind.STARTED))
    message.attach_alternative(html, "text/html")
    return message
