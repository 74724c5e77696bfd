"""The history says when the rules took an obvious decision for a player [E5]: an event marked
``forced`` does not read as the player's own choice ("lets it pass", "keeps")."""

from __future__ import annotations

import pytest
from django.utils import translation

from games.ere_des_masques import display
from games.ere_des_masques.rules import GAME as G

from .support import do, of_type, script, stage, start

NAMES = {0: "ada", 1: "bob"}
PASS = {"type": "let_pass"}


def _seen(events: list, kind: str, viewer: int, state) -> dict:
    (event,) = [e for e in of_type(events, kind) if e.get("forced")]
    return G.view_event(event, viewer, state)


@pytest.mark.parametrize("viewer", [0, 1])
def test_an_empty_hand_passing_is_told_as_the_rules_doing(viewer):
    s = stage(start(), hands=[["brute"], []])
    s, events = do(s, 0, {"type": "play", "card": "brute"})
    event = _seen(events, "let_pass", viewer, s)
    with translation.override("en"):
        assert display.sentence(event, NAMES) == (
            "bob has no card to counter with: the card passes.")
    with translation.override("fr"):
        assert display.sentence(event, NAMES) == (
            "bob n'a aucune carte pour contrer : la carte passe.")


def test_a_single_recruited_card_kept_is_told_as_the_rules_doing():
    s = stage(start(), pile=["spy"], discard=[], rest=1)
    s, events = script(s, {"type": "play", "card": "recruiter"}, PASS)
    with translation.override("en"):
        assert display.sentence(_seen(events, "keep", 0, s), NAMES) == (
            f"ada keeps {display.card('spy')}, the only card recruited.")
        assert display.sentence(_seen(events, "keep", 1, s), NAMES) == (
            "ada keeps the only card recruited.")
    with translation.override("fr"):
        assert display.sentence(_seen(events, "keep", 1, s), NAMES) == (
            "ada garde la seule carte enrôlée.")


def test_an_assassin_facing_one_kind_is_told_as_the_rules_doing():
    s = stage(start(), zones=[["brute", "brute", "brute"], ["brute", "brute", "brute"]])
    s, _ = script(s, {"type": "play", "card": "brute"}, {"type": "counter", "kind": "brute"})
    s, events = do(s, 1, {"type": "discard", "card": "assassin"})
    event = _seen(events, "discard", 0, s)
    with translation.override("en"):
        assert display.sentence(event, NAMES).endswith("the only kind it holds.")
    with translation.override("fr"):
        assert display.sentence(event, NAMES).endswith("la seule sorte qu'elle contient.")
