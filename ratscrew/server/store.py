"""The server's storage, as the server has always imported it: the public names of
`ratscrew.storage` (where the schema, queries and both databases now live, written once),
re-exported so callers keep ``from ratscrew.server.store import Store, open_store``; and
`off_the_loop`, how the server makes a store call it must wait for without holding its loop."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ratscrew.server.ranking import PROVISIONAL_GAMES, conservative
from ratscrew.storage.opening import check_database_name, is_database_url, open_store
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
    StepRows,
    StepsDone,
    StoreError,
    StoreInUse,
    StoreUnavailable,
    fold_name,
    new_server_id,
    participant,
)
from ratscrew.storage.roles import ArchiveStore, PlayerStore, RatingStore, RoomStore, Store
from ratscrew.storage.schema import MIGRATIONS
from ratscrew.storage.sqlite import SqliteStore

__all__ = [
    "BOT_PREFIX",
    "MIGRATIONS",
    "PROVISIONAL_GAMES",
    "REQUEST_READS",
    "ArchiveStore",
    "FinishedGame",
    "GameInProgress",
    "GameRating",
    "NameTaken",
    "PlayerRow",
    "PlayerStore",
    "RateCounter",
    "Rater",
    "Rating",
    "RatingChange",
    "RatingStore",
    "RoomRow",
    "RoomStore",
    "SeatResult",
    "SeatRow",
    "SqliteStore",
    "StepRows",
    "StepsDone",
    "Store",
    "StoreError",
    "StoreInUse",
    "StoreUnavailable",
    "check_database_name",
    "conservative",
    "fold_name",
    "is_database_url",
    "new_server_id",
    "off_the_loop",
    "open_store",
    "participant",
]

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
