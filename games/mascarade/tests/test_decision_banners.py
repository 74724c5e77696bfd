"""Issue 42, item 10: every banner of Mascarade names its decision with its context, from the
viewer's projection only ("Bot 3 announced the Empress: claim or pass?"), for the awaited player
as a question and for everyone else as who is awaited for what; the awaited player's banner
leads to the decision's form in one tap."""

from __future__ import annotations

import html as html_lib

import pytest
from django.utils import translation

from games.core.kit import Board
from games.mascarade.kit import KIT
from games.mascarade.rules.rules import DECISION_MOVES

from .test_pages_clarity import dealt, page

NAMES = {0: "ada", 1: "bob", 2: "Bot 3", 3: "dov"}


def state_for(decision: str, seat: int) -> dict:
    """A viewer's ``state`` awaiting ``decision`` from ``seat`` (the shape of the rules'
    view: docs/api/mascarade.md)."""
    state = {"phase": "turn", "turn": 9, "turn_seat": 2,
             "awaiting": [{"seat": seat, "player": NAMES[seat], "decision": decision}],
             "seats": [{"seat": s, "player": n, "coins": 6} for s, n in NAMES.items()],
             "announcement": None, "power": None}
    if decision == "prep":
        state.update(phase="prep", turn=2)
    elif decision == "challenge":
        state.update(phase="challenge",
                     announcement={"seat": 2, "mask": "empress", "claims": [], "passes": []})
    elif decision not in ("turn",):
        holder = 2 if decision in ("guru_answer", "gambler_guess") else seat
        mask = decision.split("_")[0]
        state.update(phase="power", power={"seat": holder, "mask": mask, "decision": decision,
                                           "target": seat if holder != seat else 1})
    return state


def banner(decision: str, seat: int, viewer: int | None) -> str:
    state = state_for(decision, seat)
    you = {"seat": viewer} if viewer is not None else None
    board = Board(game=None, state=state, you=you, names=NAMES, seats=[])
    return KIT.decision_banner(state["awaiting"][0], board)


@pytest.mark.parametrize("decision", sorted(DECISION_MOVES))
def test_every_decision_is_named_with_its_context(decision):
    with translation.override("en"):
        context = KIT.decision_context(state_for(decision, 0)["awaiting"][0], Board(
            game=None, state=state_for(decision, 0), you={"seat": 0}, names=NAMES, seats=[]))
        yours = banner(decision, 0, viewer=0)
        theirs = banner(decision, 0, viewer=3)
        watched = banner(decision, 0, viewer=None)
    assert context, decision
    # The awaited player: the context, then the question put to them.
    assert yours == f"{context}: {KIT.decision_question(decision)}", yours
    assert yours.endswith("?") or yours.endswith("."), yours
    # Everyone else: who is awaited, for what, and the context.
    assert theirs.startswith("Waiting for ada: ") and theirs.endswith(")."), theirs
    assert watched.startswith("Waiting for ada: "), watched
    with translation.override("fr"):
        french = banner(decision, 0, viewer=0)
    assert french != yours, french


def test_the_claim_or_pass_window_says_who_announced_what():
    with translation.override("en"):
        assert banner("challenge", 0, viewer=0) == "Bot 3 announced the Empress: claim or pass?"
        assert (banner("challenge", 0, viewer=1)
                == "Waiting for ada: claim or pass (Bot 3 announced the Empress).")
    with translation.override("fr"):
        assert (banner("challenge", 0, viewer=0)
                == "Bot 3 s'annonce Impératrice : revendiquer ou passer ?")


def test_a_power_says_whose_it_is_and_the_guru_whom_it_questions():
    with translation.override("en"):
        assert banner("guru_answer", 0, viewer=0) == (
            "Bot 3's Guru questions you: which mask do you name?")
        assert banner("guru_answer", 0, viewer=1) == (
            "Waiting for ada: a power decision (Bot 3's Guru questions ada).")
        assert banner("spy", 0, viewer=0) == (
            "The power of your Spy: whose card do you look at, with yours?")
        assert banner("spy_swap", 0, viewer=0) == (
            "Your Spy looked at bob's card and yours: swap the two cards, or leave them?")


@pytest.mark.django_db
def test_the_table_banner_names_the_announcement_and_leads_to_the_form():
    """In the page: the claimant's banner says who announced which mask and links to the
    form's heading (focusable, so the link moves the focus there); the announcer's and a
    spectator's say whom the game waits for."""
    deal = ["judge", "guru", "spy", "king", "princess", "empress"]
    game, by_player, play = dealt(deal, first_seat=1)
    names = {p: user.username for p, user in by_player.items()}
    for seat in (1, 2, 3, 0):
        play({"type": "exchange", "target": (seat + 1) % 4, "swap": False})
    play({"type": "announce", "mask": "guru"})
    claimant = html_lib.unescape(page(by_player[2], game))
    assert f"<strong>{names[1]} announced the Guru: claim or pass?</strong>" in claimant
    assert '<a class="button go-to-move" href="#moves-title">Go to your move</a>' in claimant
    assert '<h2 id="moves-title" tabindex="-1">' in claimant
    announcer = html_lib.unescape(page(by_player[1], game))
    assert (f"Waiting for {names[2]}: claim or pass ({names[1]} announced the Guru)."
            in announcer)
    assert "go-to-move" not in announcer
    assert f"Waiting for {names[2]}: claim or pass" in html_lib.unescape(page(None, game))


def test_a_turn_after_a_reveal_does_not_offer_announcing():
    """[R5] The seat revealed last turn may not announce: its banner offers only looking and
    exchanging; the others read the usual words."""
    state = {**state_for("turn", 0), "revealed_last_turn": [0]}
    board = Board(game=None, state=state, you={"seat": 0}, names=NAMES, seats=[])
    with translation.override("en"):
        yours = KIT.decision_banner(state["awaiting"][0], board)
        assert "announce a mask" not in yours and "may not announce (R5)" in yours
        theirs = KIT.decision_banner(state["awaiting"][0], Board(
            game=None, state=state, you={"seat": 3}, names=NAMES, seats=[]))
        assert theirs.startswith("Waiting for ada: ")
        unrevealed = {**state, "revealed_last_turn": [2]}
        assert "announce a mask" in KIT.decision_banner(unrevealed["awaiting"][0], Board(
            game=None, state=unrevealed, you={"seat": 0}, names=NAMES, seats=[]))
    with translation.override("fr"):
        assert "pas annoncer (R5)" in KIT.decision_banner(state["awaiting"][0], board)
