"""Writes: create, join, leave, add bots, submit a move; the bots' turns.

Every change to a game happens in one transaction that first locks the game row
(``select_for_update``), so moves of one game are applied one at a time, each against the state
its sender saw when it sends ``expected_seq``. Follow-up work (bots' moves) is enqueued with
``transaction.on_commit`` and never makes a move fail: if the broker is down the error is logged
and the bot decision stays in :class:`~games.models.PendingDecision` (``bot=True``) for a periodic
sweep to find.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import secrets
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.engine import IllegalMove, InvalidOptions, get_game
from games.engine.bots import bot_rng, get_bot
from games.engine.table import apply_table
from mascarade_site.prepared import PreparedQuery, delete_rows, insert_rows, update_row

from . import selectors
from .api.errors import (
    AlreadySeated,
    Forbidden,
    GameFull,
    GameNotActive,
    IdempotencyConflict,
    Invalid,
    NotFound,
    StaleSeq,
)
from .models import Game, IdempotencyKey, MoveRecord, PendingDecision, Seat, Snapshot

logger = logging.getLogger(__name__)

Actor = MoveRecord.Actor

#: Options only staff may set (API.md "Mascarade options").
STAFF_OPTIONS = ("deal", "first_seat")
#: Bot kinds a creator may choose; the default plays from what its player knows.
BOT_KINDS = ("heuristic", "random")
DEFAULT_BOT_KIND = "heuristic"
#: How long an Idempotency-Key answer is kept.
IDEMPOTENCY_TTL = dt.timedelta(hours=24)
#: Bot moves one task plays before it hands over to a new task.
BOT_MOVES_PER_TASK = 100
#: Deadline fallback when a game's options do not name the timer (seconds).
DEFAULT_TIMEOUT = 86_400
#: Deadlines at most this far away get a countdown task; the sweep finds every deadline anyway.
COUNTDOWN_MAX = dt.timedelta(hours=1)
#: The "deadline is near" reminder goes at this fraction of the time given.
REMIND_AT = 0.8
#: A broker that does not answer at once is reported, not waited for (moves never fail on it).
QUICK_RETRY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}
#: A bot decision pending this long had its task lost: the sweep plays it.
BOT_STALE_AFTER = dt.timedelta(seconds=30)


@dataclass(frozen=True)
class Idempotency:
    """An ``Idempotency-Key`` header and what it was sent with."""

    user_id: int
    key: str
    request_hash: str

    @staticmethod
    def hash_request(method: str, path: str, body: Any) -> str:
        canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(f"{method} {path}\n{canonical}".encode()).hexdigest()


@dataclass
class Outcome:
    """An answer: its status and JSON body; ``replayed`` when it is a stored first answer."""

    status: int
    body: dict[str, Any]
    replayed: bool = False


# --------------------------------------------------------------------------------------------
# Idempotency


def _stored_answer(idem: Idempotency | None) -> Outcome | None:
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
    return Outcome(row.status_code, row.response, replayed=True)


def _store_answer(idem: Idempotency | None, outcome: Outcome) -> None:
    if idem is not None:
        IdempotencyKey.objects.create(user_id=idem.user_id, key=idem.key,
                                      request_hash=idem.request_hash,
                                      status_code=outcome.status, response=outcome.body)


def _idempotent(idem: Idempotency | None, work) -> Outcome:
    """Run ``work()`` (a transaction that checks and stores the key); if it lost a race on the
    key to another request, answer as that request's key says."""
    try:
        return work()
    except IntegrityError:
        if idem is None:
            raise
        stored = _stored_answer(idem)
        if stored is None:
            raise
        return stored


# --------------------------------------------------------------------------------------------
# Helpers under the game lock


# Every move takes it: compiled once (mascarade_site.prepared).
_LOCK = PreparedQuery(lambda pk: Game.objects.select_for_update(of=("self",))
                      .select_related("snapshot", "created_by").filter(pk=pk).order_by(),
                      uuid.UUID)


def _lock(game_id) -> Game:
    """The game row, locked until the end of the transaction, with its snapshot and creator."""
    found = _LOCK(game_id)
    game = found[0] if found else None
    if game is None:
        raise NotFound("No such game.")
    return game


def _timeout(game: Game, timer: str) -> int:
    value = game.options.get(timer, DEFAULT_TIMEOUT)
    return value if isinstance(value, int) and value > 0 else DEFAULT_TIMEOUT


def _sync_pending(game: Game, state: Any, seats: list[Seat], mover: int | None,
                  now: dt.datetime, current: list[PendingDecision] | None = None
                  ) -> list[PendingDecision]:
    """Make the PendingDecision rows of one game mirror ``Game.pending(state)`` (see
    :func:`_sync_pending_many`)."""
    sync = _PendingSync(game, state, seats, mover, current)
    _sync_pending_many([sync], now)
    return sync.rows


@dataclass
class _PendingSync:
    """One game whose pending decisions follow a new state (see :func:`_sync_pending_many`).
    ``current``: its rows, when the caller read them under the game lock; ``rows``: the result,
    of which ``created`` are new."""

    game: Game
    state: Any
    seats: list[Seat]
    mover: int | None
    current: list[PendingDecision] | None = None
    rows: list[PendingDecision] = field(default_factory=list)
    created: list[PendingDecision] = field(default_factory=list)


def _sync_pending_many(syncs: list[_PendingSync], now: dt.datetime) -> None:
    """Make the PendingDecision rows of several locked games mirror ``Game.pending(state)``.

    A decision still awaited from a player who did not just move keeps its row and deadline;
    every other one is replaced. At most four queries, whatever the number and the length of
    the games: their rows (those the callers did not pass), the vacations of the players given
    a new decision (only when one has a vacation ahead), one DELETE, one INSERT.
    """
    from accounts.vacations import intervals_by_user, push_deadline

    unread = [sync.game.pk for sync in syncs if sync.current is None]
    if unread:
        read: dict[Any, list[PendingDecision]] = {pk: [] for pk in unread}
        rows = (selectors.PENDING(unread[0]) if len(unread) == 1
                else PendingDecision.objects.filter(game_id__in=unread).order_by())
        for row in rows:
            read[row.game_id].append(row)
        for sync in syncs:
            if sync.current is None:
                sync.current = read[sync.game.pk]
    stale: list[int] = []
    new: list[tuple[_PendingSync, PendingDecision, Seat]] = []
    for sync in syncs:
        engine = get_game(sync.game.kind)
        wanted = engine.pending(sync.state) if sync.state is not None else []
        by_position = {seat.position: seat for seat in sync.seats}
        existing = {row.player: row for row in sync.current}
        for pending in wanted:
            row = existing.pop(pending.player, None)
            if (row is not None and pending.player != sync.mover and row.seat == pending.seat
                    and row.decision == pending.decision):
                sync.rows.append(row)
                continue
            if row is not None:
                existing[pending.player] = row  # replaced: delete the old row first
            seat = by_position[pending.player]
            seconds = _timeout(sync.game, pending.timer)
            bot = _bot_plays(sync.game, seat)
            new.append((sync, PendingDecision(
                game_id=sync.game.pk, player=pending.player, seat=pending.seat,
                decision=pending.decision, seq=sync.game.seq,
                deadline=now + dt.timedelta(seconds=seconds),
                remind_at=None if bot else now + dt.timedelta(seconds=seconds * REMIND_AT),
                user_id=seat.user_id, bot=bot), seat))
        stale += [row.pk for row in existing.values()]
    # One query for the vacations of every human given a new decision who may have one.
    away_users = {seat.user_id: seat.user for _sync, row, seat in new
                  if seat.user_id is not None and not row.bot
                  and getattr(seat, "vacation_ahead", True)}
    away = intervals_by_user(away_users.values(), now) if away_users else {}
    for _sync, row, seat in new:
        if away.get(seat.user_id) and not row.bot:
            row.deadline = push_deadline(away[seat.user_id], now, row.deadline)
    if stale:
        delete_rows(PendingDecision, stale)
    if new:
        insert_rows([row for _sync, row, _seat in new])
    for sync, row, _seat in new:
        sync.rows.append(row)
        sync.created.append(row)
    fresh = [(sync.game, sync.created, sync.seats) for sync in syncs if sync.created]
    if fresh:
        from . import notifications

        notifications.decisions_awaited(fresh)
        for game, rows, _seats in fresh:
            _schedule_countdowns(game, rows)


def _bot_plays(game: Game, seat: Seat) -> bool:
    """A bot decides for this seat: a bot seat, or an absent player's under the "bot" policy."""
    return seat.is_bot or (seat.absent and game.options.get("absent_policy", "bot") == "bot")


def _schedule_countdowns(game: Game, rows: list[PendingDecision]) -> None:
    """A countdown task, enqueued on commit, for each human deadline less than
    :data:`COUNTDOWN_MAX` away in an active game (the sweep finds the others, and these too if
    the broker is down). Also for deadlines that moved (resume, extension): a countdown left for
    an old deadline finds it not due and does nothing."""
    now = timezone.now()
    short = [(row.pk, row.deadline) for row in rows
             if not row.bot and row.deadline - now <= COUNTDOWN_MAX]
    if short and game.status == Game.Status.ACTIVE:
        game_id = str(game.pk)
        transaction.on_commit(lambda: enqueue_countdowns(game_id, short))


def enqueue_countdowns(game_id: str, rows: list[tuple[int, dt.datetime]]) -> None:
    """Ask a worker to resolve each deadline when it passes. Never raises."""
    from .tasks import resolve_deadline

    for pending_id, deadline in rows:
        try:
            resolve_deadline.apply_async(args=[game_id, pending_id], eta=deadline,
                                         retry_policy=QUICK_RETRY)
        except Exception:
            logger.exception("could not enqueue the countdown of game %s", game_id)
            return


def _write_snapshot(game: Game, state: Any) -> None:
    """Upsert the snapshot at the game's seq (under the game lock): one query."""
    _write_snapshots([(game, state)])


def _write_snapshots(states: list[tuple[Game, Any]]) -> None:
    """Upsert the snapshots of several locked games at their seqs: one query."""
    now = timezone.now()
    insert_rows([Snapshot(game_id=game.pk, seq=game.seq, state=get_game(game.kind).to_json(state),
                          updated_at=now) for game, state in states],
                update_conflicts=(["game"], ["seq", "state", "updated_at"]))


def _schedule_bots_on_commit(game: Game, pending: list[PendingDecision]) -> None:
    if any(row.bot for row in pending):
        game_id, seq = str(game.pk), game.seq
        transaction.on_commit(lambda: enqueue_bots(game_id, seq))


def enqueue_bots(game_id: str, seq: int) -> bool:
    """Ask a worker to play the bots' pending decisions at ``seq``. Never raises: when the broker
    is down the failure is logged and the decision waits for a periodic sweep."""
    from .tasks import play_bots

    try:
        play_bots.apply_async(args=[str(game_id), seq], retry_policy=QUICK_RETRY)
    except Exception:
        logger.exception("could not enqueue the bots of game %s at seq %s", game_id, seq)
        return False
    return True


def _start(game: Game, seats: list[Seat], now: dt.datetime) -> selectors.Loaded:
    """The last seat is filled: set the game up and wait for its first decisions."""
    engine = get_game(game.kind)
    state = engine.setup(game.options, game.seed)
    game.status = Game.Status.ACTIVE
    game.started_at = now
    game.save(update_fields=["status", "started_at", "updated_at"])
    _write_snapshot(game, state)
    from . import notifications

    notifications.game_started(game, seats)
    pending = _sync_pending(game, state, seats, None, now)
    _schedule_bots_on_commit(game, pending)
    return selectors.Loaded(game=game, seats=seats, state=state, pending=pending)


def _start_if_full(game: Game, seats: list[Seat], now: dt.datetime) -> selectors.Loaded:
    """Start the game if every seat is taken; the game as loaded either way (no state while
    open)."""
    if len(seats) == game.seat_count and game.status == Game.Status.OPEN:
        return _start(game, seats, now)
    game.save(update_fields=["updated_at"])
    return selectors.Loaded(game=game, seats=seats)


def _bot_seats(game: Game, positions: list[int], kind: str) -> list[Seat]:
    return [Seat(game=game, position=p, bot_kind=kind) for p in positions]


def _free_positions(game: Game, seats: list[Seat]) -> list[int]:
    taken = {seat.position for seat in seats}
    return [p for p in range(game.seat_count) if p not in taken]


# --------------------------------------------------------------------------------------------
# Create, join, leave, bots


def create_game(user, kind: str, options: Any, *, private: bool = False, bots: int = 0,
                bot_kind: str = DEFAULT_BOT_KIND, idempotency: Idempotency | None = None
                ) -> Outcome:
    """A new game with ``user`` at seat 0 (and ``bots`` bot seats after it)."""
    engine = get_game(kind)
    if isinstance(options, dict) and not user.is_staff:
        staff_only = [key for key in STAFF_OPTIONS if key in options]
        if staff_only:
            raise Forbidden(f"The option {staff_only[0]!r} is for staff only.")
    normalized = engine.normalize_options(options)
    count = engine.player_count(normalized)
    if not 0 <= bots <= count - 1:
        raise Invalid({"bots": [f"Between 0 and {count - 1} bots can join a game of {count}."]})

    def work() -> Outcome:
        with transaction.atomic():
            if idempotency is not None:
                type(user).objects.select_for_update().filter(pk=user.pk).first()
                stored = _stored_answer(idempotency)
                if stored is not None:
                    return stored
            now = timezone.now()
            game = Game.objects.create(
                kind=engine.id, options=normalized, seed=secrets.randbits(63),
                private=private, invite_code=secrets.token_urlsafe(9) if private else "",
                created_by=user, seat_count=count)
            seats = [Seat.objects.create(game=game, position=0, user=user)]
            if bots:
                seats += Seat.objects.bulk_create(_bot_seats(game, list(range(1, bots + 1)),
                                                             bot_kind))
            loaded = _start_if_full(game, seats, now)
            outcome = Outcome(201, selectors.game_payload(loaded, user))
            _store_answer(idempotency, outcome)
            return outcome

    return _idempotent(idempotency, work)


def join_game(user, game_id, invite_code: str | None = None) -> dict[str, Any]:
    """Seat ``user`` at the lowest free seat; the game starts when the last one is filled."""
    with transaction.atomic():
        game = _lock(game_id)
        seats = selectors.seats_of(game)
        if any(seat.user_id == user.pk for seat in seats):
            raise AlreadySeated()
        if game.private and not secrets.compare_digest(str(invite_code or ""),
                                                       game.invite_code):
            raise Forbidden("This game is private: joining it needs its invite code.")
        free = _free_positions(game, seats)
        if not free:
            raise GameFull()
        if game.status != Game.Status.OPEN:
            raise GameNotActive(f"This game is {game.status}: it takes no new players.")
        seat = Seat.objects.create(game=game, position=free[0], user=user)
        seats = sorted([*seats, seat], key=lambda s: s.position)
        return selectors.game_payload(_start_if_full(game, seats, timezone.now()), user)


def leave_game(user, game_id) -> dict[str, Any]:
    """Give the seat back, before the start only. A game left without humans is aborted."""
    with transaction.atomic():
        game = _lock(game_id)
        seats = selectors.seats_of(game)
        if not selectors.can_see(game, seats, user):
            raise NotFound("No such game.")
        mine = [seat for seat in seats if seat.user_id == user.pk]
        if not mine:
            raise Forbidden("You have no seat in this game.")
        if game.status != Game.Status.OPEN:
            raise Forbidden(f"This game is {game.status}: seats can only be left before the "
                            f"start.")
        mine[0].delete()
        seats = [seat for seat in seats if seat.pk != mine[0].pk]
        fields = ["updated_at"]
        if not any(seat.user_id for seat in seats):
            game.status = Game.Status.ABORTED
            fields.append("status")
        game.save(update_fields=fields)
        return selectors.game_payload(selectors.Loaded(game=game, seats=seats), user)


def add_bots(user, game_id, count: int, kind: str = DEFAULT_BOT_KIND) -> dict[str, Any]:
    """The creator fills ``count`` empty seats (the lowest first) with bots."""
    with transaction.atomic():
        game = _lock(game_id)
        seats = selectors.seats_of(game)
        if not selectors.can_see(game, seats, user):
            raise NotFound("No such game.")
        if game.created_by_id != user.pk:
            raise Forbidden("Only the game's creator can add bots.")
        free = _free_positions(game, seats)
        if not free:
            raise GameFull()
        if game.status != Game.Status.OPEN:
            raise GameNotActive(f"This game is {game.status}: bots join open games only.")
        if count > len(free):
            raise Invalid({"count": [f"Only {len(free)} seat(s) are free."]})
        seats = sorted([*seats, *Seat.objects.bulk_create(_bot_seats(game, free[:count], kind))],
                       key=lambda s: s.position)
        return selectors.game_payload(_start_if_full(game, seats, timezone.now()), user)


# --------------------------------------------------------------------------------------------
# Moves


def _apply(game: Game, seats: list[Seat], state: Any, mover: int, move: Any, *, actor: str,
           user=None, by_user=None, schedule: bool = True,
           pending: list[PendingDecision] | None = None
           ) -> tuple[Any, list[PendingDecision], list[Seat]]:
    """Under the game lock: apply one move (see :func:`_apply_many`). ``pending``: the game's
    rows as read under this lock, if the caller has them. Returns the new state, the pending
    decisions and the seats (re-read if a table move followed)."""
    step = _Step(game, seats, state, mover, move, actor, user=user, by_user=by_user,
                 pending=pending)
    _apply_many([step], schedule=schedule)
    return step.new_state, step.pending, step.seats


@dataclass
class _Step:
    """One move to apply in a locked game (see :func:`_apply_many`); ``new_state``,
    ``pending`` (the game's rows afterwards) and ``seats`` are filled in."""

    game: Game
    seats: list[Seat]
    state: Any
    mover: int
    move: Any
    actor: str
    user: Any = None
    by_user: Any = None
    pending: list[PendingDecision] | None = None
    new_state: Any = None


def _apply_many(steps: list[_Step], *, schedule: bool = True) -> None:
    """Under the locks of the steps' games (one step per game): ask the engine for every move
    (its errors are raised before anything is written), then, for all of them at once, append
    the records, refresh the snapshots, advance ``seq``, replace the pending decisions, count
    absences and schedule the bots on commit.

    The queries are the same for one step and for many (a burst of timeouts is written in a
    few queries); only a game that ends or a seat marked absent adds its own.
    """
    now = timezone.now()
    results = []
    for step in steps:
        engine = get_game(step.game.kind)
        step.new_state, events = engine.apply(step.state, step.mover, step.move)
        results.append((engine.result(step.new_state), events))
    records: list[MoveRecord] = []
    movers: list[Seat] = []
    ended = False
    for step, (result, events) in zip(steps, results, strict=True):
        game = step.game
        seat = next(seat for seat in step.seats if seat.position == step.mover)
        movers.append(seat)
        game.seq += 1
        game.updated_at = now
        records.append(MoveRecord(
            game=game, seq=game.seq, seat=seat, actor=step.actor,
            by_user=(step.user if step.user is not None and step.user.is_authenticated
                     else step.by_user),
            payload=step.move, events=events))
        if result is not None:
            game.status = Game.Status.FINISHED
            game.finished_at = now
            game.winners = list(result.winner_seats)
            ended = True
    insert_rows(records)
    _write_snapshots([(step.game, step.new_state) for step in steps])
    fields = ["seq", "updated_at"] + (["status", "finished_at", "winners"] if ended else [])
    if len(steps) == 1:
        update_row(steps[0].game, fields)
    else:
        Game.objects.bulk_update([step.game for step in steps], fields)
    syncs = [_PendingSync(step.game, step.new_state, step.seats, step.mover, step.pending)
             for step in steps]
    _sync_pending_many(syncs, now)
    for step, sync in zip(steps, syncs, strict=True):
        step.pending = sync.rows
    from . import notifications

    for step, (result, _events) in zip(steps, results, strict=True):
        if result is not None:
            notifications.game_ended(step.game, step.seats)
    for step, seat, action in zip(steps, movers, _track_absences(steps, movers), strict=True):
        # (not once the game is over: its last move leaves the seats as they were)
        if action is not None and step.game.status == Game.Status.ACTIVE:
            _absence_move(step.game, seat, action)
            game = step.game
            game.refresh_from_db(fields=["seq", "status", "updated_at"])
            step.seats = selectors.seats_of(game)
            step.pending = list(PendingDecision.objects.filter(game_id=game.pk))
    if schedule:
        for step in steps:
            _schedule_bots_on_commit(step.game, step.pending)


def submit_move(game_id, move: Any, *, user=None, player: int | None = None,
                actor: str = Actor.PLAYER, by_user=None, expected_seq: int | None = None,
                idempotency: Idempotency | None = None, schedule: bool = True) -> Outcome:
    """Apply one move, as ``user`` (a client) or as ``player`` (bots, timeouts, moderators,
    the system, who name the engine player index they act for).

    Under the game lock: the idempotency key (a stored answer is replayed), the seat,
    ``expected_seq``, then the engine, which raises its own errors (mapped by the API). Then the
    record is appended, the snapshot refreshed, ``seq`` advanced, the pending decisions replaced
    and, once committed, the bots asked to play. The number of queries does not depend on the
    length of the game.
    """

    def work() -> Outcome:
        with transaction.atomic():
            game = _lock(game_id)
            stored = _stored_answer(idempotency)
            if stored is not None:
                return stored
            seats = selectors.seats_of(game)
            mover = player
            if user is not None:
                if not selectors.can_see(game, seats, user):
                    raise NotFound("No such game.")
                if mover is None:
                    mine = [seat.position for seat in seats if seat.user_id == user.pk]
                    if not mine:
                        raise Forbidden("You have no seat in this game.")
                    mover = mine[0]
            if mover is None:
                raise ValueError("submit_move needs a user or a player")
            if game.status != Game.Status.ACTIVE:
                raise GameNotActive(f"This game is {game.status}: it takes no moves now.")
            if expected_seq is not None and expected_seq != game.seq:
                raise StaleSeq(game.seq)
            state = selectors.load_state(game, persist=False)
            new_state, pending, seats = _apply(game, seats, state, mover, move, actor=actor,
                                               user=user, by_user=by_user, schedule=schedule)
            body: dict[str, Any] = {"seq": game.seq}
            if user is not None:
                loaded = selectors.Loaded(game=game, seats=seats, state=new_state,
                                          pending=pending)
                body["game"] = selectors.game_payload(loaded, user)
            outcome = Outcome(201, body)
            _store_answer(idempotency, outcome)
            return outcome

    return _idempotent(idempotency, work)


def _track_absences(steps: list[_Step], movers: list[Seat]) -> list[str | None]:
    """Count each moving seat's timeouts in a row (one UPDATE for all the seats whose count
    changed); returns, per step, the table action it calls for: ``"absent"`` at the game's
    ``absent_after`` timeouts in a row, ``"back"`` when an absent player acted, else ``None``.
    Under the games' locks."""
    changed: list[Seat] = []
    actions: list[str | None] = []
    for step, seat in zip(steps, movers, strict=True):
        action = None
        if step.actor == Actor.TIMEOUT:
            seat.timeouts_in_row += 1
            changed.append(seat)
            limit = step.game.options.get("absent_after", 3)
            if not seat.absent and isinstance(limit, int) and seat.timeouts_in_row >= limit:
                action = "absent"
        elif step.actor == Actor.PLAYER:
            if seat.absent:
                action = "back"
            elif seat.timeouts_in_row:
                seat.timeouts_in_row = 0
                changed.append(seat)
        actions.append(action)
    if len(changed) == 1:
        changed[0].save(update_fields=["timeouts_in_row"])
    elif changed:
        Seat.objects.bulk_update(changed, ["timeouts_in_row"])
    return actions


def _absence_move(game: Game, seat: Seat, action: str) -> None:
    """Append the table move :func:`_track_absences` called for: a seat marked absent, or
    given back to its player who acted."""
    if action == "absent":
        apply_table_move(game.pk, "absent", player=seat.position,
                         reason=f"{seat.timeouts_in_row} timeouts in a row")
    else:
        apply_table_move(game.pk, "back", player=seat.position)


def _my_seat(game: Game, seats: list[Seat], user) -> Seat:
    if not selectors.can_see(game, seats, user):
        raise NotFound("No such game.")
    mine = [seat for seat in seats if seat.user_id == user.pk]
    if not mine:
        raise Forbidden("You have no seat in this game.")
    return mine[0]


def come_back(user, game_id) -> dict[str, Any]:
    """An absent player says they are back: their seat is theirs again at once (a "back" table
    move), before the bot plays its next decision. Any move of theirs does the same."""
    with transaction.atomic():
        game = _lock(game_id)
        seat = _my_seat(game, selectors.seats_of(game), user)
        if not seat.absent:
            raise Invalid({"seat": ["Your seat is not marked absent."]})
        apply_table_move(game.pk, "back", player=seat.position, actor=Actor.PLAYER,
                         by_user=user)
    loaded = selectors.load_for_viewer(selectors.find_game(game_id), user)
    return selectors.game_payload(loaded, user)


def request_pause(user, game_id, wanted: bool) -> dict[str, Any]:
    """A player asks for a pause (``wanted``) or withdraws the request. When every human player
    of an active game has asked, the game pauses (a table move ``by`` "players"). A player
    withdrawing the request from a game the players paused resumes it; a moderator's pause is
    lifted by a moderator only."""
    with transaction.atomic():
        game = _lock(game_id)
        seats = selectors.seats_of(game)
        seat = _my_seat(game, seats, user)
        if game.status not in (Game.Status.ACTIVE, Game.Status.PAUSED):
            raise GameNotActive(f"This game is {game.status}: it cannot be paused.")
        seat.wants_pause = wanted
        seat.save(update_fields=["wants_pause"])
        humans = [s if s.pk != seat.pk else seat for s in seats if s.user_id is not None]
        if game.status == Game.Status.ACTIVE and wanted and all(s.wants_pause for s in humans):
            apply_table_move(game.pk, "pause", actor=Actor.PLAYER, by_user=user, by="players",
                             reason="All the players asked for a pause.")
        elif game.status == Game.Status.PAUSED and not wanted:
            if selectors.table_state(game).get("paused_by") != "players":
                raise Forbidden("A moderator paused this game: only a moderator can resume it.")
            apply_table_move(game.pk, "resume", actor=Actor.PLAYER, by_user=user, by="players")
            Seat.objects.filter(game_id=game.pk).update(wants_pause=False)
    loaded = selectors.load_for_viewer(selectors.find_game(game_id), user)
    return selectors.game_payload(loaded, user)


def mute_game(user, game_id, muted: bool) -> dict[str, Any]:
    """Switch this game's notifications off (or on again) for ``user``."""
    with transaction.atomic():
        game = _lock(game_id)
        seat = _my_seat(game, selectors.seats_of(game), user)
        seat.muted = muted
        seat.save(update_fields=["muted"])
    return {"muted": muted}


# --------------------------------------------------------------------------------------------
# Table moves (games.engine.table): pause, resume, absent, back, replace, extend, abort

#: The game statuses in which each table action may be taken.
TABLE_ACTION_STATUSES = {
    "pause": (Game.Status.ACTIVE,),
    "resume": (Game.Status.PAUSED,),
    "abort": (Game.Status.OPEN, Game.Status.ACTIVE, Game.Status.PAUSED),
}
TABLE_ACTION_DEFAULT_STATUSES = (Game.Status.ACTIVE, Game.Status.PAUSED)


def _seat_occupant(seat: Seat) -> str:
    return f"bot:{seat.bot_kind}" if seat.is_bot else f"user:{seat.user_id}"


def apply_table_move(game_id, action: str, *, actor: str = Actor.SYSTEM, by_user=None,
                     expected_seq: int | None = None, **fields: Any) -> MoveRecord:
    """Append a table move (``{"type": "table", "action": action, **fields}``) and carry out its
    effect on the site's rows, in one transaction under the game lock.

    - ``pause``: the game's status becomes ``paused``; each pending decision keeps the seconds it
      had left in ``remaining`` (deadline sweeps must skip paused games).
    - ``resume``: ``active`` again; each deadline is set to now + what was left.
    - ``absent`` / ``back`` (``player``): recorded and shown to the table; what plays for an absent
      seat is the caller's policy.
    - ``replace`` (``player``, ``occupant`` ``"user:<id>"`` or ``"bot:<kind>"``): the seat changes
      hands; its pending decisions follow; ``previous`` is filled in here.
    - ``extend`` (``seconds``, optional ``player``): the pending deadlines (of that player, or all)
      move later (while paused: the time left grows).
    - ``abort`` (``reason``): the game is ``aborted``; nothing is awaited any more.

    Raises the engine's ``MalformedMove`` / ``IllegalMove`` (bad payload, or an action the table
    does not allow now), :class:`GameNotActive` for a game in the wrong status, :class:`StaleSeq`
    when ``expected_seq`` is given and the game moved on, :class:`Invalid` for an unknown user.
    Returns the appended record.
    """
    from accounts.models import User

    move: dict[str, Any] = {"type": "table", "action": action, **fields}
    with transaction.atomic():
        game = _lock(game_id)
        allowed = TABLE_ACTION_STATUSES.get(action, TABLE_ACTION_DEFAULT_STATUSES)
        if game.status not in allowed:
            raise GameNotActive(f"This game is {game.status}: it cannot be {action}d now."
                                if action in ("pause", "resume", "abort") else
                                f"This game is {game.status}: nothing can change at its table.")
        if expected_seq is not None and expected_seq != game.seq:
            raise StaleSeq(game.seq)
        seats = selectors.seats_of(game)
        by_position = {seat.position: seat for seat in seats}
        player = fields.get("player")
        if action == "replace" and isinstance(player, int) and player in by_position:
            move["previous"] = _seat_occupant(by_position[player])
        _table, events = apply_table(selectors.table_state(game), move, game.seat_count)
        if isinstance(player, int) and player not in by_position:
            raise Invalid({"player": [f"Seat {player} has nobody in it yet."]})
        now = timezone.now()
        pending = list(PendingDecision.objects.filter(game_id=game.pk))
        fields_to_save = ["seq", "updated_at"]
        reschedule = False
        if action == "pause":
            game.status = Game.Status.PAUSED
            for row in pending:
                row.remaining = max(0, int((row.deadline - now).total_seconds()))
            PendingDecision.objects.bulk_update(pending, ["remaining"])
            fields_to_save.append("status")
        elif action == "resume":
            game.status = Game.Status.ACTIVE
            for row in pending:
                if row.remaining is not None:
                    row.deadline = now + dt.timedelta(seconds=row.remaining)
                    if row.remind_at is not None:
                        row.remind_at = now + dt.timedelta(seconds=row.remaining * REMIND_AT)
                row.remaining = None
            PendingDecision.objects.bulk_update(pending, ["deadline", "remaining", "remind_at"])
            _schedule_countdowns(game, pending)
            fields_to_save.append("status")
            reschedule = True
        elif action in ("absent", "back"):
            seat = by_position[player]
            seat.absent = action == "absent"
            if action == "back":
                seat.timeouts_in_row = 0
            seat.save(update_fields=["absent", "timeouts_in_row"])
            rows = [row for row in pending if row.player == player]
            for row in rows:
                row.bot = _bot_plays(game, seat)
            PendingDecision.objects.bulk_update(rows, ["bot"])
            if action == "absent":
                from . import notifications

                notifications.marked_absent(game, seat)
            reschedule = True
        elif action == "extend":
            rows = [row for row in pending if player is None or row.player == player]
            if not rows:
                raise IllegalMove("No decision is awaited" + (f" from seat {player}" if
                                  player is not None else "") + ": there is no deadline to "
                                  "extend.", code="nothing_to_extend")
            extra = dt.timedelta(seconds=fields["seconds"])
            for row in rows:
                row.deadline += extra
                if row.remind_at is not None:
                    row.remind_at += extra
                if row.remaining is not None:
                    row.remaining += fields["seconds"]
            PendingDecision.objects.bulk_update(rows, ["deadline", "remaining", "remind_at"])
            _schedule_countdowns(game, rows)
        elif action == "replace":
            seat = by_position[player]
            kind, _, ident = fields["occupant"].partition(":")
            if kind == "user":
                user = User.objects.filter(pk=int(ident)).first()
                if user is None:
                    raise Invalid({"occupant": [f"There is no user {ident}."]})
                if any(s.user_id == user.pk for s in seats if s.pk != seat.pk):
                    raise AlreadySeated()
                seat.user, seat.bot_kind = user, ""
            else:
                seat.user, seat.bot_kind = None, ident
            seat.save(update_fields=["user", "bot_kind"])
            rows = [row for row in pending if row.player == player]
            for row in rows:
                row.user_id, row.bot = seat.user_id, seat.is_bot
            PendingDecision.objects.bulk_update(rows, ["user", "bot"])
            reschedule = True
        elif action == "abort":
            game.status = Game.Status.ABORTED
            game.finished_at = now
            PendingDecision.objects.filter(game_id=game.pk).delete()
            fields_to_save += ["status", "finished_at"]
        old_seq = game.seq
        game.seq += 1
        record = MoveRecord.objects.create(
            game=game, seq=game.seq, seat=by_position.get(player) if player is not None else None,
            actor=actor, by_user=by_user if by_user is not None and by_user.is_authenticated
            else None, payload=move, events=events)
        # The rules' state did not change: the snapshot is still current at the new seq.
        Snapshot.objects.filter(game_id=game.pk, seq=old_seq).update(seq=game.seq)
        game.save(update_fields=fields_to_save)
        if reschedule and game.status == Game.Status.ACTIVE:
            _schedule_bots_on_commit(game, PendingDecision.objects.filter(game_id=game.pk))
        return record


# --------------------------------------------------------------------------------------------
# Deadlines: timeouts, the sweep


def push_deadlines_for_vacation(user) -> int:
    """A vacation was declared: the user's pending deadlines are pushed over it (locking each
    game in turn, as a move would)."""
    from accounts.vacations import intervals_by_user, push_deadline

    now = timezone.now()
    intervals = intervals_by_user([user], now).get(user.pk, [])
    changed = 0
    for game_id in (PendingDecision.objects.filter(user=user, bot=False)
                    .values_list("game_id", flat=True).distinct()):
        with transaction.atomic():
            _lock(game_id)
            rows = list(PendingDecision.objects.filter(game_id=game_id, user=user, bot=False))
            for row in rows:
                if row.remaining is not None:  # paused: the time left is pushed on resume
                    continue
                pushed = push_deadline(intervals, now, row.deadline)
                if pushed != row.deadline:
                    if row.remind_at is not None:
                        row.remind_at += pushed - row.deadline
                    row.deadline = pushed
                    changed += 1
            PendingDecision.objects.bulk_update(rows, ["deadline", "remind_at"])
    return changed


def play_timeout(game_id, pending_id: int, *, actor: str = Actor.TIMEOUT, by_user=None,
                 force: bool = False) -> int | None:
    """Play the timeout default (rules §10) of one pending decision whose deadline passed.

    Idempotent and safe late: under the game lock, acts only if that very decision (its row, by
    id) is still awaited, the game is active and, unless ``force`` (a moderator's "play the
    timeout now"), its deadline has passed. The default is applied like any move (the same
    steps as :func:`submit_move`), by ``actor``. Returns the new seq, or ``None`` when there was
    nothing to do.
    """
    with transaction.atomic():
        game = _lock(game_id)
        rows = list(PendingDecision.objects.filter(game_id=game.pk).order_by())
        row = next((row for row in rows if row.pk == pending_id), None)
        if row is None or game.status != Game.Status.ACTIVE:
            return None
        if not force and row.deadline > timezone.now():
            return None
        state = selectors.load_state(game, persist=False)
        move = get_game(game.kind).timeout_move(state, row.player)
        _apply(game, selectors.seats_of(game), state, row.player, move, actor=actor,
               by_user=by_user, pending=rows)
        return game.seq


def resolve_due_deadlines(now: dt.datetime | None = None, limit: int = 200,
                          budget: float = 0.0) -> int:
    """Play the timeout of every decision past its deadline in active games; returns how many.

    Each game is taken with ``SELECT … FOR UPDATE SKIP LOCKED``: several workers sweeping at once
    share the games and never play the same timeout twice (a game locked by a move or by another
    sweep is left for the next round). With a ``budget`` (seconds), rounds of ``limit`` games go
    on while due deadlines remain and time is left (a burst of deadlines is worked through at
    once; another worker's sweep shares it).
    """
    started = time.monotonic()
    played = _resolve_round(now, limit)
    while played and budget and time.monotonic() - started < budget:
        more = _resolve_round(now, limit)
        if not more:
            break
        played += more
    return played


def due_game_ids(now: dt.datetime | None = None, limit: int = 200, among=None) -> list:
    """Active games with a decision past its deadline (``among`` these ids, if given)."""
    now = now or timezone.now()
    rows = PendingDecision.objects.filter(deadline__lte=now, remaining__isnull=True,
                                          game__status=Game.Status.ACTIVE)
    if among is not None:
        rows = rows.filter(game_id__in=list(among))
    return list(rows.order_by("game_id").values_list("game_id", flat=True).distinct()[:limit])


#: Due games per fan-out task when many deadlines fall due at once.
FANOUT_CHUNK = 50
#: Games whose timeouts are played in one transaction (see :func:`resolve_games`).
RESOLVE_BATCH = 25
#: Deadlines anticipated together share a task if they fall within this of the first one.
ANTICIPATE_SPREAD = dt.timedelta(milliseconds=500)


def fan_out_due_deadlines(now: dt.datetime | None = None, limit: int = 5000) -> int:
    """Many games due at once: hand them out in chunks to tasks, so every worker process
    starts on them at once (each game is still taken with SKIP LOCKED). Returns how many
    games were handed out; a broker that does not answer leaves them to the sweep itself."""
    ids = [str(game_id) for game_id in due_game_ids(now, limit)]
    # (the first chunk is the sweep's own)
    return _hand_out([(ids[start:start + FANOUT_CHUNK], None)
                      for start in range(FANOUT_CHUNK, len(ids), FANOUT_CHUNK)])


def _hand_out(chunks: list[tuple[list[str], dt.datetime | None]]) -> int:
    """A ``resolve_games`` task per chunk of game ids (run at its ``eta``, or now). Returns how
    many games were handed out: a broker that does not answer leaves the rest to the sweep."""
    from .tasks import resolve_games

    handed = 0
    for ids, eta in chunks:
        try:
            resolve_games.apply_async(args=[ids], eta=eta, retry_policy=QUICK_RETRY)
        except Exception:
            logger.exception("could not hand out deadlines; the sweep plays them")
            break
        handed += len(ids)
    return handed


def anticipate_deadlines(now: dt.datetime | None = None, horizon: float | None = None,
                         limit: int = 5000) -> int:
    """Deadlines that fall due before the next sweep (within ``horizon`` seconds, by default
    ``SWEEP_SECONDS``) get a task now, run by the broker when they pass: a deadline is resolved
    when it falls due, not up to a sweep interval later, even the ones too far away for a
    countdown when they were set. Games go in chunks of at most :data:`FANOUT_CHUNK` whose
    deadlines lie within :data:`ANTICIPATE_SPREAD`; a chunk runs at its last deadline.

    Nothing depends on these tasks: a chunk run twice, late or never leaves its games to the
    next sweep, and a game another task already resolved is skipped. Returns how many games
    were handed out.
    """
    now = now or timezone.now()
    horizon = settings.SWEEP_SECONDS if horizon is None else horizon
    firsts: dict[str, dt.datetime] = {}
    for game_id, deadline in (PendingDecision.objects
                              .filter(deadline__gt=now,
                                      deadline__lte=now + dt.timedelta(seconds=horizon),
                                      remaining__isnull=True, game__status=Game.Status.ACTIVE)
                              .order_by("deadline").values_list("game_id", "deadline")[:limit]):
        firsts.setdefault(str(game_id), deadline)
    chunks: list[list[tuple[str, dt.datetime]]] = []
    for game_id, deadline in firsts.items():  # in deadline order
        if (not chunks or len(chunks[-1]) >= FANOUT_CHUNK
                or deadline - chunks[-1][0][1] > ANTICIPATE_SPREAD):
            chunks.append([])
        chunks[-1].append((game_id, deadline))
    return _hand_out([([game_id for game_id, _ in chunk], chunk[-1][1]) for chunk in chunks])


def _resolve_round(now: dt.datetime | None, limit: int) -> int:
    return _resolve_in_batches(due_game_ids(now, limit), now)


def resolve_games(game_ids, now: dt.datetime | None = None) -> int:
    """Play the due timeouts of these games (each taken with SKIP LOCKED: a game another
    worker holds is left to it); returns how many were played.

    Games are resolved :data:`RESOLVE_BATCH` to a transaction, their timeouts written together
    (:func:`_resolve_batch`: a few queries and one commit for them all; their mails and bot
    tasks are sent once it is made). If one of them fails, the batch is undone and its games
    are resolved one by one, so a broken game cannot hold the others back (it is logged, and
    left due for the next sweep).
    """
    # One query first: the games with nothing due (resolved by another task, a duplicate
    # chunk, a late run) are not locked one by one.
    ids = [str(game_id) for game_id in game_ids]
    due = {str(game_id) for game_id in due_game_ids(now, len(ids), among=ids)} if ids else set()
    return _resolve_in_batches([game_id for game_id in ids if game_id in due], now)


def _resolve_in_batches(ids: list, now: dt.datetime | None) -> int:
    """:func:`resolve_games` for games known to have something due."""
    played = 0
    for start in range(0, len(ids), RESOLVE_BATCH):
        batch = ids[start:start + RESOLVE_BATCH]
        try:
            with transaction.atomic():
                played += _resolve_batch(batch, now)
            continue
        except Exception:
            logger.warning("a batch of due deadlines failed: its games are resolved one by one",
                           exc_info=True)
        for game_id in batch:
            try:
                with transaction.atomic():
                    played += _resolve_batch([game_id], now)
            except Exception:
                logger.exception("could not resolve the due deadlines of game %s", game_id)
    return played


def _resolve_batch(game_ids: list, now: dt.datetime | None) -> int:
    """Inside a transaction: lock these games (SKIP LOCKED) and play their due timeouts, in
    deadline order within each game. Each round plays one timeout in every game that has one
    due, all written together (:func:`_apply_many`); a timeout may close a window or end the
    game, so the rows are looked at again after each round (in memory: they come back from
    the moves). A few queries per round, whatever the number of games."""
    games = list(Game.objects.select_for_update(skip_locked=True, of=("self",))
                 .select_related("snapshot").filter(pk__in=game_ids, status=Game.Status.ACTIVE)
                 .order_by())
    if not games:
        return 0
    now = now or timezone.now()
    rows: dict[Any, list[PendingDecision]] = {game.pk: [] for game in games}
    for row in PendingDecision.objects.filter(game_id__in=list(rows)).order_by():
        rows[row.game_id].append(row)
    seats: dict[Any, list[Seat]] | None = None
    states: dict[Any, Any] = {}
    played = 0
    for _round in range(max(game.seat_count for game in games) * 2):
        steps = []
        for game in games:
            due = [row for row in rows[game.pk]
                   if row.remaining is None and row.deadline <= now]
            if not due or game.status != Game.Status.ACTIVE:
                continue
            if seats is None:  # read once, for every game, only if something is due
                seats = selectors.seats_by_game(games)
            if game.pk not in states:
                states[game.pk] = selectors.load_state(game, persist=False)
            row = min(due, key=lambda row: (row.deadline, row.seat))
            move = get_game(game.kind).timeout_move(states[game.pk], row.player)
            steps.append(_Step(game, seats[game.pk], states[game.pk], row.player, move,
                               Actor.TIMEOUT, pending=rows[game.pk]))
        if not steps:
            break
        _apply_many(steps)
        for step in steps:
            states[step.game.pk], rows[step.game.pk] = step.new_state, step.pending
            seats[step.game.pk] = step.seats
        played += len(steps)
    return played


def play_stale_bots(now: dt.datetime | None = None, limit: int = 50) -> int:
    """Bot decisions whose task was lost (broker down, worker killed): play them now."""
    now = now or timezone.now()
    stale = (PendingDecision.objects
             .filter(bot=True, created_at__lte=now - BOT_STALE_AFTER,
                     game__status=Game.Status.ACTIVE)
             .values_list("game_id", "game__seq").distinct()[:limit])
    return sum(play_bots(game_id, seq) for game_id, seq in stale)


def forget_old_idempotency_keys(now: dt.datetime | None = None) -> int:
    """Stored Idempotency-Key answers are kept 24 hours."""
    now = now or timezone.now()
    deleted, _ = IdempotencyKey.objects.filter(created_at__lt=now - IDEMPOTENCY_TTL).delete()
    return deleted


# --------------------------------------------------------------------------------------------
# Bots


def _bot(game: Game, kind: str):
    try:
        return get_bot(game.kind, kind or DEFAULT_BOT_KIND)
    except ImportError:
        # A game without its heuristic bot module yet: the random bot stands in.
        logger.warning("no %r bot for %s yet; the random bot plays", kind, game.kind)
        return get_bot(game.kind, "random")
    except InvalidOptions:
        return get_bot(game.kind, "random")


def play_bots(game_id, seq: int, limit: int = BOT_MOVES_PER_TASK) -> int:
    """Play the bots' pending decisions, starting at ``seq``, until a human is awaited, the game
    ends, someone else moved, or ``limit`` moves were played (then a new task takes over).

    Idempotent: each move is sent with ``expected_seq``, so a duplicate or late run finds the
    game moved on and stops. Returns the number of moves played.
    """
    played = 0
    raw: list[tuple[int, dict]] = []
    raw_upto = 0
    while played < limit:
        game = selectors.game_queryset().filter(pk=game_id).first()
        if game is None or game.status != Game.Status.ACTIVE or game.seq != seq:
            return played
        row = (PendingDecision.objects.filter(game_id=game.pk, bot=True)
               .order_by("deadline", "seat").first())
        if row is None:
            return played
        seats = selectors.seats_of(game)
        seat = next(s for s in seats if s.position == row.player)
        engine = get_game(game.kind)
        state = selectors.load_state(game)
        legal = engine.legal_moves(state, row.player)
        if not legal:
            logger.error("game %s: bot player %s is pending but has no legal move",
                         game.pk, row.player)
            return played
        if raw_upto < game.seq:
            raw.extend(selectors.raw_events(game.pk, raw_upto, game.seq))
            raw_upto = game.seq
        history = selectors.viewer_history(game, state, row.player, raw)
        move = _bot(game, seat.bot_kind).choose(engine.view(state, row.player), legal, history,
                                               bot_rng(game.seed, seq, row.player))
        try:
            submit_move(game.pk, move, player=row.player, actor=Actor.BOT, expected_seq=seq,
                        schedule=False)
        except StaleSeq:
            return played
        seq += 1
        played += 1
    if PendingDecision.objects.filter(game_id=game_id, bot=True, game__seq=seq,
                                      game__status=Game.Status.ACTIVE).exists():
        enqueue_bots(str(game_id), seq)
    return played
