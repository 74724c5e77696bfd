"""L'Ère des Masques through the API on the real database: a whole game by two clients reading
``legal-moves``, and after every move each player's and a spectator's game and events checked
against the truth: nobody learns a card they could not know at a real table."""

from __future__ import annotations

import random
from unittest import mock

import pytest

from games.engine import MODERATOR
from games.models import Game
from tests.api.factories import client_for
from tests.api.helpers import (
    URL,
    game_url,
    json_schema,
    mail_text_beyond_its_readers_view,
    replay_records,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

#: Event fields only the seat the event is about may see.
OWNER_ONLY = {"play": "card", "draw": "cards", "spy": "hand", "recruit": "cards", "keep": "card"}


def _truth(game_id):
    engine, state = replay_records(Game.objects.get(pk=game_id))
    return engine.view(state, MODERATOR)


def _check_state(answer: dict, viewer: int | None, truth: dict, names: list[str]) -> None:
    state, you = answer["state"], answer["you"]
    secret = truth["moderator"]
    assert "moderator" not in state
    assert [s["player"] for s in state["seats"]] == names
    assert [s["hand_size"] for s in state["seats"]] == [len(h) for h in secret["hands"]]
    assert [s["zone_cards"] for s in state["seats"]] == [s["zone_cards"] for s in truth["seats"]]
    assert state["discard"] == truth["discard"] and state["draw_pile"] == truth["draw_pile"]
    played = state["played"]
    if played is not None:
        mine = viewer is not None and viewer == played["seat"]
        if played["revealed"] or mine:
            assert played["card"] == secret["played"] or played["revealed"]
        else:
            assert played["card"] is None, "the face-down card before it resolves"
    if state["recruited"] is not None:
        assert viewer is not None and state["power"]["seat"] == viewer
    if viewer is None:
        assert you is None
        return
    assert you["seat"] == viewer
    assert you["hand"] == secret["hands"][viewer]
    assert set(you) == {"seat", "hand", "seen", "legal_moves"}
    assert all(set(entry) == {"seq", "hand"} for entry in you["seen"])


def _check_events(events: list[dict], viewer: int | None) -> None:
    for event in events:
        assert event["actor"] in ("player", "timeout", "bot", "moderator", "system")
        field = OWNER_ONLY.get(event["type"])
        if field and (viewer is None or event.get("seat") != viewer):
            assert field not in event, f"{field} of the other seat's {event['type']}: {event}"


def _spy_sightings_match(game_id, seen: list[dict], viewer: int) -> None:
    """Each Spy sighting is the opponent's hand as it was at that seq (replayed there)."""
    from games.models import MoveRecord
    from tests.api.helpers import replay_with_table

    for entry in seen:
        game = Game.objects.get(pk=game_id)
        records = MoveRecord.objects.filter(game=game)
        assert records.filter(seq=entry["seq"]).exists()
        engine, state, _table = replay_with_table(game, upto=entry["seq"])
        assert entry["hand"] == engine.view(state, MODERATOR)["moderator"]["hands"][1 - viewer]


@pytest.mark.parametrize("seed", [5, 11])
def test_two_clients_play_a_game_to_the_end_and_nobody_learns_too_much(users, seed):
    rng = random.Random(seed)
    players = [client_for(users[0]), client_for(users[1])]
    spectator = client_for(users[2])
    with mock.patch("games.core.services.lobby.secrets.randbits", return_value=seed):  # the deal
        created = players[0].post(URL, {"game": "ere_des_masques", "options": {}},
                                  format="json")
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    assert created.json()["options"]["players"] == 2
    assert players[1].post(game_url(game_id, "join/"), {}, format="json").status_code == 200
    names = [users[0].username, users[1].username]
    counters = {True: 0, False: 0}
    sent = 0
    while sent < 2000:
        answers = [c.get(game_url(game_id)).json() for c in players]
        if answers[0]["status"] == "finished":
            break
        truth = _truth(game_id)
        for viewer, answer in enumerate(answers):
            _check_state(answer, viewer, truth, names)
        _check_state(spectator.get(game_url(game_id)).json(), None, truth, names)
        for viewer, client in [(0, players[0]), (1, players[1]), (None, spectator)]:
            _check_events(client.get(game_url(game_id, "events/"),
                                     {"after": max(0, sent - 3)}).json()["results"], viewer)
        movers = [(p, c.get(game_url(game_id, "legal-moves/")).json())
                  for p, c in enumerate(players)]
        movers = [(p, legal) for p, legal in movers if legal["moves"]]
        assert len(movers) == 1, "one decision at a time"
        player, legal = movers[0]
        moves = legal["moves"]
        counter = [m for m in moves if m["type"] == "counter"]
        move = rng.choice(counter) if counter and rng.random() < 0.6 else rng.choice(moves)
        answer = players[player].post(game_url(game_id, "moves/"),
                                      {"move": move, "expected_seq": legal["seq"]},
                                      format="json")
        assert answer.status_code == 201, answer.json()
        sent += 1
        if move["type"] == "counter":
            reveal = [e for e in players[player].get(game_url(game_id, "events/"),
                                                     {"after": sent - 1}).json()["results"]
                      if e["type"] == "reveal"]
            counters[reveal[0]["right"]] += 1
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED
    engine, state = replay_records(game)
    final = players[0].get(game_url(game_id)).json()
    assert final["state"]["phase"] == "over" and final["state"]["awaiting"] == []
    assert final["state"]["winners"] == list(engine.result(state).winner_seats)
    assert counters[True] and counters[False], "both outcomes of a counter were played"
    sightings = 0
    for viewer, client in enumerate(players):
        you = client.get(game_url(game_id)).json()["you"]
        _spy_sightings_match(game_id, you["seen"], viewer)
        sightings += len(you["seen"])
        assert client.get(game_url(game_id, "legal-moves/")).json()["moves"] == []
    assert sightings, "a Spy looked at a hand"


def test_the_lobby_filters_by_game(users):
    client = client_for(users[0])
    for game_id in ("ere_des_masques", "mascarade"):
        options = {} if game_id == "ere_des_masques" else {"players": 4}
        assert client.post(URL, {"game": game_id, "options": options},
                           format="json").status_code == 201
    listed = client.get(URL, {"game": "ere_des_masques"}).json()["results"]
    assert listed and {g["game"] for g in listed} == {"ere_des_masques"}
    assert client.get(URL, {"game": "chess"}).status_code == 400


def test_a_bad_option_is_refused_in_words(users):
    client = client_for(users[0])
    answer = client.post(URL, {"game": "ere_des_masques", "options": {"players": 3}},
                         format="json")
    assert answer.status_code == 400, answer.json()
    assert "2" in answer.json()["detail"]
    answer = client.post(URL, {"game": "ere_des_masques", "options": {"deal": ["noble"]}},
                         format="json")
    assert answer.status_code == 403 and answer.json()["code"] == "forbidden"


@pytest.fixture
def _locmem_mail(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def test_its_mails_name_the_game_and_its_decisions_and_show_no_card(users, _locmem_mail):
    """The outbox words each decision as the game's kit does; a card played against you is a
    "challenge" mail; no mail names a card beyond its reader's own view (their hand, their
    moves)."""
    import re

    from django.core import mail

    from games.core import services
    from games.models import Notification, PendingDecision
    from games.notify import delivery
    with mock.patch("games.core.services.lobby.secrets.randbits", return_value=5):
        body = services.create_game(users[0], "ere_des_masques", {}).body
    services.join_game(users[1], body["id"])
    game = Game.objects.get(pk=body["id"])
    row = PendingDecision.objects.get(game=game)
    assert Notification.objects.get(game=game, user_id=row.user_id,
                                    kind="your_turn").context["decision"] == "turn"
    hand = _truth(game.pk)["moderator"]["hands"][row.player]
    services.submit_move(game.pk, {"type": "play", "card": hand[0]}, user=users[row.player])
    answer = PendingDecision.objects.get(game=game)
    assert answer.decision == "respond"
    assert Notification.objects.get(game=game, user_id=answer.user_id,
                                    kind="challenge").context["decision"] == "respond"
    for pk in Notification.objects.filter(status="pending").values_list("pk", flat=True):
        delivery.deliver(pk)
    subjects = [m.subject for m in mail.outbox]
    # The game named by its name (issue 42, item 12: the default, its creator's n-th game).
    assert game.name == f"{users[0].username} #1"
    # One subject for all of a game's mails (issue 42, item 3); what each one is about heads
    # its HTML (the inbox's preview).
    assert set(subjects) == {f"[L'Ère des Masques] “{game.name}”"}
    htmls = [m.alternatives[0][0] for m in mail.outbox]
    assert any(f">A card was played against you in “{game.name}”<" in h for h in htmls)
    assert any(f">“{game.name}” has started<" in h for h in htmls)
    cards = {"noble", "recruiter", "spy", "brute", "assassin", "enrôleuse", "espionne"}
    for message in mail.outbox:
        text = mail_text_beyond_its_readers_view(message, game).lower()
        assert not cards & set(re.findall(r"[a-zà-ÿ]+", text)), message.body


def test_answers_match_the_game_s_schema(users):
    """The OpenAPI schema has the game's components, and a game's answers match them."""
    import jsonschema

    client = client_for(users[0])
    schema = client.get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    for part in ("Options", "Move", "State", "You"):
        assert f"EreDesMasques{part}" in components and f"Mascarade{part}" in components
    assert {"$ref": "#/components/schemas/EreDesMasquesState"} in components["GameState"]["anyOf"]
    assert "counter" in components["Move"]["properties"]["type"]["enum"]
    state_schema = json_schema(components["EreDesMasquesState"], components)
    you_schema = json_schema(components["EreDesMasquesYou"], components)
    other = json_schema(components["MascaradeState"], components)
    with mock.patch("games.core.services.lobby.secrets.randbits", return_value=9):
        body = client.post(URL, {"game": "ere_des_masques", "options": {}, "bots": 1},
                           format="json").json()
    answer = client.get(game_url(body["id"])).json()
    jsonschema.validate(answer["state"], state_schema)
    jsonschema.validate(answer["you"], you_schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(answer["state"], other)
    jsonschema.validate(body["options"], json_schema(components["EreDesMasquesOptions"],
                                                      components))
    for move in answer["you"]["legal_moves"]:
        jsonschema.validate(move, json_schema(components["EreDesMasquesMove"], components))


def test_deadlines_absence_bots_pause_and_the_moderators_table_serve_it_too(
        users, django_capture_on_commit_callbacks):
    """The same site code as Mascarade's: a passed deadline plays the rules' default (by actor
    ``timeout``), two in a row mark the seat absent and a bot plays it, a pause asked by both
    players pauses the game, a moderator opens the full table (both hands) and a player cannot."""
    import datetime as dt

    from django.utils import timezone

    from games.core import services
    from games.models import MoveRecord, PendingDecision, Seat

    with mock.patch("games.core.services.lobby.secrets.randbits", return_value=13):
        body = services.create_game(users[0], "ere_des_masques", {"absent_after": 2}).body
    services.join_game(users[1], body["id"])
    game = Game.objects.get(pk=body["id"])
    row = PendingDecision.objects.get(game=game)
    absent_player = row.player
    for _ in range(6):
        if Seat.objects.get(game=game, position=absent_player).absent:
            break
        row = PendingDecision.objects.filter(game=game).first()
        if row.player == absent_player:
            PendingDecision.objects.filter(pk=row.pk).update(
                deadline=timezone.now() - dt.timedelta(seconds=1))
            with django_capture_on_commit_callbacks(execute=True):
                assert services.resolve_due_deadlines() == 1
        else:
            with django_capture_on_commit_callbacks(execute=True):
                services.submit_move(game.pk, {"type": "draw"} if row.decision == "turn"
                                     else {"type": "let_pass"}, user=users[row.player])
    timeouts = MoveRecord.objects.filter(game=game, actor="timeout")
    assert timeouts.count() == 2 and {m.payload["type"] for m in timeouts} <= {"draw",
                                                                               "let_pass"}
    assert Seat.objects.get(game=game, position=absent_player).absent
    # The bot plays the absent seat whenever it is awaited (eager Celery in these tests).
    other = 1 - absent_player
    for _ in range(20):
        game.refresh_from_db()
        if MoveRecord.objects.filter(game=game, actor="bot").exists() or game.status != "active":
            break
        row = PendingDecision.objects.filter(game=game, player=other).first()
        if row is not None:
            with django_capture_on_commit_callbacks(execute=True):
                services.submit_move(game.pk, {"type": "draw"} if row.decision == "turn"
                                     else {"type": "let_pass"}, user=users[other])
    assert MoveRecord.objects.filter(game=game, actor="bot",
                                     seat__position=absent_player).exists()
    # A pause asked by every human player.
    game.refresh_from_db()
    if game.status == "active":
        for user in users[:2]:
            assert client_for(user).post(game_url(game.pk, "pause/"), {"pause": True},
                                         format="json").status_code == 200
        assert Game.objects.get(pk=game.pk).status == "paused"
    # The moderators' full table shows both hands; a player may not open it.
    from django.contrib.auth.models import Group

    from moderation.models import ModerationLog
    from moderation.services import MODERATORS_GROUP

    moderator = users[2]
    moderator.groups.add(Group.objects.get_or_create(name=MODERATORS_GROUP)[0])
    full = client_for(moderator).get(f"/api/v1/moderation/games/{game.pk}/full/")
    assert full.status_code == 200, full.json()
    assert ModerationLog.objects.filter(action="full_table").exists()
    secret = _truth(game.pk)["moderator"]
    assert full.json()["state"]["moderator"]["hands"] == secret["hands"]
    assert client_for(users[0]).get(f"/api/v1/moderation/games/{game.pk}/full/"
                                    ).status_code == 403
