"""The table's forms: each posts one action (a move, join, leave, bots, back, pause, the game's
emails, a report) through ``services`` and comes back to the table, with the outcome or the
refusal in words as a message."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.core import catalog, selectors, services
from games.core.errors import ApplicationError, NotFound, text_of
from games.core.kit import GameKit
from games.engine import EngineError


def _kit_of(game_id) -> GameKit | None:
    """The kit of a game, to word a refusal of its rules."""
    game = selectors.find_game(game_id)
    return catalog.find_kit(game.kind) if game is not None else None


def _act(request, game_id, work, success: str | None = None):
    """Do ``work`` (a service's call), then back to the table: ``success`` said when it is done,
    the refusal in words when it is refused, 404 for a game that is not there."""
    try:
        work()
    except NotFound as exc:
        raise Http404(text_of(exc)) from exc
    except (ApplicationError, EngineError) as exc:
        messages.error(request, text_of(exc, _kit_of(game_id) if isinstance(exc, EngineError)
                                        else None))
    else:
        if success:
            messages.success(request, success)
    return redirect("game", game_id)


@login_required
@require_POST
def move(request, game_id):
    raw = request.POST.get("move", "")
    try:
        chosen = json.loads(raw)
        expected = int(request.POST.get("expected_seq", ""))
    except (ValueError, TypeError):
        messages.error(request, _("Choose one of the moves offered."))
        return redirect("game", game_id)
    if isinstance(chosen, dict):
        # A move's free field typed in the form (a game's text box: ``field_<name>``) takes
        # the place of the value offered; the rules check it like any client's.
        for key in list(chosen):
            typed = request.POST.get(f"field_{key}")
            if key != "type" and typed is not None:
                if isinstance(chosen[key], bool):  # a radio's true or false
                    typed = {"true": True, "false": False}.get(typed, typed)
                chosen[key] = typed
    return _act(request, game_id, lambda: services.submit_move(
        game_id, chosen, user=request.user, expected_seq=expected, own_decision_stands=True,
        channel="web"))


@login_required
@require_POST
def join(request, game_id):
    return _act(request, game_id, lambda: services.join_game(
        request.user, game_id, request.POST.get("invite_code")), _("You joined the game."))


@login_required
@require_POST
def rematch(request, game_id):
    """"Play again" at a finished game: to the new table (made now, or by another player, the
    seat kept there taken), or back to the game with the refusal."""
    try:
        body, made = services.rematch(request.user, game_id)
    except NotFound as exc:
        raise Http404(text_of(exc)) from exc
    except ApplicationError as exc:
        messages.error(request, text_of(exc))
        return redirect("game", game_id)
    messages.success(request, _("A new table is open: your players are invited back to it. "
                                "The game starts when they have all sat down.") if made else
                     _("Here is the table where this game is played again."))
    return redirect("game", body["id"])


@login_required
@require_POST
def decline(request, game_id):
    """An invited player declines: the seat kept for them is free."""
    return _act(request, game_id, lambda: services.decline_invitation(request.user, game_id),
                _("You declined the invitation: your seat is free for others."))


@login_required
@require_POST
def leave(request, game_id):
    return _act(request, game_id, lambda: services.leave_game(request.user, game_id),
                _("You left the game."))


@login_required
@require_POST
def bots(request, game_id):
    try:
        count = int(request.POST.get("count", "1"))
    except ValueError:
        count = 0
    return _act(request, game_id, lambda: services.add_bots(request.user, game_id, count))


@login_required
@require_POST
def back(request, game_id):
    return _act(request, game_id, lambda: services.come_back(request.user, game_id),
                _("Welcome back: your seat is yours again."))


@login_required
@require_POST
def pause(request, game_id):
    wanted = request.POST.get("pause") == "1"
    return _act(request, game_id, lambda: services.request_pause(request.user, game_id, wanted))


@login_required
@require_POST
def mute(request, game_id):
    muted = request.POST.get("muted") == "1"
    return _act(request, game_id, lambda: services.mute_game(request.user, game_id, muted),
                _("This game's emails are off.") if muted else _("This game's emails are on."))


@login_required
@require_POST
def report(request, game_id):
    from moderation import services as moderation

    return _act(request, game_id, lambda: moderation.file_report(
        request.user, game_id, request.POST.get("reported", ""), request.POST.get("reason", ""),
        request.POST.get("text", "")), _("Thank you: the moderators will look at your report."))
