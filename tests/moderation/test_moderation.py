"""Moderation: game actions (API and admin) appended as moderator moves that a replay
reproduces, the log, permissions, suspensions and bans, reports."""

from __future__ import annotations

import pytest
from django.core import mail
from django.core.management import call_command
from django.test import Client

from games.models import Game, MoveRecord, PendingDecision, Seat
from moderation.models import ModerationLog, Report
from tests.api.factories import PASSWORD, UserFactory, client_for
from tests.api.helpers import replay_with_table, start_game

pytestmark = pytest.mark.django_db

MOD = "/api/v1/moderation/"


@pytest.fixture
def players():
    return [UserFactory() for _ in range(4)]


@pytest.fixture
def game(players):
    return start_game(players[0], players[1:], options={"players": 4})


def act(client, game, action, **body):
    return client.post(f"{MOD}games/{game.pk}/{action}/", body, format="json")


def check_replay(game):
    game.refresh_from_db()
    engine, state, table = replay_with_table(game)
    from games.core import selectors

    live = selectors.load_for_viewer(selectors.find_game(game.pk), None).state
    assert engine.to_json(state) == engine.to_json(live)
    assert table["paused"] == (game.status == "paused")
    assert (table["aborted"] is not None) == (game.status == "aborted")
    for position, who in table["occupants"].items():
        seat = Seat.objects.get(game=game, position=int(position))
        assert who == (f"bot:{seat.bot_kind}" if seat.is_bot else f"user:{seat.user_id}")
    return table


def last_record(game):
    return MoveRecord.objects.filter(game=game).order_by("-seq").first()


def test_pause_resume_extend_timeout_through_the_api(moderator, game):
    client = client_for(moderator)
    answer = act(client, game, "pause", reason="checking a report")
    assert answer.status_code == 200, answer.json()
    assert answer.json()["game"]["status"] == "paused"
    record = last_record(game)
    assert record.actor == "moderator" and record.by_user == moderator
    assert record.payload["action"] == "pause" and record.payload["by"] == "moderator"
    assert act(client, game, "resume", reason="all clear").json()["game"]["status"] == "active"
    before = PendingDecision.objects.get(game=game).deadline
    assert act(client, game, "extend", reason="a player asked", hours=5).status_code == 200
    assert (PendingDecision.objects.get(game=game).deadline - before).total_seconds() == 18000
    seq = Game.objects.get(pk=game.pk).seq
    awaited = PendingDecision.objects.get(game=game).player
    answer = act(client, game, "timeout", reason="stalling", player=awaited)
    assert answer.status_code == 200 and answer.json()["seq"] == seq + 1
    assert last_record(game).actor == "moderator" and last_record(game).payload["type"] \
        == "exchange"
    check_replay(game)
    actions = list(ModerationLog.objects.order_by("id").values_list("action", flat=True))
    assert actions == ["pause", "resume", "extend", "timeout"]
    assert all(ModerationLog.objects.values_list("reason", flat=True))


def test_a_reason_is_required_and_a_bad_request_changes_nothing(moderator, game):
    client = client_for(moderator)
    seq = game.seq
    for action in ("pause", "abort"):
        answer = act(client, game, action, reason="  ")
        assert answer.status_code == 400 and answer.json()["code"] == "invalid"
    assert act(client, game, "resume", reason="x").status_code == 409
    game.refresh_from_db()
    assert game.seq == seq and not ModerationLog.objects.exists()


def test_replace_and_remove_hand_seats_over(moderator, game, players,
                                            django_capture_on_commit_callbacks):
    client = client_for(moderator)
    newcomer = UserFactory()
    with django_capture_on_commit_callbacks(execute=True):
        answer = act(client, game, "replace", player=1, username=newcomer.username,
                     reason="the player left")
        assert answer.status_code == 200, answer.json()
        assert Seat.objects.get(game=game, position=1).user == newcomer
        assert act(client, game, "remove", player=2, reason="abusive").status_code == 200
    assert Seat.objects.get(game=game, position=2).is_bot
    table = check_replay(game)
    assert table["occupants"] == {"1": f"user:{newcomer.pk}", "2": "bot:heuristic"}
    told = {m.to[0] for m in mail.outbox}
    assert players[1].email in told and players[2].email in told
    log = ModerationLog.objects.get(action="remove")
    assert log.target_user == players[2] and log.details["player"] == 2


def test_abort_tells_the_players_by_mail_and_at_the_table(moderator, game, players):
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks(execute=True):
        answer = act(client_for(moderator), game, "abort", reason="cheating ring")
    assert answer.status_code == 200
    assert answer.status_code == 200 and answer.json()["game"]["status"] == "aborted"
    assert {m.to[0] for m in mail.outbox} >= {p.email for p in players}
    assert any("cheating ring" in m.body for m in mail.outbox)
    events = client_for(players[1]).get(f"/api/v1/games/{game.pk}/events/").json()["results"]
    assert events[-1]["type"] == "table" and events[-1]["action"] == "abort"
    check_replay(game)


def test_the_full_table_is_for_moderators_and_each_opening_is_logged(moderator, game,
                                                                     players):
    client = client_for(moderator)
    for _ in range(2):
        answer = client.get(f"{MOD}games/{game.pk}/full/")
        assert answer.status_code == 200
        assert len(answer.json()["state"]["moderator"]["cards"]) == 6
    admin = Client()
    admin.force_login(moderator)
    page = admin.get(f"/admin/games/game/{game.pk}/full/")
    assert page.status_code == 200 and b"cards" in page.content
    assert ModerationLog.objects.filter(action="full_table", game=game).count() == 3
    assert client_for(players[0]).get(f"{MOD}games/{game.pk}/full/").status_code == 403
    outsider = Client()
    outsider.force_login(players[0])
    assert outsider.get(f"/admin/games/game/{game.pk}/full/").status_code == 302


def test_ordinary_users_get_403_and_anonymous_401_on_every_moderation_path(game, players):
    paths = [f"games/{game.pk}/{a}/" for a in ("pause", "resume", "extend", "timeout",
                                                "replace", "remove", "abort")]
    paths += [f"users/{players[1].username}/{a}/" for a in ("suspend", "ban", "lift")]
    for path in paths:
        assert client_for(players[0]).post(MOD + path, {"reason": "x"},
                                           format="json").status_code == 403
        assert client_for(None).post(MOD + path, {"reason": "x"},
                                     format="json").status_code == 401
    assert client_for(players[0]).get(f"{MOD}games/{game.pk}/full/").status_code == 403
    assert not ModerationLog.objects.exists()


def test_admin_actions_need_a_moderator_and_append_records(moderator, game, players):
    admin = Client()
    admin.force_login(moderator)
    answer = admin.post("/admin/games/game/", {"action": "pause_games", "_selected_action":
                                               [str(game.pk)], "reason": "from the admin"})
    assert answer.status_code == 302
    game.refresh_from_db()
    assert game.status == "paused" and last_record(game).actor == "moderator"
    admin.post("/admin/games/game/", {"action": "resume_games",
                                      "_selected_action": [str(game.pk)], "reason": "ok"})
    awaited = PendingDecision.objects.get(game=game).player
    admin.post("/admin/games/game/", {"action": "timeout_now", "player": awaited,
                                      "_selected_action": [str(game.pk)], "reason": "slow"})
    admin.post("/admin/games/game/", {"action": "abort_games",
                                      "_selected_action": [str(game.pk)], "reason": "bye"})
    game.refresh_from_db()
    assert game.status == "aborted"
    assert list(ModerationLog.objects.order_by("id").values_list("action", flat=True)) == [
        "pause", "resume", "timeout", "abort"]
    check_replay(game)
    # Without a reason: refused with a message, nothing appended.
    other = start_game(players[0], players[1:], options={"players": 4})
    admin.post("/admin/games/game/", {"action": "pause_games",
                                      "_selected_action": [str(other.pk)], "reason": ""})
    assert Game.objects.get(pk=other.pk).status == "active"


def test_nobody_can_change_move_records_through_the_admin(moderator, game):
    record = MoveRecord.objects.create(game=game, seq=game.seq + 1, seat=None, actor="system",
                                       payload={"type": "table", "action": "pause"}, events=[])
    superuser = UserFactory(is_staff=True, is_superuser=True)
    for user in (moderator, superuser):
        admin = Client()
        admin.force_login(user)
        base = f"/admin/games/moverecord/{record.pk}/"
        assert admin.get(base + "change/").status_code in (200, 403)
        assert admin.post(base + "change/", {"actor": "player"}).status_code == 403
        assert admin.post(base + "delete/", {"post": "yes"}).status_code == 403
        assert admin.get("/admin/games/moverecord/add/").status_code == 403
    record.refresh_from_db()
    assert record.actor == "system"


def test_suspension_and_ban_block_login_and_token_and_lifting_restores(
        moderator, game, players, django_capture_on_commit_callbacks):
    target = players[1]
    token_client = client_for(target)
    assert token_client.get("/api/v1/me/").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        answer = client_for(moderator).post(f"{MOD}users/{target.username}/suspend/",
                                            {"days": 3, "reason": "insults"}, format="json")
    assert answer.status_code == 204
    me = token_client.get("/api/v1/me/")
    assert me.status_code == 403 and "suspended until" in me.json()["detail"]
    assert "insults" in me.json()["detail"]
    token = client_for(None).post("/api/v1/auth/token/", {"username": target.username,
                                                          "password": PASSWORD},
                                  format="json")
    assert token.status_code == 403
    web = Client()
    login = web.post("/accounts/login/", {"login": target.username, "password": PASSWORD})
    assert login.status_code == 403 and b"suspended" in login.content
    # Their seat went to a bot; they were told why.
    assert Seat.objects.get(game=game, position=1).is_bot
    assert any("insults" in m.body for m in mail.outbox if m.to == [target.email])
    client_for(moderator).post(f"{MOD}users/{target.username}/lift/", {"reason": "appeal"},
                               format="json")
    assert token_client.get("/api/v1/me/").status_code == 200
    assert web.post("/accounts/login/", {"login": target.username,
                                         "password": PASSWORD}).status_code == 302
    client_for(moderator).post(f"{MOD}users/{target.username}/ban/", {"reason": "spam"},
                               format="json")
    assert token_client.get("/api/v1/me/").status_code == 403
    logged_in = Client()
    logged_in.force_login(target)
    assert logged_in.get("/games/").status_code == 403  # an open session is closed too
    assert [e.action for e in ModerationLog.objects.order_by("id")] == [
        "suspend", "lift", "ban"]


def test_reports_filing_limits_resolving_and_telling_the_reporter(moderator, game, players):
    client = client_for(players[0])
    url = f"/api/v1/games/{game.pk}/reports/"
    answer = client.post(url, {"reported": players[1].username, "reason": "abuse",
                               "text": "rude name"}, format="json")
    assert answer.status_code == 201 and answer.json()["seq"] == game.seq
    assert client.post(url, {"reported": players[0].username, "reason": "abuse"},
                       format="json").status_code == 400
    assert client_for(UserFactory()).post(url, {"reported": players[1].username,
                                                "reason": "abuse"},
                                          format="json").status_code == 403
    assert client.post(url, {"reported": players[1].username, "reason": "nope"},
                       format="json").status_code == 400
    for _ in range(4):
        assert client.post(url, {"reported": players[2].username, "reason": "stalling"},
                           format="json").status_code == 201
    over = client.post(url, {"reported": players[2].username, "reason": "stalling"},
                       format="json")
    assert over.status_code == 400 and "5 reports a day" in over.json()["detail"] + str(
        over.json().get("fields"))
    assert Report.objects.count() == 5
    report = Report.objects.order_by("id").first()
    admin = Client()
    admin.force_login(moderator)
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks(execute=True):
        admin.post("/admin/moderation/report/", {"action": "resolve",
                                                 "_selected_action": [str(report.pk)],
                                                 "resolution": "warned", "note": "talked"})
    report.refresh_from_db()
    assert report.status == "resolved" and report.resolved_by == moderator
    assert any(m.to == [players[0].email] and "handled" in m.subject for m in mail.outbox)
    assert ModerationLog.objects.filter(action="resolve_report").count() == 1
    # The admin lists games with an open report.
    listing = admin.get("/admin/games/game/?open_report=yes")
    assert str(game.pk) in listing.content.decode()


def test_make_moderator_command(players):
    call_command("make_moderator", players[3].username)
    players[3].refresh_from_db()
    from moderation.services import is_moderator

    assert players[3].is_staff and is_moderator(players[3])
    call_command("make_moderator", players[3].username, "--remove")
    players[3].refresh_from_db()
    assert not is_moderator(players[3])


def test_a_player_reports_from_the_table_page(game, players):
    web = Client()
    web.force_login(players[0])
    page = web.get(f"/games/{game.pk}/").content.decode()
    assert "Report a player" in page and players[1].username in page
    answer = web.post(f"/games/{game.pk}/report/", {"reported": players[1].username,
                                                    "reason": "cheating", "text": "signals"},
                      follow=True)
    assert "moderators will look" in answer.content.decode()
    report = Report.objects.get()
    assert report.reporter == players[0] and report.reason == "cheating"
    refused = web.post(f"/games/{game.pk}/report/", {"reported": players[0].username,
                                                     "reason": "abuse"}, follow=True)
    assert "yourself" in refused.content.decode() and Report.objects.count() == 1


def test_admin_extend_and_seat_to_bot(moderator, game, players):
    admin = Client()
    admin.force_login(moderator)
    before = PendingDecision.objects.get(game=game).deadline
    admin.post("/admin/games/game/", {"action": "extend_deadline", "hours": 3,
                                      "_selected_action": [str(game.pk)], "reason": "asked"})
    assert (PendingDecision.objects.get(game=game).deadline - before).total_seconds() == 10800
    admin.post("/admin/games/game/", {"action": "seat_to_bot", "player": 3,
                                      "_selected_action": [str(game.pk)], "reason": "gone"})
    assert Seat.objects.get(game=game, position=3).is_bot
    assert [r.payload["action"] for r in MoveRecord.objects.filter(game=game)] == [
        "extend", "replace"]
    assert all(r.actor == "moderator" for r in MoveRecord.objects.filter(game=game))
    assert list(ModerationLog.objects.order_by("id").values_list("action", flat=True)) == [
        "extend", "remove"]
    check_replay(game)
    # A user who is staff but not a moderator gets no actions.
    staff = UserFactory(is_staff=True)
    staff_client = Client()
    staff_client.force_login(staff)
    answer = staff_client.post("/admin/games/game/", {"action": "abort_games",
                                                      "_selected_action": [str(game.pk)],
                                                      "reason": "x"})
    assert answer.status_code in (302, 403)
    assert Game.objects.get(pk=game.pk).status == "active"


def test_admin_gives_a_seat_to_another_user_and_suspends_until_a_date(moderator, game,
                                                                     players):
    admin = Client()
    admin.force_login(moderator)
    newcomer = UserFactory()
    admin.post("/admin/games/game/", {"action": "seat_to_user", "player": 2,
                                      "username": newcomer.username,
                                      "_selected_action": [str(game.pk)], "reason": "swap"})
    assert Seat.objects.get(game=game, position=2).user == newcomer
    answer = admin.post("/admin/games/game/", {"action": "seat_to_user", "player": 1,
                                               "username": "nobody-here",
                                               "_selected_action": [str(game.pk)],
                                               "reason": "swap"}, follow=True)
    assert "no user named" in answer.content.decode()
    check_replay(game)
    until = "2031-01-02T03:04:00Z"
    answer = client_for(moderator).post(f"{MOD}users/{players[3].username}/suspend/",
                                        {"until": until, "reason": "spam"}, format="json")
    assert answer.status_code == 204
    players[3].refresh_from_db()
    assert players[3].suspended_until.year == 2031
    both = client_for(moderator).post(f"{MOD}users/{players[3].username}/suspend/",
                                      {"until": until, "days": 2, "reason": "x"},
                                      format="json")
    assert both.status_code == 400
    assert admin.get("/admin/games/seat/?q=" + newcomer.username).status_code == 200


def test_moderation_mails_go_through_the_outbox_and_are_retried(moderator, game, players,
                                                                monkeypatch):
    """No SMTP inside the moderator's request: the messages are outbox rows, delivered after
    the commit; a failed send is retried later, in each recipient's language."""
    from django.core.mail import EmailMultiAlternatives
    from django.test import TestCase

    from games.models import Notification
    from games.notify import delivery
    players[1].language = "fr"
    players[1].save(update_fields=["language"])
    real_send = EmailMultiAlternatives.send

    def down(self, *args, **kwargs):
        raise ConnectionRefusedError("SMTP down")

    monkeypatch.setattr(EmailMultiAlternatives, "send", down)
    with TestCase.captureOnCommitCallbacks(execute=True):
        answer = act(client_for(moderator), game, "abort", reason="cheating ring")
    assert answer.status_code == 200
    rows = Notification.objects.filter(kind="moderation", game=game)
    assert {row.user_id for row in rows} == {p.pk for p in players}
    assert {row.status for row in rows} == {"pending"} and {row.attempts for row in rows} == {1}
    assert mail.outbox == []
    monkeypatch.setattr(EmailMultiAlternatives, "send", real_send)
    rows.update(next_attempt_at=game.created_at)  # due again
    delivery.deliver_due()
    assert {row.status for row in rows.all()} == {"sent"}
    french = next(m for m in mail.outbox if m.to == [players[1].email])
    assert "cheating ring" in french.body and "Motif" in french.body
    # A second delivery run sends nothing more.
    delivery.deliver_due()
    told = [m for m in mail.outbox if "cheating ring" in m.body]
    assert sorted(m.to[0] for m in told) == sorted(p.email for p in players)


def test_a_username_changed_in_the_admin_changes_the_games_etags(game, players):
    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.create_superuser("root", "root@example.org", PASSWORD)
    client = Client()
    client.force_login(admin)
    reader = client_for(players[0])
    etag = reader.get(f"/api/v1/games/{game.pk}/")["ETag"]
    target = players[1]
    form = client.get(f"/admin/accounts/user/{target.pk}/change/")
    assert form.status_code == 200
    data = {"username": "renamed", "email": target.email, "language": "en",
            "notify_email": "on", "timezone": "UTC", "is_active": "on",
            "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00",
            "last_login_0": "", "last_login_1": ""}
    saved = client.post(f"/admin/accounts/user/{target.pk}/change/", data)
    assert saved.status_code == 302, saved.content.decode()[:2000]
    again = reader.get(f"/api/v1/games/{game.pk}/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 200
    assert "renamed" in [p["player"] for p in again.json()["players"]]


def test_a_timeout_now_names_its_decision_and_one_that_is_gone_changes_nothing(
        moderator, game, players):
    """The race of the audit: the player answered just before the moderator's "timeout now"
    arrived. It answered 200 with a null seq and logged a timeout that was not played, or,
    without a seat, timed out the next seat's new decision. Now: 409, nothing played, nothing
    logged."""
    from games.core import services

    client = client_for(moderator)
    row = PendingDecision.objects.get(game=game)
    seq = game.seq
    # The seat is required.
    assert act(client, game, "timeout", reason="slow").json()["code"] == "invalid"
    # The player answers first...
    services.submit_move(game.pk, {"type": "exchange", "target": (row.player + 1) % 4,
                                   "swap": False}, user=players[row.player])
    # ... then the moderator's timeout for that decision arrives: gone.
    late = act(client, game, "timeout", reason="slow", player=row.player)
    assert late.status_code == 409 and late.json()["code"] == "decision_gone"
    stale = act(client, game, "timeout", reason="slow",
                player=PendingDecision.objects.get(game=game).player, expected_seq=seq)
    assert stale.status_code == 409 and stale.json()["code"] == "stale_seq"
    game.refresh_from_db()
    assert game.seq == seq + 1 and not ModerationLog.objects.filter(action="timeout").exists()
    assert last_record(game).actor == "player"
