"""A logged-in user's preferences win over the browser's: their language and time zone."""

from __future__ import annotations

import zoneinfo

from django.conf import settings
from django.utils import timezone, translation


class UserLanguageMiddleware:
    """After authentication: a logged-in user's pages are in their ``language`` and show times
    in their ``timezone``; the language switcher (``accounts.web.set_language``) updates the
    language preference."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.known = {code for code, _name in settings.LANGUAGES}

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            if user.language in self.known:
                translation.activate(user.language)
                request.LANGUAGE_CODE = user.language
            try:
                timezone.activate(zoneinfo.ZoneInfo(user.timezone or "UTC"))
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                timezone.deactivate()
        else:
            timezone.deactivate()
        return self.get_response(request)


class BlockedUserMiddleware:
    """A suspended or banned user still holding a session is logged out and told why."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and not request.path.startswith("/api/"):
            reason = user.blocked_reason()
            if reason:
                from django.contrib.auth import logout
                from django.shortcuts import render

                logout(request)
                return render(request, "account/blocked.html", {"reason": reason},
                              status=403)
        return self.get_response(request)
