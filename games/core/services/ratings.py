"""The ratings' writes (:mod:`games.ratings`): a finished game rated in the transaction that
ends it (a subscriber of :class:`games.core.events.GameEnded`, its row still locked), every
rating recomputed from the finished games, and the reliability figures of the day stored.

Live and recomputed ratings come from the same function (:func:`outcome` then
:func:`rated`), in the same order (games by their end), so a recomputation gives the live
figures again.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from accounts.models import User
from games.core import events, selectors
from games.core.catalog import find_kit
from games.engine.base import standings
from games.models import Game, Seat
from games.ratings import skill
from games.ratings.models import Rating, RatingChange, Reliability, Tally
from games.ratings.reliability import measure, window

Side = tuple[list[int], int]


def outcome(game: Game, seats: Iterable[Seat], state: Any) -> list[Side] | None:
    """The rated sides of a finished game, ``[(user ids, place), ...]`` (place 0 the best), or
    ``None`` when it is not rated: not finished by its rules, fewer than two humans, or fewer
    than two sides with a human (bots are not rated; a human's seat a bot played while they
    were absent is theirs)."""
    if game.status != Game.Status.FINISHED or state is None:
        return None
    kit = find_kit(game.kind)
    if kit is None:
        return None
    result = kit.rules.result(state)
    if result is None:
        return None
    user_at = {seat.position: seat.user_id for seat in seats if seat.user_id is not None}
    if len(user_at) < 2:
        return None
    sides = []
    for players, place in standings(result, game.seat_count):
        users = [user_at[p] for p in players if p in user_at]
        if users:
            sides.append((users, place))
    return sides if len(sides) >= 2 else None


@dataclass
class Change:
    user_id: int
    place: int
    before: skill.Pair
    after: skill.Pair


def rated(sides: list[Side], current: dict[int, skill.Pair]) -> list[Change]:
    """What the game does to each rated player's ``(mu, sigma)`` (``current``: theirs before,
    a missing one the starting belief); places given from 1, ties sharing one."""
    befores = [[current.get(user, skill.initial()) for user in users] for users, _ in sides]
    places = [place for _users, place in sides]
    afters = skill.rate(befores, places)
    changes = []
    for (users, place), before, after in zip(sides, befores, afters, strict=True):
        shown_place = 1 + sum(1 for other in places if other < place)
        for user, b, a in zip(users, before, after, strict=True):
            changes.append(Change(user_id=user, place=shown_place, before=b, after=a))
    return changes


def rate_game(game: Game, seats: list[Seat], state: Any) -> list[Change]:
    """Rate a game that just finished (inside its transaction): its players' ratings locked
    (in the order of their ids), changed, and a :class:`RatingChange` row each; the seats in
    hand show the new ratings, and, once committed, the players' other games under way show
    them too (their version is bumped: their answers' ETag changes). Rating a game twice
    changes nothing. Returns the changes (none for a game not rated)."""
    sides = outcome(game, seats, state)
    if sides is None or RatingChange.objects.filter(game_id=game.pk).exists():
        return []
    users = sorted(user for members, _place in sides for user in members)
    now = game.finished_at or timezone.now()
    Rating.objects.bulk_create(
        [Rating(user_id=user, kind=game.kind, mu=skill.MU, sigma=skill.SIGMA,
                ordinal=skill.ordinal(skill.MU, skill.SIGMA), games=0, updated_at=now)
         for user in users], ignore_conflicts=True)
    rows = {row.user_id: row for row in Rating.objects.select_for_update()
            .filter(kind=game.kind, user_id__in=users).order_by("user_id")}
    changes = rated(sides, {user: (row.mu, row.sigma) for user, row in rows.items()})
    for change in changes:
        row = rows[change.user_id]
        row.mu, row.sigma = change.after
        row.ordinal = skill.ordinal(*change.after)
        row.games += 1
        row.updated_at = now
    Rating.objects.bulk_update(list(rows.values()),
                               ["mu", "sigma", "ordinal", "games", "updated_at"])
    RatingChange.objects.bulk_create([_change_row(game, change, now) for change in changes])
    for seat in seats:
        row = rows.get(seat.user_id)
        if row is not None:
            seat.rating_ordinal, seat.rated_games = row.ordinal, row.games
    transaction.on_commit(lambda: _show_elsewhere(users, game.pk))
    return changes


def _show_elsewhere(users: list[int], game_id: Any) -> int:
    """The games under way of these players, but ``game_id``, get a new version (their answers
    show the players' ratings). A statement of its own after the commit: under the ended game's
    lock, it would lock other games' rows in no set order."""
    return (Game.objects.filter(seats__user_id__in=users)
            .exclude(pk=game_id)
            .exclude(status__in=[Game.Status.FINISHED, Game.Status.ABORTED])
            .update(version=F("version") + 1))


def _change_row(game: Game, change: Change, at: dt.datetime) -> RatingChange:
    return RatingChange(game_id=game.pk, user_id=change.user_id, kind=game.kind,
                        place=change.place, mu_before=change.before[0],
                        sigma_before=change.before[1], mu=change.after[0],
                        sigma=change.after[1], ordinal=skill.ordinal(*change.after), at=at)


def finished_games() -> Any:
    """The finished games in the order they ended (that of the live updates)."""
    return (Game.objects.filter(status=Game.Status.FINISHED).select_related("snapshot")
            .order_by("finished_at", "id"))


#: Games read together by :func:`recompute` (their seats in one query).
RECOMPUTE_BATCH = 200


def recompute(*, kinds: Iterable[str] | None = None) -> int:
    """Every rating (of ``kinds``, default all) computed again from the finished games, replayed
    in the order they ended, in one transaction: the ratings, their history and the players'
    tallies of games finished and won are replaced. Returns how many games were rated."""
    games = finished_games()
    if kinds is not None:
        kinds = list(kinds)
        games = games.filter(kind__in=kinds)
    current: dict[tuple[int, str], list[Any]] = {}
    history: list[RatingChange] = []
    count = 0
    with transaction.atomic():
        ratings, changes = Rating.objects.all(), RatingChange.objects.all()
        if kinds is not None:
            ratings, changes = ratings.filter(kind__in=kinds), changes.filter(kind__in=kinds)
        changes.delete()
        ratings.delete()
        ids = list(games.values_list("id", flat=True))
        for start in range(0, len(ids), RECOMPUTE_BATCH):
            chunk = list(finished_games().filter(id__in=ids[start:start + RECOMPUTE_BATCH]))
            seats: dict[Any, list[Seat]] = {game.pk: [] for game in chunk}
            for seat in Seat.objects.filter(game_id__in=list(seats)).order_by("position"):
                seats[seat.game_id].append(seat)
            for game in chunk:
                state = selectors.load_state(game, ask_refresh=False)
                sides = outcome(game, seats[game.pk], state)
                if sides is None:
                    continue
                count += 1
                kind = game.kind
                now = game.finished_at or timezone.now()
                mine = {user: (current[(user, kind)][0], current[(user, kind)][1])
                        for users, _place in sides for user in users if (user, kind) in current}
                for change in rated(sides, mine):
                    entry = current.setdefault((change.user_id, kind), [0.0, 0.0, 0, now])
                    entry[0], entry[1] = change.after
                    entry[2] += 1
                    entry[3] = now
                    history.append(_change_row(game, change, now))
        Rating.objects.bulk_create(
            [Rating(user_id=user, kind=kind, mu=mu, sigma=sigma,
                    ordinal=skill.ordinal(mu, sigma), games=games_, updated_at=at)
             for (user, kind), (mu, sigma, games_, at) in current.items()],
            batch_size=1000)
        RatingChange.objects.bulk_create(history, batch_size=1000)
        recount_tallies(kinds=kinds)
    return count


def recount_tallies(*, kinds: Iterable[str] | None = None) -> int:
    """Every player's tally of games finished and won (of ``kinds``, default all) counted
    again, as the live counts make them (:func:`tally_game`): the finished games' human seats,
    the rated games' first places. Two aggregates; returns the rows written."""
    seats = Seat.objects.filter(user__isnull=False, game__status=Game.Status.FINISHED)
    wins = RatingChange.objects.filter(place=1)
    tallies = Tally.objects.all()
    if kinds is not None:
        kinds = list(kinds)
        seats, wins = seats.filter(game__kind__in=kinds), wins.filter(kind__in=kinds)
        tallies = tallies.filter(kind__in=kinds)
    counts: dict[tuple[int, str], list[int]] = {}
    for user, kind, n in (seats.values("user_id", "game__kind").annotate(n=Count("id"))
                          .values_list("user_id", "game__kind", "n")):
        counts.setdefault((user, kind), [0, 0])[0] = n
    for user, kind, n in (wins.values("user_id", "kind").annotate(n=Count("id"))
                          .values_list("user_id", "kind", "n")):
        counts.setdefault((user, kind), [0, 0])[1] = n
    with transaction.atomic():
        tallies.delete()
        Tally.objects.bulk_create([Tally(user_id=user, kind=kind, finished=finished, won=won)
                                   for (user, kind), (finished, won) in counts.items()],
                                  batch_size=1000)
    return len(counts)


def refresh_reliability(as_of: dt.date | None = None, *, batch: int = 500) -> int:
    """Store every player's reliability figures of ``as_of`` (default: today, UTC): those with
    a seat in a game that changed in the window (a game's ``updated_at`` follows its every
    move), or figures stored already. Returns how many."""
    as_of = as_of or timezone.now().date()
    start, _end = window(as_of)
    seated = Seat.objects.filter(user__isnull=False,
                                 game__updated_at__gte=start).values("user_id")
    users = (User.objects.filter(Q(pk__in=seated) | Q(reliability__isnull=False))
             .order_by("pk"))
    done = 0
    chunk: list[User] = []
    for user in users.iterator(chunk_size=batch):
        chunk.append(user)
        if len(chunk) >= batch:
            done += _store(chunk, as_of)
            chunk = []
    if chunk:
        done += _store(chunk, as_of)
    return done


def _store(users: list[User], as_of: dt.date) -> int:
    """Store the figures of ``users`` for ``as_of``; the games under way of those whose
    percentage changed get a new version (their seats show it)."""
    figures = measure(users, as_of)
    before = dict(Reliability.objects.filter(user_id__in=list(figures))
                  .values_list("user_id", "percent"))
    changed = [user_id for user_id, f in figures.items()
               if user_id not in before or before[user_id] != f.percent]
    rows = [Reliability(user_id=user_id, as_of=as_of, decisions=f.decisions,
                        answered=f.answered, percent=f.percent, removed=f.removed, left=f.left)
            for user_id, f in figures.items()]
    Reliability.objects.bulk_create(
        rows, update_conflicts=True, unique_fields=["user"],
        update_fields=["as_of", "decisions", "answered", "percent", "removed", "left"])
    if changed:
        (Game.objects.filter(seats__user_id__in=changed)
         .exclude(status__in=[Game.Status.FINISHED, Game.Status.ABORTED])
         .update(version=F("version") + 1))
    return len(rows)


@events.subscribe(events.GameEnded)
def rate_ended(event: events.GameEnded) -> None:
    """Rate the game that just ended by its rules (aborted games publish no ``GameEnded``)."""
    # (the state at the game's last seq: the moves after the snapshot read with the game are
    # applied to it; at most one query, at the end of a game only)
    state = selectors.load_state(event.game, ask_refresh=False)
    changes = rate_game(event.game, event.seats, state)
    tally_game(event.game, event.seats, changes)


def tally_game(game: Game, seats: list[Seat], changes: list[Change]) -> None:
    """Count a game that just finished (inside its transaction, once: its ``GameEnded``) in its
    players' tallies: a game finished for each human seat's user, a win for each rated player
    it placed first (``changes``: what :func:`rate_game` did). The rows are locked in the order
    of their users, as the ratings are."""
    users = sorted({seat.user_id for seat in seats if seat.user_id is not None})
    if not users:
        return
    Tally.objects.bulk_create([Tally(user_id=user, kind=game.kind) for user in users],
                              ignore_conflicts=True)
    mine = Tally.objects.filter(kind=game.kind, user_id__in=users)
    list(mine.select_for_update().order_by("user_id").values_list("pk", flat=True))
    mine.update(finished=F("finished") + 1)
    winners = [change.user_id for change in changes if change.place == 1]
    if winners:
        mine.filter(user_id__in=winners).update(won=F("won") + 1)
