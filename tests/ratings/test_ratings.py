"""Ratings: each game's outcome moves them the right way, once, in the transaction that ends
the game; never for aborted games, bots or games with fewer than two humans; a recomputation
gives the live figures again."""

from __future__ import annotations

import random

import pytest

from games.core.services import ratings as rating_services
from games.ratings.models import Rating, RatingChange
from tests.api.factories import UserFactory

from .play import new_game, play_to_end


@pytest.mark.django_db
def test_a_finished_game_rates_its_players():
    humans = [UserFactory() for _ in range(4)]
    game = play_to_end(new_game("mascarade", humans), random.Random(1))
    assert game.status == "finished"
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    assert set(changes) == {u.pk for u in humans}
    rows = {r.user_id: r for r in Rating.objects.filter(kind="mascarade")}
    assert all(row.games == 1 for row in rows.values())
