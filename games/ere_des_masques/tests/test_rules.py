"""L'Ère des Masques's rules on staged positions: set-up, every power, counters right and wrong,
draws (reshuffle, E2), both victories (E3), the stalemate and turn-limit rulings, timeouts (§5)
and the errors ``apply`` raises."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from games.engine import Game, GameOver, IllegalMove, MalformedMove, NotYourDecision, Pending
from games.ere_des_masques.rules import GAME as G
from games.ere_des_masques.rules import KINDS, TURN_LIMIT

from .support import deal, do, everything, of_type, script, stage, start, types

PLAY = {"type": "play", "card": "noble"}
PASS = {"type": "let_pass"}
DRAW = {"type": "draw"}


def play(kind: str) -> dict:
    return {"type": "play", "card": kind}


def counter(kind: str) -> dict:
    return {"type": "counter", "kind": kind}


def discard(kind: str) -> dict:
    return {"type": "discard", "card": kind}


def conserved(s) -> None:
    assert Counter(everything(s)) == Counter(dict.fromkeys(KINDS, 8))


# The package ------------------------------------------------------------------------------------


def test_the_game_object_follows_the_protocol():
    assert isinstance(G, Game)
    assert (G.id, G.min_players, G.max_players) == ("ere_des_masques", 2, 2)
    assert type(G).__module__ == "games.ere_des_masques.rules.game"
    assert KINDS == ("noble", "recruiter", "spy", "brute", "assassin")


def test_the_rules_import_nothing_but_the_engine():
    root = Path(__file__).resolve().parents[3]
    modules = ["games.ere_des_masques.rules", *(
        f"games.ere_des_masques.rules.{p.stem}"
        for p in sorted(root.joinpath("games/ere_des_masques/rules").glob("*.py")))]
    code = (
        "import sys, importlib\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "ours = ('games.engine', 'games.ere_des_masques')\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework')\n"
        "             or (m.startswith('games.') and not m.startswith(ours)))\n"
        "assert not bad, bad\n"
        "print('ok')\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root,
                         check=False)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


# Set-up ---------------------------------------------------------------------------------------


def test_setup_follows_the_deal():
    cards = deal(zone0=("brute", "brute"), zone1=("spy", "noble"),
                 hand0=("assassin", "noble", "spy", "noble", "brute"),
                 hand1=("recruiter",) * 5, pile=("assassin", "spy"))
    s = G.setup({"deal": cards, "first_seat": 1}, seed=7)
    assert s.zones == [["brute", "brute"], ["spy", "noble"]]
    assert s.hands == [["noble", "noble", "spy", "brute", "assassin"], ["recruiter"] * 5]
    assert s.pile == cards[14:] and s.pile[:2] == ["assassin", "spy"] and len(s.pile) == 26
    assert (s.turn, s.seat, s.phase, s.discard) == (1, 1, "turn", [])
    assert G.pending(s) == [Pending(1, 1, "turn", "move_timeout")]
    assert G.result(s) is None
    conserved(s)


def test_seeded_setup_shuffles_and_draws_the_first_player():
    firsts = set()
    piles = set()
    for seed in range(40):
        s = G.setup({}, seed)
        assert G.to_json(G.setup({"players": 2}, seed)) == G.to_json(s)
        assert [len(z) for z in s.zones] == [2, 2] and [len(h) for h in s.hands] == [5, 5]
        assert len(s.pile) == 26
        conserved(s)
        firsts.add(s.first)
        piles.add(tuple(s.pile))
    assert firsts == {0, 1} and len(piles) == 40
    # first_seat fixes the first player only; deal fixes the cards only.
    assert G.setup({"first_seat": 1}, 3).seat == 1
    assert G.setup({"deal": None, "first_seat": None}, 3).pile == G.setup({}, 3).pile


# Draw and play ------------------------------------------------------------------------------


def test_draw_two_then_the_other_players_turn():
    s = start(pile=("spy", "brute", "noble"))
    s2, events = do(s, 0, DRAW)
    assert types(events) == ["draw", "turn"]
    assert events[0] == {"type": "draw", "seat": 0, "turn": 1, "count": 2,
                         "cards": ["spy", "brute"], "why": "turn"}
    assert events[1] == {"type": "turn", "seat": 1, "turn": 2, "player": 1}
    assert Counter(s2.hands[0]) == Counter(s.hands[0]) + Counter(["spy", "brute"])
    assert s2.hands[0] == sorted(s2.hands[0], key=KINDS.index)
    assert s2.pile == s.pile[2:] and (s2.turn, s2.seat, s2.phase) == (2, 1, "turn")
    assert s.turn == 1 and len(s.pile) == 26, "apply changed its input"


def test_play_puts_the_card_face_down_and_asks_the_opponent():
    s, events = do(start(), 0, play("brute"))
    assert events == [{"type": "play", "seat": 0, "turn": 1, "card": "brute"}]
    assert s.played == "brute" and not s.revealed and "brute" not in s.hands[0]
    assert G.pending(s) == [Pending(1, 1, "respond", "challenge_timeout")]
    assert G.legal_moves(s, 1) == [PASS, *(counter(k) for k in KINDS)]
    assert G.legal_moves(s, 0) == []


def test_legal_turn_moves_are_one_play_per_kind_in_hand():
    s = start(hand0=("spy", "spy", "noble", "noble", "spy"))
    assert G.legal_moves(s, 0) == [DRAW, play("noble"), play("spy")]


# Let it pass: each power ------------------------------------------------------------------


def test_let_pass_noble_draws_two():
    s, events = script(start(pile=("assassin", "assassin")), PLAY, PASS)
    assert types(events) == ["play", "let_pass", "reveal", "place", "power", "draw", "turn"]
    assert of_type(events, "reveal")[0] == {"type": "reveal", "seat": 0, "turn": 1,
                                            "card": "noble"}
    assert of_type(events, "let_pass")[0]["seat"] == 1
    assert of_type(events, "power")[0] == {"type": "power", "seat": 0, "turn": 1,
                                           "kind": "noble"}
    assert of_type(events, "draw")[0]["cards"] == ["assassin", "assassin"]
    assert s.zones[0] == ["noble", "recruiter", "noble"]
    assert s.hands[0] == ["recruiter", "spy", "brute", "assassin", "assassin", "assassin"]
    assert (s.seat, s.turn, s.played) == (1, 2, "")
    conserved(s)


def test_spy_draws_one_then_sees_the_opponents_hand():
    s, events = script(start(pile=("brute",), hand1=("noble", "noble", "assassin", "spy", "spy")),
                       play("spy"), PASS)
    assert types(events)[-4:] == ["power", "draw", "spy", "turn"]
    spy = of_type(events, "spy")[0]
    assert spy == {"type": "spy", "seat": 0, "turn": 1, "target": 1,
                   "hand": ["noble", "noble", "spy", "spy", "assassin"]}
    assert "brute" in s.hands[0]
    assert s.seen == [[[2, ["noble", "noble", "spy", "spy", "assassin"]]], []]
    assert G.view(s, 0)["you"]["seen"] == [{"seq": 2,
                                            "hand": ["noble", "noble", "spy", "spy", "assassin"]}]
    assert G.view(s, 1)["you"]["seen"] == []


def test_brute_discards_a_random_card_of_the_opponents_hand():
    picked = set()
    for seed in range(30):
        s = G.setup({"deal": deal(), "first_seat": 0}, seed)
        s, events = script(s, play("brute"), PASS)
        (gone,) = of_type(events, "discard")
        assert gone == {"type": "discard", "seat": 1, "turn": 1, "card": gone["card"],
                        "why": "brute", "from": "hand", "by": 0}
        assert len(s.hands[1]) == 4 and gone["card"] not in s.hands[1]
        assert s.discard == [gone["card"]]
        picked.add(gone["card"])
    assert len(picked) >= 4, "the Brute's pick is not random"


def test_brute_on_an_empty_hand_does_nothing():
    s = stage(start(), hands=[["brute"], []])
    s, events = do(s, 0, play("brute"))  # [E5] the empty hand lets it pass at once
    assert types(events)[-2:] == ["power", "turn"] and not of_type(events, "discard")


def test_recruiter_draws_five_keeps_one_discards_the_others():
    s = start(pile=("spy", "assassin", "spy", "noble", "brute"))
    s, events = script(s, play("recruiter"), PASS)
    recruit = of_type(events, "recruit")[0]
    assert recruit == {"type": "recruit", "seat": 0, "turn": 1, "count": 5,
                       "cards": ["noble", "spy", "spy", "brute", "assassin"]}
    assert G.pending(s) == [Pending(0, 0, "keep", "move_timeout")]
    assert G.legal_moves(s, 0) == [{"type": "keep", "card": k}
                                   for k in ("noble", "spy", "brute", "assassin")]
    assert G.view(s, 0)["recruited"] == ["noble", "spy", "spy", "brute", "assassin"]
    assert G.view(s, 1)["recruited"] is None
    assert G.view(s, 1)["power"] == {"seat": 0, "kind": "recruiter", "count": 5}
    conserved(s)
    hand = list(s.hands[0])
    s, events = do(s, 0, {"type": "keep", "card": "spy"})
    assert types(events) == ["keep", "discard", "discard", "discard", "discard", "turn"]
    assert events[0] == {"type": "keep", "seat": 0, "turn": 1, "card": "spy"}
    assert [e["card"] for e in of_type(events, "discard")] == ["noble", "spy", "brute",
                                                               "assassin"]
    assert {(e["why"], e["from"], e["seat"]) for e in of_type(events, "discard")} == {
        ("recruiter", "drawn", 0)}
    assert Counter(s.hands[0]) == Counter([*hand, "spy"])
    assert s.discard == ["noble", "spy", "brute", "assassin"] and s.recruited == []
    conserved(s)


def test_recruiter_with_fewer_than_five_cards_left():
    # Two in the pile, an empty discard (E2): two drawn, keep one.
    s = stage(start(), pile=["spy", "brute"], discard=[], rest=1)
    s, events = script(s, play("recruiter"), PASS)
    assert of_type(events, "recruit")[0]["count"] == 2
    s, events = do(s, 0, {"type": "keep", "card": "brute"})
    assert [e["card"] for e in of_type(events, "discard")] == ["spy"]
    # One card left: it is kept at once [E5] (see the E5 tests).
    # Nothing left: no decision, the turn passes.
    s = stage(start(), pile=[], discard=[], rest=1)
    s, events = script(s, play("recruiter"), PASS)
    assert of_type(events, "recruit")[0] == {"type": "recruit", "seat": 0, "turn": 1,
                                             "count": 0, "cards": []}
    assert (s.phase, s.seat) == ("turn", 1)
    # Two in the pile, three in the discard: the discard is reshuffled halfway through.
    s = stage(start(), pile=["spy", "brute"], discard=["noble", "noble", "assassin"], rest=1)
    s, events = script(s, play("recruiter"), PASS)
    assert types(events)[-2:] == ["reshuffle", "recruit"]
    assert of_type(events, "reshuffle")[0]["count"] == 3
    assert Counter(s.recruited) == Counter(["spy", "brute", "noble", "noble", "assassin"])
    assert (s.pile, s.discard) == ([], [])
    conserved(s)


def test_assassin_discards_a_card_of_the_opponents_zone():
    s = stage(start(), zones=[["noble", "recruiter"], ["noble", "spy", "noble"]])
    s, events = script(s, play("assassin"), PASS)
    assert G.pending(s) == [Pending(0, 0, "assassinate", "move_timeout")]
    assert G.legal_moves(s, 0) == [{"type": "assassinate", "card": "noble"},
                                   {"type": "assassinate", "card": "spy"}]
    assert G.view(s, 1)["power"] == {"seat": 0, "kind": "assassin", "count": None}
    s, events = do(s, 0, {"type": "assassinate", "card": "noble"})
    assert events[0] == {"type": "discard", "seat": 1, "turn": 1, "card": "noble",
                         "why": "assassin", "from": "zone", "by": 0}
    assert s.zones[1] == ["noble", "spy"], "the last noble laid goes"
    assert s.discard == ["noble"] and types(events) == ["discard", "turn"]


def test_assassin_on_an_empty_zone_does_nothing():
    s = stage(start(), zones=[["noble", "recruiter"], []])
    s, events = script(s, play("assassin"), PASS)
    assert types(events)[-2:] == ["power", "turn"] and (s.phase, s.seat) == ("turn", 1)


# Counters ----------------------------------------------------------------------------------


def test_wrong_counter_discard_then_the_card_stays_and_its_power_applies():
    s, events = script(start(pile=("spy", "spy")), PLAY, counter("spy"))
    assert events[-2:] == [{"type": "counter", "seat": 1, "turn": 1, "kind": "spy"},
                           {"type": "reveal", "seat": 0, "turn": 1, "card": "noble",
                            "right": False}]
    assert G.pending(s) == [Pending(1, 1, "discard", "move_timeout")]
    assert G.legal_moves(s, 1) == [discard(k) for k in KINDS]
    assert G.view(s, 1)["played"] == {"seat": 0, "revealed": True, "countered": True,
                                      "counter_kind": "spy", "right": False, "card": "noble"}
    s, events = do(s, 1, discard("brute"))
    assert types(events) == ["discard", "place", "power", "draw", "turn"]
    assert events[0] == {"type": "discard", "seat": 1, "turn": 1, "card": "brute",
                         "why": "counter", "from": "hand"}
    assert events[1] == {"type": "place", "seat": 0, "turn": 1, "card": "noble"}
    assert s.zones[0][-1] == "noble" and s.discard == ["brute"]
    assert "brute" not in s.hands[1] and s.hands[0].count("spy") == 3
    conserved(s)


def test_right_counter_the_discarded_cards_power_applies_for_the_counterer():
    s, events = script(start(), PLAY, counter("noble"))
    assert events[-1]["right"] is True
    s, events = do(s, 1, discard("assassin"))
    assert types(events) == ["discard", "discard", "power"]
    assert events[1] == {"type": "discard", "seat": 0, "turn": 1, "card": "noble",
                         "why": "countered", "from": "played"}
    assert events[2] == {"type": "power", "seat": 1, "turn": 1, "kind": "assassin"}
    assert s.discard == ["assassin", "noble"] and s.zones[0] == ["noble", "recruiter"]
    assert G.pending(s) == [Pending(1, 1, "assassinate", "move_timeout")]
    s, events = do(s, 1, {"type": "assassinate", "card": "recruiter"})
    assert s.zones[0] == ["noble"] and s.zones[1] == ["noble", "spy"], "nothing placed"
    assert (s.seat, s.turn) == (1, 2)
    conserved(s)


def test_right_counter_with_a_noble_or_a_spy():
    s, _ = script(start(pile=("brute", "brute", "brute")), play("spy"), counter("spy"))
    s, events = do(s, 1, discard("noble"))
    assert of_type(events, "draw")[0] == {"type": "draw", "seat": 1, "turn": 1, "count": 2,
                                          "cards": ["brute", "brute"], "why": "noble"}
    s, _ = script(start(pile=("brute",)), play("spy"), counter("spy"))
    s, events = do(s, 1, discard("spy"))
    assert of_type(events, "spy")[0]["hand"] == ["noble", "recruiter", "brute", "assassin"]
    assert s.seen[1] == [[3, ["noble", "recruiter", "brute", "assassin"]]]


def test_no_counter_with_an_empty_hand():
    # (Revision 1: revision 2 lets the card pass at once for an empty hand, E5.)
    s = stage(start(revision=1), hands=[list(KINDS), []])
    s, _ = do(s, 0, PLAY)
    assert G.legal_moves(s, 1) == [PASS]
    with pytest.raises(IllegalMove) as info:
        do(s, 1, counter("noble"))
    assert info.value.code == "counter_needs_card"
    assert G.timeout_move(s, 1) == PASS


# Draws: reshuffle and E2 --------------------------------------------------------------------


def test_an_empty_pile_reshuffles_the_discard():
    s = stage(start(), pile=[], discard=["spy", "spy", "brute"], rest=1)
    s2, events = do(s, 0, DRAW)
    assert types(events) == ["reshuffle", "draw", "turn"]
    assert events[0] == {"type": "reshuffle", "seat": None, "turn": 1, "count": 3}
    assert len(s2.pile) == 1 and s2.discard == [] and of_type(events, "draw")[0]["count"] == 2
    assert Counter([*s2.pile, *of_type(events, "draw")[0]["cards"]]) == Counter(
        ["spy", "spy", "brute"])
    assert do(s, 0, DRAW)[0].pile == s2.pile, "the reshuffle is not seeded"


def test_the_pile_runs_out_midway_then_the_discard_is_reshuffled():
    s = stage(start(), pile=["assassin"], discard=["noble"], rest=1)
    s, events = do(s, 0, DRAW)
    assert types(events) == ["reshuffle", "draw", "turn"]
    assert of_type(events, "draw")[0]["cards"] == ["noble", "assassin"]


def test_e2_a_draw_takes_what_there_is():
    s = stage(start(), pile=["brute"], discard=[], rest=1)
    s, events = do(s, 0, DRAW)
    assert of_type(events, "draw")[0]["count"] == 1 and not of_type(events, "reshuffle")
    s, events = do(s, 1, DRAW)
    assert of_type(events, "draw")[0] == {"type": "draw", "seat": 1, "turn": 2, "count": 0,
                                          "cards": [], "why": "turn"}
    assert G.result(s) is None


# Victory (E3) -------------------------------------------------------------------------------


def test_four_of_a_kind_after_the_power():
    s = stage(start(), zones=[["brute", "brute", "brute"], ["noble", "spy"]])
    s, events = script(s, play("brute"), PASS)
    assert types(events)[-3:] == ["power", "discard", "end"]
    assert events[-1] == {"type": "end", "seat": None, "turn": 1, "winners": [0],
                          "players": [0], "reason": "four_of_a_kind", "kind": "brute"}
    result = G.result(s)
    assert (result.winner_seats, result.winner_players, result.reason, result.details) == (
        (0,), (0,), "four_of_a_kind", {"kind": "brute"})
    assert G.pending(s) == [] and G.legal_moves(s, 0) == G.legal_moves(s, 1) == []
    assert G.view(s, "spectator")["phase"] == "over"
    with pytest.raises(GameOver):
        do(s, 1, DRAW)
    with pytest.raises(GameOver):
        G.timeout_move(s, 1)


def test_five_kinds_checked_once_the_assassins_decision_is_made():
    # (Revision 1: revision 2 ends the game before the decision, E3b.)
    s = stage(start(revision=1),
              zones=[["noble", "recruiter", "spy", "brute"], ["spy", "spy", "spy"]])
    s, events = script(s, play("assassin"), PASS)
    assert s.phase == "assassinate" and G.result(s) is None
    s, events = do(s, 0, {"type": "assassinate", "card": "spy"})
    assert events[-1]["reason"] == "five_kinds" and "kind" not in events[-1]
    assert G.result(s).winner_seats == (0,) and G.result(s).details == {}


def test_a_winning_recruiter_still_keeps_first_in_revision_1():
    s = stage(start(revision=1), zones=[["recruiter"] * 3, []])
    s, _ = script(s, play("recruiter"), PASS)
    assert s.phase == "keep" and G.result(s) is None
    s, events = decide_keep(s)
    assert events[-1]["type"] == "end" and G.result(s).details == {"kind": "recruiter"}


def decide_keep(s):
    return do(s, 0, G.timeout_move(s, 0))


def test_victory_through_a_wrong_counter():
    s = stage(start(), zones=[["brute", "brute", "brute"], ["noble", "spy"]])
    s, _ = script(s, play("brute"), counter("assassin"))
    assert G.result(s) is None
    s, events = do(s, 1, discard("noble"))
    assert types(events) == ["discard", "place", "power", "discard", "end"]
    assert G.result(s).winner_seats == (0,)


def test_a_right_counter_stops_the_victory_and_its_assassin_hits_back():
    s = stage(start(), zones=[["brute", "brute", "brute"], ["brute", "brute", "brute"]])
    s, _ = script(s, play("brute"), counter("brute"))
    s, events = do(s, 1, discard("assassin"))  # [E5] a zone of one kind: a brute goes at once
    assert of_type(events, "discard")[-1] == {
        "type": "discard", "seat": 0, "turn": 1, "card": "brute", "why": "assassin",
        "from": "zone", "by": 1, "forced": True}
    assert G.result(s) is None and s.zones == [["brute", "brute"], ["brute"] * 3]
    # The counterer's own discarded card is not placed: a right counter with the fourth brute
    # in hand does not make the counterer win either.
    s = stage(start(), zones=[["noble", "spy"], ["brute", "brute", "brute"]])
    s, _ = script(s, PLAY, counter("noble"))
    s, _ = do(s, 1, discard("brute"))
    assert G.result(s) is None and s.zones[1] == ["brute"] * 3 and s.seat == 1


def test_the_assassin_cannot_make_its_victim_win():
    # Seat 1 is one card from both victories; seat 0's Assassin only takes cards away.
    s = stage(start(), zones=[["noble"], ["noble", "noble", "noble", "recruiter", "spy",
                                          "brute"]])
    s, _ = script(s, play("assassin"), PASS)
    for kind in ("noble", "recruiter", "spy", "brute"):
        after, events = do(s, 0, {"type": "assassinate", "card": kind})
        assert G.result(after) is None and events[-1]["type"] == "turn"


# No winner: stalemate and turn limit ------------------------------------------------------


def test_two_empty_draws_in_a_row_end_the_game_in_a_stalemate():
    s = stage(start(), pile=[], discard=[], rest=1)
    s, _ = do(s, 0, DRAW)
    assert G.result(s) is None
    s, events = do(s, 1, DRAW)
    assert events[-1] == {"type": "end", "seat": None, "turn": 2, "winners": [], "players": [],
                          "reason": "stalemate"}
    assert G.result(s).winner_seats == () and G.result(s).reason == "stalemate"


def test_a_play_between_empty_draws_is_no_stalemate():
    s = stage(start(), pile=[], discard=[], rest=1)
    s, _ = do(s, 0, DRAW)
    s, _ = script(s, PLAY, PASS)  # seat 1 plays its noble, which draws nothing
    s, _ = do(s, 0, DRAW)
    assert G.result(s) is None


def test_the_timeouts_alone_end_in_a_stalemate():
    s = G.setup({}, 5)
    moves = 0
    while G.result(s) is None:
        (p,) = G.pending(s)
        s, _ = do(s, p.player, G.timeout_move(s, p.player))
        moves += 1
    assert G.result(s).reason == "stalemate" and moves == 15  # 13 draws of 2, then 2 of none


def test_turn_limit():
    s = stage(start(), turn=TURN_LIMIT - 1)
    s, _ = do(s, 0, DRAW)
    assert s.turn == TURN_LIMIT and G.result(s) is None
    s, events = do(s, 1, DRAW)
    assert events[-1]["reason"] == "turn_limit" and G.result(s).winner_seats == ()


# Rulings E2b, E2c, E4 (shared/rules/ere-des-masques.md) ----------------------------------


def test_e2b_the_discard_becomes_the_pile_only_when_a_card_must_be_drawn_and_all_of_it():
    s = stage(start(), pile=["noble", "spy"], discard=["brute"], rest=1)
    s, events = do(s, 0, DRAW)  # the pile runs out, yet nothing must be drawn from it yet
    assert not of_type(events, "reshuffle") and (s.pile, s.discard) == ([], ["brute"])
    s, events = do(s, 1, DRAW)  # now a card must be drawn: the whole discard, one card
    assert types(events) == ["reshuffle", "draw", "turn"]
    assert events[0] == {"type": "reshuffle", "seat": None, "turn": 2, "count": 1}
    assert of_type(events, "draw")[0]["cards"] == ["brute"]
    assert (s.pile, s.discard) == ([], [])
    conserved(s)


def test_e2c_after_a_right_counter_the_played_card_is_discarded_before_the_power():
    s = stage(start(), pile=[], discard=[], rest=1)
    s, _ = script(s, play("spy"), counter("spy"))
    s, events = do(s, 1, discard("noble"))
    assert types(events)[:5] == ["discard", "discard", "power", "reshuffle", "draw"]
    assert events[1]["card"] == "spy" and events[1]["why"] == "countered"
    # The Noble's draw reshuffles the discard, the countered Spy with it.
    assert events[3]["count"] == 2
    assert of_type(events, "draw")[0]["cards"] == ["noble", "spy"]
    assert s.discard == [] and s.zones[0] == ["noble", "recruiter"]
    conserved(s)


def test_e4_stalemate_and_turn_limit_end_the_game_with_no_winner_and_a_public_reason():
    # Stalemate: two turns in a row end with a draw that took no card.
    s = stage(start(), pile=[], discard=[], rest=1)
    s, _ = do(s, 0, DRAW)
    assert G.result(s) is None
    s, events = do(s, 1, DRAW)
    assert events[-1] == {"type": "end", "seat": None, "turn": 2, "winners": [], "players": [],
                          "reason": "stalemate"}
    assert G.view(s, "spectator")["reason"] == "stalemate"
    assert G.result(s).winner_seats == () and G.result(s).reason == "stalemate"
    # A card played in between: no stalemate.
    s = stage(start(), pile=[], discard=[], rest=1)
    s, _ = do(s, 0, DRAW)
    s, _ = script(s, PLAY, PASS)
    s, _ = do(s, 0, DRAW)
    assert G.result(s) is None
    # Turn limit: the game ends when turn 300 ends, not before.
    assert TURN_LIMIT == 300
    s = stage(start(), turn=TURN_LIMIT - 1)
    s, _ = do(s, 0, DRAW)
    assert s.turn == TURN_LIMIT and G.result(s) is None
    s, events = do(s, 1, DRAW)
    assert events[-1] == {"type": "end", "seat": None, "turn": TURN_LIMIT, "winners": [],
                          "players": [], "reason": "turn_limit"}
    assert G.view(s, 1)["reason"] == "turn_limit" and G.result(s).winner_seats == ()


def viewed(events, viewer, s):
    return [G.view_event(e, viewer, s) for e in events]


def test_e3b_a_recruiter_that_wins_ends_the_game_where_it_would_ask_for_the_keep():
    s = stage(start(pile=("spy", "assassin", "spy")), zones=[["recruiter"] * 3, ["noble"]])
    s, events = script(s, play("recruiter"), PASS)
    assert types(events)[-4:] == ["place", "power", "recruit", "end"]
    assert events[-1] == {"type": "end", "seat": None, "turn": 1, "winners": [0],
                          "players": [0], "reason": "four_of_a_kind", "kind": "recruiter"}
    assert G.pending(s) == [] and G.result(s).winner_seats == (0,)
    # The cards drawn stay apart, kept by nobody; nobody is shown them any more.
    assert len(s.recruited) == 5 and s.hands[0] == ["noble", "spy", "brute", "assassin"]
    assert G.view(s, 0)["recruited"] is None and G.view(s, 0)["power"] is None
    conserved(s)
    # Through a wrong counter too: the card placed wins, the Recruiter asks nothing.
    s = stage(start(), zones=[["recruiter"] * 3, ["noble"]])
    s, _ = script(s, play("recruiter"), counter("spy"))
    s, events = do(s, 1, discard("noble"))
    assert types(events)[-3:] == ["power", "recruit", "end"] and G.result(s).winner_seats == (0,)


def test_e3b_an_assassin_that_wins_ends_the_game_before_the_removal():
    s = stage(start(), zones=[["noble", "recruiter", "spy", "brute"], ["spy", "noble"]])
    s, events = script(s, play("assassin"), PASS)
    assert types(events)[-2:] == ["power", "end"]
    assert events[-1]["reason"] == "five_kinds" and G.result(s).winner_seats == (0,)
    assert s.zones[1] == ["spy", "noble"] and s.phase == "over"
    # Revision 1 asked for the removal first (as a game stored under it replays).
    s = stage(start(revision=1), zones=[["noble", "recruiter", "spy", "brute"], ["spy", "noble"]])
    s, events = script(s, play("assassin"), PASS)
    assert s.phase == "assassinate" and G.result(s) is None


def test_e3b_a_power_that_asks_nothing_resolves_then_the_game_ends():
    s = stage(start(pile=("brute", "spy")), zones=[["noble"] * 3, ["spy", "spy"]])
    s, events = script(s, play("noble"), PASS)
    assert types(events)[-3:] == ["power", "draw", "end"]
    assert G.result(s).details == {"kind": "noble"}


def test_e5_a_response_from_an_empty_hand_is_let_pass_at_once():
    s = stage(start(pile=("spy", "brute")), hands=[list(KINDS), []])
    s, events = do(s, 0, PLAY)
    assert types(events) == ["play", "let_pass", "reveal", "place", "power", "draw", "turn"]
    assert events[1] == {"type": "let_pass", "seat": 1, "turn": 1, "forced": True}
    assert G.pending(s) == [Pending(1, 1, "turn", "move_timeout")]
    # Recorded in the move's events: every viewer sees the answer given for the empty hand.
    for viewer in (0, 1, "spectator", "moderator"):
        assert viewed(events, viewer, s)[1] == events[1]
    # The turn of a player with an empty hand stays theirs (E5's list is exhaustive).
    s = stage(start(), hands=[[], list(KINDS)])
    assert G.pending(s) == [Pending(0, 0, "turn", "move_timeout")]
    assert G.legal_moves(s, 0) == [DRAW]
    # Revision 1 asked the empty hand (as a game stored under it replays).
    s = stage(start(revision=1), hands=[list(KINDS), []])
    s, events = do(s, 0, PLAY)
    assert types(events) == ["play"] and G.pending(s) == [
        Pending(1, 1, "respond", "challenge_timeout")]


def test_e5_a_recruiter_that_drew_a_single_card_keeps_it_at_once():
    s = stage(start(), pile=["assassin"], discard=[], rest=1)
    s, events = script(s, play("recruiter"), PASS)
    assert types(events)[-3:] == ["recruit", "keep", "turn"]
    keep = of_type(events, "keep")[0]
    assert keep == {"type": "keep", "seat": 0, "turn": 1, "card": "assassin", "forced": True}
    assert "assassin" in s.hands[0] and s.recruited == [] and (s.phase, s.seat) == ("turn", 1)
    # The opponent sees that the single card was kept at once, not which it is.
    assert G.view_event(keep, 1, s) == {"type": "keep", "seat": 0, "turn": 1, "forced": True}
    assert G.view_event(keep, 0, s) == keep
    conserved(s)
    # Two cards, even of one kind, are the player's choice.
    s = stage(start(), pile=["spy", "spy"], discard=[], rest=1)
    s, _ = script(s, play("recruiter"), PASS)
    assert G.pending(s) == [Pending(0, 0, "keep", "move_timeout")]
    # Revision 1 asked for the single card too.
    s = stage(start(revision=1), pile=["assassin"], discard=[], rest=1)
    s, _ = script(s, play("recruiter"), PASS)
    assert G.legal_moves(s, 0) == [{"type": "keep", "card": "assassin"}]


def test_e5_an_assassin_facing_a_zone_of_one_kind_removes_it_at_once():
    s = stage(start(), zones=[["noble", "recruiter"], ["spy", "noble", "spy"]])
    s, _ = script(s, play("assassin"), PASS)
    assert s.phase == "assassinate", "two kinds: the player chooses"
    s = stage(start(), zones=[["noble", "recruiter"], ["spy", "spy"]])
    s, events = script(s, play("assassin"), PASS)
    assert types(events)[-3:] == ["power", "discard", "turn"]
    assert events[-2] == {"type": "discard", "seat": 1, "turn": 1, "card": "spy",
                          "why": "assassin", "from": "zone", "by": 0, "forced": True}
    assert s.zones[1] == ["spy"] and (s.phase, s.seat) == ("turn", 1)
    assert viewed(events, "spectator", s)[-2] == events[-2]
    # Revision 1 asked.
    s = stage(start(revision=1), zones=[["noble", "recruiter"], ["spy", "spy"]])
    s, _ = script(s, play("assassin"), PASS)
    assert G.legal_moves(s, 0) == [{"type": "assassinate", "card": "spy"}]


def test_e5_a_counterer_with_one_card_still_chooses_their_discard():
    s = stage(start(), hands=[list(KINDS), ["spy"]])
    s, _ = script(s, PLAY, counter("spy"))
    assert G.pending(s) == [Pending(1, 1, "discard", "move_timeout")]


# Timeouts (§5) --------------------------------------------------------------------------


def test_timeout_defaults():
    s = stage(start(), hands=[["spy", "assassin", "brute"], ["assassin", "spy"]],
              zones=[["noble"], ["spy", "brute", "recruiter"]])
    assert G.timeout_move(s, 0) == DRAW
    s, _ = do(s, 0, play("assassin"))
    assert G.timeout_move(s, 1) == PASS
    countered, _ = do(s, 1, counter("noble"))
    assert G.timeout_move(countered, 1) == discard("spy")  # first of the hand in §1 order
    s, _ = do(s, 1, PASS)
    # First kind of the opponent's zone in §1 order, not the first laid.
    assert G.timeout_move(s, 0) == {"type": "assassinate", "card": "recruiter"}
    s = start(pile=("assassin", "brute", "spy", "brute", "assassin"))
    s, _ = script(s, play("recruiter"), PASS)
    assert G.timeout_move(s, 0) == {"type": "keep", "card": "spy"}
    with pytest.raises(NotYourDecision):
        G.timeout_move(s, 1)


# Errors -------------------------------------------------------------------------------------


def test_not_your_decision():
    s = start()
    for player in (1, 2, -1, True, "0", None, 10**5000):
        with pytest.raises(NotYourDecision) as info:
            do(s, player, DRAW)
        assert info.value.code == "not_your_decision"
        assert G.legal_moves(s, player) == []


@pytest.mark.parametrize(("moves", "move", "code"), [
    ((), {"type": "play", "card": "spy"}, None),
    ((), PASS, "wrong_move_now"),
    ((), discard("noble"), "wrong_move_now"),
    ((PLAY,), DRAW, "wrong_move_now"),
    ((PLAY,), play("spy"), "wrong_move_now"),
    ((PLAY, counter("spy")), PASS, "wrong_move_now"),
    ((play("recruiter"), PASS), {"type": "keep", "card": "recruiter"}, "card_not_recruited"),
    ((play("recruiter"), PASS), DRAW, "wrong_move_now"),
    ((play("assassin"), PASS), {"type": "assassinate", "card": "brute"}, "card_not_in_zone"),
])
def test_illegal_moves(moves, move, code):
    s = start(hand0=("noble", "recruiter", "brute", "assassin", "assassin"),
              hand1=("noble", "noble", "recruiter", "recruiter", "brute"),
              pile=("noble", "noble", "noble", "spy", "spy"))
    s, _ = script(s, *moves)
    (p,) = G.pending(s)
    if code is None:  # seat 0 holds no spy
        code = "card_not_in_hand"
    with pytest.raises(IllegalMove) as info:
        do(s, p.player, move)
    assert info.value.code == code and info.value.message.endswith(".")
    assert move not in G.legal_moves(s, p.player)


def test_discarding_a_card_one_does_not_hold():
    s = start(hand1=("noble",) * 5)
    s, _ = script(s, PLAY, counter("spy"))
    with pytest.raises(IllegalMove) as info:
        do(s, 1, discard("spy"))
    assert info.value.code == "card_not_in_hand"


@pytest.mark.parametrize(("move", "code"), [
    ([], "not_an_object"),
    ("draw", "not_an_object"),
    (None, "not_an_object"),
    ({}, "missing_field"),
    ({"card": "noble"}, "missing_field"),
    ({"type": "pass"}, "unknown_move_type"),
    ({"type": 3}, "unknown_move_type"),
    ({"type": ["draw"]}, "unknown_move_type"),
    ({"type": "draw", "card": "noble"}, "unexpected_field"),
    ({"type": "play"}, "missing_field"),
    ({"type": "play", "kind": "noble"}, "unexpected_field"),
    ({"type": "play", "card": "noble", "x": 1}, "unexpected_field"),
    ({"type": "play", "card": 1}, "wrong_type"),
    ({"type": "play", "card": None}, "wrong_type"),
    ({"type": "play", "card": ["noble"]}, "wrong_type"),
    ({"type": "play", "card": "Noble"}, "unknown_kind"),
    ({"type": "play", "card": "x" * 10_000}, "unknown_kind"),
    ({"type": "counter", "kind": True}, "wrong_type"),
    ({"type": "counter", "card": "noble"}, "unexpected_field"),
    ({"type": "keep", "card": "joker"}, "unknown_kind"),
    ({"type": "assassinate", "card": 10**5000}, "wrong_type"),
    ({"type": "discard"}, "missing_field"),
])
def test_malformed_moves(move, code):
    s = start()
    with pytest.raises(MalformedMove) as info:
        do(s, 0, move)
    assert info.value.code == code
    assert len(info.value.message) < 200


def test_a_malformed_move_is_malformed_for_anyone_but_game_over_comes_first():
    with pytest.raises(MalformedMove):
        do(start(), 1, {"type": "draw", "x": 1})
    s = stage(start(), zones=[["brute"] * 3, []])
    s, _ = script(s, play("brute"), PASS)
    with pytest.raises(GameOver):
        do(s, 0, {"type": "nonsense"})
