"""``Idempotency-Key``: the same key with the same request within 24 hours gets the first answer
again and does nothing more; with another request, :class:`IdempotencyConflict`.

The key is checked and stored inside the transaction of the write it guards (under the game's
lock for a move, the user's for a creation), so two requests with one key cannot both act: the
second waits for the first, then finds its answer; if they race past each other anyway, the
unique constraint refuses the second, which then answers as the first's stored answer says.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError
from django.utils import timezone

from games.core.errors import IdempotencyConflict
from games.models import IdempotencyKey

#: How long an Idempotency-Key answer is kept.
IDEMPOTENCY_TTL = dt.timedelta(hours=24)


@dataclass(frozen=True)
class Idempotency:
    """An ``Idempotency-Key`` and what it was sent with."""

    user_id: int
    key: str
    request_hash: str

    @staticmethod
    def hash_request(method: str, path: str, body: Any) -> str:
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(f"{method} {path}\n{canonical}".encode()).hexdigest()


@dataclass
class Outcome:
    """A write's answer: its body (a read model of the result); ``replayed`` when it is the
    first answer to the same key, given again; ``etag``: the ETag of the game the body shows,
    as its viewer's read of it would send it now (not kept with a stored answer)."""

    body: dict[str, Any]
    replayed: bool = False
    etag: str | None = None


def stored(idem: Idempotency | None) -> Outcome | None:
    """The first answer to this key if it was sent with the same request within 24 hours."""
    if idem is None:
        return None
    row = IdempotencyKey.objects.filter(user_id=idem.user_id, key=idem.key).first()
    if row is None:
        return None
    if row.created_at < timezone.now() - IDEMPOTENCY_TTL:
        row.delete()
        return None
    if row.request_hash != idem.request_hash:
        raise IdempotencyConflict()
    return Outcome(row.response, replayed=True)


def store(idem: Idempotency | None, outcome: Outcome) -> None:
    if idem is not None:
        IdempotencyKey.objects.create(user_id=idem.user_id, key=idem.key,
                                      request_hash=idem.request_hash, response=outcome.body)


def once(idem: Idempotency | None, work: Callable[[], Outcome]) -> Outcome:
    """Run ``work()`` (a transaction that checks and stores the key); if it lost a race on the
    key to another request, answer as that request's key says."""
    try:
        return work()
    except IntegrityError:
        if idem is None:
            raise
        first = stored(idem)
        if first is None:
            raise
        return first


def forget_old_keys(now: dt.datetime | None = None) -> int:
    """Stored Idempotency-Key answers are kept 24 hours."""
    now = now or timezone.now()
    deleted, _ = IdempotencyKey.objects.filter(created_at__lt=now - IDEMPOTENCY_TTL).delete()
    return deleted
