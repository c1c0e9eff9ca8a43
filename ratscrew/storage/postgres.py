"""`PostgresStore`: the store in PostgreSQL, shared by several server processes (``ratscrew
serve --db postgresql://…``, shards). Its queries are `ratscrew.storage.store.SqlStore`'s, the
same as SQLite's; this module adds how PostgreSQL is reached, locked and counted in.

psycopg 3 with a connection pool (``psycopg_pool``): the pool replaces broken connections after
PostgreSQL restarts, and lets the outage probe run in a thread. Each method is one transaction,
committed when it returns, with PostgreSQL's default ``synchronous_commit = on``; a write's
statements are sent in one pipeline (one round trip for a step's actions and judgements).
The step writer's batches go on a connection of their own, driven through libpq on the event
loop (`ratscrew.storage.postgres_steps.StepsConnection`); what else the server asks while its
event loop runs (a room's saves and tokens, whether a code is taken, the per-address counts: the
``…_async`` methods) goes on another, in that loop (`ratscrew.storage.postgres_async`).

When PostgreSQL goes away, the method that needed it raises `StoreUnavailable` and the store
fails fast from then on (no call waits for a connection) until :meth:`PostgresStore.reachable`
finds the database back; the rooms pause meanwhile (see :mod:`ratscrew.server.room.outage`).

Shards: :meth:`PostgresStore.claim` takes a PostgreSQL advisory lock for the shard's letter (and
a shared one on the whole database; a process without a shard takes that one exclusively), held
on a connection of its own, so two processes can never serve the same rooms. Rating a game
holds another advisory lock, so games are rated one at a time across every process.

The per-address limits are counted in the ``rate_events`` table (`PostgresRateCounter`), so
they hold across every process on the database: one round trip a count (`rate_count_script`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit

import orjson
import psycopg
import sqlalchemy as sa
from psycopg import sql
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from ratscrew.storage.postgres_async import LoopConnection
from ratscrew.storage.postgres_steps import StepsConnection
from ratscrew.storage.records import (
    RateCounter,
    StepRows,
    StepsDone,
    StoreError,
    StoreInUse,
    StoreUnavailable,
)
from ratscrew.storage.schema import bring_to_current
from ratscrew.storage.sql import (
    Compiler,
    Conflict,
    Params,
    Rows,
    Statement,
    Write,
    row_params,
    rows_insert,
)
from ratscrew.storage.store import SqlStore, step_inserts

log = logging.getLogger("ratscrew.server")

NO_PARAMS: Params = {}

LOCK_SPACE = 0x52415453
"""The first key of ratscrew's advisory locks ("RATS"); the second is a shard's letter, 0 for
the whole database, `MIGRATION_LOCK` while migrating."""
MIGRATION_LOCK = 1
RATING_LOCK = 2
"""The second key of the advisory lock that rating a game holds: games are rated one at a time
across every process (a bot level's rating is shared by every shard's games)."""

CONNECT_TIMEOUT_S = 5
POOL_TIMEOUT_S = 3.0
"""The longest a store call waits for a connection before it reports the database unavailable."""

T = TypeVar("T")


def redact(url: str) -> str:
    """The URL without its password, to show in logs and errors.

    >>> redact("postgresql://ratscrew:s3cret@db.example:5432/ers?sslmode=require&password=x")
    'postgresql://ratscrew@db.example:5432/ers?sslmode=require'
    >>> redact("postgresql:///ers")
    'postgresql:///ers'
    """
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, host = netloc.rsplit("@", 1)
        netloc = f"{user.split(':', 1)[0]}@{host}"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k.lower() != "password"])
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")




STEPS_INSERT = """
WITH new_actions AS (
    INSERT INTO actions (game_id, n, kind, seat, at)
    SELECT * FROM json_to_recordset($1::json)
        AS action(game_id bigint, n int, kind text, seat int, at bigint)
)
INSERT INTO judged (game_id, n, entry)
SELECT * FROM json_to_recordset($2::json) AS judgement(game_id bigint, n int, entry text)
"""
"""A batch of steps (every room's, while the last batch was in flight) as one statement: each
table's rows one JSON array of objects (``$1`` the actions, ``$2`` the judgements, the order of
`steps_as_json`), turned into rows by ``json_to_recordset``; run by `StepsConnection`. Written for
PostgreSQL by hand, the store's one such statement, because it is the hot write and its text
does not change with the batch's size: a multi-row ``INSERT`` is a new statement for every size,
and ``executemany`` in a pipeline waits on the event loop once per part (begin, each table,
commit) while the loop is busy with 500 rooms. One statement is one transaction: all of the
batch or none. The rows go as JSON text (orjson, in C) rather than as one array per column:
psycopg builds array parameters element by element in Python, which was nearly half of the
shard's CPU per batch (``benchmarks/store_writes.py`` times the batch; docs/online.md)."""


def steps_as_json(steps: Sequence[StepRows]) -> tuple[str, str]:
    """The parameters of `STEPS_INSERT` for ``steps``: the actions' rows and the judgements'
    rows, each table's a JSON array.

    >>> actions, judged = steps_as_json([StepRows(7, 3, [("play", 1, 900), ("slap", 0, 950)], 2,
    ...                                            [{"seat": 0}])])
    >>> actions
    '[{"game_id":7,"n":3,"kind":"play","seat":1,"at":900},{"game_id":7,"n":4,"kind":"slap","seat":0,"at":950}]'
    >>> orjson.loads(judged)  # the judgement's own JSON, as a text
    [{'game_id': 7, 'n': 2, 'entry': '{"seat":0}'}]
    """
    params = {"actions": "[]", "judged": "[]"}
    for table, rows in step_inserts(steps):
        params[table.name] = orjson.dumps(rows).decode()
    return params["actions"], params["judged"]


class PostgresTransaction:
    """Statements on one pooled connection inside an open transaction."""

    def __init__(self, conn: psycopg.Connection[Any], compiler: Compiler) -> None:
        self.conn = conn
        self.compiler = compiler

    def rows(self, statement: Statement, params: Params = NO_PARAMS) -> list[dict[str, Any]]:
        """Run a statement and return its rows as dictionaries."""
        sql, values = self.compiler.sql(statement, params)
        with self.conn.cursor(row_factory=dict_row) as cursor:
            cursor.execute(sql, values)
            return cursor.fetchall() if cursor.description else []

    def run(self, statement: Statement, params: Params = NO_PARAMS) -> None:
        """Run a statement whose rows are not needed."""
        sql, values = self.compiler.sql(statement, params)
        self.conn.execute(sql, values)


class PostgresDatabase:
    """The pool of a `PostgresStore`: every call takes a connection, runs, and gives it back;
    losing the database makes the store unavailable (see the module docstring)."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
        self.compiler = Compiler("postgresql")
        self._chained: dict[tuple[tuple[str, tuple[str, ...], int], ...], sa.Insert] = {}
        """Each shape of `insert_rows` as one statement, kept so it is compiled once."""

    def rows(self, statement: Statement, params: Params = NO_PARAMS) -> list[dict[str, Any]]:
        """Run one statement (autocommit) and return its rows."""
        with self.store._connection() as conn:
            return PostgresTransaction(conn, self.compiler).rows(statement, params)

    def write(self, statements: Sequence[Write]) -> None:
        """Run ``statements`` in one transaction: one statement on its own (autocommit),
        several sent as one pipeline."""
        if len(statements) == 1:
            with self.store._connection() as conn:
                conn.execute(*self.compiler.sql(*statements[0]))
            return
        with self.store._connection() as conn, conn.transaction(), conn.pipeline():
            for statement, params in statements:
                conn.execute(*self.compiler.sql(statement, params))

    def insert_rows(self, inserts: Sequence[Rows]) -> None:
        """One statement (one round trip, its own transaction): a multi-row ``INSERT``, the
        inserts after the first chained to it as data-modifying ``WITH`` clauses."""
        if not inserts:
            return
        key = tuple((table.name, tuple(rows[0]), len(rows)) for table, rows in inserts)
        chained = self._chained.get(key)
        if chained is None:
            for number, (table, rows) in enumerate(inserts):
                insert = rows_insert(table, tuple(rows[0]), len(rows))
                chained = insert if chained is None else chained.add_cte(insert.cte(f"w{number}"))
            assert chained is not None
            self._chained[key] = chained
        params: dict[str, Any] = {}
        for table, rows in inserts:
            params.update(row_params(table, rows))
        with self.store._connection() as conn:
            conn.execute(*self.compiler.sql(chained, params))

    async def rows_async(self, statement: Statement, params: Params = NO_PARAMS
                         ) -> list[dict[str, Any]]:
        """`rows` on the store's `LoopConnection`: the event loop runs on meanwhile."""
        with self.store._database_errors():
            return await self.store.loop_connection.rows(*self.compiler.sql(statement, params))

    async def write_async(self, statements: Sequence[Write]) -> None:
        """`write` on the store's `LoopConnection`: the event loop runs on meanwhile."""
        with self.store._database_errors():
            await self.store.loop_connection.write(
                [self.compiler.sql(statement, params) for statement, params in statements])

    async def insert_steps_async(self, steps: Sequence[StepRows]) -> None:
        """Append ``steps`` on the store's `StepsConnection`: one statement (`STEPS_INSERT`), so
        one round trip and one wait on the event loop, whatever the batch's size."""
        if not steps:
            return
        params = steps_as_json(steps)
        with self.store._database_errors():
            await self.store.steps_connection.execute(params)

    def start_steps(self, steps: Sequence[StepRows], done: StepsDone) -> bool:
        """Send ``steps`` as `insert_steps_async` does, without a task: ``done`` is called from
        the connection's reader in the turn its answer is read, with ``None`` once they are
        stored or with the store's error (as `insert_steps_async` raises it). False, with
        nothing sent, when the connection is not ready for it (not made yet in this event loop,
        lost, or the store is down): then use `insert_steps_async`."""
        store = self.store
        connection = store.steps_connection
        if not steps or store._down or not connection.ready:
            return False
        params = steps_as_json(steps)

        def answered(error: Exception | None) -> None:
            done(None if error is None else store._as_store_error(error))

        with store._database_errors():
            connection.start(params, answered)
        return True

    @contextmanager
    def transaction(self, rating: bool = False) -> Iterator[PostgresTransaction]:
        """A transaction on one connection (under the rating lock when ``rating``)."""
        with self.store._connection() as conn, conn.transaction():
            if rating:
                conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, RATING_LOCK))
            yield PostgresTransaction(conn, self.compiler)


class PostgresStore(SqlStore):
    """The store in a PostgreSQL database (see the module docstring)."""

    def __init__(self, url: str, *, max_connections: int = 4) -> None:
        self.url = url
        self._shown = redact(url)
        self._down = False
        self._shard_lock: psycopg.Connection[Any] | None = None
        self._claimed: tuple[bool, str | None] = (False, None)
        self._lock = threading.Lock()
        self.steps_connection = StepsConnection(url, STEPS_INSERT, CONNECT_TIMEOUT_S)
        """The step writer's connection (`append_steps_async`)."""
        self.loop_connection = LoopConnection(url, CONNECT_TIMEOUT_S)
        """The connection of the other ``…_async`` calls (`ratscrew.storage.postgres_async`)."""
        self._database = self._postgres = PostgresDatabase(self)
        try:
            with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True) as conn:
                self._migrate(conn)
        except psycopg.Error as error:
            raise StoreError(f"cannot use the PostgreSQL database {self._shown}: "
                             f"{_first_line(error)}") from None
        self._max_connections = max_connections
        self._pool = self._new_pool()

    def _new_pool(self) -> ConnectionPool[psycopg.Connection[Any]]:
        return ConnectionPool(self.url, min_size=1, max_size=self._max_connections, timeout=POOL_TIMEOUT_S,
                              kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S},
                              name="ratscrew", open=True)

    def _renew_connections(self) -> None:
        """After an outage: a new pool (the old one waits out a reconnect back-off that grows
        with the outage, up to a minute, before it tries again) and new connections for the
        steps and the loop (the old ones may be dead without knowing it)."""
        old, self._pool = self._pool, self._new_pool()
        old.close(timeout=0)
        self.steps_connection.renew()
        self.loop_connection.renew()

    # ------------------------------------------------------------------ opening

    def _migrate(self, conn: psycopg.Connection[Any]) -> None:
        with conn.transaction():
            # several shards may start at once: one migrates, the others wait and see it done
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, MIGRATION_LOCK))
            bring_to_current(conn.execute, "postgresql", self._shown)
    @property
    def schema_version(self) -> int:
        """The schema version of the open database."""
        return self._run(lambda c: int(_one(c, "SELECT version FROM schema_version")[0]))

    @property
    def description(self) -> str:
        """The URL without its password."""
        return self._shown

    @property
    def writes_off_the_loop(self) -> bool:
        """True: a step is a round trip to PostgreSQL, written in a task by
        `append_steps_async` (see `ratscrew.server.room.writer`)."""
        return True

    async def append_steps_async(self, steps: Sequence[StepRows]) -> None:
        """`append_steps` on the store's `StepsConnection`: the event loop runs on while
        PostgreSQL answers."""
        await self._postgres.insert_steps_async(steps)

    def start_steps(self, steps: Sequence[StepRows], done: StepsDone) -> bool:
        """`append_steps_async` without a task, when the steps' connection is ready for it:
        ``done`` hears the outcome in the turn PostgreSQL's answer is read
        (`PostgresDatabase.start_steps`)."""
        return self._postgres.start_steps(steps, done)

    async def close_async(self) -> None:
        """Close the connections the event loop used (at the end of the loop that opened them)."""
        await self.steps_connection.close()
        await self.loop_connection.close()

    def close(self) -> None:
        """Close the pool and give up the shard."""
        self._pool.close()
        if self._shard_lock is not None:
            self._shard_lock.close()
            self._shard_lock = None

    @property
    def claim_held(self) -> bool:
        """Whether this process holds the shard it claimed (True when it claimed none)."""
        lock = self._shard_lock
        return not self._claimed[0] or (lock is not None and not lock.closed and not lock.broken)

    def claim(self, shard: str | None) -> None:
        """Take the advisory locks that make this process the only one serving ``shard``."""
        self._claimed = (True, shard)
        try:
            self._take_shard_locks()
        except psycopg.Error as error:
            raise StoreError(f"cannot use the PostgreSQL database {self._shown}: "
                             f"{_first_line(error)}") from None

    def _take_shard_locks(self) -> None:
        claimed, shard = self._claimed
        if not claimed:
            return
        if self._shard_lock is not None:
            self._shard_lock.close()
        conn = self._shard_lock = psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT_S,
                                                  autocommit=True)
        if shard is None:
            taken = _one(conn, "SELECT pg_try_advisory_lock(%s, 0)", (LOCK_SPACE,))[0]
            who = "another ratscrew server already uses this database"
        else:
            taken = (_one(conn, "SELECT pg_try_advisory_lock_shared(%s, 0)", (LOCK_SPACE,))[0]
                     and _one(conn, "SELECT pg_try_advisory_lock(%s, %s)", (LOCK_SPACE, ord(shard)))[0])
            who = f"another ratscrew server already serves shard {shard} (or all rooms) of this database"
        if not taken:
            conn.close()
            self._shard_lock = None
            raise StoreInUse(f"{who} ({self._shown})", "or give this one another --shard")

    def reachable(self) -> bool:
        """Whether PostgreSQL answers (and this process still holds its shard); clears the
        fail-fast state when it does."""
        try:
            if self._down:
                # asked directly, not through the pool: the pool's own reconnect back-off (it
                # grows with the outage) would keep the rooms paused long after the database
                # answers; once it answers, every connection is made anew
                with psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True) as probe:
                    probe.execute("SELECT 1")
                self._renew_connections()
            self._pool.check()  # replaces connections broken while the database was away
            with self._pool.connection(timeout=POOL_TIMEOUT_S) as conn:
                conn.execute("SELECT 1")
            lock = self._shard_lock
            if lock is not None and not (lock.closed or lock.broken):
                with contextlib.suppress(psycopg.OperationalError):  # a restart took the lock: retake it
                    lock.execute("SELECT 1")
            if self._claimed[0] and (lock is None or lock.closed or lock.broken):
                self._take_shard_locks()
        except StoreError as error:
            log.error("%s", error)
            return False
        except psycopg.Error:
            return False
        if self._down:
            log.info("the database %s is back", self._shown)
        self._down = False
        return True

    @property
    def failing_fast(self) -> bool:
        """Whether the store refuses every call at once since it found PostgreSQL gone (see the
        module docstring), until `reachable` finds it back."""
        return self._down

    def rate_counter(self, what: str, limit: int, window_s: float) -> RateCounter | None:
        """A counter in the ``rate_events`` table, shared by every process on this database."""
        return PostgresRateCounter(self, what, limit, window_s)


    # ------------------------------------------------------------------ reaching the database

    @contextmanager
    def _database_errors(self) -> Iterator[None]:
        """psycopg's errors as the store's: a clash with a unique key is a `Conflict`; a lost
        database (or no connection in time) is `StoreUnavailable`, and the store fails fast
        from then on (see the module docstring)."""
        if self._down:
            raise StoreUnavailable(f"the database {self._shown} is unavailable")
        try:
            yield
        except psycopg.IntegrityError as error:
            raise Conflict(_first_line(error)) from error
        except (psycopg.OperationalError, psycopg.InterfaceError) as error:
            # psycopg_pool.PoolTimeout is one too: no connection could be had in time
            self._lost(error)
            raise StoreUnavailable(f"the database {self._shown} is unavailable") from None

    def _as_store_error(self, error: Exception) -> Exception:
        """``error`` (psycopg's) as `_database_errors` would raise it."""
        try:
            with self._database_errors():
                raise error
        except Exception as translated:
            return translated
        raise AssertionError("unreachable")  # pragma: no cover

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        with self._database_errors(), self._pool.connection() as conn:
            yield conn

    def _lost(self, error: Exception) -> None:
        was_down, self._down = self._down, True
        log.error("the database %s is unavailable: %s", self._shown, _first_line(error))
        if not was_down:
            # every call fails fast from now on and `reachable` asks the database directly, so
            # the pool has nothing to do but retry in the background, with a warning of
            # psycopg's each time (32 in a 3-minute outage): it is closed, and made anew
            # when the database answers (`_renew_connections`)
            self._pool.close(timeout=0)

    def _run(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        with self._connection() as conn:
            return work(conn)

class PostgresRateCounter:
    """A per-address window counter in PostgreSQL, so a limit holds across every process: each
    count is one script (`rate_count_script`, one round trip) that counts and adds under a
    transaction-scoped advisory lock on the key; time is the database's clock (the processes'
    monotonic clocks are not comparable)."""

    PRUNE_EVERY = 500
    """Every this many calls, rows older than the window are deleted for every address."""

    def __init__(self, store: PostgresStore, what: str, limit: int, window_s: float) -> None:
        self.store, self.what, self.limit, self.window_s = store, what, limit, window_s
        self._calls = 0

    def allow(self, key: str, now: float) -> bool:
        """Count one more for ``key`` unless it is over its limit (``now`` is not used)."""
        script = self._script(key)

        def count(conn: psycopg.Connection[Any]) -> bool:
            cursor = conn.execute(script)
            while cursor.nextset():
                pass
            return cursor.rowcount == 1

        return self.store._run(count)

    async def allow_async(self, key: str, now: float) -> bool:
        """`allow` on the store's `LoopConnection`: the event loop runs on meanwhile."""
        script = self._script(key)
        with self.store._database_errors():
            return await self.store.loop_connection.last_row_count(script) == 1

    def _script(self, key: str) -> sql.Composed:
        self._calls += 1
        return rate_count_script(self.what, key, self.limit, self.window_s,
                                 prune=self._calls % self.PRUNE_EVERY == 0)


def rate_count_script(what: str, key: str, limit: int, window_s: float, prune: bool) -> sql.Composed:
    """One count of `PostgresRateCounter`: several statements without parameters (the values
    quoted by psycopg), sent as one round trip and run as one transaction. The lock on the key
    comes first, and each statement after it has a snapshot of its own, so the count sees every
    count that was committed before the lock was granted, from any process. The last statement
    adds the row only under the limit: one row touched means allowed.

    >>> text = rate_count_script("joins", "10.0.0.1", 30, 60.0, prune=False).as_string()
    >>> text.count(";"), "pg_advisory_xact_lock" in text, "'10.0.0.1'" in text
    (1, True, True)
    >>> "DELETE" in rate_count_script("joins", "10.0.0.1", 30, 60.0, prune=True).as_string()
    True
    """
    the_what, the_key, window = sql.Literal(what), sql.Literal(key), sql.Literal(float(window_s))
    statements = [sql.SQL("SELECT pg_advisory_xact_lock(hashtext({}))").format(
        sql.Literal(f"{what}\n{key}"))]
    if prune:
        statements.append(sql.SQL(
            "DELETE FROM rate_events WHERE what = {} "
            "AND at <= clock_timestamp() - make_interval(secs => {})").format(the_what, window))
    statements.append(sql.SQL(
        "INSERT INTO rate_events (what, address) SELECT {what}, {key} "
        "WHERE (SELECT count(*) FROM rate_events WHERE what = {what} AND address = {key} "
        "AND at > clock_timestamp() - make_interval(secs => {window})) < {limit} "
        "RETURNING 1").format(what=the_what, key=the_key, window=window, limit=sql.Literal(int(limit))))
    return sql.SQL("; ").join(statements)


def _one(conn: psycopg.Connection[Any], text: str, params: Sequence[Any] = ()) -> tuple[Any, ...]:
    row = conn.execute(text, params).fetchone()
    assert row is not None
    return tuple(row)


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]
