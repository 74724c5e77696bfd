"""L'Ère des Masques's refusals in the page's language (issue 23; the site's part and the helpers
are in ``tests/web/test_errors_in_language.py``): a card not in the hand and a move while the game
waits for the other player, through the table's form; the kit words a counter without a card."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.translation import gettext, pgettext

from games.core import services
from games.core.catalog import get_kit
from games.core.errors import text_of
from games.engine import IllegalMove
from games.models import Game
from tests.api.factories import UserFactory
from tests.web.test_errors_in_language import (
    NOT_YOURS,
    assert_in_language,
    awaited,
    shown,
    speaking,
    truth,
)

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("language", ["fr", "en"])
def test_ere_refusals_in_the_page_language(language):
    # A set deal: with a seeded one both hands may hold all five kinds, and no card is missing.
    kinds = ("noble", "recruiter", "spy", "brute", "assassin")
    deal = ["noble"] * 8 + ["recruiter"] * 5 + [kind for kind in kinds[1:] for _ in range(8)][5:]
    users = [UserFactory(is_staff=True), UserFactory()]
    body = services.create_game(users[0], "ere_des_masques",
                                {"deal": deal, "first_seat": 0}).body
    services.join_game(users[1], body["id"])
    game = Game.objects.get(pk=body["id"])
    speaking(language, users)
    player = awaited(game)
    hand = truth(game)["moderator"]["hands"][player]
    missing = next(kind for kind in kinds if kind not in hand)
    page = shown(users[player], game, {"type": "play", "card": missing})
    with translation.override(language):
        title = pgettext("ere card title", missing.capitalize())
    assert_in_language(page, language, "You have no %(card)s in your hand to play.",
                       f"You have no {missing} in your hand", card=title)
    page = shown(users[1 - player], game, {"type": "draw"})
    assert_in_language(page, language, NOT_YOURS, "it waits for seat")


def test_ere_words_a_counter_without_a_card():
    kit = get_kit("ere_des_masques")
    error = IllegalMove("You may counter only with at least one card in your hand: let the card "
                        "pass (§3).", code="counter_needs_card")
    with translation.override("fr"):
        assert kit.error_words(error) == gettext(
            "You may counter only with at least one card in your hand: let the card pass "
            "(§3).")
    with translation.override("en"):
        assert text_of(error, kit) == error.message
