"""OpenSpiel-style random simulation of every registered game, through the protocol only.

For each game of the catalog (:mod:`games.core.catalog`) and a few player counts, random games are
played to their end (a pending player, one of their legal moves, again) and generic invariants are
checked at every step: somebody is pending until the game ends and every pending player has legal
moves; ``apply`` accepts every legal move (all of them, at a sample of steps) and never changes its
input; the timeout move is legal; nobody else may move; views and viewed events are JSON for every
viewer; the state survives a JSON round trip; replaying the moves from the seed gives the same
states and events; the game ends (within :data:`MOVE_CAP` moves) with a result, and then accepts no
more moves.

The protocol has no "example options": a game may expose ``example_options(players)``; otherwise
:data:`EXAMPLE_OPTIONS` below must name minimal options for it (a new game fails here until it
does).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from games.core import catalog
from games.engine import (
    MODERATOR,
    SPECTATOR,
    Game,
    GameOver,
    InvalidOptions,
    NotYourDecision,
    Pending,
    Result,
    replay,
)
from games.engine.base import standings
from tests.plugin import thorough

#: Every registered game's rules, by id.
GAMES = {kit.id: kit.rules for kit in catalog.kits()}
MOVE_CAP = 5000
#: Random games per case: 25 in CI's profile (``thorough``), the first 8 of them by default.
GAMES_PER_CASE = 25 if thorough() else 8
#: At this share of the steps, every legal move of the chosen player is applied (on copies).
EXHAUSTIVE_SHARE = 0.1

#: Minimal options per game id, for games that do not expose ``example_options(players)``.
EXAMPLE_OPTIONS: dict[str, Callable[[int], dict[str, Any]]] = {
    "mascarade": lambda players: {"players": players},
}


def example_options(game: Game, players: int) -> dict[str, Any]:
    make = getattr(game, "example_options", None) or EXAMPLE_OPTIONS.get(game.id)
    if make is None:
        pytest.fail(f"Game {game.id!r} has no example options: give it example_options(players) "
                    f"or add it to EXAMPLE_OPTIONS in {__name__}.")
    return make(players)


def player_counts(game: Game) -> list[int]:
    return sorted({game.min_players, (game.min_players + game.max_players) // 2,
                   game.max_players})


CASES = [pytest.param(game_id, players, id=f"{game_id}-{players}")
         for game_id, game in sorted(GAMES.items()) for players in player_counts(game)]


def dump(game: Game, state: Any) -> str:
    return json.dumps(game.to_json(state), sort_keys=True)


def check_views(game: Game, state: Any, events: list[dict[str, Any]], players: int) -> None:
    for viewer in [*range(players), SPECTATOR, MODERATOR]:
        view = game.view(state, viewer)
        assert isinstance(view, dict)
        json.dumps(view)
        for event in events:
            seen = game.view_event(event, viewer, state)
            assert seen is None or (isinstance(seen, dict) and "type" in seen)
            json.dumps(seen)


def simulate(game: Game, options: dict[str, Any], seed: int, rnd: random.Random) -> int:
    players = game.player_count(options)
    state = game.setup(options, seed)
    assert dump(game, game.setup(options, seed)) == dump(game, state), "set-up not deterministic"
    states = [dump(game, state)]
    moves: list[tuple[int, dict[str, Any]]] = []
    history: list[list[dict[str, Any]]] = []
    check_views(game, state, [], players)
    where = f"{game.id} options={options} seed={seed}"
    while game.result(state) is None:
        assert len(moves) < MOVE_CAP, f"{where}: no end after {MOVE_CAP} moves: {moves}"
        pending = game.pending(state)
        assert pending, f"{where}: nobody is pending in a game that is not over"
        assert all(isinstance(p, Pending) for p in pending)
        json.dumps([p.to_json() for p in pending])
        waiting = {p.player for p in pending}
        assert waiting <= set(range(players))
        for player in range(players):
            legal = game.legal_moves(state, player)
            if player not in waiting:
                assert legal == [], f"{where}: player {player} is not pending but has moves"
                continue
            assert legal, f"{where}: pending player {player} has no legal move"
            json.dumps(legal)
            assert all(isinstance(m, dict) and "type" in m for m in legal)
            assert game.timeout_move(state, player) in legal
        player = rnd.choice(sorted(waiting))
        legal = game.legal_moves(state, player)
        idle = [p for p in range(players) if p not in waiting]
        if idle:
            with pytest.raises(NotYourDecision):
                game.apply(state, rnd.choice(idle), legal[0])
        before = dump(game, state)
        if rnd.random() < EXHAUSTIVE_SHARE:
            for move in legal:
                _new, events = game.apply(state, player, move)
                json.dumps(events)
            assert dump(game, state) == before, f"{where}: apply changed its input"
        move = rnd.choice(legal)
        state, events = game.apply(state, player, move)
        assert dump(game, game.from_json(json.loads(before))) == before
        assert isinstance(events, list) and all("type" in e for e in events)
        json.dumps(events)
        moves.append((player, move))
        history.append(events)
        states.append(dump(game, state))
        assert dump(game, game.from_json(json.loads(states[-1]))) == states[-1], \
            f"{where}: JSON round trip differs after {moves}"
        check_views(game, state, events, players)
    result = game.result(state)
    assert isinstance(result, Result) and result.winner_players
    assert set(result.winner_players) <= set(range(players))
    # How every player finished (the ratings'): a place and a side each, the winners alone
    # in the first place.
    assert len(result.ranks) in (0, players) and len(result.teams) in (0, players)
    sides = standings(result, players)
    assert sorted(p for members, _place in sides for p in members) == list(range(players))
    first = min(place for _members, place in sides)
    assert {p for members, place in sides if place == first for p in members} == set(
        result.winner_players), f"{where}: the winners are not alone in the first place"
    assert game.pending(state) == []
    assert all(game.legal_moves(state, p) == [] for p in range(players))
    with pytest.raises(GameOver):
        game.apply(state, moves[-1][0], moves[-1][1])
    final, replayed = replay(game, options, seed, moves)
    assert dump(game, final) == states[-1] and replayed == history, f"{where}: replay differs"
    return len(moves)


def test_every_game_follows_the_protocol():
    assert GAMES, "no game is registered"
    for game_id, game in GAMES.items():
        assert isinstance(game, Game) and game.id == game_id
        assert 1 <= game.min_players <= game.max_players


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_random_simulation(game_id, players):
    game = GAMES[game_id]
    options = game.normalize_options(example_options(game, players))
    assert game.normalize_options(options) == options, "normalizing is not idempotent"
    assert game.player_count(options) == players
    rnd = random.Random(f"{game_id}:{players}")
    lengths = [simulate(game, options, rnd.randrange(2**62), rnd) for _ in range(GAMES_PER_CASE)]
    assert len(lengths) == GAMES_PER_CASE and min(lengths) > 0


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_player_counts_out_of_range_are_refused(game_id):
    game = GAMES[game_id]
    for players in (game.min_players - 1, game.max_players + 1):
        with pytest.raises(InvalidOptions):
            game.normalize_options(example_options(game, players))
