"""The daily "new messages at your table" mail: sent once (not twice, also when run twice or
late), not when switched off (the digest, email, or the game muted), without the player's own
messages, those of players they muted, or those a moderator hid (also when hidden after it was
written), in the player's language, with an unsubscribe link that stops the digest only."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client
from django.utils import dateformat, timezone, translation

from accounts.models import ChatMute
from games import tasks
from games.core.services import chat as chat_service
from games.models import ChatHide, Notification
from games.notify import delivery, digests

from .helpers import start_game

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.fixture
def game(users):
    return start_game(users[0], users[1:])


@pytest.fixture
def run(django_capture_on_commit_callbacks):
    """Run the digest task (as beat would) at ``now``, delivering what it queued."""

    def run(now=None) -> int:
        with django_capture_on_commit_callbacks(execute=True):
            return digests.queue_chat_digests(now)

    return run


def mails_to(user):
    return [m for m in mail.outbox if m.to == [user.email]]


def test_the_digest_goes_once_with_the_messages_the_player_should_read(game, users, run):
    reader, friend, muted, rude = users
    chat_service.post_message(friend, game.pk, "Nice bluff <there>!")
    chat_service.post_message(muted, game.pk, "muted words")
    chat_service.post_message(reader, game.pk, "my own words")
    hidden = chat_service.post_message(rude, game.pk, "hidden words")
    ChatMute.objects.create(user=reader, muted=muted)
    ChatHide.objects.create(message=hidden, moderator=friend, reason="rude")
    assert run() == 4  # every player has something new to read
    [message] = mails_to(reader)
    assert message.subject.endswith("New messages at your tables")
    body = message.body
    assert "Nice bluff <there>!" in body and f"{friend.username} (" in body
    for absent in ("muted words", "my own words", "hidden words"):
        assert absent not in body
    assert f"/games/{game.pk}/" in body
    html = message.alternatives[0][0]
    assert "Nice bluff &lt;there&gt;!" in html and "<there>" not in html
    # Twice the same day, and the next day with nothing new: nothing more.
    assert run() == 0
    assert run(timezone.now() + dt.timedelta(days=1)) == 0
    assert len(mails_to(reader)) == 1
    assert Notification.objects.filter(user=reader, kind="chat_digest").count() == 1
    # Something new: the next day's digest has that only.
    chat_service.post_message(friend, game.pk, "Another day")
    assert run(timezone.now() + dt.timedelta(days=1)) >= 1
    later = mails_to(reader)[-1].body
    assert "Another day" in later and "Nice bluff" not in later


def test_a_late_run_takes_everything_since_the_last_digest(game, users, run):
    chat_service.post_message(users[1], game.pk, "first")
    run()
    chat_service.post_message(users[1], game.pk, "second")
    chat_service.post_message(users[2], game.pk, "third")
    # The task did not run for two days.
    run(timezone.now() + dt.timedelta(days=3))
    body = mails_to(users[0])[-1].body
    assert "second" in body and "third" in body and "first" not in body
    assert "2 new messages" in body


def test_no_digest_when_switched_off(game, users, run):
    chat_service.post_message(users[3], game.pk, "anyone there?")
    users[0].notify_chat_digest = False
    users[0].save()
    users[1].notify_email = False
    users[1].save()
    seat = game.seats.get(user=users[2])
    seat.muted = True
    seat.save()
    assert run() == 0
    assert not mail.outbox
    assert not Notification.objects.filter(kind="chat_digest").exists()


def test_what_changed_before_delivery_is_honoured(game, users):
    hidden = chat_service.post_message(users[1], game.pk, "soon hidden")
    chat_service.post_message(users[2], game.pk, "still there")
    digests.queue_chat_digests()  # (delivered later, by the sweep)
    first = Notification.objects.get(user=users[0], kind="chat_digest")
    second = Notification.objects.get(user=users[1], kind="chat_digest")
    ChatHide.objects.create(message=hidden, moderator=users[3], reason="x")
    assert delivery.deliver_batch(ids=[first.pk])[first.pk] == "sent"
    body = mails_to(users[0])[0].body
    assert "still there" in body and "soon hidden" not in body
    users[1].notify_chat_digest = False
    users[1].save()
    assert delivery.deliver_batch(ids=[second.pk])[second.pk] == "skipped"
    assert not mails_to(users[1])


def test_a_digest_with_nothing_left_is_skipped(game, users):
    message = chat_service.post_message(users[1], game.pk, "only message")
    digests.queue_chat_digests()
    note = Notification.objects.get(user=users[0], kind="chat_digest")
    ChatHide.objects.create(message=message, moderator=users[3], reason="x")
    assert delivery.deliver_batch(ids=[note.pk])[note.pk] == "skipped"
    note.refresh_from_db()
    assert "nothing left" in note.last_error


def test_the_digest_is_in_the_players_language_and_time_zone(game, users, run):
    reader = users[0]
    reader.language, reader.timezone = "fr", "Europe/Paris"
    reader.save()
    message = chat_service.post_message(users[1], game.pk, "Bonjour")
    run()
    body = mails_to(reader)[0].body
    local = message.created_at.astimezone(zoneinfo.ZoneInfo("Europe/Paris"))
    with translation.override("fr"):
        french = dateformat.format(local, "D H:i")
    with translation.override("en"):
        english = dateformat.format(local, "D H:i")
    assert french != english
    assert f"{users[1].username} ({french}) : Bonjour" in body


def test_the_digests_unsubscribe_link_stops_the_digest_only(game, users, run):
    chat_service.post_message(users[1], game.pk, "hello")
    run()
    message = mails_to(users[0])[0]
    link = message.extra_headers["List-Unsubscribe"].strip("<>")
    assert link in message.body
    path = link.removeprefix(settings.SITE_URL)
    assert Client().post(path).status_code == 200
    users[0].refresh_from_db()
    assert users[0].notify_chat_digest is False and users[0].notify_email is True


def test_beat_runs_the_task_daily(game, users):
    entry = settings.CELERY_BEAT_SCHEDULE["games-chat-digest"]
    assert entry["task"] == "games.chat_digest" == tasks.chat_digest.name
    chat_service.post_message(users[1], game.pk, "hello")
    assert tasks.chat_digest() == 3
    assert tasks.chat_digest() == 0
