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


#: The statuses of a game over (its seats' ``ended_at`` set).
OVER = (Game.Status.FINISHED, Game.Status.ABORTED)


class YourGames:
    """A player's games in the order their lists promise: the games not over first (those
    awaiting the player first, by the deadline of their decision, then by the nearest
    deadline, then the most recently changed), then the games over, the most recently ended
    first. It is sliced and counted as a query set is (the pages take its first rows, the API's
    pagination counts it and takes a page).

    The games not over are read by one query (a player sits at few: the seats of the player's
    not ended, index ``seat_user_ended``), once; the games over by one query per slice,
    through the same index in its order (``ended_at`` descending), which stops at the slice's
    end: neither reads the player's whole history. Their count is the index's entries of the
    player's seats ended (an index-only count), joined to the games only when a status is
    asked."""

    def __init__(self, user, status: str | None = None, my_turn: bool | None = None,
                 over: bool = True) -> None:
        self.user, self.status, self.my_turn = user, status, my_turn
        self.over = over and my_turn is not True and status in (None, *OVER)
        self.under_way = status not in OVER
        self._not_over: list[Game] | None = None

    def not_over(self) -> list[Game]:
        """The games not over, in their order (read once): one query, none when a status of a
        game over is asked."""
        if self._not_over is None:
            self._not_over = list(self._not_over_query()) if self.under_way else []
        return self._not_over

    def _not_over_query(self) -> QuerySet[Game]:
        user = self.user
        qs = (Game.objects.filter(seats__user=user, seats__ended_at__isnull=True)
              .select_related("created_by")
              .annotate(your_deadline=Min("pending_decisions__deadline",
                                          filter=Q(pending_decisions__user=user)),
                        next_deadline=Min("pending_decisions__deadline")))
        if self.status:
            qs = qs.filter(status=self.status)
        if self.my_turn is True:
            qs = qs.filter(your_deadline__isnull=False)
        elif self.my_turn is False:
            qs = qs.filter(your_deadline__isnull=True)
        return qs.order_by(F("your_deadline").asc(nulls_last=True),
                           F("next_deadline").asc(nulls_last=True), "-updated_at", "id")

    def _over_seats(self) -> QuerySet[Seat]:
        qs = Seat.objects.filter(user=self.user, ended_at__isnull=False)
        if self.status:
            qs = qs.filter(game__status=self.status)
        return qs

    def over_games(self, start: int, stop: int | None) -> list[Game]:
        """The games over from the ``start``-th to before the ``stop``-th (None: to the
        last), the most recently ended first: one query (none for an empty slice)."""
        if not self.over or (stop is not None and stop <= start):
            return []
        seats = (self._over_seats().select_related("game", "game__created_by")
                 .order_by("-ended_at", "game_id"))[start:stop]
        games = []
        for seat in seats:
            game = seat.game
            game.your_deadline = game.next_deadline = None  # (a game over awaits nobody)
            games.append(game)
        return games

    def count(self) -> int:
        """How many: the games not over (read) and the games over (counted): two queries."""
        return len(self.not_over()) + (self._over_seats().count() if self.over else 0)

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, key: int | slice) -> Any:
        if isinstance(key, int):
            found = self[key:key + 1]
            if key < 0 or not found:
                raise IndexError(key)
            return found[0]
        if key.step not in (None, 1) or (key.start or 0) < 0 or (key.stop or 0) < 0:
            raise ValueError("A slice of a player's games goes forward from a position.")
        start, stop = key.start or 0, key.stop
        not_over = self.not_over()
        first = not_over[start:stop]
        n = len(not_over)
        return first + self.over_games(max(0, start - n), None if stop is None else stop - n)

    def __iter__(self):
        return iter(self[0:])


def games_of(user, status: str | None = None, my_turn: bool | None = None,
             over: bool = True) -> YourGames:
    """The viewer's games (``over``: with those over), in the order of :class:`YourGames`:
    slice it (``games_of(user)[:30]``); neither it nor its count reads the player's whole
    history."""
    return YourGames(user, status, my_turn, over)


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
