"""The devices a user subscribed to Web Push: taken from what the browser's ``pushManager``
gave (its endpoint and keys, checked), listed on the profile with their last use, removed by
their owner or when their push service says they are gone. The user's ``has_push`` says
whether they have one (read with the seats by the outbox)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from games.core.errors import Invalid, NotFound
from games.webpush import service
from games.webpush.models import ENDPOINT_MAX_LENGTH, MAX_DEVICES, PushSubscription

#: (a User-Agent's words, the name shown) — the first that the string contains wins.
_BROWSERS = (("Edg/", "Edge"), ("OPR/", "Opera"), ("SamsungBrowser", "Samsung Internet"),
             ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Chromium/", "Chromium"),
             ("Safari/", "Safari"))
_SYSTEMS = (("Android", "Android"), ("iPhone", "iOS"), ("iPad", "iPadOS"),
            ("Windows", "Windows"), ("Mac OS X", "macOS"), ("CrOS", "ChromeOS"),
            ("Linux", "Linux"))


def device_label(user_agent: str) -> str:
    """"Firefox on Android" from a browser's User-Agent ("" when it says neither)."""
    user_agent = user_agent or ""
    browser = next((name for words, name in _BROWSERS if words in user_agent), "")
    system = next((name for words, name in _SYSTEMS if words in user_agent), "")
    if browser and system:
        return _("%(browser)s on %(system)s") % {"browser": browser, "system": system}
    return browser or system


def _refused(message: str) -> Invalid:
    return Invalid({"subscription": [message]}, message)


def parse(data: Any) -> tuple[str, str, str]:
    """``(endpoint, p256dh, auth)`` from a ``PushSubscription.toJSON()`` object, or
    :class:`Invalid` saying what is wrong."""
    if not isinstance(data, dict):
        raise _refused(_("This browser sent no subscription."))
    endpoint = data.get("endpoint")
    keys = data.get("keys") if isinstance(data.get("keys"), dict) else {}
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > ENDPOINT_MAX_LENGTH:
        raise _refused(_("This browser sent no push address."))
    if not service.allowed_endpoint(endpoint):
        raise _refused(_("This browser's push service is not one this site posts to."))
    if not (isinstance(p256dh, str) and isinstance(auth, str)
            and service.valid_keys(p256dh, auth)):
        raise _refused(_("This browser's subscription keys are not valid."))
    return endpoint, p256dh, auth


def subscribe(user, data: Any, user_agent: str = "") -> PushSubscription:
    """This device's subscription for ``user`` (the same endpoint again takes the new keys and
    owner: a browser has one subscription, whoever last logged in on it)."""
    if not service.enabled():
        raise _refused(_("Notifications are not offered on this site."))
    endpoint, p256dh, auth = parse(data)
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()
        found = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        if found is None and PushSubscription.objects.filter(user=user).count() >= MAX_DEVICES:
            raise _refused(_("You have %(most)d devices with notifications already: remove one "
                             "on your profile first.") % {"most": MAX_DEVICES})
        previous = found.user_id if found is not None else None
        if found is None:
            found = PushSubscription(endpoint=endpoint)
        found.user, found.p256dh, found.auth = user, p256dh, auth
        found.label = device_label(user_agent)
        found.save()
        _set_flag(user.pk)
        if previous is not None and previous != user.pk:
            _set_flag(previous)
        User.objects.filter(pk=user.pk).update(push_offer_answered=True)
    user.has_push = user.push_offer_answered = True
    return found


def devices_of(user) -> list[PushSubscription]:
    return list(PushSubscription.objects.filter(user=user).order_by("created_at", "id"))


def remove(user, subscription_id: Any) -> None:
    """``user``'s device ``subscription_id`` no longer gets notifications."""
    try:
        pk = int(subscription_id)
    except (TypeError, ValueError):
        pk = 0
    with transaction.atomic():
        deleted, _rows = PushSubscription.objects.filter(user=user, pk=pk).delete()
        if not deleted:
            raise NotFound(_("No such device."))
        user.has_push = _set_flag(user.pk)


def forget(subscription_id: int) -> None:
    """Its push service says the device is gone (404, 410): its subscription is deleted."""
    with transaction.atomic():
        row = PushSubscription.objects.filter(pk=subscription_id).first()
        if row is None:
            return
        row.delete()
        _set_flag(row.user_id)


def answer_offer(user) -> None:
    """The table's offer was answered ("not now"): not offered again."""
    User.objects.filter(pk=user.pk).update(push_offer_answered=True)
    user.push_offer_answered = True


def _set_flag(user_id: int) -> bool:
    flag = PushSubscription.objects.filter(user_id=user_id).exists()
    User.objects.filter(pk=user_id).update(has_push=flag)
    return flag
