from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.utils.translation import gettext_lazy as _

from .models import User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    fieldsets = (
        *BaseUserAdmin.fieldsets,
        (_("Preferences"), {"fields": ("language", "notify_email", "timezone")}),
    )
    list_display = ("username", "email", "is_staff", "is_active", "language", "date_joined")
    list_filter = ("is_staff", "is_superuser", "is_active", "language")
