"""The locked write core: the only code that changes a game under way.

A write opens a :class:`Table`: the game row locked (``SELECT … FOR UPDATE``) until the end of the
transaction, then its seats (and, once it started, its pending decisions) read under that lock.
On it, any number of steps, each appending one move record in memory:

- :meth:`Table.play`: a move of the rules (the engine checks it and returns the new state and its
  events); a player's timeouts in a row are counted, and the table actions they call for (a seat
  marked absent at ``absent_after`` timeouts, given back when its absent player acts) are taken
  right there, on the game already locked;
- :meth:`Table.act`: a table action (pause, resume, absent, back, replace, extend, abort:
  ``games.engine.table``), its effect on the site's rows made by its handler
  (:mod:`games.core.services.table_actions`).

Then :func:`commit` writes it all with the ORM: the records appended (with the table chat lines
the game's kit makes of each rules move's true events: ``GameKit.chat_lines``), the snapshot
refreshed, the game's ``seq`` advanced and its ``version`` bumped (every change any viewer's
answer shows bumps it: the ETag is built on it), the pending decisions rewritten by their
difference with deadlines from their stored base (:mod:`games.core.deadlines`). It records what
happened as events (:mod:`games.core.events`: the game started, decisions awaited, the game
ended; once per game, the game changed) and names no channel: the notification and webhook
outboxes write their rows in this transaction, the live push and the bots' and deadlines'
scheduling run once it commits. :func:`commit_many` does the same for several games (the sweep's
burst of timeouts).

Locking duties: every function here runs inside ``transaction.atomic()`` with the game's row
locked by :func:`open_table` (or by the sweep's ``SKIP LOCKED``); nothing here commits.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from games.core import deadlines, events, selectors
from games.core.catalog import get_game, get_kit
from games.core.errors import GameNotActive, Invalid, NotFound, StaleSeq
from games.core.services import statements
from games.core.services.table_actions import action as table_action
from games.core.services.table_actions import bot_plays, occupant
from games.engine.table import apply_table, is_table_move
from games.models import (
    CHAT_MAX_LENGTH,
    ChatMessage,
    Game,
    MoveRecord,
    PendingDecision,
    Seat,
    Snapshot,
)

logger = logging.getLogger(__name__)

Actor = MoveRecord.Actor


def _locked(game_id) -> Game | None:
    return (Game.objects.select_for_update(of=("self",)).select_related("snapshot", "created_by")
            .filter(pk=game_id).first())


def lock(game_id) -> Game:
    """The game row, locked until the end of the transaction, with its snapshot and creator."""
    game = _locked(game_id)
    if game is None:
        raise NotFound(_("No such game."))
    return game


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
    #: What the commits of this transaction did, told once by :func:`finish`
    #: (:class:`games.core.events.GameChanged`): the game started, ended, who moved.
    was_started: bool = False
    was_ended: bool = False
    movers: set[int] = field(default_factory=set)

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
            self._pending = selectors.pending_of(self.game.pk)
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
        record = MoveRecord(game_id=self.game.pk, seq=self.game.seq,
                            seat_id=seat.pk if seat is not None else None, actor=actor,
                            by_user_id=by_user.pk if by_user is not None
                            and by_user.is_authenticated else None,
                            payload=payload, events=events, channel=channel)
        self.records.append(record)
        return record

    def seat_changed(self, seat: Seat, *names: str) -> None:
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
            self.seat_changed(seat, "timeouts_in_row")
            limit = self.game.options.get("absent_after", 3)
            if not seat.absent and isinstance(limit, int) and seat.timeouts_in_row >= limit:
                return "absent"
        elif actor == Actor.PLAYER:
            if seat.absent:
                return "back"
            if seat.timeouts_in_row:
                seat.timeouts_in_row = 0
                self.seat_changed(seat, "timeouts_in_row")
        return None

    def act(self, action: str, *, actor: str = Actor.SYSTEM, by_user=None,
            **fields: Any) -> MoveRecord:
        """A table move (``{"type": "table", "action": action, **fields}``) and its effect on
        the site's rows (the action's handler: :mod:`games.core.services.table_actions`).

        Raises the engine's ``MalformedMove`` / ``IllegalMove``, :class:`GameNotActive` for a
        game in the wrong status, :class:`Invalid` for an empty seat or an unknown user."""
        game = self.game
        chosen = table_action(action)
        if game.status not in chosen.statuses:
            raise GameNotActive(chosen.refusal % {"status": game.get_status_display()})
        move: dict[str, Any] = {"type": "table", "action": action, **fields}
        player = fields.get("player")
        by_position = {seat.position: seat for seat in self.seats}
        if action == "replace" and isinstance(player, int) and player in by_position:
            move["previous"] = occupant(by_position[player])
        _table, events_ = apply_table(selectors.table_state(game), move, game.seat_count)
        if isinstance(player, int) and player not in by_position:
            raise Invalid({"player": [f"Seat {player} has nobody in it yet."]})
        seat = by_position.get(player) if player is not None else None
        chosen.handle(self, move, seat, self.pending if game.started_at is not None else [])
        return self._append(seat, actor, by_user, move, events_)

    def row_changed(self, row: PendingDecision, *names: str) -> None:
        self.pending_changed.setdefault(row.pk, set()).update(names)

    def recompute(self, rows: list[PendingDecision]) -> None:
        """Deadlines (and reminders not yet sent) of running rows from their base and the
        vacations in force; countdowns for the near ones."""
        away = selectors.intervals_for_rows(rows)
        for row in rows:
            deadlines.place(row, away.get(row.user_id, ()))
            self.row_changed(row, "deadline", "remind_at")
        self.moved_deadlines += rows


def open_table(game_id, *, expected_seq: int | None = None) -> Table:
    """Lock the game (:class:`NotFound` if there is none) and read its seats (and, once it
    started, its pending decisions) under the lock; with ``expected_seq``, :class:`StaleSeq`
    unless the game is at that seq."""
    game = lock(game_id)
    if expected_seq is not None and expected_seq != game.seq:
        raise StaleSeq(game.seq)
    if game.started_at is None:
        return Table(game=game, seats=selectors.seats_of(game))
    seats, pending = selectors.seats_and_pending(game)
    return Table(game=game, seats=seats, _pending=pending)


# --------------------------------------------------------------------------------------------
# The commit


def commit(table: Table) -> Table:
    """Write what the steps did (see the module's text) and send, after the commit, the work it
    calls for; returns ``table`` with ``pending`` current."""
    commit_many([table])
    finish([table])
    return table


def commit_many(tables: list[Table]) -> list[Table]:
    """Write what the steps did on several locked games (the events of the transaction are
    published by :func:`finish`, once the last round is written: the sweep commits several
    rounds of timeouts in one transaction). The tables can take more steps afterwards."""
    tables = [table for table in tables if table.records or table.started]
    if not tables:
        return tables
    now = tables[0].now
    new, stale = _match_pending(tables, now)
    writes = statements.Writes(records=[record for table in tables for record in table.records])
    writes.snapshots = _snapshots(tables)
    games = _games(tables, now)
    if len(games) == 1:
        writes.games = games
    else:  # (the sweep's burst: one UPDATE for them all, whatever their number)
        Game.objects.bulk_update([game for game, _names in games],
                                 sorted({name for _game, names in games for name in names}))
    _pending(tables, writes, new, stale)
    statements.write(writes)
    for table, row, _seat in new:
        table.created.append(row)
    ChatMessage.objects.bulk_create([line for table in tables for line in table.chat])
    for table in tables:
        if table.ended:  # (its players' lists of their games over: ``selectors.games_of``)
            for seat in table.seats:
                seat.ended_at = table.game.finished_at or table.now
                table.seat_changed(seat, "ended_at")
    _write_seats(tables)
    _write_changed_rows(tables, {row.pk for row in stale})
    for table in tables:
        if table.started:
            events.publish(events.GameStarted(game=table.game, seats=table.seats))
    awaited = [(table.game, rows, table.seats) for table in tables
               if (rows := [row for of, row, _seat in new if of is table])]
    if awaited:
        events.publish(events.DecisionsAwaited(games=awaited))
    for table in tables:
        if table.ended and table.game.status == Game.Status.FINISHED:
            events.publish(events.GameEnded(game=table.game, seats=table.seats))
        table.was_started |= table.started
        table.was_ended |= table.ended
        if table.mover is not None:
            table.movers.add(table.mover)
        table.written += len(table.records) or 1
        table.records, table.chat = [], []
        table.seats_changed, table.pending_changed = {}, {}
        table.state_changed = table.resync = table.started = table.ended = False
        table.mover = None
    return tables


def finish(tables: list[Table]) -> None:
    """Once the transaction's writes are done: for each game written, one
    :class:`games.core.events.GameChanged` (its subscribers wake the streams, ask the bots to
    play and give near deadlines a countdown, once committed)."""
    for table in tables:
        if not table.written:
            continue
        state = table._state
        events.publish(events.GameChanged(
            game=table.game, seats=table.seats, pending=list(table.pending),
            created=table.created, moved=table.moved_deadlines,
            state=None if state is _UNREAD else state, started=table.was_started,
            ended=table.was_ended, movers=frozenset(table.movers),
            bots_may_play=table.bots_maybe, now=table.now))
        table.was_started = table.was_ended = False
        table.movers = set()


def _snapshots(tables: list[Table]) -> list[Snapshot]:
    """The rules' state at each game's new seq, to upsert where a move changed it; where only
    table moves were appended, the current snapshot's seq follows now (the state did not
    change)."""
    changed = [table for table in tables if table.state_changed or table.started]
    for table in tables:
        if table.state_changed or table.started or not table.records:
            continue
        before = table.records[0].seq - 1
        Snapshot.objects.filter(game_id=table.game.pk, seq=before).update(seq=table.game.seq)
        cached = selectors.cached_snapshot(table.game)
        if cached is not None and cached.seq == before:
            cached.seq = table.game.seq
    return [Snapshot(game_id=table.game.pk, seq=table.game.seq,
                     state=get_game(table.game.kind).to_json(table.state), updated_at=table.now)
            for table in changed]


def _write_seats(tables: list[Table]) -> None:
    """The seats changed: one UPDATE per shape of change."""
    by_fields: dict[tuple[str, ...], list[Seat]] = {}
    for table in tables:
        for seat in table.seats:
            names = table.seats_changed.get(seat.pk)
            if names:
                by_fields.setdefault(tuple(sorted(names)), []).append(seat)
    for names, seats in by_fields.items():
        Seat.objects.bulk_update(seats, list(names))


def _games(tables: list[Table], now: dt.datetime) -> list[tuple[Game, list[str]]]:
    """Each game's row: its new ``seq``, ``version``, ``updated_at`` and what the steps
    changed."""
    out = []
    for table in tables:
        game = table.game
        game.version += 1
        game.updated_at = now
        fields = {"seq", "version", "updated_at", *table.game_fields}
        table_seqs = [record.seq for record in table.records if is_table_move(record.payload)]
        if table_seqs:
            game.table_seqs = [*(game.table_seqs or []), *table_seqs]
            fields.add("table_seqs")
        out.append((game, sorted(fields)))
    return out


NewRows = list[tuple[Table, PendingDecision, Seat]]


def _match_pending(tables: list[Table], now: dt.datetime
                   ) -> tuple[NewRows, list[PendingDecision]]:
    """The pending rows of each game matched with ``Game.pending(state)``: the new rows to
    insert (with their table and seat) and the rows that go; each table's ``pending`` is
    what it will be.

    A decision still awaited from a player who did not just move keeps its row, its base and
    its deadline; every other one is replaced by a new row whose clock starts now, with its
    running time from the game's speed (:func:`games.core.deadlines.opening_seconds`: its
    timer, or its seat's time bank, which the rows that go were drawn on first:
    :func:`_draw_banks`). A game that ended or was aborted keeps none. Reads the rows (if not
    read yet) and, only when a human given a new decision may have a vacation ahead, their
    vacations: at most two queries, whatever the number and the length of the games (one more
    when decisions of a game with a time bank go)."""
    stale: list[PendingDecision] = []
    new: NewRows = []
    plans: list[tuple[Table, list[tuple[Any, PendingDecision | None]]]] = []
    drawn: list[tuple[Table, PendingDecision]] = []
    for table in tables:
        game = table.game
        banked = deadlines.bank_of(game.options) is not None
        if game.status in (Game.Status.FINISHED, Game.Status.ABORTED):
            if game.status == Game.Status.ABORTED or table.resync:
                stale += table.pending
                if banked and game.status == Game.Status.FINISHED:
                    drawn += [(table, row) for row in table.pending]
                table.pending = []
            continue
        if not table.resync:
            continue
        existing = {row.player: row for row in table.pending}
        plan: list[tuple[Any, PendingDecision | None]] = []
        for wanted in get_game(game.kind).pending(table.state):
            row = existing.pop(wanted.player, None)
            if (row is not None and wanted.player != table.mover and row.seat == wanted.seat
                    and row.decision == wanted.decision):
                plan.append((wanted, row))
                continue
            if row is not None:
                existing[wanted.player] = row  # replaced: the old row goes
            plan.append((wanted, None))
        stale += existing.values()
        if banked:
            drawn += [(table, row) for row in existing.values()]
        plans.append((table, plan))
    _draw_banks(drawn, now)
    for table, plan in plans:
        game = table.game
        by_position = {seat.position: seat for seat in table.seats}
        kept: list[PendingDecision] = []
        for wanted, row in plan:
            if row is not None:
                kept.append(row)
                continue
            seat = by_position[wanted.player]
            seconds = deadlines.opening_seconds(game.options, wanted.timer, seat.bank_seconds)
            bot = bot_plays(game, seat)
            row = PendingDecision(
                game_id=game.pk, player=wanted.player, seat=wanted.seat,
                decision=wanted.decision, seq=game.seq, clock_from=now, clock_seconds=seconds,
                given_seconds=seconds, deadline=now + dt.timedelta(seconds=seconds),
                remind_at=None if bot else now + dt.timedelta(
                    seconds=seconds * deadlines.REMIND_AT),
                user_id=seat.user_id, bot=bot)
            if game.status == Game.Status.PAUSED:
                row.remaining = seconds
            new.append((table, row, seat))
            kept.append(row)
        table.pending = kept
    # One query for the vacations of every human given a new decision who may have one.
    away_users = {seat.user_id: seat.user for _table, row, seat in new
                  if seat.user_id is not None and not row.bot
                  and getattr(seat, "vacation_ahead", True)}
    away = selectors.intervals_by_user(away_users.values(), now) if away_users else {}
    for _table, row, seat in new:
        if away.get(seat.user_id) and not row.bot:
            deadlines.place(row, away[seat.user_id])
    return new, stale


def _draw_banks(drawn: list[tuple[Table, PendingDecision]], now: dt.datetime) -> None:
    """The decisions of games with a time bank that go (answered, timed out, or closed by
    others' moves: a simultaneous decision draws on each seat's own bank): each seat keeps
    what its clock had left (:meth:`games.core.deadlines.Bank.left_after`), in its row
    (``Seat.bank_seconds``, written with the commit). One query for the vacations of the
    humans among them (their clocks did not run during them)."""
    if not drawn:
        return
    seats = {(id(table), seat.position): seat for table, _row in drawn for seat in table.seats}
    humans = [(row, seats.get((id(table), row.player))) for table, row in drawn
              if row.user_id is not None and not row.bot]
    away = (selectors.intervals_by_user([seat.user for _row, seat in humans if seat is not None],
                                        min(row.clock_from for row, _seat in humans))
            if humans else {})
    for table, row in drawn:
        bank = deadlines.bank_of(table.game.options)
        seat = seats.get((id(table), row.player))
        if bank is None or seat is None:
            continue
        left = deadlines.seconds_left(away.get(row.user_id, ()) if not row.bot else (),
                                      row.clock_from, row.clock_seconds, row.remaining, now)
        seat.bank_seconds = bank.left_after(left, 0)
        table.seat_changed(seat, "bank_seconds")


def _pending(tables: list[Table], writes: statements.Writes, new: NewRows,
             stale: list[PendingDecision]) -> None:
    """The rows that go and the new ones, to write with the commit's statement. A new row that
    takes the place of one that goes (the same player of the same game: a player's decision
    replaced by another) may not be written in the same statement as its deletion (its parts
    run in no set order, and the two rows would collide on ``pending_unique_player``): those
    that go are then deleted now, on their own."""
    writes.new = [row for _table, row, _seat in new]
    gone = [row.pk for row in stale]
    if gone and ({(row.game_id, row.player) for row in writes.new}
                 & {(row.game_id, row.player) for row in stale}):
        PendingDecision.objects.filter(pk__in=gone).delete()
    else:
        writes.gone = gone


def _write_changed_rows(tables: list[Table], gone: set[int]) -> None:
    """The pending rows table actions changed in place: one UPDATE per shape of change."""
    by_fields: dict[tuple[str, ...], list[PendingDecision]] = {}
    for table in tables:
        for row in table.pending:
            names = table.pending_changed.get(row.pk)
            if names and row.pk is not None and row.pk not in gone:
                by_fields.setdefault(tuple(sorted(names)), []).append(row)
    for names, rows in by_fields.items():
        PendingDecision.objects.bulk_update(rows, list(names))
