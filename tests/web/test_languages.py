"""The language of an answer, and its ``Content-Language`` and ``Vary`` headers: Django's
``LocaleMiddleware`` with the site's own choice (a logged-in user's language, then the language
cookie, then ``Accept-Language``), on the pages and on the API."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.api.factories import UserFactory, client_for

pytestmark = pytest.mark.django_db


def test_each_answer_says_its_language(settings):
    french = UserFactory(language="fr")
    english = UserFactory(language="en")
    anonymous_fr = Client(headers={"accept-language": "fr"})
    cookie = Client()
    cookie.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    logged_in = Client(headers={"accept-language": "en"})
    logged_in.force_login(french)
    answers = []
    for client, url in [(Client(), "/"), (anonymous_fr, "/"), (anonymous_fr, "/api/v1/games/"),
                        (anonymous_fr, "/api/v1/nowhere/"), (anonymous_fr, "/fr/"),
                        (cookie, "/games/"), (logged_in, "/games/"),
                        (client_for(english), "/api/v1/me/games/"),
                        (Client(headers={"accept-language": "fr-CA,en;q=0.5"}), "/rules/")]:
        answers.append(client.get(url))
    languages = [answer.get("Content-Language") for answer in answers]
    assert languages == ["en", "fr", "fr", "fr", "fr", "fr", "fr", "en", "fr"]
    assert all("Accept-Language" in answer.get("Vary", "") for answer in answers)
    assert b'lang="fr"' in answers[1].content and b'lang="en"' in answers[0].content
