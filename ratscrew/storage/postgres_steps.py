"""The connection that stores the rooms' steps in PostgreSQL: one connection of its own, driven
through libpq (``psycopg.pq``) on the event loop, one statement at a time.

The step writer (`ratscrew.server.writer`) sends one batch at a time, so one connection is all
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
from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import pq
from psycopg.errors import error_from_result


class StepsConnection:
    """One connection to ``url`` that runs one statement, ``sql`` (libpq placeholders, ``$1``,
    ``$2``, …, each parameter text), prepared once per connection; made in the running event
    loop on first use, and again after it was lost."""

    STATEMENT_NAME = b"ratscrew_steps"

    def __init__(self, url: str, sql: str, connect_timeout_s: float) -> None:
        self.url = url
        self.sql = sql.encode()
        self.connect_timeout_s = connect_timeout_s
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._fd = -1
        """The connection's socket (kept: libpq forgets it once the connection is lost)."""
        self._readable: asyncio.Future[None] | None = None
        """Set while a statement waits for its answer; done when the answer is all in."""
        self._writable: asyncio.Future[None] | None = None
        """Set while a statement waits to send the rest of itself."""
        self.connections = 0
        """Connections made so far (the first, then one after each loss)."""

    async def execute(self, params: Sequence[str]) -> None:
        """Run the statement with ``params`` and wait until PostgreSQL has committed it (the
        connection is in autocommit); raise its error if it failed."""
        pgconn = await self._connected()
        try:
            pgconn.send_query_prepared(self.STATEMENT_NAME, [p.encode() for p in params])
            await self._finish(pgconn)
        except BaseException:
            self._drop()  # an error, a lost connection or a cancelled wait: its state is unknown
            raise

    async def close(self) -> None:
        """Close the connection (in the event loop that made it)."""
        conn = self._conn
        self._drop()
        if conn is not None:
            await conn.close()

    # ------------------------------------------------------------------ the connection

    async def _connected(self) -> pq.abc.PGconn:
        loop = asyncio.get_running_loop()
        if self._conn is not None and (self._loop is not loop or self._conn.closed):
            self._drop()
        if self._conn is None:
            conn = await psycopg.AsyncConnection.connect(
                self.url, autocommit=True, connect_timeout=round(self.connect_timeout_s))
            pgconn = conn.pgconn
            pgconn.nonblocking = 1
            self._conn, self._loop, self._fd = conn, loop, pgconn.socket
            self.connections += 1
            loop.add_reader(self._fd, self._on_readable)
            try:
                pgconn.send_prepare(self.STATEMENT_NAME, self.sql)
                await self._finish(pgconn)
            except BaseException:
                self._drop()
                raise
        return self._conn.pgconn

    async def _finish(self, pgconn: pq.abc.PGconn) -> None:
        """Send what libpq holds, then read the statement's results to their end (the one
        after the last is ``None``); the first failed one is raised."""
        loop = self._loop
        assert loop is not None
        while pgconn.flush():  # more to send than the socket took: wait until it takes more
            self._writable = loop.create_future()
            loop.add_writer(self._fd, self._on_writable)
            await self._writable
        failure: pq.abc.PGresult | None = None
        while True:
            if pgconn.is_busy():
                self._readable = loop.create_future()
                await self._readable
            result = pgconn.get_result()
            if result is None:
                break
            if failure is None and result.status == pq.ExecStatus.FATAL_ERROR:
                failure = result
        if failure is not None:
            raise error_from_result(failure, encoding=self._conn_encoding())

    def _on_writable(self) -> None:
        waiting, self._writable = self._writable, None
        if self._loop is not None:
            self._loop.remove_writer(self._fd)
        if waiting is not None and not waiting.done():
            waiting.set_result(None)

    def _on_readable(self) -> None:
        """The socket has something (an answer, or PostgreSQL closing it): take it in, and
        wake the waiting statement once its answer is whole."""
        conn = self._conn
        if conn is None:
            return
        try:
            conn.pgconn.consume_input()
        except psycopg.OperationalError as error:
            futures = [self._readable, self._writable]
            self._drop()
            for future in futures:  # a statement sending or waiting hears of it
                if future is not None and not future.done():
                    future.set_exception(error)
            return
        waiting = self._readable
        if waiting is not None and not waiting.done() and not conn.pgconn.is_busy():
            self._readable = None
            waiting.set_result(None)

    def _conn_encoding(self) -> str:
        return "utf-8" if self._conn is None else self._conn.info.encoding

    def _drop(self) -> None:
        """Forget the connection, closing it at once (no round trip). The socket leaves the
        event loop here, before it is closed, and nowhere else once it is forgotten: its number
        may be another socket's a moment later."""
        conn, self._conn = self._conn, None
        self._readable = self._writable = None
        if conn is None:
            return
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self._fd)
            self._loop.remove_writer(self._fd)
        conn.pgconn.finish()
