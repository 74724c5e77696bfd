"""The values an insert or an update sends (``mascarade_site.prepared._write_params``, perf's
``fast_params``) are those each field's ``pre_save`` (not for an update) and ``get_db_prep_save``
give, value and type alike (psycopg prepares a statement by its parameters' types), for every
field of the site's models and values of the usual types and others."""

from __future__ import annotations

import datetime as dt
import functools
import uuid
import warnings
import zoneinfo
from unittest import mock

from django.apps import apps
from django.db import connection, models
from django.utils import timezone
from django.utils.translation import gettext_lazy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mascarade_site import prepared

NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.UTC)


class Colour(models.TextChoices):
    RED = "red"


class Level(models.IntegerChoices):
    HIGH = 3


VALUES = [
    None, 0, 7, -3, 2**40, True, False, "", "abc", "12", "é", gettext_lazy("Mascarade"),
    Colour.RED, Level.HIGH, 3.0, NOW, NOW.astimezone(zoneinfo.ZoneInfo("Europe/Paris")),
    dt.datetime(2026, 1, 2, 3, 4), dt.date(2026, 1, 2), {"a": [1, "b"]}, [1, 2], "2026-01-02",
    uuid.UUID("12345678-1234-5678-1234-567812345678"), "12345678123456781234567812345678",
]


def _models():
    own = ("accounts", "games", "moderation")
    return [model for model in apps.get_models()
            if model._meta.app_label in own and not model._meta.proxy]


def _outcome(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", call()
        except Exception as error:  # (the same error, or none, both ways)
            return "error", type(error)


def _same(ours, django) -> bool:
    if ours[0] != django[0]:
        return False
    if ours[0] == "error":
        return ours[1] is django[1]
    return [(type(v), _comparable(v)) for v in ours[1]] == [
        (type(v), _comparable(v)) for v in django[1]]


def _by_fields(rows, fields, pre_save: bool = True) -> list:
    return [f.get_db_prep_save(f.pre_save(obj, True) if pre_save else getattr(obj, f.attname),
                               connection)
            for obj in rows for f in fields]


def _first_difference(ours, django, rows, fields):
    if ours[0] != django[0] or ours[0] == "error":
        return ours, django
    names = [f.attname for _obj in rows for f in fields]
    for name, a, b in zip(names, ours[1], django[1], strict=True):
        if (type(a), _comparable(a)) != (type(b), _comparable(b)):
            return name, a, type(a), b, type(b)
    return None


def _comparable(value):
    # psycopg's wrappers (Json, Binary) compare by identity: what they hold instead
    if type(value).__eq__ is object.__eq__:
        slots = [name for klass in type(value).__mro__ for name in getattr(klass, "__slots__", ())]
        return (getattr(value, "__dict__", None),
                tuple(getattr(value, name, None) for name in slots))
    return value


@given(data=st.data())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_each_value_as_its_field_prepares_it(data):
    # (auto_now stamps the same both ways: pre_save reads the clock)
    with mock.patch.object(timezone, "now", lambda: NOW):
        _compare(data)


def _compare(data) -> None:
    for model in _models():
        fields = [f for f in model._meta.concrete_fields if not f.primary_key or
                  not isinstance(f, prepared.AutoFieldMixin)]
        rows = []
        for _ in range(data.draw(st.integers(1, 2))):
            obj = model.__new__(model)
            obj.__dict__["_state"] = type("S", (), {"adding": True, "db": None})()
            for field in fields:
                obj.__dict__[field.attname] = data.draw(st.sampled_from(VALUES))
            rows.append(obj)
        ours = _outcome(functools.partial(prepared._write_params, rows, fields, connection))
        django = _outcome(functools.partial(_by_fields, rows, fields))
        assert _same(ours, django), (model, _first_difference(ours, django, rows, fields))
        # an update's values (update_write): each field's get_db_prep_save, without pre_save
        subset = data.draw(st.lists(st.sampled_from(fields), unique=True, min_size=1,
                                    max_size=len(fields))) if fields else []
        ours = _outcome(functools.partial(prepared._write_params, rows[:1], subset, connection,
                                          pre_save=False))
        django = _outcome(functools.partial(_by_fields, rows[:1], subset, pre_save=False))
        assert _same(ours, django), (model, _first_difference(ours, django, rows[:1], subset))


def test_the_shortcuts_taken():
    """A move's record: on PostgreSQL every field but its JSON takes a shortcut, integers
    wrapped as psycopg's; on SQLite (the development fallback) its keys, text and integers, as
    they are (so the test above compares a path that runs on either)."""
    from games.models import MoveRecord

    fields = [f for f in MoveRecord._meta.concrete_fields if not f.primary_key]
    plan = {attname: (kind, wrap)
            for _f, attname, _plain, kind, wrap in prepared._param_plan(fields, connection)}
    assert plan["payload"] == plan["events"] == (None, None)
    assert plan["by_user_id"] == plan["seat_id"] == (int, None)
    assert plan["actor"] == plan["channel"] == (str, None)
    if connection.vendor == "postgresql":
        from psycopg.types.numeric import Int4

        assert plan["seq"] == (int, Int4)
        assert plan["game_id"] == (uuid.UUID, None)
        assert plan["created_at"] == (dt.datetime, None)
    else:
        assert plan["seq"] == (int, None)
        # (SQLite stores a UUID as its hex and a datetime as text: through their fields)
        assert plan["game_id"] == plan["created_at"] == (None, None)
