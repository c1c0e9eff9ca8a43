"""How a statement written once reaches a database: SQLAlchemy compiles it for the dialect the
first time it is used, the SQL text is kept, and the database's own driver (sqlite3, psycopg)
runs it with named parameters. No SQLAlchemy engine, connection or result object sits on the
path: measured on the hot write (``benchmarks/store_writes.py``), compiling once leaves a store
call as cheap as the hand-written SQL it replaced, where compiling on each call would not.

A statement whose parameters include a list (``IN :codes``, an expanding bind) is compiled once
too; only its list is spelled out on each call.

`Database` is what a store needs of a driver: rows, writes in one transaction, a transaction to
read and write in. `ratscrew.storage.sqlite` and `ratscrew.storage.postgres` implement it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from functools import cache
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.sql.compiler import Compiled

from ratscrew.storage.schema import DialectName, dialect

Params = Mapping[str, Any]
Statement = sa.Executable
"""A SQLAlchemy Core statement (or ``text()`` written with ``:name`` marks)."""
Write = tuple[Statement, Params]
"""One statement of a write and its parameters."""
Rows = tuple[sa.Table, Sequence[Params]]
"""Rows to insert into a table, each ``{column: value}`` (every row the same columns)."""


class Compiler:
    """Statements compiled for one dialect, each once (kept by identity: the statements are
    module constants, see `ratscrew.storage.queries`)."""

    def __init__(self, name: DialectName) -> None:
        self.name = name
        self._dialect = dialect(name)
        self._compiled: dict[int, tuple[Statement, Compiled, str, dict[str, Any], bool]] = {}

    def sql(self, statement: Statement, params: Params) -> tuple[str, Params]:
        """The SQL text to run for ``statement`` and the parameters to run it with (with the
        values the statement holds itself, such as ``phase != 'closed'``)."""
        entry = self._compiled.get(id(statement))
        if entry is None or entry[0] is not statement:
            compiled = statement.compile(dialect=self._dialect)  # type: ignore[attr-defined]
            fixed = {name: bind.effective_value for name, bind in compiled.binds.items()
                     if not bind.required}
            entry = (statement, compiled, str(compiled), fixed, bool(compiled.post_compile_params))
            self._compiled[id(statement)] = entry
        _, compiled, text, fixed, expanding = entry
        if fixed:
            params = {**fixed, **params}
        if not expanding:
            return text, params
        state = compiled.construct_expanded_state(dict(params))  # type: ignore[attr-defined]
        return str(state.statement), state.parameters


@cache
def rows_insert(table: sa.Table, columns: tuple[str, ...], count: int) -> sa.Insert:
    """``INSERT INTO table (columns) VALUES (…), (…)`` for ``count`` rows, its marks named
    ``table_column_i`` (`row_params`); made once per shape, so compiled once too."""
    return sa.insert(table).values([
        {c: sa.bindparam(f"{table.name}_{c}_{i}", type_=table.c[c].type) for c in columns}
        for i in range(count)])


@cache
def row_insert(table: sa.Table, columns: tuple[str, ...]) -> sa.Insert:
    """``INSERT INTO table (columns) VALUES (:column, …)``: one row, its marks the column names
    (for ``executemany`` of rows as they are)."""
    return sa.insert(table).values({c: sa.bindparam(c, type_=table.c[c].type) for c in columns})


def row_params(table: sa.Table, rows: Sequence[Params]) -> dict[str, Any]:
    """The parameters of `rows_insert` for ``rows``."""
    return {f"{table.name}_{c}_{i}": value for i, row in enumerate(rows) for c, value in row.items()}


class Conflict(Exception):
    """A write clashed with a unique key (both drivers' integrity errors become this)."""


class Transaction(Protocol):
    """Statements run inside one open transaction."""

    def rows(self, statement: Statement, params: Params = ...) -> list[dict[str, Any]]:
        """Run a statement and return its rows as dictionaries."""
        ...

    def run(self, statement: Statement, params: Params = ...) -> None:
        """Run a statement whose rows are not needed."""


class Database(Protocol):
    """What `ratscrew.storage.store.SqlStore` needs of a database driver."""

    compiler: Compiler

    def rows(self, statement: Statement, params: Params = ...) -> list[dict[str, Any]]:
        """Run one statement on its own (its own transaction) and return its rows."""
        ...

    def write(self, statements: Sequence[Write]) -> None:
        """Run ``statements`` in one transaction (committed when this returns)."""

    async def rows_async(self, statement: Statement, params: Params = ...) -> list[dict[str, Any]]:
        """`rows` without a round trip on the event loop (a database over the network is
        answered while the loop runs on; a local file is read at once)."""
        ...

    async def write_async(self, statements: Sequence[Write]) -> None:
        """`write` without a round trip on the event loop (as `rows_async`)."""

    def insert_rows(self, inserts: Sequence[Rows]) -> None:
        """Insert rows into one or more tables, all or nothing, as cheaply as the database
        allows (the hot write: a step's actions and judgements)."""

    def transaction(self, rating: bool = False) -> AbstractContextManager[Transaction]:
        """A transaction to read and write in, committed when the block ends without an error.
        ``rating``: under the rating lock, one such transaction at a time across every process
        on the database (a bot level's rating is shared by every shard's games)."""
        ...


def chunks(items: Sequence[Any], size: int = 500) -> Iterator[list[Any]]:
    """``items`` in lists of at most ``size`` (a list bound to one ``IN``)."""
    for start in range(0, len(items), size):
        yield list(items[start:start + size])
