"""Issue 42, items 12 and 13: games have names that tell them apart (their creator's choice, or
"<creator> #<n>"), shown by the lists, the table, the API and the mails' subjects; "your
games" says of each its players, whose turn it is, the deadline, paused or over; a paused game
says who paused it, why, and who can resume it."""

from __future__ import annotations

import html as html_lib
import re

import pytest
from django.core import mail
from django.utils import translation

from games.core import services
from games.models import Game, Notification
from tests.api.factories import UserFactory
from tests.api.helpers import awaited_players, start_game

from .helpers import browser

pytestmark = pytest.mark.django_db


def text(client, url: str) -> str:
    return html_lib.unescape(client.get(url).content.decode())


def your_games(html: str) -> list[str]:
    """The lines of "Your games", their tags stripped, spaces folded."""
    part = html.split('id="mine-title"')[1].split("</section>")[0]
    return [" ".join(re.sub(r"<[^>]+>", " ", line).split())
            for line in re.findall(r'<li class="your-game">(.*?)</li>', part, re.S)]


def test_games_get_default_names_that_differ_and_a_creator_may_name_one():
    tom = UserFactory(username="tom")
    ids = [services.create_game(tom, "mascarade", {"players": 4}).body["id"] for _ in range(2)]
    named = services.create_game(tom, "mascarade", {"players": 4},
                                 name="  Friday\n night   masks ").body
    assert [Game.objects.get(pk=pk).name for pk in ids] == ["tom #1", "tom #2"]
    assert named["name"] == "Friday night masks"  # (one line: it goes into subjects)
    lines = your_games(text(browser(tom), "/games/"))
    titles = [line.split(" Mascarade")[0] for line in lines]
    assert sorted(titles) == ["Friday night masks", "tom #1", "tom #2"], lines


def test_the_create_page_takes_a_name():
    tom = UserFactory(username="tom")
    client = browser(tom)
    form = text(client, "/games/new/?game=ere_des_masques")
    assert 'name="name"' in form and "Name of the game (optional)" in form
    answer = client.post("/games/new/", {"game": "ere_des_masques", "name": "Duel at dawn",
                                         "move_timeout": 86400, "challenge_timeout": 43200,
                                         "absent_policy": "bot", "bots": 0})
    assert answer.status_code == 302, answer.content.decode()[:2000]
    game = Game.objects.get(created_by=tom)
    assert game.name == "Duel at dawn" and game.options.get("name") is None
    table = text(client, f"/games/{game.pk}/")
    assert "<title>Duel at dawn · L'Ère des Masques · Mascarade Online</title>" in table
    assert '<h1 class="table-title">Duel at dawn ' in table
    too_long = client.post("/games/new/", {"game": "ere_des_masques", "name": "x" * 81,
                                           "move_timeout": 86400, "challenge_timeout": 43200,
                                           "absent_policy": "bot", "bots": 0})
    assert too_long.status_code == 200 and Game.objects.filter(created_by=tom).count() == 1


def test_your_games_say_players_whose_turn_the_deadline_and_paused_or_over():
    users = [UserFactory(username=n) for n in ("tom", "ann", "bea", "cyd")]
    tom = users[0]
    playing = start_game(tom, users[1:], name="Playing")
    paused = start_game(tom, users[1:], name="Paused")
    for user in users:
        services.request_pause(user, paused.pk, True)
    services.create_game(tom, "shadow_house", {"players": 3}, name="Waiting room")
    lines = {line.split(" ")[0]: line for line in your_games(text(browser(tom), "/games/"))}
    assert set(lines) == {"Playing", "Paused", "Waiting"}, lines
    awaited = playing.pending_decisions.get().user.username
    assert "Players: tom, ann, bea, cyd" in lines["Playing"]
    if awaited == "tom":
        assert "your move" in lines["Playing"] and "your deadline:" in lines["Playing"]
    else:
        assert f"waiting for {awaited}" in lines["Playing"]
        assert "next deadline:" in lines["Playing"]
    assert "paused" in lines["Paused"] and "deadline" not in lines["Paused"]
    assert "your move" not in lines["Paused"]
    assert "waiting for players: 2 seats free" in lines["Waiting"]
    assert "Players: tom" in lines["Waiting"]
    home = your_games(text(browser(tom), "/"))
    assert len(home) == 3 and any("paused" in line for line in home)
    with translation.override("fr"):
        tom.language = "fr"
        tom.save()
        french = your_games(text(browser(tom), "/games/"))
    assert any("en pause" in line for line in french), french
    assert any("Joueurs : tom, ann, bea, cyd" in line for line in french), french


def test_the_name_in_the_api_and_in_mail_subjects():
    tom = UserFactory(username="tom", email="tom@example.org")
    others = [UserFactory() for _ in range(3)]
    game = start_game(tom, others, name="Masked ball")
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(tom)
    assert api.get(f"/api/v1/games/{game.pk}/").json()["name"] == "Masked ball"
    assert {g["name"] for g in api.get("/api/v1/me/games/").json()["results"]} == {"Masked ball"}
    created = api.post("/api/v1/games/", {"game": "mascarade", "options": {"players": 4},
                                          "name": "By the API"}, format="json")
    assert created.status_code == 201 and created.json()["name"] == "By the API"
    too_long = api.post("/api/v1/games/", {"game": "mascarade", "options": {"players": 4},
                                           "name": "x" * 81}, format="json")
    assert too_long.status_code == 400
    from games.notify import delivery

    for pk in Notification.objects.filter(status="pending").values_list("pk", flat=True):
        delivery.deliver(pk)
    subjects = [m.subject for m in mail.outbox]
    assert any("“Masked ball”" in s for s in subjects), subjects


def test_a_paused_game_says_who_paused_it_why_and_who_can_resume_it():
    users = [UserFactory(username=n) for n in ("tom", "ann", "bea", "cyd")]
    game = start_game(users[0], users[1:])
    for user in users:
        services.request_pause(user, game.pk, True)
    page = text(browser(users[1]), f"/games/{game.pk}/")
    note = " ".join(re.sub(r"<[^>]+>", " ", page.split('id="pause-note"')[1]
                           .split("</p>")[0]).split())
    assert note.startswith("> The game is paused. Every player asked for a pause, cyd last"), note
    assert "Any player can resume it: “Resume the game”, under “Your seat”." in note
    assert '<a href="#tools-title">' in page and "Resume the game</button>" in page
    spectator = text(browser(UserFactory()), f"/games/{game.pk}/")
    assert "Any of its players can resume it." in spectator
    assert "The game is paused: every player asked for it." in page  # (the history)
    with translation.override("fr"):
        users[1].language = "fr"
        users[1].save()
        french = text(browser(users[1]), f"/games/{game.pk}/")
    assert "Tous les joueurs ont demandé une pause" in french, french


def test_a_moderators_pause_says_their_reason_and_that_only_a_moderator_resumes():
    from moderation import services as moderation

    users = [UserFactory(username=n) for n in ("tom", "ann", "bea", "cyd")]
    game = start_game(users[0], users[1:])
    moderator = UserFactory(username="mod", is_superuser=True)
    moderation.pause(moderator, game.pk, "A player reported cheating; we are looking.")
    page = text(browser(users[2]), f"/games/{game.pk}/")
    note = " ".join(re.sub(r"<[^>]+>", " ", page.split('id="pause-note"')[1]
                           .split("</p>")[0]).split())
    assert "A moderator paused it" in note, note
    assert "Their reason: “A player reported cheating; we are looking.”." in note
    assert "Only a moderator can resume it." in note
    assert "Resume the game</button>" not in page  # (the players cannot: no button)
    assert "mod" not in note.split()  # (the moderator is not named)
    assert awaited_players(game)  # (the decisions wait, not lost)
