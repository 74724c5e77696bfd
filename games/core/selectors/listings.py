"""Lists of games: the public lobby, a user's games, whose turn it is, the next deadlines.
"""

from __future__ import annotations

from typing import Any

from django.db.models import F, Min, Q, QuerySet

from games.core.deadlines import bank_of
from games.core.selectors.loading import days, seats_with_vacations
from games.models import Game, Invitation, PendingDecision, Seat


def public_games(status: str | None = None, kind: str | None = None) -> QuerySet[Game]:
    qs = Game.objects.filter(private=False).select_related("created_by")
    if status:
        qs = qs.filter(status=status)
    if kind:
        qs = qs.filter(kind=kind)
    return qs.order_by("-created_at")


def games_of(user, status: str | None = None, my_turn: bool | None = None) -> QuerySet[Game]:
    """The viewer's games: those awaiting them first (nearest deadline first), then the others
    by their nearest deadline, then the most recently changed."""
    qs = (Game.objects.filter(seats__user=user).select_related("created_by")
          .annotate(your_deadline=Min("pending_decisions__deadline",
                                      filter=Q(pending_decisions__user=user)),
                    next_deadline=Min("pending_decisions__deadline")))
    if status:
        qs = qs.filter(status=status)
    if my_turn is True:
        qs = qs.filter(your_deadline__isnull=False)
    elif my_turn is False:
        qs = qs.filter(your_deadline__isnull=True)
    return qs.order_by(F("your_deadline").asc(nulls_last=True),
                       F("next_deadline").asc(nulls_last=True), "-updated_at", "id")


def your_turn_count(user) -> int:
    """How many games under way await ``user`` (a decision of theirs pending): one query."""
    if user is None or not user.is_authenticated:
        return 0
    return (PendingDecision.objects.filter(user=user, game__status=Game.Status.ACTIVE)
            .values("game_id").distinct().count())


def next_deadlines(game_ids: list) -> dict[Any, Any]:
    """The nearest deadline of each of these games (by game id; games awaiting nobody are
    left out): one query."""
    if not game_ids:
        return {}
    return dict(PendingDecision.objects.filter(game_id__in=game_ids).values("game_id")
                .annotate(nearest=Min("deadline")).values_list("game_id", "nearest"))


def pending_by_game(games: list[Game]) -> dict[Any, list[PendingDecision]]:
    """The pending decisions of those of these games under way with a time bank (their seats'
    clocks: ``summary_payload``), by game id: one query, none without such a game."""
    ids = [game.pk for game in games if game.status in (Game.Status.ACTIVE, Game.Status.PAUSED)
           and bank_of(game.options) is not None]
    out: dict[Any, list[PendingDecision]] = {game_id: [] for game_id in ids}
    if ids:
        for row in PendingDecision.objects.filter(game_id__in=ids):
            out[row.game_id].append(row)
    return out


def seats_by_game(games: list[Game]) -> dict[Any, list[Seat]]:
    """The seats of several games (by game id, each by position) with their users and their
    vacations: one query."""
    out: dict[Any, list[Seat]] = {game.pk: [] for game in games}
    for seat in seats_with_vacations(*days()).filter(game_id__in=list(out)).order_by(
            "game_id", "position"):
        out[seat.game_id].append(seat)
    return out


def awaited_by_game(game_ids: list) -> dict[Any, list[int]]:
    """The players (engine player indexes, as the seats' positions) each of these games awaits,
    by game id, in seat order; games awaiting nobody are left out: one query. Who is awaited is
    public (every viewer's ``state["awaiting"]`` says it)."""
    out: dict[Any, list[int]] = {}
    if not game_ids:
        return out
    for game_id, player in (PendingDecision.objects.filter(game_id__in=game_ids)
                            .order_by("game_id", "seat").values_list("game_id", "player")):
        out.setdefault(game_id, []).append(player)
    return out


def invitations_of(user) -> list[Any]:
    """The open tables ``user`` is invited to and has not sat down at (a rematch's), newest
    first, each with its game (``invitation.game``) and who invited them: one query."""
    return list(Invitation.objects.filter(user=user, game__status=Game.Status.OPEN)
                .exclude(game__seats__user=user)
                .select_related("game", "invited_by").order_by("-created_at")[:20])


def invited_to(game: Game, seats: list[Seat]) -> list[Any]:
    """The players invited to ``game`` (seats kept for them) who have not sat down, by
    position, with their users: one query."""
    seated = {seat.user_id for seat in seats}
    return [row for row in Invitation.objects.filter(game=game).select_related("user")
            .order_by("position") if row.user_id not in seated]
