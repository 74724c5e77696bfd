"""What the engine returns shares no mutable object with the state, nor with what it was given.

The site stores events, serialises views and edits them (it adds deadlines, names, ``seq``): a list
shared with the state would change the stored state behind the engine's back. Over seeded random
games, every event ``apply`` returns, every view and every ``view_event`` projection (for every
player, the spectator and the moderator, of this move's events and, at the end, of the whole
history) is changed in depth; the state's JSON form and the event given to ``view_event`` must not
change.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from games.engine import MODERATOR, SPECTATOR
from games.mascarade.rules import MASCARADE as M

from .helpers import EXPLORE_OPTIONS, announce, at_turn

#: The explore option sets, and one with the Puppeteer and log_masks off.
OPTIONS = [*EXPLORE_OPTIONS, {"players": 7, "scenario": "B", "log_masks": False}]
MOVE_CAP = 200


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


def dump(state: Any) -> str:
    return json.dumps(M.to_json(state), sort_keys=True)


def check_view_event(event: dict[str, Any], viewer: Any, state: Any) -> None:
    given = copy.deepcopy(event)
    seen = M.view_event(given, viewer, state)
    if seen is not None:
        deep_mutate(seen)
    assert given == event, f"changing view_event's answer for {viewer!r} changed its input"


def play(options: dict[str, Any], seed: int) -> int:
    rnd = random.Random(seed)
    state = M.setup(options, seed)
    viewers = [*range(state.n), SPECTATOR, MODERATOR]
    history: list[dict[str, Any]] = []
    moves = 0
    while state.phase != "over" and moves < MOVE_CAP:
        before = dump(state)
        p = rnd.choice(M.pending(state))
        legal = M.legal_moves(state, p.player)
        move = copy.deepcopy(rnd.choice(legal))
        timeout = M.timeout_move(state, p.player)
        new, events = M.apply(state, p.player, move)
        after = dump(new)
        history.extend(copy.deepcopy(events))
        for viewer in viewers:
            deep_mutate(M.view(new, viewer))
            for event in events:
                check_view_event(event, viewer, new)
        for returned in (events, legal, timeout, move):
            deep_mutate(returned)
        result = M.result(new)
        if result is not None:
            deep_mutate(result.details)
        assert dump(state) == before, f"changing what move {moves + 1} returned changed the state"
        assert dump(new) == after, f"changing what move {moves + 1} returned changed the new state"
        state = new
        moves += 1
    for event in history:
        for viewer in viewers:
            check_view_event(event, viewer, state)
    assert dump(state) == after, "changing the history's projections changed the state"
    return moves


@pytest.mark.parametrize("options", OPTIONS,
                         ids=lambda o: f"{o['players']}p{o.get('scenario', 'A')}")
def test_nothing_returned_shares_a_mutable_object_with_the_state(options):
    assert sum(play(options, seed) for seed in range(4)) > 0


def test_the_end_event_winners_are_not_the_states_list():
    s = at_turn(["judge", "king", "empress", "thief", "cheater", "sorceress"], 1, players=6)
    s.coins = [6, 11, 6, 6, 6, 6]
    s, events = announce(s, "king")
    end = events[-1]
    assert (end["type"], end["winners"], s.winners) == ("end", [1], [1])
    end["winners"].append(4)
    assert s.winners == [1]
