"""Web Push in Chromium (issue 47): the service worker is registered for the whole site
(``/sw.js``, scope ``/``); a player's first table offers notifications in one tap; the tap asks
the browser's permission, subscribes with the site's VAPID key and posts the subscription,
which the profile then lists; a push handed to the service worker (Chrome DevTools' own
``ServiceWorker.deliverPushMessage``) is shown as a notification named by its game.

Chromium's own push service (Google's) is out of reach of a test: ``PushManager``'s
``subscribe`` and ``getSubscription`` are replaced in the page by ones that hand back a
subscription made with real keys for a local push service (``tests/push_service.py``); what the
site then posts to it is the protocol test's (``tests/site/test_web_push.py``).

Both pages pass axe-core's check (``test_accessibility.py``: no serious or critical violation).
Screenshot: ``docs/screenshots/push-offer-375.png`` (the offer on a phone). Same requirements
as ``test_play_in_a_browser.py``."""

from __future__ import annotations

import base64
import json

import pytest

from games.core import services
from games.models import Game
from games.webpush import service
from games.webpush.models import PushSubscription
from tests.api.factories import UserFactory
from tests.push_service import Device, PushService

from .test_accessibility import AXE, axe_violations
from .test_chat_in_a_browser import logged_in, watch_console
from .test_play_in_a_browser import SHOTS, chromium  # noqa: F401

PHONE = {"width": 375, "height": 812}

#: PushManager without Chromium's push service: the subscription of ``Device`` (its JSON).
FAKE_PUSH_MANAGER = """
(function (subscription) {
  // (kept by the browser across pages, as a real subscription is)
  function current() {
    return window.localStorage.getItem("subscribed") ? {
      endpoint: subscription.endpoint, toJSON: function () { return subscription; }} : null;
  }
  PushManager.prototype.getSubscription = function () { return Promise.resolve(current()); };
  PushManager.prototype.subscribe = function (options) {
    var key = new Uint8Array(options.applicationServerKey);
    window.pushOptions = {userVisibleOnly: options.userVisibleOnly,
                          key: btoa(String.fromCharCode.apply(null, key))};
    window.localStorage.setItem("subscribed", "1");
    return Promise.resolve(current());
  };
})(%s);
"""


@pytest.fixture(autouse=True)
def _settings(settings, fast_passwords, eager_celery):
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = service.generate_keys()
    settings.PUSH_INSECURE_HOSTS = ["127.0.0.1"]


@pytest.fixture
def push_service():
    found = PushService().start()
    yield found
    found.stop()


@pytest.mark.postgres
def test_a_player_turns_notifications_on_from_the_tables_offer(live_server, chromium,  # noqa: F811
                                                                push_service, settings):
    base = live_server.url
    ada = UserFactory(username="ada", is_staff=True)
    game = Game.objects.get(pk=services.create_game(
        ada, "mascarade", {"players": 4, "first_seat": 0}, bots=3).body["id"])
    device = Device(f"{push_service.origin}/push/ada")
    context = logged_in(chromium, base, ada, viewport=PHONE)
    context.grant_permissions(["notifications"], origin=base)
    context.add_init_script(script=FAKE_PUSH_MANAGER % json.dumps(device.subscription))
    page = context.new_page()
    refused: list[str] = []
    watch_console(page, refused)
    page.goto(f"{base}/games/{game.pk}/")
    # The service worker: registered for the whole site, from /sw.js.
    assert page.evaluate("navigator.serviceWorker.ready.then(r => r.scope)") == base + "/"
    assert page.evaluate("navigator.serviceWorker.ready.then(r => r.active.scriptURL)"
                         ) == base + "/sw.js"
    offer = page.locator("#push-offer")
    offer.wait_for(state="visible", timeout=5000)
    offer.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "push-offer-375.png"))
    assert axe_violations(page, AXE.read_text()) == []  # (serious or critical ones)
    offer.get_by_role("button", name="Turn on notifications").click()
    page.get_by_text("Notifications are on for this device.").wait_for(timeout=5000)
    options = page.evaluate("window.pushOptions")
    assert options["userVisibleOnly"] is True
    assert base64.b64decode(options["key"]) == base64.urlsafe_b64decode(
        settings.VAPID_PUBLIC_KEY + "=" * (-len(settings.VAPID_PUBLIC_KEY) % 4))
    row = PushSubscription.objects.get(user=ada)
    assert row.endpoint == device.endpoint and row.label == "Chrome on Linux"
    # A device already subscribed is offered nothing more.
    page.reload()
    assert page.evaluate("navigator.serviceWorker.ready.then(r => r.pushManager"
                         ".getSubscription()).then(found => found.endpoint)") == device.endpoint
    page.wait_for_timeout(300)
    assert not offer.is_visible()
    # The profile lists it, with its removal.
    page.goto(f"{base}/accounts/profile/")
    devices = page.locator(".push-devices li")
    assert devices.count() == 1 and "Chrome on Linux" in devices.inner_text()
    page.get_by_role("button", name="Turn on notifications on this device").wait_for(
        timeout=5000)
    assert axe_violations(page, AXE.read_text()) == []
    # A push, as the push service hands it to the service worker: shown, named by its game.
    cdp = context.new_cdp_session(page)
    registrations: list[dict] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated",
           lambda event: registrations.extend(event["registrations"]))
    cdp.send("ServiceWorker.enable")
    page.wait_for_timeout(500)
    registration = next(r for r in registrations if r["scopeURL"] == base + "/")
    cdp.send("ServiceWorker.deliverPushMessage", {
        "origin": base + "/", "registrationId": registration["registrationId"],
        "data": json.dumps({"title": "Mascarade", "body": "Your turn at “ada #1”: claim or pass?",
                            "url": f"/games/{game.pk}/", "tag": f"game-{game.pk}", "id": 1})})
    shown = page.evaluate("""() => navigator.serviceWorker.ready.then(async r => {
        for (let i = 0; i < 50; i += 1) {
          const found = await r.getNotifications();
          if (found.length) { return found.map(n => [n.title, n.body, n.tag, n.data.url]); }
          await new Promise(done => setTimeout(done, 100));
        }
        return [];
    })""")
    assert shown == [["Mascarade", "Your turn at “ada #1”: claim or pass?", f"game-{game.pk}",
                      f"/games/{game.pk}/"]]
    assert refused == []
