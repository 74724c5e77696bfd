"""Issue 42, item 10: every banner of L'Ère des Masques names its decision with its context,
from the viewer's projection only: the awaited player reads a question ("bob played a card face
down: let it pass, or counter it by naming its kind?"), everyone else who is awaited for what."""

from __future__ import annotations

import pytest
from django.utils import translation

from games.core.kit import Board
from games.ere_des_masques.kit import KIT
from games.ere_des_masques.rules import DECISIONS

NAMES = {0: "ada", 1: "bob"}


def state_for(decision: str, right: bool = False) -> dict:
    """Seat 0's decision awaited, in the shape of the rules' view (docs/api/ere_des_masques.md);
    seat 1 played the card, or holds the power."""
    state = {"phase": "playing", "turn": 7, "turn_seat": 1, "played": None, "power": None,
             "awaiting": [{"seat": 0, "player": "ada", "decision": decision}],
             "seats": [{"seat": s, "player": n} for s, n in NAMES.items()]}
    if decision == "respond":
        state["played"] = {"seat": 1, "revealed": False, "countered": False,
                           "counter_kind": None, "right": None, "card": None}
    elif decision == "discard":
        state["played"] = {"seat": 1, "revealed": True, "countered": True,
                           "counter_kind": "brute", "right": right,
                           "card": "brute" if right else "spy"}
    elif decision in ("keep", "assassinate"):
        state["turn_seat"] = 0
        state["power"] = {"seat": 0, "kind": "recruiter" if decision == "keep" else "assassin",
                          "count": 5 if decision == "keep" else None}
    return state


def banner(decision: str, viewer: int | None, right: bool = False) -> str:
    state = state_for(decision, right)
    board = Board(game=None, state=state, you=None if viewer is None else {"seat": viewer},
                  names=NAMES, seats=[])
    return KIT.decision_banner(state["awaiting"][0], board)


@pytest.mark.parametrize("decision", DECISIONS)
def test_every_decision_is_named_with_its_context(decision):
    with translation.override("en"):
        yours, theirs = banner(decision, 0), banner(decision, 1)
        question = KIT.decision_question(decision)
    assert yours.endswith(": " + question) and len(yours) > len(question) + 2, yours
    assert theirs.startswith("Waiting for ada: ") and theirs.endswith(")."), theirs
    assert banner(decision, None) == theirs  # (a spectator reads what the opponent reads)
    with translation.override("fr"):
        assert banner(decision, 0) != yours and " : " in banner(decision, 0)


def test_the_banners_say_who_played_and_how_the_counter_went():
    with translation.override("en"):
        assert banner("respond", 0) == (
            "bob played a card face down: let it pass, or counter it by naming its kind?")
        assert banner("discard", 0, right=False) == (
            "You named the Brute, wrongly (it was the Spy): which card of your hand do you "
            "discard?")
        assert banner("discard", 1, right=True) == (
            "Waiting for ada: discard a card from the hand (ada named the Brute, rightly).")
        assert banner("keep", 0) == (
            "Your Recruiter drew 5 cards: which card do you keep in your hand?")
    with translation.override("fr"):
        assert banner("respond", 0) == (
            "bob a joué une carte face cachée : la laisser passer, ou la contrer en nommant "
            "son type ?")
