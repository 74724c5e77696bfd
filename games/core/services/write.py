"""The locked write core: the only code that changes a game under way.

A write opens a :class:`Table`: the game row locked (``SELECT … FOR UPDATE``) until the end of the
transaction, with its seats read under that lock. On it, any number of steps, each appending one
move record in memory:

- :meth:`Table.play`: a move of the rules (the engine checks it and returns the new state and its
  events); a player's timeouts in a row are counted, and the table actions they call for (a seat
  marked absent at ``absent_after`` timeouts, given back when its absent player acts) are taken
  right there, on the game already locked;
- :meth:`Table.act`: a table action (pause, resume, absent, back, replace, extend, abort:
  ``games.engine.table``) and its effect on the site's rows.

Then :func:`commit` writes everything at once (one statement on PostgreSQL, once the pending
decisions are read: :func:`mascarade_site.prepared.write_together`): the records appended (with
the table chat lines the game's kit makes of each rules move's true events:
``GameKit.chat_lines``), the snapshot refreshed, the game's ``seq`` advanced and its
``version`` bumped (every change any viewer's answer shows bumps it: the ETag is built on it),
the pending decisions rewritten by their difference with deadlines from their stored base
(:mod:`games.core.deadlines`), the outbox rows of the messages written (those of the new decisions
in
the same statement), and, once committed, the bots asked to play (once) and the near deadlines
given a countdown, through :mod:`games.core.dispatch`.
:func:`commit_many` does the same for several games in a few queries (a burst of timeouts).

Locking duties: every function here runs inside ``transaction.atomic()`` with the game's row
locked by :func:`open_table` (or by the sweep's ``SKIP LOCKED``); nothing here commits. A
transaction that changes a game's seats or pending decisions under its lock also bumps the
game's ``version`` (as :func:`commit` does): :func:`open_table` reads them in the statement that
takes the lock, and trusts that read only if no transaction bumped the version while it waited.
"""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.db.models import OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from games.core import deadlines, dispatch, selectors
from games.core.catalog import get_game, get_kit
from games.core.errors import AlreadySeated, GameNotActive, Invalid, NotFound, StaleSeq
from games.engine import IllegalMove
from games.engine.table import apply_table, is_table_move
from games.live import push
from games.models import (
    CHAT_MAX_LENGTH,
    ChatMessage,
    Game,
    MoveRecord,
    PendingDecision,
    Seat,
    Snapshot,
)
from games.notify import notifications
from games.webhooks import outbox as webhook_outbox
from mascarade_site.prepared import (
    PreparedQuery,
    Write,
    delete_write,
    insert_write,
    lock_together,
    new_instance,
    update_write,
    write_together,
)

logger = logging.getLogger(__name__)

Actor = MoveRecord.Actor

#: Deadline fallback when a game's options do not name the timer (seconds).
DEFAULT_TIMEOUT = 86_400
#: Deadlines at most this far away get a countdown task; the sweep finds every deadline anyway.
COUNTDOWN_MAX = dt.timedelta(hours=1)

#: The game statuses in which each table action may be taken.
TABLE_ACTION_STATUSES = {
    "pause": (Game.Status.ACTIVE,),
    "resume": (Game.Status.PAUSED,),
    "abort": (Game.Status.OPEN, Game.Status.ACTIVE, Game.Status.PAUSED),
}
TABLE_ACTION_DEFAULT_STATUSES = (Game.Status.ACTIVE, Game.Status.PAUSED)

# Every write takes it: compiled once (mascarade_site.prepared).
_LOCK = PreparedQuery(lambda pk: Game.objects.select_for_update(of=("self",))
                      .select_related("snapshot", "created_by").filter(pk=pk).order_by(),
                      uuid.UUID)
#: The same, with the version that the statement's snapshot saw (``seen_version``): the locked
#: row is read again once the lock is granted, the snapshot was taken before.
_LOCK_SEEN = PreparedQuery(
    lambda pk: Game.objects.select_for_update(of=("self",))
    .select_related("snapshot", "created_by").filter(pk=pk).order_by()
    .annotate(seen_version=Subquery(Game.objects.filter(pk=OuterRef("pk"))
                                    .order_by().values("version")[:1])),
    uuid.UUID)


def lock(game_id) -> Game:
    """The game row, locked until the end of the transaction, with its snapshot and creator."""
    found = _LOCK(game_id)
    if not found:
        raise NotFound(_("No such game."))
    return found[0]


_UNREAD = object()


@dataclass
class Table:
    """A game locked for writing, what was read under the lock, and what the steps changed."""

    game: Game
    seats: list[Seat]
    now: dt.datetime = field(default_factory=lambda: timezone.now())
    #: The rows of ``PendingDecision`` (read with the seats by :func:`open_table` once the game
    #: started, else on first need).
    _pending: Any = _UNREAD
    #: The engine state (loaded on first need; ``None`` before the start).
    _state: Any = _UNREAD
    #: A move of the rules changed the state since the lock (the snapshot is rewritten).
    state_changed: bool = False
    #: The rules' decisions must be matched again (after a move, a start).
    resync: bool = False
    #: The player who just moved (their decision is replaced even if the same kind is awaited).
    mover: int | None = None
    records: list[MoveRecord] = field(default_factory=list)
    #: Table chat lines the rules' moves posted (``GameKit.chat_lines``), written with them.
    chat: list[ChatMessage] = field(default_factory=list)
    seats_changed: dict[int, set[str]] = field(default_factory=dict)
    #: Pending rows changed in place by table actions: their fields to write.
    pending_changed: dict[int, set[str]] = field(default_factory=dict)
    #: Fields of the game row to write besides ``seq``, ``version`` and ``updated_at``.
    game_fields: set[str] = field(default_factory=set)
    ended: bool = False
    started: bool = False
    #: Bot decisions may have appeared or changed hands: look for them once committed.
    bots_maybe: bool = False
    #: Deadlines set or moved by table actions: countdowns for the near ones.
    moved_deadlines: list[PendingDecision] = field(default_factory=list)
    #: Pending rows made by the commits of this transaction.
    created: list[PendingDecision] = field(default_factory=list)
    #: Writes made by the commits of this transaction (records, or the start).
    written: int = 0
    #: The users whose streams are woken once committed, and why (``games.live.push``).
    wake: list[tuple[int, str]] = field(default_factory=list)
    #: The game's start or end (by wake kind) as its players' streams tell it
    #: (``games.live.push.game_changed``).
    events: dict[str, dict] = field(default_factory=dict)

    # --- reads under the lock -----------------------------------------------------------------

    @property
    def state(self) -> Any:
        if self._state is _UNREAD:
            # (no refresh task: a move rewrites the snapshot at its commit)
            self._state = selectors.load_state(self.game, ask_refresh=False)
        return self._state

    @state.setter
    def state(self, value: Any) -> None:
        self._state = value

    @property
    def pending(self) -> list[PendingDecision]:
        if self._pending is _UNREAD:
            self._pending = selectors.PENDING(self.game.pk)
        return self._pending

    @pending.setter
    def pending(self, rows: list[PendingDecision]) -> None:
        self._pending = rows

    def seat_at(self, position: int) -> Seat:
        for seat in self.seats:
            if seat.position == position:
                return seat
        raise Invalid({"player": [f"Seat {position} has nobody in it yet."]})

    def loaded(self) -> selectors.Loaded:
        """The game as read models see it (after :func:`commit`)."""
        state = self.state
        return selectors.Loaded(game=self.game, seats=self.seats, state=state,
                                pending=self.pending if state is not None else [])

    # --- steps ----------------------------------------------------------------------------

    def _append(self, seat: Seat | None, actor: str, by_user, payload: Any,
                events: list, channel: str = "") -> MoveRecord:
        self.game.seq += 1
        # (by their keys: the related instances' descriptors cost more than the rest of the
        # record's making, and nothing reads them from the record)
        record = new_instance(MoveRecord, game_id=self.game.pk, seq=self.game.seq,
                              seat_id=seat.pk if seat is not None else None, actor=actor,
                              by_user_id=by_user.pk if by_user is not None
                              and by_user.is_authenticated else None,
                              payload=payload, events=events, channel=channel)
        self.records.append(record)
        return record

    def _seat_changed(self, seat: Seat, *names: str) -> None:
        self.seats_changed.setdefault(seat.pk, set()).update(names)

    def play(self, mover: int, move: Any, *, actor: str, by_user=None,
             channel: str = "") -> MoveRecord:
        """A move of the rules by the engine player ``mover`` (a player's, come through
        ``channel``: ``"api"``, ``"web"`` or ``"mail"``); the engine's errors are raised before
        anything changes. Then the timeouts in a row are counted and the absence they call for
        is taken on this table."""
        if self.game.status != Game.Status.ACTIVE:
            raise GameNotActive(_("This game is %(status)s: it takes no moves now.") % {
                "status": self.game.get_status_display()})
        engine = get_game(self.game.kind)
        new_state, events = engine.apply(self.state, mover, move)
        seat = self.seat_at(mover)
        record = self._append(seat, actor, by_user, move, events, channel)
        self._chat_lines(record, events)
        self.state, self.state_changed, self.resync, self.mover = new_state, True, True, mover
        self.bots_maybe = True
        result = engine.result(new_state)
        if result is not None:
            self.game.status = Game.Status.FINISHED
            self.game.finished_at = self.now
            self.game.winners = list(result.winner_seats)
            self.game_fields |= {"status", "finished_at", "winners"}
            self.ended = True
        action = self._count_timeouts(seat, actor)
        # (not once the game is over: its last move leaves the seats as they were)
        if action == "absent" and not self.ended:
            self.act("absent", player=seat.position,
                     reason=f"{seat.timeouts_in_row} timeouts in a row")
        elif action == "back" and not self.ended:
            self.act("back", player=seat.position)
        return record

    def _chat_lines(self, record: MoveRecord, events: list) -> None:
        """The lines the game's kit posts to the table chat for this move's true events
        (``GameKit.chat_lines``): each by the seat it names (its user, or nobody for a bot),
        appended with the move at the commit."""
        lines = get_kit(self.game.kind).chat_lines(events)
        for player, text, source in lines or ():
            seat = self.seat_at(player)
            text = str(text).strip()[:CHAT_MAX_LENGTH]
            if text:
                self.chat.append(ChatMessage(game=self.game, author_id=seat.user_id,
                                             seat=seat.position, text=text,
                                             source=str(source)[:64], seq=record.seq))

    def _count_timeouts(self, seat: Seat, actor: str) -> str | None:
        """Count the seat's timeouts in a row; the table action they call for: ``"absent"`` at
        the game's ``absent_after`` timeouts in a row, ``"back"`` when an absent player acted."""
        if actor == Actor.TIMEOUT:
            seat.timeouts_in_row += 1
            self._seat_changed(seat, "timeouts_in_row")
            limit = self.game.options.get("absent_after", 3)
            if not seat.absent and isinstance(limit, int) and seat.timeouts_in_row >= limit:
                return "absent"
        elif actor == Actor.PLAYER:
            if seat.absent:
                return "back"
            if seat.timeouts_in_row:
                seat.timeouts_in_row = 0
                self._seat_changed(seat, "timeouts_in_row")
        return None

    def act(self, action: str, *, actor: str = Actor.SYSTEM, by_user=None,
            **fields: Any) -> MoveRecord:
        """A table move (``{"type": "table", "action": action, **fields}``) and its effect on
        the site's rows (see :func:`games.core.services.table.apply_table_move` for each action).

        Raises the engine's ``MalformedMove`` / ``IllegalMove``, :class:`GameNotActive` for a
        game in the wrong status, :class:`Invalid` for an empty seat or an unknown user."""
        from accounts.models import User

        game = self.game
        allowed = TABLE_ACTION_STATUSES.get(action, TABLE_ACTION_DEFAULT_STATUSES)
        if game.status not in allowed:
            words = {"pause": _("This game is %(status)s: it cannot be paused now."),
                     "resume": _("This game is %(status)s: it cannot be resumed now."),
                     "abort": _("This game is %(status)s: it cannot be aborted now.")}
            raise GameNotActive(words.get(action, _(
                "This game is %(status)s: nothing can change at its table."))
                % {"status": game.get_status_display()})
        move: dict[str, Any] = {"type": "table", "action": action, **fields}
        player = fields.get("player")
        by_position = {seat.position: seat for seat in self.seats}
        if action == "replace" and isinstance(player, int) and player in by_position:
            move["previous"] = _occupant(by_position[player])
        _table, events = apply_table(selectors.table_state(game), move, game.seat_count)
        if isinstance(player, int) and player not in by_position:
            raise Invalid({"player": [f"Seat {player} has nobody in it yet."]})
        now = self.now
        pending = self.pending if game.started_at is not None else []
        if action == "pause":
            game.status = Game.Status.PAUSED
            away = selectors.intervals_for_rows(pending)
            for row in pending:
                ran = deadlines.running_time(away.get(row.user_id, ()), row.clock_from, now)
                row.remaining = max(0, int(row.clock_seconds - ran))
                self._row_changed(row, "remaining")
            self.game_fields.add("status")
        elif action == "resume":
            game.status = Game.Status.ACTIVE
            for row in pending:
                if row.remaining is not None:
                    row.clock_from, row.clock_seconds = now, row.remaining
                row.remaining = None
                self._row_changed(row, "remaining", "clock_from", "clock_seconds")
            self._recompute(pending)
            self.game_fields.add("status")
            self.bots_maybe = True
        elif action in ("absent", "back"):
            seat = by_position[player]
            seat.absent = action == "absent"
            self._seat_changed(seat, "absent")
            if action == "back":
                seat.timeouts_in_row = 0
                self._seat_changed(seat, "timeouts_in_row")
            for row in pending:
                if row.player == player:
                    row.bot = _bot_plays(game, seat)
                    self._row_changed(row, "bot")
            if action == "absent":
                notifications.marked_absent(game, seat)
            self.bots_maybe = True
        elif action == "extend":
            rows = [row for row in pending if player is None or row.player == player]
            if not rows:
                raise IllegalMove((_("No decision is awaited from seat %(seat)s: there is no "
                                     "deadline to extend.") % {"seat": player})
                                  if player is not None else
                                  _("No decision is awaited: there is no deadline to extend."),
                                  code="nothing_to_extend")
            for row in rows:
                row.given_seconds += fields["seconds"]
                if row.remaining is not None:
                    row.remaining += fields["seconds"]
                else:
                    row.clock_seconds += fields["seconds"]
                self._row_changed(row, "given_seconds", "remaining", "clock_seconds")
            self._recompute([row for row in rows if row.remaining is None])
        elif action == "replace":
            seat = by_position[player]
            kind, _sep, ident = fields["occupant"].partition(":")
            if kind == "user":
                user = User.objects.filter(pk=int(ident)).first()
                if user is None:
                    raise Invalid({"occupant": [f"There is no user {ident}."]})
                if any(s.user_id == user.pk for s in self.seats if s.pk != seat.pk):
                    raise AlreadySeated()
                seat.user, seat.bot_kind = user, ""
            else:
                seat.user, seat.bot_kind = None, ident
            self._seat_changed(seat, "user", "bot_kind")
            for row in pending:
                if row.player == player:
                    row.user_id, row.bot = seat.user_id, _bot_plays(game, seat)
                    self._row_changed(row, "user", "bot")
            self._recompute([row for row in pending if row.player == player
                             and row.remaining is None])
            self.bots_maybe = True
        elif action == "abort":
            game.status = Game.Status.ABORTED
            game.finished_at = now
            self.game_fields |= {"status", "finished_at"}
            self.ended = True
        return self._append(by_position.get(player) if player is not None else None, actor,
                            by_user, move, events)

    def _row_changed(self, row: PendingDecision, *names: str) -> None:
        self.pending_changed.setdefault(row.pk, set()).update(names)

    def _recompute(self, rows: list[PendingDecision]) -> None:
        """Deadlines (and reminders not yet sent) of running rows from their base and the
        vacations in force; countdowns for the near ones."""
        away = selectors.intervals_for_rows(rows)
        for row in rows:
            place(row, away.get(row.user_id, ()))
            self._row_changed(row, "deadline", "remind_at")
        self.moved_deadlines += rows


def open_table(game_id, *, expected_seq: int | None = None) -> Table:
    """Lock the game (:class:`NotFound` if there is none) and read its seats (and, once it
    started, its pending decisions), in the statement that takes the lock; with
    ``expected_seq``, :class:`StaleSeq` unless the game is at that seq."""
    # The lock, the seats and the pending decisions in one statement (a round trip less than
    # the lock, then the two). The two were read on the statement's snapshot, from before the
    # lock was granted: if a transaction holding it bumped the game's version since (as every
    # change of them under the lock does: the module's locking duties), read them again.
    found, seats, pending = lock_together((_LOCK_SEEN, (game_id,)),
                                          *selectors.seats_and_pending_reads(game_id))
    if not found:
        raise NotFound(_("No such game."))
    game = found[0]
    fresh = game.__dict__.pop("seen_version") == game.version
    if expected_seq is not None and expected_seq != game.seq:
        raise StaleSeq(game.seq)
    if game.started_at is None:
        return Table(game=game, seats=seats if fresh else selectors.seats_of(game))
    if not fresh:
        seats, pending = selectors.seats_and_pending(game)
    return Table(game=game, seats=seats, _pending=pending)


def _occupant(seat: Seat) -> str:
    return f"bot:{seat.bot_kind}" if seat.is_bot else f"user:{seat.user_id}"


def _bot_plays(game: Game, seat: Seat) -> bool:
    """A bot decides for this seat: a bot seat, or an absent player's under the "bot" policy."""
    return seat.is_bot or (seat.absent and game.options.get("absent_policy", "bot") == "bot")


def _timeout(game: Game, timer: str) -> int:
    value = game.options.get(timer, DEFAULT_TIMEOUT)
    return value if isinstance(value, int) and value > 0 else DEFAULT_TIMEOUT


def place(row: PendingDecision, away) -> None:
    """Set a running row's deadline, and its reminder unless already sent (or a bot's), from
    its stored base and its user's vacations."""
    row.deadline = deadlines.deadline(away, row.clock_from, row.clock_seconds)
    if row.remind_at is not None:
        row.remind_at = deadlines.remind_at(away, row.clock_from, row.clock_seconds,
                                            row.given_seconds)


# --------------------------------------------------------------------------------------------
# The commit


def commit(table: Table) -> Table:
    """Write what the steps did (see the module's text) and send, after the commit, the work it
    calls for; returns ``table`` with ``pending`` current."""
    commit_many([table])
    finish([table])
    return table


def commit_many(tables: list[Table]) -> list[Table]:
    """Write what the steps did on several locked games, in a few queries whatever their number
    (the after-commit work is :func:`finish`'s, once the last round is written: the sweep
    commits several rounds of timeouts in one transaction). The tables can take more steps
    afterwards."""
    tables = [table for table in tables if table.records or table.started]
    if not tables:
        return tables
    now = tables[0].now
    # The pending rows are read (under the lock) and matched first; then every write of the
    # move, the messages of the new decisions with them, one statement on PostgreSQL
    # (mascarade_site.prepared.write_together).
    new, stale = _match_pending(tables, now)
    notes = notifications.decision_notes([
        (table.game, [row for of, row, _seat in new if of is table], table.seats)
        for table in tables])
    write_together([
        insert_write([record for table in tables for record in table.records]),
        insert_write([line for table in tables for line in table.chat]),
        *_write_snapshots(tables),
        *_write_seats(tables),
        *_write_games(tables, now),
        *_write_pending(new, stale),
        insert_write(notes, ignore_conflicts=True),
    ])
    _pending_written(tables, new, stale)
    for table in tables:
        if table.started:
            notifications.game_started(table.game, table.seats)
        if table.ended and table.game.status == Game.Status.FINISHED:
            notifications.game_ended(table.game, table.seats)
        if table.started or table.ended:
            kind = push.STARTED if table.started else push.ENDED
            table.wake += [(seat.user_id, kind) for seat in table.seats if seat.user_id]
            table.events[kind] = push.game_event(table.game, kind)
        if table.mover is not None:
            table.wake += [(seat.user_id, push.MOVED) for seat in table.seats
                           if seat.position == table.mover and seat.user_id]
        table.written += len(table.records) or 1
        table.records, table.chat = [], []
        table.seats_changed, table.pending_changed = {}, {}
        table.state_changed = table.resync = table.started = table.ended = False
        table.mover = None
    return tables


def finish(tables: list[Table]) -> None:
    """Once committed: for each active game that changed, the bots asked to play (once), a
    countdown for each near deadline this transaction set."""
    for table in tables:
        game = table.game
        if not table.written:
            continue
        if push.enabled():
            push.game_changed(game.pk, game.seq, game.version, table.wake, _told(table),
                              table.events)
        table.wake, table.events = [], {}
        if game.status != Game.Status.ACTIVE:
            continue
        if table.bots_maybe and any(row.bot for row in table.pending):
            dispatch.play_bots(game.pk, game.seq)
        current = {row.pk for row in table.pending if row.remaining is None and not row.bot}
        schedule_countdowns(game.pk, [row for row in [*table.created, *table.moved_deadlines]
                                      if row.pk in current], table.now)


def _told(table: Table) -> list[tuple[int, dict]]:
    """The decisions this transaction gave to players, and those it left awaited while the
    game moved on (others answered theirs, or a table action was recorded: each advances the
    seq; told again at the game's new seq, which the answer's ``expected_seq`` must name), each
    as its player's stream tells it
    (``games.live.streams.UserStream``): the decision with its deadline and the player's legal
    moves,
    from the state in hand (so that the stream reads nothing); without the state in hand (a
    table action), only which game: the stream reads it."""
    created = {row.pk for row in table.created}
    seq = table.game.seq
    rows = [row for row in table.pending
            if row.user_id and not row.bot and (row.pk in created or row.seq < seq)]
    if not rows:
        return []
    game = table.game
    state = table._state
    if state is _UNREAD or state is None or game.status != Game.Status.ACTIVE:
        return [(row.user_id, {}) for row in rows]
    engine = get_game(game.kind)
    return [(row.user_id, {"kind": game.kind, "player": row.player, "since": row.seq,
                           "seat": row.seat,
                           "decision": row.decision, "deadline": selectors.iso(row.deadline),
                           "legal_moves": engine.legal_moves(state, row.player)})
            for row in rows]


def schedule_countdowns(game_id, rows: list[PendingDecision], now: dt.datetime) -> None:
    """A countdown task, sent after the commit, for each of these running human deadlines less
    than :data:`COUNTDOWN_MAX` away (the sweep finds the others, and these too if the broker
    is down). A countdown left for an old deadline finds it not due and does nothing."""
    near = sorted({(row.pk, row.deadline) for row in rows
                   if not row.bot and row.remaining is None
                   and row.deadline - now <= COUNTDOWN_MAX})
    if near:
        dispatch.countdowns(game_id, near)


def _write_snapshots(tables: list[Table]) -> list[Write | None]:
    """The rules' state at each game's new seq: upserted where a move changed it (the write
    returned); where only table moves were appended, the current snapshot's seq follows (the
    state did not change; written now)."""
    changed = [table for table in tables if table.state_changed or table.started]
    for table in tables:
        if table.state_changed or table.started or not table.records:
            continue
        before = table.records[0].seq - 1
        Snapshot.objects.filter(game_id=table.game.pk, seq=before).update(seq=table.game.seq)
        cached = selectors.cached_snapshot(table.game)
        if cached is not None and cached.seq == before:
            cached.seq = table.game.seq
    return [insert_write([new_instance(Snapshot, game_id=table.game.pk, seq=table.game.seq,
                                       state=get_game(table.game.kind).to_json(table.state),
                                       updated_at=table.now) for table in changed],
                         update_conflicts=(["game"], ["seq", "state", "updated_at"]))]


def _write_seats(tables: list[Table]) -> list[Write]:
    """The seats changed: one write for a shape changed on one seat (returned), one
    ``bulk_update`` (now) for a shape changed on several."""
    writes = []
    by_fields: dict[tuple[str, ...], list[Seat]] = {}
    for table in tables:
        for seat in table.seats:
            names = table.seats_changed.get(seat.pk)
            if names:
                by_fields.setdefault(tuple(sorted(names)), []).append(seat)
    for names, seats in by_fields.items():
        if len(seats) == 1:
            writes.append(update_write(seats[0], list(names)))
        else:
            Seat.objects.bulk_update(seats, list(names))
    return writes


def _write_games(tables: list[Table], now: dt.datetime) -> list[Write]:
    """The games' rows: one write for one game (returned), one ``bulk_update`` (now) for
    several."""
    fields = {"seq", "version", "updated_at"}
    for table in tables:
        table.game.version += 1
        table.game.updated_at = now
        fields |= table.game_fields
        table_seqs = [record.seq for record in table.records if is_table_move(record.payload)]
        if table_seqs:
            table.game.table_seqs = [*(table.game.table_seqs or []), *table_seqs]
            fields.add("table_seqs")
    ordered = sorted(fields)
    if len(tables) == 1:
        return [update_write(tables[0].game, ordered)]
    Game.objects.bulk_update([table.game for table in tables], ordered)
    return []


NewRows = list[tuple[Table, PendingDecision, Seat]]


def _match_pending(tables: list[Table], now: dt.datetime
                   ) -> tuple[NewRows, list[PendingDecision]]:
    """The pending rows of each game matched with ``Game.pending(state)``: the new rows to
    insert (with their table and seat) and the rows that go; each table's ``pending`` is
    what it will be.

    A decision still awaited from a player who did not just move keeps its row, its base and
    its deadline; every other one is replaced by a new row whose clock starts now. A game that
    ended or was aborted keeps none. Reads the rows (if not read yet) and, only when a human
    given a new decision may have a vacation ahead, their vacations: at most two queries,
    whatever the number and the length of the games."""
    stale: list[PendingDecision] = []
    new: NewRows = []
    for table in tables:
        game = table.game
        if game.status in (Game.Status.FINISHED, Game.Status.ABORTED):
            if game.status == Game.Status.ABORTED or table.resync:
                stale += table.pending
                table.pending = []
            continue
        if not table.resync:
            continue
        engine = get_game(game.kind)
        by_position = {seat.position: seat for seat in table.seats}
        existing = {row.player: row for row in table.pending}
        kept: list[PendingDecision] = []
        for wanted in engine.pending(table.state):
            row = existing.pop(wanted.player, None)
            if (row is not None and wanted.player != table.mover and row.seat == wanted.seat
                    and row.decision == wanted.decision):
                kept.append(row)
                continue
            if row is not None:
                existing[wanted.player] = row  # replaced: the old row goes
            seat = by_position[wanted.player]
            seconds = _timeout(game, wanted.timer)
            bot = _bot_plays(game, seat)
            row = new_instance(
                PendingDecision, game_id=game.pk, player=wanted.player, seat=wanted.seat,
                decision=wanted.decision, seq=game.seq, clock_from=now, clock_seconds=seconds,
                given_seconds=seconds, deadline=now + dt.timedelta(seconds=seconds),
                remind_at=None if bot else now + dt.timedelta(
                    seconds=seconds * deadlines.REMIND_AT),
                user_id=seat.user_id, bot=bot)
            if game.status == Game.Status.PAUSED:
                row.remaining = seconds
            new.append((table, row, seat))
            kept.append(row)
        stale += existing.values()
        table.pending = kept
    # One query for the vacations of every human given a new decision who may have one.
    away_users = {seat.user_id: seat.user for _table, row, seat in new
                  if seat.user_id is not None and not row.bot
                  and getattr(seat, "vacation_ahead", True)}
    away = selectors.intervals_by_user(away_users.values(), now) if away_users else {}
    for _table, row, seat in new:
        if away.get(seat.user_id) and not row.bot:
            place(row, away[seat.user_id])
    return new, stale


def _write_pending(new: NewRows, stale: list[PendingDecision]) -> list[Write | None]:
    """One DELETE of the rows that go and one INSERT of the new ones (returned). A new row
    that takes the place of one that goes (the same player of the same game: a player's
    decision replaced by another) may not be written in the same statement as its deletion
    (the parts of one statement run in no set order, and the two rows would collide on
    ``pending_unique_player``): the DELETE is then sent now, on its own."""
    gone = delete_write(PendingDecision, [row.pk for row in stale])
    if gone is not None and ({(row.game_id, row.player) for _t, row, _s in new}
                             & {(row.game_id, row.player) for row in stale}):
        gone.run()
        gone = None
    return [gone, insert_write([row for _table, row, _seat in new])]


def _pending_written(tables: list[Table], new: NewRows, stale: list[PendingDecision]) -> None:
    """Once the new rows are written (they have their keys): the rows table actions changed
    in place (one UPDATE per shape of change), and the webhook deliveries of the new decisions
    (whose ``cause`` names their row's key)."""
    _write_changed_rows(tables, {row.pk for row in stale})
    for table, row, _seat in new:
        table.created.append(row)
    fresh = [(table.game, table.created, table.seats) for table in tables if table.created]
    if fresh:
        webhook_outbox.decisions_awaited(fresh)


def _write_changed_rows(tables: list[Table], stale: set[int]) -> None:
    by_fields: dict[tuple[str, ...], list[PendingDecision]] = {}
    for table in tables:
        for row in table.pending:
            names = table.pending_changed.get(row.pk)
            if names and row.pk is not None and row.pk not in stale:
                by_fields.setdefault(tuple(sorted(names)), []).append(row)
    for names, rows in by_fields.items():
        PendingDecision.objects.bulk_update(rows, list(names))
