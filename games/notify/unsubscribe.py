"""One-click unsubscribe links: a signed token naming a user and what it switches off (every
email, or the chat digest only)."""

from __future__ import annotations

import logging
from typing import Any

from django.core import signing

logger = logging.getLogger(__name__)

#: (the module's name when the first links were signed: links in mailboxes keep working)
UNSUBSCRIBE_SALT = "games.notifications.unsubscribe"


#: What an unsubscribe link switches off: every email, or the daily chat digest only.
ALL_MAIL, CHAT_DIGEST = "all", "chat"


def unsubscribe_token(user, scope: str = ALL_MAIL) -> str:
    """A signed one-click link's token: it switches off every email of ``user``, or with
    ``scope`` :data:`CHAT_DIGEST` their daily chat digest only."""
    data: dict[str, Any] = {"u": user.pk}
    if scope != ALL_MAIL:
        data["s"] = scope
    return signing.dumps(data, salt=UNSUBSCRIBE_SALT, compress=True)


def unsubscribe_target(token: str) -> tuple[Any, str]:
    """The user a signed unsubscribe token names and what it switches off, or ``(None, "")``
    if it was tampered with."""
    from accounts.models import User

    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None, ""
    if not isinstance(data, dict):
        return None, ""
    scope = data.get("s", ALL_MAIL)
    if scope not in (ALL_MAIL, CHAT_DIGEST):
        return None, ""
    return User.objects.filter(pk=data.get("u")).first(), scope


def user_from_token(token: str):
    """The user a signed unsubscribe token names, or ``None`` if it was tampered with."""
    return unsubscribe_target(token)[0]
