"""The connection that stores the rooms' steps in PostgreSQL: one connection of its own, driven
through libpq (``psycopg.pq``) on the event loop, one statement at a time.

The step writer (`ratscrew.server.room.writer`) sends one batch at a time, so one connection is all
it needs. It used to borrow one from psycopg's asynchronous pool and run the statement through
psycopg's asynchronous connection. At 500 rooms that is some 600 batches a second of two or
three steps each, and psycopg's layers (the pool's lending, the cursor, its query conversion,
its generators and a reader added and removed on the event loop for every wait) cost the
shard's event loop about twice the CPU of what a batch needs (``benchmarks/store_writes.py``
prints both; docs/online.md). Here the statement is prepared once per connection and each batch
is one ``send_query_prepared`` of two text parameters; the socket's reader stays registered, so
a connection that PostgreSQL closes while idle is noticed at once and replaced by the next
batch.

What stays psycopg's: connecting (`psycopg.AsyncConnection.connect`, which reads the URL) and its
errors: a statement that fails raises the `psycopg.Error` psycopg would have raised for it, and a
lost connection `psycopg.OperationalError`, so the store's handling of both is unchanged.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from psycopg import pq
from psycopg.errors import error_from_result

Answered = Callable[[Exception | None], None]
"""What is called with a statement's outcome: ``None`` once committed, else its error."""


class StepsConnection:
    """One connection to ``url`` that runs one statement, ``sql`` (libpq placeholders, ``$1``,
    ``$2``, …, each parameter text), prepared once per connection; made in the running event
    loop on first use, and again after it was lost.

    A statement is either awaited (:meth:`execute`) or started with a callback (:meth:`start`):
    the step writer starts each batch, and its callback runs in the socket's reader, in the
    same turn of the event loop as the answer is read, so the rooms' held messages go out in
    that turn rather than after the writer's task is woken in the next one."""

    STATEMENT_NAME = b"ratscrew_steps"

    def __init__(self, url: str, sql: str, connect_timeout_s: float) -> None:
        self.url = url
        self.sql = sql.encode()
        self.connect_timeout_s = connect_timeout_s
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._fd = -1
        """The connection's socket (kept: libpq forgets it once the connection is lost)."""
        self._done: Answered | None = None
        """Set while a statement is running: what to call with its outcome."""
        self._failure: pq.abc.PGresult | None = None
        """The running statement's first failed result, if any."""
        self.connections = 0
        """Connections made so far (the first, then one after each loss)."""
        self._stale = False
        """Set (from any thread) when the database came back from an outage: the connection
        held may be dead without knowing it, so the next batch connects afresh."""

    def renew(self) -> None:
        """Make the next batch use a new connection (the database was away)."""
        self._stale = True

    @property
    def ready(self) -> bool:
        """Whether :meth:`start` can send a statement now: connected in the running event loop
        and no statement running."""
        conn = self._conn
        return (conn is not None and not conn.closed and self._done is None and not self._stale
                and self._loop is _running_loop())

    def start(self, params: Sequence[str], done: Answered) -> None:
        """Send the statement with ``params`` now (the connection must be :attr:`ready`);
        ``done`` is called from the socket's reader once PostgreSQL has committed it (with
        ``None``; the connection is in autocommit) or with the error it failed with: the
        `psycopg.Error` psycopg would raise, `psycopg.OperationalError` for a lost connection.
        A failure to send raises here instead, and ``done`` is never called.

        Only one statement runs at a time. After a failure the connection is dropped (its state
        is unknown), and the next statement is sent on a new one."""
        if not self.ready:
            raise RuntimeError("the steps' connection is not ready for a statement")
        encoded = [p.encode() for p in params]
        self._send(lambda pgconn: pgconn.send_query_prepared(self.STATEMENT_NAME, encoded), done)

    async def execute(self, params: Sequence[str]) -> None:
        """Run the statement with ``params`` and wait until PostgreSQL has committed it;
        raise its error if it failed (connecting first if need be)."""
        await self._connected()
        encoded = [p.encode() for p in params]
        await self._run(lambda pgconn: pgconn.send_query_prepared(self.STATEMENT_NAME, encoded))

    async def close(self) -> None:
        """Close the connection (in the event loop that made it); a statement still running
        hears that the connection was lost."""
        conn = self._conn
        if self._done is not None:
            self._fail(psycopg.OperationalError("the steps' connection was closed"))
        self._drop()
        if conn is not None:
            await conn.close()

    # ------------------------------------------------------------------ the connection

    async def _connected(self) -> None:
        loop = asyncio.get_running_loop()
        if self._conn is not None and (self._loop is not loop or self._conn.closed or self._stale):
            self._drop()
        self._stale = False
        if self._conn is None:
            conn = await psycopg.AsyncConnection.connect(
                self.url, autocommit=True, connect_timeout=round(self.connect_timeout_s))
            pgconn = conn.pgconn
            pgconn.nonblocking = 1
            self._conn, self._loop, self._fd = conn, loop, pgconn.socket
            self.connections += 1
            loop.add_reader(self._fd, self._on_readable)
            await self._run(lambda pgconn: pgconn.send_prepare(self.STATEMENT_NAME, self.sql))
        elif self._done is not None:
            raise RuntimeError("a statement is already running on the steps' connection")

    async def _run(self, send: Callable[[pq.abc.PGconn], None]) -> None:
        """Send with ``send`` and wait for the outcome (a cancelled wait drops the connection:
        its state is unknown)."""
        assert self._loop is not None
        answer: asyncio.Future[None] = self._loop.create_future()

        def answered(error: Exception | None) -> None:
            if answer.done():
                return
            if error is None:
                answer.set_result(None)
            else:
                answer.set_exception(error)

        self._send(send, answered)
        try:
            await answer
        except BaseException:
            self._drop()
            raise

    def _send(self, send: Callable[[pq.abc.PGconn], None], done: Answered) -> None:
        """Send a statement with ``send`` and what libpq holds of it; what the socket does not
        take at once is sent when it is writable. Raises (having dropped the connection) if
        the statement cannot be sent."""
        assert self._conn is not None and self._loop is not None
        pgconn = self._conn.pgconn
        try:
            send(pgconn)
            more = pgconn.flush()
        except BaseException:
            self._drop()
            raise
        self._done, self._failure = done, None
        if more:  # more to send than the socket took
            self._loop.add_writer(self._fd, self._on_writable)

    def _on_writable(self) -> None:
        conn = self._conn
        if conn is None:
            return
        try:
            more = conn.pgconn.flush()
        except psycopg.OperationalError as error:
            self._fail(error)
            return
        if not more and self._loop is not None:
            self._loop.remove_writer(self._fd)

    def _on_readable(self) -> None:
        """The socket has something (an answer, or PostgreSQL closing it): take it in, and
        once the running statement's answer is whole (the results up to the ``None`` after
        the last), call its ``done``."""
        conn = self._conn
        if conn is None:
            return
        pgconn = conn.pgconn
        try:
            pgconn.consume_input()
        except psycopg.OperationalError as lost:
            self._fail(lost)
            return
        if self._done is None:
            return
        while not pgconn.is_busy():
            result = pgconn.get_result()
            if result is None:
                done, failure = self._done, self._failure
                self._done = self._failure = None
                if failure is None:
                    done(None)
                else:
                    error = error_from_result(failure, encoding=conn.info.encoding)
                    self._drop()  # as any failure: the next statement gets a new connection
                    done(error)
                return
            if self._failure is None and result.status == pq.ExecStatus.FATAL_ERROR:
                self._failure = result

    def _fail(self, error: Exception) -> None:
        """The connection is lost: forget it, and tell the running statement, if any."""
        done = self._done
        self._drop()
        if done is not None:
            done(error)

    def _drop(self) -> None:
        """Forget the connection, closing it at once (no round trip). The socket leaves the
        event loop here, before it is closed, and nowhere else once it is forgotten: its number
        may be another socket's a moment later. A running statement's ``done`` is forgotten
        too (`_fail` calls it first)."""
        conn, self._conn = self._conn, None
        self._done = self._failure = None
        if conn is None:
            return
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self._fd)
            self._loop.remove_writer(self._fd)
        conn.pgconn.finish()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
