"""The pages that list games: the home page (the games this site serves, the viewer's games
awaiting them first, open games to join) and the lobby (public games by status and game, the
viewer's own)."""

from __future__ import annotations

from typing import Any

from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from games.core import catalog, selectors
from games.core.kit import speed_words
from games.web.clock import time_left


def home(request):
    """The games this site serves; the viewer's games awaiting them first; open games to
    join."""
    mine = []
    if request.user.is_authenticated:
        mine = [{"game": g, "awaiting_you": g.your_deadline is not None,
                 "kit": catalog.find_kit(g.kind)}
                for g in selectors.games_of(request.user).exclude(
                    status__in=["finished", "aborted"])[:10]]
    open_games = list(selectors.public_games("open")[:10])
    seats = selectors.seats_by_game(open_games)
    return render(request, "home.html", {
        "mine": mine, "kits": catalog.kits(),
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
    now = timezone.now()
    rows = [{**selectors.summary_payload(g, seats[g.pk]), **_listed(g),
             "left": time_left(selectors.iso(deadlines.get(g.pk)), now)} for g in games]
    mine = []
    if request.user.is_authenticated:
        for game in selectors.games_of(request.user)[:30]:
            mine.append({"game": game, "awaiting_you": game.your_deadline is not None,
                         **_listed(game),
                         "left": time_left(selectors.iso(game.your_deadline
                                                         or game.next_deadline), now)})
    return render(request, "games/lobby.html", {"rows": rows, "status": status, "mine": mine,
                                                "kits": catalog.kits(), "kit": kit})


def _listed(game) -> dict[str, Any]:
    """What a listing says of a game besides its name: its kind, its own options in words,
    its speed."""
    kit = catalog.find_kit(game.kind)
    return {"kit": kit, "summary": kit.options_summary(game.options) if kit else "",
            "speed": speed_words(game.options)}
