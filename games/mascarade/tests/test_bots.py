"""The bots: legal choices only, the heuristic bot decides from its player's projection alone,
sensible decisions in set situations, and a small-sample win rate against random bots (the
2,000-game figure is ``bench/engine.py``'s)."""

from __future__ import annotations

import copy
import inspect
import json
import random
from collections import Counter
from typing import Any

import pytest

from games.core.catalog import bot_kinds, get_bot, get_game
from games.engine.bots import RandomBot, bot_rng
from games.mascarade.rules import MASKS
from games.mascarade.rules.bots import HeuristicBot

GAME = get_game("mascarade")
MOVE_CAP = 3000

#: Every power with a decision is in play in one of these.
ALL_POWERS = {"players": 12, "scenario": "custom", "center": 2,
              "masks": [m for m in MASKS if m not in ("peasant", "king", "empress")]}
OPTION_SETS = [
    {"players": 4},
    {"players": 4, "scenario": "B", "challenge_mode": "simultaneous"},
    {"players": 8, "scenario": "B", "log_masks": False},
    {"players": 12, "scenario": "A", "challenge_mode": "simultaneous", "log_masks": False},
    ALL_POWERS,
]


def decision_kind(legal: list[dict[str, Any]]) -> str:
    types = {m["type"] for m in legal}
    if "look" in types:
        return "turn"
    if "claim" in types:
        return "challenge"
    if types == {"exchange"}:
        return "prep"
    return legal[0]["type"]


def play(options: dict[str, Any], seed: int, bots: list[Any], on_choice=None) -> Any:
    """Play a game with one bot per player; each bot gets its player's projection, legal moves
    and viewed history (events viewed when they happened, tagged with their move's seq)."""
    options = GAME.normalize_options(options)
    state = GAME.setup(options, seed)
    n = options["players"]
    histories: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    order = random.Random(seed)
    seq = 0
    while GAME.result(state) is None:
        assert seq < MOVE_CAP, f"no end after {MOVE_CAP} moves: options={options} seed={seed}"
        player = order.choice(GAME.pending(state)).player
        legal = GAME.legal_moves(state, player)
        view = GAME.view(state, player)
        move = bots[player].choose(view, legal, histories[player], bot_rng(seed, seq, player))
        assert move in legal, f"{bots[player].kind} chose {move}, not legal: {legal}"
        if on_choice is not None:
            on_choice(state, player, view, legal, histories[player], move, seq)
        state, events = GAME.apply(state, player, move)
        seq += 1
        for p in range(n):
            for event in events:
                seen = GAME.view_event(event, p, state)
                if seen is not None:
                    histories[p].append({**seen, "seq": seq})
    return state


def test_get_bot_gives_the_heuristic_bot_for_mascarade():
    assert bot_kinds() == ["heuristic", "random"]
    bot = get_bot("mascarade", "heuristic")
    assert isinstance(bot, HeuristicBot) and bot.kind == "heuristic"
    assert isinstance(get_bot("mascarade", "random"), RandomBot)
    assert isinstance(get_bot("mascarade"), HeuristicBot)


def test_choose_gets_the_projection_not_the_state():
    params = list(inspect.signature(HeuristicBot.choose).parameters)
    assert params == ["self", "view", "legal_moves", "history", "rng"]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: f"{o['players']}"
                         f"{o.get('scenario', 'A')}-{o.get('challenge_mode', 'seq')[:3]}")
def test_bots_choose_only_legal_moves(options):
    """Mixed tables of heuristic and random bots: every choice is legal and the games end."""
    kinds: Counter[str] = Counter()

    def record(state, player, view, legal, history, move, seq):
        if isinstance(bots[player], HeuristicBot):
            kinds[decision_kind(legal)] += 1

    for seed in range(12):
        n = options["players"]
        bots = [HeuristicBot() if (seat + seed) % 3 else RandomBot() for seat in range(n)]
        play(options, seed, bots, record)
    assert {"prep", "turn", "challenge"} <= set(kinds)


class PowersOnly:
    """Random for turns and challenges (so that every power gets announced and applied), the
    heuristic bot for every power decision."""

    kind = "heuristic-powers"

    def __init__(self, kinds: Counter[str]) -> None:
        self.kinds = kinds
        self.heuristic = HeuristicBot()
        self.random = RandomBot()

    def choose(self, view, legal_moves, history, rng):
        kind = decision_kind(legal_moves)
        if kind in ("prep", "turn", "challenge"):
            return self.random.choose(view, legal_moves, history, rng)
        self.kinds[kind] += 1
        return self.heuristic.choose(view, legal_moves, history, rng)


def test_heuristic_meets_every_power_decision():
    kinds: Counter[str] = Counter()
    for seed in range(150):
        play(ALL_POWERS, seed, [PowersOnly(kinds) for _ in range(12)])
    decisions = {"spy", "spy_swap", "fool", "puppeteer", "princess", "guru", "guru_answer",
                 "sorceress", "crook", "gambler", "gambler_guess"}
    assert decisions == set(kinds), f"never decided: {decisions - set(kinds)}"
    assert min(kinds.values()) >= 5, kinds


def test_heuristic_ignores_what_its_player_cannot_see():
    """Same projection and history, different hidden cards, generator state and Gambler number:
    the same decision. The bot does not mutate its inputs and is reproducible from its rng."""
    bot = HeuristicBot()
    checked = 0

    def twin_check(state, player, view, legal, history, move, seq):
        nonlocal checked
        if not isinstance(bots[player], HeuristicBot):
            return
        data = GAME.to_json(state)
        shuffled = random.Random(seq).sample(data["cards"], len(data["cards"]))
        hidden = data["hidden"] % 3 + 1 if data["hidden"] else 0
        twin = GAME.from_json({**data, "cards": shuffled, "rng": data["rng"] ^ 0xDEADBEEF,
                               "hidden": hidden})
        twin_view = GAME.view(twin, player)
        assert twin_view == view
        before = copy.deepcopy((view, legal, history))
        again = bot.choose(twin_view, GAME.legal_moves(twin, player), history,
                           bot_rng(seed, seq, player))
        assert again == move, f"the decision depends on hidden information at move {seq}"
        assert (view, legal, history) == before, "the bot changed its inputs"
        checked += 1

    for seed in range(6):
        options = OPTION_SETS[seed % len(OPTION_SETS)]
        n = GAME.normalize_options(options)["players"]
        bots = [HeuristicBot() if seat % 2 == 0 else RandomBot() for seat in range(n)]
        play(options, seed, bots, twin_check)
    assert checked > 100


def test_heuristic_history_is_plain_json():
    """The bot's inputs are exactly what the API serves: a JSON round trip changes nothing."""
    def roundtrip(state, player, view, legal, history, move, seq):
        if isinstance(bots[player], HeuristicBot):
            data = json.loads(json.dumps([view, legal, history]))
            assert bots[player].choose(*data, bot_rng(3, seq, player)) == move

    bots = [HeuristicBot(), RandomBot(), HeuristicBot(), RandomBot(), RandomBot()]
    play({"players": 5, "scenario": "B"}, 3, bots, roundtrip)


def test_heuristic_beats_random_bots_on_a_small_sample():
    """200 four-player games, one heuristic bot against three random ones, seat rotating: random
    would win about a quarter (ties share); the heuristic bot must be clearly above."""
    wins = 0
    games = 200
    for seed in range(games):
        seat = seed % 4
        bots: list[Any] = [RandomBot() for _ in range(4)]
        bots[seat] = HeuristicBot()
        options = {"players": 4, "scenario": "AB"[seed // 4 % 2]}
        result = GAME.result(play(options, seed, bots))
        wins += seat in result.winner_players
    assert wins / games >= 0.5, f"heuristic won {wins} of {games}"


# Set situations ----------------------------------------------------------------------------


def situation(deal: list[str], players: int, first_seat: int,
              moves: list[tuple[int, dict[str, Any]]], coins: dict[int, int] | None = None):
    """A custom game of ``players`` dealt ``deal`` (seats, then center slots), after
    ``moves``; ``coins`` overrides seats' coins (the bot sees coins through the view only).
    Returns the state and each player's viewed history."""
    opts = {"players": players, "scenario": "custom", "masks": deal, "deal": deal,
            "first_seat": first_seat}
    state = GAME.setup(opts, 1)
    histories: list[list[dict[str, Any]]] = [[] for _ in range(players)]
    for seq, (player, move) in enumerate(moves, start=1):
        state, events = GAME.apply(state, player, move)
        for p in range(players):
            for event in events:
                seen = GAME.view_event(event, p, state)
                if seen is not None:
                    histories[p].append({**seen, "seq": seq})
    if coins:
        data = GAME.to_json(state)
        data["coins"] = [coins.get(x, c) for x, c in enumerate(data["coins"])]
        state = GAME.from_json(data)
    return state, histories


def decide(state, histories, player: int, seed: int = 0) -> dict[str, Any]:
    return HeuristicBot().choose(GAME.view(state, player), GAME.legal_moves(state, player),
                                 histories[player], random.Random(seed))


DEAL_B5 = ["judge", "guru", "crook", "princess", "patron", "widow"]  # 5 players + 1 center
#: Four preparatory turns in which nobody touches seat 0 nor seat 1 (exchanges with the center,
#: for show).
QUIET_PREP = [(p, {"type": "exchange", "target": "center-0", "swap": False}) for p in range(4)]


def test_announces_the_mask_it_knows_it_holds():
    # Seat 4 holds the Patron since the deal and nothing touched it.
    state, hist = situation(DEAL_B5, 5, 0, QUIET_PREP)
    for seed in range(20):
        assert decide(state, hist, 4, seed) == {"type": "announce", "mask": "patron"}


def test_looks_when_its_card_may_have_been_swapped():
    # Seat 3 (Princess) swaps with seat 4 (Patron) for real; then seat 4, on its turn, exchanges
    # with seat 3, really or not: seat 3 cannot know. Seats 0-2 look; then it is seat 3's turn.
    prep = [*((p, {"type": "exchange", "target": "center-0", "swap": False}) for p in range(3)),
            (3, {"type": "exchange", "target": 4, "swap": True}),
            (4, {"type": "exchange", "target": 3, "swap": True}),
            *((p, {"type": "look"}) for p in range(3))]
    state, hist = situation(DEAL_B5, 5, 0, prep)
    assert decide(state, hist, 3) == {"type": "look"}


def test_widow_when_poor_and_cheater_at_ten():
    # Seat 1 holds the Widow since the deal, and has 2 coins.
    deal = ["judge", "widow", "crook", "princess", "guru", "spy"]  # 4 players, 2 center
    quiet = [(p % 4, {"type": "exchange", "target": "center-0", "swap": False})
             for p in range(1, 5)]
    state, hist = situation(deal, 4, 1, quiet, coins={1: 2})
    assert decide(state, hist, 1) == {"type": "announce", "mask": "widow"}
    # Seat 1 holds the Cheater since the deal, and has 10 coins.
    deal = ["judge", "cheater", "king", "empress", "thief", "spy"]
    state, hist = situation(deal, 4, 1, quiet, coins={1: 10})
    assert decide(state, hist, 1) == {"type": "announce", "mask": "cheater"}


def test_claims_its_own_mask_and_passes_otherwise():
    deal = ["judge", "king", "empress", "thief", "cheater", "spy"]
    quiet = [(p, {"type": "exchange", "target": "center-0", "swap": False}) for p in range(4)]
    # Seat 0 announces the Empress, which seat 2 holds (certain): seat 1 passes, seat 2 claims.
    state, hist = situation(deal, 4, 0, [*quiet, (0, {"type": "announce", "mask": "empress"})])
    assert decide(state, hist, 1) == {"type": "pass"}
    state, hist = situation(deal, 4, 0, [*quiet, (0, {"type": "announce", "mask": "empress"}),
                                      (1, {"type": "pass"})])
    assert decide(state, hist, 2) == {"type": "claim"}


def test_power_decisions():
    # The Sorceress (seat 0, certain) swaps fortunes with the richest when richer, else keeps.
    deal = ["sorceress", "judge", "king", "empress", "thief", "spy"]
    quiet = [(p, {"type": "exchange", "target": "center-0", "swap": False}) for p in range(4)]
    announce = [(0, {"type": "announce", "mask": "sorceress"}), (1, {"type": "pass"}),
                (2, {"type": "pass"}), (3, {"type": "pass"})]
    state, hist = situation(deal, 4, 0, [*quiet, *announce], coins={2: 11, 3: 9})
    assert decide(state, hist, 0) == {"type": "sorceress", "target": 2}
    state, hist = situation(deal, 4, 0, [*quiet, *announce], coins={0: 12})
    assert decide(state, hist, 0) == {"type": "sorceress", "target": None}
    # The Guru's target names the mask it knows it holds.
    deal = ["guru", "judge", "crook", "princess", "widow", "spy"]
    announce = [(0, {"type": "announce", "mask": "guru"}), (1, {"type": "pass"}),
                (2, {"type": "pass"}), (3, {"type": "pass"}), (0, {"type": "guru", "target": 3})]
    state, hist = situation(deal, 4, 0, [*quiet, *announce])
    assert decide(state, hist, 3) == {"type": "guru_answer", "mask": "princess"}
    # The Spy looks where it knows least: seats 2 and 3 exchanged (really or not), not seat 1.
    deal = ["spy", "empress", "judge", "king", "thief", "cheater"]
    mixed = [(0, {"type": "exchange", "target": "center-0", "swap": False}),
             (1, {"type": "exchange", "target": "center-0", "swap": False}),
             (2, {"type": "exchange", "target": 3, "swap": True}),
             (3, {"type": "exchange", "target": "center-1", "swap": False})]
    announce = [(0, {"type": "announce", "mask": "spy"}), (1, {"type": "pass"}),
                (2, {"type": "pass"}), (3, {"type": "pass"})]
    state, hist = situation(deal, 4, 0, [*mixed, *announce])
    assert decide(state, hist, 0)["target"] in (2, 3)
    # The Spy swaps for a better card: seat 0 spies seat 1's Empress.
    deal = ["spy", "empress", "judge", "king", "thief", "cheater"]
    announce = [(0, {"type": "announce", "mask": "spy"}), (1, {"type": "pass"}),
                (2, {"type": "pass"}), (3, {"type": "pass"}), (0, {"type": "spy", "target": 1})]
    state, hist = situation(deal, 4, 0, [*quiet, *announce])
    assert decide(state, hist, 0) == {"type": "spy_swap", "swap": True}
