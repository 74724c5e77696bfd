"""French words of L'Ère des Masques addressed to the player (issue 42, item 16): the discard
decision is the reader's own, "de votre main", not "de sa main"."""

from __future__ import annotations

from django.utils import translation

from games.ere_des_masques import display


def test_the_discard_decision_says_your_hand_in_french():
    with translation.override("fr"):
        assert display.decision("discard") == "défausser une carte de votre main"
    with translation.override("en"):
        assert display.decision("discard") == "discard a card from the hand"
