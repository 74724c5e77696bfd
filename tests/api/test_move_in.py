"""The body of POST /moves/ (the MoveIn serializer): what it takes, and what it refuses with an
`invalid` error naming the field."""

from __future__ import annotations

import pytest
from django.http import QueryDict
from hypothesis import given, settings
from hypothesis import strategies as st

from games.api import serializers as s
from games.api.views import validated
from games.core.errors import Invalid

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


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(
    allow_nan=False) | st.text(max_size=5), lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)
BODIES = st.dictionaries(st.sampled_from(["move", "expected_seq", "other"]), JSON) | st.builds(
    lambda move, seq: {"move": move, "expected_seq": seq},
    st.dictionaries(st.text(max_size=5), JSON, max_size=3),
    st.none() | st.integers(-5, s.MAX_SEQ + 5) | st.sampled_from([s.MAX_SEQ, s.MAX_SEQ + 1]))


@settings(max_examples=400, deadline=None)
@given(BODIES)
def test_any_body_is_taken_as_sent_or_refused_naming_a_field(data):
    """Whatever the body, the serializer takes its move as it is (and ``expected_seq`` as an
    integer in range, or none), or refuses it with an ``invalid`` error naming a field; nothing
    else comes out."""
    try:
        taken = dict(validated(s.MoveIn, data))
    except Invalid as refused:
        body = refused.as_dict()
        assert body["code"] == "invalid" and body["fields"]
        assert set(body["fields"]) <= {"move", "expected_seq", "non_field_errors"}
        return
    assert taken["move"] == data["move"]
    assert set(taken) <= {"move", "expected_seq"}
    seq = taken.get("expected_seq")
    assert seq is None or (type(seq) is int and 0 <= seq <= s.MAX_SEQ)
