"""Where ``ratscrew serve`` (and ``ratscrew admin``) find their database, so a PostgreSQL password
never has to be on a command line that ``ps`` shows to every user of the machine.

In order: ``--db FILE|URL``; ``--db-file PATH``, a file holding the URL (a container secret, a
file only the service user may read); the ``RATSCREW_DATABASE_URL`` environment variable (a
systemd ``EnvironmentFile``, compose's ``env_file``); else the default SQLite file.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

DATABASE_ENV = "RATSCREW_DATABASE_URL"
"""The environment variable holding the database URL (or SQLite file)."""


def resolve_database(db: str | None, db_file: Path | None, environ: dict[str, str] | None = None,
                     default: str = "") -> str:
    """The database to use (see the module docstring); `ValueError` for an unreadable or empty
    ``--db-file``.

    >>> resolve_database(None, None, {"RATSCREW_DATABASE_URL": "postgresql://r@db/r"}, "x.db")
    'postgresql://r@db/r'
    >>> resolve_database("games.db", None, {"RATSCREW_DATABASE_URL": "postgresql://r@db/r"})
    'games.db'
    >>> resolve_database(None, None, {}, "x.db")
    'x.db'
    """
    if db is not None and db_file is not None:
        raise ValueError("give the database with --db or --db-file, not both")
    if db is not None:
        return db
    if db_file is not None:
        try:
            text = db_file.read_text().strip()
        except OSError as error:
            raise ValueError(f"--db-file: cannot read {db_file}: {error.strerror}") from None
        if not text:
            raise ValueError(f"--db-file: {db_file} is empty (it should hold the database URL)")
        return text.splitlines()[0].strip()
    value = (os.environ if environ is None else environ).get(DATABASE_ENV, "").strip()
    return value or default


def password_on_command_line(db: str | None) -> bool:
    """Whether ``--db`` carries a password (which ``ps`` shows to everyone).

    >>> password_on_command_line("postgresql://ratscrew:s3cret@db/ratscrew")
    True
    >>> password_on_command_line("postgresql://ratscrew@db/ratscrew"), password_on_command_line(None)
    (False, False)
    """
    if db is None or "://" not in db:
        return False
    parts = urlsplit(db)
    return bool(parts.password) or "password=" in parts.query.lower()
