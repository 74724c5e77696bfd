"""The write path's one explicit SQL statement: a commit's rows written together.

A move writes its record, its game's snapshot and row, and the difference of its pending
decisions (the rows that go, the rows now awaited). Written through the ORM, that is five
statements, each compiled anew and each a round trip to PostgreSQL; here it is one statement of
data-modifying ``WITH`` clauses on PostgreSQL, run through ``connection.cursor()``. What it buys
(``bench/api.py --push --clients 50`` on this project's 2-core machine): a move went from 13
statements and 6.9 ms of the web server's CPU with the ORM's five writes to 9 statements and
5.7 ms with this one.

Each part is plain SQL that SQLite also runs (``INSERT … RETURNING``, ``ON CONFLICT … DO
UPDATE``): there the parts are sent one after the other, in the same order, so the same code and
the same SQL run on both (the test suite runs both). Values go through each field's
``pre_save`` and ``get_db_prep_save``, as the ORM prepares them; columns and tables come from
the models' ``_meta``.

What is rare stays with the ORM (``write.py``): chat lines, seats, pending rows changed in place
by table actions, a snapshot whose state did not change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from games.models import Game, MoveRecord, PendingDecision, Snapshot


@dataclass
class Writes:
    """What one commit writes with this statement."""

    records: list[MoveRecord] = field(default_factory=list)
    #: Snapshots upserted (the state at the game's new seq).
    snapshots: list[Snapshot] = field(default_factory=list)
    #: ``(game, fields)``: each game's row and the fields to write.
    games: list[tuple[Game, list[str]]] = field(default_factory=list)
    #: Keys of the pending rows that go.
    gone: list[int] = field(default_factory=list)
    #: Pending rows now awaited (their keys are set once written).
    new: list[PendingDecision] = field(default_factory=list)


def _name(name: str) -> str:
    return connection.ops.quote_name(name)


def _insert(objs: list[Any], *, returning: bool = False,
            upsert: tuple[str, list[str]] | None = None) -> tuple[str, list[Any]]:
    """``INSERT`` of ``objs`` (one model) with every concrete field but an automatic key."""
    model = type(objs[0])
    fields = [f for f in model._meta.concrete_fields
              if not (f.primary_key and f.db_returning)]
    params: list[Any] = []
    rows = []
    for obj in objs:
        rows.append("(" + ", ".join(["%s"] * len(fields)) + ")")
        params += [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
    # (names from the models' _meta, every value a parameter)
    sql = (f"INSERT INTO {_name(model._meta.db_table)} "  # noqa: S608
           f"({', '.join(_name(f.column) for f in fields)}) VALUES {', '.join(rows)}")
    if upsert is not None:
        key, updated = upsert
        columns = [model._meta.get_field(name).column for name in updated]
        sql += (f" ON CONFLICT ({_name(model._meta.get_field(key).column)}) DO UPDATE SET "
                + ", ".join(f"{_name(c)} = excluded.{_name(c)}" for c in columns))
    if returning:
        sql += f" RETURNING {_name(model._meta.pk.column)}"
    return sql, params


def _update(obj: Any, names: list[str]) -> tuple[str, list[Any]]:
    model = type(obj)
    fields = [model._meta.get_field(name) for name in names]
    params = [f.get_db_prep_save(getattr(obj, f.attname), connection) for f in fields]
    params.append(model._meta.pk.get_db_prep_value(obj.pk, connection))
    sets = ", ".join(f"{_name(f.column)} = %s" for f in fields)
    table, key = _name(model._meta.db_table), _name(model._meta.pk.column)
    return f"UPDATE {table} SET {sets} WHERE {key} = %s", params  # noqa: S608


def _delete(model: Any, pks: list[int]) -> tuple[str, list[Any]]:
    table, key = _name(model._meta.db_table), _name(model._meta.pk.column)
    markers = ", ".join(["%s"] * len(pks))
    return f"DELETE FROM {table} WHERE {key} IN ({markers})", list(pks)  # noqa: S608


def write(writes: Writes) -> None:
    """Write it all: one statement on PostgreSQL, the parts in turn elsewhere. The new pending
    rows get their keys."""
    parts: list[tuple[str, list[Any]]] = []
    if writes.records:
        parts.append(_insert(writes.records))
    if writes.snapshots:
        parts.append(_insert(writes.snapshots,
                             upsert=("game", ["seq", "state", "updated_at"])))
    parts += [_update(game, names) for game, names in writes.games]
    if writes.gone:
        parts.append(_delete(PendingDecision, writes.gone))
    if writes.new:
        parts.append(_insert(writes.new, returning=True))
    if not parts:
        return
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            last = len(parts) - 1 if writes.new else None
            clauses = [f"w{n} AS ({sql})" for n, (sql, _p) in enumerate(parts) if n != last]
            tail = parts[last][0] if last is not None else "SELECT 1"
            with_ = f"WITH {', '.join(clauses)} " if clauses else ""
            cursor.execute(with_ + tail, [p for _sql, params in parts for p in params])
        else:
            for sql, params in parts:
                cursor.execute(sql, params)
        keys = [row[0] for row in cursor.fetchall()] if writes.new else []
    for row, key in zip(writes.new, keys, strict=True):
        # (saved, as bulk_create leaves its rows: ``Model._state``, documented in Django's
        # model instance reference)
        row.pk = key
        row._state.adding = False
        row._state.db = connection.alias
