"""Shadow House Mascarade's refusals in the page's language (issue 23; the site's part and the
helpers are in ``tests/web/test_errors_in_language.py``): the Culprit before the last card, a card
not in the hand, a card aimed at oneself and a move while the game waits for another player,
through the table's form; the kit words a Divining hat's text too long."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.translation import gettext, pgettext

from games.core import services
from games.core.catalog import get_kit
from games.core.errors import text_of
from games.engine import MalformedMove
from games.models import Game
from tests.api.factories import UserFactory
from tests.web.test_errors_in_language import (
    NOT_YOURS,
    assert_in_language,
    awaited,
    shown,
    speaking,
)

pytestmark = pytest.mark.django_db


def shadow_game():
    from .test_pages import HANDS, box_order

    users = [UserFactory(is_staff=True), UserFactory(), UserFactory()]
    body = services.create_game(users[0], "shadow_house",
                                {"players": 3, "deal": [box_order(HANDS)]}).body
    for user in users[1:]:
        services.join_game(user, body["id"])
    return users, Game.objects.get(pk=body["id"])


@pytest.mark.parametrize("language", ["fr", "en"])
def test_shadow_house_refusals_in_the_page_language(language):
    users, game = shadow_game()
    speaking(language, users)
    assert awaited(game) == 1
    page = shown(users[1], game, {"type": "play", "card": "culprit"})
    assert_in_language(page, language, "The Culprit may be played only as the last card of "
                       "your hand (S4).")
    page = shown(users[1], game, {"type": "play", "card": "detective", "target": 2})
    with translation.override(language):
        title = pgettext("shadow card", "Detective")
    assert_in_language(page, language, "You have no %(card)s in your hand.",
                       "You have no detective in your hand", card=title)
    page = shown(users[1], game, {"type": "play", "card": "exchange", "target": 1})
    with translation.override(language):
        title = pgettext("shadow card", "Exchange")
    assert_in_language(page, language, "You cannot target yourself with %(card)s (§3).",
                       "You cannot target yourself with the exchange", card=title)
    page = shown(users[2], game, {"type": "play", "card": "detective", "target": 0})
    assert_in_language(page, language, NOT_YOURS, "it waits for seat 1")


def test_shadow_house_words_a_divining_hat_too_long():
    kit = get_kit("shadow_house")
    error = MalformedMove("The Divining hat's text may have at most 200 characters; it has 300.",
                          code="text_too_long", limit=200, length=300)
    with translation.override("en"):
        assert text_of(error, kit) == error.message
    with translation.override("fr"):
        assert text_of(error, kit) == gettext(
            "The Divining hat's text may have at most %(limit)s characters; it has "
            "%(length)s.") % {"limit": 200, "length": 300}
