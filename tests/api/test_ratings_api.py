"""The ratings' API: a player's page and each game's leaderboard, checked against the schema
the site serves (closed objects: tests/api/test_answers_match_schema.py), and the ratings and
reliability in every game's players."""

from __future__ import annotations

import random

import pytest

from games.core.services import ratings as rating_services
from games.ratings import skill
from games.ratings.models import Rating
from tests.ratings.play import new_game, play_to_end

from .factories import UserFactory, client_for
from .test_answers_match_schema import Checked

pytestmark = pytest.mark.django_db


@pytest.fixture
def check(db):
    checked = Checked()
    yield checked
    assert not checked.errors, "\n".join(
        f"{where}: {reason}" for where, found in sorted(checked.errors.items())
        for reason in sorted(found))


def test_players_and_leaderboards_answer_as_the_schema_says(check):
    humans = [UserFactory() for _ in range(4)]
    rng = random.Random(11)
    game = play_to_end(new_game("mascarade", humans), rng)
    play_to_end(new_game("ere_des_masques", humans[:2]), rng)
    rating_services.refresh_reliability()
    anyone, ada = client_for(), client_for(humans[0])

    page = check(anyone.get(f"/api/v1/players/{humans[0].username}/"), 200)
    assert page["player"] == humans[0].username
    by_game = {row["game"]: row for row in page["ratings"]}
    assert set(by_game) == {"mascarade", "ere_des_masques", "shadow_house"}
    assert by_game["mascarade"]["games"] == 1 and by_game["mascarade"]["provisional"]
    assert by_game["shadow_house"] == {"game": "shadow_house", "rating": skill.SHOWN_BASE,
                                       "provisional": True, "games": 0}
    assert page["reliability"]["percent"] is None  # (today's moves count from tomorrow)
    assert page["games"]["finished"] == 2 and page["games"]["rated"] == 2
    check(anyone.get("/api/v1/players/nobody-at-all/"), 404)

    read = check(ada.get(f"/api/v1/games/{game.pk}/"), 200)
    assert all(seat["rating"]["games"] == 1 for seat in read["players"])
    check(anyone.get("/api/v1/games/", {"status": "finished"}), 200)

    # (a leaderboard lists established players only: none yet after one game each)
    assert check(anyone.get("/api/v1/leaderboards/mascarade/"), 200)["count"] == 0
    Rating.objects.filter(kind="mascarade").update(games=skill.PROVISIONAL_GAMES)
    board = check(anyone.get("/api/v1/leaderboards/mascarade/"), 200)
    assert board["count"] == 4
    assert [row["rank"] for row in board["results"]] == [1, 2, 3, 4]
    ordinals = dict(Rating.objects.filter(kind="mascarade")
                    .values_list("user__username", "ordinal"))
    assert [row["rating"] for row in board["results"]] == sorted(
        (skill.shown(value) for value in ordinals.values()), reverse=True)
    second = check(anyone.get("/api/v1/leaderboards/mascarade/", {"page": 2, "page_size": 3}),
                   200)
    assert [row["rank"] for row in second["results"]] == [4]
    check(anyone.get("/api/v1/leaderboards/ere_des_masques/"), 200)
    check(anyone.get("/api/v1/leaderboards/chess/"), 404)
