"""What a viewer may see of a game: every answer about a game goes through the engine's
projection for its viewer (``Game.view`` for the state, ``Game.view_event`` for the history):
the site's single projection point, used by the API, the pages, the mails and the streams.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

from django.utils import timezone

from games.core import deadlines
from games.core.catalog import get_game, get_kit
from games.core.selectors.loading import Loaded
from games.core.selectors.state import iso
from games.engine import SPECTATOR
from games.engine.replay import view_event
from games.engine.table import fold_table
from games.models import Game, MoveRecord, PendingDecision, Seat
from games.ratings.selectors import complete_seat_figures, seat_figures

#: How many moves one page of ``/events/`` covers at most.
EVENTS_PAGE_MOVES = 200


def _names(seats: list[Seat]) -> tuple[dict[int, str], dict[int, bool]]:
    return ({seat.position: seat.name for seat in seats},
            {seat.position: seat.is_bot for seat in seats})


def players_payload(seats: list[Seat]) -> list[dict[str, Any]]:
    """The seats as every viewer sees them: who, their badges, their rating at this game and
    their reliability (read with the seats: ``games.ratings.selectors.seat_figures``)."""
    return [{"position": seat.position, "player": seat.name, "is_bot": seat.is_bot,
             "absent": seat.absent, "wants_pause": seat.wants_pause,
             "vacation": bool(getattr(seat, "on_vacation", False)), **seat_figures(seat)}
            for seat in seats]


def with_clocks(players: list[dict[str, Any]], game: Game, seats: list[Seat],
                pending: list[PendingDecision] | None) -> list[dict[str, Any]]:
    """The players (:func:`players_payload`), each with their seat's ``clock``
    (:func:`clock_payload`; ``None`` in a game without a time bank). ``pending``: the game's
    pending decisions (``None``: not read, as for a game not under way)."""
    bank = deadlines.bank_of(game.options)
    rows = {row.player: row for row in pending or ()}
    by_position = {seat.position: seat for seat in seats}
    return [{**player, "clock": clock_payload(bank, game, by_position[player["position"]],
                                               rows.get(player["position"]))
             if bank is not None else None} for player in players]


def clock_payload(bank: deadlines.Bank, game: Game, seat: Seat,
                  row: PendingDecision | None) -> dict[str, Any]:
    """A seat's time bank: ``remaining``, its seconds at ``running_since`` while its clock
    runs (a decision of the seat is awaited: what its bank had plus the increment, from when
    the decision began or the game resumed; the clock stops during the player's vacations and
    runs out at the decision's deadline), else now (``running_since`` null: nothing awaited
    from the seat, or the game paused). No reader's time in it: the answer changes only when
    the game does."""
    if row is not None and game.status in (Game.Status.ACTIVE, Game.Status.PAUSED):
        if row.remaining is not None or game.status == Game.Status.PAUSED:
            left = row.remaining if row.remaining is not None else row.clock_seconds
            return {"remaining": int(left), "running_since": None}
        return {"remaining": int(row.clock_seconds), "running_since": iso(row.clock_from)}
    return {"remaining": bank.start(seat.bank_seconds), "running_since": None}


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
    out = summary_payload(game, loaded.seats, loaded.pending if state is not None else None)
    out["state"] = state
    out["you"] = you
    if game.private and player is not None:
        out["invite_code"] = game.invite_code
    return out


def summary_payload(game: Game, seats: list[Seat],
                    pending: list[PendingDecision] | None = None) -> dict[str, Any]:
    """What listings show of a game: no state. ``pending``: its pending decisions, for its
    seats' clocks in a game with a time bank (``games.core.selectors.pending_by_game`` reads
    those of a list of games)."""
    complete_seat_figures(seats, game.kind)  # (a seat made since the seats were read)
    return {
        "id": str(game.id),
        "game": game.kind,
        "name": game.title,
        "status": game.status,
        "private": game.private,
        "created_by": game.created_by.username if game.created_by_id else None,
        "options": game.options,
        "seq": game.seq,
        "seats_total": game.seat_count,
        "seats_free": max(0, game.seat_count - len(seats)),
        "players": with_clocks(players_payload(seats), game, seats, pending),
        "winners": list(game.winners or []),
        "created_at": iso(game.created_at),
        "updated_at": iso(game.updated_at),
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
        "min_reliability": game.min_reliability,
        "rematch": str(game.rematch_id) if game.rematch_id else None,
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
                   limit: int = EVENTS_PAGE_MOVES, *, viewer: Any = None) -> dict[str, Any]:
    """The viewer's view of the events of the moves after ``after``, at most ``limit`` moves.
    The viewer is ``user``'s seat (a spectator without one); ``viewer`` names another (an engine
    player index, ``SPECTATOR`` or ``MODERATOR``) for the admin's histories, which check who
    may read it and log it (``moderation.services.game_history``)."""
    game = loaded.game
    results: list[dict] = []
    next_after = after
    if loaded.state is not None:
        engine = get_game(game.kind)
        if viewer is None:
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


def opening_events(loaded: Loaded, user, *, viewer: Any = None) -> list[dict]:
    """What the game's setup did that no move's events tell, as the viewer saw it (Shadow House
    deals round 1 and plays its First on scene in its setup, ruling SH-15): the kit's
    :meth:`~games.core.kit.GameKit.opening_events` from the viewer's projection of the state
    right after the setup (the game's options and seed, replayed without a move; ``viewer`` as
    :func:`events_payload`'s), each with ``seq`` 0. Empty before the start and for a game whose
    kit tells none. Needs the seats only (``load_for_viewer(..., with_state=False)`` will
    do)."""
    game = loaded.game
    kit = get_kit(game.kind)
    if game.started_at is None or not kit.tells_opening:
        return []
    start = Loaded(game=game, seats=loaded.seats,
                   state=get_game(game.kind).setup(game.options, game.seed))
    if viewer is None:
        viewer = loaded.player_of(user)
    state, you = state_payload(start, None if viewer == SPECTATOR else viewer)
    return [{**event, "seq": 0, "at": None, "actor": "rules"}
            for event in kit.opening_events(state, you)]


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


def pause_of(game: Game) -> dict[str, Any] | None:
    """Who paused a paused game, when and why, from its latest pause (a table move, public like
    every table event): ``{"by": "players" | "moderator", "reason", "at", "asked_last"}``
    (``asked_last``: the player whose request completed the players' pause; a moderator is not
    named); ``None`` when the game is not paused. One query."""
    if game.status != Game.Status.PAUSED:
        return None
    record = (MoveRecord.objects.filter(game_id=game.pk, payload__type="table",
                                        payload__action="pause", seq__lte=game.seq)
              .select_related("by_user").order_by("-seq").first())
    if record is None:
        return None
    by = record.payload.get("by") or ""
    return {"by": by, "reason": record.payload.get("reason", ""), "at": record.created_at,
            "asked_last": (record.by_user.username if by == "players" and record.by_user_id
                           else None)}


def own_moves_since(game: Game, user, after: int) -> set[int]:
    """The seqs after ``after`` of the moves ``user`` made themself at this table (their
    decisions, their table requests; not a timeout's default nor a bot standing in for them):
    what the page need not tell them as new. One query."""
    if user is None or not user.is_authenticated:
        return set()
    return set(MoveRecord.objects.filter(game_id=game.pk, seq__gt=after, seq__lte=game.seq,
                                         by_user_id=user.pk, actor=MoveRecord.Actor.PLAYER)
               .values_list("seq", flat=True))


def raw_events(game_id, after: int, upto: int) -> list[tuple[int, dict]]:
    """The stored events (whole truth, never shown as is) of moves ``after < seq <= upto``."""
    rows = (MoveRecord.objects.filter(game_id=game_id, seq__gt=after, seq__lte=upto)
            .order_by("seq").values_list("seq", "events"))
    return [(seq, event) for seq, events in rows for event in events]
