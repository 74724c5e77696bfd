"""ORM queries compiled once and run again with new values, for the hottest reads.

Django turns every queryset into SQL anew: on this project's hot paths (the token, the game, its
seats, its pending decisions, read for every API request) that compilation costs more than the
query itself. A :class:`PreparedQuery` is written as an ordinary queryset (a function of the
values it filters on); on PostgreSQL it is compiled once per thread with marker values, and each
run puts the real values where the markers were and builds the model instances as the ORM does
(``from_db``, ``select_related`` populators, annotations, converters). Elsewhere (SQLite, the
development fallback) it simply evaluates the queryset. ``tests/site/test_prepared.py`` checks that
both ways give the same objects.

Model instances only (no ``values()``, no ``prefetch_related``), and scalar values
(``uuid.UUID``, ``int``, ``str``, ``datetime.date``) compared with ``=``/``<``/``>``..., never
``__in`` lists, whose SQL depends on their length. The values must already be of the column's
Python type, except a UUID, also taken as its text; any other value (a malformed id, say) goes
to the plain queryset, which answers as the ORM does.
"""

from __future__ import annotations

import datetime as dt
import itertools
import secrets
import threading
import uuid
from collections.abc import Callable
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import QuerySet
from django.db.models.query import ModelIterable, get_related_populators
from django.db.transaction import TransactionManagementError

_counter = itertools.count(1)


def _marker(kind: type) -> Any:
    """A value of ``kind`` that no real query uses, to find its place among the parameters."""
    n = next(_counter)
    if kind is uuid.UUID:
        return uuid.uuid4()
    if kind is int:
        return -(2**62) + n  # (no id, seq or count is ever this)
    if kind is str:
        return f"\x00prepared-marker-{n}-{secrets.token_hex(8)}"
    if kind is dt.date:
        return dt.date(1, 1, 1) + dt.timedelta(days=n)
    raise TypeError(f"PreparedQuery values may be UUID, int, str or date, not {kind!r}")


class _Compiled:
    """What one thread needs to run the query again: its SQL, the parameters with the places of
    the values, and how rows become objects."""

    def __init__(self, queryset: QuerySet, markers: tuple, db: str):
        if queryset._iterable_class is not ModelIterable:
            raise TypeError("PreparedQuery gives model instances only, not values()")
        if queryset._prefetch_related_lookups or queryset._known_related_objects:
            raise TypeError("PreparedQuery runs one query: no prefetch_related, no related "
                            "manager's queryset")
        compiler = queryset.query.get_compiler(using=db)
        self.sql, params = compiler.as_sql()
        self.params = list(params)
        self.slots: list[list[int]] = []
        for marker in markers:
            found = [i for i, p in enumerate(self.params)
                     if type(p) is type(marker) and p == marker]
            if not found:
                raise ValueError(f"PreparedQuery: a value is not a plain parameter of {self.sql}")
            self.slots.append(found)
        self.for_update = queryset.query.select_for_update
        self.db = db
        select = compiler.select
        fields = [s[0] for s in select[0:compiler.col_count]]
        self.converters = list(compiler.get_converters(fields).items())
        self.klass_info = compiler.klass_info
        self.model = self.klass_info["model"]
        select_fields = self.klass_info["select_fields"]
        self.start, self.end = select_fields[0], select_fields[-1] + 1
        self.init_list = [f[0].target.attname for f in select[self.start:self.end]]
        self.populators = get_related_populators(self.klass_info, select, db)
        self.annotations = list(compiler.annotation_col_map.items())

    def run(self, values: tuple) -> list:
        connection = connections[self.db]
        if self.for_update and connection.get_autocommit():
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction.")
        params = list(self.params)
        for slots, value in zip(self.slots, values, strict=True):
            for slot in slots:
                params[slot] = value
        with connection.cursor() as cursor:
            cursor.execute(self.sql, params)
            rows = cursor.fetchall()
        if self.converters:
            converted = []
            for row in rows:
                row = list(row)
                for pos, (convs, expression) in self.converters:
                    value = row[pos]
                    for converter in convs:
                        value = converter(value, expression, connection)
                    row[pos] = value
                converted.append(row)
            rows = converted
        out = []
        for row in rows:
            obj = self.model.from_db(self.db, self.init_list, row[self.start:self.end])
            for populator in self.populators:
                populator.populate(row, obj)
            for name, pos in self.annotations:
                setattr(obj, name, row[pos])
            out.append(obj)
        return out


class PreparedQuery:
    """``build(*values)`` is a queryset; ``query(*values)`` is its list of results.

    >>> seats = PreparedQuery(lambda game_id: Seat.objects.filter(game_id=game_id), uuid.UUID)
    >>> seats(game.pk)
    """

    def __init__(self, build: Callable[..., QuerySet], *kinds: type,
                 using: str = DEFAULT_DB_ALIAS):
        self.build, self.kinds, self.using = build, kinds, using
        self._local = threading.local()

    def _compiled(self) -> _Compiled:
        compiled = getattr(self._local, "compiled", None)
        if compiled is None:
            markers = tuple(_marker(kind) for kind in self.kinds)
            compiled = _Compiled(self.build(*markers), markers, self.using)
            self._local.compiled = compiled
        return compiled

    def __call__(self, *values: Any) -> list:
        if len(values) != len(self.kinds):
            raise TypeError(f"expected {len(self.kinds)} values, got {len(values)}")
        if connections[self.using].vendor == "postgresql":
            ready = tuple(_as_kind(value, kind) for value, kind in zip(values, self.kinds,
                                                                        strict=True))
            if _UNFIT not in ready:
                return self._compiled().run(ready)
        return list(self.build(*values))


_UNFIT = object()


def _as_kind(value: Any, kind: type) -> Any:
    """``value`` as a parameter of ``kind``, or ``_UNFIT``."""
    if type(value) is kind:
        return value
    if kind is uuid.UUID and isinstance(value, str):
        try:
            return uuid.UUID(value)
        except ValueError:
            return _UNFIT
    return _UNFIT
