"""The hot statements of one psycopg connection, run through libpq directly.

A statement through a psycopg cursor, even one kept from a statement to the next, goes through
some twenty Python functions (the query's conversion, the prepared-statements manager, the
generators that send it and wait) around the few calls to libpq that do the work: about 75,000
instructions for a short query, against 25,000 here (callgrind). :class:`Direct` does what the
cursor does for a server-bound statement, with psycopg's public pieces: the values dumped by a
``Transformer`` of the connection (the connection's adapters, as a cursor's); the statement
prepared once per connection and parameter types, as psycopg's own manager does (at most
:attr:`Direct.PREPARED_MAX` of them), and run with ``PQexecPrepared``; the rows loaded by the
same ``Transformer``; a failed statement raised as the psycopg exception a cursor raises (which
Django's ``wrap_database_errors`` then translates). Outside autocommit it starts the transaction
with ``BEGIN`` as psycopg does when the connection is idle.

Used by ``DatabaseWrapper.run_hot`` (``base.py``), which decides when it may be.
"""

from __future__ import annotations

import re

import psycopg
from psycopg import errors, pq
from psycopg.adapt import PyFormat, Transformer

_OK = (pq.ExecStatus.COMMAND_OK, pq.ExecStatus.TUPLES_OK)
_IDLE = pq.TransactionStatus.IDLE
#: A ``%`` that is not the start of a ``%s`` placeholder (``%%``, ``%(name)s``…).
_OTHER_PERCENT = re.compile(r"%(?!s)")


def numbered(sql: str) -> tuple[bytes, int] | None:
    """``sql`` with its ``%s`` placeholders numbered ``$1``, ``$2``… and their count, or
    ``None`` if it has any other ``%`` (left to psycopg's own conversion)."""
    if _OTHER_PERCENT.search(sql):
        return None
    parts = sql.split("%s")
    out = [parts[0]]
    for n, part in enumerate(parts[1:], start=1):
        out.append(f"${n}")
        out.append(part)
    return "".join(out).encode(), len(parts) - 1


class Direct:
    """The statements prepared on one psycopg connection, and its ``Transformer``."""

    #: Queries converted (shared by every connection: the conversion depends on the text only).
    _numbered: dict[str, tuple[bytes, int] | None] = {}
    _NUMBERED_MAX = 512
    #: Statements prepared on one connection, at most (a rare batch of another size, once
    #: that many are, is sent unprepared: no unbounded growth on a long-lived connection).
    PREPARED_MAX = 256

    def __init__(self, conn: psycopg.Connection):
        self.conn = conn
        self.tx = Transformer(conn)
        self.names: dict[tuple, bytes] = {}

    def run(self, sql: str, params: list, fetch: bool) -> tuple[list | None, int] | None:
        """The statement's rows (if ``fetch``) and row count; ``None`` if this statement is
        not one to run here (then nothing was sent)."""
        query = self._numbered.get(sql, False)
        if query is False:
            query = numbered(sql)
            if len(self._numbered) < self._NUMBERED_MAX:
                self._numbered[sql] = query
        if query is None or query[1] != len(params):
            return None
        conn, tx = self.conn, self.tx
        pgconn = conn.pgconn
        with conn.lock:
            values = tx.dump_sequence(params, [PyFormat.AUTO] * len(params))
            key = (sql, tuple(tx.types))
            if not conn.autocommit and pgconn.transaction_status == _IDLE:
                self._check(pgconn.exec_(b"BEGIN"))
            name = self.names.get(key)
            if name is None and len(self.names) < self.PREPARED_MAX:
                name = f"_mascarade_{len(self.names)}".encode()
                self._check(pgconn.prepare(name, query[0], param_types=key[1]))
                self.names[key] = name
            if name is None:
                result = pgconn.exec_params(query[0], values, param_types=key[1],
                                            param_formats=tx.formats)
            else:
                result = pgconn.exec_prepared(name, values, param_formats=tx.formats)
            self._check(result)
            rows = None
            if fetch:
                tx.set_pgresult(result)
                rows = tx.load_rows(0, result.ntuples, tuple)
            count = result.command_tuples
            return rows, -1 if count is None else count

    def _check(self, result: pq.abc.PGresult) -> None:
        if result.status in _OK:
            return
        if result.status == pq.ExecStatus.FATAL_ERROR:
            raise errors.error_from_result(result, encoding=self.conn.info.encoding)
        raise errors.InterfaceError(f"unexpected result {pq.ExecStatus(result.status).name}")
