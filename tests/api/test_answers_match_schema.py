"""Real answers of the API, checked against the OpenAPI schema the site serves at /api/schema/
(by openapi-core, which finds each answer's operation and status and validates its body and
headers): games of each kind played to their end (creation, joins, bots, reads as a player and
as a spectator, legal moves, moves, events, 304s, refusals), the lobby, ``/me/`` and its lists,
the chat, reports, mutes, vacations, tokens, webhooks and the moderators' answers.

The schema is closed for the check: an object that does not say ``additionalProperties`` takes
no property it does not name, so a field the server sends and the schema leaves out fails, as
does a field the schema requires and the server leaves out (the schema and the server agree
both ways; schemathesis, in test_schema.py, checks requests and status codes)."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from openapi_core import OpenAPI
from openapi_core.contrib.django import DjangoOpenAPIRequest, DjangoOpenAPIResponse

from games.models import Game

from .factories import PASSWORD, UserFactory, client_for
from .helpers import game_url

pytestmark = pytest.mark.django_db

GAMES = {
    "mascarade": {"players": 4},
    "ere_des_masques": {},
    "shadow_house": {"players": 3},
}


def closed(node):
    """The schema with every object that names its properties and says nothing of others
    closed to others (``additionalProperties: false``)."""
    if isinstance(node, list):
        return [closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: closed(value) for key, value in node.items()}
    if "properties" in out and "additionalProperties" not in out \
            and not any(key in out for key in ("allOf", "oneOf", "anyOf")):
        out["additionalProperties"] = False
    return out


class Answered(DjangoOpenAPIRequest):
    """The request of an answer already given, for openapi-core to find the answer's operation:
    its body, read by the view, is not read again (only the answer is checked here)."""

    @property
    def body(self) -> bytes:
        return b""


class Checked:
    """Validates each answer it is given against the schema; notes which operations and
    statuses were seen."""

    def __init__(self):
        schema = client_for().get("/api/schema/", {"format": "json"}).json()
        self.openapi = OpenAPI.from_dict(closed(schema))
        self.seen: set[tuple[str, str, int]] = set()
        self.errors: dict[str, set[str]] = {}

    def __call__(self, response, status: int | None = None):
        if status is not None:
            body = getattr(response, "data", None)
            assert response.status_code == status, (response.status_code, body)
        request = Answered(response.wsgi_request)
        where = f"{request.method.upper()} {request.path_pattern} {response.status_code}"
        for error in self.openapi.iter_response_errors(request, DjangoOpenAPIResponse(response)):
            self.errors.setdefault(where, set()).update(reasons(error))
        self.seen.add((request.path_pattern, request.method, response.status_code))
        return response.json() if response.content else None


def reasons(error) -> list[str]:
    """What was wrong, where: the innermost errors of the schema's validation, by their path in
    the answer (of the alternatives of an ``anyOf`` or ``oneOf``, the nearest to match)."""
    found = list(getattr(error, "schema_errors", ()) or ())
    found += list(getattr(error.__cause__, "schema_errors", ()) or ())
    if not found:
        return [f"{type(error).__name__}: {error}"[:300]]
    return [f"{'/'.join(str(part) for part in leaf.absolute_path)}: {leaf.message[:200]}"
            for item in found for leaf in leaves(item)]


def leaves(error) -> list:
    if not error.context:
        return [error]
    branches: dict = {}
    for item in error.context:
        branches.setdefault(item.relative_schema_path[0], []).append(item)
    depth = len(error.absolute_path)

    def distance(items) -> tuple[bool, int]:
        # (the alternative meant: not one refused as a whole, such as null for an object; then
        # the one with the fewest errors)
        found = [leaf for item in items for leaf in leaves(item)]
        return all(len(leaf.absolute_path) == depth for leaf in found), len(found)

    nearest = min(branches.values(), key=distance)
    return [leaf for item in nearest for leaf in leaves(item)]


@pytest.fixture
def check(db):
    checked = Checked()
    yield checked
    assert not checked.errors, "\n".join(
        f"{where}: {reason}" for where, found in sorted(checked.errors.items())
        for reason in sorted(found))


def play_to_the_end(check, kind: str, options: dict) -> None:
    """A game of ``kind`` between humans (one joins, leaves and comes back), every answer on
    the way checked, until it ends: the game as each player and as a spectator reads it, the
    events, the legal moves and the moves."""
    ada = UserFactory()
    mine, anyone = client_for(ada), client_for()
    created = check(mine.post("/api/v1/games/", {"game": kind, "options": options},
                              format="json"), 201)
    game_id = created["id"]
    check(anyone.get("/api/v1/games/", {"status": "open", "game": kind}), 200)
    others = [UserFactory() for _ in range(Game.objects.get(pk=game_id).seat_count - 1)]
    clients = {ada.pk: mine, **{user.pk: client_for(user) for user in others}}
    hers = clients[others[0].pk]
    check(hers.get(game_url(game_id)), 200)
    if others[1:]:
        check(hers.post(game_url(game_id, "join/"), {}, format="json"), 200)
        check(hers.post(game_url(game_id, "leave/"), {}, format="json"), 200)
    check(mine.post(game_url(game_id, "chat/"), {"text": "Good luck, all!"}, format="json"),
          201)
    for user in others:
        check(clients[user.pk].post(game_url(game_id, "join/"), {}, format="json"), 200)
    rng = random.Random(5)
    after = 0
    for count in range(1500):
        game = Game.objects.get(pk=game_id)
        awaited = sorted(game.pending_decisions.values_list("user_id", flat=True))
        client = clients[awaited[0]] if awaited else mine
        read = client.get(game_url(game_id))
        check(read, 200)
        if count % 5 == 0 or game.status != Game.Status.ACTIVE:
            check(client.get(game_url(game_id), HTTP_IF_NONE_MATCH=read["ETag"]), 304)
            check(anyone.get(game_url(game_id)), 200)
            events = check(hers.get(game_url(game_id, "events/"), {"after": after}), 200)
            after = events["next_after"]
        if game.status != Game.Status.ACTIVE:
            break
        legal = check(client.get(game_url(game_id, "legal-moves/")), 200)
        body = {"move": rng.choice(legal["moves"]), "expected_seq": legal["seq"]}
        key = f"{game_id}-{legal['seq']}"
        check(client.post(game_url(game_id, "moves/"), body, format="json",
                          HTTP_IDEMPOTENCY_KEY=key), 201)
        if count == 0:
            # the same key and body: the first answer again; the same seq again: 409
            check(client.post(game_url(game_id, "moves/"), body, format="json",
                              HTTP_IDEMPOTENCY_KEY=key))
            check(client.post(game_url(game_id, "moves/"), body, format="json"), 409)
    else:
        raise AssertionError(f"{kind}: no end in 1500 moves")
    assert Game.objects.get(pk=game_id).status == Game.Status.FINISHED
    check(mine.get(game_url(game_id, "legal-moves/")), 200)
    check(mine.get("/api/v1/me/games/", {"status": "finished"}), 200)
    check(mine.get(game_url(game_id, "chat/")), 200)
    # Played again (issue 46): the new table, the same one for the next player, no outsider.
    again = check(mine.post(game_url(game_id, "rematch/"), format="json"), 201)
    assert check(hers.post(game_url(game_id, "rematch/"), format="json"), 200)["id"] == again[
        "id"]
    check(anyone.get(game_url(game_id)), 200)
    check(client_for(UserFactory()).post(game_url(game_id, "rematch/"), format="json"), 403)
    # A minimum reliability: a player without any is refused.
    strict = check(mine.post("/api/v1/games/", {"game": kind, "options": options,
                                                "min_reliability": 90}, format="json"), 201)
    check(client_for(UserFactory()).post(game_url(strict["id"], "join/"), {}, format="json"),
          403)


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_a_game_played_to_its_end_answers_as_the_schema_says(check, kind, settings):
    settings.API_THROTTLE_RATES = None
    play_to_the_end(check, kind, GAMES[kind])


def test_every_other_answer_is_as_the_schema_says(check, settings):
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    anonymous = client_for()
    registered = check(anonymous.post("/api/v1/auth/register/", {
        "username": "newcomer", "email": "newcomer@example.org", "password": PASSWORD},
        format="json"), 201)
    assert registered["username"] == "newcomer"
    ada, bea, cid = UserFactory(), UserFactory(), UserFactory()
    check(anonymous.post("/api/v1/auth/token/", {"username": ada.username,
                                                  "password": PASSWORD}, format="json"), 200)
    check(anonymous.post("/api/v1/auth/token/", {"username": ada.username,
                                                  "password": "wrong"}, format="json"), 400)
    mine, hers = client_for(ada), client_for(bea)
    check(anonymous.get("/api/v1/me/"), 401)
    check(mine.get("/api/v1/me/"), 200)
    check(mine.patch("/api/v1/me/", {"language": "fr", "notify_chat_digest": False},
                     format="json"), 200)
    check(mine.get("/api/v1/me/tokens/"), 200)
    today = dt.date.today()
    vacation = check(mine.post("/api/v1/me/vacations/", {
        "start": str(today + dt.timedelta(days=3)), "end": str(today + dt.timedelta(days=5))},
        format="json"), 201)
    check(mine.get("/api/v1/me/vacations/"), 200)
    check(mine.delete(f"/api/v1/me/vacations/{vacation['id']}/"), 204)

    created = check(mine.post("/api/v1/games/", {"game": "mascarade",
                                                  "options": {"players": 4}, "bots": 2},
                              format="json"), 201)
    game_id = created["id"]
    check(mine.post("/api/v1/games/", {"game": "mascarade", "options": {"players": 99}},
                    format="json"), 400)
    check(mine.get(game_url("00000000-0000-0000-0000-000000000000")), 404)
    other = check(hers.post("/api/v1/games/", {"game": "mascarade", "options": {"players": 5}},
                            format="json"), 201)
    check(hers.post(game_url(other["id"], "bots/"), {"count": 2}, format="json"), 200)
    check(hers.post(game_url(game_id, "join/"), {}, format="json"), 200)
    check(client_for(cid).post(game_url(game_id, "join/"), {}, format="json"), 409)
    check(mine.get("/api/v1/me/games/", {"my_turn": "true"}), 200)
    check(mine.get("/api/v1/me/games/"), 200)
    check(anonymous.get("/api/v1/games/"), 200)
    check(mine.post(game_url(game_id, "mute/"), {"muted": True}, format="json"), 200)
    check(mine.post(game_url(game_id, "pause/"), {"pause": True}, format="json"), 200)
    check(hers.post(game_url(game_id, "pause/"), {"pause": True}, format="json"), 200)
    check(mine.post(game_url(game_id, "pause/"), {"pause": False}, format="json"), 200)
    check(mine.post(game_url(game_id, "back/"), {}, format="json"))

    said = check(hers.post(game_url(game_id, "chat/"), {"text": "Hello <there>"},
                           format="json"), 201)
    check(hers.post(game_url(game_id, "chat/"), {"text": ""}, format="json"), 400)
    check(mine.get(game_url(game_id, "chat/")), 200)
    check(mine.get(game_url(game_id, "chat/"), {"after": said["id"]}), 200)
    check(mine.post(game_url(game_id, f"chat/{said['id']}/report/"), {"reason": "abuse"},
                    format="json"), 201)
    check(mine.post(game_url(game_id, "reports/"), {"reported": bea.username,
                                                    "reason": "stalling"}, format="json"), 201)
    check(mine.post("/api/v1/me/chat-mutes/", {"username": bea.username}, format="json"), 201)
    check(mine.get("/api/v1/me/chat-mutes/"), 200)
    check(mine.delete(f"/api/v1/me/chat-mutes/{bea.username}/"), 204)

    hook = check(mine.post("/api/v1/me/webhooks/", {"url": "https://127.0.0.1:8443/in",
                                                    "description": "my bot"}, format="json"),
                 201)
    check(mine.post("/api/v1/me/webhooks/", {"url": "https://10.0.0.1/in"},
                    format="json"), 400)
    check(mine.get("/api/v1/me/webhooks/"), 200)
    check(mine.get(f"/api/v1/me/webhooks/{hook['id']}/"), 200)
    check(mine.patch(f"/api/v1/me/webhooks/{hook['id']}/", {"description": "still mine"},
                     format="json"), 200)
    check(mine.post(f"/api/v1/me/webhooks/{hook['id']}/rotate-secret/", {}, format="json"),
          200)
    check(mine.post(f"/api/v1/me/webhooks/{hook['id']}/ping/", {}, format="json"))
    check(mine.get(f"/api/v1/me/webhooks/{hook['id']}/deliveries/"), 200)
    check(mine.delete(f"/api/v1/me/webhooks/{hook['id']}/"), 204)

    moderator = client_for(UserFactory(is_staff=True, is_superuser=True))
    check(hers.get("/api/v1/moderation/reports/"), 403)
    reports = check(moderator.get("/api/v1/moderation/reports/"), 200)
    for report in reports["results"]:
        check(moderator.get(f"/api/v1/moderation/reports/{report['id']}/"), 200)
    check(moderator.get(f"/api/v1/moderation/games/{game_id}/full/"), 200)
    check(moderator.post(f"/api/v1/moderation/chat/{said['id']}/hide/",
                         {"reason": "rude"}, format="json"), 200)
    check(moderator.post(f"/api/v1/moderation/chat/{said['id']}/hide/",
                         {"reason": "rude"}, format="json"), 409)
    check(moderator.get(game_url(game_id, "chat/")), 200)
    for action, body in (("pause", {}), ("resume", {}), ("extend", {"hours": 2}),
                         ("timeout", {"player": 0}), ("replace", {"player": 1}),
                         ("remove", {"player": 1}), ("abort", {})):
        check(moderator.post(f"/api/v1/moderation/games/{game_id}/{action}/",
                             {"reason": "a test of the schema", **body}, format="json"))
    check(moderator.post(f"/api/v1/moderation/users/{cid.username}/suspend/",
                         {"reason": "a test", "days": 2}, format="json"))
    check(moderator.post(f"/api/v1/moderation/users/{cid.username}/lift/",
                         {"reason": "a test"}, format="json"))
    check(moderator.post(f"/api/v1/moderation/users/{cid.username}/ban/",
                         {"reason": "a test"}, format="json"))
    check(mine.get(game_url(game_id)), 200)
    check(mine.post(game_url(game_id, "moves/"), {"move": {"type": "look"}}, format="json"),
          409)
