"""The daily chat digest: "new messages at your tables", once a day (Celery beat), for each
user who wants it (``notify_chat_digest``; its unsubscribe link switches off the digest only).
No other mail carries the table chat."""

from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Exists, Max, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from games.core import dispatch, selectors
from games.models import ChatDigestMark, ChatMessage, Notification, Seat
from games.notify.outbox import Kind

logger = logging.getLogger(__name__)

#: Messages of one game a chat digest quotes (the latest; the others are counted); message ids
#: of one game it keeps.
DIGEST_QUOTED = 10


DIGEST_KEPT = 200


def _digest_seats(now: dt.datetime):
    """The seats whose user wants the chat digest (email on, digest on, an address, not
    blocked, the game not muted) and whose game has messages since the user's digest mark
    (and since they sat down) written by someone else."""
    mark = Subquery(ChatDigestMark.objects.filter(user_id=OuterRef("user_id"),
                                                  game_id=OuterRef("game_id"))
                    .values("last_message_id")[:1])
    newer = (ChatMessage.objects.filter(game_id=OuterRef("game_id"), pk__gt=OuterRef("mark"),
                                        created_at__gte=OuterRef("joined_at"))
             .exclude(author_id=OuterRef("user_id")))
    return (Seat.objects.filter(user__isnull=False, muted=False, user__is_active=True,
                                user__notify_email=True, user__notify_chat_digest=True,
                                user__banned=False, user__email__isnull=False)
            .filter(Q(user__suspended_until__isnull=True) | Q(user__suspended_until__lte=now))
            .annotate(mark=Coalesce(mark, Value(0)))
            .filter(Exists(newer))
            .select_related("user", "game")
            .order_by("user_id", "game_id"))


def queue_chat_digests(now: dt.datetime | None = None) -> int:
    """The daily "new messages at your table" mail (Celery beat, once a day): for each user who
    wants it, the messages written at their tables since the last digest, by others, neither
    hidden by a moderator nor by a user they muted. Returns how many digests were queued.

    Safe to run twice, late or at once: each user's digest of a day (UTC) has one dedupe key,
    and their marks (how far the digest went in each game, :class:`ChatDigestMark`) move on in
    the same transaction as the digest is written; a second run of the day writes nothing and
    leaves the marks where they are (what came meanwhile goes in the next day's digest), a
    late run takes everything since the marks."""
    now = now or timezone.now()
    day = now.date().isoformat()
    by_user: dict[int, list[Seat]] = defaultdict(list)
    for seat in _digest_seats(now):
        by_user[seat.user_id].append(seat)
    queued = 0
    for user_id, seats in by_user.items():
        user = seats[0].user
        key = f"chat_digest:{user_id}:{day}"
        try:
            with transaction.atomic():
                if Notification.objects.filter(dedupe_key=key).exists():
                    continue
                games: dict[str, dict[str, Any]] = {}
                marks = []
                for seat in seats:
                    upto = ChatMessage.objects.filter(game_id=seat.game_id).aggregate(
                        last=Max("id"))["last"] or 0
                    ids = list(selectors.chat_messages(seat.game, user)
                               .filter(pk__gt=seat.mark, pk__lte=upto,
                                       created_at__gte=seat.joined_at)
                               .exclude(author_id=user_id).values_list("pk", flat=True))
                    if ids:
                        games[str(seat.game_id)] = {"count": len(ids),
                                                    "ids": ids[-DIGEST_KEPT:]}
                    marks.append(ChatDigestMark(user_id=user_id, game_id=seat.game_id,
                                                last_message_id=upto))
                if games:
                    Notification.objects.create(user_id=user_id, kind=Kind.CHAT_DIGEST,
                                                dedupe_key=key,
                                                next_attempt_at=timezone.now(),
                                                context={"day": day, "games": games})
                    dispatch.deliver([key])
                    queued += 1
                ChatDigestMark.objects.bulk_create(
                    marks, update_conflicts=True, unique_fields=["user", "game"],
                    update_fields=["last_message_id", "updated_at"])
        except IntegrityError:  # a concurrent run wrote this digest: nothing more to do
            logger.info("chat digest %s written by another run", key)
    return queued
