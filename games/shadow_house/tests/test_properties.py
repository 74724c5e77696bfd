"""Property tests of Shadow House Mascarade: one hypothesis example plays one whole random game of
3 to 8 players (the profile of ``tests/plugin.py``), and junk from clients anywhere.

After every move of a random game (a random awaited player; a legal move, or the §6 timeout move
at some rate):

- the 36 cards of the box are all somewhere (hands, pile, in front of players, discards); hands
  are in §1 order; the Culprit is in a hand while the round goes on;
- decisions are awaited until the end, all of one kind; each awaited player has legal moves and
  the timeout move is one of them; nobody else has any;
- the state survives ``to_json``/``from_json`` (also through JSON text); applying the same move
  to the rebuilt state gives the same state and events; ``apply`` leaves its input untouched;
- every event has ``type``, ``seat`` and ``round``; [SH-16] in revision 2 a card is played
  between two turns that start in one move; views and viewed events are JSON for every
  viewer; a player's and the spectator's show no other hand, no pile, no other choice and no
  private event field of somebody else;
- points follow §4: in case 3 only the culprit side scores, 2 each; in cases 1, 2, 4 the culprit
  side scores nothing; totals only grow;
- the game ends: at 5 points or more, the highest totals winning (flash: after one round, the
  culprit side or everyone else); ``end`` is the last event; replaying the moves from the seed
  gives the same states and events.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections import Counter
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from games.engine import MODERATOR, SPECTATOR, EngineError, GameOver, InvalidOptions, replay
from games.shadow_house.rules import BOX_COUNTS, CARDS, MOVE_FIELDS, OPTION_KEYS
from games.shadow_house.rules import GAME as G
from games.shadow_house.rules.cards import BOX
from games.shadow_house.rules.views import PRIVATE
from tests.engine.junk import MAX_MESSAGE, junk_values

from .support import everything, random_game


@st.composite
def options(draw) -> dict[str, Any]:
    n = draw(st.integers(3, 8))
    out: dict[str, Any] = {"players": n}
    if draw(st.integers(0, 3)) == 0:
        out["flash"] = True
    if draw(st.integers(0, 3)) == 0:
        out["first_seat"] = draw(st.sampled_from([*range(n), None]))
    if draw(st.integers(0, 3)) == 0:
        out["deal"] = draw(st.lists(st.permutations(BOX), min_size=1, max_size=3))
    # The latest revision mostly; the first (also as stored before revisions: no option) too.
    revision = draw(st.sampled_from([2, 2, 1, None]))
    if revision is not None:
        out["revision"] = revision
    return out


def dump(state: Any) -> dict[str, Any]:
    return G.to_json(state)


def check_views(state: Any, events: list[dict[str, Any]]) -> None:
    truth = dump(state)
    n = state.n
    for viewer in [*range(n), SPECTATOR, MODERATOR]:
        view = G.view(state, viewer)
        text = json.dumps(view)
        me = viewer if isinstance(viewer, int) else None
        if viewer != MODERATOR:
            assert "moderator" not in view and str(truth["rng"]) not in text
            assert [s["hand_size"] for s in view["seats"]] == [len(h) for h in truth["hands"]]
        if me is not None:
            you = view["you"]
            assert you["hand"] == truth["hands"][me]
            assert you["choice"] == (truth["choices"][me] or None)
            assert you["pool"] is None
            if you["witnessed"] is not None:
                assert state.effect == "witness" and state.seat == me
        for event in events:
            seen = G.view_event(event, viewer, state)
            json.dumps(seen)
            if viewer == MODERATOR:
                assert seen == event
                continue
            private = PRIVATE.get(event["type"])
            if private is None:
                assert seen == event
                continue
            field, others = private
            allowed = {event["seat"], *(event[k] for k in others)}
            if me not in allowed and not (event["type"] == "draw" and event["card"] is None):
                assert field not in seen, f"{viewer!r} sees {field} of {event}"
            else:
                assert seen == event


def check_points(before: Any, after: Any, events: list[dict[str, Any]]) -> None:
    ends = [e for e in events if e["type"] == "round_end"]
    assert len(ends) <= 1
    if not ends:
        assert after.points == before.points and after.round == before.round
        return
    (end,) = ends
    side = {end["culprit"], *end["accomplices"]}
    gained = end["gained"]
    if after.flash:
        assert gained == [0] * after.n
    elif end["case"] == 3:
        assert all(g == (2 if t in side else 0) for t, g in enumerate(gained))
        assert end["by"] is None
    else:
        assert all(gained[t] == 0 for t in side)
        assert all(g in (1, 2, 3) for t, g in enumerate(gained) if t not in side)
        if end["case"] in (1, 2):
            assert end["by"] is not None
    assert end["points"] == [b + g for b, g in zip(before.points, gained, strict=True)]
    assert after.rounds[-1] == {k: end[k] for k in ("round", "case", "culprit", "accomplices",
                                                    "by", "gained", "points")}


def check_step(before: Any, player: int, move: dict[str, Any], after: Any,
               events: list[dict[str, Any]], kept: dict[str, Any]) -> None:
    assert dump(before) == kept, "apply changed its input"
    data = dump(after)
    assert dump(G.from_json(data)) == data
    assert dump(G.from_json(json.loads(json.dumps(data)))) == data
    again, again_events = G.apply(G.from_json(json.loads(json.dumps(kept))), player, move)
    assert dump(again) == data and again_events == events, "apply is not deterministic"
    assert Counter(everything(after)) == Counter(BOX_COUNTS)
    for hand in after.hands:
        assert hand == sorted(hand, key=CARDS.index)
    assert all({"type", "seat", "round"} <= set(e) for e in events)
    json.dumps(events)
    if after.revision >= 2:  # [SH-16] a turn passes once: a card is played before the next
        turns = [e["type"] for e in events if e["type"] in ("turn", "play", "round_start")]
        assert ("turn", "turn") not in set(itertools.pairwise(turns))
    check_points(before, after, events)
    result = G.result(after)
    if result is None:
        assert sum("culprit" in h for h in after.hands) == 1
        pending = G.pending(after)
        assert pending and len({p.decision for p in pending}) == 1
        waiting = {p.player for p in pending}
        for p in range(after.n):
            legal = G.legal_moves(after, p)
            if p in waiting:
                assert legal and G.timeout_move(after, p) in legal
            else:
                assert legal == []
    else:
        end = events[-1]
        assert end["type"] == "end" and [e for e in events if e["type"] == "end"] == [end]
        assert end["winners"] == list(result.winner_seats) == list(result.winner_players)
        assert G.pending(after) == [] and all(G.legal_moves(after, p) == []
                                              for p in range(after.n))
        last = after.rounds[-1]
        assert result.details == {"points": after.points, "case": last["case"]}
        if after.flash:
            assert result.reason == "flash" and len(after.rounds) == 1
            side = sorted({last["culprit"], *last["accomplices"]})
            expected = side if last["case"] == 3 else [t for t in range(after.n)
                                                       if t not in side]
            assert list(result.winner_seats) == expected
        else:
            best = max(after.points)
            assert result.reason == "points" and best >= 5
            assert list(result.winner_seats) == [t for t in range(after.n)
                                                 if after.points[t] == best]
            assert all(max(r["points"]) < 5 for r in after.rounds[:-1])
    check_views(after, events)


def play_game(opts: dict[str, Any], seed: int, play_seed: int, timeout_rate: float) -> int:
    moves: list[tuple[int, dict[str, Any]]] = []
    states: list[dict[str, Any]] = []
    history: list[list[dict[str, Any]]] = []
    final = None
    for before, player, move, after, events in random_game(opts, seed, play_seed, timeout_rate):
        kept = dump(before)
        check_step(before, player, move, after, events, kept)
        moves.append((player, move))
        states.append(dump(after))
        history.append(events)
        final = after
    assert final is not None and G.result(final) is not None
    try:
        G.apply(final, 0, {"type": "witness_pass"})
    except GameOver:
        pass
    else:  # pragma: no cover
        raise AssertionError("a move was accepted after the end")
    end, replayed = replay(G, opts, seed, moves)
    assert dump(end) == states[-1] and replayed == history, "replay differs"
    return len(moves)


@given(opts=options(), seed=st.integers(-(2**63), 2**63), play_seed=st.integers(0, 2**32),
       timeout_rate=st.sampled_from([0.0, 0.0, 0.1, 0.5, 1.0]))
def test_random_games_keep_every_invariant(opts, seed, play_seed, timeout_rate):
    assert play_game(opts, seed, play_seed, timeout_rate) > 0


def test_every_player_count_plays_to_the_end_and_every_card_is_met():
    played: Counter[str] = Counter()
    decisions: Counter[str] = Counter()
    cases: Counter[int] = Counter()
    for n in range(3, 9):
        for seed in range(6):
            for _before, _player, _move, after, events in random_game({"players": n}, seed,
                                                                     seed):
                played.update(e["card"] for e in events if e["type"] == "play")
                decisions.update(p.decision for p in G.pending(after))
                cases.update(e["case"] for e in events if e["type"] == "round_end")
    assert set(played) == set(CARDS), played
    assert set(decisions) == {"turn", "discard", "give", "contribute", "witness", "say"}
    assert set(cases) == {1, 2, 3, 4}, cases


def test_same_seed_same_game():
    for n in (3, 8):
        a = [dump(x[3]) for x in random_game({"players": n}, 77, 5)]
        b = [dump(x[3]) for x in random_game({"players": n}, 77, 5)]
        c = [dump(x[3]) for x in random_game({"players": n}, 78, 5)]
        assert a == b and a != c


def test_timeouts_alone_end_the_game():
    for n in range(3, 9):
        moves = list(random_game({"players": n}, n, n, timeout_rate=1.0))
        assert G.result(moves[-1][3]) is not None


# Junk from clients ------------------------------------------------------------------------------

WORDS = [*CARDS, *MOVE_FIELDS, *OPTION_KEYS, "bot", "wait", "", " ", "culprit\x00", "Culprit",
         "\ud800", "type", "card", "target", "text"]
values = junk_values(WORDS, [-1, 0, 1, 2, 8], CARDS, 34, 37)


@functools.cache
def states() -> list[Any]:
    """States of random games awaiting every kind of decision, and some over."""
    by_decision: dict[str, list[Any]] = {}
    for seed in range(40):
        for _before, _player, _move, after, _events in random_game(
                {"players": 3 + seed % 6}, seed, seed, 0.1):
            group = by_decision.setdefault(after.decision, [])
            if len(group) < 4:
                group.append(after)
    assert set(by_decision) == {"turn", "discard", "give", "contribute", "witness", "say",
                                "over"}
    return [s for group in by_decision.values() for s in group]


def short(error: EngineError) -> None:
    assert error.code and error.message and len(error.message) < MAX_MESSAGE


def apply_or_refuse(state: Any, player: Any, move: Any) -> None:
    try:
        G.apply(state, player, move)
    except EngineError as error:
        short(error)


@given(data=st.data(), mtype=st.sampled_from(sorted(MOVE_FIELDS)), value=values,
       name=st.one_of(st.sampled_from(["type", "card", "target", "text", "x"]),
                      st.text(max_size=8)))
def test_any_value_in_any_field_of_any_move(data, mtype, value, name):
    state = data.draw(st.sampled_from(states()))
    move: dict[Any, Any] = {"type": mtype, **dict.fromkeys(MOVE_FIELDS[mtype], "culprit")}
    if "target" in move:
        move["target"] = 1
    if "text" in move:
        move["text"] = ""
    move[name] = value
    player = data.draw(st.one_of(st.sampled_from(range(8)), values))
    apply_or_refuse(state, player, move)


@given(data=st.data(), move=values)
def test_any_value_as_a_move(data, move):
    state = data.draw(st.sampled_from(states()))
    apply_or_refuse(state, data.draw(st.sampled_from(range(8))), move)


@given(data=st.data(), player=values)
def test_any_value_as_the_player(data, player):
    state = data.draw(st.sampled_from(states()))
    legal = G.legal_moves(state, player)
    assert isinstance(legal, list)
    try:
        move = G.timeout_move(state, player)
    except EngineError as error:
        short(error)
    else:
        assert move in legal
    for p in G.pending(state):
        apply_or_refuse(state, player, G.timeout_move(state, p.player))
    for viewer in (player,):
        json.dumps(G.view(state, viewer))


@given(key=st.one_of(st.sampled_from(OPTION_KEYS), st.sampled_from(WORDS), st.text(max_size=8)),
       value=values)
def test_any_value_in_any_option(key, value):
    try:
        G.normalize_options({key: value})
        G.player_count({key: value})
    except InvalidOptions as error:
        short(error)


@given(opts=values)
def test_any_value_as_the_options(opts):
    try:
        G.normalize_options(opts)
    except InvalidOptions as error:
        short(error)
