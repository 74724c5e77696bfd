"""Web Push, played for real (issue 47): a device subscribed with real keys, the push service a
local HTTP server; what the site posts is decrypted (RFC 8291) and its VAPID JWT verified
(RFC 8292). A 404 or 410 deletes the subscription, other failures are retried with backoff; a
cause is pushed once per device; nothing is pushed about a table its player has open in a live
page, nor of a kind they switched off; the pages: the service worker, the manifest, the
subscription, the profile's devices and the table's offer."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.test import Client
from django.utils import timezone

from games.core import services
from games.live import presence, streams
from games.live.models import TableWatch
from games.models import Game, Notification
from games.notify import push_delivery, pushes
from games.webpush import service, subscriptions
from games.webpush.models import PushDelivery, PushSubscription
from tests.api.factories import UserFactory
from tests.push_service import Device, PushService, vapid_claims

pytestmark = pytest.mark.django_db

CHROME = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
          "Chrome/131.0.0.0 Mobile Safari/537.36")


@pytest.fixture
def push_service():
    found = PushService().start()
    yield found
    found.stop()


@pytest.fixture(autouse=True)
def _vapid(settings, fast_passwords):
    public, private = service.generate_keys()
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = public, private
    settings.VAPID_SUBJECT = "mailto:push-test@example.org"
    settings.PUSH_INSECURE_HOSTS = ["127.0.0.1"]


def _player(push_service, name="ada", **prefs):
    user = UserFactory(username=name, is_staff=True, **prefs)
    device = Device(f"{push_service.origin}/push/{name}")
    subscriptions.subscribe(user, device.subscription, CHROME)
    return user, device


def _game(user) -> Game:
    """A game of four where ``user`` (staff: ``first_seat``) plays first, against bots: it
    starts at once, and a decision awaits ``user``."""
    outcome = services.create_game(user, "mascarade", {"players": 4, "first_seat": 0,
                                                       "move_timeout": 36000}, bots=3)
    return Game.objects.get(pk=outcome.body["id"])


def test_a_decision_is_pushed_encrypted_and_signed(push_service, settings):
    ada, device = _player(push_service, push_games=False)
    game = _game(ada)
    note = Notification.objects.get(user=ada, game=game, kind=Notification.Kind.YOUR_TURN)
    assert PushDelivery.objects.filter(notification=note).count() == 1
    assert push_delivery.deliver([note.pk]) == {
        PushDelivery.objects.get(notification=note).pk: "sent"}
    [push] = push_service.received
    assert push.path == "/push/ada"
    assert push.headers["content-encoding"] == "aes128gcm"
    assert push.headers["topic"] == f"n{note.pk}"
    assert push.headers["urgency"] == "high"
    assert 35000 < int(push.headers["ttl"]) <= 36000  # (until the deadline)
    claims = vapid_claims(push.headers["authorization"], settings.VAPID_PUBLIC_KEY)
    assert claims["aud"] == push_service.origin
    assert claims["sub"] == "mailto:push-test@example.org"
    payload = device.decrypt(push.body)
    # What a lock screen may show: the game's name, the decision, the deadline; never a card.
    assert payload == {
        "id": note.pk, "cause": note.dedupe_key, "kind": "your_turn",
        "title": "Mascarade",
        "body": f"Your turn at “{game.title}”: exchange your card with another one, really or "
                "only pretending? — 9 h left",
        "game": str(game.pk), "decision": "prep", "deadline": note.context["deadline"],
        "url": f"/games/{game.pk}/", "tag": f"game-{game.pk}"}
    row = PushSubscription.objects.get()
    assert row.last_used_at is not None and row.label == "Chrome on Android"
    # Once per device and cause: a task run twice, or the cause queued again, pushes nothing.
    assert push_delivery.deliver([note.pk]) == {}
    pushes.queue([note])
    assert PushDelivery.objects.filter(notification=note).count() == 1
    assert push_delivery.deliver_due() == 0
    assert len(push_service.received) == 1


def test_in_the_players_language_with_every_kind_they_chose(push_service):
    ada, device = _player(push_service, language="fr", push_decisions=False)
    game = _game(ada)
    assert not PushDelivery.objects.filter(notification__kind=Notification.Kind.YOUR_TURN)
    started = Notification.objects.get(user=ada, game=game, kind=Notification.Kind.STARTED)
    push_delivery.deliver([started.pk])
    payload = device.decrypt(push_service.received[0].body)
    assert payload["body"] == f"« {game.title} » a commencé."
    assert payload["kind"] == "started" and payload["deadline"] is None


def test_gone_devices_are_deleted_and_failures_retried(push_service):
    ada, _device = _player(push_service, push_games=False)
    bea, _other = _player(push_service, "bea", push_games=False)
    game = _game(ada)
    note = Notification.objects.get(user=ada, game=game, kind=Notification.Kind.YOUR_TURN)
    push_service.answers["/push/ada"] = 410
    push_delivery.deliver([note.pk])
    assert not PushSubscription.objects.filter(user=ada).exists()
    ada.refresh_from_db()
    assert not ada.has_push
    # Other failures: retried with the mails' backoff, the device kept.
    game = _game(bea)
    note = Notification.objects.get(user=bea, game=game, kind=Notification.Kind.YOUR_TURN)
    push_service.answers["/push/bea"] = 503
    before = timezone.now()
    [outcome] = push_delivery.deliver([note.pk]).values()
    row = PushDelivery.objects.get(notification=note)
    assert outcome == "pending" and row.attempts == 1 and row.last_status_code == 503
    assert before + dt.timedelta(seconds=29) < row.next_attempt_at < before + dt.timedelta(
        seconds=40)
    assert PushSubscription.objects.filter(user=bea).exists()
    push_service.answers["/push/bea"] = 201
    assert push_delivery.deliver_due(now=row.next_attempt_at) == 1
    assert PushDelivery.objects.get(pk=row.pk).status == "sent"


def test_nothing_is_pushed_about_a_table_open_in_a_live_page(push_service, settings):
    settings.STREAM_HEARTBEAT_SECONDS = 15
    ada, _device = _player(push_service)
    game = _game(ada)
    note = Notification.objects.get(user=ada, game=game, kind=Notification.Kind.YOUR_TURN)
    # The table's event stream records its viewer at its start and at each heartbeat.
    stream = streams.GameStream(streams.Viewer(ada), game.pk, None)
    stream.step(None, True)
    assert presence.watchers({(ada.pk, game.pk)}) == {(ada.pk, str(game.pk))}
    [outcome] = push_delivery.deliver([note.pk]).values()
    assert outcome == "skipped"
    assert PushDelivery.objects.get(notification=note).last_error == "table open in a live page"
    assert push_service.received == []
    # Once the page is closed, a window later, it counts no more.
    later = timezone.now() + presence.window() + dt.timedelta(seconds=1)
    assert presence.watchers({(ada.pk, game.pk)}, later) == set()


def test_push_without_email_and_never_when_off(push_service):
    ada, _device = _player(push_service, notify_email=False)
    game = _game(ada)
    note = Notification.objects.get(user=ada, game=game, kind=Notification.Kind.YOUR_TURN)
    assert push_delivery.deliver([note.pk])
    assert len(push_service.received) == 1  # (the mail is skipped: email is off)
    # Switched off after it was queued: skipped just before the post.
    bea, _other = _player(push_service, "bea")
    game = _game(bea)
    note = Notification.objects.get(user=bea, game=game, kind=Notification.Kind.YOUR_TURN)
    type(bea).objects.filter(pk=bea.pk).update(push_decisions=False)
    [outcome] = push_delivery.deliver([note.pk]).values()
    assert outcome == "skipped" and len(push_service.received) == 1


def test_only_push_services_are_posted_to(push_service, settings):
    ada = UserFactory()
    device = Device("https://127.0.0.1.example.org/push/x")
    with pytest.raises(Exception, match="push service"):
        subscriptions.subscribe(ada, device.subscription)
    settings.PUSH_INSECURE_HOSTS = []
    assert not service.allowed_endpoint(f"{push_service.origin}/push/x")
    assert service.allowed_endpoint("https://fcm.googleapis.com/fcm/send/abc")
    assert service.allowed_endpoint("https://web.push.apple.com/QH0")
    assert not service.allowed_endpoint("https://fcm.googleapis.com.evil.example/x")
    assert not service.allowed_endpoint("http://fcm.googleapis.com/fcm/send/abc")
    assert not service.allowed_endpoint("https://user@fcm.googleapis.com/x")


def test_the_pages(push_service, settings):
    ada = UserFactory(username="ada", is_staff=True)
    game = _game(ada)
    client = Client()
    client.force_login(ada)
    worker = client.get("/sw.js")
    assert worker.status_code == 200
    assert worker["Content-Type"].startswith("text/javascript")
    assert worker["Cache-Control"] == "no-cache" and worker["Service-Worker-Allowed"] == "/"
    assert b"showNotification" in worker.content
    assert b'addEventListener("fetch"' not in worker.content  # (it caches nothing)
    manifest = json.loads(client.get("/manifest.webmanifest").content)
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    assert {icon["sizes"] for icon in manifest["icons"]} >= {"192x192", "512x512"}
    # The table offers notifications once; "not now" answers it.
    page = client.get(f"/games/{game.pk}/")
    table = page.content.decode()
    # The table's page, and its polling even when nothing changed (304), say it is open.
    assert presence.watchers({(ada.pk, game.pk)})
    TableWatch.objects.all().delete()
    etag = client.get(f"/games/{game.pk}/live/")["ETag"]
    TableWatch.objects.all().delete()
    assert client.get(f"/games/{game.pk}/live/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert presence.watchers({(ada.pk, game.pk)})
    assert 'data-push-offer' in table and settings.VAPID_PUBLIC_KEY in table
    assert client.post("/notifications/push/not-now/", HTTP_ACCEPT="application/json"
                       ).status_code == 200
    assert "data-push-offer" not in client.get(f"/games/{game.pk}/").content.decode()
    # A subscription: refused with a reason (nothing kept), then taken.
    refused = client.post("/notifications/push/subscribe/", {"subscription": "{}"},
                          HTTP_ACCEPT="application/json")
    assert refused.status_code == 400 and refused.json()["detail"]
    device = Device(f"{push_service.origin}/push/ada")
    bad = {**device.subscription, "keys": {"p256dh": "AAAA", "auth": "AAAA"}}
    refused = client.post("/notifications/push/subscribe/", {"subscription": json.dumps(bad)},
                          HTTP_ACCEPT="application/json")
    assert refused.json()["detail"] == "This browser's subscription keys are not valid."
    assert not PushSubscription.objects.exists()
    taken = client.post("/notifications/push/subscribe/",
                        {"subscription": json.dumps(device.subscription)},
                        HTTP_ACCEPT="application/json", HTTP_USER_AGENT=CHROME)
    assert taken.status_code == 201
    # The profile lists the device, with its removal, and the kinds pushed.
    profile = client.get("/accounts/profile/").content.decode()
    assert "Chrome on Android" in profile and "not notified yet" in profile
    row = PushSubscription.objects.get()
    client.post("/accounts/profile/", {"form": "push_prefs", "push_decisions": "on"})
    ada.refresh_from_db()
    assert ada.push_decisions and not ada.push_reminders and not ada.push_games
    client.post("/accounts/profile/", {"form": "push_remove", "device": row.pk})
    assert not PushSubscription.objects.exists()
    ada.refresh_from_db()
    assert not ada.has_push
    # Without VAPID keys, push is off: no offer, no profile section, no subscription.
    settings.VAPID_PUBLIC_KEY = settings.VAPID_PRIVATE_KEY = ""
    assert "push-title" not in client.get("/accounts/profile/").content.decode()
    assert client.post("/notifications/push/subscribe/",
                       {"subscription": json.dumps(device.subscription)},
                       HTTP_ACCEPT="application/json").status_code == 400


def test_a_reminder_is_pushed_with_the_time_left(push_service):
    from games.notify import outbox

    ada, device = _player(push_service, push_decisions=False, push_games=False)
    game = _game(ada)
    assert not PushDelivery.objects.exists()
    pending = game.pending_decisions.get(user=ada)
    assert outbox.queue_reminders(now=pending.remind_at) == 1
    note = Notification.objects.get(user=ada, kind=Notification.Kind.REMINDER)
    push_delivery.deliver([note.pk], now=pending.remind_at)
    payload = device.decrypt(push_service.received[0].body)
    assert payload["kind"] == "reminder" and payload["id"] == note.pk
    assert payload["body"] == (f"Your deadline is near at “{game.title}”: exchange your card "
                               "with another one, really or only pretending? — 2 h left")
