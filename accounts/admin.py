"""Vacations in the admin (the users' admin, with the moderators' actions on accounts, is the
moderation app's: ``moderation/admin.py``)."""

from django.contrib import admin

from .models import Vacation


@admin.register(Vacation)
class VacationAdmin(admin.ModelAdmin):
    list_display = ("user", "start", "end")
    search_fields = ("user__username",)
