"""Mascarade's refusals in the page's language (issue 23; the site's part and the helpers are in
``tests/web/test_errors_in_language.py``): a move its rules refuse, a move while the game waits for
someone else and a stale form through the table's form; the kit words every rule code; the
engine's errors carry the values their words use."""

from __future__ import annotations

import pytest
from django.utils import translation

from games.core.catalog import get_game, get_kit
from games.engine import IllegalMove, NotYourDecision
from games.models import Game
from tests.api.factories import UserFactory
from tests.api.helpers import start_game
from tests.web.test_errors_in_language import (
    NOT_YOURS,
    STALE,
    assert_in_language,
    awaited,
    shown,
    speaking,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def mascarade():
    users = [UserFactory() for _ in range(4)]
    return users, start_game(users[0], users[1:], options={"players": 4})


@pytest.mark.parametrize("language", ["fr", "en"])
def test_mascarade_refusals_in_the_page_language(mascarade, language):
    users, game = mascarade
    speaking(language, users)
    player = awaited(game)
    # An exchange with one's own seat (the rules' exchange_with_self).
    page = shown(users[player], game, {"type": "exchange", "target": player, "swap": False})
    assert_in_language(page, language, "You cannot exchange your card with your own seat: "
                       "choose another seat or a center card (§5).")
    # A move while the game waits for another player.
    other = (player + 1) % 4
    page = shown(users[other], game, {"type": "exchange", "target": player, "swap": False})
    assert_in_language(page, language, NOT_YOURS,
                       "The game is not waiting for a decision from you now; it waits for")
    # A stale form.
    page = shown(users[player], game, {"type": "exchange", "target": other, "swap": False},
                 seq=game.seq + 5)
    assert_in_language(page, language, STALE, "not at the expected_seq you sent")
    assert Game.objects.get(pk=game.pk).seq == game.seq


def test_mascarade_words_its_rule_codes():
    kit = get_kit("mascarade")
    cases = [IllegalMove("x", code="r5_revealed_last_turn"),
             IllegalMove("x", code="prep_exchange_only", decision="prep"),
             IllegalMove("x", code="wrong_move_now", decision="turn"),
             IllegalMove("x", code="wrong_move_now", decision="challenge", seat=1, mask="king"),
             IllegalMove("x", code="wrong_move_now", decision="spy_swap", mask="spy"),
             IllegalMove("x", code="mask_not_in_play", mask="widow", masks=["king", "queen"]),
             IllegalMove("x", code="target_self", mask="spy"),
             IllegalMove("x", code="targets_not_distinct", mask="fool"),
             IllegalMove("x", code="crook_not_richest", seat=1, seats=[2])]
    for language in ("en", "fr"):
        with translation.override(language):
            for error in cases:
                words = kit.error_words(error)
                assert words and words != "x" and "%(" not in words, error.code
    with translation.override("en"):
        assert kit.error_words(cases[0]).startswith("You cannot announce this turn")
        assert "King" in kit.error_words(cases[3])


def test_the_engine_errors_carry_the_values_their_words_use():
    from games.mascarade.rules import rules

    game = get_game("mascarade")
    options = game.normalize_options({"players": 4})
    state = game.setup(options, 5)
    player = game.pending(state)[0].player
    with pytest.raises(IllegalMove) as refused:
        rules.apply(state, player, {"type": "exchange", "target": player, "swap": True})
    assert refused.value.code == "exchange_with_self"
    with pytest.raises(NotYourDecision) as refused:
        rules.apply(state, (player + 1) % 4, {"type": "look"})
    assert refused.value.extra["seats"] == [player]
