"""Push: once a change to a game commits, the event streams of its viewers are woken.

The write path's events (:mod:`games.core.events`) reach :mod:`games.live.subscribers`, which
calls :func:`game_changed` once the change commits: one Redis round trip (a script of
``PUBLISH``) tells every stream server:
on the game's channel, the new ``seq`` and ``version`` (the streams of that game read what
their viewer may see of it, through the same projection as ``/events/``: a message carries no
game content); on the channel of each user concerned (a decision of theirs appeared, the game
started or ended), which game and why. :func:`user_changed` wakes a user's streams so that they
check their access again (a token revoked, an account suspended).

A message only wakes streams: a lost one costs nothing but time (every stream checks the
database at each heartbeat anyway), and a publish that fails is logged, never raised: a move
never fails on Redis. Without ``REDIS_URL`` nothing is published, and streams look at the
database every ``STREAM_POLL_SECONDS`` instead (:mod:`games.live.streams`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable
from typing import Any

import orjson
from django.conf import settings
from django.db import transaction

from games.core import redis_clients

logger = logging.getLogger(__name__)

#: Every channel starts with it, then the number of the Redis database of ``REDIS_URL``
#: (:func:`prefix`): a stream server subscribes once to the pattern ``prefix()*``. Redis's
#: pub/sub knows no databases: two sites (or a test run and a site) on one Redis server with
#: databases of their own would otherwise hear each other's users.
PREFIX = "mascarade:push:"


@functools.lru_cache(maxsize=8)
def _prefix(url: str) -> str:
    import redis

    database = (redis.ConnectionPool.from_url(url).connection_kwargs.get("db") or 0) if url else 0
    return f"{PREFIX}{database}:"


def prefix() -> str:
    """The channels' prefix of this site: :data:`PREFIX` and its Redis database's number."""
    return _prefix(settings.REDIS_URL or "")

#: What a user's message says happened (``kind``): a decision of theirs appeared, one of their
#: games started or ended, they moved (a decision of theirs went), their access may have changed.
DECISION, STARTED, ENDED, MOVED, AUTH = "decision", "started", "ended", "moved", "auth"

#: Publishes each channel-message pair of its arguments: the messages of one change in one
#: command.
_PUBLISH = """
for i = 1, #ARGV, 2 do
  redis.call('PUBLISH', ARGV[i], ARGV[i + 1])
end
return 0
"""
_script: Any = None


def client():
    """The publishing Redis client (``None`` without ``REDIS_URL``:
    :func:`games.core.redis_clients.client`)."""
    if not settings.REDIS_URL:
        return None
    return redis_clients.client(settings.REDIS_URL, socket_timeout=0.5,
                                socket_connect_timeout=0.5, health_check_interval=30)


def enabled() -> bool:
    """Whether anything is published (``REDIS_URL`` set): without it, nothing is worth
    preparing for :func:`game_changed`."""
    return bool(settings.REDIS_URL)


def game_channel(game_id) -> str:
    return f"{prefix()}game:{game_id}"


def user_channel(user_id) -> str:
    return f"{prefix()}user:{user_id}"


def publish(messages: list[tuple[str, dict]]) -> bool:
    """Publish ``(channel, payload)`` pairs in one round trip; ``False`` (logged) if Redis did not
    take them."""
    global _script
    if not settings.REDIS_URL or not messages:
        return False
    try:
        redis_client = client()
        if _script is None:
            _script = redis_client.register_script(_PUBLISH)
        _script(args=[part for channel, payload in messages
                      for part in (channel, orjson.dumps(payload))], client=redis_client)
    except Exception:
        logger.warning("could not publish %d push messages; the streams will catch up at their "
                       "next heartbeat", len(messages), exc_info=True)
        return False
    return True


def game_event(game, kind: str) -> dict:
    """What a player's stream says of ``game``'s start or end (``kind``: :data:`STARTED`,
    :data:`ENDED`), besides its id and seq: all of it public to the table."""
    event = {"kind": game.kind, "status": game.status}
    if kind == ENDED:
        event["winners"] = list(game.winners or [])
    return event


def game_changed(game_id, seq: int, version: int, users: Iterable[tuple[int, str]] = (),
                 told: Iterable[tuple[int, dict]] = (),
                 events: dict[str, dict] | None = None) -> None:
    """Once committed (at once outside a transaction): wake the streams of ``game_id`` (now at
    ``seq`` and ``version``) and the streams of each ``(user id, kind)`` in ``users``; ``told``:
    ``(user id, decision)`` for each decision given to a player (``{}``, or what their stream
    sends of it: ``games.live.streams.UserStream``; on their own channel only); ``events``: the
    game's start or end (by kind, :data:`STARTED` or :data:`ENDED`) as :func:`game_event` tells
    it, sent with the wakes of that kind (their users are the game's players), so that their
    streams need not read the game."""
    if not settings.REDIS_URL:
        return
    game = str(game_id)
    messages = [(game_channel(game), {"game": game, "seq": seq, "version": version})]
    events = events or {}
    messages += [(user_channel(user), {"game": game, "seq": seq, "kind": kind,
                                       **({"event": events[kind]} if kind in events else {})})
                 for user, kind in dict.fromkeys(users)]
    messages += [(user_channel(user), {"game": game, "seq": seq, "kind": DECISION,
                                       **({"decision": decision} if decision else {})})
                 for user, decision in told]
    transaction.on_commit(lambda: publish(messages))


def chat_changed(game_id) -> None:
    """Once the transaction commits: the streams of ``game_id`` look at its chat again (a
    message written, or hidden)."""
    if not settings.REDIS_URL:
        return
    game = str(game_id)
    transaction.on_commit(lambda: publish([(game_channel(game), {"game": game, "chat": True})]))


def user_changed(user_id) -> None:
    """Once the transaction commits: the user's streams check their access again."""
    if not settings.REDIS_URL or user_id is None:
        return
    transaction.on_commit(lambda: publish([(user_channel(user_id), {"kind": AUTH})]))


# --------------------------------------------------------------------------------------------
# What changes a viewer's access: their streams check it again (connected in games.apps)


def token_deleted(sender, instance, **kwargs) -> None:
    """An API token revoked, expired or ended by a new password."""
    user_changed(instance.user_id)


def user_saved(sender, instance, **kwargs) -> None:
    """A user saved: suspended, banned, deactivated, a new password..."""
    user_changed(instance.pk)


def logged_out(sender, request, user, **kwargs) -> None:
    if user is not None:
        user_changed(user.pk)


def connect(user_model) -> None:
    from django.contrib.auth.signals import user_logged_out
    from django.db.models.signals import post_delete, post_save
    from knox.models import AuthToken

    post_delete.connect(token_deleted, sender=AuthToken, dispatch_uid="push-token-deleted")
    post_save.connect(user_saved, sender=user_model, dispatch_uid="push-user-saved")
    user_logged_out.connect(logged_out, dispatch_uid="push-logged-out")
