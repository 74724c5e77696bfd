"""L'Ère des Masques's heuristic bot: legal choices only, decisions from its player's projection
alone, sensible choices in set situations, and its win rate against the random bot."""

from __future__ import annotations

import copy
import inspect
import json
import random
from collections import Counter
from typing import Any

from games.engine.bots import RandomBot, bot_rng
from games.ere_des_masques.rules import GAME as G
from games.ere_des_masques.rules import HeuristicBot
from games.ere_des_masques.rules.bots import Table

from .support import do, script, stage, start

MOVE_CAP = 3000
#: The share of games the heuristic bot must win against the random bot.
WIN_RATE = 0.6


def play(seed: int, bots: list[Any], on_choice=None, state=None) -> Any:
    """A game with one bot per player; each gets its player's projection, legal moves and viewed
    history (events viewed when they happened, tagged with their move's seq)."""
    state = state if state is not None else G.setup(G.normalize_options({}), seed)
    histories: list[list[dict[str, Any]]] = [[], []]
    seq = state.seq
    while G.result(state) is None:
        assert seq < MOVE_CAP, f"no end after {MOVE_CAP} moves (seed {seed})"
        (p,) = G.pending(state)
        player = p.player
        legal = G.legal_moves(state, player)
        view = G.view(state, player)
        move = bots[player].choose(view, legal, histories[player], bot_rng(seed, seq, player))
        assert move in legal, f"{bots[player].kind} chose {move}, not legal: {legal}"
        if on_choice is not None:
            on_choice(state, player, view, legal, histories[player], move, seq)
        state, events = G.apply(state, player, move)
        seq += 1
        for q in (0, 1):
            for event in events:
                seen = G.view_event(event, q, state)
                if seen is not None:
                    histories[q].append({**seen, "seq": seq})
    return state


def test_choose_gets_the_projection_not_the_state():
    params = list(inspect.signature(HeuristicBot.choose).parameters)
    assert params == ["self", "view", "legal_moves", "history", "rng"]
    assert HeuristicBot.kind == "heuristic"


def test_the_heuristic_bot_beats_the_random_bot():
    """200 games, the heuristic bot in seat 0 and seat 1 in turn; random play would win half."""
    games = 200
    wins = 0
    turns = 0
    for seed in range(games):
        seat = seed % 2
        bots: list[Any] = [RandomBot(), RandomBot()]
        bots[seat] = HeuristicBot()
        final = play(seed, bots)
        wins += seat in G.result(final).winner_players
        turns += final.turn
    rate = wins / games
    print(f"\nere_des_masques: the heuristic bot won {wins} of {games} games against the random "
          f"bot ({rate:.1%}), {turns / games:.1f} turns on average")
    assert rate > WIN_RATE, f"heuristic won {wins} of {games}"


def test_heuristic_bots_play_each_other_to_an_end():
    kinds: Counter[str] = Counter()
    reasons: Counter[str] = Counter()

    def record(state, player, view, legal, history, move, seq):
        kinds[move["type"]] += 1

    for seed in range(40):
        reasons[G.result(play(seed, [HeuristicBot(), HeuristicBot()], record)).reason] += 1
    assert set(kinds) == {"draw", "play", "let_pass", "counter", "discard", "keep",
                          "assassinate"}, kinds
    assert reasons["four_of_a_kind"] + reasons["five_kinds"] >= 36, reasons
    assert reasons["turn_limit"] == 0, reasons


def test_heuristic_ignores_what_its_player_cannot_see():
    """Same projection and history, other hidden cards (the other hand, the pile's order, the
    generator state): the same decision. The bot does not change its inputs and its choice is
    reproducible from its rng."""
    bot = HeuristicBot()
    checked = 0

    def twin_check(state, player, view, legal, history, move, seq):
        nonlocal checked
        if not isinstance(bots[player], HeuristicBot):
            return
        data = G.to_json(state)
        other = 1 - player
        mixed = random.Random(seq)
        pool = data["hands"][other] + data["pile"]
        if data["played"] and not data["revealed"] and data["seat"] == other:
            pool.append(data["played"])
        mixed.shuffle(pool)
        size = len(data["hands"][other])
        hand, rest = pool[:size], pool[size:]
        twin_data = {**data, "rng": data["rng"] ^ 0xDEADBEEF,
                     "hands": [hand if s == other else h for s, h in enumerate(data["hands"])]}
        if data["played"] and not data["revealed"] and data["seat"] == other:
            twin_data["played"], rest = rest[0], rest[1:]
        twin_data["pile"] = rest
        if data["recruited"] and data["power_seat"] == other:
            twin_data["recruited"] = sorted(data["recruited"])  # same cards: they stay hidden
        twin = G.from_json(twin_data)
        twin_view = G.view(twin, player)
        assert twin_view == view
        before = copy.deepcopy((view, legal, history))
        again = bot.choose(twin_view, G.legal_moves(twin, player), history,
                           bot_rng(seed, seq, player))
        assert again == move, f"the decision depends on hidden information at move {seq}"
        assert (view, legal, history) == before, "the bot changed its inputs"
        checked += 1

    for seed in range(12):
        bots = [HeuristicBot(), RandomBot()] if seed % 2 else [RandomBot(), HeuristicBot()]
        if seed % 3 == 0:
            bots = [HeuristicBot(), HeuristicBot()]
        play(seed, bots, twin_check)
    assert checked > 150


def test_heuristic_inputs_are_plain_json():
    """The bot's inputs are exactly what the API serves: a JSON round trip changes nothing."""
    def roundtrip(state, player, view, legal, history, move, seq):
        if isinstance(bots[player], HeuristicBot):
            data = json.loads(json.dumps([view, legal, history]))
            assert bots[player].choose(*data, bot_rng(3, seq, player)) == move

    bots = [HeuristicBot(), RandomBot()]
    play(3, bots, roundtrip)


# Set situations -------------------------------------------------------------------------------


def decide(state, player: int, history: list[dict] | None = None, seed: int = 0) -> dict:
    return HeuristicBot().choose(G.view(state, player), G.legal_moves(state, player),
                                 history or [], random.Random(seed))


def viewed(events: list[dict], player: int, state, seq: int) -> list[dict]:
    return [{**G.view_event(e, player, state), "seq": seq} for e in events]


def test_plays_the_card_that_wins():
    s = stage(start(hand0=("noble", "recruiter", "spy", "brute", "assassin")),
              zones=[["noble", "recruiter", "spy", "brute"], ["spy", "spy"]])
    for seed in range(10):
        assert decide(s, 0, seed=seed) == {"type": "play", "card": "assassin"}


def test_counters_the_kind_that_would_win():
    # Seat 0 has three brutes in its zone: a brute played face down would win.
    s = stage(start(), zones=[["brute", "brute", "brute"], ["noble", "spy"]])
    s, _ = do(s, 0, {"type": "play", "card": "noble"})
    assert decide(s, 1) == {"type": "counter", "kind": "brute"}


def test_counters_what_its_spy_saw():
    # Seat 1's Spy saw seat 0's hand: four assassins and a spy. Seat 0 then plays face down.
    s = start(hand0=("assassin", "assassin", "assassin", "assassin", "spy"),
              hand1=("spy", "noble", "noble", "brute", "brute"), pile=("noble", "noble"), first=1)
    s, events = script(s, {"type": "play", "card": "spy"}, {"type": "let_pass"})
    history = viewed(events[:2], 1, s, 1) + viewed(events[2:], 1, s, 2)
    assert G.view(s, 1)["you"]["seen"][0]["hand"] == ["spy", "assassin", "assassin", "assassin",
                                                       "assassin"]
    s, events = do(s, 0, {"type": "play", "card": "assassin"})
    history += viewed(events, 1, s, 3)
    assert decide(s, 1, history) == {"type": "counter", "kind": "assassin"}
    # The card came from the hand it saw: four chances in five of an assassin; without the
    # sighting, only the unseen cards' share (8 of 30).
    assert Table(G.view(s, 1), history).face_down()["assassin"] == 0.8
    assert Table(G.view(s, 1), []).face_down()["assassin"] == 8 / 30


def test_assassinates_the_most_dangerous_kind():
    s = stage(start(), zones=[["noble"], ["spy", "brute", "brute", "brute", "noble"]])
    s, _ = script(s, {"type": "play", "card": "assassin"}, {"type": "let_pass"})
    assert decide(s, 0) == {"type": "assassinate", "card": "brute"}
    s = stage(start(), zones=[["noble"], ["spy", "brute", "recruiter", "noble"]])
    s, _ = script(s, {"type": "play", "card": "assassin"}, {"type": "let_pass"})
    assert decide(s, 0)["type"] == "assassinate"


def test_keeps_the_card_that_wins():
    s = stage(start(pile=("noble", "spy", "brute", "brute", "noble")),
              zones=[["assassin", "assassin", "assassin", "recruiter"], ["spy"]])
    s = stage(s, pile=["noble", "spy", "assassin", "brute", "noble"])
    s, _ = script(s, {"type": "play", "card": "recruiter"}, {"type": "let_pass"})
    assert decide(s, 0) == {"type": "keep", "card": "assassin"}


def test_discards_wisely():
    # Wrong counter: it throws away the card worth least (not the one that would win).
    s = stage(start(hand1=("noble", "noble", "brute", "assassin", "assassin")),
              zones=[["spy"], ["assassin", "assassin", "assassin", "noble"]])
    s, _ = script(s, {"type": "play", "card": "recruiter"}, {"type": "counter", "kind": "spy"})
    assert decide(s, 1)["card"] != "assassin"
    # Right counter against a zone one card from winning: the Assassin, to set it back.
    s = stage(start(hand1=("noble", "spy", "brute", "assassin", "recruiter")),
              zones=[["brute", "brute", "brute", "noble"], ["spy"]])
    s, _ = script(s, {"type": "play", "card": "noble"}, {"type": "counter", "kind": "noble"})
    assert decide(s, 1) == {"type": "discard", "card": "assassin"}
