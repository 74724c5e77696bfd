"""Ratings in the database: a finished game rates its human players once, in the transaction
that ends it; aborted games, bots and games with fewer than two humans change nothing; a
recomputation from the finished games gives the live figures again."""

from __future__ import annotations

import importlib
import random

import pytest
from django.apps import apps as django_apps
from django.core.management import call_command

from games.core import selectors, services
from games.core.services import ratings as rating_services
from games.models import Game, MoveRecord, Seat
from games.ratings import selectors as rating_selectors
from games.ratings import skill
from games.ratings.models import Rating, RatingChange, Tally
from moderation import services as moderation
from tests.api.factories import UserFactory

from .play import new_game, play_to_end


def figures() -> dict:
    """Every rating and every change, as stored."""
    return {
        "ratings": sorted(Rating.objects.values_list("user_id", "kind", "mu", "sigma",
                                                     "ordinal", "games")),
        "changes": sorted(RatingChange.objects.values_list(
            "game_id", "user_id", "kind", "place", "mu_before", "sigma_before", "mu", "sigma",
            "ordinal")),
        "tallies": sorted(Tally.objects.values_list("user_id", "kind", "finished", "won")),
    }


@pytest.mark.django_db
def test_a_finished_game_rates_its_humans_once_and_its_seats_show_it():
    humans = [UserFactory() for _ in range(4)]
    game = play_to_end(new_game("mascarade", humans), random.Random(1))
    assert game.status == Game.Status.FINISHED
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    assert set(changes) == {u.pk for u in humans}
    rows = {r.user_id: r for r in Rating.objects.filter(kind="mascarade")}
    assert all(row.games == 1 for row in rows.values())
    # The winners' place is 1 and their mu went up; the players read with the game show the
    # rating the game gave.
    winners = {seat.user_id for seat in selectors.seats_of(game)
               if seat.position in _winner_players(game)}
    for user_id in winners:
        assert changes[user_id].place == 1
        assert changes[user_id].mu >= changes[user_id].mu_before
    players = selectors.game_payload(selectors.find_and_load(game.pk, None), None)["players"]
    for seat in players:
        user = next(u for u in humans if u.username == seat["player"])
        assert seat["rating"] == {"rating": skill.shown(rows[user.pk].ordinal),
                                  "provisional": True, "games": 1}
    before = figures()
    loaded = selectors.find_and_load(game.pk, None)
    assert rating_services.rate_game(game, loaded.seats, loaded.state) == []
    assert figures() == before
    # A new table's answers show the players' ratings at once (their seats were just made).
    created = services.create_game(humans[0], "mascarade", {"players": 4}).body
    joined = services.join_game(humans[1], created["id"])
    for body, count in ((created, 1), (joined, 2)):
        assert [seat["rating"]["games"] for seat in body["players"]] == [1] * count


def _winner_players(game: Game) -> set[int]:
    from games.core.catalog import get_game

    state = selectors.find_and_load(game.pk, None).state
    return set(get_game(game.kind).result(state).winner_players)


@pytest.mark.django_db
def test_bots_are_not_rated_and_one_human_is_no_rated_game():
    ada, bea = UserFactory(), UserFactory()
    alone = play_to_end(new_game("mascarade", [ada], bots=3), random.Random(2))
    assert alone.status == Game.Status.FINISHED
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    two = play_to_end(new_game("mascarade", [ada, bea], bots=2), random.Random(3))
    assert two.status == Game.Status.FINISHED
    assert set(RatingChange.objects.values_list("user_id", flat=True)) == {ada.pk, bea.pk}
    assert set(Rating.objects.values_list("user_id", flat=True)) == {ada.pk, bea.pk}
    payload = selectors.game_payload(selectors.find_and_load(two.pk, None), None)
    bots = [seat for seat in payload["players"] if seat["is_bot"]]
    assert bots and all(seat["rating"] is None and seat["reliability"] is None
                        for seat in bots)


@pytest.mark.django_db
def test_an_aborted_game_leaves_ratings_untouched():
    humans = [UserFactory() for _ in range(4)]
    play_to_end(new_game("mascarade", humans), random.Random(4))
    before = figures()
    game = new_game("mascarade", humans)
    play_to_end(game, random.Random(5), limit=6)
    moderation.abort(UserFactory(is_staff=True, is_superuser=True), game.pk, "a test")
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED
    assert figures() == before
    call_command("recompute_ratings", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert figures() == before


@pytest.mark.django_db
def test_an_absent_players_seat_played_by_a_bot_is_still_theirs():
    humans = [UserFactory() for _ in range(4)]
    game = new_game("mascarade", humans, options={"players": 4, "absent_after": 1})
    # Some decisions time out: their player is marked absent, and a bot plays for them.
    rng = random.Random(6)
    play_to_end(game, rng, timeouts=0.3)
    assert game.status == Game.Status.FINISHED
    assert MoveRecord.objects.filter(game=game, actor="bot", seat__user__isnull=False).exists()
    assert set(RatingChange.objects.filter(game=game).values_list("user_id", flat=True)) == {
        u.pk for u in humans}


@pytest.mark.django_db
def test_recomputing_gives_the_live_figures():
    ada, bea, cid, dan, eve = (UserFactory() for _ in range(5))
    rng = random.Random(7)
    play_to_end(new_game("mascarade", [ada, bea, cid, dan]), rng)
    play_to_end(new_game("ere_des_masques", [ada, bea]), rng)
    play_to_end(new_game("shadow_house", [cid, dan, eve], bots=1,
                         options={"players": 4, "flash": True}), rng)
    play_to_end(new_game("shadow_house", [ada, eve, bea]), rng)
    play_to_end(new_game("mascarade", [eve, ada, dan], bots=1), rng)
    play_to_end(new_game("ere_des_masques", [bea, ada]), rng)
    live = figures()
    assert len({kind for _u, kind, *_rest in live["ratings"]}) == 3
    # (the flash game is rated unless its deal put its three humans on one side: its seed is
    # the site's, drawn at its creation)
    rated = {game for game, *_rest in live["changes"]}
    assert len(rated) in (5, 6)
    assert rating_services.recompute() == len(rated)
    assert figures() == live
    call_command("recompute_ratings", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert figures() == live
    # A change of the model's parameters is one command.
    call_command("recompute_ratings", "--game", "ere_des_masques",
                 stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert figures() == live


@pytest.mark.django_db
def test_the_tallies_count_the_finished_games_as_their_seats_do():
    """A player's games finished and won by game are counted as each game ends: the figures
    their seats and rating changes give (every finished game with a seat of theirs, played
    by them or by a bot in their absence; the rated games they placed first in), never an
    aborted game; the migration that made the tallies counts the games before it the same."""
    ada, bea, cid, dan = (UserFactory() for _ in range(4))
    rng = random.Random(8)
    play_to_end(new_game("mascarade", [ada, bea, cid, dan]), rng)
    play_to_end(new_game("mascarade", [ada], bots=3), rng)
    play_to_end(new_game("ere_des_masques", [bea, ada]), rng)
    play_to_end(new_game("shadow_house", [cid, dan, ada],
                         options={"players": 3, "absent_after": 1}), rng, timeouts=0.3)
    under_way = new_game("mascarade", [ada, bea, cid, dan])
    play_to_end(under_way, rng, limit=4)
    aborted = new_game("ere_des_masques", [ada, dan])
    play_to_end(aborted, rng, limit=2)
    moderation.abort(UserFactory(is_staff=True, is_superuser=True), aborted.pk, "a test")
    kinds = ["mascarade", "ere_des_masques", "shadow_house"]
    for user in (ada, bea, cid, dan):
        seats = Seat.objects.filter(user=user)
        expected = {kind: {
            "finished": seats.filter(game__kind=kind, game__status="finished").count(),
            "active": seats.filter(game__kind=kind, game__status__in=["active", "paused"])
            .count(),
            "won": RatingChange.objects.filter(user=user, kind=kind, place=1).count(),
            "rated": RatingChange.objects.filter(user=user, kind=kind).count()}
            for kind in kinds}
        assert rating_selectors.game_counts(user, kinds)["by_game"] == expected
    assert rating_selectors.game_counts(ada, kinds)["finished"] == 4
    assert rating_selectors.game_counts(ada, kinds)["active"] == 1
    live = figures()
    Tally.objects.all().delete()
    migration = importlib.import_module("games.ratings.migrations.0002_tally")
    migration.count_played(django_apps, None)
    assert figures() == live


@pytest.mark.django_db
def test_a_rated_game_gives_its_players_other_tables_a_new_version(
        django_capture_on_commit_callbacks):
    humans = [UserFactory() for _ in range(4)]
    other = new_game("mascarade", humans)
    game = new_game("mascarade", humans)
    with django_capture_on_commit_callbacks(execute=True):
        play_to_end(game, random.Random(8))
    assert RatingChange.objects.filter(game=game).count() == 4
    # (nothing else wrote the other table: its answers show the players' new ratings, and a
    # read's ETag changes with its version)
    assert Game.objects.get(pk=other.pk).version == other.version + 1
