"""The connection on which a PostgreSQL store makes the round trips a server needs while its
event loop runs, other than the steps: a room's first save, its seats and tokens when people
join, a game's start and the ids taken for it ahead of time, whether a new room's code is taken,
the per-address counts of joins and new rooms, and the idle-room sweep's questions.

These used to go through the store's pool, each call holding the shard's event loop for its
round trips (a transaction of four for a count, a pipeline for a room's save): at 500 rooms,
some 3.5 s of the ramp's 45 s in stalls of up to 19 ms, which every room's link measured as its
own round trip (docs/online.md, "How far shards go"). Running them in worker threads instead
made each statement wait for the interpreter's lock while the loop was busy (tried and taken
back). Here they run on one `psycopg.AsyncConnection` in the running event loop: the loop goes
on while PostgreSQL answers, and only the statement's own work (psycopg building and reading it,
a fraction of a millisecond) happens on it.

One connection, one statement group at a time (an `asyncio.Lock`): what waits for these is a
person joining or making a room, a few a second at most, so they queue for well under a
millisecond. The connection is made in the running loop on first use and again after it was
lost; a lost connection raises `psycopg.OperationalError`, as the pool's would, so the store's
handling of it is the same (`ratscrew.storage.postgres.PostgresStore`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

Query = str | sql.Composed
"""A statement's text, or one composed with `psycopg.sql` (values quoted by psycopg)."""


class LoopConnection:
    """One asynchronous connection to ``url`` (autocommit), made in the running event loop on
    first use and again after it was lost; one statement group at a time."""

    def __init__(self, url: str, connect_timeout_s: float) -> None:
        self.url = url
        self.connect_timeout_s = connect_timeout_s
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None
        self.connections = 0
        """Connections made so far (the first, then one after each loss)."""
        self._stale = False
        """Set (from any thread) when the database came back from an outage: the connection
        held may be dead without knowing it, so the next statement group starts afresh."""

    def renew(self) -> None:
        """Make the next statement group use a new connection (the database was away)."""
        self._stale = True

    async def rows(self, query: Query, params: Mapping[str, Any] | None = None
                   ) -> list[dict[str, Any]]:
        """Run one statement (its own transaction) and return its rows."""
        async with self._turn() as conn:
            cursor = conn.cursor(row_factory=dict_row)
            await cursor.execute(query, params)
            return await cursor.fetchall() if cursor.description else []

    async def write(self, statements: Sequence[tuple[Query, Mapping[str, Any]]]) -> None:
        """Run ``statements`` in one transaction: one on its own, several in one pipeline (one
        round trip for them all, as the pool's writes)."""
        async with self._turn() as conn:
            if len(statements) == 1:
                await conn.execute(*statements[0])
                return
            async with conn.transaction(), conn.pipeline():
                for query, params in statements:
                    await conn.execute(query, params)

    async def last_row_count(self, script: sql.Composed) -> int:
        """Run ``script``, several statements without parameters (their values quoted into it),
        as one round trip and one transaction; how many rows its last statement touched.
        PostgreSQL gives each statement of such a script a snapshot of its own, so a statement
        after a lock sees what was committed before the lock was granted."""
        async with self._turn() as conn:
            cursor = await conn.execute(script)
            while cursor.nextset():
                pass
            return int(cursor.rowcount)

    async def close(self) -> None:
        """Close the connection (in the event loop that made it)."""
        conn, self._conn = self._conn, None
        if conn is not None and not conn.closed:
            await conn.close()

    # ------------------------------------------------------------------ the connection

    @contextlib.asynccontextmanager
    async def _turn(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """The connection for one statement group, taken in turn; forgotten if the group failed
        in a way that leaves its state unknown (a lost connection, a cancelled wait)."""
        async with self._lock_of_this_loop():
            if self._stale or (self._conn is not None and (self._conn.closed or self._conn.broken)):
                self._stale = False
                self._forget()
            if self._conn is None:
                self._conn = await psycopg.AsyncConnection.connect(
                    self.url, autocommit=True, connect_timeout=round(self.connect_timeout_s))
                self.connections += 1
            try:
                yield self._conn
            except BaseException as error:
                if not isinstance(error, psycopg.DatabaseError) or isinstance(
                        error, psycopg.OperationalError):
                    self._forget()  # lost, cancelled mid-statement or worse: start afresh
                raise

    def _lock_of_this_loop(self) -> asyncio.Lock:
        """The lock of the running event loop; a connection made in another loop (a test's
        earlier app) is unusable here and forgotten."""
        loop = asyncio.get_running_loop()
        if self._lock is None or self._loop is not loop:
            self._forget()
            self._lock, self._loop = asyncio.Lock(), loop
        return self._lock

    def _forget(self) -> None:
        """Forget the connection, closing its socket at once (no round trip)."""
        conn, self._conn = self._conn, None
        if conn is not None and not conn.closed:
            conn.pgconn.finish()
