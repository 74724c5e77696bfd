"""L'Ère des Masques's projections (§4): the view's shape, who sees which card, events as each
viewer sees them, non-interference (what a viewer cannot know never changes what they are shown)
and no sharing of mutable objects with the state."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import MODERATOR, SPECTATOR
from games.ere_des_masques.rules import GAME as G
from games.ere_des_masques.rules import KINDS, TURN_LIMIT

from .support import do, of_type, random_game, script, stage, start

VIEWERS = [0, 1, SPECTATOR, MODERATOR]
PASS = {"type": "let_pass"}


def play(kind: str) -> dict:
    return {"type": "play", "card": kind}


# Shape ----------------------------------------------------------------------------------------


def test_view_of_a_player_at_the_start():
    s = start(zone0=("brute", "brute"), zone1=("spy", "noble"),
              hand0=("assassin", "noble", "spy", "noble", "brute"))
    v = G.view(s, 0)
    assert v == {
        "phase": "playing", "turn": 1, "turn_limit": TURN_LIMIT, "turn_seat": 0,
        "awaiting": [{"player": 0, "seat": 0, "decision": "turn", "timer": "move_timeout"}],
        "seats": [
            {"seat": 0, "player": 0, "hand_size": 5, "zone": {"brute": 2},
             "zone_cards": ["brute", "brute"], "to_win": {"four_of_a_kind": 2, "five_kinds": 4}},
            {"seat": 1, "player": 1, "hand_size": 5, "zone": {"noble": 1, "spy": 1},
             "zone_cards": ["spy", "noble"], "to_win": {"four_of_a_kind": 3, "five_kinds": 3}},
        ],
        "draw_pile": 26, "discard": [], "discard_size": 0, "played": None, "power": None,
        "recruited": None, "winners": [], "reason": None, "kind": None,
        "you": {"player": 0, "seat": 0, "hand": ["noble", "noble", "spy", "brute", "assassin"],
                "seen": []},
    }
    json.dumps(v)
    spectator = G.view(s, SPECTATOR)
    assert spectator["you"] is None and "moderator" not in spectator
    assert {k: x for k, x in v.items() if k != "you"} == {
        k: x for k, x in spectator.items() if k != "you"}
    mod = G.view(s, MODERATOR)
    assert mod["you"] is None
    assert mod["moderator"] == {
        "hands": [["noble", "noble", "spy", "brute", "assassin"], list(KINDS)],
        "pile": s.pile, "played": None, "recruited": [], "seen": [[], []], "idle": 0, "seq": 0,
    }


def test_junk_viewers_see_what_a_spectator_sees():
    s = start()
    for viewer in (2, -1, True, "0", None, "moderator "):
        assert G.view(s, viewer) == G.view(s, SPECTATOR)


def test_the_face_down_card_is_its_owners_until_revealed():
    s, _ = do(start(), 0, play("spy"))
    hidden = {"seat": 0, "revealed": False, "countered": False, "counter_kind": None,
              "right": None, "card": None}
    assert G.view(s, 1)["played"] == hidden == G.view(s, SPECTATOR)["played"]
    assert G.view(s, 0)["played"] == {**hidden, "card": "spy"}
    assert G.view(s, MODERATOR)["played"]["card"] == "spy"
    assert G.view(s, MODERATOR)["moderator"]["played"] == "spy"
    s, _ = do(s, 1, {"type": "counter", "kind": "brute"})
    shown = {"seat": 0, "revealed": True, "countered": True, "counter_kind": "brute",
             "right": False, "card": "spy"}
    for viewer in VIEWERS:
        assert G.view(s, viewer)["played"] == shown


def test_the_recruited_cards_are_their_owners():
    s = start(pile=("spy", "spy", "brute", "noble", "assassin"))
    s, _ = script(s, play("recruiter"), PASS)
    mine = ["noble", "spy", "spy", "brute", "assassin"]
    assert G.view(s, 0)["recruited"] == mine == G.view(s, MODERATOR)["recruited"]
    assert G.view(s, 1)["recruited"] is None and G.view(s, SPECTATOR)["recruited"] is None
    assert G.view(s, 1)["power"] == {"seat": 0, "kind": "recruiter", "count": 5}
    assert G.view(s, 1)["draw_pile"] == 21


def test_to_win_counts_what_is_missing():
    s = stage(start(), zones=[["spy", "spy", "spy", "noble"], list(KINDS[:4])])
    seats = G.view(s, SPECTATOR)["seats"]
    assert seats[0]["to_win"] == {"four_of_a_kind": 1, "five_kinds": 3}
    assert seats[0]["zone"] == {"noble": 1, "spy": 3}
    assert seats[1]["to_win"] == {"four_of_a_kind": 3, "five_kinds": 1}


def test_the_end_in_the_view():
    s = stage(start(), zones=[["brute"] * 3, []])
    s, _ = script(s, play("brute"), PASS)
    v = G.view(s, 1)
    assert (v["phase"], v["winners"], v["reason"], v["kind"], v["awaiting"]) == (
        "over", [0], "four_of_a_kind", "brute", [])


# Events ---------------------------------------------------------------------------------------


def seen_by(events: list[dict], viewer: Any, s) -> list[dict | None]:
    return [G.view_event(e, viewer, s) for e in events]


def test_private_event_fields():
    s = start(pile=("brute", "spy", "spy", "noble", "assassin", "assassin", "noble"))
    s, events = script(s, play("spy"), PASS, {"type": "draw"})
    play_event, draw_spy, spy, draw_turn = (of_type(events, "play")[0],
                                            *of_type(events, "draw")[:1],
                                            of_type(events, "spy")[0],
                                            of_type(events, "draw")[1])
    assert G.view_event(play_event, 0, s)["card"] == "spy"
    assert "card" not in G.view_event(play_event, 1, s)
    assert "card" not in G.view_event(play_event, SPECTATOR, s)
    assert G.view_event(draw_spy, 0, s)["cards"] == ["brute"]
    assert G.view_event(draw_spy, 1, s) == {"type": "draw", "seat": 0, "turn": 1, "count": 1,
                                            "why": "spy"}
    assert "hand" in G.view_event(spy, 0, s) and "hand" not in G.view_event(spy, 1, s)
    assert G.view_event(spy, SPECTATOR, s) == {"type": "spy", "seat": 0, "turn": 1, "target": 1}
    assert G.view_event(draw_turn, 1, s)["cards"] == ["spy", "spy"]
    assert "cards" not in G.view_event(draw_turn, 0, s)
    for event in events:
        assert G.view_event(event, MODERATOR, s) == event
    s, events = script(s, play("recruiter"), PASS)
    s, more = do(s, 0, {"type": "keep", "card": "assassin"})
    events += more
    for etype, key in (("recruit", "cards"), ("keep", "card")):
        (event,) = of_type(events, etype)
        assert key in G.view_event(event, 0, s)
        for viewer in (1, SPECTATOR):
            assert key not in G.view_event(event, viewer, s)
    for event in of_type(events, "discard"):  # the four the Recruiter let go are public
        for viewer in VIEWERS:
            assert G.view_event(event, viewer, s) == event


def test_public_events_are_shown_whole():
    s = stage(start(), zones=[["brute"] * 3, ["noble"]])
    s, events = script(s, play("brute"), {"type": "counter", "kind": "noble"},
                       {"type": "discard", "card": "assassin"})
    assert [e["type"] for e in events] == ["play", "counter", "reveal", "discard", "place",
                                           "power", "discard", "end"]
    for event in events[1:]:
        for viewer in VIEWERS:
            seen = G.view_event(event, viewer, s)
            assert seen == event and seen is not event


# Non-interference ----------------------------------------------------------------------------

#: Deal positions (top first) of the cards each viewer does not see at the start: the other
#: hand(s), then the pile (from position 14).
HIDDEN = {0: list(range(9, 14)), 1: list(range(4, 9)), SPECTATOR: list(range(4, 14))}


def knowable(s, viewer: Any) -> dict[str, Any]:
    """What ``viewer`` may know of ``s``, from the raw state (not the views): two states that
    agree on it must look the same to them."""
    data = G.to_json(s)
    me = viewer if viewer in (0, 1) else None
    data["pile"] = len(s.pile)
    for seat in (0, 1):
        if seat != me:
            data["hands"][seat] = len(s.hands[seat])
            data["seen"][seat] = None
    if s.played and not s.revealed and s.seat != me:
        data["played"] = "face down"
    if s.recruited and s.power_seat != me:
        data["recruited"] = len(s.recruited)
    return data


def twins(viewer: Any, seed: int, depth: int, first: int, timeout_rate: float,
          order: list[int] | None = None) -> int:
    """Two games whose deals differ only where ``viewer`` cannot see (the other hand and the
    pile below ``depth``, their cards in ``order``, else in a seeded order) get the same moves:
    they must look the same to ``viewer`` — views and viewed events — for as long as their
    states agree on what ``viewer`` may know. Returns how many moves they agreed for."""
    rnd = random.Random(seed)
    cards = [kind for kind in KINDS for _ in range(8)]
    rnd.shuffle(cards)
    positions = HIDDEN[viewer] + list(range(14 + depth, 40))
    if order is None:
        order = rnd.sample(positions, len(positions))
    other = list(cards)
    for i, j in zip(positions, order, strict=True):
        other[i] = cards[j]
    a = G.setup({"deal": cards, "first_seat": first}, seed)
    b = G.setup({"deal": other, "first_seat": first}, seed)
    steps = 0
    while knowable(a, viewer) == knowable(b, viewer):
        assert G.view(a, viewer) == G.view(b, viewer), \
            f"{viewer!r} sees a difference they cannot know after {steps} moves"
        if G.result(a) is not None:
            break
        (p,) = G.pending(a)
        assert G.pending(b) == [p]
        legal = [m for m in G.legal_moves(a, p.player) if m in G.legal_moves(b, p.player)]
        if not legal:
            break
        timeout = G.timeout_move(a, p.player)
        move = timeout if rnd.random() < timeout_rate and timeout in legal else rnd.choice(legal)
        a, events_a = G.apply(a, p.player, move)
        b, events_b = G.apply(b, p.player, move)
        if knowable(a, viewer) == knowable(b, viewer):
            assert seen_by(events_a, viewer, a) == seen_by(events_b, viewer, b), \
                f"move {steps + 1} ({move}) shows {viewer!r} something they cannot know"
        steps += 1
    return steps


@settings(max_examples=150)
@given(viewer=st.sampled_from([0, 1, SPECTATOR]), seed=st.integers(0, 2**32),
       depth=st.integers(0, 26), first=st.integers(0, 1), timeout_rate=st.sampled_from([0, 0.3]),
       data=st.data())
def test_what_a_viewer_cannot_know_changes_nothing_they_see(viewer, seed, depth, first,
                                                             timeout_rate, data):
    positions = HIDDEN[viewer] + list(range(14 + depth, 40))
    twins(viewer, seed, depth, first, timeout_rate, data.draw(st.permutations(positions)))


def test_twins_play_long_enough_to_mean_something():
    steps = [twins(viewer, seed, 20, seed % 2, 0.0) for seed in range(60)
             for viewer in (0, 1, SPECTATOR)]
    assert sum(steps) / len(steps) >= 4, steps


def test_twins_catch_a_leaked_event(monkeypatch):
    monkeypatch.setattr(G, "view_event", lambda event, viewer, state: copy.deepcopy(event))
    with pytest.raises(AssertionError, match="cannot know"):
        for seed in range(60):
            twins(0, seed, 20, seed % 2, 0.0)


def test_twins_catch_a_leaked_view(monkeypatch):
    real = type(G).view

    def view(state, viewer):
        return {**real(G, state, viewer), "leak": len(state.pile) and state.pile[-1]}

    monkeypatch.setattr(G, "view", view)
    with pytest.raises(AssertionError, match="cannot know"):
        for seed in range(60):
            twins(SPECTATOR, seed, 0, seed % 2, 0.0)


def test_non_interference_reaches_deep_into_games():
    """The property above is not vacuous: when the hidden difference lies deep, games agree on
    what a player may know for many moves."""
    total = 0
    for seed in range(20):
        rnd = random.Random(seed)
        cards = [kind for kind in KINDS for _ in range(8)]
        rnd.shuffle(cards)
        other = list(cards)
        # One card of seat 1's hand swapped with another kind near the bottom of the pile.
        j = next(j for j in range(39, 14, -1) if cards[j] != cards[9])
        other[9], other[j] = cards[j], cards[9]
        a = G.setup({"deal": cards, "first_seat": 1}, seed)
        b = G.setup({"deal": other, "first_seat": 1}, seed)
        while knowable(a, 0) == knowable(b, 0) and G.result(a) is None:
            assert G.view(a, 0) == G.view(b, 0)
            (p,) = G.pending(a)
            legal = [m for m in G.legal_moves(a, p.player) if m in G.legal_moves(b, p.player)]
            if not legal:
                break
            move = rnd.choice(legal)
            a, ea = G.apply(a, p.player, move)
            b, eb = G.apply(b, p.player, move)
            if knowable(a, 0) == knowable(b, 0):
                assert seen_by(ea, 0, a) == seen_by(eb, 0, b)
            total += 1
    assert total >= 100, total


# Sharing --------------------------------------------------------------------------------------


def deep_mutate(value: Any) -> None:
    """Change, in place, every list and dict inside ``value`` and ``value`` itself."""
    if isinstance(value, dict):
        for item in list(value.values()):
            deep_mutate(item)
        for key in list(value):
            value[key] = "mutated"
        value["mutated"] = True
    elif isinstance(value, list):
        for item in value:
            deep_mutate(item)
        value[:] = ["mutated", *range(len(value))]


def dump(state) -> str:
    return json.dumps(G.to_json(state), sort_keys=True)


def test_nothing_returned_shares_a_mutable_object_with_the_state():
    moves = 0
    for seed in range(12):
        history: list[dict] = []
        state = None
        for before, _player, move, after, events in random_game({}, seed, seed, 0.2):
            state = after
            kept_before, kept_after = dump(before), dump(after)
            history.extend(copy.deepcopy(events))
            for viewer in VIEWERS:
                deep_mutate(G.view(after, viewer))
                for event in events:
                    given = copy.deepcopy(event)
                    seen = G.view_event(given, viewer, after)
                    deep_mutate(seen)
                    assert given == event, "changing a viewed event changed the event"
            for returned in (G.legal_moves(after, 0), G.legal_moves(after, 1),
                             [p.to_json() for p in G.pending(after)], events, move,
                             G.to_json(after)):
                deep_mutate(returned)
            if G.pending(after):
                (p,) = G.pending(after)
                deep_mutate(G.timeout_move(after, p.player))
            result = G.result(after)
            if result is not None:
                deep_mutate(result.details)
            assert dump(before) == kept_before and dump(after) == kept_after
            moves += 1
        kept = dump(state)
        for event in history:
            for viewer in VIEWERS:
                deep_mutate(G.view_event(copy.deepcopy(event), viewer, state))
        assert dump(state) == kept
    assert moves > 100


def test_the_end_event_and_the_result_do_not_share_the_winners():
    s = stage(start(), zones=[["brute"] * 3, []])
    s, events = script(s, play("brute"), PASS)
    events[-1]["winners"].append(1)
    events[-1]["players"].append(1)
    assert s.winners == [0] and G.result(s).winner_seats == (0,)
