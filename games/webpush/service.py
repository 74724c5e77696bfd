"""The post of one message to one device's push service (RFC 8030), its payload encrypted to the
device's keys (RFC 8291, ``aes128gcm``) and signed with the site's VAPID key (RFC 8292), by
``pywebpush`` and ``py-vapid``.

The keys come from the settings (``VAPID_PUBLIC_KEY``, ``VAPID_PRIVATE_KEY``: the P-256 key pair,
base64url, the public one uncompressed as browsers take it, the private one its 32-byte
scalar; ``VAPID_SUBJECT``: a ``mailto:`` or ``https:`` contact for the push services). Without
both keys push is off: nothing is queued, nothing offered.

A push service is an address a browser gave: only those of :func:`allowed_endpoint` are ever
posted to (the browsers' push services, ``PUSH_SERVICE_HOSTS``), over HTTPS, following no
redirect."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

#: Seconds a push service has to answer.
TIMEOUT = 10


def enabled() -> bool:
    """Push is on: the site has its VAPID key pair."""
    return bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY)


def public_key() -> str:
    """The browsers' ``applicationServerKey`` (base64url), "" while push is off."""
    return settings.VAPID_PUBLIC_KEY if enabled() else ""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def generate_keys() -> tuple[str, str]:
    """A new VAPID key pair ``(public, private)``, base64url, as the settings take them."""
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key().public_bytes(serialization.Encoding.X962,
                                           serialization.PublicFormat.UncompressedPoint)
    private = key.private_numbers().private_value.to_bytes(32, "big")
    return _b64(public), _b64(private)


def _host_matches(host: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        pattern = pattern.strip().lower()
        if pattern.startswith("."):
            if host.endswith(pattern):
                return True
        elif host == pattern:
            return True
    return False


def allowed_endpoint(endpoint: str) -> bool:
    """Whether ``endpoint`` is a push service's, to be posted to: ``https://`` on a host of
    ``PUSH_SERVICE_HOSTS`` (a ``.suffix`` takes its subdomains), or any URL on a host of
    ``PUSH_INSECURE_HOSTS`` (tests and development only)."""
    try:
        parts = urlsplit(endpoint)
        host = (parts.hostname or "").lower()
    except ValueError:
        return False
    if not host or parts.username or parts.password:
        return False
    if _host_matches(host, settings.PUSH_INSECURE_HOSTS):
        return parts.scheme in ("http", "https")
    return (parts.scheme == "https" and parts.port in (None, 443)
            and _host_matches(host, settings.PUSH_SERVICE_HOSTS))


@dataclass
class Outcome:
    """What a push service answered: ``status`` (``None``: no answer), and whether the device is
    gone for good (404, 410: delete its subscription)."""

    status: int | None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def gone(self) -> bool:
        return self.status in (404, 410)


def send(subscription: Any, payload: dict[str, Any], *, ttl: int, topic: str = "",
         urgency: str = "normal") -> Outcome:
    """Post ``payload`` (JSON, encrypted) to ``subscription`` (a ``PushSubscription``). ``ttl``:
    seconds the push service keeps it for a device that is offline; ``topic`` (RFC 8030 §5.4,
    at most 32 base64url characters): a newer message of the same topic replaces one it still
    holds; ``urgency``: ``very-low``, ``low``, ``normal`` or ``high``."""
    if not enabled():
        return Outcome(None, "push is off (no VAPID keys)")
    if not allowed_endpoint(subscription.endpoint):
        return Outcome(None, "not a push service's address")
    headers = {"Urgency": urgency}
    if topic:
        headers["Topic"] = topic[:32]
    session = requests.Session()
    session.max_redirects = 0  # (a redirect is an error: no other address is ever posted to)
    parts = urlsplit(subscription.endpoint)
    claims = {"sub": settings.VAPID_SUBJECT, "aud": f"{parts.scheme}://{parts.netloc}"}
    try:
        response = webpush(
            {"endpoint": subscription.endpoint,
             "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth}},
            data=json.dumps(payload, ensure_ascii=False, separators=(",", ":")),
            vapid_private_key=Vapid.from_string(settings.VAPID_PRIVATE_KEY),
            vapid_claims=claims, ttl=max(0, int(ttl)), headers=headers, timeout=TIMEOUT,
            requests_session=session)
    except WebPushException as exc:
        status = exc.status_code
        return Outcome(status, f"{status}: {(exc.message or '')[:300]}")
    except (requests.RequestException, ValueError) as exc:
        return Outcome(None, str(exc)[:500])
    finally:
        session.close()
    return Outcome(response.status_code)


def valid_keys(p256dh: str, auth: str) -> bool:
    """A browser's subscription keys as RFC 8291 wants them: ``p256dh`` a P-256 point
    (uncompressed, 65 bytes), ``auth`` 16 bytes; base64url."""
    try:
        point = base64.urlsafe_b64decode(p256dh + "=" * (-len(p256dh) % 4))
        secret = base64.urlsafe_b64decode(auth + "=" * (-len(auth) % 4))
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except (ValueError, TypeError):
        return False
    return len(point) == 65 and len(secret) == 16
