"""The language switcher that remembers a logged-in user's choice (the profile page, with the
vacations, is the games app's: ``games.web.profile``)."""

from __future__ import annotations

from django.conf import settings
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language


@require_POST
def set_language(request):
    language = request.POST.get("language")
    user = request.user
    if (user.is_authenticated and language in {code for code, _n in settings.LANGUAGES}
            and user.language != language):
        user.language = language
        user.save(update_fields=["language"])
    return django_set_language(request)
