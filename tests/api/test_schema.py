"""The OpenAPI schema at /api/schema/ describes what the server does: every path of API.md is in
it, the docs page serves, and schemathesis, every check on, finds no 5xx and no mismatch."""

from __future__ import annotations

import itertools

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings

from .factories import UserFactory, client_for, token_for
from .helpers import start_game

API_PATHS = {
    "/api/v1/auth/register/": {"post"},
    "/api/v1/auth/token/": {"post"},
    "/api/v1/me/": {"get", "patch"},
    "/api/v1/me/games/": {"get"},
    "/api/v1/games/": {"get", "post"},
    "/api/v1/games/{id}/": {"get"},
    "/api/v1/games/{id}/join/": {"post"},
    "/api/v1/games/{id}/leave/": {"post"},
    "/api/v1/games/{id}/bots/": {"post"},
    "/api/v1/games/{id}/legal-moves/": {"get"},
    "/api/v1/games/{id}/moves/": {"post"},
    "/api/v1/games/{id}/events/": {"get"},
}
#: Additions to API.md (allowed: "anything may be added"), each documented in the README or docs/.
ADDED_PATHS = {
    "/api/v1/games/{id}/back/": {"post"},
    "/api/v1/games/{id}/pause/": {"post"},
    "/api/v1/games/{id}/mute/": {"post"},
    "/api/v1/games/{id}/rematch/": {"post"},
    "/api/v1/me/tokens/": {"get"},
    "/api/v1/me/tokens/{id}/": {"delete"},
    "/api/v1/me/vacations/": {"get", "post"},
    "/api/v1/me/vacations/{id}/": {"delete"},
    "/api/v1/games/{id}/reports/": {"post"},
    **{f"/api/v1/moderation/games/{{id}}/{a}/": {"post"}
       for a in ("pause", "resume", "extend", "timeout", "replace", "remove", "abort")},
    "/api/v1/moderation/games/{id}/full/": {"get"},
    **{f"/api/v1/moderation/users/{{username}}/{a}/": {"post"}
       for a in ("suspend", "ban", "lift")},
    "/api/v1/games/{id}/chat/": {"get", "post"},
    "/api/v1/games/{id}/chat/{message_id}/report/": {"post"},
    "/api/v1/me/chat-mutes/": {"get", "post"},
    "/api/v1/me/chat-mutes/{username}/": {"delete"},
    "/api/v1/moderation/reports/": {"get"},
    "/api/v1/moderation/reports/{id}/": {"get"},
    "/api/v1/moderation/chat/{message_id}/hide/": {"post"},
    "/api/v1/games/{id}/stream/": {"get"},
    "/api/v1/me/stream/": {"get"},
    "/api/v1/me/webhooks/": {"get", "post"},
    "/api/v1/me/webhooks/{id}/": {"get", "patch", "delete"},
    "/api/v1/me/webhooks/{id}/rotate-secret/": {"post"},
    "/api/v1/me/webhooks/{id}/ping/": {"post"},
    "/api/v1/me/webhooks/{id}/deliveries/": {"get"},
    "/api/v1/players/{name}/": {"get"},
    "/api/v1/leaderboards/{game}/": {"get"},
}


@pytest.mark.django_db
def test_the_schema_has_every_path_and_method_of_api_md():
    schema = client_for().get("/api/schema/", {"format": "json"}).json()
    assert schema["openapi"].startswith("3.")
    paths = {path: {m for m in ops if m in ("get", "post", "patch", "put", "delete")}
             for path, ops in schema["paths"].items()}
    assert paths == API_PATHS | ADDED_PATHS
    move = schema["paths"]["/api/v1/games/{id}/moves/"]["post"]
    assert {"201", "400", "401", "403", "404", "409", "422", "429"} <= set(move["responses"])
    assert any(p["name"] == "Idempotency-Key" for p in move["parameters"])
    game = schema["paths"]["/api/v1/games/{id}/"]["get"]
    assert "304" in game["responses"]
    assert "seed" not in str(schema["components"]["schemas"]["GameOut"])
    error = schema["components"]["schemas"]["Error"]
    assert error["required"] == ["code", "detail"]


@pytest.mark.django_db
def test_the_docs_page_serves(client):
    answer = client.get("/api/docs/")
    assert answer.status_code == 200 and b"swagger" in answer.content.lower()


@pytest.fixture
def wsgi_in_test_transaction(db):
    """Like Django's test client: keep the test's connection (and transaction) across
    requests sent straight to the WSGI handler."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def chat_unlimited(monkeypatch):
    """Every generated chat message of the seated player is taken: the chat's rate limit (a
    429 for valid data, by design) is tested in test_chat.py."""
    from games.core.services import chat

    monkeypatch.setattr(chat, "MESSAGES_PER_WINDOW", 10**6)


@pytest.fixture
def seated(db, chat_unlimited):
    """A token whose user plays in an active public game, and that game's id."""
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    return token_for(users[0]), str(game.pk)


def _load_schema():
    """The schema /api/schema/ serves (same generator), sent to the app in-process, with every
    check of schemathesis on ("--checks all"). Two settings say what the API promises: a valid
    request may still be refused by the rules or the game's state (an illegal move, a full game,
    a weak password: 400, 403, 404, 409, 422, documented per operation), and a game read may
    answer 304; a query parameter the schema does not name is ignored, as HTTP APIs commonly do
    (a cache-buster must not fail a read), so none is generated."""
    loaded = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None,
                                                                          public=True))
    loaded.app = WSGIHandler()
    loaded.config.checks.positive_data_acceptance.expected_statuses = [
        "2XX", "304", "400", "401", "403", "404", "409", "422"]
    loaded.config.generation.allow_extra_parameters = False
    return loaded


schema = _load_schema()
_counter = itertools.count()


@schema.parametrize()
@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_every_check_of_schemathesis_passes(case, seated, wsgi_in_test_transaction, settings):
    """No 5xx, every answer as the schema says, invalid data refused, valid data taken (or
    refused by the rules), unsupported methods 405, authentication enforced..."""
    token, game_id = seated
    # (A stream under WSGI sends what there is, then ends at once instead of polling.)
    settings.STREAM_WSGI_HOLD_SECONDS = 0
    # Most cases about a game aim at the real one, the rest at whatever id was generated (404s).
    if (case.path.startswith("/api/v1/games/{id}") or "/moderation/games/" in case.path) \
            and "id" in (case.path_parameters or {}) and next(_counter) % 4:
        case.path_parameters["id"] = game_id
    case.call_and_validate(headers={"Authorization": f"Token {token}"})
