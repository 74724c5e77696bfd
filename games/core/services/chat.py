"""The table chat: a player's message, and the mutes each viewer keeps.

Who may write: the human players seated at the game (any status: before the start, during the
game, and after it ends, for post-game talk), not spectators, not a blocked account (bots never
write here: their seats' lines come from the game's rules, appended by the write core with the
move, ``GameKit.chat_lines``). A message is what the player typed, stripped of the blanks around
it: 1 to :data:`~games.models.CHAT_MAX_LENGTH` characters, at least one of them visible (not
only zero-width or blank ones), no control character but line breaks and tabs, no bidirectional
override. At most :data:`MESSAGES_PER_WINDOW` messages per :data:`WINDOW` per player and game:
one limit for the pages and the API, checked under a lock of the player's seat, so that
concurrent requests cannot all pass it.

Messages are never changed nor deleted (the table is append-only); a moderator hides one
(``moderation.services.hide_message``). Refusals are the domain errors of :mod:`games.core.errors`,
in the user's language; a refused message changes nothing.
"""

from __future__ import annotations

import datetime as dt
import math
import unicodedata

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import ChatMute, User
from games.core import events, selectors
from games.core.errors import Forbidden, Invalid, NotFound, RateLimited
from games.models import CHAT_MAX_LENGTH, ChatMessage, Seat

#: Messages a player may write in one game per :data:`WINDOW`.
MESSAGES_PER_WINDOW = 6
WINDOW = dt.timedelta(minutes=1)

#: Formatting characters that reorder the text shown around them (a name could be made to look
#: like another's words): refused like control characters.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


#: Letters drawn as blanks (Hangul fillers, the braille blank), which Unicode's categories do not
#: tell from visible ones.
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _invisible(char: str) -> bool:
    """Whether ``char`` draws nothing by itself: a space, a format character (zero-width space,
    joiners, word joiner, soft hyphen, tags...), a mark with nothing to sit on, a control, a
    private-use or unassigned code point, or a letter drawn blank."""
    return (char.isspace() or char in BLANK_LETTERS
            or unicodedata.category(char) in ("Cf", "Cc", "Co", "Cn", "Mn", "Me", "Zs", "Zl",
                                              "Zp"))


def clean_text(text) -> str:
    """The message as it will be stored, or :class:`Invalid` (``fields.text``) saying what is
    wrong with it."""
    if not isinstance(text, str):
        raise Invalid({"text": [_("Write your message as text.")]})
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise Invalid({"text": [_("Write something first: the message is empty.")]})
    if all(_invisible(c) for c in text):
        raise Invalid({"text": [_("Write something first: the message holds only invisible "
                                  "characters.")]})
    if len(text) > CHAT_MAX_LENGTH:
        raise Invalid({"text": [ngettext(
            "A message has at most %(max)d character; this one has %(n)d.",
            "A message has at most %(max)d characters; this one has %(n)d.",
            CHAT_MAX_LENGTH) % {"max": CHAT_MAX_LENGTH, "n": len(text)}]})
    if any((unicodedata.category(c) == "Cc" and c not in "\n\t") or c in BIDI_CONTROLS
           for c in text):
        raise Invalid({"text": [_("The message holds control characters: send plain text "
                                  "(line breaks are fine).")]})
    return text


def post_message(user, game_id, text) -> ChatMessage:
    """``user`` writes ``text`` at the table of ``game_id``.

    Refusals: :class:`Invalid` (the text), :class:`NotFound` (no such game, or a private game
    ``user`` does not play in: as every game endpoint answers), :class:`Forbidden` (a
    spectator, a blocked account), :class:`RateLimited` (too many messages lately, with the
    seconds to wait)."""
    text = clean_text(text)
    if user is None or not user.is_authenticated:
        raise Forbidden(_("Log in to write at the table."))
    blocked = user.blocked_reason()
    if blocked:
        raise Forbidden(blocked)
    game = selectors.find_game(game_id)
    if game is None:
        raise NotFound(_("No such game."))
    seats = selectors.seats_of(game)
    if not selectors.can_see(game, seats, user):
        raise NotFound(_("No such game."))
    mine = next((seat for seat in seats if seat.user_id == user.pk), None)
    if mine is None:
        raise Forbidden(_("Only the players of this game write at its table; spectators "
                          "read."))
    with transaction.atomic():
        # The player's seat, locked: their messages in this game are counted one at a time.
        if not Seat.objects.select_for_update().filter(pk=mine.pk, user_id=user.pk).exists():
            raise Forbidden(_("Only the players of this game write at its table; spectators "
                              "read."))
        now = timezone.now()
        recent = list(ChatMessage.objects.filter(game_id=game.pk, author_id=user.pk, source="",
                                                 created_at__gt=now - WINDOW)
                      .order_by("-created_at").values_list("created_at", flat=True)
                      [:MESSAGES_PER_WINDOW])
        if len(recent) >= MESSAGES_PER_WINDOW:
            wait = math.ceil((recent[-1] + WINDOW - now).total_seconds())
            raise RateLimited(wait, ngettext(
                "You are writing too fast: at most %(n)d message a minute at one table. "
                "Try again in %(s)d seconds.",
                "You are writing too fast: at most %(n)d messages a minute at one table. "
                "Try again in %(s)d seconds.", MESSAGES_PER_WINDOW)
                % {"n": MESSAGES_PER_WINDOW, "s": max(1, wait)})
        events.publish(events.ChatChanged(game_id=game.pk))
        return ChatMessage.objects.create(game=game, author=user, seat=mine.position,
                                          text=text, seq=game.seq)


def _user_named(username) -> User:
    if not isinstance(username, str) or "\x00" in username:  # (the database refuses NUL)
        raise NotFound(_("No such user."))
    user = User.objects.filter(username=username).first()
    if user is None:
        raise NotFound(_("No such user."))
    return user


def mute(user, username) -> tuple[ChatMute, bool]:
    """``user`` no longer reads the chat messages of ``username`` (pages, API, digest); returns
    the mute and whether it is new. Muting someone twice changes nothing."""
    target = _user_named(username)
    if target.pk == user.pk:
        raise Invalid({"username": [_("You cannot mute yourself.")]})
    existing = ChatMute.objects.filter(user=user, muted=target).select_related("muted").first()
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            return ChatMute.objects.create(user=user, muted=target), True
    except IntegrityError:  # muted meanwhile by a concurrent request
        return ChatMute.objects.get(user=user, muted=target), False


def unmute(user, username) -> None:
    """``user`` reads ``username``'s messages again; :class:`NotFound` if they were not
    muted."""
    target = _user_named(username)
    deleted, _rows = ChatMute.objects.filter(user=user, muted=target).delete()
    if not deleted:
        raise NotFound(_("You have not muted %(name)s.") % {"name": target.username})


def mutes_of(user) -> list[ChatMute]:
    """The users ``user`` muted, oldest mute first."""
    return list(ChatMute.objects.filter(user=user).select_related("muted"))
