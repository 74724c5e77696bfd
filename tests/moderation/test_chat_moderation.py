"""Moderating the table chat: a player reports a message (the API and its refusals), moderators
read reports with the message among those around it (the moderation API and the admin), and hide
a message (a hide row, logged; the open reports resolved and their reporters told); hidden
messages are gone for everyone but moderators."""

from __future__ import annotations

import pytest
from django.test import Client

from games.core import services
from games.core.services import chat as chat_service
from games.models import ChatHide, ChatMessage, Game, Notification
from moderation.models import ModerationLog, Report
from tests.api.factories import UserFactory, client_for
from tests.api.helpers import game_url, start_game

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.fixture
def users():
    return [UserFactory() for _ in range(4)]


@pytest.fixture
def game(users):
    return start_game(users[0], users[1:])


@pytest.fixture
def talk(game, users):
    """Seven messages at the table; the fourth (by users[1]) is the rude one."""
    said = [chat_service.post_message(users[n % 4], game.pk, f"line {n}") for n in range(3)]
    rude = chat_service.post_message(users[1], game.pk, "<b>you are all idiots</b>")
    said += [rude] + [chat_service.post_message(users[n % 4], game.pk, f"line {n}")
                      for n in range(4, 7)]
    return said


def report_url(game, message):
    return game_url(game.pk, f"chat/{message.pk}/report/")


def test_a_player_reports_a_message(game, users, talk):
    rude = talk[3]
    answer = client_for(users[0]).post(report_url(game, rude),
                                       {"reason": "abuse", "text": "insults"}, format="json")
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["message"] == rude.pk and body["reported"] == users[1].username
    report = Report.objects.get()
    assert (report.message, report.reporter, report.text) == (rude, users[0], "insults")
    # Once per message; the reason defaults to abuse.
    again = client_for(users[0]).post(report_url(game, rude), {}, format="json")
    assert again.status_code == 400 and again.json()["fields"]["message"]
    assert client_for(users[2]).post(report_url(game, rude), {},
                                     format="json").json()["reason"] == "abuse"


def test_reports_that_are_refused(game, users, talk):
    own = talk[1]  # users[1]'s own
    cases = [
        (users[1], own, 400, "invalid"),
        (UserFactory(), talk[3], 403, "forbidden"),  # a spectator
        (users[0], ChatMessage(pk=10**9), 404, "not_found"),
    ]
    for reporter, message, status, code in cases:
        answer = client_for(reporter).post(report_url(game, message), {}, format="json")
        assert (answer.status_code, answer.json()["code"]) == (status, code), answer.content
    other_game = start_game(UserFactory(), [UserFactory() for _ in range(3)])
    elsewhere = chat_service.post_message(other_game.seats.first().user, other_game.pk, "hi")
    answer = client_for(users[0]).post(report_url(game, elsewhere), {}, format="json")
    assert answer.status_code == 404
    assert client_for(users[0]).post(report_url(game, talk[3]), {"reason": "rudeness"},
                                     format="json").status_code == 400
    assert not Report.objects.exists()


def test_a_private_games_messages_are_not_found_by_outsiders(users):
    body = services.create_game(users[0], "mascarade", {"players": 4}, private=True).body
    game = Game.objects.get(pk=body["id"])
    for user in users[1:]:
        services.join_game(user, game.pk, game.invite_code)
    message = chat_service.post_message(users[1], game.pk, "private words")
    answer = client_for(UserFactory()).post(report_url(game, message), {}, format="json")
    assert answer.status_code == 404 and answer.json()["code"] == "not_found"


def test_moderators_read_reports_with_the_message_in_context(game, users, talk, moderator):
    rude = talk[3]
    client_for(users[0]).post(report_url(game, rude), {"text": "see this"}, format="json")
    assert client_for(users[0]).get("/api/v1/moderation/reports/").status_code == 403
    listing = client_for(moderator).get("/api/v1/moderation/reports/", {"status": "open"})
    assert listing.status_code == 200, listing.content
    [report] = listing.json()["results"]
    assert report["message"]["text"] == "<b>you are all idiots</b>"
    assert report["reported"] == users[1].username and report["text"] == "see this"
    context = [m["text"] for m in report["context"]]
    assert context == ["line 0", "line 1", "line 2", "<b>you are all idiots</b>", "line 4",
                       "line 5", "line 6"]
    detail = client_for(moderator).get(f"/api/v1/moderation/reports/{report['id']}/")
    assert detail.status_code == 200 and detail.json() == report
    assert client_for(moderator).get("/api/v1/moderation/reports/999999/").status_code == 404
    assert client_for(moderator).get("/api/v1/moderation/reports/",
                                     {"status": "resolved"}).json()["count"] == 0


def test_a_moderator_hides_a_message_logged_and_reports_resolved(game, users, talk, moderator):
    rude = talk[3]
    client_for(users[0]).post(report_url(game, rude), {}, format="json")
    hide_url = f"/api/v1/moderation/chat/{rude.pk}/hide/"
    assert client_for(users[0]).post(hide_url, {"reason": "x"}, format="json").status_code == 403
    assert client_for(moderator).post(hide_url, {}, format="json").status_code == 400
    assert not ChatHide.objects.exists()
    answer = client_for(moderator).post(hide_url, {"reason": "insults"}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["hidden"] is True and answer.json()["id"] == rude.pk
    hide = ChatHide.objects.get()
    assert (hide.message, hide.moderator, hide.reason) == (rude, moderator, "insults")
    entry = ModerationLog.objects.get(action="hide_message")
    assert (entry.moderator, entry.game_id, entry.target_user, entry.reason) == (
        moderator, game.pk, users[1], "insults")
    assert entry.details["message"] == rude.pk
    report = Report.objects.get()
    assert (report.status, report.resolution) == ("resolved", "message hidden")
    assert Notification.objects.filter(user=users[0], kind="moderation").exists()
    # Gone for the players and spectators; shown, marked, to moderators.
    for reader in (client_for(users[0]), client_for(users[1]), client_for()):
        texts = [m["text"] for m in reader.get(game_url(game.pk, "chat/")).json()["results"]]
        assert "<b>you are all idiots</b>" not in texts and len(texts) == 6
    seen = client_for(moderator).get(game_url(game.pk, "chat/")).json()["results"]
    assert [m["hidden"] for m in seen if m["id"] == rude.pk] == [True]
    again = client_for(moderator).post(hide_url, {"reason": "twice"}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "already_hidden"
    assert ModerationLog.objects.filter(action="hide_message").count() == 1
    # A hidden message is not reported any more.
    assert client_for(users[2]).post(report_url(game, rude), {},
                                     format="json").status_code == 404
    assert client_for(moderator).post("/api/v1/moderation/chat/999999/hide/",
                                      {"reason": "x"}, format="json").status_code == 404


def admin_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_admin_shows_a_report_with_its_message_in_context_escaped(game, users, talk,
                                                                      moderator):
    client_for(users[0]).post(report_url(game, talk[3]), {}, format="json")
    report = Report.objects.get()
    client = admin_client(moderator)
    html = client.get(f"/admin/moderation/report/{report.pk}/change/").content.decode()
    assert "&lt;b&gt;you are all idiots&lt;/b&gt;" in html and "<b>you are all idiots" not in html
    for n in (0, 2, 4, 6):
        assert f"line {n}" in html
    assert 'class="chat-reported"' in html
    listing = client.get("/admin/moderation/report/").content.decode()
    assert "a chat message" in listing


def test_the_admin_hides_the_reported_message(game, users, talk, moderator):
    client_for(users[0]).post(report_url(game, talk[3]), {}, format="json")
    report = Report.objects.get()
    client = admin_client(moderator)
    answer = client.post("/admin/moderation/report/", {
        "action": "hide_messages", "_selected_action": [report.pk], "note": "name-calling",
        "resolution": ""})
    assert answer.status_code == 302
    hide = ChatHide.objects.get()
    assert (hide.message_id, hide.reason) == (talk[3].pk, "name-calling")
    assert ModerationLog.objects.filter(action="hide_message", reason="name-calling").exists()
    report.refresh_from_db()
    assert report.status == "resolved"


def test_the_admin_lists_the_chat_and_hides_from_it(game, users, talk, moderator):
    client = admin_client(moderator)
    listing = client.get("/admin/games/chatmessage/")
    assert listing.status_code == 200
    assert "&lt;b&gt;you are all idiots&lt;/b&gt;" in listing.content.decode()
    detail = client.get(f"/admin/games/chatmessage/{talk[3].pk}/change/")
    assert detail.status_code == 200 and "line 6" in detail.content.decode()
    # Without a reason nothing is hidden (the reason goes to the log).
    client.post("/admin/games/chatmessage/", {"action": "hide",
                                              "_selected_action": [talk[0].pk]})
    assert not ChatHide.objects.exists()
    client.post("/admin/games/chatmessage/", {"action": "hide", "reason": "spam",
                                              "_selected_action": [talk[0].pk]})
    assert ChatHide.objects.get().message_id == talk[0].pk
    assert ModerationLog.objects.filter(action="hide_message", reason="spam").count() == 1
    assert client.get("/admin/games/chatmessage/?hidden=yes").content.decode().count(
        "line 0") >= 1
    # Read-only: nobody changes or deletes a message here.
    assert client.post(f"/admin/games/chatmessage/{talk[0].pk}/delete/",
                       {"post": "yes"}).status_code == 403
    assert ChatMessage.objects.count() == 7
    # Players have no admin.
    assert admin_client(users[0]).get("/admin/games/chatmessage/").status_code == 302
