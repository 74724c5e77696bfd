"""Reads: a game's engine state, and everything a viewer may see of it.

Every answer about a game goes through the engine's projection for its viewer (``Game.view`` for
the state, ``Game.view_event`` for the history): this module is the site's single projection
point. The engine state comes from the :class:`~games.models.Snapshot` when it is current, else
from the snapshot plus the moves after it, else from a full replay of the stored moves; either
way the number of queries does not depend on the length of the game.
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import zoneinfo
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db.models import Count, Exists, F, Max, Min, OuterRef, Q, QuerySet
from django.utils import timezone

from accounts.models import ChatMute, User, Vacation
from games.core import dispatch
from games.core.catalog import get_game, get_kit
from games.core.deadlines import Interval
from games.engine import SPECTATOR
from games.engine.replay import view_event
from games.engine.table import fold_table, is_table_move
from games.models import ChatHide, ChatMessage, Game, MoveRecord, PendingDecision, Seat, Snapshot

#: How many moves one page of ``/events/`` covers at most.
EVENTS_PAGE_MOVES = 200


def iso(value: dt.datetime | None) -> str | None:
    """ISO 8601 in UTC with a ``Z``, to the second (API.md "Conventions")."""
    if value is None:
        return None
    return value.astimezone(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


# --------------------------------------------------------------------------------------------
# The engine state


def cached_snapshot(game: Game) -> Snapshot | None:
    """The snapshot loaded with ``select_related("snapshot")`` (or by one query), if any."""
    try:
        return game.snapshot
    except ObjectDoesNotExist:
        return None


def load_state(game: Game, *, ask_refresh: bool = True) -> Any:
    """The engine state after ``game.seq`` moves, or ``None`` for a game that never started (open,
    or aborted before its last seat was taken).

    Current snapshot: no replay. Older snapshot: the moves after it are applied. None (or one
    ahead of the game row read earlier): a full replay from the seed. A selector never writes:
    when the snapshot was missing or behind, a task is asked to rebuild it
    (``games.core.services.snapshots``); the write path keeps it current otherwise.
    """
    if game.status == Game.Status.OPEN or game.started_at is None:
        return None
    engine = get_game(game.kind)
    snap = cached_snapshot(game)
    if snap is not None and snap.seq == game.seq:
        return engine.from_json(snap.state)
    if snap is not None and snap.seq < game.seq:
        state, after = engine.from_json(snap.state), snap.seq
    else:
        state, after = engine.setup(game.options, game.seed), 0
    moves = (MoveRecord.objects.filter(game_id=game.pk, seq__gt=after, seq__lte=game.seq)
             .order_by("seq").values_list("seat__position", "payload"))
    for player, payload in moves:
        if is_table_move(payload):  # pauses, replacements...: the site's, not the rules'
            continue
        state, _events = engine.apply(state, player, payload)
    if ask_refresh:
        dispatch.refresh_snapshot(game.pk)
    return state


# --------------------------------------------------------------------------------------------
# Loading a game for a viewer


@dataclass
class Loaded:
    """A game with its seats (by position), state and pending decisions, as read together."""

    game: Game
    seats: list[Seat]
    state: Any = None
    pending: list[PendingDecision] = field(default_factory=list)
    #: The pending decisions, read with the seats before the state was loaded (see
    #: :func:`complete`); ``None`` if not.
    pending_read: list[PendingDecision] | None = None

    def player_of(self, user) -> int | None:
        """The viewer's engine player index, or ``None`` for a spectator."""
        if user is None or not user.is_authenticated:
            return None
        for seat in self.seats:
            if seat.user_id == user.pk:
                return seat.position
        return None

    def seat_at(self, position: int) -> Seat:
        for seat in self.seats:
            if seat.position == position:
                return seat
        raise LookupError(position)


def game_queryset() -> QuerySet[Game]:
    return Game.objects.select_related("snapshot", "created_by")


def _seats_with_vacations(today: dt.date, yesterday: dt.date) -> QuerySet[Seat]:
    """Seats with their users, each marked ``on_vacation`` (their user declared ``today``, UTC,
    a vacation day) and ``vacation_ahead`` (a vacation under way or to come; from
    ``yesterday``: one ending today in a time zone behind UTC)."""
    mine = Vacation.objects.filter(user_id=OuterRef("user_id"))
    return Seat.objects.select_related("user").annotate(
        on_vacation=Exists(mine.filter(start__lte=today, end__gte=today)),
        vacation_ahead=Exists(mine.filter(end__gte=yesterday)))


def _days() -> tuple[dt.date, dt.date]:
    today = timezone.now().date()
    return today, today - dt.timedelta(days=1)


def pending_of(game_id) -> list[PendingDecision]:
    """The pending decisions of one game: one query."""
    return list(PendingDecision.objects.filter(game_id=game_id))


def seats_of(game: Game) -> list[Seat]:
    """The seats of one game by position, with their users and vacations: one query."""
    return seats_by_id(game.pk)


def seats_by_id(game_id) -> list[Seat]:
    return list(_seats_with_vacations(*_days()).filter(game_id=game_id).order_by("position"))


def seats_and_pending(game: Game) -> tuple[list[Seat], list[PendingDecision]]:
    """The seats of one game (as :func:`seats_of`) and its pending decisions: two queries."""
    return seats_of(game), pending_of(game.pk)


def can_see(game: Game, seats: list[Seat], user) -> bool:
    """Public games: everyone, anonymous spectators included. Private: their players and staff."""
    if not game.private:
        return True
    if user is None or not user.is_authenticated:
        return False
    return user.is_staff or any(seat.user_id == user.pk for seat in seats)


def find_game(game_id) -> Game | None:
    """The game row with its snapshot and creator, in one query (whoever may see it: see
    :func:`load_for_viewer`); ``None`` for no such game or an id that is no game's."""
    try:
        return game_queryset().filter(pk=game_id).first()
    except (ValueError, ValidationError):
        return None


def find_and_load(game_id, user, *, with_state: bool = True) -> Loaded | None:
    """:func:`find_game`, then :func:`load_for_viewer` with the pending decisions: the game
    with its snapshot and creator, its seats and its pending decisions; ``None`` if there is
    no such game or ``user`` may not see it."""
    game = find_game(game_id)
    if game is None:
        return None
    return load_for_viewer(game, user, with_state=with_state)


def load_for_viewer(game: Game, user, *, with_state: bool = True,
                    with_pending: bool = True) -> Loaded | None:
    """Seats, state and pending decisions of ``game``; ``None`` if ``user`` may not see it.
    The seats and the pending decisions of a game under way are read in one query, even
    without the state (``with_state=False``: :func:`complete` adds it, and takes them); those
    of a game the user may not see are read and left."""
    pending = None
    if with_pending and game.started_at is not None:
        seats, pending = seats_and_pending(game)
    else:
        seats = seats_of(game)
    if not can_see(game, seats, user):
        return None
    loaded = Loaded(game=game, seats=seats, pending_read=pending)
    if with_state:
        complete(loaded, with_pending=with_pending)
    return loaded


def complete(loaded: Loaded, *, with_pending: bool = True) -> Loaded:
    """Add the state (and pending decisions, unless already read with the seats) to a game
    loaded without them."""
    loaded.state = load_state(loaded.game)
    if with_pending and loaded.state is not None:
        loaded.pending = (pending_of(loaded.game.pk) if loaded.pending_read is None
                          else loaded.pending_read)
    return loaded


# --------------------------------------------------------------------------------------------
# Projections


def _names(seats: list[Seat]) -> tuple[dict[int, str], dict[int, bool]]:
    return ({seat.position: seat.name for seat in seats},
            {seat.position: seat.is_bot for seat in seats})


def players_payload(seats: list[Seat]) -> list[dict[str, Any]]:
    return [{"position": seat.position, "player": seat.name, "is_bot": seat.is_bot,
             "absent": seat.absent, "wants_pause": seat.wants_pause,
             "vacation": bool(getattr(seat, "on_vacation", False))} for seat in seats]


def _name(names: dict[int, str], player: Any) -> Any:
    if isinstance(player, int) and not isinstance(player, bool):
        return names.get(player, player)
    return player


def site_seq(engine_seq: int, table_seqs: list[int]) -> int:
    """The site's seq of the rules' move number ``engine_seq``: the rules count their own moves,
    the site's seq counts the table moves too (pauses, absences…: ``Game.table_seqs``)."""
    seq = engine_seq
    for table_seq in table_seqs:  # ascending
        if table_seq > seq:
            break
        seq += 1
    return seq


def _renumber(value: Any, table_seqs: list[int]) -> Any:
    """``value`` with every ``seq`` key, at any depth, given as the site's seq."""
    if isinstance(value, dict):
        return {key: (site_seq(item, table_seqs) if key == "seq" and isinstance(item, int)
                      else _renumber(item, table_seqs)) for key, item in value.items()}
    if isinstance(value, list):
        return [_renumber(item, table_seqs) for item in value]
    return value


def player_view(game: Game, state: Any, viewer: Any) -> dict[str, Any]:
    """The engine's view of ``state`` for ``viewer``, its move numbers (every key named ``seq``:
    what the viewer saw when, a card's last move...) given as the site's seqs, as the history
    numbers its moves. A rules' seq 0 ("none yet") stays 0."""
    view = get_game(game.kind).view(state, viewer)
    table_seqs = game.table_seqs or []
    return _renumber(view, table_seqs) if table_seqs else view


def state_payload(loaded: Loaded, viewer_player: int | None) -> tuple[dict | None, dict | None]:
    """``(state, you)`` for the viewer: the engine's view, players named, deadlines added.
    ``you`` is the engine's (the viewer's private knowledge), its ``seat`` first and without the
    engine's player index (the site names players)."""
    if loaded.state is None:
        return None, None
    view = player_view(loaded.game, loaded.state,
                       viewer_player if viewer_player is not None else SPECTATOR)
    you = view.pop("you", None)
    names, bots = _names(loaded.seats)
    deadlines = {row.player: row.deadline for row in loaded.pending}
    if isinstance(view.get("seats"), list):
        view["seats"] = [{**seat, "player": _name(names, seat.get("player")),
                          "is_bot": bots.get(seat.get("player"), False)}
                         for seat in view["seats"]]
    if isinstance(view.get("awaiting"), list):
        view["awaiting"] = [{**item, "player": _name(names, item.get("player")),
                             "deadline": iso(deadlines.get(item.get("player")))}
                            for item in view["awaiting"]]
    if viewer_player is None:
        return view, None
    you = you if isinstance(you, dict) else {}
    out = {"seat": you.get("seat", viewer_player)}
    out.update((key, value) for key, value in you.items() if key not in ("seat", "player"))
    return view, out


def game_payload(loaded: Loaded, user) -> dict[str, Any]:
    """The game as ``user`` may see it (API.md "The game as seen by a viewer")."""
    game = loaded.game
    player = loaded.player_of(user)
    state, you = state_payload(loaded, player)
    if you is None and player is not None:
        # Before the start: the viewer's seat, and the game's private parts empty.
        you = {"seat": player, **copy.deepcopy(get_kit(game.kind).you_before_start)}
    if you is not None:
        # Added to the contract's shape: a client reads the game and moves, one request less.
        you["legal_moves"] = _legal_moves(loaded, player)
    out = summary_payload(game, loaded.seats)
    out["state"] = state
    out["you"] = you
    if game.private and player is not None:
        out["invite_code"] = game.invite_code
    return out


def summary_payload(game: Game, seats: list[Seat]) -> dict[str, Any]:
    """What listings show of a game: no state."""
    return {
        "id": str(game.id),
        "game": game.kind,
        "status": game.status,
        "private": game.private,
        "created_by": game.created_by.username if game.created_by_id else None,
        "options": game.options,
        "seq": game.seq,
        "seats_total": game.seat_count,
        "seats_free": max(0, game.seat_count - len(seats)),
        "players": players_payload(seats),
        "winners": list(game.winners or []),
        "created_at": iso(game.created_at),
        "updated_at": iso(game.updated_at),
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
    }


def etag(game: Game, user) -> str:
    """The ETag of ``game`` as ``user`` sees it: every write that changes any viewer's answer
    bumps the game's ``version``; the viewer and the day (UTC) are in it too (the players'
    ``vacation`` flags are those of the day)."""
    viewer = user.pk if user is not None and user.is_authenticated else "anon"
    raw = (f"{game.pk}:{game.version}:{game.seq}:{game.status}:{viewer}:"
           f"{timezone.now().date().isoformat()}")
    return '"' + hashlib.sha256(raw.encode()).hexdigest()[:32] + '"'


def legal_moves_payload(loaded: Loaded, user) -> dict[str, Any]:
    return {"seq": loaded.game.seq, "moves": _legal_moves(loaded, loaded.player_of(user))}


def legal_moves_for(loaded: Loaded, player: int | None) -> list:
    """The moves ``player`` may send now (see :func:`_legal_moves`)."""
    return _legal_moves(loaded, player)


def _legal_moves(loaded: Loaded, player: int | None) -> list:
    """The moves ``player`` may send now (none for a spectator, or while the game is not
    active)."""
    if (player is None or loaded.state is None
            or loaded.game.status != Game.Status.ACTIVE):
        return []
    return get_game(loaded.game.kind).legal_moves(loaded.state, player)


def _event_payload(seq: int, at: str | None, actor: str, event: dict,
                   names: dict[int, str]) -> dict:
    out: dict[str, Any] = {"seq": seq, "at": at, "actor": actor}
    for key, value in event.items():
        if key in ("seq", "at", "actor"):
            continue
        if key in ("player", "target_player"):
            value = _name(names, value)
        elif key == "players" and isinstance(value, list):
            value = [_name(names, v) for v in value]
        out[key] = value
    return out


def events_payload(loaded: Loaded, user, after: int,
                   limit: int = EVENTS_PAGE_MOVES) -> dict[str, Any]:
    """The viewer's view of the events of the moves after ``after``, at most ``limit`` moves."""
    game = loaded.game
    results: list[dict] = []
    next_after = after
    if loaded.state is not None:
        engine = get_game(game.kind)
        player = loaded.player_of(user)
        viewer = player if player is not None else SPECTATOR
        names, _bots = _names(loaded.seats)
        records = (MoveRecord.objects.filter(game_id=game.pk, seq__gt=after, seq__lte=game.seq)
                   .order_by("seq").values_list("seq", "created_at", "actor", "events")[:limit])
        for seq, created_at, actor, events in records:
            at = iso(created_at)
            for event in events:
                seen = view_event(engine, event, viewer, loaded.state)
                if seen is not None:
                    results.append(_event_payload(seq, at, actor, seen, names))
            next_after = seq
    return {"results": results, "next_after": next_after,
            "more": next_after < game.seq}


def stand_ins(loaded: Loaded, after: int, upto: int) -> dict[int, str]:
    """The moves ``after < seq <= upto`` a bot played for a seat that is not a bot's (an absent
    player's, under the "bot" policy): seq → the name of that seat's player. One query."""
    humans = {seat.pk: seat.name for seat in loaded.seats if not seat.is_bot}
    if not humans or upto <= after:
        return {}
    rows = (MoveRecord.objects.filter(game_id=loaded.game.pk, seq__gt=after, seq__lte=upto,
                                      actor=MoveRecord.Actor.BOT, seat_id__in=list(humans))
            .values_list("seq", "seat_id"))
    return {seq: humans[seat] for seq, seat in rows}


def viewer_history(game: Game, state: Any, player: int,
                   raw: list[tuple[int, dict]] | None = None) -> list[dict]:
    """A player's own view of the whole history, oldest first, each event with its ``seq``:
    what a bot decides from (``games.engine.bots``). ``raw`` may hold the stored events already
    read (``(seq, event)`` pairs) to save the query."""
    engine = get_game(game.kind)
    if raw is None:
        raw = raw_events(game.pk, 0, game.seq)
    out = []
    for seq, event in raw:
        seen = view_event(engine, event, player, state)
        if seen is not None:
            out.append({**seen, "seq": seq})
    return out


def table_state(game: Game) -> dict[str, Any]:
    """The table state (:mod:`games.engine.table`) folded from the game's table moves: one query,
    reading only the table moves (a handful per game)."""
    payloads = (MoveRecord.objects.filter(game_id=game.pk, payload__type="table", seq__lte=game.seq)
                .order_by("seq").values_list("payload", flat=True))
    return fold_table(payloads, game.seat_count)


def raw_events(game_id, after: int, upto: int) -> list[tuple[int, dict]]:
    """The stored events (whole truth, never shown as is) of moves ``after < seq <= upto``."""
    rows = (MoveRecord.objects.filter(game_id=game_id, seq__gt=after, seq__lte=upto)
            .order_by("seq").values_list("seq", "events"))
    return [(seq, event) for seq, events in rows for event in events]


# --------------------------------------------------------------------------------------------
# Listings


def public_games(status: str | None = None, kind: str | None = None) -> QuerySet[Game]:
    qs = Game.objects.filter(private=False).select_related("created_by")
    if status:
        qs = qs.filter(status=status)
    if kind:
        qs = qs.filter(kind=kind)
    return qs.order_by("-created_at")


def games_of(user, status: str | None = None, my_turn: bool | None = None) -> QuerySet[Game]:
    """The viewer's games: those awaiting them first (nearest deadline first), then the others
    by their nearest deadline, then the most recently changed."""
    qs = (Game.objects.filter(seats__user=user).select_related("created_by")
          .annotate(your_deadline=Min("pending_decisions__deadline",
                                      filter=Q(pending_decisions__user=user)),
                    next_deadline=Min("pending_decisions__deadline")))
    if status:
        qs = qs.filter(status=status)
    if my_turn is True:
        qs = qs.filter(your_deadline__isnull=False)
    elif my_turn is False:
        qs = qs.filter(your_deadline__isnull=True)
    return qs.order_by(F("your_deadline").asc(nulls_last=True),
                       F("next_deadline").asc(nulls_last=True), "-updated_at", "id")


def your_turn_count(user) -> int:
    """How many games under way await ``user`` (a decision of theirs pending): one query."""
    if user is None or not user.is_authenticated:
        return 0
    return (PendingDecision.objects.filter(user=user, game__status=Game.Status.ACTIVE)
            .values("game_id").distinct().count())


def next_deadlines(game_ids: list) -> dict[Any, Any]:
    """The nearest deadline of each of these games (by game id; games awaiting nobody are
    left out): one query."""
    if not game_ids:
        return {}
    return dict(PendingDecision.objects.filter(game_id__in=game_ids).values("game_id")
                .annotate(nearest=Min("deadline")).values_list("game_id", "nearest"))


def seats_by_game(games: list[Game]) -> dict[Any, list[Seat]]:
    """The seats of several games (by game id, each by position) with their users and their
    vacations: one query."""
    out: dict[Any, list[Seat]] = {game.pk: [] for game in games}
    for seat in _seats_with_vacations(*_days()).filter(game_id__in=list(out)).order_by(
            "game_id", "position"):
        out[seat.game_id].append(seat)
    return out


# --------------------------------------------------------------------------------------------
# Vacations as spans of time


def _zone(user: User) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(user.timezone or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def today_for(user: User, now: dt.datetime | None = None) -> dt.date:
    return (now or timezone.now()).astimezone(_zone(user)).date()


def interval(vacation: Vacation, user: User) -> Interval:
    """The vacation as a span of time: from the first day's midnight to the day after the last's,
    in the user's time zone."""
    zone = _zone(user)
    start = dt.datetime.combine(vacation.start, dt.time(), tzinfo=zone)
    end = dt.datetime.combine(vacation.end + dt.timedelta(days=1), dt.time(), tzinfo=zone)
    return start.astimezone(dt.UTC), end.astimezone(dt.UTC)


def intervals_by_user(users: Iterable[User], since: dt.datetime | None = None
                      ) -> dict[int, list[Interval]]:
    """The vacations of several users that end at ``since`` (default: now) or later, in one
    query."""
    users = {user.pk: user for user in users if user is not None}
    out: dict[int, list[Interval]] = defaultdict(list)
    if not users:
        return out
    # (a day earlier: a vacation ending that day in a time zone behind UTC)
    earliest = (since or timezone.now()).date() - dt.timedelta(days=1)
    for vacation in Vacation.objects.filter(user_id__in=list(users), end__gte=earliest):
        out[vacation.user_id].append(interval(vacation, users[vacation.user_id]))
    return out


def intervals_for_rows(rows: Iterable[PendingDecision]) -> dict[int, list[Interval]]:
    """The vacations that may stop the clocks of these pending rows, by user (one query, none
    if no human is awaited)."""
    rows = [row for row in rows if row.user_id is not None and not row.bot]
    if not rows:
        return {}
    since = min(row.clock_from for row in rows)
    return intervals_by_user(User.objects.filter(pk__in={row.user_id for row in rows}), since)


# --------------------------------------------------------------------------------------------
# The table chat

#: The latest messages a table page shows (the API pages through all of them).
CHAT_PAGE_MESSAGES = 100
#: Messages a moderator sees on each side of a reported one.
CHAT_CONTEXT = 5


def _with_hidden_flag(qs: QuerySet[ChatMessage]) -> QuerySet[ChatMessage]:
    return qs.select_related("author").annotate(
        hidden=Exists(ChatHide.objects.filter(message_id=OuterRef("pk"))))


def chat_messages(game: Game, viewer, *, with_hidden: bool = False,
                  after: int | None = None) -> QuerySet[ChatMessage]:
    """The table chat of ``game`` as ``viewer`` reads it, oldest first: without the messages
    of the users they muted, nor those a moderator hid (``with_hidden``: with them, each
    marked ``hidden``: for moderators); with ``after``, only the messages after that one.
    The caller has checked that ``viewer`` may see the game (:func:`can_see`)."""
    qs = _with_hidden_flag(ChatMessage.objects.filter(game_id=game.pk))
    if not with_hidden:
        qs = qs.filter(hidden=False)
    if after is not None:
        qs = qs.filter(pk__gt=after)
    if viewer is not None and viewer.is_authenticated:
        qs = qs.exclude(author_id__in=ChatMute.objects.filter(user_id=viewer.pk)
                        .values("muted_id"))
    return qs.order_by("id")


def latest_chat(game: Game, viewer, *, with_hidden: bool = False, upto_seq: int | None = None,
                limit: int = CHAT_PAGE_MESSAGES) -> list[ChatMessage]:
    """The latest ``limit`` messages of :func:`chat_messages`, oldest first (those written up
    to the move ``upto_seq`` for a replay)."""
    qs = chat_messages(game, viewer, with_hidden=with_hidden)
    if upto_seq is not None:
        qs = qs.filter(seq__lte=upto_seq)
    return list(reversed(qs.order_by("-id")[:limit]))


def chat_version(game: Game, viewer) -> str:
    """What changes whenever ``viewer``'s chat of ``game`` may read differently: its last
    message, its last hide, the viewer's mutes (for the table's live ETag)."""
    found = ChatMessage.objects.filter(game_id=game.pk).aggregate(last=Max("id"),
                                                                  hidden=Max("hide__id"))
    mutes: dict[str, Any] = {}
    if viewer is not None and viewer.is_authenticated:
        mutes = ChatMute.objects.filter(user_id=viewer.pk).aggregate(count=Count("id"),
                                                                     last=Max("id"))
    return f"{found['last']}:{found['hidden']}:{mutes.get('count')}:{mutes.get('last')}"


def chat_payload(message: ChatMessage, kit=None) -> dict[str, Any]:
    """A chat message as the API gives it: who wrote it (their name and seat; a bot's seat has
    no user), what they wrote, as written (never changed: a client escapes it where it shows
    it), the label of its source for a line of the game's rules, and whether a moderator hid
    it (only moderators are ever given hidden messages)."""
    name = None
    if message.author_id is not None:
        name = message.author.username
    elif message.seat is not None:
        name = f"Bot {message.seat + 1}"
    label = None
    if message.source:
        kit = kit or get_kit(message.game.kind)
        label = str(kit.chat_source_label(message.source))
    return {"id": message.pk, "seq": message.seq, "player": name, "position": message.seat,
            "is_bot": message.author_id is None, "text": message.text,
            "source": message.source or None, "source_label": label,
            "created_at": iso(message.created_at),
            "hidden": bool(getattr(message, "hidden", False))}


def chat_context(message: ChatMessage, around: int = CHAT_CONTEXT) -> list[ChatMessage]:
    """The reported ``message`` with up to ``around`` messages of its game on each side, hidden
    ones included (marked), oldest first: what a moderator reads it in."""
    game_messages = _with_hidden_flag(ChatMessage.objects.filter(game_id=message.game_id))
    before = list(game_messages.filter(pk__lt=message.pk).order_by("-id")[:around])
    rest = list(game_messages.filter(pk__gte=message.pk).order_by("id")[:around + 1])
    return [*reversed(before), *rest]
