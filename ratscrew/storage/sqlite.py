"""`SqliteStore`: the embedded default, one file for one server process.

SQLite is opened in WAL mode with ``synchronous=NORMAL``: a transaction is in the write-ahead
log when ``COMMIT`` returns, so a killed server process loses nothing it committed. Only one
server may use a SQLite database at a time (a lock file next to it says so), and a database
that is corrupt, locked or from a newer version is refused with a `StoreError` that says what
to do, rather than risking the data in it.

>>> store = SqliteStore(":memory:")
>>> store.schema_version
5
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy.dialects import sqlite as sqlite_dialect

from ratscrew.storage.records import RateCounter, StoreError, StoreInUse, StoreUnavailable
from ratscrew.storage.schema import bring_to_current
from ratscrew.storage.sql import Compiler, Conflict, Params, Rows, Statement, Write, row_insert
from ratscrew.storage.store import SqlStore

NO_PARAMS: Params = {}
QMARK = sqlite_dialect.dialect(paramstyle="qmark")
"""SQLite's dialect with ``?`` marks, for the rows of `SqliteDatabase.insert_rows`."""


FULL_CODES = frozenset({sqlite3.SQLITE_FULL})
"""SQLite's answer when a write finds no room: the disk (or the file's size limit) is full."""
MIN_FREE_BYTES = 8 * 1024 * 1024
"""Free space on the database's disk below which a full store does not try writing again."""


def is_full(error: BaseException) -> bool:
    """Whether ``error`` is SQLite saying the disk (or the database's size limit) is full."""
    return isinstance(error, sqlite3.OperationalError) and (
        getattr(error, "sqlite_errorcode", None) in FULL_CODES or "disk is full" in str(error))


class SqliteDatabase:
    """One sqlite3 connection in autocommit mode; each write is ``BEGIN`` … ``COMMIT``. A write
    that finds the disk full raises `StoreUnavailable` (the rooms pause, as for a database
    outage) and sets `full` until `SqliteStore.reachable` finds room again."""

    def __init__(self, conn: sqlite3.Connection, path: str = ":memory:") -> None:
        self.conn = conn
        self.path = path
        self.compiler = Compiler("sqlite")
        self._positional: dict[tuple[str, tuple[str, ...]], str] = {}
        self.full = False

    def _full(self) -> StoreUnavailable:
        self.full = True
        return StoreUnavailable(f"the disk of the database {self.path} is full")

    def _execute(self, statement: Statement, params: Params) -> sqlite3.Cursor:
        sql, values = self.compiler.sql(statement, params)
        try:
            return self.conn.execute(sql, values)
        except sqlite3.IntegrityError as error:
            raise Conflict(str(error)) from error
        except sqlite3.OperationalError as error:
            if is_full(error):
                raise self._full() from None
            raise

    def rows(self, statement: Statement, params: Params = NO_PARAMS) -> list[dict[str, Any]]:
        """Run one statement and return its rows as dictionaries."""
        return [dict(row) for row in self._execute(statement, params).fetchall()]

    def run(self, statement: Statement, params: Params = NO_PARAMS) -> None:
        """Run a statement whose rows are not needed."""
        self._execute(statement, params)

    def write(self, statements: Sequence[Write]) -> None:
        """Run ``statements`` in one transaction."""
        with self.transaction():
            for statement, params in statements:
                self._execute(statement, params)

    async def rows_async(self, statement: Statement, params: Params = NO_PARAMS
                         ) -> list[dict[str, Any]]:
        """`rows` (a local file: no round trip to wait for)."""
        return self.rows(statement, params)

    async def write_async(self, statements: Sequence[Write]) -> None:
        """`write` (a local file: no round trip to wait for)."""
        self.write(statements)

    def insert_rows(self, inserts: Sequence[Rows]) -> None:
        """One transaction; each table's rows with ``executemany`` of its one-row insert, with
        ``?`` marks (sqlite3 binds a tuple faster than a dictionary: this is the hot write)."""
        conn = self.conn
        if self.full:
            raise StoreUnavailable(f"the disk of the database {self.path} is full")
        conn.execute("BEGIN IMMEDIATE")
        try:
            for table, rows in inserts:
                columns = tuple(rows[0])
                sql = self._positional.get((table.name, columns))
                if sql is None:
                    sql = str(row_insert(table, columns).compile(dialect=QMARK))
                    self._positional[(table.name, columns)] = sql
                conn.executemany(sql, [tuple(row.values()) for row in rows])
        except BaseException as error:
            if conn.in_transaction:  # SQLite rolls a transaction back itself on a full disk
                conn.execute("ROLLBACK")
            if isinstance(error, sqlite3.IntegrityError):
                raise Conflict(str(error)) from error
            if is_full(error):
                raise self._full() from None
            raise
        self._commit()

    def _commit(self) -> None:
        try:
            self.conn.execute("COMMIT")
        except sqlite3.OperationalError as error:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            if is_full(error):
                raise self._full() from None
            raise

    @contextmanager
    def transaction(self, rating: bool = False) -> Iterator[SqliteDatabase]:
        """``BEGIN IMMEDIATE`` (the write lock first: one process per file, so this is also the
        rating lock) … ``COMMIT``, or ``ROLLBACK`` on an error."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            if self.conn.in_transaction:  # SQLite rolls a transaction back itself on a full disk
                self.conn.execute("ROLLBACK")
            raise
        self._commit()


class SqliteStore(SqlStore):
    """The SQLite database of one server (see the module docstring). ``":memory:"`` keeps
    everything in memory, for tests."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock_file: int | None = None
        if self.path != ":memory:":
            self._take_lock()
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=2.0,
                                   check_same_thread=False)
            conn.row_factory = sqlite3.Row
            self._db = conn  # the sqlite3 connection itself
            self._database = self._sqlite = SqliteDatabase(conn, self.path)
            self._check_and_migrate(conn)
        except sqlite3.DatabaseError as error:
            self._release_lock()
            raise StoreError(self._explain(error)) from None

    # ------------------------------------------------------------------ opening

    def _take_lock(self) -> None:
        directory = Path(self.path).resolve().parent
        if not directory.is_dir():
            raise StoreError(f"cannot create the database {self.path}: folder {directory} does not exist")
        lock_path = self.path + ".lock"
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as error:
            raise StoreError(f"cannot open {lock_path}: {error.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StoreInUse(f"another ratscrew server is using {self.path}",
                             "or give this one its own file with --db") from None
        self._lock_file = fd

    def _release_lock(self) -> None:
        if self._lock_file is not None:
            os.close(self._lock_file)
            self._lock_file = None

    def _explain(self, error: sqlite3.DatabaseError) -> str:
        text = str(error)
        if "locked" in text or "busy" in text:
            return (f"the database {self.path} is locked by another program ({text}); "
                    "refusing to start rather than risk its data")
        if "not a database" in text or "malformed" in text or "corrupt" in text:
            return (f"the database {self.path} is damaged ({text}); refusing to start. Move it "
                    "aside (or restore a backup) and start again to begin a new one")
        return f"cannot use the database {self.path}: {text}"

    def _check_and_migrate(self, db: sqlite3.Connection) -> None:
        db.execute("PRAGMA busy_timeout = 2000")
        if self.path != ":memory:":
            mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise sqlite3.DatabaseError(f"could not switch to WAL mode (got {mode})")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA foreign_keys = ON")
        check = db.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise sqlite3.DatabaseError(f"integrity check failed: {check}")
        db.execute("BEGIN IMMEDIATE")
        try:
            bring_to_current(db.execute, "sqlite", str(self.path))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @property
    def schema_version(self) -> int:
        """The schema version of the open database."""
        return int(self._sqlite.conn.execute("SELECT version FROM schema_version").fetchone()[0])

    @property
    def description(self) -> str:
        """The database file."""
        return self.path

    def claim(self, shard: str | None) -> None:
        """Nothing to do: the lock file already keeps every other server off this file."""

    def reachable(self) -> bool:
        """A local file is always there, but its disk may be full: then whether there is room
        to write again (free space on the disk, and pages under the file's size limit)."""
        database = self._sqlite
        if not database.full:
            return True
        conn = database.conn
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        limit = conn.execute("PRAGMA max_page_count").fetchone()[0]
        folder = Path(self.path).resolve().parent if self.path != ":memory:" else Path(".")
        if pages >= limit or shutil.disk_usage(folder).free < MIN_FREE_BYTES:
            return False
        database.full = False
        return True

    @property
    def failing_fast(self) -> bool:
        """True while the database's disk is full (writes are refused at once, rooms paused)."""
        return self._sqlite.full

    @property
    def unavailable_reason(self) -> str:
        """Why the store cannot be used now, for `/readyz`."""
        return f"the disk of the database {self.path} is full" if self._sqlite.full else ""

    async def reserve_game_ids_async(self, count: int) -> list[int]:
        """None: on SQLite (a local file) a game's start is written at once, its id the row's."""
        return []

    def rate_counter(self, what: str, limit: int, window_s: float) -> RateCounter | None:
        """None: one process uses a SQLite file, so it counts in memory."""
        return None

    def close(self) -> None:
        """Close the database and release its lock."""
        self._sqlite.conn.close()
        self._release_lock()
