"""ORM queries compiled once and run again with new values, for the hottest reads and writes.

Django turns every queryset into SQL anew: on this project's hot paths (the token, the game, its
seats, its pending decisions, read for every API request) that compilation costs more than the
query itself. A :class:`PreparedQuery` is written as an ordinary queryset (a function of the
values it filters on); on PostgreSQL it is compiled once per thread with marker values, and each
run puts the real values where the markers were and builds the model instances as the ORM does
(``from_db``, ``select_related`` populators, annotations, converters; an instance is made by
setting its fields where that is all ``from_db`` would do: :func:`_maker`). Elsewhere (SQLite, the
development fallback) it simply evaluates the queryset. ``tests/site/test_prepared.py`` checks that
both ways give the same objects. :func:`read_together` sends several of them as one statement
(a game's seats and its pending decisions, read for every move and every read of a game).

Model instances only (no ``values()``, no ``prefetch_related``), and scalar values
(``uuid.UUID``, ``int``, ``str``, ``datetime.date``) compared with ``=``/``<``/``>``..., never
``__in`` lists, whose SQL depends on their length. The values must already be of the column's
Python type, except a UUID, also taken as its text; any other value (a malformed id, say) goes
to the plain queryset, which answers as the ORM does.

The hottest writes (the rows a move appends, updates and deletes) have the same treatment:
:func:`insert_rows`, :func:`update_row` and :func:`delete_rows` build their SQL once per shape
and prepare each value through its field, as the ORM does (or take it as it is where that is what
its field would give back: :func:`_write_params`), on PostgreSQL and SQLite alike; each
one's docstring says what it skips of the ORM's way. :func:`write_together` sends several such
writes (built by :func:`insert_write`, :func:`update_write`, :func:`delete_write`) as one
statement on PostgreSQL: a move's writes are one statement, not one each.

Each can be switched off (``PERF_OFF=prepared`` / ``read_together`` / ``writes``,
:mod:`mascarade_site.perf`):
``bench/api_cpu.py`` shows what they buy. The reads rely on what Django's SQL compiler exposes to
its own ``QuerySet`` (``as_sql``, ``klass_info``, ``get_converters``, the related populators and
their attributes): not a documented API, pinned by ``tests/site/test_prepared.py``, which
compares every result with the ORM's.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import operator
import secrets
import threading
import uuid
from collections.abc import Callable
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.models import (
    BooleanField,
    CharField,
    DateTimeField,
    Field,
    ForeignKey,
    IntegerField,
    JSONField,
    Model,
    QuerySet,
    TextField,
    UUIDField,
)
from django.db.models.base import DEFERRED, ModelState
from django.db.models.fields import AutoFieldMixin
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query import ModelIterable, get_related_populators
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init
from django.db.transaction import TransactionManagementError

from mascarade_site import perf

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


def execute(connection: Any, sql: str, params: list, fetch: bool = False
            ) -> tuple[list | None, int]:
    """Run one statement through a Django cursor: its rows (all of them, if ``fetch``) and its
    row count."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        # (the rows from psycopg's own cursor, its errors made Django's as the wrapper's
        # ``fetchall`` makes them: the wrapper builds that ``fetchall`` anew at each use)
        raw = cursor.cursor
        if fetch:
            with connection.wrap_database_errors:
                return raw.fetchall(), raw.rowcount
        return None, raw.rowcount


_PLAIN_DESCRIPTORS = (DeferredAttribute, ForeignKeyDeferredAttribute)


def _maker(model: type, db: str, init_list: list[str]) -> Callable[[Any], Any]:
    """How a row's values (in ``init_list``'s order) become an instance of ``model``, as
    ``model.from_db(db, init_list, values)`` makes it.

    ``from_db`` calls the model's ``__init__``, which sets each field through its descriptor and
    sends ``pre_init`` and ``post_init``: about 3 µs an instance, and a move reads some fifteen
    (its token and user, the game, its snapshot and creator, the seats and their users, the
    pending decisions). Where that amounts to setting the instance's attributes, the instance
    is made directly, in a third of the time: every field selected, in the model's order;
    ``from_db`` not overridden and ``__init__`` plain (:func:`_plain_init`); nobody listening to
    ``pre_init`` or ``post_init`` (looked at on each call). ``PERF_OFF=fast_models`` (read on
    each call) gives ``from_db`` always."""
    def by_django(values):
        return model.from_db(db, init_list, values)

    concrete = [f.attname for f in model._meta.concrete_fields]
    if (getattr(model.from_db, "__func__", None) is not Model.from_db.__func__
            or init_list != concrete or not _plain_init(model, concrete)):
        return by_django
    names = tuple(concrete)
    new = model.__new__

    def make(values):
        if pre_init.receivers or post_init.receivers or not perf.on("fast_models"):
            return by_django(values)
        obj = new(model)
        state = ModelState()
        state.adding = False
        state.db = db
        attributes = obj.__dict__
        attributes["_state"] = state
        attributes.update(zip(names, values, strict=True))
        return obj

    return make


def new_instance(model: type, **values: Any) -> Any:
    """``model(**values)``: a new instance, as ``__init__`` makes it from keyword arguments that
    each name a field by its ``attname`` (``game_id``, not ``game``), the other fields given
    their defaults; made directly where that is what ``__init__`` does (the conditions of
    :func:`_maker`'s, and every argument a field's ``attname``, none ``DEFERRED``), by
    ``__init__`` otherwise. A move makes four (its record, its snapshot, a decision, a message):
    ``__init__`` walks every field through several dictionary look-ups and sends two signals.
    ``PERF_OFF=fast_models`` (read on each call) gives ``__init__`` always."""
    fields = _NEW_FIELDS.get(model)
    if fields is None:
        fields = _NEW_FIELDS[model] = _new_fields(model)
    if (not fields or pre_init.receivers or post_init.receivers or not perf.on("fast_models")
            or not values.keys() <= fields.keys()
            or any(value is DEFERRED for value in values.values())):
        return model(**values)
    obj = model.__new__(model)
    attributes = obj.__dict__
    attributes["_state"] = ModelState()
    for attname, field in fields.items():
        attributes[attname] = values[attname] if attname in values else field.get_default()
    return obj


#: For each model: the fields ``__init__`` sets from keyword arguments, by ``attname``, in its
#: order; empty where :func:`new_instance` leaves the making to ``__init__``.
_NEW_FIELDS: dict[type, dict[str, Any]] = {}


def _new_fields(model: type) -> dict[str, Any]:
    opts = model._meta
    fields = {field.attname: field for field in opts.fields
              if field.column is not None and not field.generated}
    return fields if not opts.abstract and _plain_init(model, fields) else {}


def _plain_init(model: type, names: Any) -> bool:
    """Whether ``Model.__init__`` makes an instance of ``model`` by setting its fields
    ``names``: neither the model nor a class before ``Model`` in its order overrides it, no
    class after ``Model`` has an ``__init__`` of its own (``Model.__init__`` ends with
    ``super().__init__()``), and each field's descriptor is Django's plain one or the foreign
    key's (which also forgets a cached related object, that a new instance does not have)."""
    after_model = model.__mro__[model.__mro__.index(Model) + 1:]
    return (model.__init__ is Model.__init__
            and not any("__init__" in vars(klass) for klass in after_model
                        if klass is not object)
            and all(type(_static(model, name)) in _PLAIN_DESCRIPTORS for name in names))


def _static(model: type, name: str) -> Any:
    """The class attribute ``name`` of ``model`` (or of a parent), without calling its
    descriptor."""
    for klass in model.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


class _Related:
    """One ``select_related`` model of a compiled query: Django's populator (its columns, its
    setters), whose instances are made by :func:`_maker`."""

    def __init__(self, populator: Any):
        self.populator = populator
        self.make = _maker(populator.model_cls, populator.db, populator.init_list)
        self.related = [_Related(p) for p in populator.related_populators]

    def populate(self, row: Any, from_obj: Any) -> None:
        """As Django's ``RelatedPopulator.populate``."""
        p = self.populator
        data = p.reorder_for_init(row) if p.reorder_for_init else row[p.cols_start:p.cols_end]
        if data[p.pk_idx] is None:
            obj = None
        else:
            obj = self.make(data)
            for related in self.related:
                related.populate(row, obj)
        p.local_setter(from_obj, obj)
        if obj is not None:
            p.remote_setter(obj, from_obj)


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
        self.populators = [_Related(p)
                           for p in get_related_populators(self.klass_info, select, db)]
        self.make = _maker(self.model, db, self.init_list)
        self.annotations = list(compiler.annotation_col_map.items())
        self.width = len(select)  # (the annotations' columns among them)
        self.order = _python_order(queryset)

    def bound(self, values: tuple) -> list:
        """The parameters with ``values`` in their places."""
        params = list(self.params)
        for slots, value in zip(self.slots, values, strict=True):
            for slot in slots:
                params[slot] = value
        return params

    def run(self, values: tuple, connection: Any) -> list:
        """The query with ``values``, on ``connection`` (``connections[self.db]``)."""
        if self.for_update and connection.get_autocommit():
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction.")
        rows, _ = execute(connection, self.sql, self.bound(values), fetch=True)
        return self.objects(rows, connection)

    def objects(self, rows: list, connection: Any) -> list:
        """The model instances of these rows (as this query's SQL gives them), read on
        ``connection`` (``connections[self.db]``, which the caller has in hand: each look-up
        through Django's connection handler costs some µs)."""
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
            obj = self.make(row[self.start:self.end])
            for populator in self.populators:
                populator.populate(row, obj)
            for name, pos in self.annotations:
                setattr(obj, name, row[pos])
            out.append(obj)
        return out


def _python_order(queryset: QuerySet) -> list[tuple[str, bool]] | None:
    """The queryset's order as ``(attname, descending)`` pairs, to sort its objects again in
    Python (:func:`read_together`, whose one statement keeps no part's order); ``[]`` for none,
    ``None`` for an order that is not of plain fields, or of text (which ``read_together`` does
    not take)."""
    query = queryset.query
    names = list(query.order_by) or (list(query.get_meta().ordering)
                                     if query.default_ordering else [])
    out = []
    for name in names:
        if not isinstance(name, str) or name == "?":
            return None
        descending = name.startswith("-")
        try:
            field = query.get_meta().get_field(name.lstrip("-"))
        except FieldDoesNotExist:  # (a relation's field, "field__other": not plain)
            return None
        if not getattr(field, "concrete", False) or (
                field.is_relation and name.lstrip("-") != field.attname):
            return None  # (by a relation's name, Django orders by the related model's order)
        if isinstance(field, (CharField, TextField, JSONField)):
            return None  # (text: PostgreSQL's collation, not Python's order of code points)
        out.append((field.attname, descending))
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
        connection = connections[self.using]
        if connection.vendor == "postgresql" and perf.on("prepared"):
            ready = tuple(_as_kind(value, kind) for value, kind in zip(values, self.kinds,
                                                                        strict=True))
            if _UNFIT not in ready:
                return self._compiled().run(ready, connection)
        return list(self.build(*values))


_UNFIT = object()


def read_together(*calls: tuple[PreparedQuery, tuple]) -> list[list]:
    """Several prepared reads, each ``(query, values)``, in one statement on PostgreSQL (one
    round trip instead of one each): their lists of results, as each ``query(*values)`` gives
    them.

    The statement joins the queries' own SQL side by side, ``FULL JOIN … ON FALSE``: each row
    of the answer is one query's row, its columns and a marker in their place, NULLs in the
    other queries' places (so no column changes type, and each query's converters and
    populators take its slice of the row as they take its own rows). Such a join keeps no
    part's order: each part is sorted again in Python by its ``order_by`` (or its model's
    ordering), which must be of plain fields other than text. All the parts run on one
    snapshot. Elsewhere (SQLite, ``PERF_OFF=prepared`` or ``read_together``, a value that does
    not fit, a part with ``select_for_update``, whose lock must come before the others'
    snapshot: see :func:`lock_together`), one after the other."""
    together = _together(calls, locking=False) if calls else None
    return together if together is not None else [query(*values) for query, values in calls]


def lock_together(lock: tuple[PreparedQuery, tuple],
                  *calls: tuple[PreparedQuery, tuple]) -> list[list]:
    """:func:`read_together` of ``lock``, a query that locks its rows (``select_for_update``),
    and of ``calls``: the lock taken and the others read in one statement on PostgreSQL.

    The others read that statement's snapshot, taken before the lock was granted: what a
    transaction that held the lock committed while this one waited for it (or in the instant
    between the snapshot and the lock) is not in them, while the locked rows are read again
    once the lock is granted, as they are then. **The caller checks** that no such transaction
    changed what the others read, and reads them again if one did: the locked rows carry what
    the snapshot saw of them (``open_table`` in ``games/core/services/write.py`` compares the game's
    ``version`` it locked with the one its snapshot saw, and every transaction that changes a
    game's seats or pending decisions under its lock bumps its version). Elsewhere (as for
    :func:`read_together`, or ``PERF_OFF=lock_together``), the lock first, then the others
    (:func:`read_together`) once it is granted."""
    together = (_together((lock, *calls), locking=True) if perf.on("lock_together")
                else None)
    if together is not None:
        return together
    query, values = lock
    locked = query(*values)
    # (nothing locked, nothing else read: as the caller's lock would have stopped it)
    return [locked, *(read_together(*calls) if locked else [[] for _call in calls])]


def _together(calls: tuple[tuple[PreparedQuery, tuple], ...], *, locking: bool
              ) -> list[list] | None:
    """The one statement of :func:`read_together` (``locking``: of :func:`lock_together`, its
    first part locking), or ``None`` where the parts must run one after the other."""
    connection = connections[calls[0][0].using]
    if (len(calls) < 2 or connection.vendor != "postgresql" or not perf.on("prepared")
            or not perf.on("read_together")
            or any(query.using != calls[0][0].using for query, _values in calls)):
        return None
    ready = []
    for query, values in calls:
        if len(values) != len(query.kinds):
            raise TypeError(f"expected {len(query.kinds)} values, got {len(values)}")
        fit = tuple(_as_kind(value, kind) for value, kind in zip(values, query.kinds,
                                                                  strict=True))
        if _UNFIT in fit:
            return None
        ready.append(fit)
    compiled = [query._compiled() for query, _values in calls]
    if (any(part.order is None for part in compiled)
            or any(part.for_update for part in compiled[1 if locking else 0:])
            or (locking and not compiled[0].for_update)):
        return None
    if locking and connection.get_autocommit():
        raise TransactionManagementError(
            "select_for_update cannot be used outside of a transaction.")
    sql = _together_sql(compiled)
    params = [param for part, values in zip(compiled, ready, strict=True)
              for param in part.bound(values)]
    rows, _ = execute(connection, sql, params, fetch=True)
    out = []
    start = 0
    for part in compiled:
        # (a part's marker, then its columns; the marker is NULL in the other parts' rows)
        mine = [row[start + 1:start + 1 + part.width] for row in rows if row[start] is not None]
        objects = part.objects(mine, connection)
        # (NULLs last, and first when descending, as PostgreSQL sorts)
        for attname, descending in reversed(part.order):
            objects.sort(key=lambda obj, name=attname: _nulls_last(getattr(obj, name)),
                         reverse=descending)
        out.append(objects)
        start += 1 + part.width
    return out


def _nulls_last(value: Any) -> tuple[bool, Any]:
    return value is None, value


_TOGETHER_SQL: dict[tuple[str, ...], str] = {}


def _together_sql(parts: list[_Compiled]) -> str:
    """The one statement of :func:`read_together` for these compiled parts (kept by their
    SQL)."""
    key = tuple(part.sql for part in parts)
    sql = _TOGETHER_SQL.get(key)
    if sql is None:
        joined = [f'(SELECT 1 AS "_p{n}", "_q".* FROM ({part.sql}) "_q") "_r{n}"'  # noqa: S608
                  for n, part in enumerate(parts)]
        sql = "SELECT * FROM " + " FULL JOIN ".join(  # noqa: S608 (compiled SQL, no values)
            joined[:1] + [f"{part} ON FALSE" for part in joined[1:]])
        if len(_TOGETHER_SQL) < _WRITE_SQL_MAX:
            _TOGETHER_SQL[key] = sql
    return sql


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


# --------------------------------------------------------------------------------------------
# The hottest writes, without the ORM's per-call compilation. The SQL is made of the models'
# quoted table and column names and of placeholders only: every value is a parameter.

_WRITE_SQL: dict[tuple, str] = {}
#: Shapes kept (a few per hot write; a rare batch of another size is built and not kept).
_WRITE_SQL_MAX = 256


def _write_sql(key: tuple, build: Callable[[], str]) -> str:
    sql = _WRITE_SQL.get(key)
    if sql is None:
        sql = build()
        if len(_WRITE_SQL) < _WRITE_SQL_MAX:
            _WRITE_SQL[key] = sql
    return sql


@dataclasses.dataclass
class Write:
    """One write built and not yet sent (by :func:`insert_write`, :func:`update_write`,
    :func:`delete_write`): its statement and parameters, whether it returns the keys of the rows
    it inserts, and what its answer becomes (``done(rows, rowcount)``); with
    ``PERF_OFF=writes``, ``orm`` does it the ORM's way instead."""

    sql: str = ""
    params: list = dataclasses.field(default_factory=list)
    returning: bool = False
    done: Callable[[list | None, int], Any] = lambda rows, count: count
    orm: Callable[[], Any] | None = None

    def run(self, using: str = DEFAULT_DB_ALIAS) -> Any:
        if self.orm is not None:
            return self.orm()
        rows, count = execute(connections[using], self.sql, self.params, fetch=self.returning)
        return self.done(rows, count)


def write_together(writes: list[Write | None], using: str = DEFAULT_DB_ALIAS) -> None:
    """Send these writes (``None`` ones skipped) in one statement on PostgreSQL: each a
    data-modifying ``WITH`` part of the one statement, which returns the keys of the rows the
    inserts made (one round trip, one statement instead of one each). Elsewhere (SQLite, or
    ``PERF_OFF=writes``), one after the other.

    PostgreSQL runs the parts of one statement on one snapshot, in no set order: none of them
    sees what another wrote. So: no two writes of the same row, and no insert whose row would
    collide on a unique constraint with a row another part deletes (send that delete first, on
    its own); a foreign key to a row another part inserts is checked at the statement's end,
    and holds. The answers (row counts, ``update_row``'s result) are not given back; the
    inserted objects get their keys, as with :func:`insert_rows`."""
    writes = [write for write in writes if write is not None]
    connection = connections[using]
    if (len(writes) < 2 or connection.vendor != "postgresql"
            or any(write.orm is not None for write in writes)):
        for write in writes:
            write.run(using)
        return
    returning = [n for n, write in enumerate(writes) if write.returning]
    if returning:
        parts, main = writes, " UNION ALL ".join(
            f'SELECT {n}, * FROM "w{n}"' for n in returning)  # noqa: S608 (no values)
    else:
        parts, main = writes[:-1], writes[-1].sql
    sql = ("WITH " + ", ".join(f'"w{n}" AS ({write.sql})' for n, write in enumerate(parts))
           + " " + main)
    params = [param for write in writes for param in write.params]
    rows, _ = execute(connection, sql, params, fetch=bool(returning))
    by_write: dict[int, list] = {n: [] for n in returning}
    for n, *row in rows or ():
        by_write[n].append(tuple(row))
    for n, write in enumerate(writes):
        write.done(by_write.get(n), -1)


def update_row(obj: Any, fields: list[str], using: str = DEFAULT_DB_ALIAS) -> int:
    """``UPDATE`` the given fields of one saved instance, found by its primary key; returns the
    number of rows changed (0 if it is gone).

    What it writes is what ``obj.save(update_fields=fields)`` writes, each value through its
    field's ``get_db_prep_save``. What it skips of ``save()``: the ``pre_save`` and ``post_save``
    signals, each field's ``pre_save`` (so an ``auto_now`` field keeps the value the object
    holds: set it yourself), the check that the row exists and the ``INSERT`` that ``save()``
    would fall back to, and multi-table inheritance. For this project's own models, which have
    no save signals and no parents. With ``PERF_OFF=writes``: the ORM's ``QuerySet.update()``
    (which skips the same)."""
    return update_write(obj, fields, using).run(using)


def update_write(obj: Any, fields: list[str], using: str = DEFAULT_DB_ALIAS) -> Write:
    """:func:`update_row`'s write, not yet sent (see :func:`write_together`)."""
    if not perf.on("writes"):
        pks = type(obj)._default_manager.using(using).filter(pk=obj.pk)
        return Write(orm=lambda: pks.update(**{
            name: getattr(obj, type(obj)._meta.get_field(name).attname) for name in fields}))
    connection = connections[using]
    opts = type(obj)._meta
    targets = [opts.get_field(name) for name in fields]
    qn = connection.ops.quote_name

    def build() -> str:
        assignments = ", ".join(f"{qn(field.column)} = %s" for field in targets)
        return (f"UPDATE {qn(opts.db_table)} SET {assignments} "  # noqa: S608 (quoted names)
                f"WHERE {qn(opts.pk.column)} = %s")

    sql = _write_sql(("update", using, opts.label, tuple(fields)), build)
    if perf.on("fast_params"):
        params = _write_params([obj], targets, connection, pre_save=False)
    else:
        params = [field.get_db_prep_save(getattr(obj, field.attname), connection)
                  for field in targets]
    params.append(opts.pk.get_db_prep_value(obj.pk, connection))
    return Write(sql, params)


def delete_rows(model: Any, pks: list[Any], using: str = DEFAULT_DB_ALIAS) -> int:
    """``DELETE`` the rows of ``model`` with these primary keys in one statement; returns how
    many went.

    What it skips of ``QuerySet.delete()``: the collection of related rows (cascades,
    ``PROTECT``, ``SET_NULL``) and the ``pre_delete`` / ``post_delete`` signals. So it refuses
    (``TypeError``) a model that other rows refer to or that has delete signals: for those, the
    ORM. With ``PERF_OFF=writes``: ``QuerySet.delete()``."""
    write = delete_write(model, pks, using)
    return 0 if write is None else write.run(using)


def delete_write(model: Any, pks: list[Any], using: str = DEFAULT_DB_ALIAS) -> Write | None:
    """:func:`delete_rows`'s write, not yet sent (see :func:`write_together`); ``None`` for no
    rows."""
    if not pks:
        return None
    opts = model._meta
    if opts.related_objects:
        raise TypeError(f"delete_rows: {opts.label} has rows referring to it; use the ORM")
    from django.db.models import signals

    if signals.pre_delete.has_listeners(model) or signals.post_delete.has_listeners(model):
        raise TypeError(f"delete_rows: {opts.label} has delete signals; use the ORM")
    if not perf.on("writes"):
        return Write(orm=lambda: model._default_manager.using(using).filter(pk__in=pks)
                     .delete()[0])
    connection = connections[using]
    qn = connection.ops.quote_name
    sql = _write_sql(("delete", using, opts.label, len(pks)), lambda: (
        f"DELETE FROM {qn(opts.db_table)} WHERE {qn(opts.pk.column)} IN "  # noqa: S608
        f"({', '.join(['%s'] * len(pks))})"))
    return Write(sql, [opts.pk.get_db_prep_value(pk, connection) for pk in pks])


def insert_rows(objs: list[Any], *, ignore_conflicts: bool = False,
                update_conflicts: tuple[list[str], list[str]] | None = None,
                using: str = DEFAULT_DB_ALIAS) -> list[Any]:
    """``INSERT`` new instances of one model in one statement; returns them, saved.

    What ``QuerySet.bulk_create`` writes, each value through its field's ``pre_save``
    (``auto_now_add``…) and ``get_db_prep_save``, and an auto-incremented primary key set on its
    object from ``RETURNING`` (not with ``ignore_conflicts``, where a skipped row has none, as
    with ``bulk_create``). ``update_conflicts=(unique_fields, update_fields)``: ``ON CONFLICT …
    DO UPDATE`` those fields. What it skips of ``bulk_create``: the batching of very long lists
    (callers insert a few rows), the checks of the arguments, and multi-table inheritance; like
    ``bulk_create``, it sends no ``save`` signal. SQL that PostgreSQL and SQLite (3.35 and later)
    both take. With ``PERF_OFF=writes``: ``bulk_create`` itself."""
    write = insert_write(objs, ignore_conflicts=ignore_conflicts,
                         update_conflicts=update_conflicts, using=using)
    return objs if write is None else write.run(using)


def insert_write(objs: list[Any], *, ignore_conflicts: bool = False,
                 update_conflicts: tuple[list[str], list[str]] | None = None,
                 using: str = DEFAULT_DB_ALIAS) -> Write | None:
    """:func:`insert_rows`'s write, not yet sent (see :func:`write_together`); ``None`` for no
    rows. The objects are ready (keys set, saved) once it is sent."""
    if not objs:
        return None
    model = type(objs[0])
    if any(type(obj) is not model for obj in objs):
        raise TypeError("insert_rows: one model per statement")
    opts = model._meta
    auto_pk = opts.pk if isinstance(opts.pk, AutoFieldMixin) else None
    if auto_pk is not None and any(obj.pk is not None for obj in objs):
        raise ValueError("insert_rows: new rows only (the database gives the primary key)")
    if not perf.on("writes"):
        manager = model._default_manager.using(using)
        if update_conflicts is not None:
            unique, update = update_conflicts
            return Write(orm=lambda: manager.bulk_create(
                objs, update_conflicts=True, unique_fields=unique, update_fields=update))
        return Write(orm=lambda: manager.bulk_create(objs, ignore_conflicts=ignore_conflicts))
    connection = connections[using]
    fields = [f for f in opts.concrete_fields if f is not auto_pk]
    returning = auto_pk is not None and not ignore_conflicts
    qn = connection.ops.quote_name

    def build() -> str:
        columns = ", ".join(qn(f.column) for f in fields)
        row = "(" + ", ".join(["%s"] * len(fields)) + ")"
        values = ", ".join([row] * len(objs))
        sql = f"INSERT INTO {qn(opts.db_table)} ({columns}) VALUES {values}"  # noqa: S608
        if ignore_conflicts:
            sql += " ON CONFLICT DO NOTHING"
        elif update_conflicts is not None:
            unique, update = update_conflicts
            sql += (f" ON CONFLICT ({', '.join(qn(opts.get_field(n).column) for n in unique)})"
                    " DO UPDATE SET " + ", ".join(
                        f"{qn(opts.get_field(n).column)} = EXCLUDED.{qn(opts.get_field(n).column)}"
                        for n in update))
        if returning:
            sql += f" RETURNING {qn(auto_pk.column)}"
        return sql

    key = ("insert", using, opts.label, len(objs), ignore_conflicts,
           None if update_conflicts is None else tuple(map(tuple, update_conflicts)))
    sql = _write_sql(key, build)
    if perf.on("fast_params"):
        params = _write_params(objs, fields, connection)
    else:
        params = [field.get_db_prep_save(field.pre_save(obj, True), connection)
                  for obj in objs for field in fields]

    def done(rows: list | None, _count: int) -> list[Any]:
        if returning:
            if len(rows) != len(objs):
                raise RuntimeError(f"insert_rows: {len(rows)} keys for {len(objs)} rows")
            for obj, (pk,) in zip(objs, rows, strict=True):
                setattr(obj, auto_pk.attname, pk)
        for obj in objs:
            obj._state.adding = False
            obj._state.db = using
        return objs

    return Write(sql, params, returning, done)


# The values a hot write sends, each as its field's ``pre_save`` (an insert's) and
# ``get_db_prep_save`` make it (``PERF_OFF=fast_params``: those calls for every value). A move
# writes some forty values (its record, its snapshot, a decision, a message, the game's row),
# each through three to five calls of Django's; for the fields whose classes keep Django's own
# conversions, a value of the one type those conversions hand back unchanged (or wrap in
# psycopg's integer type) is taken directly. :func:`_param_plan` tells, once per model, fields
# and backend, which fields those are and that type; any other field, and any value of another
# type, still goes through its field.
_PLANS: dict[tuple, list[tuple[Any, str, bool, type | None, Any]]] = {}


def _own(field: Any, name: str, owner: type) -> bool:
    """Whether ``field``'s method ``name`` is the one ``owner`` defines (or inherits)."""
    return getattr(type(field), name) is getattr(owner, name)


def _value_kind(field: Any, connection: Any) -> tuple[type | None, Any]:
    """The type of the values of ``field`` that :func:`_write_params` takes without their
    field, and what wraps them (``None``: taken as they are); ``(None, None)``: every value
    through its field."""
    ops = type(connection.ops)
    if not _own(field, "get_db_prep_save", Field):
        if isinstance(field, ForeignKey) and _own(field, "get_db_prep_save", ForeignKey):
            # a value that is neither None nor "" -> its target's get_db_prep_save of it
            kind, wrap = _value_kind(field.target_field, connection)
            if kind in (int, uuid.UUID):
                return kind, wrap
        return None, None
    if isinstance(field, AutoFieldMixin):
        if (_own(field, "get_db_prep_value", AutoFieldMixin)
                and _own(field, "get_prep_value", IntegerField)
                and ops.validate_autopk_value is BaseDatabaseOperations.validate_autopk_value):
            return int, None  # int(value), validated as itself
    elif isinstance(field, UUIDField):
        if (_own(field, "get_db_prep_value", UUIDField)
                and connection.features.has_native_uuid_field):
            return uuid.UUID, None
    elif isinstance(field, (CharField, TextField)):
        owner = CharField if isinstance(field, CharField) else TextField
        if (_own(field, "get_prep_value", owner) and _own(field, "to_python", owner)
                and _own(field, "get_db_prep_value", Field)):
            return str, None
    elif isinstance(field, BooleanField):
        if (_own(field, "get_prep_value", BooleanField) and _own(field, "to_python", BooleanField)
                and _own(field, "get_db_prep_value", Field)):
            return bool, None
    elif isinstance(field, IntegerField):
        if _own(field, "get_prep_value", IntegerField) and _own(field, "get_db_prep_value",
                                                                 IntegerField):
            adapt = ops.adapt_integerfield_value
            if adapt is BaseDatabaseOperations.adapt_integerfield_value:
                return int, None
            wrap = getattr(ops, "integerfield_type_map", {}).get(field.get_internal_type())
            if (wrap is not None and connection.vendor == "postgresql"
                    and adapt.__module__ == "django.db.backends.postgresql.operations"
                    and adapt.__qualname__ == "DatabaseOperations.adapt_integerfield_value"):
                return int, wrap  # psycopg's Int2/Int4/Int8 of it
    elif (isinstance(field, DateTimeField) and _own(field, "get_prep_value", DateTimeField)
          and _own(field, "to_python", DateTimeField)
          and _own(field, "get_db_prep_value", DateTimeField)
          and ops.adapt_datetimefield_value.__module__
          == "django.db.backends.postgresql.operations"):
        # (only an aware one, in UTC: :func:`_write_params`; a naive one is made aware, with a
        # warning, where time zones are on)
        return dt.datetime, None
    return None, None


def _param_plan(fields: list[Any], connection: Any) -> list[tuple[Any, str, bool, type | None,
                                                                  Any]]:
    # (keyed by the fields' model and names: a field's own hash is Python's, a name's is kept)
    key = (type(connection.ops), connection.vendor, fields[0].model if fields else None,
           tuple(map(_ATTNAME, fields)))
    plan = _PLANS.get(key)
    if plan is None:
        plan = [(field, field.attname, _own(field, "pre_save", Field), *_value_kind(field,
                                                                                 connection))
                for field in fields]
        if len(_PLANS) < _WRITE_SQL_MAX:
            _PLANS[key] = plan
    return plan


_ATTNAME = operator.attrgetter("attname")


def _write_params(objs: list[Any], fields: list[Any], connection: Any, *,
                  pre_save: bool = True) -> list[Any]:
    """The parameters of the rows of ``objs``: each value as ``field.get_db_prep_save(
    field.pre_save(obj, True), connection)`` gives it (without ``pre_save``, an update's:
    ``field.get_db_prep_save(getattr(obj, field.attname), connection)``;
    ``tests/site/test_insert_params.py`` compares them, values and types)."""
    plan = _param_plan(fields, connection)
    params = []
    append = params.append
    for obj in objs:
        for field, attname, plain_pre_save, kind, wrap in plan:
            value = (getattr(obj, attname) if plain_pre_save or not pre_save
                     else field.pre_save(obj, True))
            if kind is not None:
                if value is None:
                    append(None)
                    continue
                if type(value) is kind and (kind is not dt.datetime or value.tzinfo is dt.UTC):
                    append(value if wrap is None else wrap(value))
                    continue
            append(field.get_db_prep_save(value, connection))
    return params
