"""Rooms end: a room nobody has been in for ``--idle-room-hours`` (default 24) is closed.

Closing a room stops it (its bots and clock), removes it from memory and marks it ``closed`` in
the store, which never loads it again (`ratscrew.storage.roles.Store.load_rooms` skips closed
rooms, and `save_room` never reopens one). Its link then answers a "this room has closed" page,
``GET /api/rooms/CODE`` a 410 with ``{"error": "room_closed", ...}`` and its websocket a close
with code 4410 (docs/protocol.md).

"Nobody has been in it": no connection, player or watcher, for the whole time. `IdleRooms` hears
of connections joining and leaving through each room's lifecycle hooks
(`ratscrew.server.room.lifecycle`), never looking into a room; `close_idle_rooms` looks every
`sweep_interval` seconds. A room's idle time starts when its last connection left, or when this
process created or loaded the room (so a restart gives every room its full time again: a room is
never closed early). Closing disposes of the room (`ratscrew.server.room.room.Room.dispose`), which
lets go of everything it held. The same sweep also drops rooms an operator closed
with ``ratscrew admin rooms close CODE`` while this process held them.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import logging
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

from starlette.responses import HTMLResponse

from ratscrew.server.ops.metrics import TALLY
from ratscrew.server.room.lifecycle import Presence, RoomHooks
from ratscrew.storage.records import StoreUnavailable
from ratscrew.storage.roles import Store

log = logging.getLogger("ratscrew.server")

CLOSED_MESSAGE = ("this room has closed: nobody had been in it for a while, or the site closed it. "
                  "Start a new room")
CLOSED_WS_CODE = 4410
"""The websocket close code for a closed room (its reason: `CLOSED_MESSAGE`)."""


async def room_closed(store: Store, code: str) -> bool:
    """Whether room ``code`` existed and is closed (asked only for a code no room in memory has,
    without a round trip on the event loop; while the database is away, a code is taken as
    unknown)."""
    try:
        return code in await store.closed_among_async([code])
    except StoreUnavailable:
        return False


def closed_page() -> HTMLResponse:
    """The friendly page a closed room's link answers (410 Gone)."""
    return HTMLResponse(
        "<!doctype html><meta charset=utf-8><title>Room closed · ratscrew</title>"
        "<meta name=viewport content='width=device-width, initial-scale=1'>"
        "<link rel=stylesheet href=/static/css/ratscrew.css>"
        "<main class=notfound><h1>This room has closed</h1>"
        "<p>Nobody had been in it for a while, or the site's operator closed it. Its finished "
        "games are still on the leaderboard and in the players' pages.</p>"
        "<p><a href=/>Start a new room</a></p></main>",
        status_code=410)


def sweep_interval(idle_s: float) -> float:
    """How often to look for idle rooms: a tenth of the idle time, between 0.05 s and a minute.

    >>> sweep_interval(24 * 3600.0), sweep_interval(1.0)
    (60.0, 0.1)
    """
    return max(0.05, min(60.0, idle_s / 10))


class IdleRooms(RoomHooks):
    """When each room of a server was last seen with somebody in it: the lifecycle hooks of
    every room the server holds (`ratscrew.server.state.Server.add_room`)."""

    def __init__(self, idle_s: float, wall: Callable[[], float] = time.monotonic) -> None:
        self.idle_s = idle_s
        self.wall = wall
        self.last_seen: dict[str, float] = {}
        """When each room was last seen with somebody in it (or created, or loaded)."""
        self.present: dict[str, int] = {}
        """How many connections each room has, as its hooks said."""

    def on_join(self, presence: Presence) -> None:
        """Somebody is in the room."""
        self.present[presence.code] = presence.present
        self.last_seen[presence.code] = self.wall()

    def on_leave(self, presence: Presence) -> None:
        """Somebody left; with the last one gone, the room's idle time starts now."""
        self.present[presence.code] = presence.present
        self.last_seen[presence.code] = self.wall()

    def on_dispose(self, code: str) -> None:
        """The room is gone: forget it."""
        self.present.pop(code, None)
        self.last_seen.pop(code, None)

    def due(self, rooms: Iterable[str], now: float) -> list[str]:
        """The codes among ``rooms`` idle for `idle_s` at ``now`` (and forget rooms that are gone)."""
        codes = set(rooms)
        for code in [code for code in self.last_seen if code not in codes]:
            self.on_dispose(code)
        due = []
        for code in codes:
            if self.present.get(code, 0):
                self.last_seen[code] = now
            elif now - self.last_seen.setdefault(code, now) >= self.idle_s:
                due.append(code)
        return sorted(due)


async def close_room(server: Any, code: str, why: str) -> bool:
    """Stop room ``code`` of ``server`` (a `ratscrew.server.state.Server`), forget it and mark it
    closed in the store; False when the store cannot be reached (the room stays, for the next
    sweep)."""
    room = server.rooms.get(code)
    if room is None:
        return False
    try:
        await server.store.close_room_async(code)  # the loop runs on while PostgreSQL answers
    except StoreUnavailable:
        return False
    server.rooms.pop(code, None)
    await room.dispose(CLOSED_WS_CODE, CLOSED_MESSAGE)
    TALLY.rooms_closed += 1
    log.info("room %s closed: %s", code, why)
    return True


async def close_idle_rooms(server: Any, idle: IdleRooms) -> None:
    """Close idle rooms, and rooms an operator closed, until cancelled (see the module docstring);
    ``idle`` hears of every room of ``server`` through its hooks."""
    idle_hours = idle.idle_s / 3600.0
    while True:
        await asyncio.sleep(sweep_interval(idle.idle_s))
        try:
            await _sweep(server, idle, idle_hours)
        except StoreUnavailable:
            continue  # the rooms pause for it elsewhere; the next sweep tries again
        except Exception:
            log.exception("closing idle rooms failed; trying again at the next sweep")


async def _sweep(server: Any, idle: IdleRooms, idle_hours: float) -> None:
    closed = await server.store.closed_among_async(list(server.rooms)) if server.rooms else set()
    for code in closed:
        await close_room(server, code, "closed by an operator")
    closed_now = 0
    for code in idle.due(server.rooms, idle.wall()):
        if not await close_room(server, code, f"nobody had been in it for {idle_hours:g} hours"):
            break
        closed_now += 1
    if closed_now or closed:
        give_back_memory()


def give_back_memory() -> None:
    """Collect the closed rooms' cycles and hand freed heap pages back to the system (glibc's
    ``malloc_trim``; elsewhere only the collection), so the process shrinks after rooms close."""
    gc.collect()
    if _malloc_trim is not None:
        _malloc_trim(0)


def _find_malloc_trim() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None).malloc_trim
    except (OSError, AttributeError):
        return None


_malloc_trim = _find_malloc_trim()
