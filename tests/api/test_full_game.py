"""A whole game through the API by four clients, each reading legal-moves and sending one."""

from __future__ import annotations

import random

import pytest

from games.models import Game, MoveRecord

from .helpers import URL, game_url, replay_records


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [3])
def test_four_clients_play_a_game_to_the_end(users, clients, seed):
    rng = random.Random(seed)
    created = clients[0].post(URL, {"game": "mascarade", "options": {"players": 4}},
                              format="json")
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    for client in clients[1:]:
        assert client.post(game_url(game_id, "join/"), {}, format="json").status_code == 200
    assert clients[0].get(game_url(game_id)).json()["status"] == "active"

    sent = 0
    for _ in range(3000):
        status = clients[0].get(game_url(game_id)).json()["status"]
        if status == "finished":
            break
        movers = []
        for client in clients:
            legal = client.get(game_url(game_id, "legal-moves/")).json()
            if legal["moves"]:
                movers.append((client, legal))
        assert movers, "an active game waits for someone"
        client, legal = rng.choice(movers)
        answer = client.post(game_url(game_id, "moves/"),
                             {"move": rng.choice(legal["moves"]), "expected_seq": legal["seq"]},
                             format="json")
        assert answer.status_code == 201, answer.json()
        assert answer.json()["seq"] == legal["seq"] + 1
        sent += 1
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED
    assert MoveRecord.objects.filter(game=game).count() == sent == game.seq

    engine, state = replay_records(game)
    result = engine.result(state)
    assert result is not None
    final = clients[1].get(game_url(game_id)).json()
    assert final["state"]["phase"] == "over"
    assert final["state"]["winners"] == list(result.winner_seats) == final["winners"]
    assert [seat["coins"] for seat in final["state"]["seats"]] == list(state.coins)
    assert final["state"]["awaiting"] == []
    for client in clients:
        assert client.get(game_url(game_id, "legal-moves/")).json()["moves"] == []
    late = clients[0].post(game_url(game_id, "moves/"), {"move": {"type": "look"}},
                           format="json")
    assert late.status_code == 409 and late.json()["code"] == "game_not_active"
