"""Store calls the server must wait for, made without holding its event loop.

`off_the_loop` runs a store call in a worker thread on a database over the network
(PostgreSQL), and at once on SQLite (a local file); a request's reads have their own two
threads (`REQUEST_READS`), so a slow stranger never queues a game's end behind it.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ratscrew.storage.roles import Store

Answer = TypeVar("Answer")


REQUEST_READS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="ratscrew-request-reads")
"""The threads a request's store reads run in (`off_the_loop` with ``requests=True``), apart
from the event loop's own: a stranger whose page reads the database is slow to answer fills
these two and queues behind them, while the writer's threads (a game's end, its rating) go on."""


async def off_the_loop(store: Store, call: Callable[..., Answer], *args: Any,
                       requests: bool = False) -> Answer:
    """``call(*args)``, store calls the server waits for but need not make on its event loop (a
    paused room's rebuild; with ``requests``, a request's reads, in `REQUEST_READS`): on a
    database over the network (PostgreSQL, ``store.writes_off_the_loop``) in a worker thread,
    so that their round trips do not hold the loop every room of the process runs on; on SQLite
    at once (a local file)."""
    if not store.writes_off_the_loop:
        return call(*args)
    if requests:
        return await asyncio.get_running_loop().run_in_executor(
            REQUEST_READS, functools.partial(call, *args))
    return await asyncio.to_thread(call, *args)
