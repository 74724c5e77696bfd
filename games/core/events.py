"""What happened, as the write path records it, for the channels that subscribe to it.

The write path (:mod:`games.core.services`) publishes small event objects: a game started, new
decisions are awaited, a seat was marked absent, a game changed (a move, a table action, a
join), a game ended, a table's chat changed. It knows nothing of who listens: the notification
outbox (:mod:`games.notify`), the webhooks' outbox (:mod:`games.webhooks`), the live push
(:mod:`games.live`) and the bots' and deadlines' scheduling (:mod:`games.core.services.bots`)
subscribe to them in their apps' ``ready()``, as lichess's round module publishes on its bus and
knows neither push nor mail.

Two kinds of subscriber:

Subscribers are looked up by the event's exact class.

- **in the transaction** (the default): called at once, inside the transaction that published
  the event, with the game's row still locked. They write their outbox rows there, so that a
  message exists exactly when its cause was committed.
- **after the commit** (``after_commit=True``): called once the transaction commits
  (``transaction.on_commit``, ``robust``: a subscriber that fails is logged and the others still
  run), never if it rolls back. They wake streams and ask the worker for work; what they start
  must be safe to run twice or late.

Subscribers are called in the order they subscribed; a subscriber registered twice (an app's
``ready()`` run again by a test) is kept once.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

# --------------------------------------------------------------------------------------------
# The events


@dataclass(frozen=True)
class _GameAndSeats:
    game: Any
    seats: Sequence[Any]


@dataclass(frozen=True)
class GameStarted(_GameAndSeats):
    """A game's seats are all taken and it started (its first decisions are awaited)."""


@dataclass(frozen=True)
class DecisionsAwaited:
    """New decisions awaited, in one game or several written together (the sweep's burst of
    timeouts): ``games`` holds ``(game, rows, seats)``, ``rows`` the ``PendingDecision`` rows
    just written, with their keys (bots' included: a subscriber picks the humans'), so that a
    subscriber writes its rows for all of them at once."""

    games: Sequence[tuple[Any, Sequence[Any], Sequence[Any]]]


@dataclass(frozen=True)
class SeatAbsent:
    """A player was marked absent (timeouts in a row, or a moderator)."""

    game: Any
    seat: Any


@dataclass(frozen=True)
class GameEnded(_GameAndSeats):
    """A game finished by its rules (not aborted)."""


@dataclass(frozen=True)
class GameChanged:
    """A change to a game: moves, table actions, a join or a leave. Published once per game and
    transaction, when the write path is done with it; its after-commit subscribers see the game
    as committed.

    ``pending``: the decisions awaited now; ``created``: those this transaction gave (their
    clock starts now); ``moved``: those whose deadline a table action moved; ``state``: the
    rules' state in hand (``None`` when the write did not load it); ``started``/``ended``: the
    game started or ended in this transaction; ``movers``: the positions of the players whose
    move was recorded; ``bots_may_play``: a bot may have a decision to take now."""

    game: Any
    seats: Sequence[Any] = ()
    pending: Sequence[Any] = ()
    created: Sequence[Any] = ()
    moved: Sequence[Any] = ()
    state: Any = None
    started: bool = False
    ended: bool = False
    movers: frozenset[int] = frozenset()
    bots_may_play: bool = False
    now: dt.datetime | None = None


@dataclass(frozen=True)
class PlayersInvited:
    """Players were asked to a new table (``invitations``: their ``Invitation`` rows), by
    ``by`` (a finished game's player asking to play it again)."""

    game: Any
    invitations: Sequence[Any]
    by: Any


@dataclass(frozen=True)
class ChatChanged:
    """A table's chat changed: a message written, hidden or shown again."""

    game_id: Any


@dataclass(frozen=True)
class MailHandled:
    """A player's mail to a game was handled (``row``: its ``InboundMessage``): it is answered."""

    row: Any


@dataclass(frozen=True)
class WebhookDisabled:
    """A user's webhook endpoint was turned off after failing for long: its owner is told."""

    endpoint: Any


# --------------------------------------------------------------------------------------------
# The bus


@dataclass
class _Subscribers:
    now: list[Callable[[Any], None]] = field(default_factory=list)
    after_commit: list[Callable[[Any], None]] = field(default_factory=list)


_subscribers: dict[type, _Subscribers] = {}


def subscribe(*event_types: type, after_commit: bool = False) -> Callable:
    """A decorator: call the function with each event of these types, in the publishing
    transaction, or once it commits (``after_commit``)."""

    def register(handler: Callable[[Any], None]) -> Callable[[Any], None]:
        for event_type in event_types:
            found = _subscribers.setdefault(event_type, _Subscribers())
            handlers = found.after_commit if after_commit else found.now
            if handler not in handlers:
                handlers.append(handler)
        return handler

    return register


def publish(event: Any, *, using: str | None = None) -> None:
    """Tell the subscribers of ``event``'s type: those of the transaction now, the others once it
    commits (at once outside a transaction)."""
    found = _subscribers.get(type(event))
    if found is None:
        return
    for handler in found.now:
        handler(event)
    for handler in found.after_commit:
        transaction.on_commit(_call(handler, event), using=using, robust=True)


def _call(handler: Callable[[Any], None], event: Any) -> Callable[[], None]:
    """``handler(event)`` later, named after the handler (Django logs a robust callback's
    failure by its name)."""

    def call() -> None:
        handler(event)

    call.__qualname__ = f"{handler.__qualname__}({type(event).__name__})"
    return call


def subscribers(event_type: type) -> list[Callable[[Any], None]]:
    """Every subscriber of ``event_type`` (in the transaction first), for tests and docs."""
    found = _subscribers.get(event_type, _Subscribers())
    return [*found.now, *found.after_commit]
