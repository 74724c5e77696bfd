"""The ratings' reads, for the pages and the API (every one a fixed number of queries)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.utils import timezone

from accounts.models import User
from games.models import Game, Seat
from games.ratings import skill
from games.ratings.models import Rating, RatingChange, Reliability, Tally
from games.ratings.reliability import WINDOW_DAYS, Figures, measure


def rating_figures(ordinal: float | None, games: int | None) -> dict[str, Any]:
    """A rating as shown, from its ``mu − 3σ`` and its rated games: ``{"rating",
    "provisional", "games"}`` (a player without a rated game of this kind, ``ordinal``
    ``None``, shows the starting figure, provisional)."""
    if ordinal is None:
        ordinal = skill.ordinal(*skill.initial())
    games = games or 0
    return {"rating": skill.shown(ordinal), "provisional": games < skill.PROVISIONAL_GAMES,
            "games": games}


def iso(value: dt.datetime | None) -> str | None:
    """ISO 8601 in UTC with a ``Z``, to the second, as every answer of the API writes times."""
    if value is None:
        return None
    return value.astimezone(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def ratings_of(user: User, kinds: Iterable[str]) -> list[dict[str, Any]]:
    """The user's rating at each of ``kinds`` (the games the site serves, in the catalog's
    order): ``{"game", "rating", "provisional", "games"}``. One query."""
    rows = {row.kind: row for row in Rating.objects.filter(user=user)}
    out = []
    for kind in kinds:
        row = rows.get(kind)
        out.append({"game": kind, **rating_figures(row.ordinal if row else None,
                                                   row.games if row else 0)})
    return out


def today() -> dt.date:
    return timezone.now().date()


def reliability(user: User, as_of: dt.date | None = None) -> dict[str, Any]:
    """The user's reliability over the 90 days before ``as_of`` (default: today, UTC):
    ``{"percent", "decisions", "answered", "removed", "left", "days", "as_of"}``; ``percent``
    is ``None`` without any decision counted. The stored figures of that day when there are
    (one query), else counted at once (:func:`games.ratings.reliability.measure`)."""
    as_of = as_of or today()
    stored = Reliability.objects.filter(user=user, as_of=as_of).first()
    if stored is not None:
        figures = Figures(as_of=as_of, decisions=stored.decisions, answered=stored.answered,
                          removed=stored.removed, left=stored.left)
    else:
        figures = measure([user], as_of)[user.pk]
    return reliability_payload(figures)


def reliability_percent(user: User) -> int | None:
    """The user's reliability today, in percent (``None`` without any decision counted): what
    a game's minimum reliability is compared with."""
    return reliability(user)["percent"]


def reliability_payload(figures: Figures) -> dict[str, Any]:
    return {"percent": figures.percent, "decisions": figures.decisions,
            "answered": figures.answered, "removed": figures.removed, "left": figures.left,
            "days": WINDOW_DAYS, "as_of": figures.as_of.isoformat()}


def game_counts(user: User, kinds: Iterable[str]) -> dict[str, Any]:
    """How many games the user played: ``{"finished", "active", "won", "rated"}`` (``won``:
    the rated games they finished first in), and the same by game (``"by_game"``: ``{kind:
    {...}}``, each of ``kinds`` and any other they played). Three queries, whatever the number
    of games they played: the games over are counted as each ends (:class:`Tally`), the rated
    ones too (:class:`Rating`), the games under way are their seats not ended (index
    ``seat_user_ended``)."""
    empty = {"finished": 0, "active": 0, "won": 0, "rated": 0}
    by_kind: dict[str, dict[str, int]] = {kind: dict(empty) for kind in kinds}
    for kind, finished, won in Tally.objects.filter(user=user).values_list(
            "kind", "finished", "won"):
        counts = by_kind.setdefault(kind, dict(empty))
        counts["finished"], counts["won"] = finished, won
    for kind, active in (Seat.objects.filter(user=user, ended_at__isnull=True,
                                             game__status__in=[Game.Status.ACTIVE,
                                                               Game.Status.PAUSED])
                         .values("game__kind").annotate(n=Count("id"))
                         .values_list("game__kind", "n")):
        by_kind.setdefault(kind, dict(empty))["active"] = active
    for kind, games in Rating.objects.filter(user=user).values_list("kind", "games"):
        by_kind.setdefault(kind, dict(empty))["rated"] = games
    total = {key: sum(counts[key] for counts in by_kind.values()) for key in empty}
    return {**total, "by_game": by_kind}


def player_profile(user: User, kinds: Iterable[str]) -> dict[str, Any]:
    """Everything public about a player: ``{"player", "joined", "ratings", "reliability",
    "games"}`` (:func:`ratings_of`, :func:`reliability`, :func:`game_counts`; ``kinds``: the
    games the site serves, ``games.core.catalog.ids()``)."""
    kinds = list(kinds)
    return {"player": user.username, "joined": iso(user.date_joined),
            "ratings": ratings_of(user, kinds), "reliability": reliability(user),
            "games": game_counts(user, kinds)}


#: A rating's chart draws the player's latest this many rated games of a game: the player's
#: page keeps its size whatever their history (their rating counts every game).
CHART_GAMES = 100


def rating_history(user: User, kind: str, latest: int | None = None) -> list[dict[str, Any]]:
    """The user's rating after each of their latest ``latest`` rated games of ``kind``
    (default :data:`CHART_GAMES`), oldest first (the chart): ``{"game", "name", "at",
    "rating", "place", "players"}`` (``players``: the rated players of that game). One query,
    which reads the index ``rating_change_history`` backwards and stops at ``latest``."""
    players = (Seat.objects.filter(game=OuterRef("game"), user__isnull=False).order_by()
               .values("game").annotate(n=Count("id")).values("n"))
    rows = list(RatingChange.objects.filter(user=user, kind=kind).select_related("game")
                .annotate(players=Subquery(players)).order_by("-at", "-id")
                [:latest or CHART_GAMES])
    return [{"game": str(row.game_id), "name": row.game.title, "at": iso(row.at),
             "rating": skill.shown(row.ordinal), "place": row.place, "players": row.players}
            for row in reversed(rows)]


#: A leaderboard lists the players with a rating past provisional who played a rated game in
#: this many days.
LEADERBOARD_ACTIVE_DAYS = 90


def leaderboard(kind: str) -> QuerySet[Rating]:
    """The established players of ``kind`` still playing (at least ``PROVISIONAL_GAMES`` rated
    games, one in the last :data:`LEADERBOARD_ACTIVE_DAYS` days), best first (by ``mu − 3σ``,
    then the earliest id): a queryset to paginate, the page's and the API's;
    :func:`leaderboard_rows` makes a page's rows."""
    since = timezone.now() - dt.timedelta(days=LEADERBOARD_ACTIVE_DAYS)
    return (Rating.objects.filter(kind=kind, games__gte=skill.PROVISIONAL_GAMES,
                                  updated_at__gte=since, user__is_active=True)
            .select_related("user").order_by("-ordinal", "user_id"))


def leaderboard_rows(ratings: list[Rating], first_rank: int = 1) -> list[dict[str, Any]]:
    """A leaderboard's page (``ratings``, the page of :func:`leaderboard` that starts at rank
    ``first_rank``): ``{"rank", "player", "rating", "provisional", "games"}``."""
    return [{"rank": first_rank + i, "player": row.user.username,
             **rating_figures(row.ordinal, row.games)} for i, row in enumerate(ratings)]


#: A seat's rating at its game and its player's reliability, in plain SQL, for the seats' query
#: (``games.core.selectors.seats_with_vacations``: every read of a game and every move reads
#: its seats; these are index look-ups, no query more): fixed text, no parameter. Null for a
#: bot's seat, and for a player without a rated game of that kind / without figures.
SEAT_RATING_SQL = ('(SELECT r."ordinal" FROM "games_ratings_rating" r JOIN "games_game" g '
                   'ON g."kind" = r."kind" WHERE g."id" = "games_seat"."game_id" '
                   'AND r."user_id" = "games_seat"."user_id")')
SEAT_RATED_GAMES_SQL = ('(SELECT r."games" FROM "games_ratings_rating" r JOIN "games_game" g '
                        'ON g."kind" = r."kind" WHERE g."id" = "games_seat"."game_id" '
                        'AND r."user_id" = "games_seat"."user_id")')
SEAT_RELIABILITY_SQL = ('(SELECT v."percent" FROM "games_ratings_reliability" v '
                        'WHERE v."user_id" = "games_seat"."user_id")')


def seat_figures(seat: Seat) -> dict[str, Any]:
    """What every table shows of a seat's player (read with the seats:
    ``rating_ordinal``, ``rated_games``, ``reliability_percent``): ``{"rating": {"rating",
    "provisional", "games"} or None, "reliability": percent or None}``; a bot has neither."""
    if seat.user_id is None:
        return {"rating": None, "reliability": None}
    return {"rating": rating_figures(getattr(seat, "rating_ordinal", None),
                                     getattr(seat, "rated_games", None)),
            "reliability": getattr(seat, "reliability_percent", None)}


def complete_seat_figures(seats: list[Seat], kind: str) -> None:
    """Give the seats made since they were read (the creator's, a joining player's) the
    figures the seats' query reads with them (:data:`SEAT_RATING_SQL`...): two queries, none
    when every human seat has them."""
    missing = [seat for seat in seats
               if seat.user_id is not None and not hasattr(seat, "rated_games")]
    if not missing:
        return
    users = {seat.user_id for seat in missing}
    rows = {user_id: (ordinal, games) for user_id, ordinal, games in Rating.objects.filter(
        user_id__in=users, kind=kind).values_list("user_id", "ordinal", "games")}
    kept = dict(Reliability.objects.filter(user_id__in=users).values_list("user_id",
                                                                           "percent"))
    for seat in missing:
        seat.rating_ordinal, seat.rated_games = rows.get(seat.user_id, (None, None))
        seat.reliability_percent = kept.get(seat.user_id)


def ratings_for_seats(seats: list[Seat], kind: str) -> dict[int, dict[str, Any]]:
    """Each human seat's rating at ``kind`` and reliability, by position:
    ``{"rating": {...} (:func:`rating_figures`), "reliability": percent or None}``; bots have
    none. One query for the ratings, one for the reliabilities (stored figures: the latest
    day's)."""
    users = {seat.user_id for seat in seats if seat.user_id is not None}
    if not users:
        return {}
    rows = {row.user_id: row for row in Rating.objects.filter(user_id__in=users, kind=kind)}
    kept = dict(Reliability.objects.filter(user_id__in=users).values_list("user_id",
                                                                           "percent"))
    out = {}
    for seat in seats:
        if seat.user_id is None:
            continue
        row = rows.get(seat.user_id)
        out[seat.position] = {
            "rating": rating_figures(row.ordinal if row else None, row.games if row else 0),
            "reliability": kept.get(seat.user_id)}
    return out
