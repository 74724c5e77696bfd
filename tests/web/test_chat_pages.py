"""The table chat on the pages: the panel beside the history (a labelled box and a button for the
players, the list in a polite live region for everyone who may see the game), posts without
JavaScript (back to the page, a refused text kept with its error) and with htmx, the limits,
escaped text, times in the viewer's zone, the report and mute buttons, the live fragment (and the
chat's own feed) bringing new messages, the profile's switches and the digest's unsubscribe
link."""

from __future__ import annotations

import datetime as dt
import json
import re
import zoneinfo

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import ChatMute
from games.core import catalog, selectors, services
from games.core.services import chat as chat_service
from games.models import ChatHide, ChatMessage, Game
from games.notify import unsubscribe
from moderation.models import Report
from tests.api.factories import UserFactory
from tests.api.helpers import start_game

from .helpers import browser

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]




@pytest.fixture
def users():
    return [UserFactory() for _ in range(4)]


@pytest.fixture
def game(users):
    return start_game(users[0], users[1:], options={"players": 4})


def page(client, game) -> str:
    answer = client.get(f"/games/{game.pk}/")
    assert answer.status_code == 200
    return answer.content.decode()


def chat_panel(html: str) -> str:
    start = html.index('<section id="chat"')
    return html[start:html.index("</section>", start)]


def send(client, game, text, **headers):
    return client.post(f"/games/{game.pk}/chat/", {"text": text}, **headers)


def test_players_get_the_panel_with_a_labelled_box_spectators_the_list(game, users):
    chat_service.post_message(users[1], game.pk, "hello all")
    html = page(browser(users[0]), game)
    panel = chat_panel(html)
    assert html.index('id="history-title"') < html.index('id="chat"')  # beside the history
    assert '<label for="chat-text">' in panel and 'id="chat-text" name="text"' in panel
    assert 'maxlength="500"' in panel and 'type="submit"' in panel
    assert re.search(r'<ol id="chat-messages"[^>]*aria-live="polite"', panel)
    assert "hello all" in panel
    for spectator in (browser(UserFactory()), browser()):
        panel = chat_panel(page(spectator, game))
        assert "hello all" in panel and 'id="chat-text"' not in panel
        assert "the players write" in panel


def test_a_private_game_shows_its_chat_to_nobody_else(users):
    body = services.create_game(users[0], "mascarade", {"players": 4}, private=True).body
    game = Game.objects.get(pk=body["id"])
    for user in users[1:]:
        services.join_game(user, game.pk, game.invite_code)
    chat_service.post_message(users[1], game.pk, "secret plans")
    for outsider in (browser(UserFactory()), browser()):
        for url in (f"/games/{game.pk}/", f"/games/{game.pk}/chat/",
                    f"/games/{game.pk}/live/"):
            answer = outsider.get(url)
            assert answer.status_code == 404 and b"secret plans" not in answer.content
        refused = outsider.post(f"/games/{game.pk}/chat/", {"text": "hi"})
        assert refused.status_code in (302, 404)
    assert ChatMessage.objects.count() == 1
    assert "secret plans" in page(browser(users[2]), game)


def test_a_post_without_javascript_comes_back_to_the_page_escaped(game, users):
    client = browser(users[2])
    answer = send(client, game, "<script>alert('x')</script> <b>hi</b>")
    assert answer.status_code == 302 and answer["Location"] == f"/games/{game.pk}/#chat"
    message = ChatMessage.objects.get()
    assert message.text == "<script>alert('x')</script> <b>hi</b>"
    assert (message.author, message.seat) == (users[2], 2)
    for viewer in (client, browser()):
        html = page(viewer, game)
        assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &lt;b&gt;hi&lt;/b&gt;" in html
        assert "<script>alert" not in html and "<b>hi</b>" not in html


def test_a_refused_post_keeps_the_text_and_says_why_and_changes_nothing(game, users):
    client = browser(users[1])
    long_text = "word " * 120
    answer = send(client, game, long_text)
    assert answer.status_code == 302
    panel = chat_panel(page(client, game))
    assert 'aria-invalid="true"' in panel and 'role="alert"' in panel
    assert "at most 500 characters" in panel
    assert long_text.strip() in panel  # the text is back in the box
    # Shown once: the page after that has an empty box again.
    assert 'aria-invalid' not in chat_panel(page(client, game))
    send(client, game, "   ")
    assert "the message is empty" in chat_panel(page(client, game))
    send(client, game, "ring \x07 bell")
    assert "control characters" in chat_panel(page(client, game))
    assert not ChatMessage.objects.exists()


def test_htmx_posts_answer_the_form_and_the_feed(game, users):
    client = browser(users[1])
    answer = send(client, game, "through htmx", HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    html = answer.content.decode()
    assert re.search(r'<textarea id="chat-text"[^>]*></textarea>', html)  # emptied
    assert 'id="chat-feed" hidden hx-swap-oob="true"' in html and "through htmx" in html
    refused = send(client, game, "x" * 501, HTTP_HX_REQUEST="true")
    html = refused.content.decode()
    assert refused.status_code == 200 and 'aria-invalid="true"' in html
    assert "x" * 501 in html and ChatMessage.objects.count() == 1


def test_the_rate_limit_holds_on_the_pages_too(game, users):
    client = browser(users[0])
    for n in range(chat_service.MESSAGES_PER_WINDOW):
        chat_service.post_message(users[0], game.pk, f"fast {n}")
    send(client, game, "one more")
    panel = chat_panel(page(client, game))
    assert "writing too fast" in panel and "one more" in panel
    assert ChatMessage.objects.count() == chat_service.MESSAGES_PER_WINDOW


def test_times_are_in_the_viewers_time_zone(game, users):
    message = chat_service.post_message(users[1], game.pk, "what time is it")
    users[0].timezone = "Asia/Tokyo"
    users[0].save()
    local = message.created_at.astimezone(zoneinfo.ZoneInfo("Asia/Tokyo"))
    panel = chat_panel(page(browser(users[0]), game))
    today = timezone.now().astimezone(zoneinfo.ZoneInfo("Asia/Tokyo")).date()
    shown = local.strftime("%H:%M") if local.date() == today else local.strftime("%-d %b, %H:%M")
    shown += " JST"  # (the zone said, as the deadlines say it)
    assert f'<time datetime="{message.created_at.astimezone(dt.UTC):%Y-%m-%dT%H:%M:%SZ}">' \
           f"{shown}</time>" in panel


def test_the_live_fragment_brings_a_new_message(game, users):
    client = browser(users[0])
    first = client.get(f"/games/{game.pk}/live/")
    etag = first["ETag"]
    assert client.get(f"/games/{game.pk}/live/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    chat_service.post_message(users[3], game.pk, "fresh news")
    again = client.get(f"/games/{game.pk}/live/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 200 and again["ETag"] != etag
    html = again.content.decode()
    feed = html[html.index('<div id="chat-feed"'):]
    assert "fresh news" in feed and 'id="live"' in html
    # The form is not in the fragment: the live refresh never touches what is being typed.
    assert 'id="chat-text"' not in html and 'id="chat-form"' not in html
    # The table page loads the script that brings the feed's messages into the list.
    assert "js/chat.js" in page(client, game)


def test_a_finished_tables_chat_refreshes_itself(game, users):
    services.apply_table_move(game.pk, "abort", reason="test")
    client = browser(users[0])
    html = page(client, game)
    assert f'hx-get="/games/{game.pk}/chat/"' in html
    assert "can still talk here" in chat_panel(html)
    first = client.get(f"/games/{game.pk}/chat/")
    assert first.status_code == 200 and first.content.decode().startswith("<div id=\"chat-feed\"")
    assert client.get(f"/games/{game.pk}/chat/",
                      HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    send(client, game, "good game")
    again = client.get(f"/games/{game.pk}/chat/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and "good game" in again.content.decode()


def test_mute_and_unmute_from_the_table_and_the_profile(game, users):
    chat_service.post_message(users[1], game.pk, "annoying words")
    chat_service.post_message(users[2], game.pk, "kind words")
    client = browser(users[0])
    etag = client.get(f"/games/{game.pk}/live/")["ETag"]
    panel = chat_panel(page(client, game))
    assert f"Mute {users[1].username}" in panel
    assert f"Mute {users[0].username}" not in panel  # not oneself
    answer = client.post(f"/games/{game.pk}/chat/mute/", {"username": users[1].username,
                                                          "muted": "1"})
    assert answer.status_code == 302 and ChatMute.objects.filter(user=users[0]).count() == 1
    panel = chat_panel(page(client, game))
    assert "annoying words" not in panel and "kind words" in panel
    assert "You muted:" in panel
    assert client.get(f"/games/{game.pk}/live/", HTTP_IF_NONE_MATCH=etag).status_code == 200
    assert "annoying words" in chat_panel(page(browser(users[3]), game))
    profile = client.get("/accounts/profile/").content.decode()
    assert users[1].username in profile
    client.post("/accounts/profile/", {"form": "unmute", "username": users[1].username})
    assert not ChatMute.objects.exists()
    assert "annoying words" in chat_panel(page(client, game))


def test_report_a_message_from_the_table(game, users):
    message = chat_service.post_message(users[1], game.pk, "rude words")
    own = chat_service.post_message(users[0], game.pk, "my words")
    client = browser(users[0])
    panel = chat_panel(page(client, game))
    assert f'/games/{game.pk}/chat/{message.pk}/report/' in panel
    assert f'/games/{game.pk}/chat/{own.pk}/report/' not in panel
    answer = client.post(f"/games/{game.pk}/chat/{message.pk}/report/")
    assert answer.status_code == 302
    report = Report.objects.get()
    assert (report.message, report.reported, report.reason) == (message, users[1], "abuse")
    spectator = browser(UserFactory())
    assert "/report/" not in chat_panel(page(spectator, game))
    spectator.post(f"/games/{game.pk}/chat/{message.pk}/report/")
    assert Report.objects.count() == 1


def test_hidden_messages_vanish_but_for_moderators(game, users):
    from django.contrib.auth.models import Group

    message = chat_service.post_message(users[1], game.pk, "out of line")
    moderator = UserFactory(is_staff=True)
    moderator.groups.add(Group.objects.get(name="Moderators"))
    etag = browser(users[0]).get(f"/games/{game.pk}/live/")["ETag"]
    ChatHide.objects.create(message=message, moderator=moderator, reason="rude")
    client = browser(users[0])
    assert client.get(f"/games/{game.pk}/live/", HTTP_IF_NONE_MATCH=etag).status_code == 200
    assert "out of line" not in page(client, game)
    panel = chat_panel(page(browser(moderator), game))
    assert "out of line" in panel and "hidden by a moderator" in panel


def test_a_kit_line_shows_with_its_label(game, users, monkeypatch):
    kit = catalog.get_kit("mascarade")
    monkeypatch.setattr(kit, "chat_lines", lambda events: [
        (events[0]["player"], "Look into the hat <now>", "divining_hat")])
    monkeypatch.setattr(kit, "chat_source_label", lambda source: "Divining hat")
    player = game.pending_decisions.get().player
    loaded = selectors.load_for_viewer(selectors.find_game(game.pk), None)
    move = catalog.get_game("mascarade").legal_moves(loaded.state, player)[0]
    browser(users[player]).post(f"/games/{game.pk}/move/", {
        "move": json.dumps(move), "expected_seq": game.seq})
    assert ChatMessage.objects.filter(source="divining_hat").count() == 1
    panel = chat_panel(page(browser(), game))
    assert "<strong>Divining hat:</strong> Look into the hat &lt;now&gt;" in panel


def test_the_profile_switches_the_digest(users):
    client = browser(users[0])
    html = client.get("/accounts/profile/").content.decode()
    assert 'name="notify_chat_digest"' in html
    client.post("/accounts/profile/", {"form": "preferences", "language": "en",
                                       "notify_email": "on", "timezone": "UTC"})
    users[0].refresh_from_db()
    assert users[0].notify_chat_digest is False and users[0].notify_email is True


def test_the_digests_unsubscribe_link_stops_the_digest_only(users):
    user = users[0]
    token = unsubscribe.unsubscribe_token(user, unsubscribe.CHAT_DIGEST)
    answer = Client().get(f"/notifications/unsubscribe/{token}/")
    assert answer.status_code == 200 and b"chat digest" in answer.content
    Client().post(f"/notifications/unsubscribe/{token}/")
    user.refresh_from_db()
    assert user.notify_chat_digest is False and user.notify_email is True
    everything = unsubscribe.unsubscribe_token(user)
    Client().post(f"/notifications/unsubscribe/{everything}/")
    user.refresh_from_db()
    assert user.notify_email is False
