"""The body of POST /moves/: move_in (games/api/views.py) gives what the MoveIn serializer
gives, and refuses what it refuses with the same errors."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from games.api import serializers as s
from games.api.errors import Invalid
from games.api.views import move_in, validated

MOVE = {"type": "exchange", "target": 3, "swap": True}

ACCEPTED = [
    {"move": MOVE},
    {"move": MOVE, "expected_seq": 0},
    {"move": MOVE, "expected_seq": 12},
    {"move": MOVE, "expected_seq": s.MAX_SEQ},
    {"move": MOVE, "expected_seq": None},
    {"move": MOVE, "expected_seq": "12"},  # (the serializer's way: a numeric string)
    {"move": MOVE, "expected_seq": 12.0},
    {"move": MOVE, "other": "ignored"},
    {"move": "not an object", "expected_seq": 3},  # (the engine refuses it, not the body)
    {"move": [1, 2]},
    {"move": 0},
    {"move": False},
]

REFUSED = [
    {},
    {"expected_seq": 3},
    {"move": None},
    {"move": MOVE, "expected_seq": -1},
    {"move": MOVE, "expected_seq": s.MAX_SEQ + 1},
    {"move": MOVE, "expected_seq": True},
    {"move": MOVE, "expected_seq": "x"},
    {"move": MOVE, "expected_seq": 1.5},
    {"move": MOVE, "expected_seq": [1]},
    [MOVE],
    "move",
]


@pytest.mark.parametrize("data", ACCEPTED, ids=repr)
def test_accepted_bodies_read_as_the_serializer_reads_them(data):
    assert move_in(data) == dict(validated(s.MoveIn, data))


@pytest.mark.parametrize("data", REFUSED, ids=repr)
def test_refused_bodies_get_the_serializers_errors(data):
    with pytest.raises(Invalid) as ours:
        move_in(data)
    with pytest.raises(Invalid) as theirs:
        validated(s.MoveIn, data)
    assert ours.value.body() == theirs.value.body()


def test_a_form_body_goes_through_the_serializer():
    form = QueryDict('move={"type": "pass"}&expected_seq=4')
    assert move_in(form) == dict(validated(s.MoveIn, form)) == {
        "move": {"type": "pass"}, "expected_seq": 4}
    with pytest.raises(Invalid):
        move_in(QueryDict("move=x&expected_seq=4"))  # not JSON
