"""The server's storage: a small interface, `Store`, and its two implementations.

`SqliteStore` (this module) is the embedded default: one file, one server process.
`ratscrew.server.pgstore.PostgresStore` keeps the same things in PostgreSQL, so several server
processes (shards, see :mod:`ratscrew.server.shards`) share finished games, statistics,
leaderboards, replays and the per-address limits. `open_store` picks one from ``--db``: a file
path, or a ``postgresql://`` URL.

What is kept: each room (its settings and seats, the hashes of its seats' tokens, never the
tokens), every game (deal, seed, rules), every accepted action of a game as it happens (the
engine is deterministic, so the deal plus the timed actions is the whole game, and a restarted
server rebuilds a game in progress by replaying them), each finished game's record and each
seat's result (the statistics and leaderboards are drawn from those).

The schema is created and migrated by the app at start-up: the ``schema_version`` table says
which of `MIGRATIONS` have run (PostgreSQL runs the same numbered migrations in its own
dialect). Every write is one transaction, committed when the method returns, so an accepted
action is stored before anyone is shown its effect. SQLite is opened in WAL mode with
``synchronous=NORMAL``: a transaction is in the write-ahead log when ``commit`` returns, so a
killed server process loses nothing it committed. Only one server may use a SQLite database at a
time (a lock file next to it says so), and a database that is corrupt, locked or from a newer
version is refused with a `StoreError` that says what to do, rather than risking the data in it.
A database that cannot be reached for a while (PostgreSQL restarting) raises `StoreUnavailable`
from the method that needed it; the room then pauses until the database is back.

>>> store = SqliteStore(":memory:")
>>> store.schema_version
3
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from ratscrew.server.ranking import (
    PROVISIONAL_GAMES,
    conservative,
    leaderboard_rows,
    stats_of,
)
from ratscrew.server.rated import FARM_WINDOW_S, MIN_OPPONENTS
from ratscrew.storage.records import (
    BOT_PREFIX,
    FinishedGame,
    GameInProgress,
    GameRating,
    NameTaken,
    PlayerRow,
    RateCounter,
    Rater,
    Rating,
    RatingChange,
    RoomRow,
    SeatResult,
    SeatRow,
    StoreError,
    StoreInUse,
    StoreUnavailable,
    fold_name,
    new_server_id,
    participant,
)

__all__ = ["BOT_PREFIX", "PROVISIONAL_GAMES", "FinishedGame", "GameInProgress", "GameRating",
           "NameTaken", "PlayerRow", "RateCounter", "Rater", "Rating", "RatingChange", "RoomRow",
           "SeatResult", "SeatRow", "StoreError", "StoreInUse", "StoreUnavailable", "conservative",
           "fold_name", "leaderboard_rows", "new_server_id", "participant", "stats_of"]

MIGRATIONS: tuple[str, ...] = (
    # 1: rooms, seats, games, their actions, the judging of human actions, results.
    """
    CREATE TABLE rooms (
        code TEXT PRIMARY KEY,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        settings TEXT NOT NULL,          -- JSON: rules (TOML), seats, seed, pace, timeout, judging
        host_hash TEXT,
        phase TEXT NOT NULL,             -- lobby | playing | over | closed
        games_played INTEGER NOT NULL DEFAULT 0,
        game_id INTEGER                  -- the current or last game
    );
    CREATE TABLE seats (
        code TEXT NOT NULL REFERENCES rooms(code),
        seat INTEGER NOT NULL,
        kind TEXT NOT NULL,              -- open | human | bot
        name TEXT,
        bot TEXT,
        token_hash TEXT,
        PRIMARY KEY (code, seat)
    );
    CREATE TABLE members (               -- tokens of people without a seat (a host who watches)
        code TEXT NOT NULL REFERENCES rooms(code),
        token_hash TEXT NOT NULL,
        name TEXT NOT NULL,
        PRIMARY KEY (code, token_hash)
    );
    CREATE TABLE kicked (
        code TEXT NOT NULL REFERENCES rooms(code),
        token_hash TEXT NOT NULL,
        PRIMARY KEY (code, token_hash)
    );
    CREATE TABLE games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        code TEXT NOT NULL REFERENCES rooms(code),
        number INTEGER NOT NULL,
        rules_name TEXT NOT NULL,
        start TEXT NOT NULL,             -- JSON: rules, hands, leader, seed, names, room
        clock_start REAL NOT NULL,       -- room time at which the game started
        started_at REAL NOT NULL,
        finished_at REAL,
        status TEXT NOT NULL,            -- playing | over
        winner INTEGER,
        reason TEXT,
        record TEXT
    );
    CREATE TABLE actions (
        game_id INTEGER NOT NULL REFERENCES games(id),
        n INTEGER NOT NULL,
        kind TEXT NOT NULL,
        seat INTEGER,
        at INTEGER NOT NULL,
        PRIMARY KEY (game_id, n)
    );
    CREATE TABLE judged (
        game_id INTEGER NOT NULL REFERENCES games(id),
        n INTEGER NOT NULL,
        entry TEXT NOT NULL,             -- JSON, see docs/protocol.md ("judging")
        PRIMARY KEY (game_id, n)
    );
    CREATE TABLE results (
        game_id INTEGER NOT NULL REFERENCES games(id),
        seat INTEGER NOT NULL,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        token_hash TEXT,
        won INTEGER NOT NULL,
        slaps INTEGER NOT NULL,
        misslaps INTEGER NOT NULL,
        reactions TEXT NOT NULL,         -- JSON list of ms
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX results_by_player ON results(token_hash);
    CREATE INDEX games_by_rules ON games(rules_name, status);
    """,
    # 2: players (keys, public ids, names), ratings and their updates (docs/online.md, "Players
    # and ratings"). A seat and a result name their player. Games finished before ratings
    # existed are marked as rated (with nobody in them), so they are never rated later.
    """
    CREATE TABLE server_info (
        key TEXT PRIMARY KEY,            -- server_id: this server's random identity
        value TEXT NOT NULL
    );
    CREATE TABLE players (
        id TEXT PRIMARY KEY,             -- the public id: random, never derived from the key
        key_hash TEXT NOT NULL UNIQUE,   -- SHA-256 of the player key, never the key
        name TEXT NOT NULL,              -- the latest name chosen with this key
        name_folded TEXT NOT NULL UNIQUE, -- the name casefolded: two keys never hold one name
        created_at REAL NOT NULL,
        seen_at REAL NOT NULL
    );
    ALTER TABLE seats ADD COLUMN player_id TEXT;
    ALTER TABLE results ADD COLUMN player_id TEXT;
    ALTER TABLE results ADD COLUMN bot TEXT;
    ALTER TABLE results ADD COLUMN place INTEGER;        -- set when the game is rated
    ALTER TABLE results ADD COLUMN patterns TEXT;        -- JSON, set when the game is rated
    CREATE INDEX results_by_player_id ON results(player_id);
    CREATE TABLE ratings (
        participant TEXT NOT NULL,       -- a player id, or bot:LEVEL
        rules_name TEXT NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        games INTEGER NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (participant, rules_name)
    );
    CREATE TABLE rating_updates (
        participant TEXT NOT NULL,
        rules_name TEXT NOT NULL,
        game_id INTEGER NOT NULL REFERENCES games(id),
        mu_before REAL NOT NULL,
        sigma_before REAL NOT NULL,
        mu_after REAL NOT NULL,
        sigma_after REAL NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (participant, rules_name, game_id)
    );
    CREATE TABLE rated_games (           -- a game is rated once: this row and its updates are
        game_id INTEGER PRIMARY KEY REFERENCES games(id), -- written in one transaction
        at REAL NOT NULL,
        participants INTEGER NOT NULL    -- how many were rated (0: no keyed person played)
    );
    INSERT INTO rated_games SELECT id, finished_at, 0 FROM games WHERE status = 'over';
    """,
    # 3: a ladder you can trust (issue 30, docs/fairness.md "Integrity"): why a game was not
    # rated, whether it ended in a quick resignation (farming), and integrity flags.
    """
    ALTER TABLE rated_games ADD COLUMN unrated TEXT;     -- why it was not rated (NULL: rated)
    ALTER TABLE rated_games ADD COLUMN quick_resign INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE integrity_flags (       -- one per player: the latest flag, cleared or not
        player_id TEXT PRIMARY KEY,
        rules_name TEXT NOT NULL,        -- the ruleset whose slaps raised it
        since_game INTEGER NOT NULL,     -- the first game of the evidence
        flagged_at REAL NOT NULL,
        reasons TEXT NOT NULL,           -- JSON list of sentences
        checked_slaps INTEGER NOT NULL,
        cleared_at REAL                  -- set when a moderator cleared it
    );
    -- who met whom in rated games (the ranking's different opponents)
    CREATE INDEX rating_updates_by_game ON rating_updates(game_id);
    """,
)
"""The schema, one script per version; a new version appends a script, never edits one."""


class Store(Protocol):
    """What rooms and routes may ask of the storage: the methods of `SqliteStore`, each one
    transaction. Implementations: `SqliteStore`, `ratscrew.server.pgstore.PostgresStore`;
    ``tests/test_store_contract.py`` runs the same tests against both."""

    @property
    def schema_version(self) -> int:
        """The schema version of the open database."""
        ...

    @property
    def description(self) -> str:
        """The database, as shown to people (a URL without its password)."""
        ...

    def close(self) -> None:
        """Close the database (and release what this process holds on it)."""

    def claim(self, shard: str | None) -> None:
        """Make this process the only one serving ``shard``'s rooms on this database (``None``:
        every room); `StoreError` when another process already does."""

    def reachable(self) -> bool:
        """Whether the database answers now (blocks for at most a few seconds); after
        `StoreUnavailable`, True means the store can be used again."""
        ...

    def rate_counter(self, what: str, limit: int, window_s: float) -> RateCounter | None:
        """A per-address counter that every process on this database shares, or ``None`` when
        only one process uses the database (the app then counts in memory)."""
        ...

    def room_exists(self, code: str) -> bool:
        """Whether a room with this code was ever created."""
        ...

    def save_room(self, code: str, settings: dict[str, Any], host_hash: str | None, phase: str,
                  games_played: int, game_id: int | None, seats: Sequence[SeatRow]) -> None:
        """Write a room and its seats (created or updated)."""

    def add_member(self, code: str, token_hash: str, name: str) -> None:
        """Remember the token of someone without a seat (so a watching host stays host)."""

    def add_kicked(self, code: str, token_hash: str) -> None:
        """A token the host removed: it no longer works in this room."""

    def load_rooms(self, shard: str | None = None) -> list[RoomRow]:
        """Every room that is not closed (only those whose code begins with ``shard``)."""
        ...

    def load_room(self, code: str) -> RoomRow | None:
        """One room as stored, if it exists."""
        ...

    def close_room(self, code: str) -> bool:
        """Mark a room closed (`ratscrew.server.expiry`): never loaded again, and a later
        `save_room` leaves it closed. False when there is no such open room."""
        ...

    def closed_among(self, codes: Sequence[str]) -> set[str]:
        """Which of ``codes`` are closed (an operator may close a room a server still holds)."""
        ...

    def list_rooms(self, include_closed: bool = False) -> list[dict[str, Any]]:
        """Every room (``code``, ``phase``, ``created_at``, ``updated_at``, ``games_played``),
        oldest first; closed ones only with ``include_closed``."""
        ...

    def start_game(self, code: str, number: int, rules_name: str, start: dict[str, Any],
                   clock_start: float) -> int:
        """Record a new game (its deal and everything needed to rebuild it); returns its id."""
        ...

    def append_actions(self, game_id: int, first: int,
                       actions: Sequence[tuple[str, int | None, int]]) -> None:
        """Append accepted actions numbered from ``first``, in one transaction."""

    def append_judged(self, game_id: int, first: int, entries: Sequence[dict[str, Any]]) -> None:
        """Append how human actions were judged (see docs/protocol.md, "judging")."""

    def append_step(self, game_id: int, first_action: int,
                    actions: Sequence[tuple[str, int | None, int]], first_judged: int,
                    judged: Sequence[dict[str, Any]]) -> None:
        """`append_actions` and `append_judged` of one step, in one transaction."""

    def game_in_progress(self, game_id: int) -> GameInProgress | None:
        """A game still being played, with every action stored so far."""
        ...

    def finish_game(self, game_id: int, record: dict[str, Any], winner: int | None,
                    reason: str | None, results: Sequence[SeatResult]) -> None:
        """Store a finished game's record and each seat's result."""

    def game_record(self, game_id: int) -> dict[str, Any] | None:
        """The stored record of a finished game, or ``None``."""
        ...

    def game_count(self) -> int:
        """How many games have finished."""
        ...

    def player_stats(self, token_hash: str, rules_name: str | None = None) -> dict[str, Any]:
        """One player's figures over their finished games (all rulesets, or one)."""
        ...

    def leaderboard(self, rules_name: str, limit: int = 50) -> list[dict[str, Any]]:
        """The rated players of this ruleset, best rating (mu - 3 sigma) first, each with
        ``rank``, ``rating``, ``rating_sigma``, ``provisional``, ``player_id`` and their
        figures (guests and bots are not listed)."""
        ...

    # -- players and ratings (docs/online.md, "Players and ratings")

    def server_id(self) -> str:
        """This server's random identity (made once, kept in the store): import codes carry
        a check of it, so a code from another server is told apart."""
        ...

    def enter_player(self, key_hash: str, name: str, new_id: str) -> PlayerRow:
        """The player of this key hash, now named ``name``; a key never seen before becomes a
        player with the public id ``new_id``. `NameTaken` (and nothing changed) when another
        key holds the name (compared casefolded)."""
        ...

    def player(self, player_id: str) -> PlayerRow | None:
        """The player with this public id, if any."""
        ...

    def player_by_key(self, key_hash: str) -> PlayerRow | None:
        """The player of this key hash, if any."""
        ...

    def rate_game(self, game_id: int, rater: Rater) -> GameRating | None:
        """Rate a finished game exactly once: in one transaction, check it is not rated yet,
        call ``rater`` with the current ratings of its participants, store each change (and
        the places and slaps by pattern it found) and mark the game rated. ``None`` when the
        game is already rated or not finished."""
        ...

    def unrated_games(self) -> list[int]:
        """Finished games not rated yet (a server stopped between the end and the rating),
        oldest first."""
        ...

    def ratings_of(self, participant: str) -> list[dict[str, Any]]:
        """Every ruleset ``participant`` is rated in: ``rules``, ``mu``, ``sigma``, ``games``,
        and ``rank`` among players (``None`` for a bot)."""
        ...

    def rating_history(self, participant: str, rules_name: str) -> list[dict[str, Any]]:
        """Every rating update of ``participant`` in a ruleset, oldest first: ``game_id``,
        ``at`` (epoch seconds), ``mu_before``, ``sigma_before``, ``mu_after``, ``sigma_after``."""
        ...

    def player_games(self, player_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """The player's latest finished games, newest first: ``id``, ``rules``,
        ``finished_at``, ``place``, ``players``, ``won``, ``slaps``, ``misslaps``,
        ``reactions`` (ms) and ``patterns`` (``None`` until the game is rated)."""
        ...

    def bot_reactions(self, limit: int = 500) -> dict[str, list[int]]:
        """Each bot level's latest slap reaction times (ms) in games stored here."""
        ...

    def game_players(self, game_id: int) -> list[tuple[str, str]]:
        """Each keyed player of a finished game and the game's ruleset."""
        ...

    def integrity_flag(self, player_id: str) -> dict[str, Any] | None:
        """The player's latest integrity flag (``rules``, ``since_game``, ``flagged_at``,
        ``reasons``, ``checked_slaps``, ``cleared_at``), or ``None`` if never flagged."""
        ...

    def flag_player(self, player_id: str, rules_name: str, since_game: int, reasons: Sequence[str],
                    checked_slaps: int) -> None:
        """Flag a player, and in the same transaction take back the ratings of every game of
        ``rules_name`` from ``since_game`` on (`ratscrew.server.ratings.catch_up` rates them
        again, the flagged player's games now unrated)."""
        ...

    def clear_flag(self, player_id: str) -> bool:
        """A moderator cleared the player's flag: mark it cleared and take back the ratings
        from its evidence on (to be rated again); ``False`` if there was no flag to clear."""
        ...


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
            from ratscrew.server.pgstore import PostgresStore
        except ImportError:
            raise StoreError("a postgresql:// database needs the PostgreSQL driver: "
                             "pip install 'ratscrew[postgres]'") from None
        return PostgresStore(str(db))
    return SqliteStore(db)


class SqliteStore:
    """The SQLite database of one server (see the module docstring). ``":memory:"`` keeps
    everything in memory, for tests."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock_file: int | None = None
        if self.path != ":memory:":
            self._take_lock()
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=2.0,
                                       check_same_thread=False)
            self._db.row_factory = sqlite3.Row
            self._check_and_migrate()
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

    def _check_and_migrate(self) -> None:
        db = self._db
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
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT version FROM schema_version").fetchone()
            version = 0 if row is None else int(row[0])
            if version > len(MIGRATIONS):
                raise StoreError(f"the database {self.path} is from a newer ratscrew (schema "
                                 f"{version}, this one knows {len(MIGRATIONS)}); upgrade ratscrew")
            for number in range(version, len(MIGRATIONS)):
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        db.execute(statement)
            if row is None:
                db.execute("INSERT INTO schema_version VALUES (?)", (len(MIGRATIONS),))
            else:
                db.execute("UPDATE schema_version SET version = ?", (len(MIGRATIONS),))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @property
    def schema_version(self) -> int:
        """The schema version of the open database."""
        return int(self._db.execute("SELECT version FROM schema_version").fetchone()[0])

    @property
    def description(self) -> str:
        """The database file."""
        return self.path

    def claim(self, shard: str | None) -> None:
        """Nothing to do: the lock file already keeps every other server off this file."""

    def reachable(self) -> bool:
        """A local file is always there."""
        return True

    def rate_counter(self, what: str, limit: int, window_s: float) -> RateCounter | None:
        """None: one process uses a SQLite file, so it counts in memory."""
        return None

    def close(self) -> None:
        """Close the database and release its lock."""
        self._db.close()
        self._release_lock()

    def _write(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> None:
        db = self._db
        db.execute("BEGIN")
        try:
            for sql, params in statements:
                db.execute(sql, params)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _write_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        db = self._db
        db.execute("BEGIN")
        try:
            db.executemany(sql, rows)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    # ------------------------------------------------------------------ rooms

    def room_exists(self, code: str) -> bool:
        """Whether a room with this code was ever created."""
        return self._db.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone() is not None

    def save_room(self, code: str, settings: dict[str, Any], host_hash: str | None, phase: str,
                  games_played: int, game_id: int | None, seats: Sequence[SeatRow]) -> None:
        """Write a room and its seats (created or updated)."""
        now = time.time()
        statements: list[tuple[str, Sequence[Any]]] = [
            ("INSERT INTO rooms (code, created_at, updated_at, settings, host_hash, phase, "
             "games_played, game_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(code) DO UPDATE "
             "SET updated_at = excluded.updated_at, settings = excluded.settings, "
             "host_hash = excluded.host_hash, phase = excluded.phase, "
             "games_played = excluded.games_played, game_id = excluded.game_id "
             "WHERE rooms.phase != 'closed'",
             (code, now, now, json.dumps(settings), host_hash, phase, games_played, game_id)),
            ("DELETE FROM seats WHERE code = ?", (code,)),
        ]
        statements += [("INSERT INTO seats (code, seat, kind, name, bot, token_hash, player_id) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (code, s.seat, s.kind, s.name, s.bot, s.token_hash, s.player_id))
                       for s in seats]
        self._write(statements)

    def add_member(self, code: str, token_hash: str, name: str) -> None:
        """Remember the token of someone without a seat (so a watching host stays host)."""
        self._write([("INSERT OR REPLACE INTO members VALUES (?, ?, ?)", (code, token_hash, name))])

    def add_kicked(self, code: str, token_hash: str) -> None:
        """A token the host removed: it no longer works in this room."""
        self._write([("INSERT OR IGNORE INTO kicked VALUES (?, ?)", (code, token_hash)),
                     ("DELETE FROM members WHERE code = ? AND token_hash = ?", (code, token_hash))])

    def load_rooms(self, shard: str | None = None) -> list[RoomRow]:
        """Every room that is not closed, with its seats (only codes beginning with ``shard``)."""
        sql, params = "SELECT * FROM rooms WHERE phase != 'closed'", []
        if shard is not None:
            sql += " AND substr(code, 1, 1) = ?"
            params.append(shard)
        return [self._room_row(row) for row in self._db.execute(sql + " ORDER BY created_at", params)]

    def load_room(self, code: str) -> RoomRow | None:
        """One room as stored, if it exists."""
        row = self._db.execute("SELECT * FROM rooms WHERE code = ?", (code,)).fetchone()
        return None if row is None else self._room_row(row)

    def close_room(self, code: str) -> bool:
        """Mark a room closed (see `Store.close_room`)."""
        cursor = self._db.execute("UPDATE rooms SET phase = 'closed', updated_at = ? "
                                  "WHERE code = ? AND phase != 'closed'", (time.time(), code))
        return cursor.rowcount > 0

    def closed_among(self, codes: Sequence[str]) -> set[str]:
        """Which of ``codes`` are closed."""
        closed: set[str] = set()
        for start in range(0, len(codes), 500):
            chunk = list(codes[start:start + 500])
            marks = ", ".join("?" * len(chunk))
            closed |= {row[0] for row in self._db.execute(
                f"SELECT code FROM rooms WHERE phase = 'closed' AND code IN ({marks})", chunk)}
        return closed

    def list_rooms(self, include_closed: bool = False) -> list[dict[str, Any]]:
        """Every room, oldest first (see `Store.list_rooms`)."""
        where = "" if include_closed else " WHERE phase != 'closed'"
        return [dict(row) for row in self._db.execute(
            "SELECT code, phase, created_at, updated_at, games_played FROM rooms"
            f"{where} ORDER BY created_at, code")]

    def _room_row(self, row: sqlite3.Row) -> RoomRow:
        code = row["code"]
        seats = tuple(SeatRow(r["seat"], r["kind"], r["name"], r["bot"], r["token_hash"],
                              r["player_id"])
                      for r in self._db.execute(
                          "SELECT * FROM seats WHERE code = ? ORDER BY seat", (code,)))
        members = {r["token_hash"]: r["name"] for r in self._db.execute(
            "SELECT token_hash, name FROM members WHERE code = ?", (code,))}
        kicked = frozenset(r[0] for r in self._db.execute(
            "SELECT token_hash FROM kicked WHERE code = ?", (code,)))
        return RoomRow(code, json.loads(row["settings"]), row["host_hash"], row["phase"],
                       row["games_played"], row["game_id"], seats, members, kicked)

    # ------------------------------------------------------------------ games

    def start_game(self, code: str, number: int, rules_name: str, start: dict[str, Any],
                   clock_start: float) -> int:
        """Record a new game (its deal and everything needed to rebuild it); returns its id."""
        cursor = self._db.execute(
            "INSERT INTO games (code, number, rules_name, start, clock_start, started_at, status) "
            "VALUES (?, ?, ?, ?, ?, ?, 'playing')",
            (code, number, rules_name, json.dumps(start), clock_start, time.time()))
        assert cursor.lastrowid is not None
        return int(cursor.lastrowid)

    def append_actions(self, game_id: int, first: int,
                       actions: Sequence[tuple[str, int | None, int]]) -> None:
        """Append accepted actions numbered from ``first``, in one transaction."""
        if actions:
            self._write_many("INSERT INTO actions (game_id, n, kind, seat, at) VALUES (?, ?, ?, ?, ?)",
                             [(game_id, first + i, kind, seat, at)
                              for i, (kind, seat, at) in enumerate(actions)])

    def append_judged(self, game_id: int, first: int, entries: Sequence[dict[str, Any]]) -> None:
        """Append how human actions were judged (see docs/protocol.md, "judging")."""
        if entries:
            self._write_many("INSERT INTO judged (game_id, n, entry) VALUES (?, ?, ?)",
                             [(game_id, first + i, json.dumps(entry))
                              for i, entry in enumerate(entries)])

    def append_step(self, game_id: int, first_action: int,
                    actions: Sequence[tuple[str, int | None, int]], first_judged: int,
                    judged: Sequence[dict[str, Any]]) -> None:
        """`append_actions` and `append_judged` of one step, in one transaction (one commit
        per step is most of what storing costs a room)."""
        db = self._db
        db.execute("BEGIN")
        try:
            db.executemany("INSERT INTO actions (game_id, n, kind, seat, at) VALUES (?, ?, ?, ?, ?)",
                           [(game_id, first_action + i, kind, seat, at)
                            for i, (kind, seat, at) in enumerate(actions)])
            db.executemany("INSERT INTO judged (game_id, n, entry) VALUES (?, ?, ?)",
                           [(game_id, first_judged + i, json.dumps(entry))
                            for i, entry in enumerate(judged)])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def game_in_progress(self, game_id: int) -> GameInProgress | None:
        """A game still being played, with every action stored so far."""
        row = self._db.execute("SELECT * FROM games WHERE id = ? AND status = 'playing'",
                               (game_id,)).fetchone()
        if row is None:
            return None
        actions = [(r["kind"], r["seat"], r["at"]) for r in self._db.execute(
            "SELECT kind, seat, at FROM actions WHERE game_id = ? ORDER BY n", (game_id,))]
        judged = [json.loads(r[0]) for r in self._db.execute(
            "SELECT entry FROM judged WHERE game_id = ? ORDER BY n", (game_id,))]
        return GameInProgress(game_id, json.loads(row["start"]), row["clock_start"], actions, judged)

    def finish_game(self, game_id: int, record: dict[str, Any], winner: int | None,
                    reason: str | None, results: Sequence[SeatResult]) -> None:
        """Store a finished game's record and each seat's result."""
        statements: list[tuple[str, Sequence[Any]]] = [
            ("UPDATE games SET status = 'over', finished_at = ?, winner = ?, reason = ?, record = ? "
             "WHERE id = ?", (time.time(), winner, reason, json.dumps(record), game_id)),
        ]
        statements += [(RESULT_UPSERT_SQL, result_values(game_id, r))
                       for r in results]
        self._write(statements)

    def game_record(self, game_id: int) -> dict[str, Any] | None:
        """The stored record of a finished game, or ``None``."""
        row = self._db.execute("SELECT record FROM games WHERE id = ? AND status = 'over'",
                               (game_id,)).fetchone()
        return None if row is None or row[0] is None else dict(json.loads(row[0]))

    def game_count(self) -> int:
        """How many games have finished (for logs and tests)."""
        return int(self._db.execute("SELECT COUNT(*) FROM games WHERE status = 'over'").fetchone()[0])

    # ------------------------------------------------------------------ statistics

    def player_stats(self, token_hash: str, rules_name: str | None = None) -> dict[str, Any]:
        """One player's figures over their finished games (all rulesets, or one)."""
        return stats_of(self._result_rows(rules_name, token_hash))

    def leaderboard(self, rules_name: str, limit: int = 50) -> list[dict[str, Any]]:
        """The rated players of this ruleset, best rating first (see `Store.leaderboard`)."""
        rated = self._query(LEADERBOARD_SQL, (rules_name, limit))
        rows = self._query(*player_rows_query(rules_name, [r["player_id"] for r in rated]))
        return leaderboard_rows(rated, rows)

    def _result_rows(self, rules_name: str | None, token_hash: str | None) -> list[dict[str, Any]]:
        sql, params = result_rows_query(rules_name, token_hash, "?")
        return [dict(row) for row in self._db.execute(sql, params)]

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return [dict(row) for row in self._db.execute(sql, params)]

    # ------------------------------------------------------------------ players and ratings

    def server_id(self) -> str:
        """This server's random identity, made the first time it is asked for."""
        self._write([("INSERT OR IGNORE INTO server_info VALUES ('server_id', ?)", (new_server_id(),))])
        return str(self._db.execute("SELECT value FROM server_info WHERE key = 'server_id'").fetchone()[0])

    def enter_player(self, key_hash: str, name: str, new_id: str) -> PlayerRow:
        """The player of this key, now named ``name`` (see `Store.enter_player`)."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            holder = db.execute("SELECT key_hash FROM players WHERE name_folded = ?",
                                (fold_name(name),)).fetchone()
            if holder is not None and holder[0] != key_hash:
                raise NameTaken(name)
            now = time.time()
            db.execute("INSERT INTO players (id, key_hash, name, name_folded, created_at, seen_at) "
                       "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(key_hash) DO UPDATE SET "
                       "name = excluded.name, name_folded = excluded.name_folded, "
                       "seen_at = excluded.seen_at", (new_id, key_hash, name, fold_name(name), now, now))
            row = db.execute("SELECT id, name FROM players WHERE key_hash = ?", (key_hash,)).fetchone()
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return PlayerRow(row[0], row[1])

    def player(self, player_id: str) -> PlayerRow | None:
        """The player with this public id, if any."""
        row = self._db.execute("SELECT id, name FROM players WHERE id = ?", (player_id,)).fetchone()
        return None if row is None else PlayerRow(row[0], row[1])

    def player_by_key(self, key_hash: str) -> PlayerRow | None:
        """The player of this key hash, if any."""
        row = self._db.execute("SELECT id, name FROM players WHERE key_hash = ?", (key_hash,)).fetchone()
        return None if row is None else PlayerRow(row[0], row[1])

    def rate_game(self, game_id: int, rater: Rater) -> GameRating | None:
        """Rate a finished game exactly once (see `Store.rate_game`): ``BEGIN IMMEDIATE`` takes
        the write lock before the game's rated mark is read."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            rating = self._rate_locked(game_id, rater)
            db.execute("COMMIT" if rating is not None else "ROLLBACK")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return rating

    def _rate_locked(self, game_id: int, rater: Rater) -> GameRating | None:
        db = self._db
        if db.execute("SELECT 1 FROM rated_games WHERE game_id = ?", (game_id,)).fetchone():
            return None
        game = db.execute("SELECT rules_name, record, winner FROM games WHERE id = ? AND status = 'over'",
                          (game_id,)).fetchone()
        if game is None:
            return None
        results = tuple(seat_result(dict(r)) for r in db.execute(
            "SELECT * FROM results WHERE game_id = ? ORDER BY seat", (game_id,)))
        finished = FinishedGame(game_id, game["rules_name"], json.loads(game["record"] or "{}"),
                                game["winner"], results,
                                *rating_context(self._query, results, time.time()))
        names = sorted({p for p in map(participant, results) if p is not None})
        current = {r["participant"]: Rating(r["mu"], r["sigma"], r["games"]) for r in self._query(
            *ratings_query(finished.rules_name, names))}
        rating = rater(finished, current)
        for sql, params in rating_statements(finished, current, rating, time.time(), "?"):
            db.execute(sql, params)
        return rating

    def unrated_games(self) -> list[int]:
        """Finished games not rated yet, oldest first."""
        return [int(r[0]) for r in self._db.execute(UNRATED_SQL)]

    def ratings_of(self, participant: str) -> list[dict[str, Any]]:
        """Every ruleset ``participant`` is rated in, with its rank among players."""
        return self._query(RATINGS_OF_SQL, (participant,))

    def rating_history(self, participant: str, rules_name: str) -> list[dict[str, Any]]:
        """Every rating update of ``participant`` in a ruleset, oldest first."""
        return self._query(HISTORY_SQL, (participant, rules_name))

    def player_games(self, player_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """The player's latest finished games, newest first (see `Store.player_games`)."""
        return [player_game(row) for row in self._query(PLAYER_GAMES_SQL, (player_id, limit))]

    def bot_reactions(self, limit: int = 500) -> dict[str, list[int]]:
        """Each bot level's latest slap reaction times in games stored here."""
        return bot_reaction_samples(self._query(BOT_REACTIONS_SQL, (BOT_GAMES_SCANNED,)), limit)

    # ------------------------------------------------------------------ integrity (issue 30)

    def game_players(self, game_id: int) -> list[tuple[str, str]]:
        """Each keyed player of a finished game and the game's ruleset."""
        return [(r["player_id"], r["rules"]) for r in self._query(GAME_PLAYERS_SQL, (game_id,))]

    def integrity_flag(self, player_id: str) -> dict[str, Any] | None:
        """The player's latest integrity flag, or ``None`` (see `Store.integrity_flag`)."""
        rows = self._query(FLAG_SQL, (player_id,))
        return flag_row(rows[0]) if rows else None

    def flag_player(self, player_id: str, rules_name: str, since_game: int, reasons: Sequence[str],
                    checked_slaps: int) -> None:
        """Flag a player and take back the ratings since the evidence (see `Store.flag_player`)."""
        self._write([(FLAG_INSERT_SQL, (player_id, rules_name, since_game, time.time(),
                                        json.dumps(list(reasons)), checked_slaps)),
                     *unrate_statements(rules_name, since_game)])

    def clear_flag(self, player_id: str) -> bool:
        """Clear the player's flag (see `Store.clear_flag`)."""
        flag = self.integrity_flag(player_id)
        if flag is None or flag["cleared_at"] is not None:
            return False
        self._write([(FLAG_CLEAR_SQL, (time.time(), player_id)),
                     *unrate_statements(flag["rules"], flag["since_game"])])
        return True


def result_rows_query(rules_name: str | None, token_hash: str | None,
                      mark: str) -> tuple[str, list[Any]]:
    """The finished results of people (one ruleset, one player, or all) in the order they were
    played, as SQL with ``mark`` for its parameters (``?`` for SQLite, ``%s`` for PostgreSQL)."""
    sql = ("SELECT r.*, g.finished_at FROM results r JOIN games g ON g.id = r.game_id "
           "WHERE r.token_hash IS NOT NULL AND g.status = 'over'")
    params: list[Any] = []
    if rules_name is not None:
        sql += f" AND g.rules_name = {mark}"
        params.append(rules_name)
    if token_hash is not None:
        sql += f" AND r.token_hash = {mark}"
        params.append(token_hash)
    return sql + " ORDER BY g.finished_at, r.game_id, r.seat", params


RESULT_COLUMNS = ("game_id, seat, kind, name, token_hash, won, slaps, misslaps, reactions, "
                  "player_id, bot")
"""The columns `SqliteStore.finish_game` writes (place and patterns come with the rating)."""

RESULT_UPSERT_SQL = (
    f"INSERT INTO results ({RESULT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (game_id, seat) DO UPDATE SET kind = excluded.kind, name = excluded.name, "
    "token_hash = excluded.token_hash, won = excluded.won, slaps = excluded.slaps, "
    "misslaps = excluded.misslaps, reactions = excluded.reactions, "
    "player_id = excluded.player_id, bot = excluded.bot")
"""A seat's result written again (a game finished twice) keeps its rating's place and patterns,
on both databases (``INSERT OR REPLACE`` would delete the row and null them)."""

def ranked_sql(alias: str) -> str:
    """SQL that is true when the rating row ``alias`` is *ranked* (issue 30): its player has
    rated games in the ruleset against `ratscrew.server.rated.MIN_OPPONENTS` different
    opponents and no integrity flag that is not cleared."""
    return (f"(SELECT COUNT(DISTINCT o.participant) FROM rating_updates u JOIN rating_updates o "
            f"ON o.game_id = u.game_id AND o.rules_name = u.rules_name AND o.participant <> u.participant "
            f"WHERE u.participant = {alias}.participant AND u.rules_name = {alias}.rules_name) "
            f">= {MIN_OPPONENTS} AND NOT EXISTS (SELECT 1 FROM integrity_flags f "
            f"WHERE f.player_id = {alias}.participant AND f.cleared_at IS NULL)")


LEADERBOARD_SQL = (
    "SELECT p.id AS player_id, p.name AS name, r.mu AS mu, r.sigma AS sigma, r.games AS rated "
    "FROM ratings r JOIN players p ON p.id = r.participant WHERE r.rules_name = ? "
    f"AND {ranked_sql('r')} "
    "ORDER BY r.mu - 3 * r.sigma DESC, r.games DESC, p.id LIMIT ?")

UNRATED_SQL = (
    "SELECT g.id FROM games g LEFT JOIN rated_games r ON r.game_id = g.id "
    "WHERE g.status = 'over' AND r.game_id IS NULL ORDER BY g.finished_at, g.id")

RATINGS_OF_SQL = (
    "SELECT r.rules_name AS rules, r.mu AS mu, r.sigma AS sigma, r.games AS games, "
    "CASE WHEN EXISTS (SELECT 1 FROM players p WHERE p.id = r.participant) "
    f"AND {ranked_sql('r')} THEN "
    "1 + (SELECT COUNT(*) FROM ratings x JOIN players q ON q.id = x.participant "
    "     WHERE x.rules_name = r.rules_name AND x.mu - 3 * x.sigma > r.mu - 3 * r.sigma "
    f"    AND {ranked_sql('x')}) "
    "ELSE NULL END AS rank "
    "FROM ratings r WHERE r.participant = ? ORDER BY r.games DESC, r.rules_name")

HISTORY_SQL = (
    "SELECT game_id, at, mu_before, sigma_before, mu_after, sigma_after FROM rating_updates "
    "WHERE participant = ? AND rules_name = ? ORDER BY at, game_id")

PLAYER_GAMES_SQL = (
    "SELECT g.id AS id, g.rules_name AS rules, g.finished_at AS finished_at, r.place AS place, "
    "r.seat AS seat, (SELECT q.unrated FROM rated_games q WHERE q.game_id = g.id) AS unrated, "
    "(SELECT COUNT(*) FROM results o WHERE o.game_id = g.id) AS players, r.won AS won, "
    "r.slaps AS slaps, r.misslaps AS misslaps, r.reactions AS reactions, r.patterns AS patterns "
    "FROM results r JOIN games g ON g.id = r.game_id "
    "WHERE r.player_id = ? AND g.status = 'over' ORDER BY g.finished_at DESC, g.id DESC LIMIT ?")

BOT_GAMES_SCANNED = 2000
"""The latest bot results read for the bots' reaction samples."""

BOT_REACTIONS_SQL = (
    "SELECT r.bot AS bot, r.reactions AS reactions FROM results r JOIN games g ON g.id = r.game_id "
    "WHERE r.bot IS NOT NULL AND g.status = 'over' ORDER BY g.finished_at DESC, g.id DESC LIMIT ?")


def result_values(game_id: int, r: SeatResult) -> tuple[Any, ...]:
    """One `SeatResult` as the values of `RESULT_COLUMNS`."""
    return (game_id, r.seat, r.kind, r.name, r.token_hash, int(r.won), r.slaps, r.misslaps,
            json.dumps(list(r.reactions)), r.player_id, r.bot)


def seat_result(row: Mapping[str, Any]) -> SeatResult:
    """A stored result row as a `SeatResult`."""
    return SeatResult(row["seat"], row["kind"], row["name"], row["token_hash"], bool(row["won"]),
                      row["slaps"], row["misslaps"], tuple(json.loads(row["reactions"])),
                      row["player_id"], row["bot"])


def _marks(count: int) -> str:
    return ", ".join(["?"] * count)


def ratings_query(rules_name: str, participants: Sequence[str]) -> tuple[str, list[Any]]:
    """The current ratings of ``participants`` in a ruleset (``?`` marks)."""
    if not participants:
        return "SELECT * FROM ratings WHERE 1 = 0", []
    return (f"SELECT * FROM ratings WHERE rules_name = ? AND participant IN ({_marks(len(participants))})",
            [rules_name, *participants])


def player_rows_query(rules_name: str, player_ids: Sequence[str]) -> tuple[str, list[Any]]:
    """The finished results of these players in a ruleset (``?`` marks), oldest first."""
    if not player_ids:
        return "SELECT * FROM results WHERE 1 = 0", []
    return ("SELECT r.*, g.finished_at FROM results r JOIN games g ON g.id = r.game_id "
            f"WHERE g.status = 'over' AND g.rules_name = ? AND r.player_id IN ({_marks(len(player_ids))}) "
            "ORDER BY g.finished_at, r.game_id, r.seat", [rules_name, *player_ids])


def rating_statements(game: FinishedGame, current: Mapping[str, Rating], rating: GameRating,
                      now: float, mark: str) -> list[tuple[str, Sequence[Any]]]:
    """The writes of one game's rating (``mark``: ``?`` or ``%s``): its rated mark, each
    seat's place and patterns, each participant's update and new rating."""
    statements: list[tuple[str, Sequence[Any]]] = [
        ("INSERT INTO rated_games (game_id, at, participants, unrated, quick_resign) "
         "VALUES (?, ?, ?, ?, ?)",
         (game.game_id, now, len(rating.changes), rating.unrated, int(rating.quick_resign)))]
    for seat, place in sorted(rating.places.items()):
        statements.append(("UPDATE results SET place = ?, patterns = ? WHERE game_id = ? AND seat = ?",
                           (place, json.dumps(rating.patterns.get(seat, {}), sort_keys=True),
                            game.game_id, seat)))
    for name, change in sorted(rating.changes.items()):
        games = current[name].games + 1 if name in current else 1
        statements.append((
            "INSERT INTO rating_updates (participant, rules_name, game_id, mu_before, sigma_before, "
            "mu_after, sigma_after, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (name, game.rules_name, game.game_id, change.mu_before, change.sigma_before,
             change.mu_after, change.sigma_after, now)))
        statements.append((
            "INSERT INTO ratings (participant, rules_name, mu, sigma, games, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (participant, rules_name) DO UPDATE SET "
            "mu = excluded.mu, sigma = excluded.sigma, games = excluded.games, "
            "updated_at = excluded.updated_at",
            (name, game.rules_name, change.mu_after, change.sigma_after, games, now)))
    return [(sql.replace("?", mark), params) for sql, params in statements]


def player_game(row: Mapping[str, Any]) -> dict[str, Any]:
    """One `Store.player_games` row from its SQL row."""
    return {"id": int(row["id"]), "rules": row["rules"], "finished_at": row["finished_at"],
            "seat": int(row["seat"]), "unrated": row["unrated"], "place": row["place"],
            "players": int(row["players"]), "won": bool(row["won"]),
            "slaps": row["slaps"], "misslaps": row["misslaps"],
            "reactions": list(json.loads(row["reactions"])),
            "patterns": None if row["patterns"] is None else json.loads(row["patterns"])}


def bot_reaction_samples(rows: Sequence[Mapping[str, Any]], limit: int) -> dict[str, list[int]]:
    """Each bot level's latest ``limit`` reaction times from result rows (newest first)."""
    samples: dict[str, list[int]] = {}
    for row in rows:
        times = samples.setdefault(row["bot"], [])
        if len(times) < limit:
            times.extend(json.loads(row["reactions"])[: limit - len(times)])
    return {level: times for level, times in samples.items() if times}


# ---------------------------------------------------------------------------------- integrity (issue 30)

GAME_PLAYERS_SQL = (
    "SELECT r.player_id AS player_id, g.rules_name AS rules FROM results r JOIN games g "
    "ON g.id = r.game_id WHERE r.game_id = ? AND g.status = 'over' AND r.kind = 'human' "
    "AND r.player_id IS NOT NULL ORDER BY r.seat")
FLAG_SQL = ("SELECT rules_name, since_game, flagged_at, reasons, checked_slaps, cleared_at "
            "FROM integrity_flags WHERE player_id = ?")
FLAG_INSERT_SQL = (
    "INSERT INTO integrity_flags (player_id, rules_name, since_game, flagged_at, reasons, "
    "checked_slaps, cleared_at) VALUES (?, ?, ?, ?, ?, ?, NULL) ON CONFLICT (player_id) DO UPDATE SET "
    "rules_name = excluded.rules_name, since_game = excluded.since_game, "
    "flagged_at = excluded.flagged_at, reasons = excluded.reasons, "
    "checked_slaps = excluded.checked_slaps, cleared_at = NULL")
FLAG_CLEAR_SQL = "UPDATE integrity_flags SET cleared_at = ? WHERE player_id = ? AND cleared_at IS NULL"


def flag_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """One `Store.integrity_flag` from its SQL row."""
    return {"rules": row["rules_name"], "since_game": int(row["since_game"]),
            "flagged_at": float(row["flagged_at"]), "reasons": list(json.loads(row["reasons"])),
            "checked_slaps": int(row["checked_slaps"]),
            "cleared_at": None if row["cleared_at"] is None else float(row["cleared_at"])}


def unrate_statements(rules_name: str, since_game: int) -> list[tuple[str, Sequence[Any]]]:
    """Take back the ratings of every game of ``rules_name`` from ``since_game`` on (``?``
    marks): their updates and rated marks go, and each participant's rating is again the one
    after their last update left (`ratscrew.server.ratings.catch_up` rates the games again)."""
    return [
        ("DELETE FROM rating_updates WHERE rules_name = ? AND game_id >= ?", (rules_name, since_game)),
        ("DELETE FROM rated_games WHERE game_id >= ? AND game_id IN "
         "(SELECT id FROM games WHERE rules_name = ?)", (since_game, rules_name)),
        ("DELETE FROM ratings WHERE rules_name = ?", (rules_name,)),
        ("INSERT INTO ratings (participant, rules_name, mu, sigma, games, updated_at) "
         "SELECT u.participant, u.rules_name, u.mu_after, u.sigma_after, "
         "(SELECT COUNT(*) FROM rating_updates c WHERE c.participant = u.participant "
         " AND c.rules_name = u.rules_name), u.at FROM rating_updates u WHERE u.rules_name = ? "
         "AND u.game_id = (SELECT MAX(m.game_id) FROM rating_updates m "
         " WHERE m.participant = u.participant AND m.rules_name = u.rules_name)", (rules_name,)),
    ]


def rating_context(query: Callable[[str, Sequence[Any]], list[dict[str, Any]]],
                   results: Sequence[SeatResult], now: float) -> tuple[int, frozenset[str]]:
    """What a game's rating needs from the store besides the game (``query`` runs SQL with
    ``?`` marks): earlier quick resignations between its keyed players within
    `ratscrew.server.rated.FARM_WINDOW_S`, and which of them are flagged."""
    keyed = sorted({r.player_id for r in results if r.kind == "human" and r.player_id})
    if not keyed:
        return 0, frozenset()
    marks = _marks(len(keyed))
    flagged = frozenset(str(r["player_id"]) for r in query(
        f"SELECT player_id FROM integrity_flags WHERE cleared_at IS NULL AND player_id IN ({marks})",
        keyed))
    earlier = 0
    if len(keyed) >= 2:
        rows = query("SELECT COUNT(*) AS n FROM rated_games q WHERE q.quick_resign = 1 AND q.at > ? "
                     f"AND (SELECT COUNT(DISTINCT r.player_id) FROM results r WHERE r.game_id = q.game_id "
                     f"AND r.player_id IN ({marks})) >= 2", [now - FARM_WINDOW_S, *keyed])
        earlier = int(rows[0]["n"]) if rows else 0
    return earlier, flagged
