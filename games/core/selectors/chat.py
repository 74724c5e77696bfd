"""The table chat as a viewer reads it: the messages they may see (neither hidden by a moderator
nor written by someone they muted), pages of them, and a reported message's context.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Exists, Max, OuterRef, QuerySet

from accounts.models import ChatMute
from games.core.catalog import get_kit
from games.core.selectors.state import iso
from games.models import ChatHide, ChatMessage, Game

#: The latest messages a table page shows (the API pages through all of them).
CHAT_PAGE_MESSAGES = 100


#: Messages a moderator sees on each side of a reported one.
CHAT_CONTEXT = 5


def _with_hidden_flag(qs: QuerySet[ChatMessage]) -> QuerySet[ChatMessage]:
    return qs.select_related("author").annotate(
        hidden=Exists(ChatHide.objects.filter(message_id=OuterRef("pk"))))


def chat_messages(game: Game, viewer, *, with_hidden: bool = False,
                  after: int | None = None) -> QuerySet[ChatMessage]:
    """The table chat of ``game`` as ``viewer`` reads it, oldest first: without the messages
    of the users they muted, nor those a moderator hid (``with_hidden``: with them, each
    marked ``hidden``: for moderators); with ``after``, only the messages after that one.
    The caller has checked that ``viewer`` may see the game (:func:`can_see`)."""
    qs = _with_hidden_flag(ChatMessage.objects.filter(game_id=game.pk))
    if not with_hidden:
        qs = qs.filter(hidden=False)
    if after is not None:
        qs = qs.filter(pk__gt=after)
    if viewer is not None and viewer.is_authenticated:
        qs = qs.exclude(author_id__in=ChatMute.objects.filter(user_id=viewer.pk)
                        .values("muted_id"))
    return qs.order_by("id")


def latest_chat(game: Game, viewer, *, with_hidden: bool = False, upto_seq: int | None = None,
                limit: int = CHAT_PAGE_MESSAGES) -> list[ChatMessage]:
    """The latest ``limit`` messages of :func:`chat_messages`, oldest first (those written up
    to the move ``upto_seq`` for a replay)."""
    qs = chat_messages(game, viewer, with_hidden=with_hidden)
    if upto_seq is not None:
        qs = qs.filter(seq__lte=upto_seq)
    return list(reversed(qs.order_by("-id")[:limit]))


def chat_version(game: Game, viewer) -> str:
    """What changes whenever ``viewer``'s chat of ``game`` may read differently: its last
    message, its last hide, the viewer's mutes (for the table's live ETag)."""
    found = ChatMessage.objects.filter(game_id=game.pk).aggregate(last=Max("id"),
                                                                  hidden=Max("hide__id"))
    mutes: dict[str, Any] = {}
    if viewer is not None and viewer.is_authenticated:
        mutes = ChatMute.objects.filter(user_id=viewer.pk).aggregate(count=Count("id"),
                                                                     last=Max("id"))
    return f"{found['last']}:{found['hidden']}:{mutes.get('count')}:{mutes.get('last')}"


def chat_payload(message: ChatMessage, kit=None) -> dict[str, Any]:
    """A chat message as the API gives it: who wrote it (their name and seat; a bot's seat has
    no user), what they wrote, as written (never changed: a client escapes it where it shows
    it), the label of its source for a line of the game's rules, and whether a moderator hid
    it (only moderators are ever given hidden messages)."""
    name = None
    if message.author_id is not None:
        name = message.author.username
    elif message.seat is not None:
        name = f"Bot {message.seat + 1}"
    label = None
    if message.source:
        kit = kit or get_kit(message.game.kind)
        label = str(kit.chat_source_label(message.source))
    return {"id": message.pk, "seq": message.seq, "player": name, "position": message.seat,
            "is_bot": message.author_id is None, "text": message.text,
            "source": message.source or None, "source_label": label,
            "created_at": iso(message.created_at),
            "hidden": bool(getattr(message, "hidden", False))}


def chat_context(message: ChatMessage, around: int = CHAT_CONTEXT) -> list[ChatMessage]:
    """The reported ``message`` with up to ``around`` messages of its game on each side, hidden
    ones included (marked), oldest first: what a moderator reads it in."""
    game_messages = _with_hidden_flag(ChatMessage.objects.filter(game_id=message.game_id))
    before = list(game_messages.filter(pk__lt=message.pk).order_by("-id")[:around])
    rest = list(game_messages.filter(pk__gte=message.pk).order_by("id")[:around + 1])
    return [*reversed(before), *rest]
