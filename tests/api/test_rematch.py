"""Issue 46, the rematch: "play again" at a finished game opens one new table with the same
game and options, its bots' seats re-created as bots, its other players invited back (mailed,
their seats kept), and it starts once they have all sat down."""

from __future__ import annotations

import random

import pytest

from games.core import selectors, services
from games.core.catalog import get_game
from games.models import Game, Invitation, Notification, PendingDecision
from tests.api.factories import UserFactory, client_for
from tests.api.helpers import game_url, start_game

pytestmark = pytest.mark.django_db


def finish(game: Game, users_by_player: dict) -> Game:
    """``game`` played to its end by its human players, with random legal moves."""
    rng = random.Random(3)
    engine = get_game(game.kind)
    while True:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return game
        row = (PendingDecision.objects.filter(game=game, bot=False).order_by("player").first())
        if row is None:  # (the bots' turn: their tasks run after commits, which tests skip)
            services.play_bots(game.pk, game.seq)
            continue
        move = rng.choice(engine.legal_moves(selectors.load_state(game), row.player))
        services.submit_move(game.pk, move, user=users_by_player[row.player])


@pytest.fixture
def finished(users):
    """A finished game of Mascarade (four players, a custom name, the staff's first seat)."""
    game = start_game(users[0], users[1:], options={"players": 4, "move_timeout": 7200})
    return finish(game, dict(enumerate(users)))


def test_play_again_opens_one_table_invites_the_others_and_starts_when_they_sat_down(
        finished, users, mailoutbox, django_capture_on_commit_callbacks):
    clients = [client_for(u) for u in users]
    with django_capture_on_commit_callbacks(execute=True):
        first = clients[2].post(game_url(finished.pk, "rematch/"), format="json")
    assert first.status_code == 201, first.json()
    new = first.json()
    assert new["status"] == "open" and new["game"] == "mascarade"
    assert new["options"] == finished.options and new["id"] != str(finished.pk)
    # The asker sits where they sat; the others' seats are kept for them.
    assert [p["player"] for p in new["players"]] == [users[2].username]
    assert new["players"][0]["position"] == 2
    kept = dict(Invitation.objects.filter(game_id=new["id"]).values_list("user_id", "position"))
    assert kept == {users[0].pk: 0, users[1].pk: 1, users[3].pk: 3}
    finished.refresh_from_db()
    assert str(finished.rematch_id) == new["id"]
    assert clients[0].get(game_url(finished.pk)).json()["rematch"] == new["id"]
    # Each invited player is told once, by mail.
    notes = Notification.objects.filter(game_id=new["id"], kind=Notification.Kind.INVITED)
    assert sorted(notes.values_list("user_id", flat=True)) == sorted(
        [users[0].pk, users[1].pk, users[3].pk])
    invited = [m for m in mailoutbox if users[0].email in m.to]
    assert invited and users[2].username in invited[-1].subject
    assert f"/games/{new['id']}/" in invited[-1].body

    # An outsider cannot take a kept seat.
    outsider = client_for(UserFactory())
    refused = outsider.post(game_url(new["id"], "join/"), {}, format="json")
    assert refused.status_code == 409 and refused.json()["code"] == "game_full"
    assert "invited" in refused.json()["detail"]

    # A second "play again" is the same table, and takes that player's seat there.
    again = clients[0].post(game_url(finished.pk, "rematch/"), format="json")
    assert again.status_code == 200 and again.json()["id"] == new["id"]
    assert [p["position"] for p in again.json()["players"]] == [0, 2]
    assert Game.objects.filter(created_by=users[2], kind="mascarade").count() == 1 + (
        finished.created_by_id == users[2].pk)
    assert clients[1].post(game_url(new["id"], "join/"), {}, format="json").json()[
        "status"] == "open"
    # The last one sits down (by joining): the game starts.
    started = clients[3].post(game_url(new["id"], "join/"), {}, format="json").json()
    assert started["status"] == "active"
    assert [p["position"] for p in started["players"]] == [0, 1, 2, 3]
    assert Notification.objects.filter(game_id=new["id"],
                                       kind=Notification.Kind.STARTED).count() == 4


def test_bots_seats_come_back_as_bots_and_a_table_without_other_humans_starts_at_once(users):
    outcome = services.create_game(users[0], "mascarade", {"players": 4}, bots=3,
                                   bot_kind="random")
    game = finish(Game.objects.get(pk=outcome.body["id"]), {0: users[0]})
    body, made = services.rematch(users[0], game.pk)
    assert made and body["status"] == "active"
    new = Game.objects.get(pk=body["id"])
    assert list(new.seats.order_by("position").values_list("bot_kind", flat=True)) == [
        "", "random", "random", "random"]
    assert not Invitation.objects.filter(game=new).exists()


def test_only_a_finished_game_s_players_ask_for_a_rematch(finished, users):
    outsider = client_for(UserFactory())
    answer = outsider.post(game_url(finished.pk, "rematch/"), format="json")
    assert answer.status_code == 403 and answer.json()["code"] == "forbidden"
    running = start_game(users[0], users[1:], options={"players": 4})
    answer = client_for(users[0]).post(game_url(running.pk, "rematch/"), format="json")
    assert answer.status_code == 409 and answer.json()["code"] == "game_not_active"
    assert client_for().post(game_url(finished.pk, "rematch/")).status_code == 401
    running.refresh_from_db()
    assert running.rematch_id is None and finished.rematch_id is None


def test_an_invited_player_declines_and_the_seat_is_free_for_anyone(finished, users):
    body, _made = services.rematch(users[1], finished.pk)
    services.decline_invitation(users[3], body["id"])
    stranger = UserFactory()
    joined = services.join_game(stranger, body["id"])
    assert [p["position"] for p in joined["players"] if p["player"] == stranger.username] == [3]


def test_the_finished_table_offers_play_again_and_the_new_one_its_kept_seat(finished, users):
    from tests.web.helpers import browser

    page = browser(users[0]).get(f"/games/{finished.pk}/").content.decode()
    assert f'action="/games/{finished.pk}/rematch/"' in page
    answer = browser(users[0]).post(f"/games/{finished.pk}/rematch/")
    new = Game.objects.get(pk=finished.pk).rematch
    assert answer.status_code == 302 and answer["Location"] == f"/games/{new.pk}/"
    invited = browser(users[1])
    assert new.title in invited.get("/").content.decode()
    waiting = invited.get(f"/games/{new.pk}/").content.decode()
    assert f'action="/games/{new.pk}/decline/"' in waiting
    invited.post(f"/games/{new.pk}/join/")
    assert new.seats.filter(user=users[1], position=1).exists()


# --------------------------------------------------------------------------------------------
# The minimum reliability to join


def _reliable(user, percent):
    from games.ratings.models import Reliability
    from games.ratings.selectors import today

    Reliability.objects.update_or_create(user=user, defaults={
        "as_of": today(), "decisions": 100, "answered": percent, "percent": percent})


def test_a_game_s_minimum_reliability_refuses_others_with_a_clear_message(users):
    creator, steady, flaky, newcomer = users
    _reliable(steady, 92)
    _reliable(flaky, 61)
    created = client_for(creator).post("/api/v1/games/", {
        "game": "mascarade", "options": {"players": 4}, "min_reliability": 80}, format="json")
    assert created.status_code == 201 and created.json()["min_reliability"] == 80
    join = game_url(created.json()["id"], "join/")
    refused = client_for(flaky).post(join, {}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "reliability_too_low"
    assert refused.json()["min_reliability"] == 80 and refused.json()["reliability"] == 61
    assert "80%" in refused.json()["detail"] and "61%" in refused.json()["detail"]
    french = client_for(newcomer)
    french.credentials(HTTP_AUTHORIZATION=french._credentials["HTTP_AUTHORIZATION"],
                       HTTP_ACCEPT_LANGUAGE="fr")
    refused = french.post(join, {}, format="json")
    assert refused.status_code == 403 and refused.json()["reliability"] is None
    assert "fiabilité" in refused.json()["detail"]
    assert client_for(steady).post(join, {}, format="json").status_code == 200
    assert [p["player"] for p in client_for(creator).get(game_url(created.json()["id"])).json()[
        "players"]] == [creator.username, steady.username]


def test_the_create_form_takes_a_minimum_reliability_and_the_join_button_says_why_not(users):
    from tests.web.helpers import browser

    creator, flaky = users[0], users[1]
    _reliable(flaky, 50)
    answer = browser(creator).post("/games/new/", {
        "game": "ere_des_masques", "min_reliability": "75", "name": "steady",
        **_form_defaults("ere_des_masques")})
    game = Game.objects.get(name="steady")
    assert answer.status_code == 302 and game.min_reliability == 75
    client = browser(flaky)
    assert "75%" in client.get(f"/games/{game.pk}/").content.decode()
    page = client.post(f"/games/{game.pk}/join/", follow=True).content.decode()
    assert "at least 75%; yours is 50%" in page
    assert not game.seats.filter(user=flaky).exists()


@pytest.mark.parametrize("value", [-1, 101, "high", 12.5, True])
def test_a_minimum_reliability_is_a_percentage(users, value):
    answer = client_for(users[0]).post("/api/v1/games/", {
        "game": "mascarade", "options": {"players": 4}, "min_reliability": value},
        format="json")
    assert answer.status_code == 400 and "min_reliability" in answer.json()["fields"]


def _form_defaults(kind: str) -> dict:
    """The create form's fields as it first shows them (the game's defaults)."""
    from games.core.catalog import get_kit

    form = get_kit(kind).form()
    return {name: field.initial for name, field in form.fields.items()
            if field.initial is not None and name != "min_reliability"}
