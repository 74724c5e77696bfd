"""The moderation log (append-only) and players' reports."""

from __future__ import annotations

import pgtrigger
from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

#: The group whose members are moderators (created by a migration, with its permissions).
MODERATORS_GROUP = "Moderators"


class ModerationLog(models.Model):
    """Who did what, when and why: every moderator action on a game or a user, and every look at
    a game's full table. Append-only: the database refuses UPDATE and DELETE."""

    moderator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                  related_name="+")
    action = models.CharField(_("action"), max_length=32)
    game = models.ForeignKey("games.Game", on_delete=models.PROTECT, null=True, blank=True,
                             related_name="+")
    target_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                    null=True, blank=True, related_name="+")
    reason = models.TextField(_("reason"), blank=True)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        triggers = [pgtrigger.Protect(name="moderation_log_append_only",
                                      operation=pgtrigger.Update | pgtrigger.Delete)]
        verbose_name = _("moderation log entry")
        verbose_name_plural = _("moderation log")

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.moderator_id} {self.action}"


class Report(models.Model):
    """A player reporting another player of the same game, or one of their chat messages."""

    class Reason(models.TextChoices):
        ABUSE = "abuse", _("abusive messages or name")
        CHEATING = "cheating", _("cheating or collusion")
        STALLING = "stalling", _("stalling the game on purpose")
        OTHER = "other", _("something else")

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        RESOLVED = "resolved", _("resolved")

    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                 related_name="reports_filed")
    reported = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                 related_name="reports_received")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="reports")
    seq = models.PositiveIntegerField(_("move number when reported"))
    reason = models.CharField(_("reason"), max_length=16, choices=Reason.choices)
    text = models.TextField(_("details"), blank=True, max_length=2000)
    # The chat message reported, if the report is about one (its author is ``reported``).
    message = models.ForeignKey("games.ChatMessage", on_delete=models.PROTECT, null=True,
                                blank=True, related_name="reports",
                                verbose_name=_("chat message"))
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN,
                              db_index=True)
    resolution = models.CharField(_("action taken"), max_length=64, blank=True)
    note = models.TextField(_("moderator's note"), blank=True)
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                    null=True, blank=True, related_name="+")
    resolved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["status", "-created_at"]
        verbose_name = _("report")
        verbose_name_plural = _("reports")

    def __str__(self) -> str:
        return f"{self.reporter_id} → {self.reported_id} ({self.reason}, {self.status})"
