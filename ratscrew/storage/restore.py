"""Restoring a SQLite backup over a server's database file, done so that nothing is lost and the
result is checked (``ratscrew admin db restore BACKUP --db FILE``, docs/online.md "Backup and
restore").

Copying a backup over the database file by hand goes wrong after a crash: the old file's
write-ahead log (``FILE-wal``) and shared memory (``FILE-shm``) stay beside it, and SQLite then
applies the old log to the restored file: the server refuses to start and the restored file is
damaged. `restore_sqlite` instead

1. refuses while a server holds the database (its lock file, `ratscrew.storage.sqlite`);
2. checks the backup (``PRAGMA integrity_check`` and a ratscrew schema) before touching anything;
3. copies it with SQLite's own backup API into a new file beside the database, and checks that;
4. moves the old database *with* its ``-wal`` and ``-shm`` aside (nothing is deleted: the old
   files keep their names with ``.replaced-TIME`` added), then renames the copy into place;
5. opens the result as a server would (`SqliteStore`: migrations, the lock) and counts its games.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from ratscrew.storage.records import StoreError, StoreInUse
from ratscrew.storage.sqlite import SqliteStore

SIDE_FILES = ("-wal", "-shm", "-journal")
"""What SQLite keeps beside a database file, which must never be paired with another file."""


@dataclass(frozen=True)
class Restored:
    """What `restore_sqlite` did: the restored file, its games and schema version, and where the
    files it replaced went (empty when there was no database before)."""

    database: Path
    games: int
    schema_version: int
    kept: tuple[Path, ...]


def check_sqlite_file(path: Path) -> None:
    """Raise `StoreError` unless ``path`` is a readable, undamaged ratscrew SQLite database.

    >>> check_sqlite_file(Path("/no/such/backup.db"))
    Traceback (most recent call last):
    ...
    ratscrew.storage.records.StoreError: /no/such/backup.db: no such file
    """
    if not path.is_file():
        raise StoreError(f"{path}: no such file")
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            verdict = db.execute("PRAGMA integrity_check").fetchone()[0]
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as error:
        raise StoreError(f"{path} is not a SQLite database ratscrew can read ({error})") from None
    if verdict != "ok":
        raise StoreError(f"{path} is damaged: SQLite's integrity check says {verdict!r}")
    if not {"schema_version", "games", "rooms"} <= tables:
        raise StoreError(f"{path} is a SQLite database but not a ratscrew one (no games or rooms)")


def _refuse_if_served(database: Path) -> None:
    """`StoreInUse` while a server holds ``database`` (the lock `SqliteStore` takes)."""
    lock_path = Path(str(database) + ".lock")
    if not lock_path.exists():
        return
    fd = os.open(lock_path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise StoreInUse(f"a ratscrew server is using {database}", "then restore") from None
    finally:
        os.close(fd)


def restore_sqlite(backup: Path, database: Path, *, now: float | None = None) -> Restored:
    """Put the SQLite backup ``backup`` in place of ``database`` (see the module docstring)."""
    _refuse_if_served(database)
    check_sqlite_file(backup)
    if not database.parent.is_dir():
        raise StoreError(f"cannot restore to {database}: folder {database.parent} does not exist")
    if backup.resolve() == database.resolve():
        raise StoreError(f"{backup} is the database itself: give the backup's own path")
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if now is None else now))
    copy = database.with_name(f"{database.name}.restoring-{stamp}")
    for leftover in (copy, *(Path(f"{copy}{side}") for side in SIDE_FILES)):
        leftover.unlink(missing_ok=True)
    with (closing(sqlite3.connect(f"file:{backup}?mode=ro", uri=True)) as source,
          closing(sqlite3.connect(copy)) as target):
        source.backup(target)
    try:
        check_sqlite_file(copy)
    except StoreError:
        copy.unlink(missing_ok=True)
        raise
    kept: list[Path] = []
    for name in (str(database), *(f"{database}{side}" for side in SIDE_FILES)):
        old = Path(name)
        if old.exists():
            aside = Path(f"{name}.replaced-{stamp}")
            os.replace(old, aside)
            kept.append(aside)
    os.replace(copy, database)
    store = SqliteStore(database)  # as a server opens it: migrations, the lock
    try:
        return Restored(database, store.game_count(), store.schema_version, tuple(kept))
    finally:
        store.close()
