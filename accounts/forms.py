"""allauth's sign-up and log-in forms with the browser's time zone: a hidden input that
``static/js/timezone.js`` fills from ``Intl``; a new account takes it unless it has one (UTC, the
default, counts as none). Anything that is not a known zone is dropped without a word: without
JavaScript, or with junk, the account keeps UTC."""

from __future__ import annotations

from allauth.account.forms import LoginForm as AllauthLoginForm
from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.core.exceptions import ValidationError

from .models import validate_timezone


class BrowserTimezoneField(forms.CharField):
    widget = forms.HiddenInput(attrs={"data-browser-timezone": ""})

    def __init__(self, **kwargs):
        super().__init__(required=False, **kwargs)

    def clean(self, value):
        value = (super().clean(value) or "")[:64]
        try:
            validate_timezone(value)
        except ValidationError:
            return ""
        return value


def take_browser_timezone(user, zone: str) -> bool:
    """Give ``user`` the browser's ``zone`` if it has none yet; whether it did."""
    if zone and (user.timezone or "UTC") == "UTC" and zone != user.timezone:
        user.timezone = zone
        return True
    return False


class SignupForm(AllauthSignupForm):
    timezone = BrowserTimezoneField()


class LoginForm(AllauthLoginForm):
    timezone = BrowserTimezoneField()

    def login(self, request, redirect_url=None):
        # The first login of a new account (e.g. verified from another browser) takes the
        # browser's zone; later ones leave the account's alone.
        user = getattr(self, "user", None)
        if (user is not None and user.last_login is None
                and take_browser_timezone(user, self.cleaned_data.get("timezone", ""))):
            user.save(update_fields=["timezone"])
        return super().login(request, redirect_url)
