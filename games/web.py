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

from games.engine import EngineError
from games.engine.mascarade.data import MASKS, SCENARIOS

from . import display, notifications, selectors, services
from .api.errors import APIError, NotFound
from .models import Game

LIVE_POLL_SECONDS = 2


# --------------------------------------------------------------------------------------------
# Helpers


def _error_text(exc: Exception) -> str:
    if isinstance(exc, EngineError):
        return exc.message
    if isinstance(exc, APIError):
        fields = exc.extra.get("fields")
        if isinstance(fields, dict) and fields:
            return " ".join(str(m) for messages_ in fields.values() for m in messages_)
        return exc.detail_text
    return str(exc)


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


def _names_then(events: list[dict], names: dict[int, str]) -> list[dict[int, str]]:
    """For each event (oldest first), who sat at each seat when it happened: ``names`` is the
    table now, and the Puppeteer's seat changes among the events (R2) are undone from the newest
    back, so that a past sentence names the player who was there then, not the seat's occupant
    now."""
    out: list[dict[int, str]] = []
    current = names
    for event in reversed(events):
        out.append(current)
        seats = event.get("seats") if event.get("type") == "seat_change" else None
        if isinstance(seats, list) and len(seats) == 2 and all(s in current for s in seats):
            a, b = seats
            current = {**current, a: current[b], b: current[a]}
    out.reverse()
    return out


def table_context(request, loaded: selectors.Loaded) -> dict[str, Any]:
    """Everything the table shows, from the viewer's projection only."""
    user = request.user
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
        revealed = set(state.get("revealed_last_turn", []))
        for seat in state["seats"]:
            info = players.get(seat["player"], {})
            seats.append({**seat, "absent": info.get("absent"), "vacation": info.get("vacation"),
                          "is_you": you is not None and seat["seat"] == you["seat"],
                          "awaited": any(a["seat"] == seat["seat"] for a in state["awaiting"]),
                          "revealed_recently": seat["seat"] in revealed})
    awaiting = []
    for item in (state or {}).get("awaiting", []):
        when = item.get("deadline")
        local = ""
        if when:
            local = dt.datetime.fromisoformat(when.replace("Z", "+00:00")).astimezone(zone)
        awaiting.append({**item, "decision_words": display.decision(item["decision"]),
                         "left": _left(when, now), "local": local,
                         "is_you": you is not None and item["seat"] == you["seat"]})
    history = []
    recent: list[dict] = []
    if state:
        events = selectors.events_payload(loaded, user, max(0, loaded.game.seq - 60), limit=60)
        recent = events["results"]
        history = [{"seq": e["seq"], "text": display.sentence(e, then)}
                   for e, then in zip(recent, _names_then(recent, names), strict=True)]
        history.reverse()
    # Cards turned face up in this turn or the previous one, as this viewer saw them.
    turned: dict[int, str] = {}
    if state:
        shown = set(state.get("revealed_last_turn", [])) | {
            e.get("seat") for e in recent if e.get("type") == "reveal"
            and e.get("turn") == state.get("turn")}
        for event in recent:
            if event.get("type") == "reveal" and event.get("seat") in shown:
                turned[event["seat"]] = display.mask(event.get("mask"))
        for seat in seats:
            seat["turned"] = turned.get(seat["seat"])
    groups: dict[str, list] = {}
    legal = selectors.legal_moves_payload(loaded, user)
    for move in legal["moves"]:
        groups.setdefault(display.move_group(move), []).append(
            {"json": json.dumps(move, sort_keys=True), "label": display.move_label(move, names)})
    forms_key = hashlib.sha256(json.dumps([loaded.game.seq if legal["moves"] else 0,
                                           legal["moves"]], sort_keys=True).encode()
                               ).hexdigest()[:12]
    knowledge = [{**k, "mask_name": display.mask(k["mask"]),
                  "about_words": display.slot(k["about"], names)}
                 for k in (you or {}).get("knowledge", [])]
    if knowledge:
        since = min(k["seq"] for k in knowledge)
        later = selectors.events_payload(loaded, user, since, limit=100_000)["results"]
        for k in knowledge:
            k["touched"] = sorted({e["seq"] for e in later
                                   if e["seq"] > k["seq"] and _touches(e, k["about"])})
    announcement = (state or {}).get("announcement")
    masks_in_play = [{"id": m, "name": display.mask(m), "power": display.POWERS.get(m, "")}
                     for m in dict.fromkeys((state or {}).get("masks_in_play")
                                            or _option_masks(loaded.game))]
    return {
        "game": loaded.game, "payload": payload, "state": state, "you": you, "seats": seats,
        "awaiting": awaiting, "history": history, "move_groups": groups,
        "expected_seq": legal["seq"], "forms_key": forms_key, "knowledge": knowledge,
        "announcement": announcement and {
            **announcement, "mask_name": display.mask(announcement.get("mask")),
            "who": names.get(announcement.get("seat"), "")},
        "masks_in_play": masks_in_play, "is_member": me is not None,
        "is_creator": user.is_authenticated and loaded.game.created_by_id == user.pk,
        "my_seat": next((s for s in loaded.seats if me is not None and s.position == me), None),
        "winners": [names.get(w, w) for w in (state or {}).get("winners", [])],
        "starting_deal": [{"about": display.slot(d["about"], names),
                           "mask": display.mask(d["mask"])}
                          for d in (state or {}).get("starting_deal", [])],
        "poll_seconds": LIVE_POLL_SECONDS,
        "report_reasons": _report_reasons(),
        "others": [s.user.username for s in loaded.seats
                   if s.user_id is not None and (me is None or s.position != me)],
    }


def _touches(event: dict, about) -> bool:
    """Whether an event (as the viewer saw it) may have moved the card at ``about``."""
    kind = event.get("type")
    if kind == "exchange":
        return about in (event.get("seat"), event.get("target"))
    if kind == "spy_swap":
        return about in (event.get("seat"), event.get("target"))
    if kind == "fool":
        return about in (event.get("targets") or [])
    return False


def _report_reasons():
    from moderation.models import Report

    return Report.Reason.choices


def _option_masks(game: Game) -> list[str]:
    """The masks an open game will use (before the deal, the state does not exist yet)."""
    options = game.options or {}
    return list(options.get("masks") or SCENARIOS.get(options.get("scenario", "A"), {}).get(
        options.get("players"), ()))


def _etag(loaded: selectors.Loaded, user) -> str:
    from .api.views import etag_for

    return etag_for(loaded, user)


# --------------------------------------------------------------------------------------------
# Lobby and creation


class CreateGameForm(forms.Form):
    TIMEOUTS = [(3600, gettext_lazy("1 hour")), (4 * 3600, gettext_lazy("4 hours")),
                (12 * 3600, gettext_lazy("12 hours")), (86_400, gettext_lazy("1 day")),
                (2 * 86_400, gettext_lazy("2 days")), (3 * 86_400, gettext_lazy("3 days")),
                (7 * 86_400, gettext_lazy("7 days"))]
    CHALLENGE_TIMEOUTS = [(600, gettext_lazy("10 minutes")), (3600, gettext_lazy("1 hour")),
                          (4 * 3600, gettext_lazy("4 hours")),
                          (12 * 3600, gettext_lazy("12 hours")),
                          (86_400, gettext_lazy("1 day"))]
    players = forms.TypedChoiceField(label=gettext_lazy("Players"), coerce=int, initial=5,
                                     choices=[(n, n) for n in range(4, 13)])
    scenario = forms.ChoiceField(label=gettext_lazy("Scenario"), initial="A",
                                 choices=[("A", gettext_lazy("A (first games)")),
                                          ("B", gettext_lazy("B (more powers)")),
                                          ("custom", gettext_lazy("Custom: choose the masks"))])
    masks = forms.MultipleChoiceField(
        label=gettext_lazy("Masks of a custom scenario"), required=False,
        widget=forms.CheckboxSelectMultiple,
        choices=[(m.id, m.id) for m in MASKS.values()])
    center = forms.TypedChoiceField(
        label=gettext_lazy("Center cards (custom, 6 players or more)"), required=False,
        coerce=int, empty_value=None,
        choices=[("", gettext_lazy("as usual for the player count")), (0, 0), (1, 1), (2, 2)])
    challenge_mode = forms.ChoiceField(
        label=gettext_lazy("Challenges"), initial="sequential",
        choices=[("sequential", gettext_lazy("one player after another (clockwise)")),
                 ("simultaneous", gettext_lazy("everyone at once"))])
    move_timeout = forms.TypedChoiceField(label=gettext_lazy("Time for a turn"), coerce=int,
                                          choices=TIMEOUTS, initial=86_400)
    challenge_timeout = forms.TypedChoiceField(label=gettext_lazy("Time to claim or pass"),
                                               coerce=int, choices=CHALLENGE_TIMEOUTS,
                                               initial=12 * 3600)
    log_masks = forms.BooleanField(label=gettext_lazy("The history keeps revealed masks"),
                                   required=False, initial=True)
    private = forms.BooleanField(label=gettext_lazy("Private (joined with an invite link)"),
                                 required=False)
    bots = forms.TypedChoiceField(label=gettext_lazy("Bots to add now"), coerce=int, initial=0,
                                  choices=[(n, n) for n in range(0, 12)])

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["masks"].choices = [
            (m.id, f"{display.mask(m.id)}{' ★' if m.star else ''}"
                   f"{' ×2' if m.copies > 1 else ''} — {display.POWERS[m.id]}")
            for m in MASKS.values()]

    def options(self) -> dict[str, Any]:
        data = self.cleaned_data
        options = {key: data[key] for key in ("players", "scenario", "challenge_mode",
                                              "move_timeout", "challenge_timeout",
                                              "log_masks") if key in data}
        if data.get("scenario") == "custom":
            masks = []
            for mask_id in data.get("masks") or []:
                masks += [mask_id] * MASKS[mask_id].copies
            options["masks"] = masks
            if data.get("center") is not None:
                options["center"] = data["center"]
        return options

    def clean(self):
        data = super().clean()
        if data.get("players") and data.get("bots") is not None \
                and data["bots"] > data["players"] - 1:
            self.add_error("bots", _("At most %(n)d bots in a game of %(p)d.") % {
                "n": data["players"] - 1, "p": data["players"]})
        if data.get("scenario") == "custom" and data.get("players"):
            for field, message in scenario_errors(self.options()):
                self.add_error(field if field in self.fields else None, message)
        return data


SCENARIO_MESSAGES = {
    "custom_needs_judge": gettext_lazy("A scenario must include the Judge."),
    "custom_too_few_stars": gettext_lazy("At least a third of the masks (rounded up) must "
                                         "carry a star ★."),
    "custom_peasant_pair": gettext_lazy("The Peasants come as a pair or not at all."),
    "custom_duplicate_mask": gettext_lazy("No mask other than the Peasant may appear twice."),
    "center_not_choosable": gettext_lazy("Only games of 6 players or more choose their center "
                                         "cards."),
}


def scenario_errors(options: dict[str, Any]) -> list[tuple[str, str]]:
    """The custom scenario's broken rules (§3), from the engine's own check, in words."""
    from games.engine import InvalidOptions, get_game

    try:
        get_game("mascarade").normalize_options(options)
    except InvalidOptions as exc:
        problems = exc.extra.get("errors") or [(exc.code, exc.message)]
        out = []
        for code, message in problems:
            if code == "custom_mask_count":
                players, center = options["players"], options.get("center")
                wanted = players + (center if center is not None else
                                    (2 if players == 4 else 1 if players == 5 else 0))
                text = _("Choose exactly %(n)d masks (the Peasants count as two); "
                         "%(k)d chosen.") % {"n": wanted, "k": len(options.get("masks", []))}
            elif code == "custom_min_players":
                names = sorted({str(display.mask(m)) for m in options.get("masks", [])
                                if m in MASKS and MASKS[m].min_players > options["players"]})
                text = _("These masks need more players: %(masks)s.") % {
                    "masks": ", ".join(names)}
            else:
                text = str(SCENARIO_MESSAGES.get(code, message))
            out.append(("masks" if exc.field in (None, "masks") else exc.field, text))
        return out
    return []


def _scenario_table() -> list[dict]:
    out = []
    for players in range(4, 13):
        row = {"players": players}
        for scenario in ("A", "B"):
            ids = dict.fromkeys(SCENARIOS.get(scenario, {}).get(players, ()))
            row[scenario] = [display.mask(m) for m in ids]
        out.append(row)
    return out


@require_GET
def lobby(request):
    status = request.GET.get("status") or "open"
    if status not in ("open", "active", "finished"):
        status = "open"
    games = list(selectors.public_games(status, "mascarade")[:50])
    seats = selectors.seats_by_game(games)
    rows = [selectors.summary_payload(g, seats[g.pk]) for g in games]
    mine = []
    if request.user.is_authenticated:
        for game in selectors.games_of(request.user)[:30]:
            mine.append({"game": game, "awaiting_you": game.your_deadline is not None})
    return render(request, "games/lobby.html", {"rows": rows, "status": status, "mine": mine})


@login_required
@require_http_methods(["GET", "POST"])
def create(request):
    form = CreateGameForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        options = form.options()
        try:
            outcome = services.create_game(request.user, "mascarade", options,
                                           private=data["private"], bots=data["bots"])
        except (APIError, EngineError) as exc:
            form.add_error(None, _error_text(exc))
        else:
            messages.success(request, _("Your game is created."))
            return redirect("game", outcome.body["id"])
    return render(request, "games/create.html", {"form": form,
                                                 "scenarios": _scenario_table()})


@require_POST
def create_check(request):
    """The custom scenario builder's live check (htmx): the rules the chosen masks break."""
    form = CreateGameForm(request.POST)
    form.is_valid()
    errors = [str(e) for e in form.errors.get("masks", [])] + [
        str(e) for e in form.non_field_errors()]
    return render(request, "games/_scenario_check.html", {
        "errors": errors, "custom": request.POST.get("scenario") == "custom"})


# --------------------------------------------------------------------------------------------
# The table


def _at_move(loaded: selectors.Loaded, at: int) -> selectors.Loaded:
    """A finished game as it stood after move ``at``: the stored records up to it replayed
    (rules and table moves alike); the page then shows that state through the same projection
    for the same viewer, with the history up to that move."""
    import copy

    from games.engine import get_game, replay_records

    from .models import MoveRecord

    game = loaded.game
    records = (MoveRecord.objects.filter(game_id=game.pk, seq__lte=at).order_by("seq")
               .values_list("seat__position", "payload"))
    state, _table, _events = replay_records(get_game(game.kind), game.options, game.seed,
                                            list(records))
    past = copy.copy(game)
    past.seq = at
    return selectors.Loaded(game=past, seats=loaded.seats, state=state, pending=[])


def _invited(request, game_id) -> selectors.Loaded | None:
    """An open private game seen through its invite link: the waiting room only (who sits
    where, the join button), nothing of a game under way."""
    import secrets

    game = selectors.find_game(game_id)
    invite = request.GET.get("invite", "")
    if (game is None or not game.private or game.status != Game.Status.OPEN or not invite
            or not secrets.compare_digest(invite, game.invite_code)):
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
    etag = _etag(loaded, request.user)
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponse(status=304)
        response["ETag"] = etag
        return response
    selectors.complete(loaded)
    response = render(request, "games/_live.html", table_context(request, loaded))
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    return response


def _act(request, game_id, work, success: str | None = None):
    try:
        work()
    except NotFound as exc:
        raise Http404(_error_text(exc)) from exc
    except (APIError, EngineError) as exc:
        messages.error(request, _error_text(exc))
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
    masks = [{"id": m.id, "name": display.mask(m.id), "power": display.POWERS[m.id],
              "star": m.star, "min_players": m.min_players, "copies": m.copies,
              "custom_only": m.custom_only} for m in MASKS.values()]
    return render(request, "games/rules.html", {"masks": masks,
                                                "scenarios": _scenario_table()})


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
