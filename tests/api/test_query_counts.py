"""Reads and move submissions cost a number of queries that does not grow with the game."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from .factories import UserFactory, client_for
from .helpers import game_url, peaceful, play_service_moves, start_game


def _costs(game, users_by_player) -> dict[str, int]:
    game.refresh_from_db()
    player = game.pending_decisions.get().player
    mover = client_for(users_by_player[player])
    spectator = client_for()
    costs = {}
    requests = {
        "game": lambda: mover.get(game_url(game.pk)),
        "game as spectator": lambda: spectator.get(game_url(game.pk)),
        "legal moves": lambda: mover.get(game_url(game.pk, "legal-moves/")),
        "events of the last move": lambda: mover.get(game_url(game.pk, "events/"),
                                                     {"after": game.seq - 1}),
    }
    for name, request in requests.items():
        with CaptureQueriesContext(connection) as queries:
            assert request().status_code == 200
        costs[name] = len(queries)
    move = peaceful(mover.get(game_url(game.pk, "legal-moves/")).json()["moves"])
    with CaptureQueriesContext(connection) as queries:
        answer = mover.post(game_url(game.pk, "moves/"),
                            {"move": move, "expected_seq": game.seq}, format="json",
                            HTTP_IDEMPOTENCY_KEY=f"q-{game.seq}")
        assert answer.status_code == 201
    costs["move"] = len(queries)
    return costs


@pytest.mark.django_db
def test_query_counts_are_the_same_at_move_5_and_at_move_300():
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    by_player = dict(enumerate(users))
    play_service_moves(game, 5, by_player, choose=peaceful)
    early = _costs(game, by_player)
    game.refresh_from_db()
    play_service_moves(game, 300 - game.seq, by_player, choose=peaceful)
    assert game.seq == 300
    late = _costs(game, by_player)
    assert late == early
    assert early["move"] <= 16 and early["game"] <= 6
