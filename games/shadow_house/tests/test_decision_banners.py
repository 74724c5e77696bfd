"""Issue 42, item 10: every banner of Shadow House names its decision with its context, from
the viewer's projection only: the card whose effect waits, who played it and on whom ("bob
played Sharing: which card do you give?"); everyone else reads who is awaited for what."""

from __future__ import annotations

import pytest
from django.utils import translation

from games.core.kit import Board
from games.shadow_house.kit import KIT
from games.shadow_house.rules import DECISIONS

NAMES = {0: "ada", 1: "bob", 2: "cyd"}
#: The card whose effect each decision answers, its player and its target.
EFFECTS = {"discard": ("accomplice", 1, 0), "give": ("sharing", 1, None),
           "contribute": ("panic", 2, None), "witness": ("witness", 0, 2),
           "say": ("divining_hat", 0, None)}


def banner(decision: str, viewer: int | None) -> str:
    state = {"phase": "playing", "round": 2, "turn": 31, "turn_seat": None, "effect": None,
             "awaiting": [{"seat": 0, "player": "ada", "decision": decision}],
             "seats": [{"seat": s, "player": n} for s, n in NAMES.items()]}
    if decision in EFFECTS:
        card, seat, target = EFFECTS[decision]
        state["effect"] = {"card": card, "seat": seat, "target": target}
    else:
        state["turn_seat"] = 0
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
    with translation.override("fr"):
        assert banner(decision, 0) != yours and " : " in banner(decision, 0)


def test_the_banners_say_which_card_who_played_it_and_on_whom():
    with translation.override("en"):
        assert banner("give", 0) == "bob played Sharing: which card do you give?"
        assert banner("discard", 0) == (
            "bob played Accomplice on you: which card do you discard face up (you then draw "
            "one)?")
        assert banner("witness", 0) == (
            "You played Witness on cyd: swap one of your cards with the player you saw, or "
            "not?")
        assert banner("contribute", 1) == (
            "Waiting for ada: choose a card for the Panic (cyd played Panic!!!).")
        assert banner("turn", 0) == "Round 2: which card do you play face up?"
    with translation.override("fr"):
        assert banner("give", 0) == "bob a joué Partage : quelle carte donnez-vous ?"
