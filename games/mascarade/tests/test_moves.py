"""Moves: refusal of malformed input, legal_moves ⇔ apply, purity, determinism, timeouts (§10)."""

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import (
    EngineError,
    GameOver,
    IllegalMove,
    MalformedMove,
    NotYourDecision,
    replay,
)
from games.mascarade.rules import MASCARADE as M

from .helpers import (
    A8,
    B8,
    EXPLORE_OPTIONS,
    announce,
    at_turn,
    decide,
    do,
    explore,
    universe,
    with_coins,
)

ROOT = Path(__file__).resolve().parents[3]


def canon(move):
    return json.dumps(move, sort_keys=True)


# Malformed moves -------------------------------------------------------------------------------

DEEP: list = []
for _ in range(3000):
    DEEP = [DEEP]

MALFORMED = [
    (None, "not_an_object"),
    ([], "not_an_object"),
    (["look"], "not_an_object"),
    ("look", "not_an_object"),
    (5, "not_an_object"),
    ({}, "missing_field"),
    ({"kind": "look"}, "missing_field"),
    ({"type": None}, "unknown_move_type"),
    ({"type": 3}, "unknown_move_type"),
    ({"type": ["look"]}, "unknown_move_type"),
    ({"type": {"a": 1}}, "unknown_move_type"),
    ({"type": "dance"}, "unknown_move_type"),
    ({"type": "LOOK"}, "unknown_move_type"),
    ({"type": "look", "extra": 1}, "unexpected_field"),
    ({"type": "look", 1: 2}, "unexpected_field"),
    ({"type": "claim", "mask": "king"}, "unexpected_field"),
    ({"type": "exchange", "target": 3}, "missing_field"),
    ({"type": "exchange", "swap": True}, "missing_field"),
    ({"type": "exchange", "target": 3, "swap": 1}, "wrong_type"),
    ({"type": "exchange", "target": 3, "swap": "true"}, "wrong_type"),
    ({"type": "exchange", "target": 3, "swap": None}, "wrong_type"),
    ({"type": "exchange", "target": True, "swap": True}, "wrong_type"),
    ({"type": "exchange", "target": 3.0, "swap": True}, "wrong_type"),
    ({"type": "exchange", "target": None, "swap": True}, "wrong_type"),
    ({"type": "exchange", "target": [3], "swap": True}, "wrong_type"),
    ({"type": "exchange", "target": {"seat": 3}, "swap": True}, "wrong_type"),
    ({"type": "exchange", "target": DEEP, "swap": True}, "wrong_type"),
    ({"type": "exchange", "target": 8, "swap": True}, "out_of_range"),
    ({"type": "exchange", "target": -1, "swap": True}, "out_of_range"),
    ({"type": "exchange", "target": 10**30, "swap": True}, "out_of_range"),
    ({"type": "exchange", "target": "3", "swap": True}, "out_of_range"),
    ({"type": "exchange", "target": "center-0", "swap": True}, "out_of_range"),
    ({"type": "exchange", "target": "center-", "swap": True}, "out_of_range"),
    ({"type": "exchange", "target": "x" * 10_000, "swap": True}, "out_of_range"),
    ({"type": "announce"}, "missing_field"),
    ({"type": "announce", "mask": "dragon"}, "unknown_mask"),
    ({"type": "announce", "mask": "King"}, "unknown_mask"),
    ({"type": "announce", "mask": ["king"]}, "wrong_type"),
    ({"type": "announce", "mask": 1}, "wrong_type"),
    ({"type": "spy", "target": "1"}, "wrong_type"),
    ({"type": "spy_swap", "swap": 0}, "wrong_type"),
    ({"type": "fool", "targets": [1], "swap": True}, "wrong_type"),
    ({"type": "fool", "targets": [1, 2, 3], "swap": True}, "wrong_type"),
    ({"type": "fool", "targets": "1,2", "swap": True}, "wrong_type"),
    ({"type": "fool", "targets": {"0": 1, "1": 2}, "swap": True}, "wrong_type"),
    ({"type": "fool", "targets": [1, True], "swap": True}, "wrong_type"),
    ({"type": "fool", "targets": [1, 9], "swap": True}, "out_of_range"),
    ({"type": "fool", "targets": [1, 2]}, "missing_field"),
    ({"type": "puppeteer", "targets": [1, 2], "swap": True}, "unexpected_field"),
    ({"type": "princess", "target": None}, "wrong_type"),
    ({"type": "guru_answer", "mask": None}, "wrong_type"),
    ({"type": "sorceress"}, "missing_field"),
    ({"type": "sorceress", "target": "none"}, "wrong_type"),
    ({"type": "sorceress", "target": False}, "wrong_type"),
    ({"type": "crook", "target": 8}, "out_of_range"),
    ({"type": "gambler", "hidden": 0, "target": 1}, "out_of_range"),
    ({"type": "gambler", "hidden": 4, "target": 1}, "out_of_range"),
    ({"type": "gambler", "hidden": True, "target": 1}, "wrong_type"),
    ({"type": "gambler", "hidden": 2}, "missing_field"),
    ({"type": "gambler_guess", "guess": "2"}, "wrong_type"),
    ({"type": "gambler_guess", "guess": 2.0}, "wrong_type"),
]


@pytest.mark.parametrize(("move", "code"), MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_moves_are_refused(move, code):
    s = at_turn(A8, 2)
    for player in (2, 3):  # the same answer whether or not the move was awaited from them
        with pytest.raises(MalformedMove) as info:
            M.apply(s, player, move)
        assert info.value.code == code
        assert info.value.message.endswith(".")
        assert len(info.value.message) < 400


def test_random_junk_only_raises_engine_errors():
    rnd = random.Random(7)
    keys = ["type", "target", "targets", "swap", "mask", "hidden", "guess", "x", 1]
    values = [None, True, False, 0, 1, 2, 3, 7, -1, 2.5, "", "king", "center-0", "look",
              "exchange", "fool", [], [1], [1, 2], [True, 2], {}, {"type": "look"}]
    types = ["look", "exchange", "announce", "claim", "pass", "fool", "spy", "gambler", "x"]
    states = [s for options in EXPLORE_OPTIONS for s in explore(options, 3, moves=60)][::7]
    for _ in range(3000):
        s = rnd.choice(states)
        move = {k: rnd.choice(values) for k in rnd.sample(keys, rnd.randint(0, 4))}
        if rnd.random() < 0.8:
            move["type"] = rnd.choice(types)
        player = rnd.choice([*range(s.n), -1, s.n, None, True, "0"])
        try:
            M.apply(s, player, move)
        except EngineError as error:
            assert error.code and error.message
        try:
            M.legal_moves(s, player)
        except EngineError as error:  # pragma: no cover - legal_moves never raises
            raise AssertionError(error) from error


def test_not_your_decision():
    s = at_turn(A8, 2)
    for player in (0, 3, 7, -1, 8, None, True, "2", 2.0):
        with pytest.raises(NotYourDecision) as info:
            M.apply(s, player, {"type": "look"})
        assert info.value.code == "not_your_decision"
        assert M.legal_moves(s, player) == []
    s, _ = do(s, 2, {"type": "announce", "mask": "king"})
    with pytest.raises(NotYourDecision):
        M.apply(s, 4, {"type": "pass"})  # sequential: seat 3 answers first
    with pytest.raises(NotYourDecision):
        M.apply(s, 2, {"type": "claim"})  # the announcer does not answer


def test_wrong_kind_of_move_now_is_illegal():
    s = at_turn(A8, 2)
    with pytest.raises(IllegalMove) as info:
        do(s, 2, {"type": "claim"})
    assert info.value.code == "wrong_move_now"
    s, _ = do(s, 2, {"type": "announce", "mask": "king"})
    with pytest.raises(IllegalMove) as info:
        do(s, 3, {"type": "look"})
    assert (info.value.code, "claim or a pass" in info.value.message) == ("wrong_move_now", True)


def test_game_over_refuses_every_move():
    s = with_coins(at_turn(A8, 1), coins=[6, 11, 6, 6, 6, 6, 6, 6])
    s, events = announce(s, "king")
    assert events[-1]["type"] == "end" and s.phase == "over"
    assert M.result(s).winner_seats == (1,) and M.result(s).reason == "thirteen"
    for move in ({"type": "look"}, None, {"type": "dance"}):
        with pytest.raises(GameOver) as info:
            M.apply(s, 2, move)
        assert info.value.code == "game_over"
    with pytest.raises(GameOver):
        M.timeout_move(s, 2)
    assert M.pending(s) == [] and M.legal_moves(s, 2) == []


# legal_moves ⇔ apply ---------------------------------------------------------------------------


@pytest.mark.parametrize("options", EXPLORE_OPTIONS, ids=lambda o: f"{o['players']}p")
def test_legal_moves_are_exactly_the_accepted_moves(options):
    decisions = set()
    for seed in (1, 2):
        for s in list(explore(options, seed, moves=200))[::9]:
            everything = universe(s)
            pending = {p.player: p for p in M.pending(s)}
            for player in range(s.n):
                legal = M.legal_moves(s, player)
                legal_set = {canon(m) for m in legal}
                assert len(legal_set) == len(legal)
                assert legal_set <= {canon(m) for m in everything}
                if player not in pending:
                    assert legal == []
                    with pytest.raises(GameOver if s.phase == "over" else NotYourDecision):
                        M.apply(s, player, everything[0])
                    continue
                decisions.add(pending[player].decision)
                for move in everything:
                    try:
                        M.apply(s, player, move)
                    except IllegalMove:
                        assert canon(move) not in legal_set, move
                    else:
                        assert canon(move) in legal_set, move
    assert {"turn", "challenge"} <= decisions


def test_apply_does_not_change_its_input_and_counts_moves():
    for options in EXPLORE_OPTIONS:
        rnd = random.Random(5)
        s = M.setup(options, 5)
        for seq in range(1, 80):
            if s.phase == "over":
                break
            before = json.dumps(M.to_json(s))
            p = rnd.choice(M.pending(s))
            new, events = M.apply(s, p.player, rnd.choice(M.legal_moves(s, p.player)))
            assert json.dumps(M.to_json(s)) == before
            assert new.seq == seq and events
            assert all("type" in e and "seat" in e for e in events)
            json.dumps(events)
            s = new


def test_state_json_round_trip():
    for options in EXPLORE_OPTIONS:
        for s in explore(options, 11, moves=150):
            data = json.loads(json.dumps(M.to_json(s)))
            assert M.from_json(data) == s
            assert M.to_json(M.from_json(data)) == data


def test_same_options_seed_and_moves_give_the_same_state():
    options = {"players": 9, "scenario": "B"}
    states = list(explore(options, 21, moves=200))
    moves = []
    rnd = random.Random(21)
    s = M.setup(options, 21)
    while s.phase != "over" and len(moves) < 200:
        p = rnd.choice(M.pending(s))
        move = rnd.choice(M.legal_moves(s, p.player))
        moves.append((p.player, move))
        s, _ = M.apply(s, p.player, move)
    again, _ = replay(M, options, 21, moves)
    assert again == s
    assert M.setup(options, 21) == states[0]
    deals = {M.setup(options, seed).deal for seed in range(40)}
    firsts = {M.setup(options, seed).first for seed in range(40)}
    assert len(deals) > 30 and len(firsts) > 5
    assert M.setup(options, -5) != M.setup(options, 5)
    assert M.setup(options, 2**64 + 5) != M.setup(options, 5)


def test_deal_and_first_seat_options_are_used():
    s = M.setup({"players": 8, "scenario": "B", "deal": B8, "first_seat": 3}, 99)
    assert s.cards == B8 and s.seat == 3 and s.first == 3


def test_state_does_not_depend_on_hash_randomisation():
    script = (
        "import json, random\n"
        "from games.mascarade.rules import MASCARADE as M\n"
        "opts = {'players': 12, 'scenario': 'custom', 'masks': ['judge', 'spy', 'fool', "
        "'puppeteer', 'princess', 'guru', 'sorceress', 'crook', 'gambler', 'peasant', "
        "'peasant', 'king']}\n"
        "rnd = random.Random(4); s = M.setup(opts, 4); out = []\n"
        "while s.phase != 'over' and s.seq < 300:\n"
        "    p = rnd.choice(M.pending(s))\n"
        "    s, ev = M.apply(s, p.player, rnd.choice(M.legal_moves(s, p.player)))\n"
        "    out.append([ev, M.view(s, 'moderator')])\n"
        "print(json.dumps([M.to_json(s), out], sort_keys=True))\n"
    )
    outputs = set()
    for hash_seed in ("1", "2", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             cwd=ROOT, env=env, check=True)
        outputs.add(run.stdout)
    assert len(outputs) == 1


# Timeouts (§10) --------------------------------------------------------------------------------


def expected_timeout(s, pending):
    """Rules §10, from what the view shows (the Guru answer has its own tests below)."""
    n, seat = s.n, pending.seat
    view = M.view(s, "spectator")
    holder = view["power"]["seat"] if view["power"] else seat
    left = (holder + 1) % n
    kind = pending.decision
    if kind == "prep":
        return {"type": "exchange", "target": (seat + 1) % n, "swap": False}
    if kind == "crook":
        richest = max(x["coins"] for x in view["seats"] if x["seat"] != holder)
        first = next(x for x in (((holder + k) % n) for k in range(1, n))
                     if view["seats"][x]["coins"] == richest)
        return {"type": "crook", "target": first}
    return {
        "turn": {"type": "look"},
        "challenge": {"type": "pass"},
        "spy": {"type": "spy", "target": left},
        "spy_swap": {"type": "spy_swap", "swap": False},
        "fool": {"type": "fool", "targets": [left, (holder + 2) % n], "swap": False},
        "puppeteer": {"type": "puppeteer", "targets": [left, (holder + 2) % n]},
        "princess": {"type": "princess", "target": left},
        "guru": {"type": "guru", "target": left},
        "gambler": {"type": "gambler", "hidden": 1, "target": left},
        "gambler_guess": {"type": "gambler_guess", "guess": 2},
        "sorceress": {"type": "sorceress", "target": None},
    }.get(kind)


def test_timeout_default_for_every_decision_kind():
    kinds = set()
    for options in EXPLORE_OPTIONS:
        for seed in range(4):
            for s in explore(options, seed, moves=250):
                for p in M.pending(s):
                    move = M.timeout_move(s, p.player)
                    assert move in M.legal_moves(s, p.player)
                    M.apply(s, p.player, move)
                    kinds.add(p.decision)
                    if p.decision != "guru_answer":
                        assert move == expected_timeout(s, p), p
    # The crook tie is rare in random play: script one.
    s = with_coins(at_turn(B8, 2), coins=[6, 6, 6, 6, 9, 6, 9, 6])
    s, _ = announce(s, "crook")
    (p,) = M.pending(s)
    assert M.timeout_move(s, p.player) == {"type": "crook", "target": 4} == expected_timeout(s, p)
    kinds.add("crook")
    assert kinds == {"prep", "turn", "challenge", "spy", "spy_swap", "fool", "puppeteer",
                     "princess", "guru", "guru_answer", "sorceress", "crook", "gambler",
                     "gambler_guess"}


def test_timeout_needs_a_pending_player():
    s = at_turn(A8, 2)
    with pytest.raises(NotYourDecision):
        M.timeout_move(s, 3)


def guru_on(s, target):
    s, _ = announce(s, "guru")
    s, _ = decide(s, {"type": "guru", "target": target})
    return s


def test_guru_answer_default_is_the_starting_deal_when_nothing_else_was_seen():
    s = guru_on(at_turn(B8, 1), 2)
    assert M.timeout_move(s, 2) == {"type": "guru_answer", "mask": "crook"}


def test_guru_answer_default_is_the_players_own_look_when_newer():
    s = at_turn(B8, 1)
    s, _ = do(s, 1, {"type": "exchange", "target": 2, "swap": True})  # seat 2: guru
    s, _ = do(s, 2, {"type": "look"})
    for seat in (3, 4, 5, 6, 7, 0):
        s, _ = do(s, seat, {"type": "look"})
    s = guru_on(s, 2)  # seat 1 (now the crook) announces the Guru unchallenged
    assert M.timeout_move(s, 2) == {"type": "guru_answer", "mask": "guru"}


def test_guru_answer_default_is_a_public_reveal_when_newer():
    s = at_turn(B8, 2)
    s, _ = do(s, 2, {"type": "look"})  # player 2 sees the crook
    s, _ = do(s, 3, {"type": "exchange", "target": 2, "swap": True})  # seat 2: princess
    s, _ = announce(s, "patron", claims=(2,))  # seat 4 announces; seat 2 reveals the princess
    assert M.view(s, 2)["you"]["knowledge"][-1]["mask"] == "crook"
    for seat in (5, 6, 7, 0):
        s, _ = do(s, seat, {"type": "look"})
    s = guru_on(s, 2)
    assert M.timeout_move(s, 2)["mask"] == "princess"


def test_guru_answer_default_ignores_the_princess_reveal_its_owner_did_not_see():
    s = at_turn(B8, 3)
    s, _ = do(s, 3, {"type": "exchange", "target": 2, "swap": True})  # seat 2: princess
    s, _ = announce(s, "princess")  # seat 4 bluffs the Princess, unchallenged
    s, _ = decide(s, {"type": "princess", "target": 2})
    shown_at = s.seq
    for seat in (5, 6, 7, 0):
        s, _ = do(s, seat, {"type": "look"})
    s = guru_on(s, 2)
    assert M.timeout_move(s, 2)["mask"] == "crook"  # the deal: player 2 never saw the princess
    assert {"seq": shown_at, "about": 2, "mask": "princess", "how": "princess"} in (
        M.view(s, 5)["you"]["knowledge"])


def test_guru_answer_default_after_the_puppeteer_is_about_the_new_seat():
    s = at_turn(B8, 6)
    s, _ = do(s, 6, {"type": "look"})  # player 6 sees the empress at seat 6
    for seat in (7, 0, 1, 2, 3, 4):
        s, _ = do(s, seat, {"type": "look"})
    s, _ = announce(s, "puppeteer")
    s, _ = decide(s, {"type": "puppeteer", "targets": [6, 7]})  # player 6 now sits at seat 7
    for seat in (6, 7, 0):
        s, _ = do(s, s.at[seat], {"type": "look"})
    s = guru_on(s, 7)
    assert M.pending(s)[0].player == 6
    assert M.timeout_move(s, 6) == {"type": "guru_answer", "mask": "beggar"}


def test_seeds_too_large_to_print_set_up_games_too():
    """rng.seed_state takes any int (its docstring): past 4,300 digits too, where str() fails."""
    options = {"players": 6}
    huge = [M.setup(options, seed) for seed in (10**5000, -(10**5000), 10**5000 + 1)]
    assert len({M.to_json(s)["rng"] for s in huge}) == 3
    assert M.setup(options, 10**5000) == huge[0]
    assert M.setup(options, 5) == M.setup(options, 5)
