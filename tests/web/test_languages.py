"""The language of an answer, and its ``Content-Language`` and ``Vary`` headers, are Django's
with ``mascarade_site.middleware.LocaleMiddleware``'s shortcut (perf's ``locale_path``: no look
for a language in the path, which no URL of the site has) as without it; with language-prefixed
URLs (``i18n_patterns``), Django's own way is taken."""

from __future__ import annotations

import pytest
from django.conf.urls.i18n import i18n_patterns
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.urls import path
from django.utils import translation

from tests.api.factories import UserFactory, client_for

pytestmark = pytest.mark.django_db

#: A URL configuration with language prefixes (for the last test).
urlpatterns = i18n_patterns(path("here/", lambda request: HttpResponse(
    translation.get_language())))


def _answers(settings, off: frozenset[str]) -> list[tuple]:
    settings.PERF_OFF = off
    french = UserFactory(language="fr")
    english = UserFactory(language="en")
    anonymous_fr = Client(headers={"accept-language": "fr"})
    cookie = Client()
    cookie.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    logged_in = Client(headers={"accept-language": "en"})
    logged_in.force_login(french)
    out = []
    for client, url in [(Client(), "/"), (anonymous_fr, "/"), (anonymous_fr, "/api/v1/games/"),
                        (anonymous_fr, "/api/v1/nowhere/"), (anonymous_fr, "/fr/"),
                        (cookie, "/games/"), (logged_in, "/games/"),
                        (client_for(english), "/api/v1/me/games/"),
                        (Client(headers={"accept-language": "fr-CA,en;q=0.5"}), "/rules/")]:
        answer = client.get(url)
        out.append((url, answer.status_code, answer.get("Content-Language"),
                    answer.get("Vary"), answer.content[:2000]))
    return out


def test_the_shortcut_answers_as_django_does(settings):
    shortcut = _answers(settings, frozenset())
    django_s = _answers(settings, frozenset({"locale_path"}))
    # (the users differ, their names too: what each page says of its language is compared)
    assert [row[:4] for row in shortcut] == [row[:4] for row in django_s]
    languages = [row[2] for row in shortcut]
    assert languages == ["en", "fr", "fr", "fr", "fr", "fr", "fr", "en", "fr"]
    assert all("Accept-Language" in row[3] for row in shortcut)
    assert b'lang="fr"' in shortcut[1][4] and b'lang="fr"' in django_s[1][4]


@pytest.mark.parametrize("off", [frozenset(), frozenset({"locale_path"})])
def test_with_language_prefixes_django_s_way_is_taken(settings, off):
    from mascarade_site.middleware import LocaleMiddleware

    settings.PERF_OFF = off
    request = RequestFactory().get("/fr/here/")
    request.urlconf = __name__
    middleware = LocaleMiddleware(lambda request: HttpResponse(translation.get_language()))
    answer = middleware(request)
    assert answer.content == b"fr" and request.LANGUAGE_CODE == "fr"
    assert answer["Content-Language"] == "fr"
    # A path without its language is sent to the one with it (Django's redirect).
    request = RequestFactory().get("/here/", headers={"accept-language": "fr"})
    request.urlconf = __name__
    answer = LocaleMiddleware(lambda request: HttpResponse(status=404))(request)
    assert answer.status_code == 302 and answer["Location"] == "/fr/here/"
    translation.activate(settings.LANGUAGE_CODE)
