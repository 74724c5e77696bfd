"""A read-only view of games in the admin (the moderation admin comes later)."""

from django.contrib import admin

from .models import Game, IdempotencyKey, MoveRecord, PendingDecision, Seat


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class SeatInline(admin.TabularInline):
    model = Seat
    fields = ("position", "user", "bot_kind", "joined_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Game)
class GameAdmin(ReadOnly):
    list_display = ("id", "kind", "status", "private", "created_by", "seq", "created_at")
    list_filter = ("status", "kind", "private")
    search_fields = ("id", "created_by__username")
    # The seed is left out on purpose: nobody needs it to moderate a game.
    exclude = ("seed",)
    inlines = [SeatInline]


@admin.register(MoveRecord)
class MoveRecordAdmin(ReadOnly):
    list_display = ("game", "seq", "seat", "actor", "created_at")
    list_filter = ("actor",)
    search_fields = ("game__id",)
    list_select_related = ("seat",)


@admin.register(PendingDecision)
class PendingDecisionAdmin(ReadOnly):
    list_display = ("game", "seat", "player", "decision", "deadline", "bot")
    list_filter = ("bot", "decision")


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(ReadOnly):
    list_display = ("user", "key", "status_code", "created_at")
    exclude = ("response",)
