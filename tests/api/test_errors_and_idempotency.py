"""Uniform error bodies (404, 405, 401, 415, 429, 500), throttles, and Idempotency-Key."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.cache import cache
from django.test import RequestFactory

from games.api import errors
from games.models import Game, IdempotencyKey, MoveRecord

from .factories import UserFactory, client_for
from .helpers import URL, game_url, peaceful, start_game
from .test_games_api import MASCARADE_4, assert_error, awaited

pytestmark = pytest.mark.django_db


def test_unknown_api_paths_answer_a_json_404(db):
    for path in ("/api/v1/nothing/", "/api/v1/games", "/api/v2/games/",
                 "/api/v1/games/not-a-uuid/"):
        answer = client_for().get(path)
        assert_error(answer, 404, "not_found")
        assert answer["Content-Type"] == "application/json"
    assert_error(client_for().post("/api/v1/nothing/", {}, format="json"), 404, "not_found")


def test_wrong_methods_answer_405(users, clients):
    assert_error(clients[0].delete(URL), 405, "method_not_allowed")
    assert_error(clients[0].put("/api/v1/me/", {}, format="json"), 405, "method_not_allowed")
    assert_error(clients[0].get("/api/v1/auth/token/"), 405, "method_not_allowed")


def test_the_404_and_500_handlers_answer_json_under_api_and_html_elsewhere():
    factory = RequestFactory()
    api = errors.handler404(factory.get("/api/v1/x/"), Exception())
    assert api.status_code == 404 and b'"not_found"' in api.content
    server = errors.handler500(factory.get("/api/v1/games/"))
    assert server.status_code == 500 and b'"server_error"' in server.content
    page = errors.handler500(factory.get("/"))
    assert page.status_code == 500 and b"not_found" not in page.content


def test_an_unexpected_error_in_a_view_is_a_json_500_never_a_traceback(users, clients,
                                                                      monkeypatch):
    from games.core import selectors

    def boom(*args, **kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr(selectors, "public_games", boom)
    assert_error(clients[0].get(URL), 500, "server_error")


def test_throttles_answer_429_with_retry_after(settings, users):
    cache.clear()
    rates = {"user": "3/minute", "anon": "2/minute", "auth": "1000/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    user_client = client_for(UserFactory())
    for _ in range(3):
        assert user_client.get(URL).status_code == 200
    limited = assert_error(user_client.get(URL), 429, "throttled")
    assert int(limited_header(user_client.get(URL))) >= 1
    assert limited["retry_after"] >= 1
    anonymous = client_for()
    for _ in range(2):
        assert anonymous.get(URL).status_code == 200
    assert_error(anonymous.get(URL), 429, "throttled")
    # The per-user budget is the user's own: another user is not throttled.
    assert client_for(UserFactory()).get(URL).status_code == 200
    cache.clear()


def limited_header(response) -> str:
    assert response.status_code == 429
    return response["Retry-After"]


def test_registration_and_token_login_have_their_own_throttle(settings, db):
    cache.clear()
    rates = {"user": "1000/minute", "anon": "1000/minute", "auth": "2/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    client = client_for()
    for _ in range(2):
        assert client.post("/api/v1/auth/token/", {"username": "x", "password": "y"},
                           format="json").status_code == 400
    assert_error(client.post("/api/v1/auth/token/", {"username": "x", "password": "y"},
                             format="json"), 429, "throttled")
    cache.clear()


# --------------------------------------------------------------------------------------------
# Idempotency-Key


def test_the_same_key_and_body_replays_the_first_answer_and_does_nothing_more(users):
    game = start_game(users[0], users[1:])
    client = client_for(awaited(game))
    move = client.get(game_url(game.pk, "legal-moves/")).json()["moves"][0]
    first = client.post(game_url(game.pk, "moves/"), {"move": move}, format="json",
                        HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == 201
    again = client.post(game_url(game.pk, "moves/"), {"move": move}, format="json",
                        HTTP_IDEMPOTENCY_KEY="k-1")
    assert again.status_code == 201 and again.json() == first.json()
    assert MoveRecord.objects.filter(game=game).count() == 1
    other = assert_error(client.post(game_url(game.pk, "moves/"),
                                     {"move": move, "expected_seq": 0}, format="json",
                                     HTTP_IDEMPOTENCY_KEY="k-1"), 422, "idempotency_conflict")
    assert other["detail"]
    # The key is the sender's own: another user may use the same string.
    assert IdempotencyKey.objects.filter(key="k-1").count() == 1


def test_an_error_answer_is_not_stored_a_retry_is_tried_again(users):
    game = start_game(users[0], users[1:])
    client = client_for(awaited(game))
    move = client.get(game_url(game.pk, "legal-moves/")).json()["moves"][0]
    body = {"move": move, "expected_seq": 0}
    Game.objects.filter(pk=game.pk).update(status=Game.Status.PAUSED)
    assert_error(client.post(game_url(game.pk, "moves/"), body, format="json",
                             HTTP_IDEMPOTENCY_KEY="k-2"), 409, "game_not_active")
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ACTIVE)
    assert client.post(game_url(game.pk, "moves/"), body, format="json",
                       HTTP_IDEMPOTENCY_KEY="k-2").status_code == 201


def test_a_key_older_than_24_hours_is_forgotten(users):
    game = start_game(users[0], users[1:])
    client = client_for(awaited(game))
    move = client.get(game_url(game.pk, "legal-moves/")).json()["moves"][0]
    assert client.post(game_url(game.pk, "moves/"), {"move": move}, format="json",
                       HTTP_IDEMPOTENCY_KEY="k-3").status_code == 201
    IdempotencyKey.objects.filter(key="k-3").update(
        created_at=IdempotencyKey.objects.get(key="k-3").created_at - dt.timedelta(hours=25))
    # Same key and body a day later: a new request (here refused: it is no longer this move).
    answer = client.post(game_url(game.pk, "moves/"), {"move": move, "expected_seq": 0},
                         format="json", HTTP_IDEMPOTENCY_KEY="k-3")
    assert_error(answer, 409, "stale_seq")


def test_creating_a_game_with_a_key_creates_it_once(users, clients):
    first = clients[0].post(URL, MASCARADE_4, format="json", HTTP_IDEMPOTENCY_KEY="new-game")
    again = clients[0].post(URL, MASCARADE_4, format="json", HTTP_IDEMPOTENCY_KEY="new-game")
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert Game.objects.count() == 1
    assert_error(clients[0].post(URL, {**MASCARADE_4, "private": True}, format="json",
                                 HTTP_IDEMPOTENCY_KEY="new-game"), 422, "idempotency_conflict")
    assert_error(clients[0].post(URL, MASCARADE_4, format="json",
                                 HTTP_IDEMPOTENCY_KEY="x" * 300), 400, "invalid")


@pytest.mark.postgres
def test_answers_given_at_once_stale_in_the_api_and_played_from_the_page(users):
    """Everyone answers a claim at once, each from the same seq. Through the API (the contract:
    any other seq is 409 ``stale_seq``) the second answer is refused and nothing is stored; from
    the page, an answer to a decision already awaited at the seq read is played, while one from a
    seq before that decision began, or from the future, is still refused."""
    import json

    from django.test import Client

    game = start_game(users[0], users[1:], {"players": 4, "challenge_mode": "simultaneous"})
    for _ in range(12):  # the first turns may not claim: exchange without swapping
        claimer = client_for(awaited(game))
        moves = claimer.get(game_url(game.pk, "legal-moves/")).json()["moves"]
        claim = next((m for m in moves if m["type"] == "announce"), None)
        if claim is not None:
            break
        assert claimer.post(game_url(game.pk, "moves/"), {"move": peaceful(moves)},
                            format="json").status_code == 201
    assert claimer.post(game_url(game.pk, "moves/"), {"move": claim},
                        format="json").status_code == 201
    reads = [(user, client_for(user).get(game_url(game.pk, "legal-moves/")).json())
             for user in users]
    reads = [(user, legal) for user, legal in reads if legal["moves"]]
    assert len(reads) == 3, "the three others answer at once"
    seq = reads[0][1]["seq"]
    before = MoveRecord.objects.filter(game=game).count()

    def passing(legal):
        return next(m for m in legal["moves"] if m["type"] == "pass")

    first, second, _third = reads
    assert client_for(first[0]).post(game_url(game.pk, "moves/"), {
        "move": passing(first[1]), "expected_seq": seq}, format="json").status_code == 201
    refused = client_for(second[0]).post(game_url(game.pk, "moves/"), {
        "move": passing(second[1]), "expected_seq": seq}, format="json")
    assert_error(refused, 409, "stale_seq")
    assert MoveRecord.objects.filter(game=game).count() == before + 1

    page = Client()
    page.force_login(second[0])
    for wrong in (seq - 1, seq + 5):
        page.post(f"/games/{game.pk}/move/", {"move": json.dumps(passing(second[1])),
                                             "expected_seq": wrong})
        assert MoveRecord.objects.filter(game=game).count() == before + 1
    answer = page.post(f"/games/{game.pk}/move/", {"move": json.dumps(passing(second[1])),
                                                  "expected_seq": seq}, follow=True)
    assert answer.status_code == 200
    assert MoveRecord.objects.filter(game=game).count() == before + 2
    assert MoveRecord.objects.filter(game=game).order_by("-seq").first().seat.user == second[0]
