"""The schema, written once for SQLite and PostgreSQL with SQLAlchemy Core, and the migrations
derived from it.

Every table, column and index says in which schema version it appeared (``since``); migration
N creates the tables of version N with their columns of version N, adds the columns that
version N gave older tables, creates its indexes and runs its data steps (`DATA_STEPS`). The
DDL is compiled for each database's dialect (`migration_statements`): ``REAL`` or ``DOUBLE
PRECISION``, ``INTEGER PRIMARY KEY AUTOINCREMENT`` or an identity column. A new version adds
columns or tables with the next ``since`` (and its data steps); nothing is renamed or edited,
so a database made at any earlier version migrates to the same schema as a new one.

>>> len(MIGRATIONS)
5
>>> any("DOUBLE PRECISION" in s for s in migration_statements("postgresql", 1))
True
>>> any("AUTOINCREMENT" in s for s in migration_statements("sqlite", 1))
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine.interfaces import Dialect
from sqlalchemy.schema import CreateColumn, CreateIndex, CreateTable

from ratscrew.storage.records import StoreError

DialectName = Literal["sqlite", "postgresql"]

VERSION = 5
"""The schema version this ratscrew writes."""

metadata = sa.MetaData()

REAL: sa.types.TypeEngine[float] = sa.Double().with_variant(sa.REAL(), "sqlite")
"""A float: ``DOUBLE PRECISION`` on PostgreSQL, ``REAL`` (8 bytes too) on SQLite."""
GAME_ID: sa.types.TypeEngine[int] = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
"""A game id: ``BIGINT`` on PostgreSQL, ``INTEGER`` on SQLite (its rowid)."""


def column(name: str, kind: Any, *args: Any, since: int = 1, **kwargs: Any) -> sa.Column[Any]:
    """A column that appeared in schema version ``since``."""
    return sa.Column(name, kind, *args, info={"since": since}, **kwargs)


def table(name: str, *columns: Any, since: int = 1, only: DialectName | None = None,
          **kwargs: Any) -> sa.Table:
    """A table that appeared in schema version ``since`` (``only``: on one database only)."""
    return sa.Table(name, metadata, *columns, info={"since": since, "only": only}, **kwargs)


rooms = table(
    "rooms",
    column("code", sa.Text, primary_key=True),
    column("created_at", REAL, nullable=False),
    column("updated_at", REAL, nullable=False),
    column("settings", sa.Text, nullable=False),  # JSON: rules (TOML), seats, seed, pace, timeout, judging
    column("host_hash", sa.Text),
    column("phase", sa.Text, nullable=False),  # lobby | playing | over | closed
    column("games_played", sa.Integer, nullable=False, server_default=sa.text("0")),
    column("game_id", GAME_ID),  # the current or last game
)
seats = table(
    "seats",
    column("code", sa.Text, sa.ForeignKey("rooms.code"), primary_key=True),
    column("seat", sa.Integer, primary_key=True, autoincrement=False),
    column("kind", sa.Text, nullable=False),  # open | human | bot
    column("name", sa.Text),
    column("bot", sa.Text),
    column("token_hash", sa.Text),
    column("player_id", sa.Text, since=2),
)
members = table(  # tokens of people without a seat (a host who watches)
    "members",
    column("code", sa.Text, sa.ForeignKey("rooms.code"), primary_key=True),
    column("token_hash", sa.Text, primary_key=True),
    column("name", sa.Text, nullable=False),
)
kicked = table(
    "kicked",
    column("code", sa.Text, sa.ForeignKey("rooms.code"), primary_key=True),
    column("token_hash", sa.Text, primary_key=True),
)
games = table(
    "games",
    column("id", GAME_ID, sa.Identity(always=False), primary_key=True),
    column("code", sa.Text, sa.ForeignKey("rooms.code"), nullable=False),
    column("number", sa.Integer, nullable=False),
    column("rules_name", sa.Text, nullable=False),
    column("start", sa.Text, nullable=False),  # JSON: rules, hands, leader, seed, names, room
    column("clock_start", REAL, nullable=False),  # room time at which the game started
    column("started_at", REAL, nullable=False),
    column("finished_at", REAL),
    column("status", sa.Text, nullable=False),  # playing | over
    column("winner", sa.Integer),
    column("reason", sa.Text),
    column("record", sa.Text),
    sqlite_autoincrement=True,
)
actions = table(
    "actions",
    column("game_id", GAME_ID, sa.ForeignKey("games.id"), primary_key=True, autoincrement=False),
    column("n", sa.Integer, primary_key=True, autoincrement=False),
    column("kind", sa.Text, nullable=False),
    column("seat", sa.Integer),
    column("at", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
)
judged = table(
    "judged",
    column("game_id", GAME_ID, sa.ForeignKey("games.id"), primary_key=True, autoincrement=False),
    column("n", sa.Integer, primary_key=True, autoincrement=False),
    column("entry", sa.Text, nullable=False),  # JSON, see docs/protocol.md ("judging")
)
results = table(
    "results",
    column("game_id", GAME_ID, sa.ForeignKey("games.id"), primary_key=True, autoincrement=False),
    column("seat", sa.Integer, primary_key=True, autoincrement=False),
    column("kind", sa.Text, nullable=False),
    column("name", sa.Text, nullable=False),
    column("token_hash", sa.Text),
    column("won", sa.Integer, nullable=False),
    column("slaps", sa.Integer, nullable=False),
    column("misslaps", sa.Integer, nullable=False),
    column("reactions", sa.Text, nullable=False),  # JSON list of ms
    column("player_id", sa.Text, since=2),
    column("bot", sa.Text, since=2),
    column("place", sa.Integer, since=2),  # set when the game is rated
    column("patterns", sa.Text, since=2),  # JSON, set when the game is rated
    column("unrated", sa.Text, since=4),  # why this seat's part changed no rating (NULL: it did)
)
rate_events = table(  # the per-address limits shared by every process on PostgreSQL
    "rate_events",
    column("what", sa.Text, nullable=False),
    column("address", sa.Text, nullable=False),
    column("at", sa.TIMESTAMP(timezone=True), nullable=False,
           server_default=sa.text("clock_timestamp()")),
    only="postgresql",
)
server_info = table(
    "server_info",
    column("key", sa.Text, primary_key=True, since=2),  # server_id: this server's random identity
    column("value", sa.Text, nullable=False, since=2),
    since=2,
)
players = table(
    "players",
    column("id", sa.Text, primary_key=True, since=2),  # the public id: random, never the key's
    column("key_hash", sa.Text, nullable=False, unique=True, since=2),  # SHA-256 of the key
    column("name", sa.Text, nullable=False, since=2),  # the latest name chosen with this key
    column("name_folded", sa.Text, nullable=False, unique=True, since=2),  # two keys, never one name
    column("created_at", REAL, nullable=False, since=2),
    column("seen_at", REAL, nullable=False, since=2),
    since=2,
)
ratings = table(
    "ratings",
    column("participant", sa.Text, primary_key=True, since=2),  # a player id, or bot:LEVEL
    column("rules_name", sa.Text, primary_key=True, since=2),
    column("mu", REAL, nullable=False, since=2),
    column("sigma", REAL, nullable=False, since=2),
    column("games", sa.Integer, nullable=False, since=2),
    column("updated_at", REAL, nullable=False, since=2),
    since=2,
)
rating_updates = table(
    "rating_updates",
    column("participant", sa.Text, primary_key=True, since=2),
    column("rules_name", sa.Text, primary_key=True, since=2),
    column("game_id", GAME_ID, sa.ForeignKey("games.id"), primary_key=True, autoincrement=False,
           since=2),
    column("mu_before", REAL, nullable=False, since=2),
    column("sigma_before", REAL, nullable=False, since=2),
    column("mu_after", REAL, nullable=False, since=2),
    column("sigma_after", REAL, nullable=False, since=2),
    column("at", REAL, nullable=False, since=2),
    since=2,
)
rated_games = table(  # a game is rated once: this row and its updates are one transaction
    "rated_games",
    column("game_id", GAME_ID, sa.ForeignKey("games.id"), primary_key=True, autoincrement=False,
           since=2),
    column("at", REAL, nullable=False, since=2),
    column("participants", sa.Integer, nullable=False, since=2),  # 0: no keyed person played
    column("unrated", sa.Text, since=3),  # why it was not rated (NULL: rated)
    column("quick_resign", sa.Integer, nullable=False, server_default=sa.text("0"), since=3),
    since=2,
)
integrity_flags = table(  # one per player: the latest flag, cleared or not
    "integrity_flags",
    column("player_id", sa.Text, primary_key=True, since=3),
    column("rules_name", sa.Text, nullable=False, since=3),  # the ruleset whose slaps raised it
    column("since_game", GAME_ID, nullable=False, since=3),  # the first game of the evidence
    column("flagged_at", REAL, nullable=False, since=3),
    column("reasons", sa.Text, nullable=False, since=3),  # JSON list of sentences
    column("checked_slaps", sa.Integer, nullable=False, since=3),
    column("cleared_at", REAL, since=3),  # set when a moderator cleared it
    since=3,
)
arenas = table(  # timed tournaments (issue 50): which rooms play in one, its final standings
    "arenas",
    column("id", sa.Text, primary_key=True, since=5),  # random, public: /arenas/ID
    column("rules_name", sa.Text, nullable=False, since=5),  # a preset
    column("players", sa.Integer, nullable=False, since=5),  # 2 or 4 at a table
    column("starts_at", REAL, nullable=False, since=5),  # epoch seconds
    column("ends_at", REAL, nullable=False, since=5),
    column("created_at", REAL, nullable=False, since=5),
    column("creator", sa.Text, since=5),  # the creating player's public id (NULL: the operator)
    column("state", sa.Text, nullable=False, since=5),  # open | finished | cancelled
    column("finished_at", REAL, since=5),  # when its final standings were stored
    since=5,
)
arena_rooms = table(  # the rooms made for an arena's tables: their games started before its end count
    "arena_rooms",
    column("arena_id", sa.Text, sa.ForeignKey("arenas.id"), primary_key=True, since=5),
    column("code", sa.Text, primary_key=True, since=5),
    since=5,
)
arena_standings = table(  # an arena's final standings, stored when its last game is over
    "arena_standings",
    column("arena_id", sa.Text, sa.ForeignKey("arenas.id"), primary_key=True, since=5),
    column("player_id", sa.Text, primary_key=True, since=5),
    column("rank", sa.Integer, nullable=False, since=5),
    column("name", sa.Text, nullable=False, since=5),
    column("score", sa.Integer, nullable=False, since=5),
    column("games", sa.Integer, nullable=False, since=5),
    column("wins", sa.Integer, nullable=False, since=5),
    column("streak", sa.Integer, nullable=False, since=5),
    since=5,
)
seeks = table(  # quick play's pools, shared by every shard on PostgreSQL (issue 50)
    "seeks",
    column("player_id", sa.Text, primary_key=True, since=5),  # one row per player: one seek at a time
    column("state", sa.Text, nullable=False, since=5),  # waiting | matched | gone
    column("seek_id", sa.Text, since=5),  # the seek's socket, on the shard that holds it
    column("shard", sa.Text, nullable=False, server_default=sa.text("''"), since=5),
    column("rules", sa.Text, nullable=False, since=5),
    column("players", sa.Integer, nullable=False, since=5),
    column("arena", sa.Text, since=5),  # NULL: quick play
    column("name", sa.Text, nullable=False, since=5),
    column("rating", REAL, nullable=False, since=5),
    column("standing", REAL, nullable=False, server_default=sa.text("0"), since=5),
    column("sought_at", REAL, nullable=False, since=5),  # epoch s; its waves are counted from it
    column("alive_at", REAL, nullable=False, server_default=sa.text("0"), since=5),  # its shard's last word
    column("front", sa.Integer, nullable=False, server_default=sa.text("0"), since=5),
    column("front_until", REAL, since=5),  # after a no-show: the next seek goes to the front
    column("last_opponents", sa.Text, nullable=False, server_default=sa.text("'[]'"), since=5),
    column("room", sa.Text, since=5),  # the matched table's room
    column("seat", sa.Integer, since=5),
    column("table_players", sa.Text, since=5),  # JSON: the table's seekers in seat order
    since=5,
    only="postgresql",
)

INDEXES: tuple[tuple[int, str, str, tuple[str, ...], DialectName | None], ...] = (
    (1, "results_by_player", "results", ("token_hash",), None),
    (1, "games_by_rules", "games", ("rules_name", "status"), None),
    (1, "rate_events_by_key", "rate_events", ("what", "address", "at"), "postgresql"),
    (2, "results_by_player_id", "results", ("player_id",), None),
    (3, "rating_updates_by_game", "rating_updates", ("game_id",), None),  # who met whom
    (5, "arenas_by_end", "arenas", ("state", "ends_at"), None),
    (5, "arena_rooms_by_code", "arena_rooms", ("code",), None),
    (5, "arena_standings_by_player", "arena_standings", ("player_id",), None),
    (5, "seeks_by_pool", "seeks", ("state", "rules", "players"), "postgresql"),
    (5, "seeks_by_seek", "seeks", ("seek_id",), "postgresql"),
)
"""Each index: the version it appeared in, its name, table and columns, and ``only``."""

DATA_STEPS: dict[int, tuple[str, ...]] = {
    # games finished before ratings existed are marked as rated (with nobody in them), so they
    # are never rated later
    2: ("INSERT INTO rated_games (game_id, at, participants) "
        "SELECT id, finished_at, 0 FROM games WHERE status = 'over'",),
}
"""Portable SQL a migration runs after its tables and columns exist."""


def _dialect(name: DialectName) -> Dialect:
    if name == "sqlite":
        from sqlalchemy.dialects import sqlite

        return sqlite.dialect(paramstyle="named")
    from sqlalchemy.dialects.postgresql import psycopg2

    # psycopg2's compiler writes %(name)s marks without casts, which psycopg 3 runs as they are
    return psycopg2.dialect()  # type: ignore[no-untyped-call]


@cache
def dialect(name: DialectName) -> Dialect:
    """The SQLAlchemy dialect statements are compiled with for this database (named marks:
    ``:name`` for sqlite3, ``%(name)s`` for psycopg)."""
    return _dialect(name)


def _since(item: sa.Table | sa.Column[Any]) -> int:
    return int(item.info.get("since", 1))


def _present(where: sa.Table, name: DialectName) -> bool:
    only = where.info.get("only")
    return only is None or only == name


def _table_at(source: sa.Table, version: int, into: sa.MetaData) -> sa.Table:
    """``source`` as it was in schema ``version``: only the columns it had then."""
    kept = []
    for original in source.columns:
        if _since(original) <= version:
            copied = original._copy()
            for key in original.foreign_keys:  # a column's copy leaves its references behind
                copied.append_foreign_key(sa.ForeignKey(key.target_fullname))
            kept.append(copied)
    return sa.Table(source.name, into, *kept, **source.kwargs)


@cache
def migration_statements(name: DialectName, number: int) -> tuple[str, ...]:
    """Migration ``number`` (1 first) as SQL statements in ``name``'s dialect."""
    if not 1 <= number <= VERSION:
        raise ValueError(f"no migration {number}")
    compiler = dialect(name)
    at_version = sa.MetaData()
    tables = {t.name: _table_at(t, number, at_version) for t in metadata.sorted_tables
              if _since(t) <= number and _present(t, name)}
    statements: list[str] = []
    for source in metadata.sorted_tables:
        if source.name not in tables:
            continue
        if _since(source) == number:
            statements.append(str(CreateTable(tables[source.name]).compile(dialect=compiler)).strip())
        else:
            for added in source.columns:
                if _since(added) == number:
                    definition = CreateColumn(tables[source.name].c[added.name]).compile(dialect=compiler)
                    statements.append(f"ALTER TABLE {source.name} ADD COLUMN {definition}")
    for since, index_name, table_name, columns, only in INDEXES:
        if since == number and (only is None or only == name):
            where = tables[table_name]
            index = sa.Index(index_name, *(where.c[c] for c in columns))
            statements.append(str(CreateIndex(index).compile(dialect=compiler)).strip())
    statements.extend(DATA_STEPS.get(number, ()))
    return tuple(statements)


MIGRATIONS: tuple[int, ...] = tuple(range(1, VERSION + 1))
"""The schema versions, each reached by its migration (`migration_statements`)."""


def bring_to_current(execute: Callable[..., Any], name: DialectName,
                     shown: str) -> None:
    """Make the database current: create the schema of an empty one or run the migrations an
    older one lacks, and record `VERSION`. It runs inside the caller's transaction (and lock):
    ``execute(sql)`` or ``execute(sql, params)`` runs one statement on the caller's connection
    (sqlite3's or psycopg's ``execute``: no parameters, so no placeholder parsing, where there
    are none) and returns its cursor. A database from a newer ratscrew is refused
    with a `StoreError` naming ``shown``."""
    mark = "?" if name == "sqlite" else "%s"
    execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = execute("SELECT version FROM schema_version").fetchone()
    version = 0 if row is None else int(row[0])
    if version > len(MIGRATIONS):
        raise StoreError(f"the database {shown} is from a newer ratscrew (schema {version}, "
                         f"this one knows {len(MIGRATIONS)}); upgrade ratscrew")
    for number in MIGRATIONS[version:]:
        for statement in migration_statements(name, number):
            execute(statement)
    if row is None:
        execute(f"INSERT INTO schema_version VALUES ({mark})", (len(MIGRATIONS),))
    else:
        execute(f"UPDATE schema_version SET version = {mark}", (len(MIGRATIONS),))


def statements_up_to(name: DialectName, version: int) -> Sequence[str]:
    """Every statement that makes an empty database one at schema ``version`` (for tests of
    old databases)."""
    return [s for number in range(1, version + 1) for s in migration_statements(name, number)]
