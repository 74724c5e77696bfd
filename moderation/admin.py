from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext_lazy as _

from games.admin import ReadOnly
from games.api.errors import APIError

from . import services
from .models import ModerationLog, Report


@admin.register(ModerationLog)
class ModerationLogAdmin(ReadOnly):
    list_display = ("created_at", "moderator", "action", "game", "target_user", "reason")
    list_filter = ("action",)
    search_fields = ("moderator__username", "target_user__username", "game__id", "reason")


class ResolveForm(ActionForm):
    resolution = forms.CharField(label=_("Action taken"), required=False, max_length=64)
    note = forms.CharField(label=_("Note"), required=False, max_length=500)


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ("created_at", "reporter", "reported", "game", "seq", "reason", "status")
    list_filter = ("status", "reason")
    search_fields = ("reporter__username", "reported__username", "game__id")
    readonly_fields = ("reporter", "reported", "game", "seq", "reason", "text", "status",
                       "resolution", "note", "resolved_by", "resolved_at", "created_at")
    action_form = ResolveForm
    actions = ["resolve"]

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
            except APIError as exc:
                self.message_user(request, f"#{report.pk}: {exc.detail_text}", messages.ERROR)
