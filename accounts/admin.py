import datetime as dt

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.core.exceptions import PermissionDenied
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.api.errors import APIError

from .models import User, Vacation


class UserActionForm(ActionForm):
    reason = forms.CharField(label=_("Reason"), required=False, max_length=500)
    days = forms.IntegerField(label=_("Days"), required=False, min_value=1, max_value=365)


def _user_action(name, label, work):
    def action(modeladmin, request, queryset):
        from moderation import services

        if not services.is_moderator(request.user):
            raise PermissionDenied
        for user in queryset:
            try:
                work(services, request.user, user, request.POST)
            except APIError as exc:
                modeladmin.message_user(request, f"{user.username}: {exc.detail_text}",
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
        (_("Preferences"), {"fields": ("language", "notify_email", "timezone")}),
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


@admin.register(Vacation)
class VacationAdmin(admin.ModelAdmin):
    list_display = ("user", "start", "end")
    search_fields = ("user__username",)
