"""Inbound mail from the providers' webhooks (django-anymail, under ``/anymail/``).

Anymail checks each post (the basic auth of ``ANYMAIL_WEBHOOK_SECRET``, and the provider's own
signature where it signs: Mailgun's HMAC, MailerSend's, Mandrill's...; a refused post answers
400 and sends nothing), turns the provider's payload into a message and sends the
``anymail.signals.inbound`` signal, which :func:`handle_inbound` (connected in
``games.apps.GamesConfig.ready``) hands to ``games.mail.receive.receive_mail``. If that raises
(the database is down), the webhook answers 500 and the provider posts again later.
"""

from __future__ import annotations

import logging
import re
from typing import Any

log = logging.getLogger(__name__)

DISPATCH_UID = "games.mail.providers.handle_inbound"


def esp_slug(esp_name: str) -> str:
    """Anymail's provider name as the ``via`` suffix: "Mailgun" → "mailgun",
    "Amazon SES" → "amazon_ses"."""
    return re.sub(r"[^a-z0-9]+", "_", esp_name.lower()).strip("_")


def raw_bytes(message: Any) -> bytes:
    """The message as MIME bytes (anymail parsed the provider's raw MIME when it sent one, or
    built the message from its fields)."""
    try:
        return message.as_bytes()
    except Exception:  # a header the generator cannot write back: the text, as it is
        log.warning("inbound message not serialisable as bytes; sent as text", exc_info=True)
        return message.as_string().encode("utf-8", errors="surrogateescape")


def recipients_of(message: Any) -> list[str]:
    """The envelope recipient (when the provider gives it), then the To header's addresses,
    each once."""
    found = [message.envelope_recipient] if message.envelope_recipient else []
    try:
        found += [address.addr_spec for address in message.to]
    except Exception:  # an unreadable To header: the envelope alone
        log.info("inbound message with an unreadable To header", exc_info=True)
    seen: set[str] = set()
    result = []
    for address in found:
        if address and address.lower() not in seen:
            seen.add(address.lower())
            result.append(address)
    return result


def handle_inbound(sender: Any, event: Any, esp_name: str, **kwargs: Any) -> None:
    """``anymail.signals.inbound``'s receiver: the message to the service."""
    from games.mail.receive import receive_mail

    message = event.message
    receive_mail(raw_bytes(message), recipients=recipients_of(message),
                 sender=message.envelope_sender or None, via=f"webhook:{esp_slug(esp_name)}")


def connect() -> None:
    from anymail.signals import inbound

    inbound.connect(handle_inbound, dispatch_uid=DISPATCH_UID)
