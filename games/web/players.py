"""Players' public pages: a player's ratings, each with the chart of its history (an SVG drawn
here, with its figures as a table for whoever does not see it), reliability, games played and
won, recent finished games (to replay) and games under way; and each game's leaderboard,
paginated. Reads through ``games.ratings.selectors`` (the API's reads)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games.core import catalog
from games.ratings import selectors as ratings

#: Players per leaderboard page.
LEADERBOARD_PAGE = 50
#: Finished games listed on a player's page.
RECENT_GAMES = 10

#: The chart's drawing area, in the SVG's own units (it scales to the page's width): the
#: ratings' axis on the left, the games' below.
WIDTH, HEIGHT = 320, 160
LEFT, RIGHT, TOP, BOTTOM = 44, 10, 12, 26


def chart(history: list[dict[str, Any]], total: int = 0) -> dict[str, Any] | None:
    """The chart of a rating's history (``ratings.rating_history``: the latest rated games,
    oldest first; ``total``: the rated games of the rating, when more): each point's place in
    the drawing (x by game, y by rating, the rating's range padded so that a flat line sits
    mid-height) and its game's number among all, the axis' labels, and what a sentence says of
    it. ``None`` without a rated game."""
    if not history:
        return None
    total = max(total, len(history))
    earlier = total - len(history)
    values = [point["rating"] for point in history]
    low, high = min(values), max(values)
    pad = max(5, (high - low) // 10)
    bottom, top = low - pad, high + pad
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = inner_w / (len(history) - 1) if len(history) > 1 else 0
    points = []
    for i, point in enumerate(history):
        x = LEFT + (i * step if len(history) > 1 else inner_w / 2)
        y = TOP + (top - point["rating"]) * inner_h / (top - bottom)
        points.append({**point, "x": round(x, 1), "y": round(y, 1), "number": earlier + i + 1,
                       "when": dt.datetime.fromisoformat(point["at"].replace("Z", "+00:00"))})
    return {
        "points": points, "line": " ".join(f"{p['x']},{p['y']}" for p in points),
        "width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT, "top": TOP,
        "base": HEIGHT - BOTTOM, "label_x": LEFT - 6, "label_y": HEIGHT - 8,
        "high": high, "low": low, "high_y": points[values.index(high)]["y"],
        "low_y": points[values.index(low)]["y"], "first": values[0], "last": values[-1],
        "count": len(history), "total": total, "start": points[0]["when"],
        "end": points[-1]["when"],
    }


@require_GET
def player(request, name):
    user = get_object_or_404(get_user_model(), username=name, is_active=True)
    kits = catalog.kits()
    profile = ratings.player_profile(user, [kit.id for kit in kits])
    by_kind = {row["game"]: row for row in profile["ratings"]}
    counts = profile["games"]["by_game"]
    games = []
    for kit in kits:
        played = counts.get(kit.id, {})
        history = ratings.rating_history(user, kit.id)
        rating = by_kind.get(kit.id)
        games.append({"kit": kit, "rating": rating, "counts": played,
                      "chart": chart(history, rating["games"] if rating else 0),
                      "history": history})
    seats = user.seats.filter(game__private=False).select_related("game")
    # Both lists read the player's seats through the index of their ends (seat_user_ended:
    # user, ended_at descending), in its order: the finished games the latest ended first (a
    # finished game's seats end at its finished_at), the games not over (ended_at null) the
    # latest created first; each stops at its end, whatever the player's history.
    recent = (seats.filter(ended_at__isnull=False, game__status="finished")
              .order_by("-ended_at", "game_id")[:RECENT_GAMES])
    current = (seats.filter(ended_at__isnull=True,
                            game__status__in=["open", "active", "paused"])
               .order_by("-game__created_at")[:20])
    return render(request, "games/player.html", {
        "player": user, "profile": profile, "games": games,
        "recent": [_listed(seat) for seat in recent],
        "current": [_listed(seat) for seat in current]})


def _listed(seat) -> dict[str, Any]:
    """One of the player's games as the page lists it: its name, its game, whether they won
    (a finished one)."""
    return {"game": seat.game, "kit": catalog.find_kit(seat.game.kind),
            "won": seat.position in (seat.game.winners or [])}


@require_GET
def leaderboards(request):
    """The leaderboards' page without a game: the first game's."""
    return redirect("leaderboard", catalog.kits()[0].id)


@require_GET
def leaderboard(request, game):
    kit = catalog.find_kit(game)
    if kit is None:
        raise Http404(_("No such game."))
    listed = ratings.leaderboard(kit.id)
    pages = Paginator(listed, LEADERBOARD_PAGE)
    page = pages.get_page(request.GET.get("page"))
    rows = ratings.leaderboard_rows(list(page.object_list), page.start_index() or 1)
    return render(request, "games/leaderboard.html", {
        "kit": kit, "kits": catalog.kits(), "page": page, "rows": rows})

