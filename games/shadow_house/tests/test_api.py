"""Shadow House Mascarade through the API on the real database: a whole game by five clients
reading ``legal-moves`` (several of them answering the same simultaneous effect, each with the
seq they read before the others moved), and after every move each player's and a spectator's
game and events checked against the truth: nobody learns a card they could not know at a real
table (§5 of shared/rules/shadow-house.md)."""

from __future__ import annotations

import random
from unittest import mock

import pytest

from games.engine import MODERATOR
from games.models import Game
from tests.api.factories import UserFactory, client_for
from tests.api.helpers import (
    URL,
    game_url,
    json_schema,
    mail_text_beyond_its_readers_view,
    replay_records,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

#: Private event fields, and which seats of the event may see them: "seat" (the seat the event is
#: about) and the event's other field naming a seat.
PRIVATE = {
    "deal": ("cards", ()),
    "draw": ("card", ()),
    "little_one": ("culprit", ()),
    "give": ("card", ("to",)),
    "rumour": ("card", ("from",)),
    "panic_pool": ("cards", ()),
    "panic_deal": ("card", ()),
    "witness": ("hand", ()),
}


def _truth(game_id):
    engine, state = replay_records(Game.objects.get(pk=game_id))
    return engine.view(state, MODERATOR)


def _check_state(answer: dict, viewer: int | None, truth: dict, names: list[str]) -> None:
    state, you = answer["state"], answer["you"]
    hands = truth["moderator"]["hands"]
    assert "moderator" not in state
    assert [s["player"] for s in state["seats"]] == names
    assert [s["hand_size"] for s in state["seats"]] == [len(h) for h in hands]
    for key in ("played", "points", "handcuffs", "accomplice", "protected", "chosen"):
        assert [s[key] for s in state["seats"]] == [s[key] for s in truth["seats"]], key
    for key in ("round", "pile_size", "discards", "effect", "rounds", "turn_seat"):
        assert state[key] == truth[key], key
    if viewer is None:
        assert you is None
        return
    assert you["seat"] == viewer
    assert you["hand"] == hands[viewer]
    effect = truth["effect"] or {}
    if you["witnessed"] is not None:
        assert effect.get("card") == "witness" and effect.get("seat") == viewer
        assert you["witnessed"]["hand"] == hands[you["witnessed"]["seat"]]
    if you["pool"] is not None:
        assert effect.get("card") == "panic" and effect.get("seat") == viewer


def _check_events(events: list[dict], viewer: int | None) -> None:
    for event in events:
        assert event["actor"] in ("player", "timeout", "bot", "moderator", "system")
        private = PRIVATE.get(event["type"])
        if not private:
            continue
        field, others = private
        allowed = {event.get("seat")} | {event.get(name) for name in others}
        if viewer is None or viewer not in allowed:
            assert field not in event, f"{field} of {event} seen by {viewer}"


def _choose(rng: random.Random, moves: list[dict], names: list[str]) -> dict:
    move = rng.choice(moves)
    if move["type"] == "say" and rng.random() < 0.7:
        return {"type": "say", "text": f"<b>I suspect</b> {rng.choice(names)}"}
    return move


@pytest.mark.parametrize("seed", [3, 8])
def test_five_clients_play_a_game_to_the_end_and_nobody_learns_too_much(users, seed):
    rng = random.Random(seed)
    people = [*users, UserFactory(), UserFactory()]
    players = [client_for(user) for user in people[:5]]
    spectator = client_for(people[5])
    with mock.patch("games.core.services.lobby.secrets.randbits", return_value=seed):
        created = players[0].post(URL, {"game": "shadow_house", "options": {"players": 5}},
                                  format="json")
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    for client in players[1:]:
        assert client.post(game_url(game_id, "join/"), {}, format="json").status_code == 200
    names = [user.username for user in people[:5]]
    said, simultaneous, kinds, sent, stale = [], 0, set(), 0, 0
    while sent < 3000:
        answers = [c.get(game_url(game_id)).json() for c in players]
        if answers[0]["status"] == "finished":
            break
        truth = _truth(game_id)
        for viewer, answer in enumerate(answers):
            _check_state(answer, viewer, truth, names)
        _check_state(spectator.get(game_url(game_id)).json(), None, truth, names)
        for viewer, client in [*enumerate(players), (None, spectator)]:
            _check_events(client.get(game_url(game_id, "events/"),
                                     {"after": max(0, sent - 6)}).json()["results"], viewer)
        movers = [(p, c.get(game_url(game_id, "legal-moves/")).json())
                  for p, c in enumerate(players)]
        movers = [(p, legal) for p, legal in movers if legal["moves"]]
        assert movers, "somebody is awaited while the game goes on"
        simultaneous += len(movers) > 1
        rng.shuffle(movers)
        truth_seq = movers[0][1]["seq"]
        # Everyone awaited answers with the seq they read; once another has moved, that seq is
        # stale (API.md: 409 stale_seq, nothing stored): they read again and answer.
        for player, legal in movers:
            move = _choose(rng, legal["moves"], names)
            kinds.add(move["type"])
            answer = players[player].post(game_url(game_id, "moves/"),
                                          {"move": move, "expected_seq": legal["seq"]},
                                          format="json")
            if answer.status_code == 409:
                assert answer.json()["code"] == "stale_seq" and legal["seq"] != truth_seq
                stale += 1
                again = players[player].get(game_url(game_id, "legal-moves/")).json()
                assert move in again["moves"] or move["type"] == "say"
                answer = players[player].post(game_url(game_id, "moves/"),
                                              {"move": move, "expected_seq": again["seq"]},
                                              format="json")
            assert answer.status_code == 201, (move, answer.json())
            truth_seq = answer.json()["seq"]
            sent += 1
            if move["type"] == "say" and move["text"]:
                said.append((player, move["text"]))
            if answer.json()["game"]["state"]["round"] != truth["round"]:
                break  # a round ended: the others' reads are of the round before
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED
    engine, state = replay_records(game)
    final = players[0].get(game_url(game_id)).json()
    assert final["state"]["phase"] == "over" and final["state"]["awaiting"] == []
    assert final["state"]["winners"] == list(engine.result(state).winner_seats)
    assert max(final["state"]["rounds"][-1]["points"]) >= 5
    assert simultaneous and stale, "several players were awaited at once"
    assert {"play", "give"} <= kinds
    chat, after = [], 0
    while True:  # every page of the chat, oldest first
        page = spectator.get(game_url(game_id, "chat/"), {"after": after}).json()["results"]
        if not page:
            break
        chat += page
        after = page[-1]["id"]
    hat = [(m["position"], m["text"]) for m in chat if m["source"] == "divining_hat"]
    assert said and hat == said
    assert all(m["source_label"] == "Divining hat" for m in chat)


def test_the_game_s_answers_match_its_schema(users):
    """The OpenAPI schema has the game's components, and its answers match them."""
    import jsonschema


    client = client_for(users[0])
    components = client.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]
    for part in ("Options", "Move", "State", "You"):
        assert f"ShadowHouse{part}" in components
    with mock.patch("games.core.services.lobby.secrets.randbits", return_value=4):
        body = client.post(URL, {"game": "shadow_house", "options": {"players": 4}, "bots": 3},
                           format="json").json()
    answer = client.get(game_url(body["id"])).json()
    jsonschema.validate(answer["state"], json_schema(components["ShadowHouseState"],
                                                      components))
    jsonschema.validate(answer["you"], json_schema(components["ShadowHouseYou"], components))
    jsonschema.validate(body["options"], json_schema(components["ShadowHouseOptions"],
                                                      components))
    for move in answer["you"]["legal_moves"]:
        jsonschema.validate(move, json_schema(components["ShadowHouseMove"], components))


def test_options_are_refused_in_words(users):
    client = client_for(users[0])
    answer = client.post(URL, {"game": "shadow_house", "options": {"players": 9}},
                         format="json")
    assert answer.status_code == 400 and "8" in answer.json()["detail"], answer.json()
    answer = client.post(URL, {"game": "shadow_house", "options": {"players": 4,
                                                                   "first_seat": 1}},
                         format="json")
    assert answer.status_code == 403 and answer.json()["code"] == "forbidden"


def test_a_simultaneous_choice_has_a_deadline_per_player(users, django_capture_on_commit_callbacks):
    """A Sharing awaits every player with cards at once, each with their own deadline: one
    player's deadline passing plays the timeout default for them alone (a card at random, by
    actor ``timeout``), the others' decisions and deadlines stay, and the Sharing resolves when
    the last card is in."""
    import datetime as dt

    from django.utils import timezone

    from games.core import services
    from games.models import MoveRecord, PendingDecision

    from .test_pages import box_order

    users[0].is_staff = True
    users[0].save()
    hands = [["first_on_scene", "exchange", "alibi", "toby"],
             ["sharing", "maid", "divining_hat", "culprit"],
             ["detective", "sheriff", "witness", "rumour"]]
    body = services.create_game(users[0], "shadow_house",
                                {"players": 3, "deal": [box_order(hands)]}).body
    for user in users[1:3]:
        services.join_game(user, body["id"])
    game = Game.objects.get(pk=body["id"])
    services.submit_move(game.pk, {"type": "play", "card": "sharing"}, user=users[1])
    rows = {row.player: row for row in PendingDecision.objects.filter(game=game)}
    assert sorted(rows) == [0, 1, 2] and {r.decision for r in rows.values()} == {"give"}
    PendingDecision.objects.filter(pk=rows[0].pk).update(
        deadline=timezone.now() - dt.timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert services.resolve_due_deadlines() == 1
    timed_out = MoveRecord.objects.filter(game=game, actor="timeout").get()
    assert timed_out.seat.position == 0 and timed_out.payload["type"] == "give"
    assert timed_out.payload["card"] in {"exchange", "alibi", "toby"}
    left = {row.player: row for row in PendingDecision.objects.filter(game=game)}
    assert sorted(left) == [1, 2]
    assert all(left[p].deadline == rows[p].deadline for p in (1, 2))
    for player, card in ((1, "maid"), (2, "rumour")):
        services.submit_move(game.pk, {"type": "give", "card": card}, user=users[player])
    hands_now = _truth(game.pk)["moderator"]["hands"]
    assert "rumour" in hands_now[0] and "maid" in hands_now[2]
    assert timed_out.payload["card"] in hands_now[1]


def test_its_mails_word_each_decision_and_show_no_card(users, settings):
    """A Sharing's choice is a "challenge" mail naming the game; none of these mails names a
    card beyond its reader's own view (their hand, their moves)."""
    import re

    from django.core import mail

    from games.core import services
    from games.models import Notification
    from games.notify import delivery
    from games.shadow_house.display import TITLES

    from .test_pages import box_order

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    users[0].is_staff = True
    users[0].save()
    hands = [["first_on_scene", "exchange", "alibi", "toby"],
             ["sharing", "maid", "divining_hat", "culprit"],
             ["detective", "sheriff", "witness", "rumour"]]
    body = services.create_game(users[0], "shadow_house",
                                {"players": 3, "deal": [box_order(hands)]}).body
    for user in users[1:3]:
        services.join_game(user, body["id"])
    game = Game.objects.get(pk=body["id"])
    services.submit_move(game.pk, {"type": "play", "card": "sharing"}, user=users[1])
    kinds = set(Notification.objects.filter(game=game).values_list("kind", "context__decision"))
    assert ("your_turn", "turn") in kinds and ("challenge", "give") in kinds
    for pk in Notification.objects.filter(status="pending").values_list("pk", flat=True):
        delivery.deliver(pk)
    subjects = [m.subject for m in mail.outbox]
    # One subject for all of a game's mails (issue 42, item 3); what each one is about heads
    # its HTML (the inbox's preview).
    assert set(subjects) == {f"[Shadow House Mascarade] “{game.name}”"}, subjects
    assert any(f">A card to choose in “{game.name}”<" in m.alternatives[0][0]
               for m in mail.outbox)
    words = {w for title in TITLES.values() for w in re.findall(r"[a-z]+", str(title).lower())
             if len(w) > 3} - {"scene", "first"}
    for message in mail.outbox:
        text = mail_text_beyond_its_readers_view(message, game).lower()
        assert not words & set(re.findall(r"[a-z]+", text)), (words & set(
            re.findall(r"[a-z]+", text)), message.body)
