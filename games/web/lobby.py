"""The pages that list games: the home page (the games this site serves, the viewer's games
awaiting them first, open games to join) and the lobby (public games by status and game, the
viewer's own)."""

from __future__ import annotations

from typing import Any

from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games.core import catalog, selectors
from games.core.kit import duration_words, speed_words
from games.web.clock import time_left


def home(request):
    """The games this site serves; the viewer's games awaiting them first; open games to
    join."""
    mine, invitations = [], []
    if request.user.is_authenticated:
        mine = your_games(request.user, selectors.games_of(request.user, over=False)[:10])
        invitations = selectors.invitations_of(request.user)
    open_games = list(selectors.public_games("open")[:10])
    seats = selectors.seats_by_game(open_games)
    return render(request, "home.html", {
        "mine": mine, "kits": catalog.kits(), "invitations": invitations,
        "open_games": [{**selectors.summary_payload(g, seats[g.pk]),
                        "kit": catalog.find_kit(g.kind)} for g in open_games]})


@require_GET
def lobby(request):
    status = request.GET.get("status") or "open"
    if status not in ("open", "active", "finished"):
        status = "open"
    kit = catalog.find_kit(request.GET.get("game"))
    games = list(selectors.public_games(status, kit.id if kit else None)[:50])
    seats = selectors.seats_by_game(games)
    deadlines = selectors.next_deadlines([g.pk for g in games if g.status == "active"])
    pending, estimates = selectors.pending_by_game(games), selectors.length_estimates()
    now = timezone.now()
    rows = [{**selectors.summary_payload(g, seats[g.pk], pending.get(g.pk)),
             **_listed(g, estimates),
             "left": time_left(selectors.iso(deadlines.get(g.pk)), now)} for g in games]
    mine = []
    if request.user.is_authenticated:
        mine = your_games(request.user, selectors.games_of(request.user)[:30])
    return render(request, "games/lobby.html", {"rows": rows, "status": status, "mine": mine,
                                                "kits": catalog.kits(), "kit": kit})


def _listed(game, estimates: dict | None = None) -> dict[str, Any]:
    """What a listing says of a game besides its name: its kind, its own options in words,
    its speed, and (``estimates``: ``selectors.length_estimates()``) how long a game of its
    kind, speed and player count lasts, for a game not over."""
    kit = catalog.find_kit(game.kind)
    estimate = ""
    if estimates is not None and game.status in ("open", "active", "paused"):
        seconds = selectors.length_estimate(estimates, game)
        estimate = (_("usually lasts about %(time)s") % {"time": duration_words(seconds)}
                    if seconds else _("no estimate of its length yet"))
    return {"kit": kit, "summary": kit.options_summary(game.options) if kit else "",
            "speed": speed_words(game.options), "estimate": estimate}


def your_games(user, games) -> list[dict[str, Any]]:
    """The viewer's games as their lists show them (``games/_your_game.html``): each by its
    name, with its game and options, its players, whose turn it is (the viewer's, or whose),
    the deadline (that of the viewer's decision, else the nearest), paused or over. Three
    queries for the lot (the games, their seats, their awaited players)."""
    games = list(games)
    seats = selectors.seats_by_game(games)
    estimates = selectors.length_estimates()
    awaited = selectors.awaited_by_game([g.pk for g in games if g.status == "active"])
    now = timezone.now()
    out = []
    for game in games:
        by_position = {seat.position: seat for seat in seats[game.pk]}
        waiting = [by_position[p] for p in awaited.get(game.pk, []) if p in by_position]
        awaiting_you = any(seat.user_id == user.pk for seat in waiting)
        out.append({
            "game": game, **_listed(game, estimates),
            "players": [seat.name for seat in seats[game.pk]],
            "seats_free": max(0, game.seat_count - len(seats[game.pk])),
            "awaiting_you": awaiting_you,
            "awaited": [seat.name for seat in waiting if seat.user_id != user.pk],
            "left": time_left(selectors.iso(game.your_deadline if awaiting_you
                                            else game.next_deadline), now)
            if game.status == "active" else "",
        })
    return out
