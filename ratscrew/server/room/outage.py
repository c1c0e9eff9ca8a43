"""When the database goes away mid-game: rooms pause, and come back when it does.

A store method that cannot reach its database raises `ratscrew.storage.records.StoreUnavailable`;
the room that called it pauses (:meth:`ratscrew.server.room.room.Room.pause_for_store`): it tells its
players, refuses every action with an ``unavailable`` error and stops its game's clock. Nothing
it accepted is lost, because a step is shown only after it is stored; a step the engine took but
could not store was never shown, and is dropped. `watch_store` probes the database twice a second
while any room is paused, or while the store fails fast after a call no room made (a new room, a
join's count, a page) found it gone, in a thread, so the rooms that still run are not held up,
and, when it
answers, rebuilds each paused room from the store (:meth:`ratscrew.server.room.room.Room.reload`),
then rates the finished games the outage left unrated (:func:`ratscrew.server.ladder.ratings.catch_up`:
a game whose end was stored just before the database went away). On PostgreSQL the rooms' and
games' reads for that, and the rating, are made in a worker thread too (`off_the_loop`): a
shard with hundreds of paused rooms would otherwise hold its loop for their round trips.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping

from ratscrew.server.blocking import off_the_loop
from ratscrew.server.ladder import ratings
from ratscrew.server.room.room import Room
from ratscrew.storage.records import StoreUnavailable
from ratscrew.storage.roles import Store

log = logging.getLogger("ratscrew.server")

PROBE_EVERY_S = 0.5
"""How often a server with paused rooms (or a store failing fast) asks the database again."""


async def watch_store(store: Store, rooms: Mapping[str, Room], every_s: float = PROBE_EVERY_S) -> None:
    """Resume paused rooms whenever the store answers again (runs until cancelled)."""
    while True:
        await asyncio.sleep(every_s)
        paused = [room for room in list(rooms.values()) if room.paused is not None]
        if not (paused or store.failing_fast) or not await asyncio.to_thread(store.reachable):
            continue
        for room in paused:
            try:
                stored = await off_the_loop(store, room.read_stored)
                if room.paused is None or rooms.get(room.code) is not room:
                    continue  # resumed or let go meanwhile
                room.reload(stored)
            except StoreUnavailable:
                room.pause_for_store()
                break
            except Exception:
                log.exception("room %s could not be rebuilt from the store; it stays paused", room.code)
        else:  # the store answered for every room: rate what the outage left unrated
            with contextlib.suppress(StoreUnavailable):
                await off_the_loop(store, ratings.catch_up, store)
