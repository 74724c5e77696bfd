"""The site's user: Django's user plus the preferences every page, email and API answer honours."""

import zoneinfo

from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from .usernames import UsernameValidator


def validate_timezone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(_("%(value)s is not a known time zone."), params={"value": value})


class User(AbstractUser):
    username_validator = UsernameValidator()

    # Django's, with the validator that refuses look-alike names (accounts/usernames.py).
    username = models.CharField(
        _("username"), max_length=150, unique=True,
        help_text=_("Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only."),
        validators=[username_validator],
        error_messages={"unique": _("A user with that username already exists.")})

    class Language(models.TextChoices):
        ENGLISH = "en", _("English")
        FRENCH = "fr", _("French")

    email = models.EmailField(_("email address"), unique=True, null=True, blank=True)
    language = models.CharField(
        _("language"), max_length=8, choices=Language.choices, default=Language.ENGLISH
    )
    notify_email = models.BooleanField(_("email notifications"), default=True)
    # The daily "new messages at your table" mail (only while email notifications are on).
    notify_chat_digest = models.BooleanField(_("daily digest of new table chat messages"),
                                             default=True)
    timezone = models.CharField(
        _("time zone"), max_length=64, default="UTC", validators=[validate_timezone]
    )
    # Moderation: a suspended (until a date) or banned user can neither log in nor use the API.
    suspended_until = models.DateTimeField(_("suspended until"), null=True, blank=True)
    banned = models.BooleanField(_("banned"), default=False)
    moderation_reason = models.TextField(_("why (shown to the user)"), blank=True)
    # The user has an active webhook endpoint (games.webhooks.endpoints keeps it): read with the
    # seats, so that the write path looks for endpoints only when there is one to find.
    has_webhooks = models.BooleanField(default=False, editable=False)
    # Web Push (games/webpush/): what the user's devices are told, each kind on its own; and
    # whether they have a device at all (kept by games.webpush.subscriptions, read with the seats:
    # the outbox writes a message for a user without email only when a push may carry it).
    push_decisions = models.BooleanField(_("push: a decision awaits me"), default=True)
    push_reminders = models.BooleanField(_("push: my deadline is near"), default=True)
    push_games = models.BooleanField(_("push: my games start and end"), default=True)
    has_push = models.BooleanField(default=False, editable=False)
    # The table's one-tap offer of notifications on this device was answered ("not now", or
    # turned on): it is not offered again (the profile always offers it).
    push_offer_answered = models.BooleanField(default=False, editable=False)

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        verbose_name = _("user")
        verbose_name_plural = _("users")

    def blocked_reason(self, now=None) -> str:
        """Why this user may not log in or act now ("" when they may)."""
        from django.utils import timezone as tz

        if self.banned:
            return str(_("Your account is banned: %(reason)s") % {
                "reason": self.moderation_reason or "—"})
        if self.suspended_until is not None and self.suspended_until > (now or tz.now()):
            return str(_("Your account is suspended until %(until)s UTC: %(reason)s") % {
                "until": self.suspended_until.strftime("%Y-%m-%d %H:%M"),
                "reason": self.moderation_reason or "—"})
        return ""

    def save(self, *args, **kwargs):
        # One address, one account: compare emails case-insensitively; store blanks as NULL so
        # that several accounts without an address do not collide on the unique constraint.
        self.email = self.__class__.objects.normalize_email(self.email) or None
        if self.email:
            self.email = self.email.lower()
        super().save(*args, **kwargs)


class Vacation(models.Model):
    """Days off declared by a user (inclusive dates, in the user's time zone): their deadlines
    extend over them, and their tables show they are away. At most
    :data:`VACATION_DAYS_PER_YEAR` days per calendar year."""

    user = models.ForeignKey("accounts.User", on_delete=models.CASCADE, related_name="vacations")
    start = models.DateField(_("first day"))
    end = models.DateField(_("last day"))
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["user_id", "start"]
        constraints = [models.CheckConstraint(condition=models.Q(end__gte=models.F("start")),
                                              name="vacation_end_after_start")]
        verbose_name = _("vacation")
        verbose_name_plural = _("vacations")

    def __str__(self) -> str:
        return f"{self.user_id}: {self.start} – {self.end}"

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1


class ChatMute(models.Model):
    """A user no longer sees another user's table chat messages (pages, API, digest): a
    preference of the viewer's own, which the muted user never learns of."""

    user = models.ForeignKey("accounts.User", on_delete=models.CASCADE,
                             related_name="chat_mutes")
    muted = models.ForeignKey("accounts.User", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["user_id", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "muted"], name="chat_mute_unique"),
            models.CheckConstraint(condition=~models.Q(user=models.F("muted")),
                                   name="chat_mute_not_oneself"),
        ]
        verbose_name = _("muted chat")
        verbose_name_plural = _("muted chats")

    def __str__(self) -> str:
        return f"{self.user_id} mutes {self.muted_id}"


#: Vacation days a user may declare per calendar year.
VACATION_DAYS_PER_YEAR = 21
