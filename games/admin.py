"""Games in the admin: read-only rows, moderator actions that go through the moderation
services (each appends a move record by actor "moderator" and a moderation log entry), and the
full-table view (logged at each opening). Nobody can add, change or delete move records here."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.models import User
from games.core.catalog import find_kit
from games.core.errors import ApplicationError, Invalid, NotFound, text_of
from games.core.kit import history_lines
from games.engine import MODERATOR, SPECTATOR, EngineError
from games.models import (
    Game,
    IdempotencyKey,
    InboundMessage,
    MoveRecord,
    Notification,
    PendingDecision,
    Seat,
    WebhookDelivery,
    WebhookEndpoint,
)


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ModerationActionForm(ActionForm):
    reason = forms.CharField(label=_("Reason"), required=False, max_length=500)
    hours = forms.IntegerField(label=_("Hours"), required=False, min_value=1, max_value=720)
    player = forms.IntegerField(label=_("Seat"), required=False, min_value=0, max_value=11)
    username = forms.CharField(label=_("User"), required=False, max_length=150)


class SeatInline(admin.TabularInline):
    model = Seat
    fields = ("position", "user", "bot_kind", "absent", "timeouts_in_row", "joined_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class OpenReportFilter(admin.SimpleListFilter):
    title = _("open report")
    parameter_name = "open_report"

    def lookups(self, request, model_admin):
        return [("yes", _("has an open report"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            from moderation.models import Report

            return queryset.filter(Exists(Report.objects.filter(game=OuterRef("pk"),
                                                                status="open")))
        return queryset


class OverdueFilter(admin.SimpleListFilter):
    title = _("deadline")
    parameter_name = "overdue"

    def lookups(self, request, model_admin):
        return [("yes", _("overdue deadline"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(status=Game.Status.ACTIVE).filter(Exists(
                PendingDecision.objects.filter(game=OuterRef("pk"),
                                               deadline__lt=timezone.now())))
        return queryset


def _moderation_action(name, label, work):
    def action(modeladmin, request, queryset):
        from moderation import services

        if not services.is_moderator(request.user):
            raise PermissionDenied
        data = request.POST
        done = 0
        for game in queryset:
            try:
                work(services, request.user, game, data)
                done += 1
            except (ApplicationError, EngineError) as exc:
                modeladmin.message_user(request,
                                        f"{game.pk}: {text_of(exc, find_kit(game.kind))}",
                                        messages.ERROR)
        if done:
            modeladmin.message_user(request, ngettext("%(n)d game: done.", "%(n)d games: done.",
                                                      done) % {"n": done},
                                    messages.SUCCESS)

    action.__name__ = name
    action.short_description = label
    return action


def _user(username):
    user = User.objects.filter(username=(username or "").strip()).first()
    if user is None:
        raise Invalid({"username": [f"There is no user named {username!r}."]},
                      f"There is no user named {username!r}.")
    return user


def _int(data, key):
    try:
        return int(data.get(key)) if data.get(key) not in (None, "") else None
    except ValueError:
        return None


def as_table(value) -> SafeString:
    """A JSON value (the full table: the engine's moderator view) as HTML to read: an object as
    a table of its keys and values, a list of objects as a table with a column per key, a list
    of plain values as their list, nested as the value is; everything escaped."""
    if isinstance(value, dict):
        if not value:
            return SafeString("—")
        return format_html('<table class="full-table"><tbody>{}</tbody></table>', format_html_join(
            "", '<tr><th scope="row">{}</th><td>{}</td></tr>',
            ((key, as_table(item)) for key, item in value.items())))
    if isinstance(value, list):
        if not value:
            return SafeString("—")
        if all(isinstance(item, dict) for item in value):
            keys = list(dict.fromkeys(key for item in value for key in item))
            return format_html(
                '<table class="full-table"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>',
                format_html_join("", '<th scope="col">{}</th>', ((key,) for key in keys)),
                format_html_join("", "<tr>{}</tr>", (
                    (format_html_join("", "<td>{}</td>",
                                      ((as_table(item.get(key)),) for key in keys)),)
                    for item in value)))
        if not any(isinstance(item, (dict, list)) for item in value):
            return conditional_escape(", ".join("—" if item is None else str(item)
                                                for item in value))
        return format_html("<ol>{}</ol>", format_html_join(
            "", "<li>{}</li>", ((as_table(item),) for item in value)))
    return SafeString("—") if value is None else conditional_escape(str(value))


def _viewer(value: str):
    """A history's viewer from its URL: ``spectator``, ``moderator`` or a seat's number."""
    if value in (SPECTATOR, MODERATOR):
        return value
    if value.isdigit() and len(value) < 3:
        return int(value)
    raise NotFound("No such viewer.")


@admin.register(Game)
class GameAdmin(ReadOnly):
    list_display = ("id", "kind", "status", "private", "created_by", "seq", "created_at",
                    "full_table_link")
    list_filter = ("status", "kind", "private", OpenReportFilter, OverdueFilter)
    search_fields = ("id", "created_by__username", "seats__user__username")
    # The seed is left out on purpose: nobody needs it to moderate a game.
    exclude = ("seed",)
    readonly_fields = ("table_link", "histories")
    inlines = [SeatInline]
    action_form = ModerationActionForm
    actions = [
        _moderation_action("pause_games", _("Pause (reason)"),
                           lambda s, m, g, d: s.pause(m, g.pk, d.get("reason"))),
        _moderation_action("resume_games", _("Resume (reason)"),
                           lambda s, m, g, d: s.resume(m, g.pk, d.get("reason"))),
        _moderation_action("extend_deadline", _("Extend the deadline (hours, reason)"),
                           lambda s, m, g, d: s.extend(m, g.pk, _int(d, "hours") or 24,
                                                       d.get("reason"), _int(d, "player"))),
        _moderation_action("timeout_now", _("Play the timeout now (seat, reason)"),
                           lambda s, m, g, d: s.timeout_now(m, g.pk, d.get("reason"),
                                                            _int(d, "player"))),
        _moderation_action("seat_to_bot", _("Give a seat to a bot (seat, reason)"),
                           lambda s, m, g, d: s.replace(m, g.pk, _int(d, "player"),
                                                        d.get("reason"), action="remove")),
        _moderation_action("seat_to_user", _("Give a seat to a user (seat, user, reason)"),
                           lambda s, m, g, d: s.replace(m, g.pk, _int(d, "player"),
                                                        d.get("reason"),
                                                        user=_user(d.get("username")))),
        _moderation_action("abort_games", _("Abort (reason)"),
                           lambda s, m, g, d: s.abort(m, g.pk, d.get("reason"))),
    ]

    def get_actions(self, request):
        from moderation import services

        actions = super().get_actions(request)
        if not services.is_moderator(request.user):
            return {}
        return actions

    @admin.display(description=_("full table"))
    def full_table_link(self, obj):
        return format_html('<a href="{}">{}</a>',
                           reverse("admin:games_game_full", args=[obj.pk]), _("open"))

    @admin.display(description=_("table"))
    def table_link(self, obj):
        return format_html('<a href="{}">{}</a>', reverse("game", args=[obj.pk]),
                           _("The game's page, as its players see it"))

    @admin.display(description=_("history"))
    def histories(self, obj):
        """Links to the move history as each viewer saw it: a spectator (public), each seat's
        player and the whole truth (moderators only, each reading logged)."""
        links = [(reverse("admin:games_game_history", args=[obj.pk, SPECTATOR]),
                  _("as a spectator saw it"), "")]
        for seat in obj.seats.order_by("position").select_related("user"):
            links.append((reverse("admin:games_game_history", args=[obj.pk, seat.position]),
                          _("as seat %(n)d (%(name)s) saw it") % {"n": seat.position,
                                                                  "name": seat.name},
                          _("moderators only; logged")))
        links.append((reverse("admin:games_game_history", args=[obj.pk, MODERATOR]),
                      _("whole (every secret)"), _("moderators only; logged")))
        return format_html("<ul>{}</ul>", format_html_join("", '<li><a href="{}">{}</a>{}</li>', (
            (url, label, format_html(" <small>({})</small>", note) if note else "")
            for url, label, note in links)))

    def get_urls(self):
        return [path("<uuid:game_id>/full/", self.admin_site.admin_view(self.full_table),
                     name="games_game_full"),
                path("<uuid:game_id>/history/<str:viewer>/",
                     self.admin_site.admin_view(self.history), name="games_game_history"),
                *super().get_urls()]

    def full_table(self, request, game_id):
        from moderation import services

        if not services.is_moderator(request.user):
            raise PermissionDenied
        game = get_object_or_404(Game, pk=game_id)
        table = services.full_table(request.user, game.pk)
        context = {**self.admin_site.each_context(request), "title": _("Full table"),
                   "game": game, "table": as_table(table),
                   "table_url": reverse("game", args=[game.pk]), "opts": self.model._meta}
        return TemplateResponse(request, "admin/games/full_table.html", context)

    def history(self, request, game_id, viewer):
        """The move history as ``viewer`` saw it (``moderation.services.game_history``: the
        one projection, moderators only but for a spectator's, each such reading logged),
        oldest first as the game's page, in the admin's language."""
        from moderation import services

        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            loaded, events = services.game_history(request.user, game_id, _viewer(viewer))
        except NotFound as exc:
            raise Http404(str(exc)) from exc
        except ApplicationError as exc:
            raise PermissionDenied(str(exc)) from exc
        game = loaded.game
        kit = find_kit(game.kind)
        names = {seat.position: seat.name for seat in loaded.seats}
        lines = history_lines(kit, events, names) if kit is not None else []
        seat = next((s for s in loaded.seats if str(s.position) == viewer), None)
        title = (_("The game's history, as a spectator saw it") if viewer == SPECTATOR
                 else _("The game's whole history, every secret told") if viewer == MODERATOR
                 else _("The game's history, as seat %(n)d (%(name)s) saw it") % {
                     "n": seat.position, "name": seat.name})
        context = {**self.admin_site.each_context(request), "title": title,
                   "game": game, "lines": lines, "logged": viewer != SPECTATOR,
                   "table_url": reverse("game", args=[game.pk]),
                   "change_url": reverse("admin:games_game_change", args=[game.pk]),
                   "opts": self.model._meta}
        return TemplateResponse(request, "admin/games/history.html", context)


@admin.register(Seat)
class SeatAdmin(ReadOnly):
    list_display = ("game", "position", "user", "bot_kind", "absent", "timeouts_in_row",
                    "muted")
    list_filter = ("absent", "bot_kind")
    search_fields = ("user__username", "game__id")
    list_select_related = ("user",)


@admin.register(MoveRecord)
class MoveRecordAdmin(ReadOnly):
    list_display = ("game", "seq", "seat", "actor", "channel", "by_user", "created_at")
    list_filter = ("actor", "channel")
    search_fields = ("game__id",)
    list_select_related = ("seat", "by_user")
    ordering = ("game", "seq")
    # Secret content (looks, swaps) is for the logged full-table view only.
    exclude = ("payload", "events")


@admin.register(PendingDecision)
class PendingDecisionAdmin(ReadOnly):
    list_display = ("game", "seat", "player", "decision", "deadline", "remaining", "bot")
    list_filter = ("bot", "decision")


@admin.register(Notification)
class NotificationAdmin(ReadOnly):
    list_display = ("user", "kind", "status", "attempts", "interrupted", "next_attempt_at",
                    "sent_at")
    list_filter = ("status", "kind")
    search_fields = ("user__username", "dedupe_key")


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(ReadOnly):
    list_display = ("user", "key", "created_at")
    exclude = ("response",)


@admin.register(InboundMessage)
class InboundMessageAdmin(ReadOnly):
    """Every mail received, with what became of it. A mail's text may tell a secret move (a
    swap or not): it is shown once its game is over, like the move records' content."""

    list_display = ("received_at", "via", "sender", "status", "user", "game", "move_seq",
                    "size")
    list_filter = ("status", "via")
    search_fields = ("sender", "message_id", "user__username", "game__id")
    list_select_related = ("user", "game")
    fields = ("received_at", "via", "message_id", "sender", "recipient", "subject", "size",
              "status", "what_it_said", "user", "game", "move_seq")
    readonly_fields = fields

    def _told(self, obj) -> bool:
        return obj.game is None or obj.game.status in (Game.Status.FINISHED,
                                                       Game.Status.ABORTED)

    @admin.display(description=_("command, detail and text"))
    def what_it_said(self, obj):
        if not self._told(obj):
            return _("Shown once the game is over: a mail may tell a secret move.")
        text = bytes(obj.raw).decode("utf-8", "replace")
        return format_html("<p>{}</p><p>{}</p><pre style=\"white-space: pre-wrap\">{}</pre>",
                           obj.command, obj.detail, text)


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(ReadOnly):
    """Users' webhook endpoints, read only; the secret is never shown whole (its first
    characters tell two apart)."""

    list_display = ("user", "url", "active", "failures_in_row", "last_success_at",
                    "last_failure_at", "disabled_at")
    list_filter = ("active",)
    search_fields = ("user__username", "url")
    list_select_related = ("user",)
    fields = ("user", "url", "description", "secret_start", "active", "failures_in_row",
              "disabled_at", "disabled_reason", "created_at", "last_success_at",
              "last_failure_at", "last_error")
    readonly_fields = fields

    @admin.display(description=_("secret"))
    def secret_start(self, obj):
        return f"{obj.secret[:10]}…" if obj.secret else ""


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnly):
    """The webhooks' outbox: what was posted where, and what became of it."""

    list_display = ("created_at", "endpoint", "event_type", "status", "attempts",
                    "next_attempt_at", "last_status_code", "delivered_at")
    list_filter = ("status", "event_type")
    search_fields = ("endpoint__user__username", "endpoint__url", "id")
    list_select_related = ("endpoint",)
    fields = ("id", "endpoint", "event_type", "cause", "status", "attempts", "next_attempt_at",
              "last_status_code", "last_error", "created_at", "delivered_at", "body")
    readonly_fields = fields
