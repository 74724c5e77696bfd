"""The site's user: Django's user plus the preferences every page, email and API answer honours."""

import zoneinfo

from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _


def validate_timezone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(_("%(value)s is not a known time zone."), params={"value": value})


class User(AbstractUser):
    class Language(models.TextChoices):
        ENGLISH = "en", _("English")
        FRENCH = "fr", _("French")

    email = models.EmailField(_("email address"), unique=True, null=True, blank=True)
    language = models.CharField(
        _("language"), max_length=8, choices=Language.choices, default=Language.ENGLISH
    )
    notify_email = models.BooleanField(_("email notifications"), default=True)
    timezone = models.CharField(
        _("time zone"), max_length=64, default="UTC", validators=[validate_timezone]
    )

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        verbose_name = _("user")
        verbose_name_plural = _("users")

    def save(self, *args, **kwargs):
        # One address, one account: compare emails case-insensitively; store blanks as NULL so
        # that several accounts without an address do not collide on the unique constraint.
        self.email = self.__class__.objects.normalize_email(self.email) or None
        if self.email:
            self.email = self.email.lower()
        super().save(*args, **kwargs)
