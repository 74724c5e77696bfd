"""Moderation in the admin: the log, players' reports (a chat message's with the messages around
it), the table chat with the hide action, and the users with the moderators' actions on accounts
(suspend, ban, lift)."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.core.exceptions import PermissionDenied
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games.admin import ReadOnly
from games.core import selectors
from games.core import services as games
from games.core.errors import ApplicationError
from games.models import ChatMessage

from . import services
from .models import ModerationLog, Report


@admin.register(ModerationLog)
class ModerationLogAdmin(ReadOnly):
    # The reason before the game, wrapped in a column wide enough to read (admin.css), and the
    # game as a short link: its whole name (kind, id, status) pushed the reason out of sight
    # at 1280 px.
    list_display = ("created_at", "moderator", "action", "reason_text", "game_link",
                    "target_user")
    list_filter = ("action",)
    search_fields = ("moderator__username", "target_user__username", "game__id", "reason")
    list_select_related = ("moderator", "game", "target_user")

    class Media:
        css = {"all": ("moderation/admin.css",)}

    @admin.display(description=_("reason"), ordering="reason")
    def reason_text(self, obj):
        return format_html('<div class="log-reason">{}</div>', obj.reason or "—")

    @admin.display(description=_("game"), ordering="game")
    def game_link(self, obj):
        if obj.game_id is None:
            return "—"
        return format_html('<a href="{}" title="{}">{} {}…</a>',
                           reverse("admin:games_game_change", args=[obj.game_id]),
                           str(obj.game_id), obj.game.kind, str(obj.game_id)[:8])


class ResolveForm(ActionForm):
    resolution = forms.CharField(label=_("Action taken"), required=False, max_length=64)
    note = forms.CharField(label=_("Note"), required=False, max_length=500)


def chat_in_context(message: ChatMessage | None):
    """The chat message with the messages around it at its table, the message itself marked,
    each hidden one said so (escaped: these are what players typed)."""
    if message is None:
        return "—"
    rows = []
    for other in selectors.chat_context(message):
        payload = selectors.chat_payload(other)
        text = (f"{payload['source_label']}: {other.text}" if payload["source_label"]
                else other.text)
        rows.append((
            "chat-reported" if other.pk == message.pk else "",
            payload["player"] or "—",
            other.created_at.strftime("%Y-%m-%d %H:%M"),
            f" [{_('hidden by a moderator')}]" if other.hidden else "",
            text,
            " ⟵" if other.pk == message.pk else ""))
    return format_html('<ol class="chat-context">{}</ol>', format_html_join(
        "", '<li class="{}"><strong>{}</strong> ({} UTC){}: {}{}</li>', rows))


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ("created_at", "reporter", "reported", "game", "seq", "reason", "about",
                    "status")
    list_filter = ("status", "reason")
    search_fields = ("reporter__username", "reported__username", "game__id")
    readonly_fields = ("reporter", "reported", "game", "seq", "reason", "text",
                       "message_in_context", "status", "resolution", "note", "resolved_by",
                       "resolved_at", "created_at")
    action_form = ResolveForm
    actions = ["resolve", "hide_messages"]

    @admin.display(description=_("about"))
    def about(self, report):
        return _("a chat message") if report.message_id else _("the player")

    @admin.display(description=_("chat message, with the messages around it"))
    def message_in_context(self, report):
        return chat_in_context(report.message)

    @admin.action(description=_("Hide the reported chat message (the note is the reason)"))
    def hide_messages(self, request, queryset):
        if not services.is_moderator(request.user):
            raise PermissionDenied
        for report in queryset:
            if report.message_id is None:
                self.message_user(request, f"#{report.pk}: {_('not about a chat message')}",
                                  messages.ERROR)
                continue
            try:
                services.hide_message(request.user, report.message_id, request.POST.get("note"))
            except ApplicationError as exc:
                self.message_user(request, f"#{report.pk}: {exc.text()}", messages.ERROR)

    def has_add_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description=_("Resolve (action taken, note)"))
    def resolve(self, request, queryset):
        if not services.is_moderator(request.user):
            raise PermissionDenied
        for report in queryset:
            try:
                services.resolve_report(request.user, report,
                                        request.POST.get("resolution") or "no action",
                                        request.POST.get("note"))
            except ApplicationError as exc:
                self.message_user(request, f"#{report.pk}: {exc.text()}", messages.ERROR)


class HideForm(ActionForm):
    reason = forms.CharField(label=_("Reason"), required=False, max_length=500)


class HiddenFilter(admin.SimpleListFilter):
    title = _("hidden")
    parameter_name = "hidden"

    def lookups(self, request, model_admin):
        return [("yes", _("hidden by a moderator")), ("no", _("shown"))]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(hide__isnull=self.value() == "no")
        return queryset


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnly):
    """The table chat, read-only (messages are never changed): moderators hide a message with
    the action, which the moderation log records."""

    list_display = ("created_at", "game", "author", "seat", "source", "short_text", "hidden")
    list_filter = (HiddenFilter,)
    search_fields = ("author__username", "game__id", "text")
    fields = ("game", "author", "seat", "seq", "source", "text", "created_at", "hidden",
              "in_context")
    readonly_fields = fields
    list_select_related = ("author", "game")
    action_form = HideForm
    actions = ["hide"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("hide")

    @admin.display(description=_("text"))
    def short_text(self, message):
        return message.text if len(message.text) <= 80 else message.text[:79] + "…"

    @admin.display(description=_("hidden"), boolean=True)
    def hidden(self, message):
        return hasattr(message, "hide")

    @admin.display(description=_("with the messages around it"))
    def in_context(self, message):
        return chat_in_context(message)

    @admin.action(description=_("Hide from the players (reason)"))
    def hide(self, request, queryset):
        if not services.is_moderator(request.user):
            raise PermissionDenied
        for message in queryset:
            try:
                services.hide_message(request.user, message.pk, request.POST.get("reason"))
            except ApplicationError as exc:
                self.message_user(request, f"#{message.pk}: {exc.text()}", messages.ERROR)


class UserActionForm(ActionForm):
    reason = forms.CharField(label=_("Reason"), required=False, max_length=500)
    days = forms.IntegerField(label=_("Days"), required=False, min_value=1, max_value=365)


def _user_action(name, label, work):
    def action(modeladmin, request, queryset):
        if not services.is_moderator(request.user):
            raise PermissionDenied
        for user in queryset:
            try:
                work(services, request.user, user, request.POST)
            except ApplicationError as exc:
                modeladmin.message_user(request, f"{user.username}: {exc.text()}",
                                        messages.ERROR)

    action.__name__ = name
    action.short_description = label
    return action


def _days(data) -> int:
    try:
        return max(1, min(365, int(data.get("days") or 7)))
    except ValueError:
        return 7


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        (_("Preferences"), {"fields": ("language", "notify_email", "notify_chat_digest",
                                        "timezone")}),
        (_("Moderation"), {"fields": ("suspended_until", "banned", "moderation_reason")}),
    )
    readonly_fields = ("suspended_until", "banned", "moderation_reason")
    list_display = ("username", "email", "is_staff", "is_active", "banned", "suspended_until",
                    "language", "date_joined")
    list_filter = ("is_staff", "is_superuser", "is_active", "banned", "language")
    action_form = UserActionForm
    actions = [
        _user_action("suspend_users", _("Suspend (days, reason)"),
                     lambda s, m, u, d: s.suspend(
                         m, u, timezone.now() + dt.timedelta(days=_days(d)), d.get("reason"))),
        _user_action("ban_users", _("Ban (reason)"),
                     lambda s, m, u, d: s.ban(m, u, d.get("reason"))),
        _user_action("lift_users", _("Lift a suspension or ban (reason)"),
                     lambda s, m, u, d: s.lift(m, u, d.get("reason"))),
    ]

    # Moderators act on accounts only through the actions above (suspend, ban, lift): the user
    # pages are read-only to them, and only a superuser adds, edits (privileges, groups,
    # permissions, the password) or deletes a user, whatever permissions a group holds.
    def has_add_permission(self, request):
        return request.user.is_active and request.user.is_superuser

    def has_change_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser

    def has_delete_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if request.user.is_superuser:
            return fieldsets
        # (the password's line links to the password form: a superuser's only)
        return [(name, {**options, "fields": [f for f in options["fields"] if f != "password"]})
                for name, options in fieldsets]

    def has_view_permission(self, request, obj=None):
        return (request.user.is_active and request.user.is_superuser) or services.is_moderator(
            request.user)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and "username" in form.changed_data:
            games.user_changed(obj)  # the tables show the new name
