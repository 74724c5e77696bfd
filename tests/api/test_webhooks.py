"""Webhooks: endpoints registered by their owner only, deliveries written with their cause and
posted signed (checked here with the docs' own recipe), retried with backoff, the endpoint
turned off after repeated failures (its owner told by mail), SSRF refused at registration and at
delivery, no redirect followed, a slow endpoint cut off, a task safe to run twice, and a move
of players without webhooks costing not one statement more."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import socket
import ssl
import subprocess
import threading
import time
from pathlib import Path

import pytest
from django.core import mail
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from games import tasks
from games.core import events, selectors
from games.models import Game, Notification, WebhookDelivery, WebhookEndpoint
from games.webhooks import endpoints as hooks
from games.webhooks import http as webhooks

from .factories import UserFactory, client_for
from .helpers import game_url, peaceful, start_game
from .webhook_receiver import Answer, Receiver

pytestmark = [pytest.mark.django_db, pytest.mark.postgres, pytest.mark.redis]

ROOT = Path(__file__).resolve().parents[2]
URL = "/api/v1/me/webhooks/"
Status = WebhookDelivery.Status
REAL_GETADDRINFO = socket.getaddrinfo


@pytest.fixture(autouse=True)
def _mail_and_hosts(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://mascarade.example"
    settings.WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    settings.WEBHOOK_DISABLE_AFTER = 10


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.close()


@pytest.fixture
def dns(monkeypatch):
    """Names of our own: ``dns["hooks.example"] = ["10.0.0.5"]``; every other name (and every
    address) resolves as usual."""
    names: dict[str, list[str]] = {}

    def getaddrinfo(host, port, *args, **kwargs):
        if isinstance(host, str) and host.lower() in names:
            return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "",
                     (a, port) if ":" not in a else (a, port, 0, 0))
                    for a in names[host.lower()]]
        return REAL_GETADDRINFO(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return names


def register(user, url, **extra):
    answer = client_for(user).post(URL, {"url": url, **extra}, format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def verify_function(source: Path, heading: str):
    """The ``verify`` function of the first Python block under ``heading`` in ``source``."""
    text = source.read_text()
    section = text[text.index(heading):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) <= 10, "the recipe is ten lines at most"
    namespace: dict = {}
    exec(compile(code, str(source), "exec"), namespace)  # noqa: S102 (our own docs)
    return namespace["verify"]


def pings(user, endpoint_id, count=1, *, run=True, capture=None):
    """``count`` pings queued (and posted at once with ``run``)."""
    rows = []
    for _ in range(count):
        if run:
            with capture(execute=True):
                rows.append(hooks.ping(user, endpoint_id))
        else:
            rows.append(hooks.ping(user, endpoint_id))
    return rows


# --------------------------------------------------------------------------------------------
# Endpoints through the API


def test_an_endpoint_is_its_owners_and_its_secret_is_shown_once(users, receiver):
    owner, other = users[0], users[1]
    made = register(owner, receiver.url(), description="my bot")
    assert made["secret"].startswith("whsec_") and len(made["secret"]) > 40
    assert made["active"] is True and made["description"] == "my bot"
    assert User.objects.get(pk=owner.pk).has_webhooks
    me = client_for(owner)
    listed = me.get(URL).json()
    assert listed["count"] == 1 and "secret" not in listed["results"][0]
    one = me.get(f"{URL}{made['id']}/").json()
    assert one["url"] == receiver.url() and "secret" not in one
    assert made["secret"] not in json.dumps([listed, one])
    # Anyone else: 404 for every operation; nobody: 401.
    them = client_for(other)
    for method, suffix in [("get", ""), ("patch", ""), ("delete", ""), ("post", "ping/"),
                           ("post", "rotate-secret/"), ("get", "deliveries/")]:
        answer = getattr(them, method)(f"{URL}{made['id']}/{suffix}", {}, format="json")
        assert answer.status_code == 404 and answer.json()["code"] == "not_found", suffix
    assert them.get(URL).json()["count"] == 0
    assert client_for().get(URL).status_code == 401
    assert client_for().post(URL, {"url": receiver.url()}, format="json").status_code == 401
    assert WebhookEndpoint.objects.get().active and len(receiver.requests) == 0
    # A new secret, shown once too; the old one signs nothing more.
    rotated = me.post(f"{URL}{made['id']}/rotate-secret/").json()
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != made["secret"]
    assert WebhookEndpoint.objects.get().secret == rotated["secret"]


def test_changing_turning_off_and_deleting_an_endpoint_keep_the_owners_flag(users, receiver):
    owner = users[0]
    me = client_for(owner)
    first = register(owner, receiver.url("/a"))
    second = register(owner, receiver.url("/b"))
    changed = me.patch(f"{URL}{first['id']}/", {"url": receiver.url("/c"),
                                               "description": "renamed"}, format="json")
    assert changed.status_code == 200 and changed.json()["url"].endswith("/c")
    assert me.patch(f"{URL}{first['id']}/", {"active": False}, format="json").json()[
        "active"] is False
    assert User.objects.get(pk=owner.pk).has_webhooks  # the second one is still on
    assert me.patch(f"{URL}{second['id']}/", {"active": False}, format="json").status_code == 200
    assert not User.objects.get(pk=owner.pk).has_webhooks
    off = me.get(f"{URL}{second['id']}/").json()
    assert off["disabled_at"] and off["disabled_reason"]
    assert me.post(f"{URL}{second['id']}/ping/").json()["code"] == "webhook_inactive"
    on = me.patch(f"{URL}{second['id']}/", {"active": True}, format="json").json()
    assert on["active"] and on["disabled_at"] is None and on["failures_in_row"] == 0
    assert User.objects.get(pk=owner.pk).has_webhooks
    assert me.delete(f"{URL}{second['id']}/").status_code == 204
    assert not User.objects.get(pk=owner.pk).has_webhooks
    assert me.delete(f"{URL}{second['id']}/").status_code == 404
    # Refused changes change nothing.
    bad = me.patch(f"{URL}{first['id']}/", {"active": "yes", "url": 3}, format="json")
    assert bad.status_code == 400 and set(bad.json()["fields"]) == {"active", "url"}
    assert me.get(f"{URL}{first['id']}/").json()["url"].endswith("/c")


def test_at_most_five_endpoints(users, receiver):
    for n in range(5):
        register(users[0], receiver.url(f"/{n}"))
    answer = client_for(users[0]).post(URL, {"url": receiver.url("/6")}, format="json")
    assert answer.status_code == 400 and answer.json()["code"] == "invalid"
    assert "5" in answer.json()["fields"]["url"][0]
    assert WebhookEndpoint.objects.filter(user=users[0]).count() == 5


@pytest.mark.parametrize("url", [
    "http://hooks.example/plain",  # not https
    "ftp://hooks.example/",
    "https://user:secret@hooks.example/",  # credentials
    "https://hooks.example:22/",  # a privileged port
    "https://hooks.example:99999/",
    "https:///no-host",
    "https://hooks.example/" + "a" * 2000,  # too long
    "https://hooks.example/a b",
    "https://127.0.0.1/",
    "https://127.1.2.3:8443/",
    "https://10.1.2.3/",
    "https://172.16.0.1/",
    "https://192.168.1.1/",
    "https://169.254.169.254/latest/meta-data/",
    "https://100.64.0.1/",
    "https://0.0.0.0/",
    "https://[::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:10.0.0.1]/",
    "https://[fe80::1]/",
    "https://[fc00::1]/",
    "https://[fec0::1]/",  # site-local (deprecated, not global)
    "https://2130706433/",  # 127.0.0.1 spelt as a number
    "https://0x7f.1/",
    "https://224.0.0.1/",
    "https://loopback.example/",  # names resolving to such addresses
    "https://private.example/",
    "https://metadata.example/",
    "https://ipv6-loopback.example/",
    "https://mixed.example/",  # one public address and one private: refused
    "https://nowhere.example/",  # does not resolve
])
def test_registration_refuses_unsafe_urls_and_changes_nothing(users, settings, dns, url):
    settings.WEBHOOK_ALLOWED_HOSTS = []
    dns.update({"hooks.example": ["93.184.216.34"], "loopback.example": ["127.0.0.1"],
                "private.example": ["10.0.0.5"], "metadata.example": ["169.254.169.254"],
                "ipv6-loopback.example": ["::1"],
                "mixed.example": ["93.184.216.34", "192.168.0.10"]})
    answer = client_for(users[0]).post(URL, {"url": url}, format="json")
    assert answer.status_code == 400, answer.json()
    body = answer.json()
    assert body["code"] == "invalid" and body["fields"]["url"][0]
    assert not WebhookEndpoint.objects.exists()
    assert not User.objects.get(pk=users[0].pk).has_webhooks


def test_a_public_https_url_is_taken(users, settings, dns):
    settings.WEBHOOK_ALLOWED_HOSTS = []
    dns["hooks.example"] = ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]
    made = register(users[0], "https://hooks.example/mascarade?bot=1")
    assert made["url"] == "https://hooks.example/mascarade?bot=1"
    register(users[0], "https://hooks.example:8443/other")
    register(users[0], "https://93.184.216.34/literal")


@pytest.mark.parametrize(("address", "forbidden"), [
    ("8.8.8.8", False), ("2001:4860:4860::8888", False), ("::ffff:8.8.8.8", False),
    ("127.0.0.1", True), ("10.0.0.1", True), ("169.254.1.1", True), ("::1", True),
    ("::ffff:169.254.169.254", True), ("2002:7f00:1::", True), ("64:ff9b::a00:1", True),
    ("64:ff9b::808:808", False), ("255.255.255.255", True), ("240.0.0.1", True),
    ("198.18.0.1", True), ("fe80::1%eth0", True), ("not an address", True),
    ("fec0::1", True), ("fc00::1", True),
    # IANA's special-purpose blocks that are not globally reachable, whatever the age of the
    # interpreter's ipaddress table: IETF protocol assignments (192.0.0.8, which Python before
    # 3.11.10 took for global; 192.0.0.170, NAT64 discovery), shared (CGNAT), documentation,
    # AS112, benchmarking, ORCHIDv2, local-use NAT64, discard-only, and 6to4 of one of them;
    # and the registry's global exceptions in those blocks (192.0.0.9, 192.0.0.10: anycast).
    ("192.0.0.8", True), ("192.0.0.1", True), ("192.0.0.170", True), ("100.64.0.1", True),
    ("100.127.255.254", True), ("192.0.2.1", True), ("198.51.100.1", True),
    ("203.0.113.1", True), ("2001:db8::1", True), ("2001:2::1", True), ("2001:20::1", True),
    ("64:ff9b:1::1", True), ("100::1", True), ("2002:c000:8::", True), ("0.1.2.3", True),
    ("192.0.0.9", False), ("192.0.0.10", False), ("1.1.1.1", False),
    ("2606:4700:4700::1111", False),
])
def test_which_addresses_are_forbidden(address, forbidden):
    assert webhooks.forbidden_address(address) is forbidden


def test_moderators_see_endpoints_and_deliveries_in_the_admin_never_a_whole_secret(
        users, receiver, client):
    from django.contrib.auth.models import Group

    made = register(users[0], receiver.url())
    row = hooks.ping(users[0], made["id"])
    moderator = UserFactory(is_staff=True)
    moderator.groups.add(Group.objects.get(name="Moderators"))
    client.force_login(moderator)
    for url in ["/admin/games/webhookendpoint/",
                f"/admin/games/webhookendpoint/{made['id']}/change/",
                "/admin/games/webhookdelivery/",
                f"/admin/games/webhookdelivery/{row.pk}/change/"]:
        answer = client.get(url)
        assert answer.status_code == 200, url
        assert made["secret"].encode() not in answer.content
        assert made["secret"][6:].encode() not in answer.content
    page = client.get(f"/admin/games/webhookendpoint/{made['id']}/change/")
    assert made["secret"][:10].encode() in page.content
    assert client.post(f"/admin/games/webhookendpoint/{made['id']}/delete/").status_code == 403


# --------------------------------------------------------------------------------------------
# Deliveries


def test_a_real_delivery_verified_by_the_documented_recipe(
        users, receiver, django_capture_on_commit_callbacks):
    secret = register(users[1], receiver.url())["secret"]
    with django_capture_on_commit_callbacks(execute=True):
        game = start_game(users[0], users[1:], options={"players": 4})
    posted = receiver.posts("/hook")
    types = [json.loads(r.body)["type"] for r in posted]
    assert "game_started" in types
    for name, path, heading in [("guide", ROOT / "docs/api-guide.md", "## Webhooks"),
                                ("docs", ROOT / "docs/api/README.md", "## Webhooks")]:
        verify = verify_function(path, heading)
        for request in posted:
            headers = request.headers
            assert verify(secret, request.body, headers["Mascarade-Signature"]), name
            assert not verify(secret, request.body + b" ", headers["Mascarade-Signature"])
            assert not verify("whsec_other", request.body, headers["Mascarade-Signature"])
            old = webhooks.signature(secret, request.body, int(time.time()) - 301)
            assert not verify(secret, request.body, old)
            assert verify(secret, request.body,
                          webhooks.signature(secret, request.body, int(time.time()) - 200))
            assert not verify(secret, request.body, "v1=abc")
            # Hostile headers are refused, not a crash of the receiver (a 500).
            now = int(time.time())
            assert not verify(secret, request.body, "t=²,v1=abc")
            assert not verify(secret, request.body, f"t={now},v1=é")
            assert not verify(secret, request.body, "")
    started = posted[types.index("game_started")]
    body = json.loads(started.body)
    assert started.method == "POST"
    assert started.headers["Content-Type"] == "application/json"
    assert started.headers["User-Agent"] == "MascaradeOnline-Webhooks/1"
    assert started.headers["Mascarade-Event"] == "game_started"
    assert started.headers["Mascarade-Delivery"] == body["id"]
    assert started.headers["Host"] == f"127.0.0.1:{receiver.port}"
    assert set(body) == {"id", "type", "created", "data"}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", body["created"])
    assert body["data"] == {"game": str(game.pk), "kind": "mascarade", "status": "active"}
    row = WebhookDelivery.objects.get(pk=body["id"])
    assert row.status == Status.DELIVERED and row.attempts == 1
    assert row.last_status_code == 200 and row.body.encode() == started.body
    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.last_success_at and endpoint.failures_in_row == 0
    # Only the owner's games: the other players registered nothing, and got nothing.
    assert {json.loads(r.body)["data"]["game"] for r in posted} == {str(game.pk)}
    # The deliveries, as the owner lists them.
    listed = client_for(users[1]).get(f"{URL}{endpoint.pk}/deliveries/").json()
    assert {d["id"] for d in listed["results"]} == {json.loads(r.body)["id"] for r in posted}
    assert all(d["status"] == "delivered" and d["last_status_code"] == 200
               for d in listed["results"])


def test_payloads_say_only_what_their_reader_sees_at_the_table(
        users, receiver, django_capture_on_commit_callbacks):
    for n, user in enumerate(users):
        register(user, receiver.url(f"/u{n}"))
    with django_capture_on_commit_callbacks(execute=True):
        game = start_game(users[0], users[1:], options={"players": 4})
    seen = 0
    decisions = 0
    for _ in range(25):
        game.refresh_from_db()
        if game.status != "active":
            break
        # Each new post checked against its reader's own game read, now.
        for request in receiver.requests[seen:]:
            reader = users[int(request.path.removeprefix("/u"))]
            body = json.loads(request.body)
            read = client_for(reader).get(game_url(game.pk)).json()
            data = body["data"]
            assert data["game"] == read["id"] and data["kind"] == read["game"]
            if body["type"] == "decision":
                decisions += 1
                assert set(data) == {"game", "kind", "seq", "seat", "decision", "deadline"}
                awaiting = [{"seat": a["seat"], "decision": a["decision"],
                             "deadline": a["deadline"]} for a in read["state"]["awaiting"]]
                assert {k: data[k] for k in ("seat", "decision", "deadline")} in awaiting
                assert data["seq"] == read["seq"] and read["you"]["seat"] == data["seat"]
            else:
                assert body["type"] == "game_started"
                assert set(data) == {"game", "kind", "status"}
        seen = len(receiver.requests)
        row = game.pending_decisions.first()
        mover = client_for(users[row.player])
        move = peaceful(mover.get(game_url(game.pk, "legal-moves/")).json()["moves"])
        with django_capture_on_commit_callbacks(execute=True):
            assert mover.post(game_url(game.pk, "moves/"), {"move": move,
                                                            "expected_seq": game.seq},
                              format="json").status_code == 201
    assert decisions >= 20


def test_a_game_that_ends_posts_its_winners(users, receiver, django_capture_on_commit_callbacks):
    register(users[2], receiver.url())
    game = start_game(users[0], users[1:], options={"players": 4})
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        game.status, game.winners = Game.Status.FINISHED, [2]
        game.save(update_fields=["status", "winners"])
        events.publish(events.GameEnded(game=game, seats=selectors.seats_of(game)))
    ended = [json.loads(r.body) for r in receiver.requests
             if r.headers["Mascarade-Event"] == "game_ended"]
    assert len(ended) == 1
    assert ended[0]["data"] == {"game": str(game.pk), "kind": "mascarade",
                                "status": "finished", "winners": [2]}


def test_failed_attempts_are_retried_with_backoff_then_abandoned(
        users, receiver, settings, django_capture_on_commit_callbacks):
    settings.WEBHOOK_DISABLE_AFTER = 100
    receiver.default = Answer(status=500)
    endpoint = register(users[0], receiver.url())
    row = pings(users[0], endpoint["id"], run=False)[0]
    now = timezone.now()
    waits = [dt.timedelta(minutes=1), dt.timedelta(minutes=5), dt.timedelta(minutes=30),
             dt.timedelta(hours=2), dt.timedelta(hours=6), dt.timedelta(hours=12),
             dt.timedelta(hours=24)]
    for attempt in range(1, 9):
        assert hooks.deliver_due(now=now) == 0
        row.refresh_from_db()
        assert row.attempts == attempt and len(receiver.requests) == attempt
        assert row.last_status_code == 500 and row.last_error.startswith("HTTP 500")
        if attempt == 8:
            assert row.status == Status.ABANDONED and row.next_attempt_at is None
            break
        assert row.status == Status.FAILED
        assert row.next_attempt_at == now + waits[attempt - 1]
        # Not a second earlier.
        hooks.deliver_due(now=row.next_attempt_at - dt.timedelta(seconds=1))
        assert len(receiver.requests) == attempt
        now = row.next_attempt_at
    hooks.deliver_due(now=now + dt.timedelta(days=30))
    assert len(receiver.requests) == 8
    endpoint_row = WebhookEndpoint.objects.get()
    assert endpoint_row.failures_in_row == 8 and endpoint_row.active
    shown = client_for(users[0]).get(f"{URL}{endpoint['id']}/deliveries/").json()["results"][0]
    assert shown["status"] == "abandoned" and shown["attempts"] == 8
    assert shown["last_status_code"] == 500 and shown["next_attempt_at"] is None


def test_a_success_resets_the_failures_in_a_row(users, receiver,
                                                django_capture_on_commit_callbacks):
    endpoint = register(users[0], receiver.url())
    receiver.default = Answer(status=503)
    pings(users[0], endpoint["id"], 3, capture=django_capture_on_commit_callbacks)
    assert WebhookEndpoint.objects.get().failures_in_row == 3
    receiver.default = Answer(status=204)
    pings(users[0], endpoint["id"], capture=django_capture_on_commit_callbacks)
    row = WebhookEndpoint.objects.get()
    assert row.failures_in_row == 0 and row.last_success_at and row.last_failure_at


def test_repeated_failures_turn_the_endpoint_off_and_its_owner_is_told(
        users, receiver, settings, django_capture_on_commit_callbacks):
    settings.WEBHOOK_DISABLE_AFTER = 3
    settings.WEBHOOK_DISABLE_AFTER_HOURS = 0  # (the rule on time: the next two tests)
    owner = users[0]
    receiver.default = Answer(status=500)
    endpoint = register(owner, receiver.url())
    pings(owner, endpoint["id"], 2, capture=django_capture_on_commit_callbacks)
    waiting = pings(owner, endpoint["id"], run=False)[0]  # its task lost: still pending
    assert WebhookEndpoint.objects.get().active
    # (the mail goes whatever their notification preferences: it is about their account)
    User.objects.filter(pk=owner.pk).update(notify_email=False)
    mail.outbox.clear()
    pings(owner, endpoint["id"], capture=django_capture_on_commit_callbacks)  # the third
    row = WebhookEndpoint.objects.get()
    assert not row.active and row.disabled_at and row.failures_in_row == 3
    assert "3" in row.disabled_reason and "HTTP 500" in row.disabled_reason
    waiting.refresh_from_db()
    assert waiting.status == Status.ABANDONED and waiting.next_attempt_at is None
    assert not User.objects.get(pk=owner.pk).has_webhooks
    # Nothing more goes to it, a move of its owner's games included.
    count = len(receiver.requests)
    with django_capture_on_commit_callbacks(execute=True):
        start_game(owner, users[1:], options={"players": 4})
    assert not WebhookDelivery.objects.filter(status__in=[Status.PENDING, Status.FAILED])
    hooks.deliver_due(now=timezone.now() + dt.timedelta(days=3))
    assert len(receiver.requests) == count
    # The owner's mail, sent once committed: which URL, why, and how to turn it on again.
    note = Notification.objects.get(user=owner, kind=Notification.Kind.WEBHOOK_DISABLED)
    assert note.status == Notification.Status.SENT
    message = next(m for m in mail.outbox if "webhook" in m.subject.lower())
    assert message.to == [owner.email]
    assert "webhook" in message.subject.lower()
    text = message.body
    assert receiver.url() in text and "HTTP 500" in text
    assert f"/api/v1/me/webhooks/{endpoint['id']}/" in text and '"active": true' in text
    # Turned on again by its owner.
    receiver.default = Answer(status=200)
    on = client_for(owner).patch(f"{URL}{endpoint['id']}/", {"active": True}, format="json")
    assert on.status_code == 200 and on.json()["active"] and on.json()["failures_in_row"] == 0
    assert User.objects.get(pk=owner.pk).has_webhooks
    with django_capture_on_commit_callbacks(execute=True):
        ping = client_for(owner).post(f"{URL}{endpoint['id']}/ping/")
    assert ping.status_code == 202 and ping.json()["type"] == "ping"
    assert WebhookDelivery.objects.get(pk=ping.json()["id"]).status == Status.DELIVERED


def test_a_short_outage_turns_nothing_off_and_loses_nothing(
        users, receiver, django_capture_on_commit_callbacks):
    # More events wait than the failures that would turn it off, all failing within a minute.
    receiver.default = Answer(status=503)
    endpoint = register(users[0], receiver.url())
    rows = pings(users[0], endpoint["id"], 12, capture=django_capture_on_commit_callbacks)
    row = WebhookEndpoint.objects.get()
    assert row.failures_in_row == 12 and row.active and row.failing_since
    shown = client_for(users[0]).get(f"{URL}{endpoint['id']}/").json()
    assert shown["failing_since"] == selectors.iso(row.failing_since)
    # The receiver is back: their retries, a minute later, all go through.
    receiver.default = Answer(status=204)
    assert hooks.deliver_due(now=timezone.now() + dt.timedelta(minutes=2)) == 12
    assert {r.status for r in WebhookDelivery.objects.filter(pk__in=[r.pk for r in rows])} == {
        Status.DELIVERED}
    row.refresh_from_db()
    assert row.active and row.failures_in_row == 0 and row.failing_since is None


def test_an_endpoint_failing_for_a_day_is_turned_off(users, receiver, settings,
                                                     django_capture_on_commit_callbacks):
    settings.WEBHOOK_DISABLE_AFTER = 3
    receiver.default = Answer(status=500)
    endpoint = register(users[0], receiver.url())
    first = pings(users[0], endpoint["id"], 3, capture=django_capture_on_commit_callbacks)[0]
    row = WebhookEndpoint.objects.get()
    assert row.active and row.failures_in_row == 3  # enough failures, not for long enough
    start = row.failing_since
    # Retries keep failing; the first one past 24 hours of failures turns it off.
    hooks.deliver_due(now=start + dt.timedelta(hours=23))
    row.refresh_from_db()
    assert row.active and row.failures_in_row > 3
    hooks.deliver_due(now=start + dt.timedelta(hours=24, minutes=1))
    row.refresh_from_db()
    assert not row.active and row.disabled_at and row.failing_since == start
    first.refresh_from_db()
    assert first.status == Status.ABANDONED
    assert Notification.objects.filter(user=users[0],
                                       kind=Notification.Kind.WEBHOOK_DISABLED).count() == 1
    # Turned on again: a streak of its own from then on.
    client_for(users[0]).patch(f"{URL}{endpoint['id']}/", {"active": True}, format="json")
    row.refresh_from_db()
    assert row.active and row.failures_in_row == 0 and row.failing_since is None


class _Clock:
    """``timezone`` for the webhooks' service, whose time a test moves."""

    def __init__(self):
        self.at = timezone.now()

    def now(self):
        return self.at


def test_a_batch_longer_than_a_lease_posts_each_row_once(users, receiver, monkeypatch):
    """A worker's batch takes its rows one at a time, each just before its post: a sweep of
    another worker that comes while the batch goes on (past the lease its rows would have had
    if all were taken at its start) never takes a row the batch will post, nor the one it is
    posting."""
    endpoint = register(users[0], receiver.url())
    rows = pings(users[0], endpoint["id"], 4, run=False)  # their tasks lost
    clock = _Clock()
    monkeypatch.setattr(hooks, "timezone", clock)
    real_send, sent, other = webhooks.send, [], []

    def slow_send(url, body, headers, **kwargs):
        sent.append(json.loads(body)["id"])
        if not other:  # the batch's own posts, each 25 s (five times the most a post takes)
            clock.at += dt.timedelta(seconds=25)
            if len(sent) == 3:  # 75 s into the batch: another worker's sweep
                other.append(None)
                other[0] = hooks.deliver()
        return real_send(url, body, headers, **kwargs)

    monkeypatch.setattr(webhooks, "send", slow_send)
    mine = hooks.deliver()
    assert sorted(sent) == sorted(str(r.pk) for r in rows)  # each posted once
    assert len(mine) == 3 and len(other[0]) == 1 and not set(mine) & set(other[0])
    assert len(receiver.requests) == 4
    assert set(WebhookDelivery.objects.values_list("attempts", flat=True)) == {1}
    assert set(WebhookDelivery.objects.values_list("status", flat=True)) == {Status.DELIVERED}


def test_a_change_of_the_endpoint_during_a_batch_applies_to_its_next_posts(
        users, receiver, monkeypatch):
    owner = users[0]
    endpoint = register(owner, receiver.url())
    pings(owner, endpoint["id"], 3, run=False)
    real_send, secrets_now = webhooks.send, []

    def send(url, body, headers, **kwargs):
        if not secrets_now:  # during the first post: a new secret
            secrets_now.append(hooks.rotate_secret(owner, endpoint["id"]).secret)
        elif len(secrets_now) == 1:  # during the second: turned off
            secrets_now.append(None)
            hooks.update(owner, endpoint["id"], active=False)
        return real_send(url, body, headers, **kwargs)

    monkeypatch.setattr(webhooks, "send", send)
    hooks.deliver()
    first, second = receiver.requests
    t = re.search(r"t=(\d+)", second.headers["Mascarade-Signature"]).group(1)
    assert second.headers["Mascarade-Signature"] == webhooks.signature(
        secrets_now[0], second.body, int(t))  # signed with the new secret
    assert first.headers["Mascarade-Signature"] != webhooks.signature(
        secrets_now[0], first.body,
        int(re.search(r"t=(\d+)", first.headers["Mascarade-Signature"]).group(1)))
    # The third, claimed after the endpoint went off, is not posted.
    assert len(receiver.requests) == 2
    assert WebhookDelivery.objects.filter(status=Status.ABANDONED).count() == 1


def test_a_host_that_does_not_resolve_in_time_holds_nobody(users, settings, monkeypatch):
    settings.WEBHOOK_ALLOWED_HOSTS = []
    monkeypatch.setattr(webhooks, "RESOLVE_TIMEOUT", 0.2)
    released = threading.Event()
    calls = []

    def getaddrinfo(host, port, *args, **kwargs):
        if host == "silent.example":
            calls.append(host)
            released.wait(30)  # a name server that never answers
            raise socket.gaierror("timed out")
        return REAL_GETADDRINFO(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    try:
        # Registering: refused once the wait is over (the lookup still runs, on its thread).
        answer = client_for(users[0]).post(URL, {"url": "https://silent.example/hook"},
                                           format="json")
        assert answer.status_code == 400, answer.json()
        assert "silent.example" in answer.json()["fields"]["url"][0]
        assert "0.2" in answer.json()["fields"]["url"][0]
        assert not WebhookEndpoint.objects.exists() and not released.is_set()
        # Posting: the resolution counts in the attempt's limit.
        result = webhooks.send("https://silent.example/hook", b"{}", {}, timeout=0.3)
        assert not result.ok and "0.3" in result.error and "silent.example" in result.error
        assert not released.is_set() and calls
    finally:
        released.set()


def test_a_bad_url_is_told_in_the_users_language_only(users):
    french = client_for(users[0])
    answer = french.post(URL, {"url": "https://hooks.example:99999/"}, format="json",
                         HTTP_ACCEPT_LANGUAGE="fr")
    message = answer.json()["fields"]["url"][0]
    assert answer.status_code == 400 and "URL" in message
    assert "range" not in message and "Port" not in message  # nothing of Python's English


def test_changes_of_endpoints_have_a_throttle_of_their_own(users, receiver, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
                                   "webhooks": "3/hour"}}
    me = client_for(users[0])
    made = register(users[0], receiver.url())  # 1
    assert me.post(f"{URL}{made['id']}/ping/").status_code == 202  # 2
    assert me.patch(f"{URL}{made['id']}/", {"description": "x"},
                    format="json").status_code == 200  # 3
    refused = me.post(f"{URL}{made['id']}/ping/")
    assert refused.status_code == 429 and refused.json()["code"] == "throttled"
    assert int(refused["Retry-After"]) > 0
    assert WebhookDelivery.objects.count() == 1  # the refused ping queued nothing
    # Reads and deletions are not counted; another user has a throttle of their own.
    assert me.get(URL).status_code == 200 and me.get(f"{URL}{made['id']}/").status_code == 200
    assert me.delete(f"{URL}{made['id']}/").status_code == 204
    register(users[1], receiver.url())


def test_deliveries_are_kept_thirty_days(users, receiver, settings):
    endpoint = register(users[0], receiver.url())
    old, recent, waiting = pings(users[0], endpoint["id"], 3, run=False)
    hooks.deliver([str(old.pk), str(recent.pk)])
    now = timezone.now()
    WebhookDelivery.objects.filter(pk__in=[old.pk, waiting.pk]).update(
        created_at=now - dt.timedelta(days=31))
    WebhookDelivery.objects.filter(pk=recent.pk).update(created_at=now - dt.timedelta(days=29))
    assert tasks.forget_webhook_deliveries() == 1
    assert set(WebhookDelivery.objects.values_list("pk", flat=True)) == {recent.pk, waiting.pk}
    assert tasks.forget_webhook_deliveries() == 0


def test_webhook_posts_have_a_queue_and_a_worker_of_their_own(settings):
    """Slow endpoints hold up no bot move and no deadline: their tasks go to the queue
    ``webhooks``, which the compose file's webhook-worker takes (on threads) and the worker
    does not; make run's one worker takes both."""
    import yaml
    from celery import current_app

    router = current_app.amqp.router
    for name in ("games.deliver_webhooks", "games.webhook_sweep",
                 "games.forget_webhook_deliveries"):
        assert router.route({}, name)["queue"].name == "webhooks", name
    for name in ("games.play_bots", "games.resolve_deadline", "games.sweep"):
        assert router.route({}, name)["queue"].name == "celery", name
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert {"games.webhook_sweep", "games.forget_webhook_deliveries"} <= scheduled
    compose = yaml.safe_load((ROOT / "docker/compose.yml").read_text())["services"]
    assert compose["webhook-worker"]["environment"]["CELERY_QUEUES"] == "webhooks"
    assert compose["webhook-worker"]["environment"]["CELERY_POOL"] == "threads"
    assert "CELERY_QUEUES" not in compose["worker"].get("environment", {})
    script = (ROOT / "docker/start-worker.sh").read_text()
    assert '--queues "${CELERY_QUEUES:-celery}"' in script
    assert '--pool "${CELERY_POOL:-prefork}"' in script
    rundev = (ROOT / "mascarade_site/management/commands/rundev.py").read_text()
    assert '"--queues", f"celery,{settings.WEBHOOK_QUEUE}"' in rundev


def test_a_redirect_is_not_followed(users, receiver, django_capture_on_commit_callbacks):
    receiver.answers["/hook"] = Answer(status=302,
                                       headers={"Location": receiver.url("/elsewhere")})
    endpoint = register(users[0], receiver.url())
    row = pings(users[0], endpoint["id"], capture=django_capture_on_commit_callbacks)[0]
    row.refresh_from_db()
    assert row.status == Status.FAILED and row.last_status_code == 302
    assert "redirect" in row.last_error and "/elsewhere" in row.last_error
    assert [r.path for r in receiver.requests] == ["/hook"]  # never to the target
    assert WebhookEndpoint.objects.get().failures_in_row == 1


def test_a_slow_endpoint_is_cut_off(users, receiver, monkeypatch,
                                    django_capture_on_commit_callbacks):
    monkeypatch.setattr(webhooks, "TIMEOUT", 0.5)
    receiver.answers["/slow"] = Answer(delay=3)
    receiver.answers["/trickle"] = Answer(trickle=0.1)  # each read quick, the whole too long
    for path in ("/slow", "/trickle"):
        endpoint = register(users[0], receiver.url(path))
        started = time.monotonic()
        row = pings(users[0], endpoint["id"], capture=django_capture_on_commit_callbacks)[0]
        took = time.monotonic() - started
        row.refresh_from_db()
        assert row.status == Status.FAILED, path
        assert "0.5 seconds" in row.last_error, row.last_error
        assert took < 2, (path, took)


def test_the_default_timeout_is_five_seconds():
    assert webhooks.TIMEOUT == 5.0


def test_the_task_is_safe_to_run_twice(users, receiver):
    endpoint = register(users[0], receiver.url())
    row = pings(users[0], endpoint["id"], run=False)[0]  # its task not sent (no commit)
    assert tasks.deliver_webhooks([str(row.pk)]) == {str(row.pk): Status.DELIVERED}
    assert tasks.deliver_webhooks([str(row.pk)]) == {}
    assert len(receiver.requests) == 1
    # A failed one too: the second run finds it not due before its retry's time.
    receiver.default = Answer(status=500)
    row = pings(users[0], endpoint["id"], run=False)[0]
    assert tasks.deliver_webhooks([str(row.pk)]) == {str(row.pk): Status.FAILED}
    assert tasks.deliver_webhooks([str(row.pk)]) == {}
    assert len(receiver.requests) == 2


def test_the_sweep_posts_what_a_lost_task_left(users, receiver):
    endpoint = register(users[0], receiver.url())
    row = pings(users[0], endpoint["id"], run=False)[0]
    assert tasks.webhook_sweep() == 1
    row.refresh_from_db()
    assert row.status == Status.DELIVERED and len(receiver.requests) == 1
    assert tasks.webhook_sweep() == 0
    assert "webhooks" not in tasks.sweep()  # (the other sweep's queue is not theirs)


# --------------------------------------------------------------------------------------------
# SSRF at delivery, and the connection to the checked address


@pytest.mark.parametrize("address", ["127.0.0.1", "10.1.2.3", "169.254.169.254", "::1",
                                     "::ffff:127.0.0.1"])
def test_a_name_that_resolves_elsewhere_by_delivery_time_is_refused(
        users, settings, dns, receiver, address, django_capture_on_commit_callbacks):
    settings.WEBHOOK_ALLOWED_HOSTS = []
    dns["hooks.example"] = ["93.184.216.34"]
    endpoint = register(users[0], f"https://hooks.example:{receiver.port}/hook")
    dns["hooks.example"] = [address]
    row = pings(users[0], endpoint["id"], capture=django_capture_on_commit_callbacks)[0]
    row.refresh_from_db()
    assert row.status == Status.FAILED and row.last_status_code is None
    assert address in row.last_error and "public addresses only" in row.last_error
    assert receiver.requests == []


@pytest.mark.parametrize("url", ["https://127.0.0.1:{port}/hook", "https://[::1]:{port}/hook",
                                 "https://10.0.0.1:{port}/hook",
                                 "https://169.254.169.254:{port}/hook"])
def test_an_address_stored_before_the_rules_changed_is_refused_at_delivery(
        users, settings, receiver, url, django_capture_on_commit_callbacks):
    made = register(users[0], receiver.url())  # allowed while 127.0.0.1 is an allowed host
    WebhookEndpoint.objects.filter(pk=made["id"]).update(url=url.format(port=receiver.port))
    settings.WEBHOOK_ALLOWED_HOSTS = []
    row = pings(users[0], made["id"], capture=django_capture_on_commit_callbacks)[0]
    row.refresh_from_db()
    assert row.status == Status.FAILED and "public addresses only" in row.last_error
    assert receiver.requests == []


def test_the_post_goes_to_the_checked_address_without_resolving_again(receiver, monkeypatch):
    target = webhooks.Target("http", "hooks.example", receiver.port, "/hook?x=1",
                             ("127.0.0.1",))

    def no_lookup(*args, **kwargs):
        raise AssertionError(f"resolved a second time: {args}")

    monkeypatch.setattr(socket, "getaddrinfo", no_lookup)
    body = b'{"id":"x"}'
    result = webhooks.post(target, body, webhooks.headers("x", "ping", "whsec_s", body))
    assert result.ok and result.status == 200
    request = receiver.requests[0]
    assert request.path == "/hook?x=1" and request.body == body
    assert request.headers["Host"] == f"hooks.example:{receiver.port}"


def _self_signed(tmp_path: Path, name: str) -> tuple[str, str]:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", f"/CN={name}", "-addext", f"subjectAltName=DNS:{name}",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return str(cert), str(key)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_tls_names_the_host_to_the_checked_address(tmp_path, monkeypatch):
    """SNI and the certificate's check are the host name's, the connection the checked
    address's; a certificate of another name is refused."""
    cert, key = _self_signed(tmp_path, "hooks.example")
    server = Receiver(tls=(cert, key))
    try:
        trusting = ssl.create_default_context(cafile=cert)
        monkeypatch.setattr(webhooks.ssl, "create_default_context", lambda: trusting)
        target = webhooks.Target("https", "hooks.example", server.port, "/hook",
                                 ("127.0.0.1",))
        body = b"{}"
        result = webhooks.post(target, body, webhooks.headers("x", "ping", "whsec_s", body))
        assert result.ok, result.error
        assert server.server_names == ["hooks.example"]
        assert server.requests[0].headers["Host"] == f"hooks.example:{server.port}"
        other = webhooks.Target("https", "other.example", server.port, "/hook", ("127.0.0.1",))
        refused = webhooks.post(other, body, webhooks.headers("x", "ping", "whsec_s", body))
        assert not refused.ok and "TLS" in refused.error
        assert len(server.requests) == 1
    finally:
        server.close()


# --------------------------------------------------------------------------------------------
# The write path's cost


def _move(game, users_by_player, capture) -> tuple[int, list[str], int | None]:
    """A move of the awaited player: its statements (the work it sends after its commit
    left out, then done), and the player awaited after it."""
    game.refresh_from_db()
    row = game.pending_decisions.get()
    mover = client_for(users_by_player[row.player])
    move = peaceful(mover.get(game_url(game.pk, "legal-moves/")).json()["moves"])
    with capture(execute=False) as callbacks:
        with CaptureQueriesContext(connection) as queries:
            answer = mover.post(game_url(game.pk, "moves/"), {"move": move,
                                                              "expected_seq": game.seq},
                                format="json")
        assert answer.status_code == 201
    for callback in callbacks:
        callback()
    awaited = game.pending_decisions.values_list("player", flat=True).first()
    return len(queries), [q["sql"] for q in queries], awaited


def test_a_move_of_players_without_webhooks_costs_no_statement_more(
        receiver, django_capture_on_commit_callbacks):
    players = [UserFactory() for _ in range(4)]
    game = start_game(players[0], players[1:], options={"players": 4})
    by_player = dict(enumerate(players))
    capture = django_capture_on_commit_callbacks
    before = [_move(game, by_player, capture) for _ in range(4)]
    # Someone else, of another game, registers an endpoint: the moves here cost the same.
    stranger = UserFactory()
    register(stranger, receiver.url())
    after = [_move(game, by_player, capture) for _ in range(4)]
    assert [count for count, _sql, _p in after] == [count for count, _sql, _p in before]
    assert len({count for count, _sql, _p in before}) == 1
    assert not any("games_webhook" in sql for _count, statements, _p in before + after
                   for sql in statements)
    assert receiver.requests == []
    # A player of this game registers one: a move after which a decision awaits them looks
    # for their endpoints (one SELECT) and writes its delivery (one INSERT); the others cost
    # what they did.
    register(players[1], receiver.url("/p1"))
    base = before[0][0]
    seen = set()
    for _ in range(8):
        count, statements, awaited = _move(game, by_player, capture)
        touched = len([sql for sql in statements if "games_webhook" in sql])
        expected = (base + 2, 2) if awaited == 1 else (base, 0)
        assert (count, touched) == expected, (awaited, count, touched)
        seen.add(awaited == 1)
    assert seen == {True, False}
    assert len(receiver.posts("/p1")) >= 1
    assert all(json.loads(r.body)["type"] == "decision" for r in receiver.posts("/p1"))
