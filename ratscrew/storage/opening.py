"""Which store ``--db`` names: a ``postgresql://`` URL (`ratscrew.storage.postgres`, imported
only then, so SQLite needs no PostgreSQL driver) or a SQLite file."""

from __future__ import annotations

from pathlib import Path

from ratscrew.storage.records import StoreError
from ratscrew.storage.roles import Store
from ratscrew.storage.sqlite import SqliteStore

DRIVER_MODULES = frozenset({"psycopg", "psycopg_pool", "psycopg_binary"})
"""The PostgreSQL driver's modules (the ``postgres`` extra): only their absence means "install it"."""


def is_database_url(db: str | Path) -> bool:
    """Whether ``--db`` names a PostgreSQL database rather than a SQLite file.

    >>> is_database_url("postgresql://ratscrew@db/ratscrew"), is_database_url("games.db")
    (True, False)
    """
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


def check_database_name(db: str | Path) -> None:
    """Raise `StoreError` when ``db`` is a URL that is not PostgreSQL's (a typo such as
    ``postgresq://`` or another database's URL), instead of it becoming a SQLite file's path.

    >>> check_database_name("postgresql://r@db/r"), check_database_name("games.db")
    (None, None)
    >>> try:
    ...     check_database_name("mysql://r:pw@db/r")
    ... except StoreError as error:
    ...     print(error)
    mysql://db/r is not a database ratscrew can use: give a SQLite file or a postgresql:// URL
    """
    if isinstance(db, str) and "://" in db and not is_database_url(db):
        scheme, rest = db.split("://", 1)
        shown = f"{scheme}://{rest.rsplit('@', 1)[-1]}"  # never a password in a message
        raise StoreError(f"{shown} is not a database ratscrew can use: give a SQLite file or a "
                         "postgresql:// URL")


def open_store(db: str | Path) -> Store:
    """The store ``--db`` names: a ``postgresql://`` URL, or a SQLite file (``":memory:"`` for
    tests); `StoreError` when it cannot be used."""
    check_database_name(db)
    if is_database_url(db):
        try:
            from ratscrew.storage.postgres import PostgresStore
        except ModuleNotFoundError as error:
            if error.name not in DRIVER_MODULES:
                raise  # a broken import of our own is a bug to see, not a missing driver
            raise StoreError("a postgresql:// database needs the PostgreSQL driver: "
                             "pip install 'ratscrew[postgres]'") from None
        return PostgresStore(str(db))
    return SqliteStore(db)
