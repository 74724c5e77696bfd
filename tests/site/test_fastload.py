"""Instances read through FastLoad.from_db (mascarade_site/fastload.py) are those Django's own
from_db makes; deferred fields, init signals and unfit models take Django's way."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import models
from django.db.models.signals import post_init, pre_init
from django.test.utils import isolate_apps

from mascarade_site.fastload import FastLoad, _fit
from tests.api.factories import UserFactory
from tests.api.helpers import play_service_moves, start_game

pytestmark = pytest.mark.django_db


def _everything(obj) -> dict:
    """All an instance holds: its attributes in order, its state's attributes."""
    out = {k: v for k, v in obj.__dict__.items() if k != "_state"}
    out["__order__"] = [k for k in obj.__dict__ if k != "_state"]
    out["__state__"] = dict(vars(obj._state))
    out["__type__"] = type(obj)
    return out


def _djangos(model, db, names, values):
    return models.Model.from_db.__func__(model, db, names, values)


FAST = [m for m in apps.get_models() if issubclass(m, FastLoad)]


def test_the_hot_models_load_fast():
    assert {m.__name__ for m in FAST} >= {"Game", "Seat", "MoveRecord", "Snapshot",
                                          "PendingDecision", "Notification", "User"}
    assert all(_fit(m) for m in FAST)


@pytest.fixture
def played():
    users = [UserFactory() for _ in range(4)]
    game = start_game(users[0], users[1:])
    play_service_moves(game, 3, dict(enumerate(users)))
    return game


@pytest.mark.parametrize("model", FAST, ids=lambda m: m.__name__)
def test_each_row_gives_what_djangos_from_db_gives(played, model):
    names = [f.attname for f in model._meta.concrete_fields]
    rows = list(model.objects.values_list(*names))
    assert rows, f"no {model.__name__} row to compare"
    for row in rows:
        ours = model.from_db("default", names, row)
        theirs = _djangos(model, "default", names, row)
        assert _everything(ours) == _everything(theirs)
        assert ours._state.adding is False and ours._state.db == "default"
        assert ours == theirs and ours.pk is not None
    # And through the ORM, related objects included: the same as a Django-built one.
    loaded = model.objects.order_by("pk").first()
    row = model.objects.filter(pk=loaded.pk).values_list(*names).get()
    assert _everything(loaded) == _everything(_djangos(model, "default", names, row))


def test_select_related_builds_related_instances_the_same(played):
    from games.models import Seat

    seat = Seat.objects.select_related("user", "game").filter(user__isnull=False).first()
    assert type(seat.user).__name__ == "User" and seat.user._state.adding is False
    assert seat._state.fields_cache["user"].pk == seat.user_id
    assert seat.game.pk == seat.game_id
    fresh = Seat.objects.get(pk=seat.pk)
    assert fresh.user == seat.user  # a lazy load on a fast instance works


def test_deferred_fields_and_init_signals_take_djangos_way(played):
    from games.models import Game

    game = Game.objects.only("id", "status").get(pk=played.pk)
    assert game.get_deferred_fields() >= {"options", "seed"}
    assert game.seed == played.seed  # loaded on access, as Django does

    seen = []

    def pre(sender, **kwargs):
        seen.append(("pre", sender))

    def post(sender, instance, **kwargs):
        seen.append(("post", sender))

    pre_init.connect(pre, sender=Game)
    post_init.connect(post, sender=Game)
    try:
        Game.objects.get(pk=played.pk)
    finally:
        pre_init.disconnect(pre, sender=Game)
        post_init.disconnect(post, sender=Game)
    assert seen == [("pre", Game), ("post", Game)]


@isolate_apps("games")
def test_a_model_with_its_own_init_or_setter_is_unfit():
    class OwnInit(FastLoad, models.Model):  # noqa: DJ008
        n = models.IntegerField()

        class Meta:
            app_label = "games"
            managed = False

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.extra = 1

    class Setter:
        def __init__(self, field):
            self.field = field

        def __get__(self, instance, owner):
            return self if instance is None else instance.__dict__.get(self.field.attname)

        def __set__(self, instance, value):
            instance.__dict__[self.field.attname] = value * 2

    class Doubling(models.IntegerField):
        descriptor_class = Setter

    class OwnSetter(FastLoad, models.Model):  # noqa: DJ008
        n = Doubling()

        class Meta:
            app_label = "games"
            managed = False

    assert _fit(OwnInit) is None and _fit(OwnSetter) is None
    assert OwnInit.from_db("default", ["id", "n"], (1, 2)).extra == 1
    assert OwnSetter.from_db("default", ["id", "n"], (1, 2)).n == 4  # Django's way: __set__
