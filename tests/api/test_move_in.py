"""The body of POST /moves/ (the MoveIn serializer): what it takes, and what it refuses with an
`invalid` error naming the field."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from games.api import serializers as s
from games.api.views import validated
from games.errors import Invalid

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
def test_accepted_bodies(data):
    taken = dict(validated(s.MoveIn, data))
    assert taken["move"] == data["move"]
    if data.get("expected_seq") is not None:
        assert taken["expected_seq"] == int(data["expected_seq"])


@pytest.mark.parametrize("data", REFUSED, ids=repr)
def test_refused_bodies_name_the_field(data):
    with pytest.raises(Invalid) as refused:
        validated(s.MoveIn, data)
    body = refused.value.as_dict()
    assert body["code"] == "invalid"
    assert set(body["fields"]) <= {"move", "expected_seq", "non_field_errors"}
    assert body["fields"]


def test_a_form_body():
    form = QueryDict('move={"type": "pass"}&expected_seq=4')
    assert dict(validated(s.MoveIn, form)) == {"move": {"type": "pass"}, "expected_seq": 4}
    with pytest.raises(Invalid):
        validated(s.MoveIn, QueryDict("move=x&expected_seq=4"))  # not JSON
