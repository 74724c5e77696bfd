"""The table chat through the API: who reads and who writes, `after` and the pages, the limits
(length, control characters, rate: 429 with Retry-After), raw text in JSON, the viewer's mutes,
the append-only table, and the game kit's hook in the write path (player's, timeout's and bot's
moves)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from accounts.models import ChatMute
from games.core import catalog, services
from games.core.errors import Forbidden
from games.core.services import chat as chat_service
from games.models import ChatHide, ChatMessage, Game, MoveRecord

from .factories import UserFactory, client_for
from .helpers import game_url, start_game

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def chat_url(game, suffix=""):
    return game_url(game.pk, f"chat/{suffix}")


def post(user, game, text):
    return client_for(user).post(chat_url(game), {"text": text}, format="json")


def texts(answer):
    assert answer.status_code == 200, answer.content
    return [m["text"] for m in answer.json()["results"]]


@pytest.fixture
def game(users):
    return start_game(users[0], users[1:])


def private_game(users):
    body = services.create_game(users[0], "mascarade", {"players": 4}, private=True).body
    game = Game.objects.get(pk=body["id"])
    for user in users[1:]:
        services.join_game(user, game.pk, game.invite_code)
    game.refresh_from_db()
    return game


def test_players_write_and_everyone_reads_a_public_table(game, users):
    answer = post(users[1], game, "  Hello table!  ")
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["text"] == "Hello table!"
    assert body["player"] == users[1].username and body["position"] == 1
    assert body["is_bot"] is False and body["source"] is None and body["hidden"] is False
    assert body["seq"] == game.seq and body["created_at"].endswith("Z")
    spectator = UserFactory()
    for reader in (client_for(spectator), client_for()):
        assert texts(reader.get(chat_url(game))) == ["Hello table!"]
    # Spectators read only; anonymous clients are asked to log in.
    refused = post(spectator, game, "me too")
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    anonymous = client_for().post(chat_url(game), {"text": "hi"}, format="json")
    assert anonymous.status_code == 401
    assert ChatMessage.objects.filter(game=game).count() == 1


def test_non_members_of_a_private_game_see_nothing(users):
    game = private_game(users)
    assert post(users[2], game, "between us").status_code == 201
    outsider = UserFactory()
    for client in (client_for(outsider), client_for()):
        game_answer = client.get(game_url(game.pk))
        chat_answer = client.get(chat_url(game))
        assert chat_answer.status_code == game_answer.status_code == 404
        assert chat_answer.json()["code"] == "not_found"
        assert "between us" not in chat_answer.content.decode()
    refused = post(outsider, game, "let me in")
    assert refused.status_code == 404 and refused.json()["code"] == "not_found"
    assert texts(client_for(users[3]).get(chat_url(game))) == ["between us"]
    assert ChatMessage.objects.filter(game=game).count() == 1


def test_after_gives_the_newer_messages_and_lists_are_paginated(game, users):
    ids = [post(users[i], game, f"message {i}").json()["id"] for i in range(4)]
    assert ids == sorted(ids)
    client = client_for(UserFactory())
    assert texts(client.get(chat_url(game), {"after": ids[1]})) == ["message 2", "message 3"]
    assert texts(client.get(chat_url(game), {"after": ids[-1]})) == []
    page = client.get(chat_url(game), {"page_size": 3}).json()
    assert page["count"] == 4 and page["next"] and page["previous"] is None
    assert [m["id"] for m in page["results"]] == ids[:3]
    assert client.get(page["next"]).json()["results"][0]["id"] == ids[3]
    for bad in ("x", "-1", ""):
        refused = client.get(chat_url(game), {"after": bad})
        assert refused.status_code == 400 and refused.json()["code"] == "invalid"


@pytest.mark.parametrize("text", ["", "   \n\t ", "x" * 501, "bell \x07", "null \x00",
                                  "escape \x1b[31m", "flip \u202e", 42, None, ["a"]])
def test_bad_messages_are_refused_and_change_nothing(game, users, text):
    answer = post(users[0], game, text)
    assert answer.status_code == 400, answer.content
    body = answer.json()
    assert body["code"] == "invalid" and body["fields"]["text"]
    assert not ChatMessage.objects.exists()


@pytest.mark.parametrize("text", [
    "\u200b", "\u200b\u200c\u200d", " \u2060\ufeff ", "\u00ad", "\u034f", "\ufe0f",
    "\u3164", "\u115f\u1160", "\u2800", "\U000e0041\U000e0042", "\u180e", "\u3000\u200b",
    "\u0301",
])
def test_a_message_of_invisible_characters_only_is_refused(game, users, text):
    """Zero-width and joining characters, a soft hyphen, variation selectors, tags, blank
    letters (Hangul fillers, the braille blank), marks with nothing to sit on: nothing to read,
    refused in the writer's language."""
    answer = client_for(users[0]).post(chat_url(game), {"text": text}, format="json",
                                       HTTP_ACCEPT_LANGUAGE="fr")
    assert answer.status_code == 400, answer.content
    assert answer.json()["fields"]["text"] == [
        "Écrivez d'abord quelque chose : le message ne contient que des caractères invisibles."]
    assert not ChatMessage.objects.exists()
    # Beside a visible character, each is kept as typed (an emoji's joiner, an accent).
    assert chat_service.clean_text(f"a{text}") == f"a{text}".strip()


def test_the_longest_message_and_line_breaks_are_taken(game, users):
    longest = "é" * 500
    assert post(users[0], game, f"  {longest}\n ").json()["text"] == longest
    assert post(users[0], game, "two\r\nlines\tand a tab").json()["text"] == \
        "two\nlines\tand a tab"


def test_the_rate_limit_answers_429_with_retry_after(game, users, monkeypatch):
    limit = chat_service.MESSAGES_PER_WINDOW
    for n in range(limit):
        assert post(users[0], game, f"quick {n}").status_code == 201
    refused = post(users[0], game, "one too many")
    assert refused.status_code == 429, refused.content
    body = refused.json()
    assert body["code"] == "throttled" and 1 <= body["retry_after"] <= 60
    assert refused["Retry-After"] == str(body["retry_after"])
    assert str(limit) in body["detail"]
    assert ChatMessage.objects.filter(game=game).count() == limit
    # The limit is per player and game: another player writes, and the same one elsewhere.
    assert post(users[1], game, "my turn to talk").status_code == 201
    elsewhere = start_game(users[0], [UserFactory() for _ in range(3)])
    assert post(users[0], elsewhere, "hello there").status_code == 201
    # A minute later the player writes again.
    later = timezone.now() + dt.timedelta(seconds=61)
    monkeypatch.setattr("django.utils.timezone.now", lambda: later)
    assert post(users[0], game, "back again").status_code == 201


def test_html_is_given_back_as_typed_in_json(game, users):
    script = '<script>alert("x")</script> & <b>bold</b>'
    assert post(users[0], game, script).status_code == 201
    answer = client_for().get(chat_url(game))
    assert answer["Content-Type"].startswith("application/json")
    assert texts(answer) == [script]


def test_blocked_accounts_and_lost_seats_do_not_write(game, users):
    users[1].suspended_until = timezone.now() + dt.timedelta(days=2)
    users[1].save()
    assert post(users[1], game, "let me speak").status_code == 403
    users[2].banned = True
    users[2].save()
    with pytest.raises(Forbidden):
        chat_service.post_message(users[2], game.pk, "banned words")
    # A player whose seat went to a bot is a spectator now.
    services.apply_table_move(game.pk, "replace", player=3, occupant="bot:heuristic",
                              reason="test")
    assert post(users[3], game, "still here?").status_code == 403
    assert not ChatMessage.objects.exists()


def test_players_talk_after_the_game_ends(game, users):
    services.apply_table_move(game.pk, "abort", reason="test")
    assert post(users[0], game, "good game anyway").status_code == 201
    assert texts(client_for().get(chat_url(game))) == ["good game anyway"]


def test_mutes_leave_a_users_messages_out_for_the_viewer_only(game, users):
    viewer, noisy = users[0], users[1]
    post(noisy, game, "spam spam")
    post(users[2], game, "useful")
    client = client_for(viewer)
    url = "/api/v1/me/chat-mutes/"
    created = client.post(url, {"username": noisy.username}, format="json")
    assert created.status_code == 201 and created.json()["username"] == noisy.username
    assert client.post(url, {"username": noisy.username}, format="json").status_code == 200
    assert [m["username"] for m in client.get(url).json()["results"]] == [noisy.username]
    assert texts(client.get(chat_url(game))) == ["useful"]
    assert texts(client_for(users[3]).get(chat_url(game))) == ["spam spam", "useful"]
    for bad, status in ((viewer.username, 400), ("nobody-here", 404)):
        assert client.post(url, {"username": bad}, format="json").status_code == status
    assert client.delete(f"{url}{noisy.username}/").status_code == 204
    assert client.delete(f"{url}{noisy.username}/").status_code == 404
    assert texts(client.get(chat_url(game))) == ["spam spam", "useful"]
    assert not ChatMute.objects.exists()


def test_me_carries_the_chat_digest_switch(users):
    client = client_for(users[0])
    assert client.get("/api/v1/me/").json()["notify_chat_digest"] is True
    answer = client.patch("/api/v1/me/", {"notify_chat_digest": False}, format="json")
    assert answer.status_code == 200 and answer.json()["notify_chat_digest"] is False
    users[0].refresh_from_db()
    assert users[0].notify_chat_digest is False and users[0].notify_email is True
    assert client.patch("/api/v1/me/", {"notify_chat_digest": "yes"},
                        format="json").status_code == 400


def _ignore_pgtriggers() -> None:
    """What pgtrigger's escape hatch asks of a session: name its triggers to skip."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT tgname FROM pg_trigger WHERE tgrelid IN "
                       "('games_chatmessage'::regclass, 'games_chathide'::regclass) "
                       "AND NOT tgisinternal AND tgname LIKE 'pgtrigger_%%'")
        names = [name for (name,) in cursor.fetchall()]
        assert len(names) == 2, names
        cursor.execute("SELECT set_config('pgtrigger.ignore', %s, true)",
                       ["{" + ",".join(names) + "}"])


def test_the_chat_tables_are_append_only(game, users):
    post(users[0], game, "carved in stone")
    message = ChatMessage.objects.get(game=game)
    ChatHide.objects.create(message=message, moderator=users[1], reason="test")
    for model in (ChatMessage, ChatHide):
        rows = model.objects.all()
        # (the DELETE sent as is: Django's own would stop at the protected foreign key first)
        for change in (lambda rows=rows: rows.update(created_at=timezone.now()),
                       lambda rows=rows: rows._raw_delete(rows.db)):
            with pytest.raises(DatabaseError), transaction.atomic():
                change()
            # pgtrigger's own escape does not open the trigger without one.
            with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
                _ignore_pgtriggers()
                change()
    assert ChatMessage.objects.get().text == "carved in stone"


# --------------------------------------------------------------------------------------------
# The kit's hook: lines of the rules in the chat, from the write path


@pytest.fixture
def hat(monkeypatch):
    """Mascarade's kit, monkeypatched to read a card out for every rules move (as the third
    game's Divining hat will): the acting player's line, with the events it was given."""
    kit = catalog.get_kit("mascarade")
    seen: list[list[dict]] = []

    def chat_lines(events):
        seen.append(events)
        actor = next(e["player"] for e in events if isinstance(e.get("player"), int))
        return [(actor, f"  the hat says {events[0]['type']}  ", "divining_hat")]

    monkeypatch.setattr(kit, "chat_lines", chat_lines)
    monkeypatch.setattr(kit, "chat_source_label",
                        lambda source: "Divining hat" if source == "divining_hat" else source)
    return seen


def _lines(game):
    return list(ChatMessage.objects.filter(game=game, source="divining_hat").order_by("id"))


def test_the_hook_posts_the_lines_of_a_players_move(game, users, hat):
    player = game.pending_decisions.get().player
    mover = users[player]
    client = client_for(mover)
    move = client.get(game_url(game.pk, "legal-moves/")).json()["moves"][0]
    assert client.post(game_url(game.pk, "moves/"), {"move": move},
                       format="json").status_code == 201
    record = MoveRecord.objects.get(game=game, seq=1)
    assert hat == [record.events]  # the true events, as stored
    [line] = _lines(game)
    assert (line.author_id, line.seat, line.seq) == (mover.pk, player, 1)
    assert line.text == f"the hat says {record.events[0]['type']}"
    body = client_for().get(chat_url(game)).json()["results"][0]
    assert body["source"] == "divining_hat" and body["source_label"] == "Divining hat"
    assert body["player"] == mover.username and body["is_bot"] is False


def test_the_hook_posts_the_lines_of_timeouts_and_bots(users, hat,
                                                        django_capture_on_commit_callbacks):
    human = users[0]
    with django_capture_on_commit_callbacks(execute=True):
        body = services.create_game(human, "mascarade", {"players": 4}, bots=3).body
    game = Game.objects.get(pk=body["id"])
    for _ in range(3):  # the human's decisions time out; the bots play in between
        game.refresh_from_db()
        row = game.pending_decisions.filter(bot=False).first()
        if row is None or game.status != Game.Status.ACTIVE:
            break
        with django_capture_on_commit_callbacks(execute=True):
            services.play_timeout_now(game.pk, row.player, actor=MoveRecord.Actor.TIMEOUT)
    records = MoveRecord.objects.filter(game=game).exclude(payload__type="table")
    actors = set(records.values_list("actor", flat=True))
    assert {"timeout", "bot"} <= actors
    lines = _lines(game)
    assert [line.seq for line in lines] == [r.seq for r in records.order_by("seq")]
    by_seq = {r.seq: r for r in records}
    for line in lines:
        record = by_seq[line.seq]
        assert line.seat == record.seat.position
        assert line.author_id == record.seat.user_id  # the human's for a timeout, none for bots
    bot_line = next(m for m in client_for().get(chat_url(game)).json()["results"]
                    if m["is_bot"])
    assert bot_line["player"].startswith("Bot ") and bot_line["source_label"] == "Divining hat"


def test_a_refused_move_posts_no_line(game, users, hat):
    player = game.pending_decisions.get().player
    other = users[(player + 1) % 4]
    answer = client_for(other).post(game_url(game.pk, "moves/"),
                                    {"move": {"type": "look"}}, format="json")
    assert answer.status_code in (400, 403)
    assert not ChatMessage.objects.exists() and hat == []


def test_the_default_kit_posts_nothing(game, users):
    assert catalog.get_kit("mascarade").chat_lines([{"type": "look", "player": 0}]) == []
    assert catalog.get_kit("ere_des_masques").chat_source_label("x") == "x"
    player = game.pending_decisions.get().player
    client = client_for(users[player])
    move = client.get(game_url(game.pk, "legal-moves/")).json()["moves"][0]
    client.post(game_url(game.pk, "moves/"), {"move": move}, format="json")
    assert not ChatMessage.objects.exists()
