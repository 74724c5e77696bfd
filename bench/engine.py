"""Engine benchmark, for each game of the catalog: prints each figure, beside its goal where the
game has one, with PASS or MISS.

    .venv/bin/python bench/engine.py                    # every game
    .venv/bin/python bench/engine.py --quick            # fewer games, rougher figures
    .venv/bin/python bench/engine.py --games 10         # a smoke run: 10 games per figure
    .venv/bin/python bench/engine.py --game mascarade   # one game
    .venv/bin/python bench/engine.py --profile          # then where random games spend time

Everything runs in this one process, pinned to one core when the OS allows it. For each game:

1. full random games per second at its smallest, middle and largest player counts: a random game
   picks a pending player, calls ``legal_moves``, applies a random one, until the game is over;
2. the time to replay a 300-move game (largest player count) from its move list
   (``games.engine.replay``: set-up and 300 ``apply``); random players that avoid every move
   ending the game before 300 moves play it (a game may weight some move types:
   :data:`LONG_GAME_WEIGHTS`; see :func:`long_game`);
3. the size of a serialised state (compact JSON of ``to_json``) at the largest player count, after
   every move of that 300-move game and of ordinary random games: maximum and median;
4. the game's default bot (``games.core.catalog.get_bot``) as one player against random bots (seat
   rotating over its option sets; a shared victory counts as a win).

The games come from the catalog (Django is set up for it); nothing here names a game's package.
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
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mascarade_site.settings")
os.environ.setdefault("DEBUG", "1")  # the settings' development defaults: no secret to give

import django

django.setup()

from games.core import catalog  # noqa: E402
from games.engine import Game, replay  # noqa: E402
from games.engine.bots import RandomBot, bot_rng  # noqa: E402

REPLAY_MOVES = 300
#: In the long game, how many times the players may go back a few moves from a position where
#: every move ends the game (a 2-player game of L'Ère des Masques gets there often).
MAX_BACKS = 500
#: Goals by game id (a game without any prints its figures only).
GOALS: dict[str, dict[str, float]] = {
    "mascarade": {"games_per_s_middle": 200, "replay_ms": 10.0, "state_bytes": 8 * 1024,
                  "win_rate": 0.45},
    "ere_des_masques": {"games_per_s_middle": 200, "replay_ms": 10.0, "state_bytes": 8 * 1024,
                        "win_rate": 0.60},
    # The goal asks for a clear lead over a random bot in the heuristic bot's seat (its share of
    # 4-player games, shared victories counted).
    "shadow_house": {"games_per_s_middle": 200, "replay_ms": 10.0, "state_bytes": 8 * 1024,
                     "win_rate": 0.34},
}
#: Option sets the bot's games rotate over, by game id (default: the smallest table).
BOT_OPTIONS: dict[str, list[dict[str, Any]]] = {
    "mascarade": [{"players": 4, "scenario": "A"}, {"players": 4, "scenario": "B"}],
    "shadow_house": [{"players": 4}],
}
#: In the long game, the chance a move type is preferred when it is legal, by game id. In
#: Mascarade random claims (one in two) fine nearly everybody at every announcement, and a
#: 12-player table is ruined long before 300 moves: its players claim seldom.
LONG_GAME_WEIGHTS: dict[str, dict[str, float]] = {
    "mascarade": {"claim": 0.15, "pass": 0.85},
    # Shadow House: no move type to weight (a turn's moves are all "play"); random 8-player games
    # end well before 300 moves, which going back from the moves that would end the game reaches
    # from some seeds only.
    "shadow_house": {},
}


def pin_one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    return "not pinned (no sched_setaffinity here)"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def random_game(game: Game, options: dict[str, Any], seed: int) -> int:
    """One full random game; returns its number of moves."""
    state = game.setup(options, seed)
    rnd = random.Random(seed)
    moves = 0
    while game.result(state) is None:
        player = rnd.choice(game.pending(state)).player
        state, _events = game.apply(state, player, rnd.choice(game.legal_moves(state, player)))
        moves += 1
    return moves


def games_per_second(game: Game, players: int, games: int) -> tuple[float, float, float]:
    options = game.normalize_options({"players": players})
    started = time.perf_counter()
    moves = sum(random_game(game, options, seed) for seed in range(games))
    elapsed = time.perf_counter() - started
    return games / elapsed, moves / elapsed, moves / games


def long_game(game: Game, players: int, length: int, seed: int
              ) -> tuple[int, dict[str, Any], list, list]:
    """A game of ``length`` moves by random bots that avoid every move ending it early (going
    back a few moves when all of them would) and weight move types as :data:`LONG_GAME_WEIGHTS`
    says; seeds ``seed``, ``seed + 1``, ...
    until one gets there. Returns the seed, the options, the moves and the state after each
    move (set-up first)."""
    for attempt in range(seed, seed + 1000):
        found = _long_game(game, players, length, attempt)
        if found is not None:
            return attempt, *found
    raise RuntimeError(f"no {length}-move game from seeds {seed} to {seed + 999}")


def _long_game(game: Game, players: int, length: int, seed: int
               ) -> tuple[dict[str, Any], list, list] | None:
    options = game.normalize_options({"players": players})
    weights = LONG_GAME_WEIGHTS.get(game.id, {})
    state = game.setup(options, seed)
    rnd = random.Random(seed)
    moves: list[tuple[int, dict[str, Any]]] = []
    states = [state]
    backs = 0
    while len(moves) < length:
        player = rnd.choice(game.pending(state)).player
        legal = game.legal_moves(state, player)
        rnd.shuffle(legal)
        weighted = [t for t in weights if any(m["type"] == t for m in legal)]
        if weighted:  # one weighted type first, drawn by its weight
            first = rnd.choices(weighted, [weights[t] for t in weighted])[0]
            legal.sort(key=lambda m: m["type"] != first)
        for move in legal:
            after, _events = game.apply(state, player, move)
            if game.result(after) is None:
                break
        else:  # every move ends the game here: go back a few moves and choose otherwise
            backs += 1
            if backs > MAX_BACKS or not moves:
                return None
            back = min(len(moves), rnd.randint(1, 12))
            del moves[-back:], states[-back:]
            state = states[-1]
            continue
        state = after
        moves.append((player, move))
        states.append(state)
    return options, moves, states


def replay_ms(game: Game, options: dict[str, Any], seed: int, moves: list, repeats: int
              ) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        replay(game, options, seed, moves)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), min(times)


def state_bytes(game: Game, states: list[Any]) -> list[int]:
    return [len(json.dumps(game.to_json(s), separators=(",", ":"))) for s in states]


def largest_table_states(game: Game, games: int) -> list[Any]:
    options = game.normalize_options({"players": game.max_players})
    states = []
    for seed in range(games):
        state = game.setup(options, seed)
        rnd = random.Random(seed)
        states.append(state)
        while game.result(state) is None:
            player = rnd.choice(game.pending(state)).player
            state, _e = game.apply(state, player, rnd.choice(game.legal_moves(state, player)))
            states.append(state)
    return states


def bot_game(game: Game, options: dict[str, Any], seed: int, bots: list[Any]) -> Any:
    """A game between bots; each non-random bot gets its view, legal moves and viewed history."""
    state = game.setup(options, seed)
    n = len(bots)
    watching = [p for p in range(n) if not isinstance(bots[p], RandomBot)]
    histories: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    order = random.Random(seed)
    seq = 0
    while game.result(state) is None:
        player = order.choice(game.pending(state)).player
        legal = game.legal_moves(state, player)
        rng = bot_rng(seed, seq, player)
        if isinstance(bots[player], RandomBot):
            move = bots[player].choose(None, legal, [], rng)
        else:
            move = bots[player].choose(game.view(state, player), legal, histories[player], rng)
        state, events = game.apply(state, player, move)
        seq += 1
        for p in watching:
            for event in events:
                seen = game.view_event(event, p, state)
                if seen is not None:
                    seen["seq"] = seq
                    histories[p].append(seen)
    return state


def win_rate(game: Game, games: int) -> tuple[float, dict[str, float], float]:
    sets = BOT_OPTIONS.get(game.id) or [{"players": game.min_players}]
    options = [game.normalize_options(dict(o)) for o in sets]
    wins = [0] * len(sets)
    played = [0] * len(sets)
    started = time.perf_counter()
    for seed in range(games):
        which = seed % len(sets)
        players = game.player_count(options[which])
        seat = seed // len(sets) % players
        bots: list[Any] = [RandomBot() for _ in range(players)]
        bots[seat] = catalog.get_bot(game.id)
        result = game.result(bot_game(game, options[which], seed, bots))
        played[which] += 1
        wins[which] += seat in result.winner_players
    elapsed = time.perf_counter() - started
    rates = {json.dumps(sets[i], sort_keys=True): wins[i] / played[i]
             for i in range(len(sets)) if played[i]}
    return sum(wins) / games, rates, elapsed


def profile_random_games(game: Game, games: int) -> None:
    players = (game.min_players + game.max_players) // 2
    options = game.normalize_options({"players": players})
    profiler = cProfile.Profile()
    profiler.enable()
    for seed in range(games):
        random_game(game, options, seed)
    profiler.disable()
    print(f"\nProfile of {games} random {players}-player games of {game.id} (by own time):")
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(15)


def bench_game(game: Game, args: argparse.Namespace) -> int:
    """Prints one game's figures; returns the number of goals missed."""
    random_games = args.games or (300 if args.quick else 2000)
    bot_games = args.games or (400 if args.quick else 2000)
    repeats = 20 if args.quick else 100
    goals = GOALS.get(game.id, {})
    misses = 0

    def goal(name: str, value: float, text: str, at_most: bool = False) -> str:
        nonlocal misses
        if name not in goals:
            return ""
        ok = value <= goals[name] if at_most else value >= goals[name]
        misses += not ok
        return f"  goal {'<=' if at_most else '>='} {text.format(goals[name])}  {verdict(ok)}"

    print(f"\n{game.id} ({game.min_players}–{game.max_players} players)")
    middle = (game.min_players + game.max_players) // 2
    for players in sorted({game.min_players, middle, game.max_players}):
        gps, mps, length = games_per_second(game, players, random_games)
        line = (f"random games, {players:>2} players: {gps:8.1f} games/s "
                f"({mps:,.0f} moves/s, {length:.1f} moves/game, {random_games} games)")
        if players == middle:
            line += goal("games_per_s_middle", gps, "{:.0f} games/s")
        print(line)

    largest = game.max_players
    seed, options, moves, states = long_game(game, largest, REPLAY_MOVES, 20261122)
    median, best = replay_ms(game, options, seed, moves, repeats)
    print(f"replay of a {len(moves)}-move {largest}-player game: {median:.2f} ms median, "
          f"{best:.2f} ms best of {repeats}" + goal("replay_ms", median, "{:.0f} ms", True))

    sizes = state_bytes(game, states) + state_bytes(
        game, largest_table_states(game, 5 if args.quick else 20))
    biggest, middle_size = max(sizes), statistics.median(sizes)
    print(f"serialised {largest}-player state (compact JSON, {len(sizes)} states): max "
          f"{biggest:,} B, median {middle_size:,.0f} B"
          + goal("state_bytes", biggest, "{:,.0f} B", True))

    rate, rates, elapsed = win_rate(game, bot_games)
    detail = ", ".join(f"{options} {r:.1%}" for options, r in rates.items())
    print(f"its bot ({catalog.get_bot(game.id).kind}) vs random bots: {rate:.1%} of {bot_games} "
          f"games ({detail}; {elapsed:.1f} s)" + goal("win_rate", rate, "{:.0%}"))

    if args.profile:
        profile_random_games(game, 100 if args.quick else 500)
    return misses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games, rougher figures")
    parser.add_argument("--game", choices=catalog.ids(), help="one game (default: every game)")
    parser.add_argument("--games", type=int,
                        help="random games and bot games per figure (default: 2000; --quick: "
                             "300 and 400)")
    parser.add_argument("--profile", action="store_true",
                        help="also profile random games at the middle player count")
    args = parser.parse_args()
    print(f"Engine benchmark ({'quick' if args.quick else 'full'}; Python "
          f"{sys.version.split()[0]}; {pin_one_core()})")
    misses = sum(bench_game(catalog.get_game(game_id), args)
                 for game_id in ([args.game] if args.game else catalog.ids()))
    print("\nall goals met" if not misses else f"\n{misses} goal(s) missed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
