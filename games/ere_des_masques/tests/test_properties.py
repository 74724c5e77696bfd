"""Property tests of L'Ère des Masques: one hypothesis example plays one whole random game (the
profile of ``tests/plugin.py``), and junk from clients anywhere.

After every move of a random game (legal moves, and the §5 timeout move at some rate):

- the 40 cards are all somewhere, 8 of each kind; hands are in §1 order;
- exactly one decision is pending until the end; its player has legal moves, the timeout move is
  one of them, the other player has none;
- the state survives ``to_json``/``from_json`` (also through JSON text); applying the same move to
  the rebuilt state gives the same state and events; ``apply`` leaves its input untouched;
- every event has ``type``, ``seat`` and ``turn``; views and viewed events are JSON for every
  viewer; the players' and the spectator's show no hidden card (no other hand, no pile, no face-
  down card of the other player, no Recruiter draw of the other player, no private event field);
- [E3] no zone wins while the game goes on (in revision 1, but the turn player's while the power
  of the card they just placed waits for its decision; [E3b] never in revision 2); a game won
  ends in the move that placed the winning card in the winner's zone or (revision 1) resolved
  its power, with ``end`` as the last event;
- [E5] in revision 2 no decision awaited has a single option everyone can know (a response from
  an empty hand, a Recruiter's keep among one card, an Assassin's choice in a zone of one kind),
  and each event of a decision taken at once says ``forced``;
- the game ends (with the turn limit far away); replaying its moves from the seed gives the same
  states and events.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from games.engine import MODERATOR, SPECTATOR, EngineError, GameOver, InvalidOptions, replay
from games.ere_des_masques.rules import GAME as G
from games.ere_des_masques.rules import KINDS, MOVE_FIELDS, OPTION_KEYS, TURN_LIMIT
from games.ere_des_masques.rules.cards import victory
from tests.engine.junk import MAX_MESSAGE, junk_values

from .support import everything, random_game

#: Event fields only the seat they are about may see.
PRIVATE = {"play": "card", "draw": "cards", "spy": "hand", "recruit": "cards", "keep": "card"}


@st.composite
def options(draw) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if draw(st.booleans()):
        out["players"] = 2
    if draw(st.integers(0, 3)) == 0:
        out["first_seat"] = draw(st.sampled_from([0, 1, None]))
    if draw(st.integers(0, 3)) == 0:
        out["deal"] = draw(st.permutations([kind for kind in KINDS for _ in range(8)]))
    # The latest revision mostly; the first (also as stored before revisions: no option) too.
    revision = draw(st.sampled_from([2, 2, 1, None]))
    if revision is not None:
        out["revision"] = revision
    return out


def dump(state: Any) -> dict[str, Any]:
    return G.to_json(state)


def check_views(state: Any, events: list[dict[str, Any]]) -> None:
    truth = dump(state)
    for viewer in (0, 1, SPECTATOR, MODERATOR):
        view = G.view(state, viewer)
        json.dumps(view)
        me = viewer if viewer in (0, 1) else None
        if viewer != MODERATOR:
            assert "moderator" not in view and "pile" not in view
            text = json.dumps(view)
            assert str(truth["rng"]) not in text
            played = view["played"]
            if played is not None and not played["revealed"] and played["seat"] != me:
                assert played["card"] is None, f"{viewer!r} sees the face-down card"
            if view["recruited"] is not None:
                assert me == state.power_seat
        if me is not None:
            assert view["you"]["hand"] == truth["hands"][me]
            assert [[e["seq"], e["hand"]] for e in view["you"]["seen"]] == truth["seen"][me]
        for event in events:
            seen = G.view_event(event, viewer, state)
            json.dumps(seen)
            key = PRIVATE.get(event["type"])
            if viewer == MODERATOR:
                assert seen == event
            elif key is not None and me != event["seat"]:
                assert key not in seen, f"{viewer!r} sees {key} of {event}"


def check_step(before: Any, player: int, move: dict[str, Any], after: Any,
               events: list[dict[str, Any]], kept: dict[str, Any]) -> None:
    assert dump(before) == kept, "apply changed its input"
    data = dump(after)
    assert dump(G.from_json(data)) == data
    assert dump(G.from_json(json.loads(json.dumps(data)))) == data
    again, again_events = G.apply(G.from_json(json.loads(json.dumps(kept))), player, move)
    assert dump(again) == data and again_events == events, "apply is not deterministic"
    assert Counter(everything(after)) == Counter(dict.fromkeys(KINDS, 8))
    for hand in after.hands:
        assert hand == sorted(hand, key=KINDS.index)
    assert events and all({"type", "seat", "turn"} <= set(e) for e in events)
    forced = [e for e in events if "forced" in e]
    assert all(e["forced"] is True for e in forced)
    if after.revision == 1:
        assert not forced
    else:  # [E5] only the three decisions taken at once
        assert {(e["type"], e.get("why")) for e in forced} <= {
            ("let_pass", None), ("keep", None), ("discard", "assassin")}
    json.dumps(events)
    result = G.result(after)
    if result is None:
        # A zone may win only while the power of the card just placed waits for its decision
        # (E3: the check comes once the power is resolved), in revision 1 only (E3b).
        waiting = after.phase in ("keep", "assassinate") and after.revision == 1
        for seat, zone in enumerate(after.zones):
            assert victory(zone) is None or (waiting and seat == after.seat), \
                "an undeclared victory"
        (p,) = G.pending(after)
        legal = G.legal_moves(after, p.player)
        assert legal and G.timeout_move(after, p.player) in legal
        assert G.legal_moves(after, 1 - p.player) == []
        if after.revision >= 2:  # [E5] nothing obvious is awaited
            assert not (after.phase == "respond" and not after.hands[p.player])
            assert not (after.phase == "keep" and len(after.recruited) == 1)
            assert not (after.phase == "assassinate"
                        and len(set(after.zones[1 - p.player])) == 1)
    else:
        end = events[-1]
        assert end["type"] == "end" and [e for e in events if e["type"] == "end"] == [end]
        assert end["winners"] == list(result.winner_seats) == list(result.winner_players)
        assert G.pending(after) == [] and G.legal_moves(after, 0) == G.legal_moves(after, 1) == []
        if result.winner_seats:
            (winner,) = result.winner_seats
            assert victory(after.zones[winner])[0] == result.reason
            assert any(e["type"] == "place" and e["seat"] == winner for e in events) or (
                before.phase in ("keep", "assassinate") and before.seat == winner), \
                "a zone won without gaining a card in that move"
        else:
            assert result.reason in ("stalemate", "turn_limit")
    check_views(after, events)


def play_game(opts: dict[str, Any], seed: int, play_seed: int, timeout_rate: float) -> int:
    moves: list[tuple[int, dict[str, Any]]] = []
    states: list[dict[str, Any]] = []
    history: list[list[dict[str, Any]]] = []
    final = None
    for before, player, move, after, events in random_game(opts, seed, play_seed, timeout_rate,
                                                           cap=4 * TURN_LIMIT):
        kept = dump(before)
        check_step(before, player, move, after, events, kept)
        moves.append((player, move))
        states.append(dump(after))
        history.append(events)
        final = after
    assert final is not None and G.result(final) is not None
    assert final.turn < TURN_LIMIT, "a random game reached the turn limit"
    try:
        G.apply(final, 0, {"type": "draw"})
    except GameOver:
        pass
    else:  # pragma: no cover
        raise AssertionError("a move was accepted after the end")
    end, replayed = replay(G, opts, seed, moves)
    assert dump(end) == states[-1] and replayed == history, "replay differs"
    return len(moves)


@given(opts=options(), seed=st.integers(-(2**63), 2**63), play_seed=st.integers(0, 2**32),
       timeout_rate=st.sampled_from([0.0, 0.0, 0.1, 0.5, 0.9]))
def test_random_games_keep_every_invariant(opts, seed, play_seed, timeout_rate):
    assert play_game(opts, seed, play_seed, timeout_rate) > 0


# Junk from clients ------------------------------------------------------------------------------

WORDS = [*KINDS, *MOVE_FIELDS, *OPTION_KEYS, "bot", "wait", "", " ", "noble\x00", "Noble",
         "\ud800", "type", "card", "kind"]
values = junk_values(WORDS, [-1, 0, 1, 2, 3], KINDS, 38, 42)


@functools.cache
def states() -> list[Any]:
    """States of random games in every phase, and one over."""
    by_phase: dict[str, list[Any]] = {}
    for seed in range(40):
        for _before, _player, _move, after, _events in random_game({}, seed, seed, 0.1):
            group = by_phase.setdefault(after.phase, [])
            if len(group) < 4:
                group.append(after)
    assert set(by_phase) == {"turn", "respond", "discard", "keep", "assassinate", "over"}
    return [s for group in by_phase.values() for s in group]


def short(error: EngineError) -> None:
    assert error.code and error.message and len(error.message) < MAX_MESSAGE


def apply_or_refuse(state: Any, player: Any, move: Any) -> None:
    try:
        G.apply(state, player, move)
    except EngineError as error:
        short(error)


@given(data=st.data(), mtype=st.sampled_from(sorted(MOVE_FIELDS)), value=values,
       name=st.one_of(st.sampled_from(["type", "card", "kind", "x"]), st.text(max_size=8)))
def test_any_value_in_any_field_of_any_move(data, mtype, value, name):
    state = data.draw(st.sampled_from(states()))
    move: dict[Any, Any] = {"type": mtype, **dict.fromkeys(MOVE_FIELDS[mtype], "noble")}
    move[name] = value
    player = data.draw(st.one_of(st.sampled_from([0, 1]), values))
    apply_or_refuse(state, player, move)


@given(data=st.data(), move=values)
def test_any_value_as_a_move(data, move):
    state = data.draw(st.sampled_from(states()))
    apply_or_refuse(state, data.draw(st.sampled_from([0, 1])), move)


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
