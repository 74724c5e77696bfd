"""Event streams (Server-Sent Events): what a viewer's streams send, and when.

Two streams, both read through the same projection as every other path:

- a game's stream (:class:`GameStream`): for each move after the cursor, the viewer's events of
  that move exactly as ``GET /events/`` gives them (``event: move``, ``id:`` the move's seq, the
  data ``{"seq", "events"}``), then the game's position (``event: game``, ``{"seq", "version",
  "status"}``, ``id:`` the game's seq): so ``Last-Event-ID`` resumes with no gap and no
  duplicate. Once the game is over and everything is sent: ``event: end``, and the stream ends.
  Besides: ``event: chat`` (``{"version"}``) when the table's chat reads differently (a message,
  a hide), ``event: you`` (``{"awaiting"}``) when the number of games awaiting the viewer
  changed: what the table's page shows besides the game (no content: the page reads it).
- a user's stream (:class:`UserStream`): ``event: decision`` for each decision awaiting the
  user (``{"game", "kind", "seq", "seat", "decision", "deadline", "legal_moves"}``: enough to
  answer with one ``POST /moves/``), every decision awaiting them when it opens first, then each
  new one; ``event: game_started`` and ``event: game_ended`` for their games.

A stream sleeps until a message of :mod:`games.live.push` wakes it (through the process's
:class:`Hub`, one Redis connection subscribed to every push channel). Idle, it sends a comment
line every ``STREAM_HEARTBEAT_SECONDS`` (proxies close a silent connection), and makes a full
check (the viewer's access, and everything read again from the database) every
``STREAM_CHECK_SECONDS``, its first one at a random moment within that interval, so that
streams opened together do not check together (:class:`Pace`): a lost push message costs up to
that long, never an event. A revocation is not waited for: its push message
(:func:`games.live.push.user_changed`) makes the stream check the viewer's access at once; and
when the hub loses Redis, every stream makes a full check as it reconnects. Without Redis, a
stream looks at the database every ``STREAM_POLL_SECONDS``, and checks the viewer's access at
each heartbeat. Each check is a short synchronous step (a few queries) run by
:func:`in_db_threads`: on a pool of ``STREAM_DB_THREADS`` threads, so that the process's
streams share that many database connections, however many they are (under ASGI, Django gives
each request a thread of its own for its synchronous work: a stream would hold that thread's
connection as long as it lasts). The wait itself holds no thread, so one process holds
thousands of idle streams.

A viewer who lost their access gets ``event: error`` (``{"code", "detail"}``) and the stream
ends.

Under WSGI (``make run``'s development server, or a misrouted request), :func:`sync_stream`
serves the same steps by polling, for at most ``STREAM_WSGI_HOLD_SECONDS``, then ends: the
browser's ``EventSource`` comes back (``retry:``) with ``Last-Event-ID``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import threading
import time
import weakref
from collections import OrderedDict, defaultdict
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import orjson
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connection
from django.db.models import F, Q

from games.core import selectors
from games.engine import SPECTATOR
from games.live import presence, push
from games.models import Game, PendingDecision, Seat

logger = logging.getLogger(__name__)

OVER = (Game.Status.FINISHED, Game.Status.ABORTED)
UNDER_WAY = (Game.Status.ACTIVE, Game.Status.PAUSED)

#: What an access check answers when the viewer lost their access: ``(code, detail)``.
Refusal = tuple[str, str]


def sse(event: str | None = None, data: Any = None, id: Any = None) -> bytes:
    """One Server-Sent Events message."""
    lines = []
    if id is not None:
        lines.append(f"id: {id}")
    if event is not None:
        lines.append(f"event: {event}")
    lines.append("data: " + orjson.dumps(data).decode())
    return ("\n".join(lines) + "\n\n").encode()


def comment(text: str) -> bytes:
    return f": {text}\n\n".encode()


def retry_line(ms: int) -> bytes:
    return f"retry: {ms}\n\n".encode()


@dataclass
class Viewer:
    """Who reads a stream: ``user`` (anonymous for a spectator without an account) and
    ``check``, which says again whether they may still read (``None``) or why not, and sets
    ``user`` to the account as it reads now (what it may see follows: a staff member demoted
    no longer sees the private games they have no seat in)."""

    user: Any
    check: Callable[[], Refusal | None] = lambda: None


@dataclass
class Step:
    messages: list[bytes] = field(default_factory=list)
    done: bool = False


class GameStream:
    """The state of one viewer's stream of one game: its cursor (the last seq sent), and what
    it last told of the table's chat and of the viewer's games awaiting them."""

    channels: tuple[str, ...]

    def __init__(self, viewer: Viewer, game_id, after: int | None):
        self.viewer = viewer
        self.game_id = game_id
        self.key = str(game_id)
        self.cursor = after
        self.version: int | None = None
        self.chat: str | None = None
        self.awaiting: int | None = None
        self.user_id = viewer.user.pk if viewer.user.is_authenticated else None
        self.channels = (push.game_channel(game_id),) + (
            (push.user_channel(self.user_id),) if self.user_id else ())
        #: Whether the viewer has a seat at the game, as the stream last read its seats: a
        #: player's table is recorded open (:mod:`games.live.presence`) at each heartbeat.
        self.seated = False

    def step(self, wakes: list[dict] | None, recheck: bool) -> Step:
        """Send what the viewer has not seen yet. ``wakes``: the push messages since the last
        step (``None``: a full check); ``recheck``: check the viewer's access first."""
        if recheck:
            refusal = self.viewer.check()
            if refusal:
                return Step([sse("error", {"code": refusal[0], "detail": refusal[1]})], True)
        full = wakes is None
        wakes = wakes or []
        ours = [wake for wake in wakes if wake.get("game") == self.key]
        # (with ``recheck``, the game is read again whether or not it moved: whether the viewer
        # may still see it, as the account reads now, a staff member demoted say)
        moved = full or recheck or self.version is None or any(
            "version" in wake and wake["version"] != self.version for wake in ours)
        # (the version a wake announced: a read of the game at it, or later, shared with the
        # game's other streams, does; a full check reads the game itself)
        told = None if full or recheck else max(
            (wake["version"] for wake in ours if "version" in wake), default=None)
        chat = full or any("chat" in wake for wake in ours)
        mine = self.user_id is not None and (full or any(
            wake.get("kind") in (push.DECISION, push.STARTED, push.ENDED, push.MOVED)
            for wake in wakes))
        out: list[bytes] = []
        if moved:
            step = self._moves(access=recheck, told=told)
            if step.done:
                return step
            out += step.messages
        if recheck and self.seated:
            # The player has the table open (at the stream's start, at each full check, and
            # between them at each heartbeat: :meth:`beat`): no push notification about this
            # game meanwhile (games.live.presence).
            presence.watching(self.user_id, self.game_id)
        if chat:
            version = selectors.chat_version(Game(pk=self.game_id), self.viewer.user)
            if self.chat is not None and version != self.chat:
                out.append(sse("chat", {"version": version}))
            self.chat = version
        if mine:
            count = selectors.your_turn_count(self.viewer.user)
            if self.awaiting is not None and count != self.awaiting:
                out.append(sse("you", {"awaiting": count}))
            self.awaiting = count
        return Step(out)

    def beat(self) -> Step:
        """A heartbeat between two full checks, for a player (:attr:`seated`): their table is
        still open (one statement)."""
        presence.watching(self.user_id, self.game_id)
        return Step()

    def _moves(self, access: bool = False, told: int | None = None) -> Step:
        """The moves after the cursor, then the game's position (``end`` once it is over);
        with ``access``, whether the viewer may still see the game is read even if it did not
        move. ``told``: the version a wake announced (the game is read only if the process's
        streams have not read it at that version yet: :data:`shared`)."""
        gone = Step([sse("error", {"code": "not_found", "detail": "No such game."})], True)
        game = shared.game(self.game_id, told)
        if game is None:
            return gone
        if self.cursor is None or self.cursor > game.seq:
            self.cursor = game.seq
        if game.version == self.version and game.seq == self.cursor and game.status not in OVER:
            if access and game.private and not selectors.can_see(
                    game, selectors.seats_of(game), self.viewer.user):
                return gone
            return Step()
        loaded = shared.loaded(game)
        if not selectors.can_see(game, loaded.seats, self.viewer.user):
            return gone
        player = loaded.player_of(self.viewer.user)
        self.seated = player is not None
        out = shared.moves(loaded, SPECTATOR if player is None else player, self.cursor)
        self.cursor = game.seq
        self.version = game.version
        out = [*out, sse("game", {"seq": game.seq, "version": game.version,
                                  "status": game.status}, id=game.seq)]
        if game.status in OVER:
            out.append(sse("end", {"seq": game.seq, "status": game.status}, id=game.seq))
            return Step(out, True)
        return Step(out)


class SharedReads:
    """What the game streams of the process read once for all the viewers of a game: the game's
    row as a wake announced it, its seats and state at that version, and the messages of its
    moves after a cursor for each viewer (a player's index, or the spectators: what the
    projection takes, :func:`games.core.selectors.events_payload`). A move seen by thousands
    of streams is read and projected once per kind of viewer, not once per stream; each
    stream still checks its viewer's access against the seats. Only the newest version of
    each game is kept, for the :data:`GAMES` games read last."""

    GAMES = 1000
    #: Cursors times viewers kept per game's version.
    PAGES = 256

    def __init__(self):
        self.lock = threading.Lock()
        self.games: OrderedDict[str, dict] = OrderedDict()

    def _entry(self, game: Game) -> dict:
        """The entry of ``game``'s version (made anew if the game has moved on)."""
        key = str(game.pk)
        with self.lock:
            entry = self.games.get(key)
            if entry is None or entry["game"].version < game.version:
                entry = {"game": game, "loaded": None, "pages": {}}
                self.games[key] = entry
            self.games.move_to_end(key)
            while len(self.games) > self.GAMES:
                self.games.popitem(last=False)
            return entry

    def game(self, game_id, told: int | None) -> Game | None:
        """The game's row: the one read last if a wake told ``told`` and it is at that version
        or later, else read (and kept for the other streams)."""
        if told is not None:
            with self.lock:
                entry = self.games.get(str(game_id))
            if entry is not None and entry["game"].version >= told:
                return entry["game"]
        game = selectors.find_game(game_id)
        if game is not None:
            self._entry(game)
        return game

    def loaded(self, game: Game) -> selectors.Loaded:
        """``game``'s seats and state at its version (whoever the viewer: checked by each
        stream)."""
        entry = self._entry(game)
        if entry["game"].version != game.version:  # (a newer version was read meanwhile)
            entry = {"game": game, "loaded": None, "pages": {}}
        loaded = entry["loaded"]
        if loaded is None or loaded.game.version != game.version:
            loaded = selectors.complete(selectors.Loaded(game=game,
                                                         seats=selectors.seats_of(game)),
                                        with_pending=False)
            entry["loaded"] = loaded
        return loaded

    def moves(self, loaded: selectors.Loaded, viewer, cursor: int) -> list[bytes]:
        """``event: move`` for each move after ``cursor`` as ``viewer`` sees it."""
        entry = self._entry(loaded.game)
        key = (cursor, viewer)
        found = entry["pages"].get(key) if entry["game"].version == loaded.game.version else None
        if found is not None:
            return found
        out = []
        after = cursor
        while after < loaded.game.seq:
            page = selectors.events_payload(loaded, None, after, viewer=viewer)
            by_seq: dict[int, list[dict]] = defaultdict(list)
            for event in page["results"]:
                by_seq[event["seq"]].append(event)
            for seq, events in by_seq.items():
                out.append(sse("move", {"seq": seq, "events": events}, id=seq))
            if page["next_after"] <= after:
                break
            after = page["next_after"]
        with self.lock:
            if len(entry["pages"]) >= self.PAGES:
                entry["pages"].clear()
            entry["pages"][key] = out
        return out

    def clear(self) -> None:
        with self.lock:
            self.games.clear()


#: The process's shared reads of the games its streams watch.
shared = SharedReads()


class UserStream:
    """The state of one user's stream of their decisions: the decisions already sent."""

    def __init__(self, viewer: Viewer):
        self.viewer = viewer
        self.channels = (push.user_channel(viewer.user.pk),)
        #: (game id, player, seq of the decision, the game's seq when it was sent) of the
        #: decisions sent and still awaited: one still awaited when the game has moved on (others
        #: answered theirs) is sent again, with the seq an answer must now name.
        self.sent: set[tuple[str, int, int, int]] = set()
        #: The status of each of the user's games as the stream last told or read it (``None``
        #: before the first full check): a full check tells the starts and ends it finds, those
        #: whose push message was lost and every one when there is no push (under WSGI, or
        #: without Redis), and a start or end already told is not told again.
        self.games: dict[str, str] | None = None

    @property
    def user(self):
        """The viewer's account, as their last access check read it."""
        return self.viewer.user

    def step(self, wakes: list[dict] | None, recheck: bool) -> Step:
        if recheck:
            refusal = self.viewer.check()
            if refusal:
                return Step([sse("error", {"code": refusal[0], "detail": refusal[1]})], True)
        out: list[bytes] = []
        rows = PendingDecision.objects.filter(user_id=self.user.pk, bot=False,
                                              game__status=Game.Status.ACTIVE)
        if wakes is None:
            out += self._games_read()
        else:
            games = set()
            for wake in wakes:
                kind = wake.get("kind")
                if kind in (push.STARTED, push.ENDED) and "event" in wake:
                    out += self._game_told(wake)
                elif kind in (push.STARTED, push.ENDED):
                    out += self._game_event(wake["game"], kind)
                elif kind == push.DECISION and "decision" in wake:
                    out += self._told(wake)
                elif kind == push.DECISION:
                    games.add(wake["game"])
            if not games:
                return Step(out)
            rows = rows.filter(game_id__in=sorted(games))
        found = list(rows.annotate(game_seq=F("game__seq"))
                     .order_by("deadline", "game_id", "player"))
        keys = {(str(row.game_id), row.player, row.seq, row.game_seq) for row in found}
        if wakes is None:
            self.sent &= keys
        new: dict[str, list[PendingDecision]] = defaultdict(list)
        for row in found:
            if (str(row.game_id), row.player, row.seq, row.game_seq) not in self.sent:
                new[str(row.game_id)].append(row)
        for game_id, game_rows in new.items():
            out += self._decisions(game_id, game_rows)
        return Step(out)

    def quick(self, wakes: list[dict]) -> Step | None:
        """The step when none of ``wakes`` needs the database (a decision told with its legal
        moves, a game's start or end told with what the stream says of it, a move of this
        user's, which changes nothing here), run where it is called (the event loop: no thread,
        no connection check); ``None`` when one of them does."""
        if not all(wake.get("kind") == push.MOVED
                   or (wake.get("kind") == push.DECISION and "decision" in wake)
                   or (wake.get("kind") in (push.STARTED, push.ENDED) and "event" in wake)
                   for wake in wakes):
            return None
        out: list[bytes] = []
        for wake in wakes:
            if wake.get("kind") == push.DECISION:
                out += self._told(wake)
            elif wake.get("kind") in (push.STARTED, push.ENDED):
                out += self._game_told(wake)
        return Step(out)

    def _told(self, wake: dict) -> list[bytes]:
        """A decision as the write path told it (its legal moves from the state it had in
        hand, on this user's own channel): sent as it is, no read."""
        told = wake["decision"]
        key = (wake["game"], told["player"], told["since"], wake["seq"])
        if key in self.sent:
            return []
        self.sent.add(key)
        return [sse("decision", {
            "game": wake["game"], "kind": told["kind"], "seq": wake["seq"], "seat": told["seat"],
            "decision": told["decision"], "deadline": told["deadline"],
            "legal_moves": told["legal_moves"]})]

    def _decisions(self, game_id: str, rows: list[PendingDecision]) -> list[bytes]:
        game = selectors.find_game(game_id)
        loaded = (selectors.load_for_viewer(game, self.user, with_pending=False)
                  if game is not None else None)
        if loaded is None or game.status != Game.Status.ACTIVE:
            return []
        player = loaded.player_of(self.user)
        legal = selectors.legal_moves_for(loaded, player)
        out = []
        for row in rows:
            if row.player != player:
                continue
            self.sent.add((game_id, row.player, row.seq, game.seq))
            out.append(sse("decision", {
                "game": game_id, "kind": game.kind, "seq": game.seq, "seat": row.seat,
                "decision": row.decision, "deadline": selectors.iso(row.deadline),
                "legal_moves": legal}))
        return out

    def _game_event(self, game_id: str, kind: str) -> list[bytes]:
        """A game's start or end told without what the stream says of it: read."""
        game = selectors.find_game(game_id)
        if game is None:
            return []
        seats = selectors.seats_of(game)
        if not any(seat.user_id == self.user.pk for seat in seats):
            return []
        return self._game_news(kind, game_id, game.seq, push.game_event(game, kind))

    def _game_told(self, wake: dict) -> list[bytes]:
        """A game's start or end as the write path told it (on this user's own channel: the
        write path wakes the game's players only), sent as it is, no read."""
        return self._game_news(wake["kind"], wake["game"], wake["seq"], wake["event"])

    def _game_news(self, kind: str, game_id: str, seq: int, event: dict) -> list[bytes]:
        """``game_started`` or ``game_ended``, unless the stream told it already (a full check
        found it before its push message came)."""
        known = self.games.get(game_id) if self.games is not None else None
        if known in OVER or (kind == push.STARTED and known not in (None, Game.Status.OPEN)):
            return []
        if self.games is not None:
            self.games[game_id] = event["status"]
        return [_game_sse(kind, game_id, seq, event)]

    def _games_read(self) -> list[bytes]:
        """The full check's part for starts and ends: the user's games not over, and those the
        stream knew (one query). A game that left ``open`` and has a start (or that the user was
        seated in since the last check, already under way) started; one that is now over
        ended. The first check only takes note: what happened before the stream opened is in
        ``GET /me/games/``."""
        known = self.games or {}
        found = {str(pk): row for pk, *row in (
            Game.objects.filter(pk__in=Seat.objects.filter(user_id=self.user.pk)
                                .values("game_id"))
            .filter(Q(status__in=(Game.Status.OPEN, *UNDER_WAY)) | Q(pk__in=list(known)))
            .values_list("pk", "status", "started_at", "seq", "kind", "winners"))}
        first, self.games = self.games is None, {
            # (a game read over twice is forgotten: its push message, if any, came long ago)
            game_id: row[0] for game_id, row in found.items()
            if not (row[0] in OVER and known.get(game_id) in OVER)}
        if first:
            return []
        out: list[bytes] = []
        for game_id, (status, started_at, seq, kind, winners) in found.items():
            before = known.get(game_id)
            if before in OVER:
                continue
            if before in (None, Game.Status.OPEN) and started_at is not None:
                out.append(_game_sse(push.STARTED, game_id, seq, {"kind": kind,
                                                                  "status": status}))
            if status in OVER:
                out.append(_game_sse(push.ENDED, game_id, seq, {
                    "kind": kind, "status": status, "winners": list(winners or [])}))
        return out


def _game_sse(kind: str, game_id: str, seq: int, event: dict) -> bytes:
    return sse("game_started" if kind == push.STARTED else "game_ended",
               {"game": game_id, "kind": event["kind"], "seq": seq, "status": event["status"],
                **({"winners": event["winners"]} if "winners" in event else {})})


# --------------------------------------------------------------------------------------------
# The process's hub: one Redis connection for every stream of the process


#: The most messages a stream's mailbox keeps between two of its steps.
MAILBOX_MAX = 500


class Listener:
    """A stream's mailbox in the hub: the push messages of its channels since its last wait."""

    def __init__(self, channels: tuple[str, ...]):
        self.channels = channels
        self.items: list[dict] = []
        self.reset = False
        self.event = asyncio.Event()

    def put(self, payload: dict) -> None:
        if len(self.items) >= MAILBOX_MAX:
            # A client that reads nothing (its stream stuck on a send) keeps no unbounded
            # backlog: the messages are dropped for a full check, which reads what they said.
            self.items = []
            self.reset = True
        else:
            self.items.append(payload)
        self.event.set()

    def wake_fully(self) -> None:
        self.reset = True
        self.event.set()

    async def wait(self, timeout: float) -> list[dict] | None:
        """The messages that came, waiting for one for at most ``timeout`` seconds (``[]``:
        none came); ``None`` when the hub asks for a full check (it reconnected, or the
        mailbox overflowed)."""
        if not self.event.is_set():
            try:
                await asyncio.wait_for(self.event.wait(), timeout)
            except TimeoutError:
                return []
        self.event.clear()
        items, self.items = self.items, []
        if self.reset:
            self.reset = False
            return None
        return items


class Hub:
    """Subscribed once to every push channel (``PSUBSCRIBE``), it hands each message to the
    listeners of its channel; on a lost connection it reconnects and wakes every listener for a
    full check (so nothing published meanwhile is missed)."""

    def __init__(self, url: str):
        self.url = url
        self.listeners: dict[str, set[Listener]] = defaultdict(set)
        self.task: asyncio.Task | None = None
        self.connected = False

    def listen(self, channels: tuple[str, ...]) -> Listener:
        listener = Listener(channels)
        for channel in channels:
            self.listeners[channel].add(listener)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())
        return listener

    def drop(self, listener: Listener) -> None:
        for channel in listener.channels:
            found = self.listeners.get(channel)
            if found is not None:
                found.discard(listener)
                if not found:
                    del self.listeners[channel]

    def count(self) -> int:
        return len({id(item) for found in self.listeners.values() for item in found})

    def _wake_all(self) -> None:
        for found in self.listeners.values():
            for listener in found:
                listener.wake_fully()

    async def _run(self) -> None:
        import redis.asyncio as aioredis

        while True:
            connection = None
            try:
                connection = aioredis.Redis.from_url(self.url, health_check_interval=30)
                pubsub = connection.pubsub()
                await pubsub.psubscribe(push.prefix() + "*")
                self.connected = True
                self._wake_all()
                async for message in pubsub.listen():
                    if message.get("type") != "pmessage":
                        continue
                    channel = message["channel"]
                    if isinstance(channel, bytes):
                        channel = channel.decode()
                    found = self.listeners.get(channel)
                    if not found:
                        continue
                    payload = orjson.loads(message["data"])
                    for listener in tuple(found):
                        listener.put(payload)
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("push hub: lost Redis, reconnecting in 1 s", exc_info=True)
            finally:
                self.connected = False
                if connection is not None:
                    with _quietly():
                        await connection.aclose()
            self._wake_all()
            await asyncio.sleep(1.0)


class _quietly:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return exc[0] is not None and not issubclass(exc[0], asyncio.CancelledError)


_hubs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def hub_connected() -> bool:
    """Whether a hub of this process is subscribed to the push channels."""
    return any(found.connected for found in list(_hubs.values()))


def hub() -> Hub | None:
    """This event loop's hub (``None`` without Redis: the streams poll)."""
    if not settings.REDIS_URL:
        return None
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub(settings.REDIS_URL)
    return found


# --------------------------------------------------------------------------------------------
# The loops

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def in_db_threads(func: Callable) -> Callable:
    """``func`` made awaitable, run on the streams' database threads (``STREAM_DB_THREADS``:
    each holds one connection), its thread's connection closed first if it is unusable or too
    old: Django's ``close_old_connections``, which its handlers run as a request starts and
    ends, and these threads serve no request. With ``CONN_HEALTH_CHECKS`` (the settings', on
    PostgreSQL) the connection is then tested before its first query: one cut under the
    process (the database restarted) fails no read after it."""
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(
                    max_workers=int(getattr(settings, "STREAM_DB_THREADS", 4)),
                    thread_name_prefix="stream-db")

    @functools.wraps(func)
    def checked(*args, **kwargs):
        if not connection.in_atomic_block:  # (never inside a transaction: a test's)
            close_old_connections()
        return func(*args, **kwargs)

    return sync_to_async(checked, thread_sensitive=False, executor=_pool)


def _guarded(step: Callable[..., Step]):
    """``step`` with the database connection checked first (a long stream outlives
    connections: Django's own check, as at the start of a request), and any failure ending the
    stream (logged) instead of breaking it in the middle of a message: the client comes back
    with ``Last-Event-ID``."""

    def run(*args) -> Step:
        try:
            if not connection.in_atomic_block:  # (never inside a transaction: a test's)
                close_old_connections()
            return step(*args)
        except Exception:
            logger.exception("a stream's step failed; the stream ends (the client comes back)")
            return Step([], True)

    return run


def _seconds(name: str, default: float) -> float:
    return float(getattr(settings, name, default))


class Pace:
    """When a stream woken through Redis sends its heartbeat (a comment, every ``heartbeat``
    seconds: proxies close a silent connection) and makes its periodic full check (every
    ``check`` seconds: what a lost push message costs at most), however often it is woken
    meanwhile. The first check comes ``phase`` seconds after the stream opened (:meth:`start`
    draws it within the interval): streams opened together, a server restarted and its clients
    back at once, do not all check in the same second. The other full checks (the hub
    reconnected) do not move it."""

    def __init__(self, heartbeat: float, check: float, now: float, phase: float):
        self.heartbeat = heartbeat
        self.check = check
        self.beat_at = now + heartbeat
        self.check_at = now + phase

    @classmethod
    def start(cls, heartbeat: float, check: float, now: float,
              rng: random.Random | None = None) -> Pace:
        return cls(heartbeat, check, now, (rng or random).uniform(0.0, check))

    def next_at(self) -> float:
        """When the next of the two is due."""
        return min(self.beat_at, self.check_at)

    def due(self, now: float) -> tuple[bool, bool]:
        """Whether the heartbeat, and whether the full check, are due at ``now``; each one due
        is due again its interval later."""
        beat, check = now >= self.beat_at, now >= self.check_at
        if beat:
            self.beat_at = now + self.heartbeat
        if check:
            self.check_at = now + self.check
        return beat, check


def async_stream(stream: GameStream | UserStream) -> AsyncIterator[bytes]:
    """The stream under ASGI: woken through the process's hub (:func:`_pushed`), or without
    Redis looking at the database (:func:`_polled`)."""
    the_hub = hub()
    return _pushed(stream, the_hub) if the_hub is not None else _polled(stream)


async def _pushed(stream: GameStream | UserStream, the_hub: Hub) -> AsyncIterator[bytes]:
    """Steps when woken (access checked again when a push message says the account changed),
    a heartbeat and a full check at their :class:`Pace`."""
    pace = Pace.start(_seconds("STREAM_HEARTBEAT_SECONDS", 15.0),
                      _seconds("STREAM_CHECK_SECONDS", 60.0), time.monotonic())
    listener = the_hub.listen(stream.channels)
    step = in_db_threads(_guarded(stream.step))
    beat = in_db_threads(_guarded(stream.beat)) if isinstance(stream, GameStream) else None
    # (a step that needs no database runs on the loop itself)
    quick = getattr(stream, "quick", None)
    try:
        yield retry_line(int(_seconds("STREAM_RETRY_SECONDS", 3.0) * 1000))
        wakes: list[dict] | None = None  # (``None``: a full check, the first one now)
        recheck = True
        while True:
            result = quick(wakes) if quick is not None and wakes and not recheck else None
            if result is None:
                result = await step(wakes, recheck)
            for message in result.messages:
                yield message
            if result.done:
                return
            while True:
                wakes = await listener.wait(max(pace.next_at() - time.monotonic(), 0.0))
                # (a wait timed out is the heartbeat or the check, even a hair early: asyncio
                # runs a timer up to its clock's resolution before its time)
                now = max(time.monotonic(), pace.next_at()) if wakes == [] else time.monotonic()
                beat_due, check_due = pace.due(now)
                if beat_due:
                    yield comment("heartbeat")
                    if beat is not None and stream.seated and not check_due:
                        result = await beat()
                        if result.done:
                            return
                if check_due:
                    wakes = None  # (a full check reads all that the wakes in hand told)
                if wakes != []:
                    break
            recheck = wakes is None or any(wake.get("kind") == push.AUTH for wake in wakes)
    finally:
        the_hub.drop(listener)


async def _polled(stream: GameStream | UserStream) -> AsyncIterator[bytes]:
    """Without Redis: a step every ``STREAM_POLL_SECONDS``; the viewer's access checked again,
    with a heartbeat, every ``STREAM_HEARTBEAT_SECONDS``."""
    heartbeat = _seconds("STREAM_HEARTBEAT_SECONDS", 15.0)
    poll = _seconds("STREAM_POLL_SECONDS", 1.0)
    step = in_db_threads(_guarded(stream.step))
    yield retry_line(int(_seconds("STREAM_RETRY_SECONDS", 3.0) * 1000))
    last_check = time.monotonic()
    recheck = True
    while True:
        result = await step(None, recheck)
        for message in result.messages:
            yield message
        if result.done:
            return
        await asyncio.sleep(poll)
        recheck = time.monotonic() - last_check >= heartbeat
        if recheck:
            last_check = time.monotonic()
            yield comment("heartbeat")


def sync_stream(stream: GameStream | UserStream) -> Iterator[bytes]:
    """The stream under WSGI: polls the database for at most ``STREAM_WSGI_HOLD_SECONDS``, then
    ends (the client comes back with ``Last-Event-ID``)."""
    hold = _seconds("STREAM_WSGI_HOLD_SECONDS", 25.0)
    poll = _seconds("STREAM_POLL_SECONDS", 1.0)
    heartbeat = _seconds("STREAM_HEARTBEAT_SECONDS", 15.0)
    yield retry_line(int(_seconds("STREAM_RETRY_SECONDS", 3.0) * 1000))
    start = last_check = time.monotonic()
    recheck = True
    guarded = _guarded(stream.step)
    while True:
        result = guarded(None, recheck)
        yield from result.messages
        if result.done or time.monotonic() - start + poll > hold:
            return
        time.sleep(poll)
        recheck = time.monotonic() - last_check >= heartbeat
        if recheck:
            last_check = time.monotonic()
            yield comment("heartbeat")
