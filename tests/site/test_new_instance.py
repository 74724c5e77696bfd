"""``mascarade_site.prepared.new_instance(model, **values)`` makes what ``model(**values)`` makes
(perf's ``fast_models``), for every model of the site, and leaves to ``__init__`` what it does
not make itself."""

from __future__ import annotations

import datetime as dt

import pytest
from django.apps import apps
from django.db.models.base import DEFERRED
from django.db.models.signals import post_init
from django.test.utils import isolate_apps
from hypothesis import given, settings
from hypothesis import strategies as st

from mascarade_site import prepared

MODELS = sorted((model for model in apps.get_models()
                 if model._meta.app_label in ("accounts", "games", "moderation")),
                key=lambda model: model._meta.label)


def _held(obj) -> dict:
    """What an instance holds: its attributes, and its state's."""
    out = {name: value for name, value in obj.__dict__.items() if name != "_state"}
    out["_state"] = (obj._state.adding, obj._state.db, dict(obj._state.fields_cache))
    return out


def _same(ours, theirs, model) -> None:
    a, b = _held(ours), _held(theirs)
    assert a.keys() == b.keys() and list(a) == list(b)  # the same attributes, in the same order
    for field in model._meta.concrete_fields:
        if field.attname in a and callable(field.default):
            # a default made anew by each call (a UUID, the time): of the same kind
            assert type(a[field.attname]) is type(b[field.attname]), field
            a.pop(field.attname), b.pop(field.attname)
    assert a == b


def _value(field, draw):
    if field.is_relation:
        return draw(st.sampled_from([None, 1, 7]))
    return draw(st.sampled_from([None, 0, 3, "x", "é", True, {"a": [1]},
                                 dt.datetime(2026, 11, 28, tzinfo=dt.UTC)]))


@given(data=st.data())
@settings(max_examples=40, deadline=None)
def test_what_init_makes(data):
    for model in MODELS:
        fields = [f for f in model._meta.concrete_fields if not f.generated]
        chosen = data.draw(st.lists(st.sampled_from(fields), unique=True, max_size=len(fields))
                           if fields else st.just([]))
        values = {field.attname: _value(field, data.draw) for field in chosen}
        _same(prepared.new_instance(model, **values), model(**values), model)


def test_the_models_of_a_move_are_made_directly():
    """(so that the test above compares a path that runs)"""
    from games.models import MoveRecord, Notification, PendingDecision, Snapshot

    for model in (MoveRecord, Notification, PendingDecision, Snapshot):
        assert prepared._new_fields(model), model


def test_what_it_leaves_to_init(settings):
    from games.models import Game, MoveRecord

    game = Game(kind="mascarade")
    # a related instance by its name: __init__ caches it
    record = prepared.new_instance(MoveRecord, game=game, seq=1)
    assert record.game is game and record._state.fields_cache["game"] is game
    # an unknown name: __init__'s error
    with pytest.raises(TypeError, match="unexpected keyword"):
        prepared.new_instance(MoveRecord, nope=1)
    # a deferred value: left unset, as __init__ leaves it
    assert "seq" not in prepared.new_instance(MoveRecord, seq=DEFERRED).__dict__
    # someone listening to post_init: __init__, which sends it
    seen = []

    def listen(sender, instance, **kwargs):
        seen.append(instance)

    post_init.connect(listen, sender=MoveRecord)
    try:
        made = prepared.new_instance(MoveRecord, seq=2)
    finally:
        post_init.disconnect(listen, sender=MoveRecord)
    assert seen == [made]
    # switched off: __init__ always
    settings.PERF_OFF = frozenset({"fast_models"})
    calls = []
    real = MoveRecord.__init__

    def counted(self, *args, **kwargs):
        calls.append(kwargs)
        real(self, *args, **kwargs)

    MoveRecord.__init__ = counted
    try:
        prepared.new_instance(MoveRecord, seq=3)
    finally:
        MoveRecord.__init__ = real
    assert calls == [{"seq": 3}]


@isolate_apps("games")
def test_a_class_after_model_with_an_init_of_its_own_gets_it():
    """``Model.__init__`` ends with ``super().__init__()``: a mixin after ``Model`` in the
    order of classes is called by it, so such a model is made by ``__init__``, new or read."""
    from django.db import models

    class Counts:
        def __init__(self):
            self.counted = True

    class Counted(models.Model, Counts):
        n = models.IntegerField(default=0)

        class Meta:
            app_label = "games"

        def __str__(self) -> str:
            return str(self.n)

    assert prepared._new_fields(Counted) == {}
    assert prepared.new_instance(Counted, n=2).counted is True
    # a prepared read's instances too (from_db calls __init__)
    make = prepared._maker(Counted, "default", [f.attname for f in Counted._meta.concrete_fields])
    read = make([5, 2])
    assert (read.pk, read.n, read.counted, read._state.adding) == (5, 2, True, False)
