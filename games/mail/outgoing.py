"""Playing by mail, the outgoing half: what a mail to a player about a game lists (the table as
text, the decisions awaited with their deadlines in the player's time zone, the player's legal
moves as numbered commands in their language) and the signed reply address that names that
list.

A listing is stored (:class:`~games.models.MailPlay`: the user, the game, its seq, the moves) and
the mail's ``Reply-To`` is ``play+<id>.<signature>@<MAIL_DOMAIN>``: the signature is an HMAC of
the row's id, user, game and seq under the site's secret (lower-case hex, so that a mail system
that folds the address's case keeps it valid); it expires ``MAIL_REPLY_DAYS`` (7 by default)
after the listing (an answer to an older one is told so: ``games.mail.receive``). Within those
days it plays only the decision its mail listed (the listing's seq, ``games.mail.receive``).
An answer is read against its listing (``games.mail.receive``): "2" is the second move listed.

Everything here comes from the viewer's projection (``games.core.selectors``) and the game's kit
(``status_lines``, ``command_words``: ``games.mail.commands``); nothing here knows a game.
"""

from __future__ import annotations

import datetime as dt
import hmac
import re
import zoneinfo
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import Max
from django.utils import timezone, translation
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.core import catalog, selectors
from games.core.kit import Board, history_lines, history_text, seat_name, waiting_line
from games.mail import commands
from games.models import Game, MailPlay, MoveRecord

#: (the module's name when the first addresses were signed: replies to older mails still work)
SALT = "games.mail_play.reply"
_ADDRESS = re.compile(r"^play\+(\d{1,18})\.([0-9a-f]{24})@(.+)$")


def _signature(play: MailPlay) -> str:
    raw = f"{play.pk}:{play.user_id}:{play.game_id}:{play.seq}"
    return salted_hmac(SALT, raw, algorithm="sha256").hexdigest()[:24]


def reply_address(play: MailPlay) -> str:
    return f"play+{play.pk}.{_signature(play)}@{settings.MAIL_DOMAIN}"


def play_of(address: str, now: dt.datetime | None = None) -> tuple[MailPlay | None, str]:
    """The listing a reply address names, or why none: ``"no_token"`` (not one of our play
    addresses), ``"bad_token"`` (no such listing, or a signature that does not match),
    ``"expired"``."""
    match = _ADDRESS.match((address or "").strip().lower())
    if not match or match.group(3) != settings.MAIL_DOMAIN.lower():
        return None, "no_token"
    play = (MailPlay.objects.select_related("user", "game").filter(pk=int(match.group(1)))
            .first())
    if play is None or not hmac.compare_digest(_signature(play), match.group(2)):
        return None, "bad_token"
    if (now or timezone.now()) > play.created_at + dt.timedelta(days=settings.MAIL_REPLY_DAYS):
        return play, "expired"
    return play, ""


@dataclass
class Listing:
    """What a mail about a game shows its player, in their language."""

    play: MailPlay
    #: The table as text (the kit's ``status_lines``).
    status: list[str] = field(default_factory=list)
    #: Who is awaited for what, and until when (in the player's time zone).
    awaiting: list[str] = field(default_factory=list)
    #: ``(number, command)`` of each legal move.
    commands: list[tuple[int, str]] = field(default_factory=list)
    #: The commands of the moves that take free text (a card's words): their first words.
    free: list[str] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)
    #: What the commands' words mean, where they alone may not say it (the kit's
    #: ``command_notes``).
    notes: list[str] = field(default_factory=list)
    #: What happened since the reader's last move: a heading, then the history's lines.
    since: list[str] = field(default_factory=list)

    @property
    def reply_to(self) -> str:
        return reply_address(self.play)


def _zone(user) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(user.timezone or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def when(value: str | dt.datetime | None, user) -> str:
    """A deadline in the user's time zone, saying the zone."""
    if not value:
        return ""
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value.astimezone(_zone(user)).strftime("%Y-%m-%d %H:%M %Z")


#: The moves whose events a mail's board gets (what the kit may say of the latest ones).
RECENT_MOVES = 10


def names_and_board(game: Game, user) -> tuple[dict[int, str], Board | None, dict[str, Any]]:
    """The viewer's projection of ``game`` as the kits read it, as the table page builds it
    (``games.mail.commands.table_board``): seat names, the board with the latest events, and the
    API's payload (``None`` board before the start)."""
    loaded = selectors.load_for_viewer(game, user)
    payload = selectors.game_payload(loaded, user)
    if not payload["state"]:
        return {}, None, payload
    recent = selectors.events_payload(loaded, user, max(0, game.seq - RECENT_MOVES),
                                      limit=RECENT_MOVES)["results"]
    board = commands.table_board(game, payload, recent)
    return board.names, board, payload


def since_lines(kit, game: Game, user, board: Board) -> list[str]:
    """What happened at the table since ``user``'s last move there (since the start if none):
    a heading, then the history's lines of the latest moves (at most :data:`RECENT_MOVES`, the
    board's; a line says how many earlier ones the game's page has). Empty when nothing did."""
    last = (MoveRecord.objects.filter(game_id=game.pk, seat__user=user,
                                      actor=MoveRecord.Actor.PLAYER)
            .aggregate(last=Max("seq"))["last"]) or 0
    earlier = max(0, game.seq - RECENT_MOVES - last)  # (the board has the latest moves only)
    # From the start: what the setup did that no move tells (Shadow House's First on scene),
    # even before move 1.
    opening = (selectors.opening_events(selectors.load_for_viewer(game, user, with_state=False),
                                        user) if not last and not earlier else [])
    if last >= game.seq and not opening:
        return []
    events = opening + [event for event in board.recent if event.get("seq", 0) > last]
    # Oldest first, as the game's page: a move's number on its first line, the others under it.
    lines = [history_text(line) for line in history_lines(kit, events, board.names)]
    heading = (_("Since your last move (#%(seq)d):") % {"seq": last} if last
               else _("Since the start:"))
    if earlier:
        lines.insert(0, ngettext("(%(n)d earlier move: see the game's page.)",
                                 "(%(n)d earlier moves: see the game's page.)", earlier)
                     % {"n": earlier})
    return [heading, *lines] if lines else []


def listing(game: Game, user) -> Listing:
    """A new listing of ``user``'s moves in ``game`` now (stored: its reply address names it),
    worded in the active language."""
    kit = catalog.get_kit(game.kind)
    names, board, payload = names_and_board(game, user)
    you = payload["you"] or {}
    legal = you.get("legal_moves", []) if game.status == Game.Status.ACTIVE else []
    play = MailPlay.objects.create(user=user, game=game, seq=game.seq, moves=legal)
    out = Listing(play=play, names=names)
    if board is None:
        return out
    out.since = since_lines(kit, game, user, board)
    # The kit's "Waiting for" line is said below, with each deadline in the reader's zone.
    waiting = waiting_line(board, kit.decision_words)
    out.status = [str(line) for line in kit.status_lines(board) if line and line != waiting]
    for item in board.state.get("awaiting", []):
        words = kit.decision_words(item["decision"])
        who = (_("you") if item["seat"] == you.get("seat")
               else seat_name(item["seat"], names))
        line = _("Awaited: %(who)s, to %(what)s") % {"who": who, "what": words}
        if item.get("deadline"):
            line += " " + _("(until %(when)s)") % {"when": when(item["deadline"], user)}
        out.awaiting.append(line + ".")
    language = translation.get_language() or settings.LANGUAGE_CODE
    listed = commands.command_list(kit, legal, names, language)
    out.commands = [(n, text) for n, text, _move in listed]
    out.notes = [str(note) for note in kit.command_notes(legal)]
    out.free = sorted({text for _n, text, move in listed
                       if move.get("type") in kit.free_text_moves})
    return out


# --------------------------------------------------------------------------------------------
# Threading: every mail to a player about a game, one conversation


def message_domain() -> str:
    """The domain of the Message-IDs the site writes: its address's host."""
    return settings.SITE_URL.split("//", 1)[-1].split("/", 1)[0].split(":", 1)[0]


def thread_root(game_id: Any, user_id: Any) -> str:
    """The Message-ID (without its angle brackets) at the root of ``user``'s mails about
    ``game``: the game's "started" mail has it as its own, every other mail about the game
    refers to it, so that mail clients show them as one conversation (one subject, too)."""
    return f"game.{game_id}.{user_id}@{message_domain()}"


def thread_headers(game_id: Any, user_id: Any, answered: str = "",
                   root: bool = False) -> dict[str, str]:
    """The ``Message-ID``/``In-Reply-To``/``References`` headers that put a mail in its game's
    conversation: the root's own Message-ID for the first mail (``root``); for the others,
    the root, then ``answered`` (the Message-ID of the player's mail it answers, if any) as
    the message replied to (RFC 5322 §3.6.4)."""
    top = f"<{thread_root(game_id, user_id)}>"
    if root:
        return {"Message-ID": top}
    parent = f"<{answered}>" if answered else top
    return {"In-Reply-To": parent,
            "References": f"{top} {parent}" if answered else top}
