"""The table chat: its panel as the viewer reads it, its feed (htmx polling), writing at the
table, reporting a message and muting a player."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from games.core import catalog, selectors, services
from games.core.errors import ApplicationError, NotFound, text_of
from games.models import CHAT_MAX_LENGTH, Game
from games.web.clock import viewer_zone

#: How often a table's chat refreshes itself where the table's live part does not (before the
#: start, after the end).
CHAT_POLL_SECONDS = 5


def _is_moderator(user) -> bool:
    from moderation.services import is_moderator

    return is_moderator(user)


def chat_version(request, game: Game) -> str:
    """What the chat shown to this viewer depends on, for the ETags (its messages, hides and
    the viewer's mutes; the viewer's day, for the times shown without a date)."""
    today = timezone.now().astimezone(viewer_zone(request)).date()
    return f"{selectors.chat_version(game, request.user)}:{today.isoformat()}"


def _draft_key(game_id) -> str:
    return f"chat-draft-{game_id}"


def chat_context(request, loaded: selectors.Loaded, *, replay_at: int | None = None,
                  draft: bool = False) -> dict[str, Any] | None:
    """The chat panel: its latest messages as this viewer reads them (times in their zone),
    whether they may write, report, mute; ``None`` where the viewer may not see the game (an
    invite link's waiting room).

    Where the table's live part refreshes (a game under way), the chat's *feed* rides in it;
    elsewhere (before the start, after the end) the feed refreshes itself; a replay shows the
    messages written up to its move, still."""
    user, game = request.user, loaded.game
    if not selectors.can_see(game, loaded.seats, user):
        return None
    kit = catalog.get_kit(game.kind)
    zone = viewer_zone(request)
    today = timezone.now().astimezone(zone).date()
    me = loaded.player_of(user)
    moderator = _is_moderator(user)
    rows = selectors.latest_chat(game, user, with_hidden=moderator, upto_seq=replay_at)
    shown = []
    for message in rows:
        payload = selectors.chat_payload(message, kit)
        local = message.created_at.astimezone(zone)
        others = message.author_id is not None and message.author_id != user.pk
        shown.append({**payload, "local": local, "today": local.date() == today,
                      "can_report": others and me is not None and not payload["hidden"],
                      "can_mute": others and user.is_authenticated})
    muted_here = []
    if user.is_authenticated:
        mutes = {mute.muted_id for mute in services.chat.mutes_of(user)}
        muted_here = [seat.user.username for seat in loaded.seats if seat.user_id in mutes]
    # A refused message of a page without JavaScript: its text back in the box, the error by it.
    kept = (request.session.pop(_draft_key(game.pk), None)
            if draft and user.is_authenticated else None) or {}
    live = game.status in (Game.Status.ACTIVE, Game.Status.PAUSED)
    return {"messages": shown, "replay": replay_at is not None,
            "can_post": me is not None and replay_at is None,
            "feed": replay_at is None, "poll": replay_at is None and not live,
            "poll_seconds": CHAT_POLL_SECONDS, "muted_here": muted_here,
            "draft": kept.get("text", ""), "error": kept.get("error", ""),
            "max_length": CHAT_MAX_LENGTH, "over": game.status in (Game.Status.FINISHED,
                                                                   Game.Status.ABORTED)}


def _viewed(request, game_id) -> selectors.Loaded:
    """The game and its seats, for the chat (which shows nothing of the pending decisions)."""
    game = selectors.find_game(game_id)
    loaded = (selectors.load_for_viewer(game, request.user, with_state=False, with_pending=False)
              if game else None)
    if loaded is None:
        raise Http404(_("No such game."))
    return loaded


@require_http_methods(["GET", "POST"])
def chat(request, game_id):
    """GET: the chat's feed, for htmx polling (304 while nothing changed). POST: write at the
    table; without JavaScript the page comes back (with the text kept and the error beside it
    when it was refused), with htmx the form and the feed."""
    if request.method == "POST":
        return _chat_post(request, game_id)
    loaded = _viewed(request, game_id)
    etag = '"' + hashlib.sha256(json.dumps([
        str(game_id), request.user.pk if request.user.is_authenticated else None,
        getattr(request, "LANGUAGE_CODE", ""), str(viewer_zone(request)),
        chat_version(request, loaded.game)]).encode()).hexdigest()[:32] + '"'
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponse(status=304)
        response["ETag"] = etag
        return response
    response = render(request, "games/_chat_feed.html", {
        "game": loaded.game, "chat": chat_context(request, loaded)})
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    return response


def _chat_post(request, game_id):
    if not request.user.is_authenticated:
        return redirect(f"{reverse('account_login')}?next={reverse('game', args=[game_id])}")
    text = request.POST.get("text", "")
    error = ""
    try:
        services.chat.post_message(request.user, game_id, text)
    except NotFound as exc:
        raise Http404(text_of(exc)) from exc
    except ApplicationError as exc:
        error = text_of(exc)
    if request.htmx:
        loaded = _viewed(request, game_id)
        chat = chat_context(request, loaded)
        if chat is not None:
            chat["draft"], chat["error"] = (text, error) if error else ("", "")
        # (200 even for a refusal: htmx swaps the form with the error beside the text)
        return render(request, "games/_chat_post.html", {"game": loaded.game, "chat": chat})
    if error:
        request.session[_draft_key(game_id)] = {"text": text[:4 * CHAT_MAX_LENGTH],
                                                "error": error}
    return redirect(reverse("game", args=[game_id]) + "#chat")


@login_required
@require_POST
def chat_report(request, game_id, message_id: int):
    from moderation import services as moderation

    try:
        moderation.report_message(request.user, game_id, message_id,
                                  request.POST.get("reason") or "abuse",
                                  request.POST.get("text", ""))
    except NotFound as exc:
        raise Http404(text_of(exc)) from exc
    except ApplicationError as exc:
        messages.error(request, text_of(exc))
    else:
        messages.success(request, _("Thank you: the moderators will look at this message."))
    return redirect(reverse("game", args=[game_id]) + "#chat")


@login_required
@require_POST
def chat_mute(request, game_id):
    """Mute (``muted=1``) or unmute (``muted=0``) a user's chat messages, from a table."""
    name = request.POST.get("username", "")
    try:
        if request.POST.get("muted", "1") == "1":
            services.chat.mute(request.user, name)
            done = _("You no longer see %(name)s's messages (your profile lists the players "
                     "you muted).") % {"name": name}
        else:
            services.chat.unmute(request.user, name)
            done = _("You see %(name)s's messages again.") % {"name": name}
    except ApplicationError as exc:
        messages.error(request, text_of(exc))
    else:
        messages.success(request, done)
    return redirect(reverse("game", args=[game_id]) + "#chat")
