"""The server's shared state: the store, the rooms this process holds, the limits and the
per-address counters, the rooms made for quick play's matched players (`Server.open_matched_room`),
and the reads of the store that requests wait for."""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.websockets import WebSocket

from ratscrew.server.blocking import off_the_loop
from ratscrew.server.http.limits import (
    Limits,
    OpenConnections,
    UnknownCodes,
    WindowCounter,
    is_own_origin,
    limit_key,
)
from ratscrew.server.lab.jobs import LabService
from ratscrew.server.ops.expiry import (
    close_room,
)
from ratscrew.server.ops.shards import new_room_code_async
from ratscrew.server.room.absence import AbsenceTimes
from ratscrew.server.room.admission import Door, Reservation
from ratscrew.server.room.lifecycle import RoomHooks
from ratscrew.server.room.room import Room
from ratscrew.server.room.writer import StepWriter
from ratscrew.server.ws.connection import WebSocketConnection
from ratscrew.storage.records import RateCounter
from ratscrew.storage.roles import Store

log = logging.getLogger("ratscrew.server")


Answer = TypeVar("Answer")


MAX_REQUEST_READS = 64
"""Requests' store reads one process lets run or wait for their threads at once (PostgreSQL):
two run, the rest queue. A player's page and the leaderboard take ~20 ms each with 200 games
behind them (docs/online.md), so the 64th waits about 0.6 s."""


MAX_REQUEST_READS_PER_ADDRESS = 8
"""Of `MAX_REQUEST_READS`, how many one address may have: a page asks for a handful at once."""


TOO_MANY_READS = "the server is busy reading its database; try again in a moment"


TOO_MANY_READS_FROM_ONE_ADDRESS = "too many reads from your address at once; try again in a moment"


@dataclass
class Server:
    """Everything the app shares: the store, the rooms, the limits and the per-address counters."""

    store: Store
    limits: Limits = field(default_factory=Limits)
    allowed_origins: frozenset[str] = frozenset()
    rooms: dict[str, Room] = field(default_factory=dict)
    connections: set[WebSocketConnection] = field(default_factory=set)
    shard: str | None = None
    """This process's shard letter (`ratscrew.server.ops.shards`): it owns only those rooms."""
    lab: LabService = field(default_factory=LabService)
    """The house-rule lab's worker and jobs; lobbies ask it for their expected game length."""
    absence: AbsenceTimes = field(default_factory=AbsenceTimes)
    """When a stand-in bot plays for someone away, and when a game everyone left is abandoned."""
    room_hooks: list[RoomHooks] = field(default_factory=list)
    """What hears of every room's lifecycle (the idle-room sweep: `ratscrew.server.ops.expiry`)."""
    admissions: set[asyncio.Task[None]] = field(default_factory=set)
    """Arrivals being admitted as tasks (PostgreSQL: `ratscrew.server.room.admission`), kept
    until done."""
    admissions_closing: set[asyncio.Task[None]] = field(default_factory=set)
    """Matched rooms' show-up watches and no-show closings, kept until done."""
    max_request_reads: int = MAX_REQUEST_READS
    """Requests' store reads that may wait for `REQUEST_READS`' threads at once (`call_store`)."""
    max_request_reads_per_address: int = MAX_REQUEST_READS_PER_ADDRESS
    """Of those, how many one address may have (`call_store`)."""
    request_reads: int = 0
    """Requests' store reads running or waiting for a thread now."""
    reads_by_address: dict[str, int] = field(default_factory=dict)
    """Of those, how many each address has (addresses with none are left out)."""

    def __post_init__(self) -> None:
        # counted in the database when several processes share it, else in memory
        self.player_counter: RateCounter = (
            self.store.rate_counter("players", self.limits.players_per_hour, 3600.0)
            or WindowCounter(self.limits.players_per_hour, 3600.0))
        self.key_code_counter: RateCounter = (
            self.store.rate_counter("key_codes", self.limits.key_codes_per_hour, 3600.0)
            or WindowCounter(self.limits.key_codes_per_hour, 3600.0))
        self.room_counter: RateCounter = (self.store.rate_counter("rooms", self.limits.rooms_per_hour, 3600.0)
                                          or WindowCounter(self.limits.rooms_per_hour, 3600.0))
        self.join_counter: RateCounter = (self.store.rate_counter("joins", self.limits.joins_per_minute, 60.0)
                                          or WindowCounter(self.limits.joins_per_minute, 60.0))
        self.unknown_codes = UnknownCodes(self.limits.unknown_codes_per_minute, 60.0)
        self.open_websockets = OpenConnections(self.limits.connections_per_address)
        self.writer = StepWriter(self.store)
        """The one writer of every room's steps (`ratscrew.server.room.writer`)."""

    async def call_store(self, request: Request, call: Callable[..., Answer], *args: Any) -> Answer:
        """``call(*args)``, store calls ``request`` waits for (a record, a player's page, the
        leaderboard, an import code), made `off_the_loop` on PostgreSQL, in threads of their
        own (`REQUEST_READS`). They are refused at once rather than queued (with
        ``Retry-After``) past `max_request_reads_per_address` running or waiting from the
        request's address (``429``) and past `max_request_reads` from everyone (``503``): a
        stranger's flood of reads cannot grow the queue, or everyone's wait, without bound, and
        one address cannot take every place in it."""
        if not self.store.writes_off_the_loop:
            return call(*args)
        address = client_address(request.client)
        from_address = self.reads_by_address.get(address, 0)
        if from_address >= self.max_request_reads_per_address:
            raise HTTPException(429, TOO_MANY_READS_FROM_ONE_ADDRESS, headers={"Retry-After": "1"})
        if self.request_reads >= self.max_request_reads:
            raise HTTPException(503, TOO_MANY_READS, headers={"Retry-After": "1"})
        self.request_reads += 1
        self.reads_by_address[address] = from_address + 1
        try:
            return await off_the_loop(self.store, call, *args, requests=True)
        finally:
            self.request_reads -= 1
            left = self.reads_by_address.pop(address) - 1
            if left:
                self.reads_by_address[address] = left

    def restore_rooms(self) -> None:
        """Bring back every open room of this shard from the store (games in progress included)."""
        for row in self.store.load_rooms(self.shard):
            try:
                room = Room.restore(row, self.store, absence=self.absence, writer=self.writer)
            except Exception:
                log.exception("room %s could not be restored; it stays closed", row.code)
                continue
            self.add_room(room)
            room.start_driving()
        if self.rooms:
            playing = sum(1 for room in self.rooms.values() if room.phase == "playing")
            log.info("restored %d rooms (%d with a game in progress)", len(self.rooms), playing)

    def add_room(self, room: Room) -> None:
        """Hold ``room`` (created or restored) and wire it to the server's lab and hooks."""
        room.expected_lengths = self.lab
        for hooks in self.room_hooks:
            room.add_hooks(hooks)
        self.rooms[room.code] = room

    def door(self, conn: WebSocketConnection, address: str, now: float) -> Door:
        """Where an arrival on ``conn`` comes from, with the counters it is held to
        (`ratscrew.server.room.admission`)."""
        return Door(address, now, self.join_counter, self.player_counter,
                    self.limits.players_per_hour, lambda: self.gone(conn))

    def gone(self, conn: WebSocketConnection) -> bool:
        """Closed, or disconnected (its close may still wait in the outbox)."""
        return conn.closed or conn not in self.connections

    async def open_matched_room(self, rules: str, players: int, reservations: Sequence[Reservation], *,
                                show_up_s: float = 20.0,
                                on_no_show: Callable[[list[str], list[str]], object] | None = None) -> str:
        """A room on this shard for players matched by quick play (issue 50): the preset
        ``rules``, ``players`` seats each reserved for one of ``reservations`` (their player
        ids: a ``join`` with the player key of one takes its seat; anyone else may watch), no
        host and no lobby. Its game starts by itself once every reserved player has joined
        and is rated as any game of the preset. If they have not all joined within
        ``show_up_s`` of room time, the room closes without a game, nobody is rated, and
        ``on_no_show(missing_player_ids, present_player_ids)`` is called (and awaited if it
        returns an awaitable). Returns the room's code."""
        code = await new_room_code_async(self.store, self.shard)

        def no_show(missing: list[str], present: list[str]) -> None:
            task = asyncio.get_running_loop().create_task(
                self._after_no_show(code, missing, present, on_no_show))
            self.admissions_closing.add(task)
            task.add_done_callback(self.admissions_closing.discard)

        room = await Room.matched(rules, players, reservations, self.store, code, show_up_s=show_up_s,
                                  on_no_show=no_show, absence=self.absence, writer=self.writer)
        self.add_room(room)
        task = asyncio.get_running_loop().create_task(_watch_show_up(room))
        self.admissions_closing.add(task)
        task.add_done_callback(self.admissions_closing.discard)
        return code

    async def _after_no_show(self, code: str, missing: list[str], present: list[str],
                             on_no_show: Callable[[list[str], list[str]], object] | None) -> None:
        """A matched room whose players did not all come: closed for good, then the caller told."""
        await close_room(self, code, "the matched players did not all come")
        if on_no_show is not None:
            answer = on_no_show(missing, present)
            if inspect.isawaitable(answer):
                await answer

    def origin_allowed(self, websocket: WebSocket) -> bool:
        """A browser's websocket must come from the server's own origin (or one allowed by
        ``--allowed-origin``); clients that send no ``Origin`` (not browsers) are let in
        (`ratscrew.server.http.limits.is_own_origin`)."""
        return is_own_origin(websocket.headers.get("origin"), websocket.headers.get("host"),
                             self.allowed_origins)

    def room_lookup(self, request: Request | WebSocket, code: str) -> Room | str | None:
        """The room ``code`` names for this client, ``None`` if there is none, or the refusal
        for an address that looked up too many unknown codes lately (every lookup refused, so
        the answer tells nothing about which codes exist)."""
        address, now = client_address(request.client), time.monotonic()
        if self.unknown_codes.blocked(address, now):
            return (f"too many unknown room codes from your address (at most "
                    f"{self.limits.unknown_codes_per_minute} a minute); wait a minute")
        room = self.rooms.get(code)
        if room is None:
            self.unknown_codes.miss(address, now)
        return room


async def _watch_show_up(room: Room) -> None:
    """Wake a matched room when its players' time to come is up (`Room.tick` closes it then
    unless they all came)."""
    while (wait := room.show_up_wait()) is not None:
        await asyncio.sleep(wait + 0.001)
        room.tick()


def client_address(scope_client: Any) -> str:
    """The client's address as the server sees it (behind a proxy, uvicorn's
    ``--forwarded-allow-ips`` puts the real one here), as the limits count it (an IPv6
    address as its /64: `ratscrew.server.http.limits.limit_key`)."""
    return limit_key(str(scope_client[0])) if scope_client else "unknown"


def server_of(request: Request | WebSocket) -> Server:
    server: Server = request.app.state.server
    return server
