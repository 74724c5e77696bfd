"""allauth hooks: a suspended or banned user is told why instead of being logged in; a new
account takes the language it signed up in; its mails are in its language; an invitation link
followed to sign up leads back to the game's join form, through email verification and login."""

from __future__ import annotations

import re
from urllib.parse import quote

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.utils import get_next_redirect_url
from allauth.core.exceptions import ImmediateHttpResponse
from django.conf import settings
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation


def active_language() -> str:
    """The page's language now (the switcher's cookie or the browser's Accept-Language), as one
    of the site's language codes."""
    code = (translation.get_language() or "").split("-")[0]
    known = {known for known, _name in settings.LANGUAGES}
    return code if code in known else settings.LANGUAGE_CODE


#: The session's invitation still to answer: the game page's address with its invite code.
PENDING_INVITE = "pending_invite"
_INVITE_PATH = re.compile(r"/games/[0-9a-f-]{36}/\?invite=[A-Za-z0-9_-]{1,64}")


def invite_of(url: str | None) -> str:
    """``url`` if it is a game's invitation link (a path of this site), else ""."""
    return url if url and _INVITE_PATH.fullmatch(url) else ""


def pending_invite(request) -> str:
    """The invitation this request's visitor came from: the ``next`` it carries (the game page's
    sign-up and log-in links), else the one its session remembers."""
    if request is None:
        return ""
    session = getattr(request, "session", None)
    return (invite_of(get_next_redirect_url(request))
            or invite_of(session.get(PENDING_INVITE) if session is not None else ""))


class AccountAdapter(DefaultAccountAdapter):
    def save_user(self, request, user, form, commit=True):
        user = super().save_user(request, user, form, commit=False)
        user.language = active_language()
        from .forms import take_browser_timezone

        take_browser_timezone(user, form.cleaned_data.get("timezone", ""))
        invite = pending_invite(request)
        if invite:
            # Remembered for a login in this browser that comes without it (after verifying
            # the address elsewhere, say).
            request.session[PENDING_INVITE] = invite
        if commit:
            user.save()
        return user

    def get_email_confirmation_url(self, request, emailconfirmation):
        # Opened in another browser, the verification link still leads to the invitation:
        # verified, to the log-in, then to the game's join form.
        url = super().get_email_confirmation_url(request, emailconfirmation)
        invite = pending_invite(request)
        if invite:
            login = f"{reverse('account_login')}?next={quote(invite, safe='')}"
            url += ("&" if "?" in url else "?") + f"next={quote(login, safe='')}"
        return url

    def post_login(self, request, user, **kwargs):
        # Answered by this login (or its explicit next wins): the invitation is forgotten.
        invite = invite_of(request.session.pop(PENDING_INVITE, ""))
        if invite and not kwargs.get("redirect_url"):
            kwargs["redirect_url"] = invite
        return super().post_login(request, user, **kwargs)

    def send_mail(self, template_prefix, email, context):
        # A mail about an account (verification, password reset) is in the account's language,
        # whatever the page that caused it was in.
        language = getattr(context.get("user"), "language", None)
        if language:
            with translation.override(language):
                return super().send_mail(template_prefix, email, context)
        return super().send_mail(template_prefix, email, context)

    def pre_login(self, request, user, **kwargs):
        reason = user.blocked_reason()
        if reason:
            raise ImmediateHttpResponse(render(request, "account/blocked.html",
                                               {"reason": reason}, status=403))
        return super().pre_login(request, user, **kwargs)
