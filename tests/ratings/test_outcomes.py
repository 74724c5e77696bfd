"""How each game's end ranks its players (its rules say it: ``Result.ranks``/``teams``), and
that a rating moves the right way for every outcome: over random finished games of every
game and random ratings before them, no winner loses rating to a loser of the same game."""

from __future__ import annotations

import dataclasses
import random

from hypothesis import given
from hypothesis import strategies as st

from games.core.catalog import get_game
from games.core.services.ratings import rated
from games.engine.base import places, standings
from games.ratings import skill

GAMES = [("mascarade", {"players": 4}), ("mascarade", {"players": 7}),
         ("ere_des_masques", {}), ("shadow_house", {"players": 3}),
         ("shadow_house", {"players": 6}), ("shadow_house", {"players": 5, "flash": True})]


def finished(kind: str, options: dict, seed: int):
    """A game of ``kind`` played to its end with random legal moves: its rules, players,
    state and result."""
    engine = get_game(kind)
    options = engine.normalize_options(options)
    state = engine.setup(options, seed)
    rng = random.Random(seed)
    for _ in range(5000):
        result = engine.result(state)
        if result is not None:
            return engine, engine.player_count(options), state, result
        decision = rng.choice(engine.pending(state))
        move = rng.choice(engine.legal_moves(state, decision.player))
        state, _events = engine.apply(state, decision.player, move)
    raise AssertionError(f"{kind}: no end in 5000 moves")


def test_places_put_the_first_ones_first_and_share_ties():
    assert places([3, 5, 5, 1]) == (2, 0, 0, 3)
    # A Cheater (player 3, 10 coins) wins: first, before richer players.
    assert places([12, 11, 11, 10], first=[3]) == (1, 2, 2, 0)


def test_a_cheaters_win_ranks_the_cheater_first():
    engine = get_game("mascarade")
    state = engine.setup(engine.normalize_options({"players": 5}), 3)
    cheater_seat = 2
    state = dataclasses.replace(state, phase="over", winners=[cheater_seat], reason="cheater",
                                coins=[12, 11, 10, 4, 12])
    result = engine.result(state)
    sides = {members[0]: place for members, place in standings(result, 5)}
    cheater = state.at[cheater_seat]
    assert sides[cheater] == 0
    assert all(place > 0 for player, place in sides.items() if player != cheater)
    richest = [state.at[0], state.at[4]]
    assert sides[richest[0]] == sides[richest[1]] == 1


def test_a_flash_investigation_is_two_sides():
    _engine, players, _state, result = finished("shadow_house", {"players": 5, "flash": True},
                                                1)
    sides = standings(result, players)
    assert len(sides) == 2
    winners = next(members for members, place in sides if place == 0)
    assert set(winners) == set(result.winner_players)
    assert sorted(p for members, _ in sides for p in members) == list(range(players))


def test_l_ere_des_masques_without_a_winner_is_a_draw():
    engine = get_game("ere_des_masques")
    state = engine.setup(engine.normalize_options({}), 1)
    state = dataclasses.replace(state, phase="over", winners=[], reason="stalemate")
    assert [place for _members, place in standings(engine.result(state), 2)] == [0, 0]


prior = st.tuples(st.floats(min_value=5, max_value=45), st.floats(min_value=0.5,
                                                                   max_value=skill.SIGMA))


@given(game=st.sampled_from(GAMES), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_winners_never_lose_rating_against_losers_of_the_same_game(game, seed, data):
    kind, options = game
    _engine, players, _state, result = finished(kind, options, seed)
    sides = standings(result, players)
    winners = set(result.winner_players)
    best = min(place for _members, place in sides)
    # The winners, and only they, take the first place (a draw: everyone).
    if winners:
        assert {p for members, place in sides if place == best for p in members} == winners
    # Some players are bots (not rated): the rated sides are what is left, at least two.
    humans = data.draw(st.sets(st.integers(0, players - 1), min_size=2))
    rated_sides = [([p for p in members if p in humans], place) for members, place in sides]
    rated_sides = [(members, place) for members, place in rated_sides if members]
    if len(rated_sides) < 2:
        return
    before = {p: data.draw(prior) for p in humans}
    changes = {c.user_id: c for c in rated(rated_sides, before)}
    assert set(changes) == humans
    gained = {p: change.after[0] - change.before[0] for p, change in changes.items()}
    places_ = sorted(place for _members, place in rated_sides)
    top, bottom = places_[0], places_[-1]
    alone_top = places_.count(top) == 1
    alone_bottom = places_.count(bottom) == 1
    for members, place in rated_sides:
        for p in members:
            assert changes[p].place == 1 + sum(1 for q in places_ if q < place)
            if place == top and alone_top and top != bottom:
                assert gained[p] >= 0, (p, gained)  # the winners' side never loses
            if place == bottom and alone_bottom and top != bottom:
                assert gained[p] <= 0, (p, gained)  # the last side never gains
    if alone_top and alone_bottom and top != bottom:
        first = [p for members, place in rated_sides if place == top for p in members]
        last = [p for members, place in rated_sides if place == bottom for p in members]
        assert all(gained[w] >= gained[loser] for w in first for loser in last)
