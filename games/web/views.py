"""The site's pages for games: lobby, create, the table (with its live fragment), the rules, and
the one-click unsubscribe page. Views stay thin: reads through ``selectors`` (the viewer's
projection, the same as the API's), writes through ``services``."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import zoneinfo
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.models import VACATION_DAYS_PER_YEAR, User, Vacation
from games.core import catalog, selectors, services
from games.core.errors import ApplicationError, NotFound, text_of
from games.core.kit import Board, GameKit, history_lines, speed_words
from games.engine import EngineError
from games.models import CHAT_MAX_LENGTH, Game, Seat
from games.notify import notifications

LIVE_POLL_SECONDS = 2
#: The statuses in which a table's page listens to its game's event stream.
STREAMED = (Game.Status.OPEN, Game.Status.ACTIVE, Game.Status.PAUSED)
#: The moves the table's history shows (the latest).
HISTORY_MOVES = 60


# --------------------------------------------------------------------------------------------
# Helpers


def _loaded(request, game_id) -> selectors.Loaded:
    loaded = selectors.find_and_load(game_id, request.user)
    if loaded is None:
        raise Http404(_("No such game."))
    return loaded


def _left(deadline: str | None, now) -> str:
    if not deadline:
        return ""
    when = dt.datetime.fromisoformat(deadline.replace("Z", "+00:00"))
    seconds = int((when - now).total_seconds())
    if seconds <= 0:
        return _("time is up")
    if seconds < 3600:
        return _("%(n)d min left") % {"n": max(1, seconds // 60)}
    if seconds < 86_400 * 2:
        return _("%(n)d h left") % {"n": seconds // 3600}
    return _("%(n)d days left") % {"n": seconds // 86_400}


def _zone(request):
    name = getattr(request.user, "timezone", "UTC") if request.user.is_authenticated else "UTC"
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


def table_context(request, loaded: selectors.Loaded) -> dict[str, Any]:
    """Everything the table shows, from the viewer's projection only: the envelope here, the
    game's own words from its kit (``games.core.kit``)."""
    user = request.user
    kit = catalog.get_kit(loaded.game.kind)
    payload = selectors.game_payload(loaded, user)
    state, you = payload["state"], payload["you"]
    now = timezone.now()
    zone = _zone(request)
    me = loaded.player_of(user)
    names: dict[int, str] = {}
    seats = []
    # Who asked for a pause (the game pauses when every human player has asked).
    pausing = {s.name for s in loaded.seats if s.wants_pause and not s.is_bot}
    if state:
        players = {p["player"]: p for p in payload["players"]}
        for seat in state["seats"]:
            names[seat["seat"]] = seat["player"]
        for seat in state["seats"]:
            info = players.get(seat["player"], {})
            seats.append({**seat, "absent": info.get("absent"), "vacation": info.get("vacation"),
                          "wants_pause": seat["player"] in pausing,
                          "is_you": you is not None and seat["seat"] == you["seat"],
                          "awaited": any(a["seat"] == seat["seat"] for a in state["awaiting"])})
    awaiting = []
    for item in (state or {}).get("awaiting", []):
        when = item.get("deadline")
        local = ""
        if when:
            local = dt.datetime.fromisoformat(when.replace("Z", "+00:00")).astimezone(zone)
        awaiting.append({**item, "decision_words": kit.decision_words(item["decision"]),
                         "left": _left(when, now), "local": local,
                         "is_you": you is not None and item["seat"] == you["seat"]})
    history = []
    recent: list[dict] = []
    # The history's window: the latest moves; the older ones on request (``?history=all``).
    history_start = max(0, loaded.game.seq - HISTORY_MOVES)
    older_url = ""
    if state:
        events = selectors.events_payload(loaded, user, history_start, limit=HISTORY_MOVES)
        recent = events["results"]
        history = history_lines(kit, recent, names, selectors.stand_ins(
            loaded, history_start, loaded.game.seq))
        history.reverse()
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
    board = (kit.board_context(Board(game=loaded.game, state=state, you=you, names=names,
                                     seats=seats, recent=recent)) if state else {})
    return {
        **board,
        "kit": kit, "game": loaded.game, "payload": payload, "state": state, "you": you,
        "seats": seats, "awaiting": awaiting, "history": history, "move_groups": groups,
        "history_start": history_start, "older_url": older_url,
        "pause_askers": sorted(pausing - {s.name for s in loaded.seats if s.position == me}),
        "you_asked_pause": any(s.wants_pause for s in loaded.seats if s.position == me),
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
    }


def _older_history(request, loaded: selectors.Loaded, context: dict[str, Any]) -> list[dict]:
    """The history's lines before its window (``?history=all``), newest first: the whole
    history projected (so that a past sentence names who sat at a seat then), only on request."""
    upto = context["history_start"]
    if not context["state"] or upto <= 0:
        return []
    kit = context["kit"]
    names = {seat["seat"]: seat["player"] for seat in context["seats"]}
    events = selectors.events_payload(loaded, request.user, 0,
                                      limit=max(1, loaded.game.seq))["results"]
    lines = [line for line in history_lines(kit, events, names,
                                            selectors.stand_ins(loaded, 0, upto))
             if line["seq"] <= upto]
    lines.reverse()
    return lines


def _report_reasons():
    from moderation.models import Report

    return Report.Reason.choices


def _live_etag(request, loaded: selectors.Loaded, rows: list) -> str:
    """The live fragment's ETag: the game's (its version, the viewer, the day) and what else
    the fragment shows: the page's language and time zone, the time left before each
    deadline as it reads now ("5 min left"), the table chat's messages, and how many games
    await the viewer (the page's title says it)."""
    now = timezone.now()
    left = [_left(selectors.iso(row.deadline), now) for row in rows]
    raw = json.dumps([selectors.etag(loaded.game, request.user),
                      getattr(request, "LANGUAGE_CODE", ""), str(_zone(request)), left,
                      _chat_version(request, loaded.game), selectors.your_turn_count(request.user)])
    return '"' + hashlib.sha256(raw.encode()).hexdigest()[:32] + '"'


# --------------------------------------------------------------------------------------------
# Lobby and creation


def _kit_asked(request) -> GameKit:
    """The game a page is about (``?game=``, or the form's ``game``): the default one when it
    names none, or one this site does not serve."""
    asked = request.POST.get("game") or request.GET.get("game")
    return catalog.find_kit(asked) or catalog.get_kit(catalog.default_id())


def _create_context(kit: GameKit, form) -> dict[str, Any]:
    return {**kit.create_context(), "kit": kit, "kits": catalog.kits(), "form": form,
            "fields": [(field, kit.field_templates.get(field.name)) for field in form]}


@require_GET
def lobby(request):
    status = request.GET.get("status") or "open"
    if status not in ("open", "active", "finished"):
        status = "open"
    kit = catalog.find_kit(request.GET.get("game"))
    games = list(selectors.public_games(status, kit.id if kit else None)[:50])
    seats = selectors.seats_by_game(games)
    deadlines = selectors.next_deadlines([g.pk for g in games if g.status == "active"])
    now = timezone.now()
    rows = [{**selectors.summary_payload(g, seats[g.pk]), **_listed(g),
             "left": _left(selectors.iso(deadlines.get(g.pk)), now)} for g in games]
    mine = []
    if request.user.is_authenticated:
        for game in selectors.games_of(request.user)[:30]:
            mine.append({"game": game, "awaiting_you": game.your_deadline is not None,
                         **_listed(game),
                         "left": _left(selectors.iso(game.your_deadline or game.next_deadline),
                                       now)})
    return render(request, "games/lobby.html", {"rows": rows, "status": status, "mine": mine,
                                                "kits": catalog.kits(), "kit": kit})


def _listed(game) -> dict[str, Any]:
    """What a listing says of a game besides its name: its kind, its own options in words,
    its speed."""
    kit = catalog.find_kit(game.kind)
    return {"kit": kit, "summary": kit.options_summary(game.options) if kit else "",
            "speed": speed_words(game.options)}


@login_required
@require_http_methods(["GET", "POST"])
def create(request):
    kit = _kit_asked(request)
    form = kit.form(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            outcome = services.create_game(request.user, kit.id, form.options(),
                                           private=data["private"], bots=data["bots"])
        except (ApplicationError, EngineError) as exc:
            form.add_error(None, text_of(exc, kit))
        else:
            messages.success(request, _("Your game is created."))
            return redirect("game", outcome.body["id"])
    return render(request, "games/create.html", _create_context(kit, form))


@require_POST
def create_check(request):
    """The create form's live check (htmx), for a game whose kit has one (Mascarade's custom
    scenario builder): the rules the chosen options break, in words."""
    kit = _kit_asked(request)
    if kit.check_template is None:
        raise Http404(_("This game's form has no live check."))
    form = kit.form(request.POST)
    form.is_valid()
    errors = [str(e) for name in kit.field_templates for e in form.errors.get(name, [])] + [
        str(e) for e in form.non_field_errors()]
    return render(request, kit.check_template, {"errors": errors, "form": form})


# --------------------------------------------------------------------------------------------
# The table


def _at_move(loaded: selectors.Loaded, at: int) -> selectors.Loaded:
    """A finished game as it stood after move ``at``: the stored records up to it replayed
    (rules and table moves alike); the page then shows that state through the same projection
    for the same viewer, with the history up to that move."""
    import copy

    from games.engine import replay_records
    from games.models import MoveRecord

    game = loaded.game
    records = (MoveRecord.objects.filter(game_id=game.pk, seq__lte=at).order_by("seq")
               .values_list("seat__position", "payload"))
    state, _table, _events = replay_records(catalog.get_game(game.kind), game.options, game.seed,
                                            list(records))
    past = copy.copy(game)
    past.seq = at
    return selectors.Loaded(game=past, seats=loaded.seats, state=state, pending=[])


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
            loaded = _at_move(loaded, replay_at)
    context = table_context(request, loaded)
    if request.GET.get("history") == "all":
        context["older_history"] = _older_history(request, loaded, context)
    if loaded.game.status == Game.Status.FINISHED:
        last = selectors.find_game(game_id).seq
        context["replay"] = {"at": replay_at, "last": last,
                             "prev": max(0, (replay_at if replay_at is not None else last) - 1),
                             "next": min(last, (replay_at or 0) + 1)}
    context["chat"] = _chat_context(request, loaded, replay_at=replay_at, draft=True)
    if replay_at is None:  # (what the live part shows now: its refresh answers 304 to it)
        context["live_etag"] = _live_etag(
            request, loaded, loaded.pending if loaded.game.started_at is not None else [])
        context["since_visit"] = _since_visit(context)
    invite = request.GET.get("invite", "")
    context["invite"] = invite
    if loaded.game.private and context["is_member"]:
        context["invite_url"] = request.build_absolute_uri(
            f"/games/{loaded.game.pk}/?invite={loaded.game.invite_code}")
    return render(request, "games/table.html", context)


def _since_visit(context: dict[str, Any]) -> dict[str, int] | None:
    """What happened at the table since its player last saw its page (``None``: nothing, or a
    first visit): how many moves, after which seq; the history's lines since are marked new.
    The seat's mark moves to now (its refreshes move it too: what came live was seen)."""
    seat, game = context.get("my_seat"), context["game"]
    if seat is None or game.started_at is None:
        return None
    since = seat.seen_seq
    _seen(seat, game.seq)
    if since is None or since >= game.seq:
        return None
    for line in context.get("history", []):
        line["new"] = line["seq"] > since
    return {"after": since, "moves": game.seq - since}


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
            else selectors.PENDING(loaded.game.pk) if loaded.game.started_at is not None
            else [])
    etag = _live_etag(request, loaded, rows)
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponse(status=304)
        response["ETag"] = etag
        return response
    selectors.complete(loaded, with_pending=False)
    loaded.pending = rows
    context = table_context(request, loaded)
    context["chat"] = _chat_context(request, loaded)
    context["invite"] = request.GET.get("invite", "")
    context["live_etag"] = etag
    if context.get("my_seat") is not None and loaded.game.started_at is not None:
        _seen(context["my_seat"], loaded.game.seq)  # (what comes live is seen)
    response = render(request, "games/_live_answer.html", context)
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    return response


def _kit_of(game_id) -> GameKit | None:
    """The kit of a game, to word a refusal of its rules."""
    game = selectors.find_game(game_id)
    return catalog.find_kit(game.kind) if game is not None else None


def _act(request, game_id, work, success: str | None = None):
    try:
        work()
    except NotFound as exc:
        raise Http404(text_of(exc)) from exc
    except (ApplicationError, EngineError) as exc:
        messages.error(request, text_of(exc, _kit_of(game_id) if isinstance(exc, EngineError)
                                        else None))
    else:
        if success:
            messages.success(request, success)
    return redirect("game", game_id)


@login_required
@require_POST
def move(request, game_id):
    raw = request.POST.get("move", "")
    try:
        chosen = json.loads(raw)
        expected = int(request.POST.get("expected_seq", ""))
    except (ValueError, TypeError):
        messages.error(request, _("Choose one of the moves offered."))
        return redirect("game", game_id)
    if isinstance(chosen, dict):
        # A move's free field typed in the form (a game's text box: ``field_<name>``) takes
        # the place of the value offered; the rules check it like any client's.
        for key in list(chosen):
            typed = request.POST.get(f"field_{key}")
            if key != "type" and typed is not None:
                if isinstance(chosen[key], bool):  # a radio's true or false
                    typed = {"true": True, "false": False}.get(typed, typed)
                chosen[key] = typed
    return _act(request, game_id, lambda: services.submit_move(
        game_id, chosen, user=request.user, expected_seq=expected, own_decision_stands=True,
        channel="web"))


@login_required
@require_POST
def join(request, game_id):
    return _act(request, game_id, lambda: services.join_game(
        request.user, game_id, request.POST.get("invite_code")), _("You joined the game."))


@login_required
@require_POST
def leave(request, game_id):
    return _act(request, game_id, lambda: services.leave_game(request.user, game_id),
                _("You left the game."))


@login_required
@require_POST
def bots(request, game_id):
    try:
        count = int(request.POST.get("count", "1"))
    except ValueError:
        count = 0
    return _act(request, game_id, lambda: services.add_bots(request.user, game_id, count))


@login_required
@require_POST
def back(request, game_id):
    return _act(request, game_id, lambda: services.come_back(request.user, game_id),
                _("Welcome back: your seat is yours again."))


@login_required
@require_POST
def pause(request, game_id):
    wanted = request.POST.get("pause") == "1"
    return _act(request, game_id, lambda: services.request_pause(request.user, game_id, wanted))


@login_required
@require_POST
def mute(request, game_id):
    muted = request.POST.get("muted") == "1"
    return _act(request, game_id, lambda: services.mute_game(request.user, game_id, muted),
                _("This game's emails are off.") if muted else _("This game's emails are on."))


@login_required
@require_POST
def report(request, game_id):
    from moderation import services as moderation

    return _act(request, game_id, lambda: moderation.file_report(
        request.user, game_id, request.POST.get("reported", ""), request.POST.get("reason", ""),
        request.POST.get("text", "")), _("Thank you: the moderators will look at your report."))


# --------------------------------------------------------------------------------------------
# Rules


@require_GET
def rules(request):
    """Every game's rules, one section each (the kits' own)."""
    return render(request, "games/rules.html", {
        "sections": [{"kit": kit, "context": kit.rules_context()} for kit in catalog.kits()]})


# --------------------------------------------------------------------------------------------
# Email


@csrf_exempt  # the signed token is the credential; mail clients post it without a session
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token: str):
    """One-click unsubscribe: GET asks for confirmation, POST (a person's, or a mail client's
    RFC 8058 one-click request) switches the user's email notifications off (the chat
    digest's link: the digest only)."""
    user, scope = notifications.unsubscribe_target(token)
    if user is None:
        return render(request, "games/unsubscribe.html", {"invalid": True}, status=400)
    # The chat digest's link switches off the digest only; the others every email.
    switch = "notify_chat_digest" if scope == notifications.CHAT_DIGEST else "notify_email"
    done = False
    if request.method == "POST":
        if getattr(user, switch):
            setattr(user, switch, False)
            user.save(update_fields=[switch])
        done = True
    return render(request, "games/unsubscribe.html", {
        "target": user, "done": done, "digest_only": switch == "notify_chat_digest"})


# --------------------------------------------------------------------------------------------
# The profile: preferences and vacations


class PreferencesForm(forms.ModelForm):
    timezone = forms.ChoiceField(label=gettext_lazy("Time zone"), choices=[])

    class Meta:
        model = User
        fields = ["language", "notify_email", "notify_chat_digest", "timezone"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["timezone"].choices = [(z, z) for z in sorted(
            zoneinfo.available_timezones()) if "/" in z or z == "UTC"]


class VacationForm(forms.Form):
    start = forms.DateField(label=gettext_lazy("First day"),
                            widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(label=gettext_lazy("Last day"),
                          widget=forms.DateInput(attrs={"type": "date"}))


@login_required
@require_http_methods(["GET", "POST"])
def profile(request):
    user = request.user
    prefs = PreferencesForm(instance=user)
    vacation = VacationForm()
    if request.method == "POST":
        if request.POST.get("form") == "preferences":
            prefs = PreferencesForm(request.POST, instance=user)
            if prefs.is_valid():
                prefs.save()
                messages.success(request, _("Your preferences are saved."))
                return redirect("profile")
        elif request.POST.get("form") == "vacation":
            vacation = VacationForm(request.POST)
            if vacation.is_valid():
                try:
                    services.declare_vacation(user, vacation.cleaned_data["start"],
                                              vacation.cleaned_data["end"])
                except ApplicationError as exc:
                    fields = exc.extra.get("fields") or {}
                    field = next(iter(fields), None)
                    vacation.add_error(field if field in vacation.fields else None, exc.text())
                else:
                    messages.success(request, _("Your vacation is saved: your deadlines will "
                                                "wait for you."))
                    return redirect("profile")
        elif request.POST.get("form") == "unmute":
            try:
                services.chat.unmute(user, request.POST.get("username", ""))
            except ApplicationError as exc:
                messages.error(request, text_of(exc))
            else:
                messages.success(request, _("You see %(name)s's table chat messages again.")
                                 % {"name": request.POST.get("username", "")})
            return redirect("profile")
        elif request.POST.get("form") == "cancel":
            try:
                services.cancel_vacation(user, int(request.POST.get("vacation", "0")))
            except ValueError:
                messages.error(request, _("No such vacation."))
            except ApplicationError as exc:
                messages.error(request, exc.text())
            else:
                messages.success(request, _("That vacation is cancelled."))
            return redirect("profile")
    today = selectors.today_for(user)
    upcoming = Vacation.objects.filter(user=user, end__gte=today)
    used = sum(v.days for v in Vacation.objects.filter(user=user, start__year=today.year))
    return render(request, "account/profile.html", {
        "prefs": prefs, "vacation": vacation, "upcoming": upcoming, "today": today,
        "allowance": VACATION_DAYS_PER_YEAR, "used": used,
        "chat_mutes": services.chat.mutes_of(user)})


# --------------------------------------------------------------------------------------------
# The table chat


#: How often a table's chat refreshes itself where the table's live part does not (before the
#: start, after the end).
CHAT_POLL_SECONDS = 5


def _is_moderator(user) -> bool:
    from moderation.services import is_moderator

    return is_moderator(user)


def _chat_version(request, game: Game) -> str:
    """What the chat shown to this viewer depends on, for the ETags (its messages, hides and
    the viewer's mutes; the viewer's day, for the times shown without a date)."""
    today = timezone.now().astimezone(_zone(request)).date()
    return f"{selectors.chat_version(game, request.user)}:{today.isoformat()}"


def _draft_key(game_id) -> str:
    return f"chat-draft-{game_id}"


def _chat_context(request, loaded: selectors.Loaded, *, replay_at: int | None = None,
                  draft: bool = False) -> dict[str, Any] | None:
    """The chat panel: its latest messages as this viewer reads them (times in their zone),
    whether they may write, report, mute; ``None`` where the viewer may not see the game (an
    invite link's waiting room).

    Where the table's live part refreshes (a game under way), the chat's *feed* rides in it;
    elsewhere (before the start, after the end) the feed refreshes itself; a replay shows the
    messages written up to its move, still."""
    user, game = request.user, loaded.game
    if not selectors.can_see(game, loaded.seats, user):
        return None
    kit = catalog.get_kit(game.kind)
    zone = _zone(request)
    today = timezone.now().astimezone(zone).date()
    me = loaded.player_of(user)
    moderator = _is_moderator(user)
    rows = selectors.latest_chat(game, user, with_hidden=moderator, upto_seq=replay_at)
    shown = []
    for message in rows:
        payload = selectors.chat_payload(message, kit)
        local = message.created_at.astimezone(zone)
        others = message.author_id is not None and message.author_id != user.pk
        shown.append({**payload, "local": local, "today": local.date() == today,
                      "can_report": others and me is not None and not payload["hidden"],
                      "can_mute": others and user.is_authenticated})
    muted_here = []
    if user.is_authenticated:
        mutes = {mute.muted_id for mute in services.chat.mutes_of(user)}
        muted_here = [seat.user.username for seat in loaded.seats if seat.user_id in mutes]
    # A refused message of a page without JavaScript: its text back in the box, the error by it.
    kept = (request.session.pop(_draft_key(game.pk), None)
            if draft and user.is_authenticated else None) or {}
    live = game.status in (Game.Status.ACTIVE, Game.Status.PAUSED)
    return {"messages": shown, "replay": replay_at is not None,
            "can_post": me is not None and replay_at is None,
            "feed": replay_at is None, "poll": replay_at is None and not live,
            "poll_seconds": CHAT_POLL_SECONDS, "muted_here": muted_here,
            "draft": kept.get("text", ""), "error": kept.get("error", ""),
            "max_length": CHAT_MAX_LENGTH, "over": game.status in (Game.Status.FINISHED,
                                                                   Game.Status.ABORTED)}


def _viewed(request, game_id) -> selectors.Loaded:
    """The game and its seats, for the chat (which shows nothing of the pending decisions)."""
    game = selectors.find_game(game_id)
    loaded = (selectors.load_for_viewer(game, request.user, with_state=False, with_pending=False)
              if game else None)
    if loaded is None:
        raise Http404(_("No such game."))
    return loaded


@require_http_methods(["GET", "POST"])
def chat(request, game_id):
    """GET: the chat's feed, for htmx polling (304 while nothing changed). POST: write at the
    table; without JavaScript the page comes back (with the text kept and the error beside it
    when it was refused), with htmx the form and the feed."""
    if request.method == "POST":
        return _chat_post(request, game_id)
    loaded = _viewed(request, game_id)
    etag = '"' + hashlib.sha256(json.dumps([
        str(game_id), request.user.pk if request.user.is_authenticated else None,
        getattr(request, "LANGUAGE_CODE", ""), str(_zone(request)),
        _chat_version(request, loaded.game)]).encode()).hexdigest()[:32] + '"'
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponse(status=304)
        response["ETag"] = etag
        return response
    response = render(request, "games/_chat_feed.html", {
        "game": loaded.game, "chat": _chat_context(request, loaded)})
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    return response


def _chat_post(request, game_id):
    if not request.user.is_authenticated:
        return redirect(f"{reverse('account_login')}?next={reverse('game', args=[game_id])}")
    text = request.POST.get("text", "")
    error = ""
    try:
        services.chat.post_message(request.user, game_id, text)
    except NotFound as exc:
        raise Http404(text_of(exc)) from exc
    except ApplicationError as exc:
        error = text_of(exc)
    if request.htmx:
        loaded = _viewed(request, game_id)
        chat = _chat_context(request, loaded)
        if chat is not None:
            chat["draft"], chat["error"] = (text, error) if error else ("", "")
        # (200 even for a refusal: htmx swaps the form with the error beside the text)
        return render(request, "games/_chat_post.html", {"game": loaded.game, "chat": chat})
    if error:
        request.session[_draft_key(game_id)] = {"text": text[:4 * CHAT_MAX_LENGTH],
                                                "error": error}
    return redirect(reverse("game", args=[game_id]) + "#chat")


@login_required
@require_POST
def chat_report(request, game_id, message_id: int):
    from moderation import services as moderation

    try:
        moderation.report_message(request.user, game_id, message_id,
                                  request.POST.get("reason") or "abuse",
                                  request.POST.get("text", ""))
    except NotFound as exc:
        raise Http404(text_of(exc)) from exc
    except ApplicationError as exc:
        messages.error(request, text_of(exc))
    else:
        messages.success(request, _("Thank you: the moderators will look at this message."))
    return redirect(reverse("game", args=[game_id]) + "#chat")


@login_required
@require_POST
def chat_mute(request, game_id):
    """Mute (``muted=1``) or unmute (``muted=0``) a user's chat messages, from a table."""
    name = request.POST.get("username", "")
    try:
        if request.POST.get("muted", "1") == "1":
            services.chat.mute(request.user, name)
            done = _("You no longer see %(name)s's messages (your profile lists the players "
                     "you muted).") % {"name": name}
        else:
            services.chat.unmute(request.user, name)
            done = _("You see %(name)s's messages again.") % {"name": name}
    except ApplicationError as exc:
        messages.error(request, text_of(exc))
    else:
        messages.success(request, done)
    return redirect(reverse("game", args=[game_id]) + "#chat")
