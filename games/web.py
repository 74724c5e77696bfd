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
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.models import VACATION_DAYS_PER_YEAR, User, Vacation
from games.engine import EngineError

from . import catalog, notifications, selectors, services
from .errors import ApplicationError, NotFound, text_of
from .kit import Board, GameKit, table_sentence
from .models import Game

LIVE_POLL_SECONDS = 2
#: The moves the table's history shows (the latest).
HISTORY_MOVES = 60


# --------------------------------------------------------------------------------------------
# Helpers


def _loaded(request, game_id) -> selectors.Loaded:
    game = selectors.find_game(game_id)
    loaded = selectors.load_for_viewer(game, request.user) if game else None
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


def _sentence(kit: GameKit, event: dict, names: dict[int, str]) -> str:
    if event.get("type") == "table":
        return table_sentence(event, names)
    return kit.sentence(event, names)


def table_context(request, loaded: selectors.Loaded) -> dict[str, Any]:
    """Everything the table shows, from the viewer's projection only: the envelope here, the
    game's own words from its kit (``games.kit``)."""
    user = request.user
    kit = catalog.get_kit(loaded.game.kind)
    payload = selectors.game_payload(loaded, user)
    state, you = payload["state"], payload["you"]
    now = timezone.now()
    zone = _zone(request)
    me = loaded.player_of(user)
    names: dict[int, str] = {}
    seats = []
    if state:
        players = {p["player"]: p for p in payload["players"]}
        for seat in state["seats"]:
            names[seat["seat"]] = seat["player"]
        for seat in state["seats"]:
            info = players.get(seat["player"], {})
            seats.append({**seat, "absent": info.get("absent"), "vacation": info.get("vacation"),
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
    if state:
        events = selectors.events_payload(loaded, user, max(0, loaded.game.seq - HISTORY_MOVES),
                                          limit=HISTORY_MOVES)
        recent = events["results"]
        history = [{"seq": e["seq"], "text": _sentence(kit, e, then)}
                   for e, then in zip(recent, kit.names_then(recent, names), strict=True)]
        history.reverse()
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
        "legal_moves": legal, "expected_seq": loaded.game.seq, "forms_key": forms_key,
        "is_member": me is not None,
        "is_creator": user.is_authenticated and loaded.game.created_by_id == user.pk,
        "my_seat": next((s for s in loaded.seats if me is not None and s.position == me), None),
        "winners": [names.get(w, w) for w in (state or {}).get("winners", [])],
        "poll_seconds": LIVE_POLL_SECONDS,
        "report_reasons": _report_reasons(),
        "others": [s.user.username for s in loaded.seats
                   if s.user_id is not None and (me is None or s.position != me)],
    }


def _report_reasons():
    from moderation.models import Report

    return Report.Reason.choices


def _live_etag(request, loaded: selectors.Loaded, rows: list) -> str:
    """The live fragment's ETag: the game's (its version, the viewer, the day) and what else
    the fragment shows: the page's language and time zone, and the time left before each
    deadline as it reads now ("5 min left")."""
    now = timezone.now()
    left = [_left(selectors.iso(row.deadline), now) for row in rows]
    raw = json.dumps([selectors.etag(loaded.game, request.user),
                      getattr(request, "LANGUAGE_CODE", ""), str(_zone(request)), left])
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
    rows = [{**selectors.summary_payload(g, seats[g.pk]), "kit": catalog.find_kit(g.kind)}
            for g in games]
    mine = []
    if request.user.is_authenticated:
        for game in selectors.games_of(request.user)[:30]:
            mine.append({"game": game, "awaiting_you": game.your_deadline is not None,
                         "kit": catalog.find_kit(game.kind)})
    return render(request, "games/lobby.html", {"rows": rows, "status": status, "mine": mine,
                                                "kits": catalog.kits(), "kit": kit})


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
            form.add_error(None, text_of(exc))
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

    from .models import MoveRecord

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
    from .services.lobby import invite_matches

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
    if loaded.game.status == Game.Status.FINISHED:
        last = selectors.find_game(game_id).seq
        context["replay"] = {"at": replay_at, "last": last,
                             "prev": max(0, (replay_at if replay_at is not None else last) - 1),
                             "next": min(last, (replay_at or 0) + 1)}
    invite = request.GET.get("invite", "")
    context["invite"] = invite
    if loaded.game.private and context["is_member"]:
        context["invite_url"] = request.build_absolute_uri(
            f"/games/{loaded.game.pk}/?invite={loaded.game.invite_code}")
    return render(request, "games/table.html", context)


@require_GET
def live(request, game_id):
    """The table's live part, for htmx polling: 304 while nothing changed (ETag)."""
    game = selectors.find_game(game_id)
    loaded = selectors.load_for_viewer(game, request.user, with_state=False) if game else None
    if loaded is None:
        raise Http404(_("No such game."))
    rows = selectors.PENDING(loaded.game.pk) if loaded.game.started_at is not None else []
    etag = _live_etag(request, loaded, rows)
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponse(status=304)
        response["ETag"] = etag
        return response
    selectors.complete(loaded, with_pending=False)
    loaded.pending = rows
    response = render(request, "games/_live.html", table_context(request, loaded))
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    return response


def _act(request, game_id, work, success: str | None = None):
    try:
        work()
    except NotFound as exc:
        raise Http404(text_of(exc)) from exc
    except (ApplicationError, EngineError) as exc:
        messages.error(request, text_of(exc))
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
    return _act(request, game_id, lambda: services.submit_move(
        game_id, chosen, user=request.user, expected_seq=expected))


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
    RFC 8058 one-click request) switches the user's email notifications off."""
    user = notifications.user_from_token(token)
    if user is None:
        return render(request, "games/unsubscribe.html", {"invalid": True}, status=400)
    done = False
    if request.method == "POST":
        if user.notify_email:
            user.notify_email = False
            user.save(update_fields=["notify_email"])
        done = True
    return render(request, "games/unsubscribe.html", {"target": user, "done": done})


# --------------------------------------------------------------------------------------------
# The profile: preferences and vacations


class PreferencesForm(forms.ModelForm):
    timezone = forms.ChoiceField(label=gettext_lazy("Time zone"), choices=[])

    class Meta:
        model = User
        fields = ["language", "notify_email", "timezone"]

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
        "allowance": VACATION_DAYS_PER_YEAR, "used": used})
