"""The table: a game's page as its viewer sees it (the seats, the decisions awaited, the history,
the moves offered, the chat; a finished game's replay), its waiting room for an invite link, and
its live part (htmx polling, 304 while nothing changed). Reads through ``selectors`` (the
viewer's projection, the same as the API's); the forms it posts are
:mod:`games.web.table_actions`'s."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Any

from django.db.models import Q
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games.core import catalog, selectors
from games.core.kit import Board, history_lines, seat_bank, speed_words
from games.live import presence
from games.models import Game, Seat
from games.web import push
from games.web.chat import chat_context, chat_version
from games.web.clock import time_left, viewer_zone
from games.web.history import at_move, older_history

LIVE_POLL_SECONDS = 2
#: The statuses in which a table's page listens to its game's event stream.
STREAMED = (Game.Status.OPEN, Game.Status.ACTIVE, Game.Status.PAUSED)
#: The moves the table's history shows (the latest).
HISTORY_MOVES = 60


def _loaded(request, game_id) -> selectors.Loaded:
    """The game and what its viewer may see of it; 404 when there is no such game."""
    loaded = selectors.find_and_load(game_id, request.user)
    if loaded is None:
        raise Http404(_("No such game."))
    return loaded


def table_context(request, loaded: selectors.Loaded) -> dict[str, Any]:
    """Everything the table shows, from the viewer's projection only: the envelope here, the
    game's own words from its kit (``games.core.kit``)."""
    user = request.user
    kit = catalog.get_kit(loaded.game.kind)
    payload = selectors.game_payload(loaded, user)
    state, you = payload["state"], payload["you"]
    now = timezone.now()
    zone = viewer_zone(request)
    me = loaded.player_of(user)
    names: dict[int, str] = {}
    seats = []
    # Who asked for a pause (the game pauses when every human player has asked).
    pausing = {s.name for s in loaded.seats if s.wants_pause and not s.is_bot}
    if state:
        players = {p["player"]: p for p in payload["players"]}
        deadline_of = {a.get("seat"): a.get("deadline") for a in state.get("awaiting") or []}
        for seat in state["seats"]:
            names[seat["seat"]] = seat["player"]
        for seat in state["seats"]:
            info = players.get(seat["player"], {})
            seats.append({**seat, "absent": info.get("absent"), "vacation": info.get("vacation"),
                          "bank": seat_bank(info.get("clock"), deadline_of.get(seat["seat"]),
                                            now),
                          "wants_pause": seat["player"] in pausing,
                          "is_you": you is not None and seat["seat"] == you["seat"],
                          "awaited": any(a["seat"] == seat["seat"] for a in state["awaiting"])})
    for seat in seats:  # (each player's rating here and reliability, public at every seat)
        info = players.get(seat["player"], {})
        seat["rating"], seat["reliability"] = info.get("rating"), info.get("reliability")
    awaiting = []
    for item in (state or {}).get("awaiting", []):
        when = item.get("deadline")
        local = ""
        if when:
            local = dt.datetime.fromisoformat(when.replace("Z", "+00:00")).astimezone(zone)
        awaiting.append({**item, "decision_words": kit.decision_words(item["decision"]),
                         "left": time_left(when, now), "local": local,
                         "is_you": you is not None and item["seat"] == you["seat"]})
    history = []
    recent: list[dict] = []
    # The history's window: the latest moves; the older ones on request (``?history=all``).
    history_start = max(0, loaded.game.seq - HISTORY_MOVES)
    older_url = ""
    if state:
        events = selectors.events_payload(loaded, user, history_start, limit=HISTORY_MOVES)
        recent = events["results"]
        # Oldest first, as the mails (the page says so); from the start, with what the setup
        # did that no move tells (Shadow House's First on scene).
        opening = selectors.opening_events(loaded, user) if history_start == 0 else []
        history = history_lines(kit, opening + recent, names, selectors.stand_ins(
            loaded, history_start, loaded.game.seq))
        if history_start > 0:
            params = {"history": "all"}
            if request.GET.get("at"):
                params = {"at": loaded.game.seq, **params}
            older_url = (reverse("game", args=[loaded.game.pk]) + "?" + urlencode(params)
                         + "#older-history")
    groups: dict[str, list] = {}
    legal = (you or {}).get("legal_moves", [])
    for move in legal:
        groups.setdefault(kit.move_group(move), []).append(
            {"json": json.dumps(move, sort_keys=True), "label": kit.move_label(move, names),
             "move": move})
    forms_key = hashlib.sha256(json.dumps([loaded.game.seq if legal else 0, legal],
                                          sort_keys=True).encode()).hexdigest()[:12]
    pause = selectors.pause_of(loaded.game)
    if pause is not None:
        pause["local"] = pause["at"].astimezone(zone)
    board_in = (Board(game=loaded.game, state=state, you=you, names=names, seats=seats,
                      recent=recent) if state else None)
    board = kit.board_context(board_in) if board_in is not None else {}
    for item in awaiting:  # (each named with its context: "Bot 3 announced the Empress...")
        item["banner"] = kit.decision_banner(item, board_in) if board_in is not None else ""
    return {
        **board,
        "kit": kit, "game": loaded.game, "payload": payload, "state": state, "you": you,
        "speed": speed_words(loaded.game.options),
        "seats": seats, "awaiting": awaiting, "history": history, "move_groups": groups,
        "history_start": history_start, "older_url": older_url,
        "pause_askers": sorted(pausing - {s.name for s in loaded.seats if s.position == me}),
        "you_asked_pause": any(s.wants_pause for s in loaded.seats if s.position == me),
        # Who paused a paused game, when, why; the players resume their own pause only.
        "pause": pause,
        "legal_moves": legal, "expected_seq": loaded.game.seq, "forms_key": forms_key,
        "is_member": me is not None,
        "is_creator": user.is_authenticated and loaded.game.created_by_id == user.pk,
        "my_seat": next((s for s in loaded.seats if me is not None and s.position == me), None),
        "winners": [names.get(w, w) for w in (state or {}).get("winners", [])],
        "poll_seconds": LIVE_POLL_SECONDS,
        # The game's event stream (static/js/live.js: each ``game`` message refreshes the live
        # part at once; polling takes over while the stream is not open).
        "stream_url": (reverse("api-game-stream", args=[loaded.game.pk])
                       if loaded.game.status in STREAMED
                       and selectors.can_see(loaded.game, loaded.seats, user) else None),
        "report_reasons": _report_reasons(),
        "others": [s.user.username for s in loaded.seats
                   if s.user_id is not None and (me is None or s.position != me)],
        **_invitations(loaded, user),
    }


def _invitations(loaded: selectors.Loaded, user) -> dict[str, Any]:
    """An open table's players invited back (a rematch) who have not sat down yet, and whether
    the viewer is one of them: one query, for open tables only."""
    if loaded.game.status != Game.Status.OPEN:
        return {"invited": [], "my_invitation": False}
    waiting = selectors.invited_to(loaded.game, loaded.seats)
    return {"invited": [row.user.username for row in waiting],
            "my_invitation": user.is_authenticated and any(row.user_id == user.pk
                                                           for row in waiting)}


def _report_reasons():
    from moderation.models import Report

    return Report.Reason.choices


def _live_etag(request, loaded: selectors.Loaded, rows: list) -> str:
    """The live fragment's ETag: the game's (its version, the viewer, the day) and what else
    the fragment shows: the page's language and time zone, the time left before each
    deadline as it reads now ("5 min left"), the table chat's messages, and how many games
    await the viewer (the page's title says it)."""
    now = timezone.now()
    left = [time_left(selectors.iso(row.deadline), now) for row in rows]
    raw = json.dumps([selectors.etag(loaded.game, request.user),
                      getattr(request, "LANGUAGE_CODE", ""), str(viewer_zone(request)), left,
                      chat_version(request, loaded.game), selectors.your_turn_count(request.user)])
    return '"' + hashlib.sha256(raw.encode()).hexdigest()[:32] + '"'


def _invited(request, game_id) -> selectors.Loaded | None:
    """An open private game seen through its invite link: the waiting room only (who sits
    where, the join button), nothing of a game under way."""
    from games.core.services.lobby import invite_matches

    game = selectors.find_game(game_id)
    invite = request.GET.get("invite", "")
    if (game is None or not game.private or game.status != Game.Status.OPEN or not invite
            or not invite_matches(game, invite)):
        return None
    return selectors.Loaded(game=game, seats=selectors.seats_of(game))


@require_GET
def table(request, game_id):
    loaded = _invited(request, game_id) or _loaded(request, game_id)
    replay_at = None
    if loaded.game.status == Game.Status.FINISHED and request.GET.get("at"):
        try:
            replay_at = max(0, min(int(request.GET["at"]), loaded.game.seq))
        except ValueError:
            replay_at = None
        if replay_at is not None:
            loaded = at_move(loaded, replay_at)
    context = table_context(request, loaded)
    if request.GET.get("history") == "all":
        context["older_history"] = older_history(request, loaded, context)
    if loaded.game.status == Game.Status.FINISHED:
        last = selectors.find_game(game_id).seq
        context["replay"] = {"at": replay_at, "last": last,
                             "prev": max(0, (replay_at if replay_at is not None else last) - 1),
                             "next": min(last, (replay_at or 0) + 1)}
    context["chat"] = chat_context(request, loaded, replay_at=replay_at, draft=True)
    if replay_at is None:  # (what the live part shows now: its refresh answers 304 to it)
        context["live_etag"] = _live_etag(
            request, loaded, loaded.pending if loaded.game.started_at is not None else [])
        context["since_visit"] = _since_visit(request, context)
        if context.get("my_seat") is not None and loaded.game.status in STREAMED:
            presence.watching(request.user.pk, loaded.game.pk)  # (no push meanwhile)
    invite = request.GET.get("invite", "")
    context["invite"] = invite
    if replay_at is None and loaded.game.status in STREAMED:
        context["push_offer"] = push.offer(request, context["is_member"])
    if loaded.game.private and context["is_member"]:
        context["invite_url"] = request.build_absolute_uri(
            f"/games/{loaded.game.pk}/?invite={loaded.game.invite_code}")
    return render(request, "games/table.html", context)


def _since_visit(request, context: dict[str, Any]) -> dict[str, int] | None:
    """What others did at the table since its player last saw its page (``None``: nothing, or
    a first visit): how many moves, after which seq; the history's lines of those moves are
    marked new. The player's own moves since (played by mail, the API, or this page's form)
    are not news to them. The seat's mark moves to now (its refreshes move it too: what came
    live was seen)."""
    seat, game = context.get("my_seat"), context["game"]
    if seat is None or game.started_at is None:
        return None
    since = seat.seen_seq
    _seen(seat, game.seq)
    if since is None or since >= game.seq:
        return None
    own = selectors.own_moves_since(game, request.user, since)
    while since + 1 in own:  # (what the player did first is where the news start)
        since += 1
    moves = game.seq - since - sum(1 for seq in own if seq > since)
    if moves <= 0:
        return None
    for line in context.get("history", []):
        line["new"] = line["seq"] > since and line["seq"] not in own
    return {"after": since, "moves": moves}


def _seen(seat: Seat, seq: int) -> None:
    """The seat's player saw the table at ``seq`` (one UPDATE, only forward)."""
    if seat.seen_seq is None or seat.seen_seq < seq:
        Seat.objects.filter(pk=seat.pk).filter(
            Q(seen_seq__isnull=True) | Q(seen_seq__lt=seq)).update(seen_seq=seq)
        seat.seen_seq = seq


@require_GET
def live(request, game_id):
    """The table's live part, for htmx polling: 304 while nothing changed (ETag). The waiting
    room's (``?since=open``, with its ``invite``) reloads the whole page once the game started
    (``HX-Refresh``): the table and its tools come then."""
    game = selectors.find_game(game_id)
    if game is not None and request.GET.get("since") == "open" and game.status != Game.Status.OPEN:
        response = HttpResponse(status=204)
        response["HX-Refresh"] = "true"
        return response
    loaded = _invited(request, game_id) or (
        selectors.load_for_viewer(game, request.user, with_state=False) if game else None)
    if loaded is None:
        raise Http404(_("No such game."))
    rows = (loaded.pending_read if loaded.pending_read is not None  # (read with the seats)
            else selectors.pending_of(loaded.game.pk) if loaded.game.started_at is not None
            else [])
    etag = _live_etag(request, loaded, rows)
    if loaded.game.status in STREAMED and loaded.player_of(request.user) is not None:
        presence.watching(request.user.pk, loaded.game.pk)  # (no push meanwhile: even at 304)
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponse(status=304)
        response["ETag"] = etag
        return response
    selectors.complete(loaded, with_pending=False)
    loaded.pending = rows
    context = table_context(request, loaded)
    context["chat"] = chat_context(request, loaded)
    context["invite"] = request.GET.get("invite", "")
    context["live_etag"] = etag
    if context.get("my_seat") is not None and loaded.game.started_at is not None:
        _seen(context["my_seat"], loaded.game.seq)  # (what comes live is seen)
    response = render(request, "games/_live_answer.html", context)
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    return response
