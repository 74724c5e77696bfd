"""Every games endpoint: its success path and each error code it can give (API.md)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from games.core import selectors, services
from games.models import Game, MoveRecord, Seat

from .factories import UserFactory, client_for
from .helpers import URL, game_url, peaceful, play_service_moves, start_game

pytestmark = pytest.mark.django_db

MASCARADE_4 = {"game": "mascarade", "options": {"players": 4}}


def create(client, body=None, **extra):
    return client.post(URL, body if body is not None else MASCARADE_4, format="json", **extra)


def assert_error(response, status, code):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["code"] == code, body
    assert isinstance(body["detail"], str) and body["detail"]
    return body


def awaited(game):
    """(user, seat row) of the only pending decision's player."""
    game.refresh_from_db()
    player = game.pending_decisions.get().player
    return game.seats.get(position=player).user


# --------------------------------------------------------------------------------------------
# POST /games/


def test_create_a_game_the_creator_takes_seat_0(users, clients):
    answer = create(clients[0])
    assert answer.status_code == 201
    body = answer.json()
    assert body["status"] == "open" and body["game"] == "mascarade"
    assert body["created_by"] == users[0].username
    assert body["players"] == [{"position": 0, "player": users[0].username, "is_bot": False,
                                "absent": False, "wants_pause": False, "vacation": False,
                                "clock": None, "reliability": None,
                                "rating": {"rating": 1000, "provisional": True, "games": 0}}]
    assert body["options"]["players"] == 4 and body["options"]["scenario"] == "A"
    assert body["state"] is None and body["you"] == {"seat": 0, "knowledge": [], "legal_moves": []}
    assert "seed" not in body and "seed" not in body["options"]
    assert Seat.objects.get(game_id=body["id"]).user == users[0]


def test_create_needs_a_token(db):
    assert_error(create(client_for()), 401, "not_authenticated")
    assert_error(client_for().post(URL, MASCARADE_4, format="json",
                                   HTTP_AUTHORIZATION="Token nope"), 401, "not_authenticated")


@pytest.mark.parametrize(("options", "field"), [
    ({"players": 3}, "players"),
    ({}, "players"),
    ({"players": 4, "scenario": "Z"}, "scenario"),
    ({"players": 4, "move_timeout": 5}, "move_timeout"),
    ({"players": 4, "colour": "red"}, "colour"),
    ({"players": 4, "scenario": "custom", "masks": ["king", "queen"]}, "masks"),
])
def test_create_with_bad_options_is_invalid_options_naming_the_field(clients, options, field):
    body = assert_error(create(clients[0], {"game": "mascarade", "options": options}), 400,
                        "invalid_options")
    assert body["field"] == field


@pytest.mark.parametrize("body", [
    {"options": {"players": 4}},
    {"game": "chess", "options": {"players": 4}},
    {"game": "mascarade", "options": {"players": 4}, "private": "maybe"},
    {"game": "mascarade", "options": {"players": 4}, "bots": 4},
    ["not", "an", "object"],
])
def test_create_with_a_malformed_body_is_invalid_with_fields(clients, body):
    answer = assert_error(create(clients[0], body), 400, "invalid")
    assert answer["fields"]


def test_non_json_bodies_are_refused_with_415(clients):
    answer = clients[0].post(URL, "game=mascarade",
                             content_type="application/x-www-form-urlencoded")
    assert_error(answer, 415, "unsupported_media_type")


def test_malformed_json_is_invalid(clients):
    answer = clients[0].post(URL, "{not json", content_type="application/json")
    assert_error(answer, 400, "invalid")


@pytest.mark.parametrize("option", [{"first_seat": 2},
                                    {"deal": ["judge", "king", "empress", "thief", "cheater",
                                              "spy"]}])
def test_deal_and_first_seat_are_for_staff_only(clients, users, option):
    body = {"game": "mascarade", "options": {"players": 4, **option}}
    assert_error(create(clients[0], body), 403, "forbidden")
    users[0].is_staff = True
    users[0].save()
    answer = create(clients[0], body)
    assert answer.status_code == 201
    assert answer.json()["options"] == {**answer.json()["options"], **option}


def test_create_with_bots_starts_at_once_when_the_table_is_full(
        clients, users, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        answer = create(clients[0], {**MASCARADE_4, "bots": 3, "bot_kind": "random"})
    assert answer.status_code == 201
    body = answer.json()
    assert body["status"] == "active"
    assert [p["is_bot"] for p in body["players"]] == [False, True, True, True]
    assert body["state"]["phase"] in ("prep", "turn")
    # The bots played (eagerly here) until the human's decision.
    game = Game.objects.get(pk=body["id"])
    assert game.pending_decisions.get().player == 0


def test_private_games_have_an_invite_code_for_their_players_only(clients, users):
    body = create(clients[0], {**MASCARADE_4, "private": True}).json()
    assert body["private"] is True and body["invite_code"]
    assert_error(clients[1].get(game_url(body["id"])), 404, "not_found")
    assert_error(client_for().get(game_url(body["id"])), 404, "not_found")
    assert body["id"] not in [g["id"] for g in client_for().get(URL).json()["results"]]


# --------------------------------------------------------------------------------------------
# GET /games/ and GET /games/{id}/


def test_list_public_games_with_filters_and_pagination(clients, users):
    open_id = create(clients[0]).json()["id"]
    active = start_game(users[1], [*users[2:], UserFactory()])
    create(clients[0], {**MASCARADE_4, "private": True})
    anonymous = client_for()
    page = anonymous.get(URL).json()
    assert set(page) == {"count", "next", "previous", "results"}
    assert page["count"] == 2
    assert {g["id"] for g in page["results"]} == {open_id, str(active.pk)}
    only_open = anonymous.get(URL, {"status": "open", "game": "mascarade"}).json()
    assert [g["id"] for g in only_open["results"]] == [open_id]
    assert "state" not in only_open["results"][0]
    paged = anonymous.get(URL, {"page_size": 1}).json()
    assert paged["count"] == 2 and len(paged["results"]) == 1 and paged["next"]
    assert_error(anonymous.get(URL, {"status": "lost"}), 400, "invalid")
    assert_error(anonymous.get(URL, {"game": "chess"}), 400, "invalid")
    assert_error(anonymous.get(URL, {"page": 99}), 404, "not_found")


def test_a_spectator_reads_a_public_game_anonymously(users):
    game = start_game(users[0], users[1:])
    body = client_for().get(game_url(game.pk)).json()
    assert body["you"] is None and body["state"]["phase"] == "prep"
    assert [s["player"] for s in body["state"]["seats"]] == [u.username for u in users]
    assert_error(client_for().get(game_url("7c9e6679-7425-40de-944b-e07fc1f90ae7")), 404,
                 "not_found")


def test_game_reads_send_an_etag_and_answer_304_while_nothing_changed(users, clients):
    game = start_game(users[0], users[1:])
    first = clients[0].get(game_url(game.pk))
    etag = first["ETag"]
    assert etag
    again = clients[0].get(game_url(game.pk), HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again["ETag"] == etag
    # Another viewer sees another projection, hence another tag.
    assert clients[1].get(game_url(game.pk))["ETag"] != etag
    play_service_moves(game, 1, dict(enumerate(users)), choose=peaceful)
    changed = clients[0].get(game_url(game.pk), HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag
    assert changed.json()["seq"] == 1


# --------------------------------------------------------------------------------------------
# join, leave, bots


def test_join_takes_the_lowest_free_seat_and_the_last_one_starts_the_game(users, clients):
    game_id = create(clients[0]).json()["id"]
    assert clients[1].post(game_url(game_id, "join/"), {}, format="json").json()["you"] == {
        "seat": 1, "knowledge": [], "legal_moves": []}
    assert clients[1].post(game_url(game_id, "leave/")).status_code == 200
    assert clients[2].post(game_url(game_id, "join/")).json()["you"]["seat"] == 1
    assert clients[1].post(game_url(game_id, "join/")).json()["you"]["seat"] == 2
    last = clients[3].post(game_url(game_id, "join/"), {}, format="json")
    assert last.status_code == 200
    assert last.json()["status"] == "active" and last.json()["state"]["phase"] == "prep"


def test_join_errors(users, clients):
    game_id = create(clients[0]).json()["id"]
    assert_error(clients[0].post(game_url(game_id, "join/")), 409, "already_seated")
    assert_error(client_for().post(game_url(game_id, "join/")), 401, "not_authenticated")
    assert_error(clients[1].post(game_url("7c9e6679-7425-40de-944b-e07fc1f90ae7", "join/")),
                 404, "not_found")
    for client in clients[1:]:
        client.post(game_url(game_id, "join/"))
    assert_error(client_for(UserFactory()).post(game_url(game_id, "join/")), 409, "game_full")
    assert_error(clients[1].post(game_url(game_id, "join/"), {"invite_code": 5}, format="json"),
                 409, "already_seated")


def test_joining_a_private_game_needs_its_code(users, clients):
    body = create(clients[0], {**MASCARADE_4, "private": True}).json()
    url = game_url(body["id"], "join/")
    # One who may not see it (as for reading it: 404), with no code, a wrong one, or one that is
    # not ASCII (it was a 500).
    assert_error(clients[1].post(url), 404, "not_found")
    for wrong in ("wrong", "ćode-été", "x" * 64):
        assert_error(clients[1].post(url, {"invite_code": wrong}, format="json"), 404,
                     "not_found")
    assert_error(clients[1].post(url, {"invite_code": "\u0000"}, format="json"), 400, "invalid")
    # Staff see private games: they are told the code is missing.
    staff = client_for(UserFactory(is_staff=True))
    assert_error(staff.post(url, {"invite_code": "wrong"}, format="json"), 403, "forbidden")
    joined = clients[1].post(url, {"invite_code": body["invite_code"]}, format="json")
    assert joined.status_code == 200 and joined.json()["you"]["seat"] == 1
    assert clients[1].get(game_url(body["id"])).status_code == 200


def test_leave_before_the_start_only(users, clients):
    game_id = create(clients[0]).json()["id"]
    assert_error(clients[1].post(game_url(game_id, "leave/")), 403, "forbidden")
    clients[1].post(game_url(game_id, "join/"))
    left = clients[1].post(game_url(game_id, "leave/"))
    assert left.status_code == 200 and left.json()["you"] is None
    assert len(left.json()["players"]) == 1
    for client in clients[1:]:
        client.post(game_url(game_id, "join/"))
    assert_error(clients[1].post(game_url(game_id, "leave/")), 403, "forbidden")
    assert_error(client_for().post(game_url(game_id, "leave/")), 401, "not_authenticated")


def test_a_game_left_by_its_last_human_is_aborted(users, clients):
    game_id = create(clients[0], {**MASCARADE_4, "bots": 1}).json()["id"]
    answer = clients[0].post(game_url(game_id, "leave/"))
    assert answer.json()["status"] == "aborted"
    assert_error(clients[1].post(game_url(game_id, "join/")), 409, "game_not_active")


def test_bots_fill_empty_seats_creator_only(users, clients):
    game_id = create(clients[0]).json()["id"]
    assert_error(clients[1].post(game_url(game_id, "bots/"), {"count": 1}, format="json"), 403,
                 "forbidden")
    assert_error(clients[0].post(game_url(game_id, "bots/"), {"count": 4}, format="json"), 400,
                 "invalid")
    assert_error(clients[0].post(game_url(game_id, "bots/"), {"count": 0}, format="json"), 400,
                 "invalid")
    assert_error(clients[0].post(game_url(game_id, "bots/"), {}, format="json"), 400, "invalid")
    one = clients[0].post(game_url(game_id, "bots/"), {"count": 1}, format="json")
    assert one.status_code == 200 and one.json()["status"] == "open"
    assert one.json()["players"][1] == {"position": 1, "player": "Bot 2", "is_bot": True,
                                        "absent": False, "wants_pause": False,
                                        "vacation": False, "clock": None, "rating": None,
                                        "reliability": None}
    clients[1].post(game_url(game_id, "join/"))
    full = clients[0].post(game_url(game_id, "bots/"), {"count": 1, "kind": "random"},
                           format="json")
    assert full.status_code == 200 and full.json()["status"] == "active"
    assert_error(clients[0].post(game_url(game_id, "bots/"), {"count": 1}, format="json"), 409,
                 "game_full")


# --------------------------------------------------------------------------------------------
# legal-moves, moves, events


def test_legal_moves_for_the_awaited_player_only(users, clients):
    game = start_game(users[0], users[1:])
    mover = awaited(game)
    for user, client in zip(users, clients, strict=True):
        legal = client.get(game_url(game.pk, "legal-moves/")).json()
        assert legal["seq"] == 0
        if user == mover:
            assert legal["moves"] and {m["type"] for m in legal["moves"]} == {"exchange"}
        else:
            assert legal["moves"] == []
        # The game as read by that player carries the same moves.
        assert client.get(game_url(game.pk)).json()["you"]["legal_moves"] == legal["moves"]
    assert client_for().get(game_url(game.pk, "legal-moves/")).json() == {"seq": 0, "moves": []}
    assert client_for().get(game_url(game.pk)).json()["you"] is None


def test_send_a_move_and_read_the_events(users, clients):
    game = start_game(users[0], users[1:])
    mover = awaited(game)
    client = client_for(mover)
    move = client.get(game_url(game.pk, "legal-moves/")).json()["moves"][0]
    answer = client.post(game_url(game.pk, "moves/"), {"move": move, "expected_seq": 0},
                         format="json")
    assert answer.status_code == 201
    assert answer.json()["seq"] == 1 and answer.json()["game"]["seq"] == 1
    record = MoveRecord.objects.get(game=game)
    assert record.payload == move and record.by_user == mover
    events = clients[0].get(game_url(game.pk, "events/")).json()
    assert events["next_after"] == 1 and events["more"] is False
    assert {e["seq"] for e in events["results"]} == {1}
    assert events["results"][0]["type"] == "exchange"
    assert all(e["at"].endswith("Z") for e in events["results"])
    assert clients[0].get(game_url(game.pk, "events/"), {"after": 1}).json() == {
        "results": [], "next_after": 1, "more": False}
    assert_error(clients[0].get(game_url(game.pk, "events/"), {"after": -1}), 400, "invalid")
    assert_error(clients[0].get(game_url(game.pk, "events/"), {"after": "x"}), 400, "invalid")



def test_a_move_s_answer_is_the_mover_s_read_of_the_game_with_its_etag(users, clients):
    """A client needs no read after its move: the answer's game is what its read answers then
    (``you.legal_moves``, ``state.awaiting`` with the deadlines...), with the read's ETag; a read
    with that tag answers 304 until something changes. A replayed answer has no tag (the game
    may have moved on since)."""
    game = start_game(users[0], users[1:])
    for n in range(6):
        mover = awaited(game)
        client = client_for(mover)
        move = peaceful(client.get(game_url(game.pk, "legal-moves/")).json()["moves"])
        answer = client.post(game_url(game.pk, "moves/"), {"move": move, "expected_seq": n},
                             format="json", HTTP_IDEMPOTENCY_KEY=f"answer-{n}")
        assert answer.status_code == 201
        read = client.get(game_url(game.pk))
        assert answer.json()["game"] == read.json()
        assert answer["ETag"] == read["ETag"]
        assert client.get(game_url(game.pk), HTTP_IF_NONE_MATCH=answer["ETag"]).status_code == 304
        again = client.post(game_url(game.pk, "moves/"), {"move": move, "expected_seq": n},
                            format="json", HTTP_IDEMPOTENCY_KEY=f"answer-{n}")
        assert again.status_code == 201 and again.json() == answer.json()
        assert not again.has_header("ETag")


def test_move_errors(users, clients):
    game = start_game(users[0], users[1:])
    mover = awaited(game)
    other = next(u for u in users if u != mover)
    url = game_url(game.pk, "moves/")
    legal = client_for(mover).get(game_url(game.pk, "legal-moves/")).json()["moves"][0]

    assert_error(client_for().post(url, {"move": legal}, format="json"), 401,
                 "not_authenticated")
    assert_error(client_for(other).post(url, {"move": legal}, format="json"), 403,
                 "not_your_decision")
    assert_error(client_for(UserFactory()).post(url, {"move": legal}, format="json"), 403,
                 "forbidden")
    illegal = assert_error(client_for(mover).post(url, {"move": {"type": "look"}},
                                                  format="json"), 400, "illegal_move")
    assert illegal["rule_code"] and "§5" in illegal["detail"]
    for bad in ({"type": "fly"}, {"type": "exchange"}, "look", None, [1]):
        body = assert_error(client_for(mover).post(url, {"move": bad}, format="json"), 400,
                            "invalid")
        assert body["fields"]["move"]
    assert_error(client_for(mover).post(url, {}, format="json"), 400, "invalid")
    assert_error(client_for(mover).post(url, {"move": legal, "expected_seq": "x"},
                                        format="json"), 400, "invalid")
    stale = assert_error(client_for(mover).post(url, {"move": legal, "expected_seq": 3},
                                                format="json"), 409, "stale_seq")
    assert stale["seq"] == 0
    assert_error(client_for(mover).post(game_url("7c9e6679-7425-40de-944b-e07fc1f90ae7",
                                                 "moves/"), {"move": legal}, format="json"),
                 404, "not_found")
    open_id = create(clients[0]).json()["id"]
    assert_error(clients[0].post(game_url(open_id, "moves/"), {"move": {"type": "look"}},
                                 format="json"), 409, "game_not_active")
    assert MoveRecord.objects.filter(game=game).count() == 0


def test_a_private_game_hides_its_moves_and_events_from_outsiders(users, clients):
    body = create(clients[0], {**MASCARADE_4, "private": True}).json()
    outsider = client_for(UserFactory())
    for suffix in ("", "legal-moves/", "events/"):
        assert_error(outsider.get(game_url(body["id"], suffix)), 404, "not_found")
    assert_error(outsider.post(game_url(body["id"], "moves/"), {"move": {"type": "look"}},
                               format="json"), 404, "not_found")
    assert_error(outsider.post(game_url(body["id"], "bots/"), {"count": 1}, format="json"),
                 404, "not_found")


# --------------------------------------------------------------------------------------------
# GET /me/games/


def test_my_games_awaiting_me_first_then_by_nearest_deadline(users, clients):
    me = users[0]
    waiting_for_me = start_game(users[1], [me, *users[2:]], options={"players": 4,
                                                                     "move_timeout": 7200})
    not_me = start_game(users[1], [me, *users[2:]], options={"players": 4, "move_timeout": 600})
    open_game = create(clients[0]).json()["id"]
    # Make sure each started game awaits whom the test needs.
    me_player = {g.pk: g.seats.get(user=me).position for g in (waiting_for_me, not_me)}
    users_of = {g.pk: {s.position: s.user for s in g.seats.all()} for g in (waiting_for_me,
                                                                            not_me)}
    for game, want_me in ((waiting_for_me, True), (not_me, False)):
        for _ in range(8):
            game.refresh_from_db()
            if (game.pending_decisions.get().player == me_player[game.pk]) == want_me:
                break
            play_service_moves(game, 1, users_of[game.pk], choose=peaceful)
    page = clients[0].get("/api/v1/me/games/").json()
    ids = [g["id"] for g in page["results"]]
    assert ids == [str(waiting_for_me.pk), str(not_me.pk), open_game]
    first = page["results"][0]
    assert first["awaiting_you"] is True and first["your_deadline"]
    assert page["results"][1]["awaiting_you"] is False and page["results"][1]["next_deadline"]
    mine = clients[0].get("/api/v1/me/games/", {"my_turn": "true"}).json()
    assert [g["id"] for g in mine["results"]] == [str(waiting_for_me.pk)]
    active = clients[0].get("/api/v1/me/games/", {"status": "active"}).json()
    assert {g["id"] for g in active["results"]} == {str(waiting_for_me.pk), str(not_me.pk)}
    assert_error(clients[0].get("/api/v1/me/games/", {"my_turn": "perhaps"}), 400, "invalid")
    assert_error(client_for().get("/api/v1/me/games/"), 401, "not_authenticated")


def test_my_games_not_over_first_then_those_over_the_latest_ended_first(users, clients):
    """The games not over come first (an open table changed long ago too), then the games over
    by when they ended, the latest first; the pages and the count go across the two."""
    me = users[0]
    open_game = create(clients[0]).json()["id"]
    under_way = start_game(users[1], [me, *users[2:]], options={"players": 4})
    ended = []
    for _ in range(3):
        game = start_game(users[1], [me, *users[2:]], options={"players": 4})
        services.apply_table_move(game.pk, "abort", reason="A player cheated.",
                                  actor=MoveRecord.Actor.MODERATOR)
        ended.append(str(game.pk))
    # (the open table's last change is older than every end)
    Game.objects.filter(pk=open_game).update(updated_at=timezone.now() - dt.timedelta(days=30))
    assert all(seat.ended_at for seat in Seat.objects.filter(game_id__in=ended))
    assert not Seat.objects.filter(game_id__in=[open_game, under_way.pk],
                                   ended_at__isnull=False).exists()
    expected = [str(under_way.pk), open_game, *reversed(ended)]
    page = clients[0].get("/api/v1/me/games/").json()
    assert [g["id"] for g in page["results"]] == expected and page["count"] == 5
    seen = []
    for number in (1, 2, 3):
        part = clients[0].get("/api/v1/me/games/", {"page_size": 2, "page": number}).json()
        assert part["count"] == 5
        seen += [g["id"] for g in part["results"]]
    assert seen == expected
    aborted = clients[0].get("/api/v1/me/games/", {"status": "aborted"}).json()
    assert [g["id"] for g in aborted["results"]] == expected[2:] and aborted["count"] == 3
    assert all(g["awaiting_you"] is False and g["next_deadline"] is None
               for g in aborted["results"])
    not_mine = clients[0].get("/api/v1/me/games/", {"my_turn": "false"}).json()
    assert [g["id"] for g in not_mine["results"]][-3:] == expected[2:]
    assert selectors.games_of(me, over=False).count() == 2
    assert [str(g.pk) for g in selectors.games_of(me)[3:]] == expected[3:]


def test_the_etag_changes_when_a_pause_request_or_a_vacation_changes_the_answer(users, clients):
    """Defect: a pause request and a vacation change what the game read shows (a player's
    ``wants_pause``, a pushed deadline) without touching ``seq`` or ``updated_at``: the ETag
    answered 304 with the old body."""
    import datetime as dt

    from django.utils import timezone

    game = start_game(users[0], users[1:], options={"players": 4})
    first = clients[0].get(game_url(game.pk))
    etag = first["ETag"]
    asked = clients[1].post(game_url(game.pk, "pause/"), {"pause": True}, format="json")
    assert asked.status_code == 200 and asked.json()["status"] == "active"
    after_pause = clients[0].get(game_url(game.pk), HTTP_IF_NONE_MATCH=etag)
    assert after_pause.status_code == 200 and after_pause["ETag"] != etag
    assert after_pause.json()["players"][1]["wants_pause"] is True
    etag = after_pause["ETag"]
    awaited = game.pending_decisions.get().player
    tomorrow = timezone.now().date() + dt.timedelta(days=1)
    declared = clients[awaited].post("/api/v1/me/vacations/",
                                     {"start": str(tomorrow), "end": str(tomorrow)},
                                     format="json")
    assert declared.status_code == 201
    after_vacation = clients[0].get(game_url(game.pk), HTTP_IF_NONE_MATCH=etag)
    assert after_vacation.status_code == 200 and after_vacation["ETag"] != etag
    assert (after_vacation.json()["state"]["awaiting"][0]["deadline"]
            != after_pause.json()["state"]["awaiting"][0]["deadline"])


def test_what_a_player_saw_is_numbered_with_the_seq_of_the_move_in_the_history(users, clients):
    """The rules number only their own moves; after table moves (a pause, an absence) the seq
    of a player's knowledge and of a card's last move are the seqs the history gives them."""
    from games.core import services

    staff = UserFactory(is_staff=True)
    body = services.create_game(staff, "mascarade", {"players": 4, "first_seat": 0}).body
    for user in users[1:]:
        services.join_game(user, body["id"])
    game = Game.objects.get(pk=body["id"])
    by_player = {0: staff, 1: users[1], 2: users[2], 3: users[3]}
    services.apply_table_move(game.pk, "pause")  # seq 1
    services.apply_table_move(game.pk, "resume")  # seq 2
    for p in range(4):  # the preparatory exchanges: seqs 3 to 6
        services.submit_move(game.pk, {"type": "exchange", "target": (p + 1) % 4,
                                       "swap": False}, user=by_player[p])
    services.submit_move(game.pk, {"type": "look"}, user=staff)  # seq 7
    seen = client_for(staff).get(game_url(game.pk)).json()
    assert seen["you"]["knowledge"] == [{"seq": 7, "about": 0, "mask": seen["you"][
        "knowledge"][0]["mask"], "how": "look"}]
    events = client_for(staff).get(game_url(game.pk, "events/")).json()["results"]
    assert [e["seq"] for e in events if e["type"] == "look"] == [7]
    moved = {e["about"]: e["seq"] for e in seen["state"]["last_moved"]}
    assert moved == {0: 6, 1: 4, 2: 5, 3: 6, "center-0": 0, "center-1": 0}
