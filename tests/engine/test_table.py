"""Table moves (games.engine.table): shapes, allowed transitions, public events, replay."""

from __future__ import annotations

import pytest

from games.core.catalog import get_game
from games.engine import (
    MODERATOR,
    SPECTATOR,
    IllegalMove,
    MalformedMove,
    replay,
    replay_records,
    view_event,
)
from games.engine.table import apply_table, fold_table, initial_table, is_table_move, occupant

N = 5


def table(action, **fields):
    return {"type": "table", "action": action, **fields}


def run(*moves):
    state = initial_table()
    for move in moves:
        state, _events = apply_table(state, move, N)
    return state


def test_pause_and_resume_toggle_and_refuse_twice():
    paused = run(table("pause", reason="holidays", by="players"))
    assert paused["paused"] is True and paused["paused_by"] == "players"
    with pytest.raises(IllegalMove) as err:
        apply_table(paused, table("pause"), N)
    assert err.value.code == "already_paused"
    assert run(table("pause"), table("resume"))["paused"] is False
    with pytest.raises(IllegalMove) as err:
        apply_table(initial_table(), table("resume"), N)
    assert err.value.code == "not_paused"


def test_absent_and_back():
    state = run(table("absent", player=3), table("absent", player=1))
    assert state["absent"] == [1, 3]
    assert run(table("absent", player=3), table("back", player=3))["absent"] == []
    with pytest.raises(IllegalMove):
        apply_table(state, table("absent", player=1), N)
    with pytest.raises(IllegalMove):
        apply_table(initial_table(), table("back", player=1), N)


def test_replace_records_the_occupant_and_makes_the_seat_present():
    state = run(table("absent", player=2), table("replace", player=2, occupant="bot:heuristic"))
    assert state["occupants"] == {"2": "bot:heuristic"}
    assert state["absent"] == []
    state = run(table("replace", player=2, occupant=occupant("user", 17)))
    assert state["occupants"] == {"2": "user:17"}
    with pytest.raises(IllegalMove) as err:
        apply_table(state, table("replace", player=2, occupant="user:17"), N)
    assert err.value.code == "same_occupant"


def test_abort_ends_everything():
    state = run(table("pause"), table("abort", reason="cheating"))
    assert state["aborted"] == "cheating" and state["paused"] is False
    for move in (table("resume"), table("pause"), table("absent", player=0),
                 table("abort", reason="again")):
        with pytest.raises(IllegalMove) as err:
            apply_table(state, move, N)
        assert err.value.code == "game_aborted"


@pytest.mark.parametrize(("move", "code"), [
    ({"type": "look"}, "not_a_table_move"),
    ("pause", "not_a_table_move"),
    (table("nap"), "unknown_table_action"),
    (table("absent"), "missing_field"),
    (table("absent", player="1"), "wrong_type"),
    (table("absent", player=True), "wrong_type"),
    (table("absent", player=N), "seat_out_of_range"),
    (table("absent", player=-1), "seat_out_of_range"),
    (table("pause", player=1), "unexpected_field"),
    (table("replace", player=1, occupant="root"), "malformed_occupant"),
    (table("replace", player=1, occupant="user:abc"), "malformed_occupant"),
    (table("replace", player=1, occupant="bot:no such"), "malformed_occupant"),
    (table("extend", seconds=0), "bad_extension"),
    (table("extend", seconds=31 * 86_400), "bad_extension"),
    (table("abort", reason="  "), "missing_reason"),
    (table("pause", reason="x" * 501), "too_long"),
])
def test_malformed_table_moves_are_refused_with_a_code_and_a_sentence(move, code):
    with pytest.raises(MalformedMove) as err:
        apply_table(initial_table(), move, N)
    assert err.value.code == code
    assert err.value.message.endswith(".")


def test_the_table_state_is_not_changed_in_place():
    state = initial_table()
    apply_table(state, table("absent", player=1), N)
    assert state == initial_table()


def test_table_events_are_public_and_carry_the_action():
    _state, events = apply_table(initial_table(), table("absent", player=4, reason="3 timeouts"),
                                 N)
    assert events == [{"type": "table", "action": "absent", "player": 4, "reason": "3 timeouts"}]
    engine = get_game("mascarade")
    state = engine.setup(engine.normalize_options({"players": N}), 1)
    for viewer in (0, 4, SPECTATOR, MODERATOR):
        assert view_event(engine, events[0], viewer, state) == events[0]


def test_fold_skips_rules_moves():
    moves = [{"type": "look"}, table("pause"), {"type": "exchange"}, table("resume"),
             table("absent", player=0)]
    assert fold_table(moves, N) == {"paused": False, "paused_by": None, "aborted": None,
                                    "absent": [0], "occupants": {}}
    assert is_table_move(moves[1]) and not is_table_move(moves[0])


def test_replay_records_interleaves_table_moves_without_touching_the_rules_state():
    engine = get_game("mascarade")
    options = engine.normalize_options({"players": N})
    state = engine.setup(options, 42)
    moves = []
    for _ in range(12):
        player = engine.pending(state)[0].player
        move = engine.legal_moves(state, player)[0]
        moves.append((player, move))
        state, _ = engine.apply(state, player, move)
    plain, _ = replay(engine, options, 42, moves)
    mixed = [(None, table("pause")), *moves[:6], (2, table("absent", player=2)),
             (None, table("resume")), *moves[6:], (2, table("replace", player=2,
                                                                 occupant="bot:random"))]
    state, table_state, events = replay_records(engine, options, 42, mixed)
    assert engine.to_json(state) == engine.to_json(plain)
    assert table_state == {"paused": False, "paused_by": None, "aborted": None, "absent": [],
                           "occupants": {"2": "bot:random"}}
    assert len(events) == len(mixed)
    assert events[0] == [{"type": "table", "action": "pause"}]
