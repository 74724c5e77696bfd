"""Shadow House Mascarade's heuristic bot: legal choices only, decisions from its player's
projection alone, sensible choices in set situations, and its win rate against random bots."""

from __future__ import annotations

import copy
import inspect
import json
import random
from collections import Counter
from typing import Any

from games.engine.bots import RandomBot, bot_rng
from games.shadow_house.rules import GAME as G
from games.shadow_house.rules import HeuristicBot
from games.shadow_house.rules.bots import Table
from games.shadow_house.rules.cards import in_order

from .support import card_move, do, play, stage, start

MOVE_CAP = 5000
#: Games per table size in the win-rate test, and the table sizes.
GAMES = 600
SIZES = (3, 4)
#: How far above the random bot (in the same seat, on the same seeds) the heuristic bot's share
#: of won games must be, at each table size. Measured over 2,000 games under the rules' latest
#: revision: 47% against 34% at 3 players, 37% against 28% at 4 (a shared victory counts as
#: won); 300 games, as before it, leave too wide a margin of error at 4 players (5 to 9 points
#: by the seeds).
MARGIN = 0.06


def play_game(seed: int, bots: list[Any], on_choice=None, options=None) -> Any:
    """A game with one bot per player; each gets its player's projection, legal moves and viewed
    history (events viewed when they happened, tagged with their move's seq). When several
    players are awaited, they answer in an order drawn from the seed."""
    n = len(bots)
    state = G.setup(G.normalize_options(options or {"players": n}), seed)
    histories: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    order = random.Random(seed)
    seq = state.seq
    while G.result(state) is None:
        assert seq < MOVE_CAP, f"no end after {MOVE_CAP} moves (seed {seed})"
        player = order.choice(G.pending(state)).player
        legal = G.legal_moves(state, player)
        view = G.view(state, player)
        move = bots[player].choose(view, legal, histories[player], bot_rng(seed, seq, player))
        assert move in legal, f"{bots[player].kind} chose {move}, not legal: {legal}"
        if on_choice is not None:
            on_choice(state, player, view, legal, histories[player], move, seq)
        state, events = G.apply(state, player, move)
        seq += 1
        for q in range(n):
            for event in events:
                seen = G.view_event(event, q, state)
                if seen is not None:
                    histories[q].append({**seen, "seq": seq})
    return state


def win_rate(n: int, bot: type) -> float:
    wins = 0
    for seed in range(GAMES):
        seat = seed % n
        bots: list[Any] = [RandomBot() for _ in range(n)]
        bots[seat] = bot()
        wins += seat in G.result(play_game(seed, bots)).winner_players
    return wins / GAMES


def test_choose_gets_the_projection_not_the_state():
    params = list(inspect.signature(HeuristicBot.choose).parameters)
    assert params == ["self", "view", "legal_moves", "history", "rng"]
    assert HeuristicBot.kind == "heuristic"


def test_the_heuristic_bot_beats_the_random_bot():
    """At 3 and 4 players, the heuristic bot in each seat in turn against random bots; the random
    bot in the same seats on the same seeds gives the bar."""
    for n in SIZES:
        heuristic, baseline = win_rate(n, HeuristicBot), win_rate(n, RandomBot)
        print(f"\nshadow_house, {n} players: the heuristic bot won {heuristic:.1%} of {GAMES} "
              f"games against random bots; a random bot in its seat {baseline:.1%}")
        assert heuristic >= baseline + MARGIN, (n, heuristic, baseline)


def test_heuristic_bots_play_each_other_to_an_end():
    kinds: Counter[str] = Counter()
    cases: Counter[int] = Counter()

    def record(state, player, view, legal, history, move, seq):
        kinds[move["type"]] += 1

    for seed in range(30):
        n = 3 + seed % 6
        final = play_game(seed, [HeuristicBot() for _ in range(n)], record)
        cases.update(r["case"] for r in final.rounds)
        assert max(final.points) >= 5
    assert set(kinds) == {"play", "discard", "give", "contribute", "witness_exchange",
                          "witness_pass", "say"}, kinds
    assert set(cases) == {1, 2, 3, 4}, cases


def twin(state, player: int, seq: int):
    """``state`` with every card ``player`` cannot see shuffled among the places they cannot see
    (the other hands, keeping their sizes and their chosen cards, and the pile), and another
    generator state."""
    data = G.to_json(state)
    mixed = random.Random(seq)
    keep = {player}
    if data["witnessed"] and data["seat"] == player:
        keep.add(data["witnessed"][0])  # the hand its Witness is looking at
    pool = list(data["pile"])
    held: dict[int, list[str]] = {}
    for t, hand in enumerate(data["hands"]):
        if t in keep:
            continue
        hand = list(hand)
        chosen = data["choices"][t]
        held[t] = [chosen] if chosen else []
        if chosen:
            hand.remove(chosen)
        pool += hand
    mixed.shuffle(pool)
    for t, fixed in held.items():
        size = len(data["hands"][t]) - len(fixed)
        data["hands"][t] = in_order(fixed + pool[:size])
        pool = pool[size:]
    data["pile"] = pool
    data["rng"] ^= 0xDEADBEEF
    return G.from_json(data)


def test_heuristic_ignores_what_its_player_cannot_see():
    """Same projection and history, other hidden cards (the other hands, the pile, the generator
    state): the same decision. The bot does not change its inputs and its choice is
    reproducible from its rng."""
    bot = HeuristicBot()
    checked = 0

    def twin_check(state, player, view, legal, history, move, seq):
        nonlocal checked
        if not isinstance(bots[player], HeuristicBot):
            return
        other = twin(state, player, seq)
        twin_view = G.view(other, player)
        assert twin_view == view
        before = copy.deepcopy((view, legal, history))
        again = bot.choose(twin_view, G.legal_moves(other, player), history,
                           bot_rng(seed, seq, player))
        assert again == move, f"the decision depends on hidden information at move {seq}"
        assert (view, legal, history) == before, "the bot changed its inputs"
        checked += 1

    for seed in range(12):
        n = 3 + seed % 6
        bots: list[Any] = [HeuristicBot() if (t + seed) % 2 else RandomBot() for t in range(n)]
        play_game(seed, bots, twin_check)
    assert checked > 300


def test_heuristic_inputs_are_plain_json():
    """The bot's inputs are exactly what the API serves: a JSON round trip changes nothing."""
    def roundtrip(state, player, view, legal, history, move, seq):
        if isinstance(bots[player], HeuristicBot):
            data = json.loads(json.dumps([view, legal, history]))
            assert bots[player].choose(*data, bot_rng(3, seq, player)) == move

    bots: list[Any] = [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot(), RandomBot()]
    play_game(3, bots, roundtrip)


# Set situations -------------------------------------------------------------------------------


def decide(state, player: int, history: list[dict] | None = None, seed: int = 0) -> dict:
    return HeuristicBot().choose(G.view(state, player), G.legal_moves(state, player),
                                 history or [], random.Random(seed))


def viewed(events: list[dict], player: int, state, seq: int) -> list[dict]:
    return [{**G.view_event(e, player, state), "seq": seq} for e in events]


def test_it_follows_the_culprit_it_was_shown():
    # Seat 3's Little one shows it seat 1; then its Detective asks seat 1.
    s = stage(start(), seat=3, waiting=[3],
              hands=[["alibi", "maid"], ["culprit", "toby", "sharing"], ["sheriff", "witness"],
                     ["little_one", "detective", "divining_hat"]])
    s, events = do(s, 3, play("little_one"))
    history = viewed(events, 3, s, 1)
    assert Table(G.view(s, 3), history).chance == [0.0, 1.0, 0.0, 0.0]
    assert Table(G.view(s, 3), []).chance == [3 / 11, 4 / 11, 4 / 11, 0.0]
    s = stage(s, seat=3, waiting=[3])
    assert decide(s, 3, history) == play("detective", 1)


def test_toby_on_a_likely_culprit_with_one_card():
    s = stage(start(), seat=3, waiting=[3],
              hands=[["alibi", "maid"], ["culprit"], ["sheriff", "witness"],
                     ["little_one", "toby", "divining_hat"]])
    s, events = do(s, 3, play("little_one"))
    s = stage(s, seat=3, waiting=[3])
    assert decide(s, 3, viewed(events, 3, s, 1)) == play("toby", 1)


def test_an_accomplice_on_a_culprit_holding_one_card():
    s = stage(start(), seat=3, waiting=[3],
              hands=[["alibi", "maid"], ["culprit"], ["sheriff", "witness"],
                     ["little_one", "accomplice", "divining_hat"]])
    s, events = do(s, 3, play("little_one"))
    s = stage(s, seat=3, waiting=[3])
    assert decide(s, 3, viewed(events, 3, s, 1)) == play("accomplice", 1)


def test_the_culprit_keeps_its_alibi_and_its_shield_for_last():
    s = stage(start(), hands=[["alibi", "maid"], ["culprit", "alibi", "sharing"],
                              ["sheriff", "witness"], ["panic"]])
    assert decide(s, 1) == play("sharing")
    s = stage(s, hands=[["alibi", "maid"], ["culprit", "alibi", "maid"], ["sheriff"], ["panic"]])
    assert decide(s, 1) == play("alibi")


def test_a_handcuffed_culprit_passes_the_handcuffs_or_the_culprit():
    s = stage(start(), handcuffs=1, hands=[["alibi", "maid"], ["culprit", "sheriff", "rumour"],
                                           ["witness", "toby"], ["panic", "exchange"]])
    move = decide(s, 1)
    assert move["card"] == "sheriff" and move["target"] != 1
    s = stage(s, hands=[["alibi", "maid"], ["culprit", "sharing", "alibi"], ["witness", "toby"],
                        ["panic", "exchange"]])
    s, _ = do(s, 1, play("sharing"))
    assert decide(s, 1) == card_move("give", "culprit")
    s = stage(s, handcuffs=-1)
    assert decide(s, 1) == card_move("give", "alibi")


def test_an_innocent_gives_its_least_useful_card():
    s, _ = do(start(), 1, play("sharing"))
    # Seat 0 holds a Detective, an Alibi and a Maid: the Detective stays.
    assert decide(s, 0)["card"] in ("alibi", "maid")
    assert decide(s, 3)["card"] in ("divining_hat", "governess")


def test_an_accomplice_questions_where_the_culprit_is_not():
    s = stage(start(), seat=3, waiting=[3], played=[["first_on_scene"], [], [], ["accomplice"]],
              hands=[["alibi", "maid"], ["culprit", "toby"], ["sheriff", "witness"],
                     ["little_one", "detective", "divining_hat"]])
    s, events = do(s, 3, play("little_one"))
    s = stage(s, seat=3, waiting=[3])
    move = decide(s, 3, viewed(events, 3, s, 1))
    assert move.get("target") != 1
    assert move != play("detective", 1)


def test_witness_decisions():
    # An innocent that saw the Culprit swaps its least useful card.
    s = stage(start(), seat=2, waiting=[2],
              hands=[["alibi", "maid"], ["culprit", "toby"], ["witness", "divining_hat", "toby"],
                     ["panic"]])
    s, _ = do(s, 2, play("witness", 1))
    assert decide(s, 2) == card_move("witness_exchange", "divining_hat")
    # Nothing seen: no swap.
    s = stage(start(), seat=2, waiting=[2],
              hands=[["alibi", "maid"], ["culprit", "toby"], ["witness", "divining_hat", "toby"],
                     ["panic", "rumour"]])
    s, _ = do(s, 2, play("witness", 3))
    assert decide(s, 2) == {"type": "witness_pass"}
