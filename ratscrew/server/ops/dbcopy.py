"""``ratscrew admin db copy FROM TO``: everything in one database copied into another, SQLite to
PostgreSQL or back (or like to like): rooms, seats, games and their actions, results, players and
their keys, ratings and their history, and the server's id (which import codes are tied to).

Both databases are opened as stores first (so both are migrated to this version's schema) and
held the way a server holds them, so a server running on either makes the copy stop with a clear
error instead of copying a moving target. ``TO`` must be empty (no rooms, games or players). Every
table both schemas have is copied, columns by name, in an order that keeps the foreign keys
satisfied; the per-address limit counters (``rate_events``) are left out (they expire within the
hour anyway). The rows of each table are then counted on both sides; `CopyError` when any count
differs. PostgreSQL's game-id sequence is moved past the copied ids.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ratscrew.storage.opening import check_database_name, is_database_url, open_store
from ratscrew.storage.records import StoreError, StoreInUse
from ratscrew.storage.roles import Store

ORDER = ("rooms", "seats", "members", "kicked", "games", "actions", "judged", "results", "server_info",
         "players", "ratings", "rating_updates", "rated_games", "arenas", "arena_rooms",
         "arena_standings")
"""Tables in an order that satisfies their foreign keys; tables added later go after these."""
SKIPPED = frozenset({"schema_version", "rate_events", "sqlite_sequence"})
BATCH = 1000


class CopyError(Exception):
    """The copy cannot be made, or did not come out whole; the message says why."""


@dataclass(frozen=True)
class TableCount:
    """One table's rows on each side after a copy."""

    table: str
    source: int
    target: int


class Database:
    """One database opened raw (sqlite3 or psycopg), for copying whole tables."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.postgres = is_database_url(where)
        self.conn: Any
        if self.postgres:
            import psycopg

            self.conn = psycopg.connect(where)
            self.mark = "%s"
        else:
            self.conn = sqlite3.connect(where)
            self.conn.execute("PRAGMA foreign_keys = OFF")
            self.mark = "?"

    def tables(self) -> list[str]:
        """Every table of ratscrew's schema."""
        if self.postgres:
            sql = ("SELECT table_name FROM information_schema.tables "
                   "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'")
        else:
            sql = "SELECT name FROM sqlite_master WHERE type = 'table'"
        return [str(row[0]) for row in self.conn.execute(sql).fetchall()]

    def columns(self, table: str) -> list[str]:
        """The table's columns, in order."""
        if self.postgres:
            rows = self.conn.execute("SELECT column_name FROM information_schema.columns "
                                     "WHERE table_schema = current_schema() AND table_name = %s "
                                     "ORDER BY ordinal_position", (table,)).fetchall()
            return [str(row[0]) for row in rows]
        return [str(row[1]) for row in self.conn.execute(f'PRAGMA table_info("{table}")').fetchall()]

    def count(self, table: str) -> int:
        """How many rows ``table`` has."""
        return int(self.conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])

    def rows(self, table: str, columns: Sequence[str]) -> Iterator[list[tuple[Any, ...]]]:
        """The table's rows (only ``columns``), in batches."""
        names = ", ".join(f'"{c}"' for c in columns)
        cursor = self.conn.cursor()
        cursor.execute(f'SELECT {names} FROM "{table}"')
        while batch := cursor.fetchmany(BATCH):
            yield [tuple(row) for row in batch]

    def replace(self, table: str, columns: Sequence[str], batches: Iterator[list[tuple[Any, ...]]]) -> None:
        """Empty ``table`` and insert ``batches`` of rows into it (not committed yet)."""
        self.conn.execute(f'DELETE FROM "{table}"')
        names = ", ".join(f'"{c}"' for c in columns)
        marks = ", ".join(self.mark for _ in columns)
        cursor = self.conn.cursor()
        for batch in batches:
            cursor.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', batch)

    def after_copy(self) -> None:
        """Move PostgreSQL's identity sequences past the copied ids."""
        if self.postgres:
            self.conn.execute("SELECT setval(pg_get_serial_sequence('games', 'id'), "
                              "(SELECT COALESCE(MAX(id), 0) + 1 FROM games), false)")

    def commit(self) -> None:
        self.conn.commit()

    def close(self) -> None:
        self.conn.close()


def _held(where: str) -> Store:
    """The database opened (and migrated) as a server would, holding every room."""
    check_database_name(where)
    if not is_database_url(where) and not Path(where).exists():
        Path(where).parent.mkdir(parents=True, exist_ok=True)
    store = open_store(where if is_database_url(where) else Path(where))
    try:
        store.claim(None)
    except StoreError:
        store.close()
        raise
    return store


def copy_database(source: str, target: str) -> list[TableCount]:
    """Copy everything from ``source`` into the empty ``target`` (see the module docstring)."""
    if not is_database_url(source) and not Path(source).is_file():
        raise CopyError(f"{source}: no such database file")
    if source == target:
        raise CopyError("FROM and TO are the same database")
    held: list[Store] = []
    try:
        held.append(_held(source))
        held.append(_held(target))
    except StoreError as error:
        for store in held:
            store.close()
        if isinstance(error, StoreInUse):
            raise CopyError(f"{error.holder}; stop it first: a copy needs both databases to "
                            "itself") from None
        raise CopyError(str(error)) from None
    descriptions = [store.description for store in held]
    try:
        return _copy(Database(source), Database(target), descriptions)
    finally:
        for store in held:
            store.close()


def _copy(source: Database, target: Database, shown: Sequence[str]) -> list[TableCount]:
    try:
        occupied = {table: target.count(table) for table in ("rooms", "games", "players")}
        if any(occupied.values()):
            what = ", ".join(f"{n} {t}" for t, n in occupied.items())
            raise CopyError(f"{shown[1]} is not empty ({what}): copy into a new database")
        common = set(source.tables()) & set(target.tables()) - SKIPPED
        tables = [t for t in ORDER if t in common] + sorted(common - set(ORDER))
        for table in tables:
            wanted = set(target.columns(table))
            columns = [c for c in source.columns(table) if c in wanted]
            target.replace(table, columns, source.rows(table, columns))
        target.after_copy()
        target.commit()
        counts = [TableCount(table, source.count(table), target.count(table)) for table in tables]
    finally:
        source.close()
        target.close()
    wrong = [c for c in counts if c.source != c.target]
    if wrong:
        raise CopyError("the copy is not whole: " + ", ".join(f"{c.table} {c.source} -> {c.target}"
                                                             for c in wrong))
    return counts
