"""Engine benchmark: prints each figure beside its goal, with PASS or MISS.

    .venv/bin/python bench/engine.py            # the figures (about a minute)
    .venv/bin/python bench/engine.py --quick    # fewer games, rougher figures
    .venv/bin/python bench/engine.py --profile  # then where an 8-player random game spends time

Everything runs in this one process, pinned to one core when the OS allows it:

1. full random games per second at 4, 8 and 12 players (scenario A): a random game picks a
   pending player, calls ``legal_moves``, applies a random one, until the game is over;
2. the time to replay a 300-move game (12 players) from its move list (``registry.replay``: set-up
   and 300 ``apply``); the game is played by random bots that avoid ending it before 300 moves
   and claim seldom (see :func:`long_game`);
3. the size of a serialised 12-player state (compact JSON of ``to_json``) after every move of that
   300-move game and of ordinary random games: maximum and median;
4. the heuristic bot's win rate as one of four players against three random bots (seat rotating,
   scenarios A and B alternating; a shared victory counts as a win).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import get_game, replay
from games.engine.bots import RandomBot, bot_rng
from games.engine.mascarade.bots import HeuristicBot

GAME = get_game("mascarade")

GOAL_GAMES_PER_S_8 = 200
GOAL_REPLAY_MS = 10.0
GOAL_STATE_BYTES = 8 * 1024
GOAL_WIN_RATE = 0.45
REPLAY_MOVES = 300
#: In the long game, how often the bots claim: random claims (one in two) fine nearly everybody
#: at every announcement, and a 12-player table is ruined long before 300 moves.
CLAIM_RATE = 0.15


def pin_one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    return "not pinned (no sched_setaffinity here)"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def random_game(options: dict[str, Any], seed: int) -> int:
    """One full random game; returns its number of moves."""
    state = GAME.setup(options, seed)
    rnd = random.Random(seed)
    moves = 0
    while GAME.result(state) is None:
        player = rnd.choice(GAME.pending(state)).player
        state, _events = GAME.apply(state, player, rnd.choice(GAME.legal_moves(state, player)))
        moves += 1
    return moves


def games_per_second(players: int, games: int) -> tuple[float, float, float]:
    options = GAME.normalize_options({"players": players})
    started = time.perf_counter()
    moves = sum(random_game(options, seed) for seed in range(games))
    elapsed = time.perf_counter() - started
    return games / elapsed, moves / elapsed, moves / games


def long_game(players: int, length: int, seed: int) -> tuple[int, dict[str, Any], list, list]:
    """A game of ``length`` moves by random bots that avoid every move ending it early and claim
    seldom (:data:`CLAIM_RATE`); seeds ``seed``, ``seed + 1``, ... until one gets there.
    Returns the seed, the options, the moves and the state after each move (set-up first)."""
    for attempt in range(seed, seed + 1000):
        found = _long_game(players, length, attempt)
        if found is not None:
            return attempt, *found
    raise RuntimeError(f"no {length}-move game from seeds {seed} to {seed + 999}")


def _long_game(players: int, length: int, seed: int) -> tuple[dict[str, Any], list, list] | None:
    options = GAME.normalize_options({"players": players})
    state = GAME.setup(options, seed)
    rnd = random.Random(seed)
    moves: list[tuple[int, dict[str, Any]]] = []
    states = [state]
    while len(moves) < length:
        player = rnd.choice(GAME.pending(state)).player
        legal = GAME.legal_moves(state, player)
        rnd.shuffle(legal)
        if legal[0]["type"] in ("claim", "pass"):  # claim seldom: fines drain everybody
            first = "claim" if rnd.random() < CLAIM_RATE else "pass"
            legal.sort(key=lambda m: m["type"] != first)
        for move in legal:
            after, _events = GAME.apply(state, player, move)
            if GAME.result(after) is None:
                break
        else:
            return None  # every move ends the game here
        state = after
        moves.append((player, move))
        states.append(state)
    return options, moves, states


def replay_ms(options: dict[str, Any], seed: int, moves: list, repeats: int) -> tuple[float,
                                                                                        float]:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        replay(GAME, options, seed, moves)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), min(times)


def state_bytes(states: list[Any]) -> list[int]:
    return [len(json.dumps(GAME.to_json(s), separators=(",", ":"))) for s in states]


def twelve_player_states(games: int) -> list[Any]:
    options = GAME.normalize_options({"players": 12, "scenario": "B"})
    states = []
    for seed in range(games):
        state = GAME.setup(options, seed)
        rnd = random.Random(seed)
        states.append(state)
        while GAME.result(state) is None:
            player = rnd.choice(GAME.pending(state)).player
            state, _e = GAME.apply(state, player, rnd.choice(GAME.legal_moves(state, player)))
            states.append(state)
    return states


def bot_game(options: dict[str, Any], seed: int, bots: list[Any]) -> Any:
    """A game between bots; each non-random bot gets its view, legal moves and viewed history."""
    state = GAME.setup(options, seed)
    n = len(bots)
    watching = [p for p in range(n) if not isinstance(bots[p], RandomBot)]
    histories: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    order = random.Random(seed)
    seq = 0
    while GAME.result(state) is None:
        player = order.choice(GAME.pending(state)).player
        legal = GAME.legal_moves(state, player)
        rng = bot_rng(seed, seq, player)
        if isinstance(bots[player], RandomBot):
            move = bots[player].choose(None, legal, [], rng)
        else:
            move = bots[player].choose(GAME.view(state, player), legal, histories[player], rng)
        state, events = GAME.apply(state, player, move)
        seq += 1
        for p in watching:
            for event in events:
                seen = GAME.view_event(event, p, state)
                if seen is not None:
                    seen["seq"] = seq
                    histories[p].append(seen)
    return state


def win_rate(games: int) -> tuple[float, dict[str, float], float]:
    wins = {"A": 0, "B": 0}
    played = {"A": 0, "B": 0}
    options = {s: GAME.normalize_options({"players": 4, "scenario": s}) for s in "AB"}
    started = time.perf_counter()
    for seed in range(games):
        scenario = "AB"[seed % 2]
        seat = seed // 2 % 4
        bots: list[Any] = [RandomBot() for _ in range(4)]
        bots[seat] = HeuristicBot()
        result = GAME.result(bot_game(options[scenario], seed, bots))
        played[scenario] += 1
        wins[scenario] += seat in result.winner_players
    elapsed = time.perf_counter() - started
    rates = {s: wins[s] / played[s] for s in "AB" if played[s]}
    return sum(wins.values()) / games, rates, elapsed


def profile_random_games(games: int) -> None:
    options = GAME.normalize_options({"players": 8})
    profiler = cProfile.Profile()
    profiler.enable()
    for seed in range(games):
        random_game(options, seed)
    profiler.disable()
    print(f"\nProfile of {games} random 8-player games (by own time):")
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(15)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games, rougher figures")
    parser.add_argument("--profile", action="store_true",
                        help="also profile random 8-player games")
    args = parser.parse_args()
    random_games = 300 if args.quick else 2000
    bot_games = 400 if args.quick else 2000
    repeats = 20 if args.quick else 100

    print(f"Mascarade engine benchmark ({'quick' if args.quick else 'full'}; Python "
          f"{sys.version.split()[0]}; {pin_one_core()})")
    misses = 0

    for players in (4, 8, 12):
        gps, mps, length = games_per_second(players, random_games)
        line = (f"random games, {players:>2} players: {gps:8.1f} games/s "
                f"({mps:,.0f} moves/s, {length:.1f} moves/game, {random_games} games)")
        if players == 8:
            ok = gps >= GOAL_GAMES_PER_S_8
            misses += not ok
            line += f"  goal >= {GOAL_GAMES_PER_S_8} games/s  {verdict(ok)}"
        print(line)

    seed, options, moves, states = long_game(12, REPLAY_MOVES, 20261122)
    median, best = replay_ms(options, seed, moves, repeats)
    ok = median <= GOAL_REPLAY_MS
    misses += not ok
    print(f"replay of a {len(moves)}-move 12-player game: {median:.2f} ms median, {best:.2f} ms "
          f"best of {repeats}  goal <= {GOAL_REPLAY_MS:.0f} ms  {verdict(ok)}")

    sizes = state_bytes(states) + state_bytes(twelve_player_states(5 if args.quick else 20))
    biggest, middle = max(sizes), statistics.median(sizes)
    ok = biggest <= GOAL_STATE_BYTES
    misses += not ok
    print(f"serialised 12-player state (compact JSON, {len(sizes)} states): max {biggest:,} B, "
          f"median {middle:,.0f} B  goal max <= {GOAL_STATE_BYTES:,} B  {verdict(ok)}")

    rate, rates, elapsed = win_rate(bot_games)
    ok = rate >= GOAL_WIN_RATE
    misses += not ok
    detail = ", ".join(f"scenario {s} {r:.1%}" for s, r in rates.items())
    print(f"heuristic bot vs 3 random bots, 4 players: {rate:.1%} of {bot_games} games "
          f"({detail}; {elapsed:.1f} s)  goal >= {GOAL_WIN_RATE:.0%}  {verdict(ok)}")

    if args.profile:
        profile_random_games(100 if args.quick else 500)
    print("all goals met" if not misses else f"{misses} goal(s) missed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
