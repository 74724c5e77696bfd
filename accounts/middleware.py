"""The logged-in user's language preference wins over the browser's."""

from __future__ import annotations

from django.conf import settings
from django.utils import translation


class UserLanguageMiddleware:
    """After authentication: a logged-in user's pages are in their ``language``; the language
    switcher (``accounts.web.set_language``) updates that preference."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.known = {code for code, _name in settings.LANGUAGES}

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.language in self.known:
            translation.activate(user.language)
            request.LANGUAGE_CODE = user.language
        return self.get_response(request)
