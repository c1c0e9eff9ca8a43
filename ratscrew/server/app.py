"""The Starlette app: HTTP routes, the websocket endpoint and the limits that keep them safe.

The websocket endpoint does three things and no more: it parses each frame into a validated
message (:mod:`ratscrew.protocol`), applies the per-connection and per-address limits,
and hands the message to its room. Sending never blocks a room: each connection has a bounded
queue drained by its own task, and a client that stops reading is disconnected once its queue
is full or a send hangs. Every page carries a strict Content-Security-Policy and every browser
websocket must come from the server's own origin.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import inspect
import json
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from ratscrew.bots.profile import LEVELS
from ratscrew.history import replay_steps
from ratscrew.narrate import describe_event
from ratscrew.protocol.client_messages import ClientMessage, parse_client_message, parse_room_request
from ratscrew.protocol.codec import MAX_FRAME_BYTES, ProtocolError, decode_json, encode_message
from ratscrew.protocol.http import AgentInfo, BotsAnswer, LeaderboardAnswer, PresetInfo, PresetsAnswer
from ratscrew.protocol.server_messages import PingMessage, ServerMessage, error_message
from ratscrew.rulebook import explain
from ratscrew.ruleset import PRESET_NAMES, Ruleset
from ratscrew.server import quickplay
from ratscrew.server.blocking import off_the_loop
from ratscrew.server.http import arenas
from ratscrew.server.http.limits import (
    CrossSiteGuard,
    OpenConnections,
    UnknownCodes,
    is_own_origin,
    limit_key,
)
from ratscrew.server.http.offline import OFFLINE_ROUTES, WORKER_SCRIPT, content_security_policy
from ratscrew.server.http.pools import ROUTES as QUICKPLAY_ROUTES
from ratscrew.server.lab.jobs import LabService
from ratscrew.server.lab.routes import ROUTES as LAB_ROUTES
from ratscrew.server.ladder import players, ranking, ratings
from ratscrew.server.ops.collector import settle_collector
from ratscrew.server.ops.expiry import (
    CLOSED_MESSAGE,
    CLOSED_WS_CODE,
    IdleRooms,
    close_idle_rooms,
    close_room,
    closed_page,
    room_closed,
)
from ratscrew.server.ops.health import healthz, readyz
from ratscrew.server.ops.metrics import TALLY, instrument_store, metrics
from ratscrew.server.ops.shards import misdirected, misdirected_page, new_room_code_async
from ratscrew.server.room.absence import AbsenceTimes
from ratscrew.server.room.admission import Door, Reservation
from ratscrew.server.room.dispatch import RouteLimit
from ratscrew.server.room.lifecycle import RoomHooks
from ratscrew.server.room.outage import watch_store
from ratscrew.server.room.room import SHOWN_VERSIONS, Room
from ratscrew.server.room.writer import Closing, Item, OutboxSends, StepWriter
from ratscrew.server.ws.link import Pinger
from ratscrew.server.ws.wsprotocol import RECEIVE_NOW_EXTENSION, SEND_NOW_EXTENSION, SendNow
from ratscrew.storage.opening import open_store
from ratscrew.storage.records import RateCounter, StoreUnavailable
from ratscrew.storage.roles import Store

log = logging.getLogger("ratscrew.server")
Answer = TypeVar("Answer")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
"""The browser table's files (HTML, CSS, JavaScript modules), served as they are."""

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; "
    "object-src 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


@dataclass(frozen=True)
class Limits:
    """What one client may do (see docs/protocol.md, "Limits")."""

    messages_per_second: float = 20.0
    message_burst: int = 40
    flood_drops: int = 100
    """Dropped messages within `flood_window_s` that close the connection."""
    flood_window_s: float = 5.0
    rooms_per_hour: int = 20
    joins_per_minute: int = 60
    players_per_hour: int = 20
    """New players (joins with a player key this server has not seen) one address may bring in
    an hour; keys already known are not counted."""
    key_codes_per_hour: int = 30
    """Requests to ``/api/players/export`` and ``/api/players/import`` one address may make in
    an hour (both together)."""
    send_queue: int = 512
    """Messages waiting for a slow client before it is disconnected."""
    send_timeout_s: float = 10.0
    """A single send that takes longer than this disconnects the client."""
    connections_per_address: int = 200
    """Websockets one client address may hold open (the transport caps every connection of a
    direct peer too: `ratscrew.server.ws.transport`)."""
    unknown_codes_per_minute: int = 30
    """Lookups of room codes that do not exist (pages, ``/api/rooms/CODE``, websockets) one
    address may make in a minute; past it every room lookup from it is refused."""


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; each message takes one.

    >>> bucket = TokenBucket(rate=1.0, burst=2, now=0.0)
    >>> [bucket.take(0.0), bucket.take(0.0), bucket.take(0.0), bucket.take(1.0)]
    [True, True, False, True]
    """

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst = rate, burst
        self._tokens = float(burst)
        self._at = now

    def take(self, now: float) -> bool:
        """Take a token if there is one."""
        self._tokens = min(float(self.burst), self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class WindowCounter:
    """How many times each key did something within the last ``window_s`` seconds.

    >>> counter = WindowCounter(limit=2, window_s=60)
    >>> [counter.allow("1.2.3.4", now) for now in (0, 1, 2, 61)]
    [True, True, False, True]
    """

    def __init__(self, limit: int, window_s: float) -> None:
        self.limit, self.window_s = limit, window_s
        self._times: dict[str, deque[float]] = {}

    def allow(self, key: str, now: float) -> bool:
        """Count one more for ``key`` unless it is over its limit."""
        times = self._times.setdefault(key, deque())
        while times and times[0] <= now - self.window_s:
            times.popleft()
        if len(times) >= self.limit:
            return False
        times.append(now)
        if len(self._times) > 10_000:  # forget addresses that have gone quiet
            for stale in [k for k, t in self._times.items() if not t or t[-1] <= now - self.window_s]:
                del self._times[stale]
        return True

    async def allow_async(self, key: str, now: float) -> bool:
        """`allow` (in memory: nothing to wait for)."""
        return self.allow(key, now)


class WebSocketConnection(OutboxSends):
    """One websocket, as a room sees it (`ratscrew.server.room.room.Connection`): a bounded queue of
    messages written out by its own task, the link's pings, and when each state was sent."""

    WAITING_MAX = 64
    """Messages kept behind a join being counted (`waiting`); more are refused."""

    def __init__(self, websocket: WebSocket, address: str, room_clock: Callable[[], float],
                 limits: Limits) -> None:
        self.websocket = websocket
        self.address = address
        self.pinger = Pinger()
        self.closed = False
        self.waiting: list[tuple[ClientMessage, float]] | None = None
        """While a join is counted in the database (PostgreSQL, `_admit_async`): what came after
        it (each with when it was read, already held to the message rates), to be taken in order
        once the join is in; at most `WAITING_MAX`."""
        self.bucket = TokenBucket(limits.messages_per_second, limits.message_burst, time.monotonic())
        self._route_buckets: dict[str, TokenBucket] = {}
        """A token bucket per route limit this connection used (`within`)."""
        self._limits = limits
        self._room_clock = room_clock
        self._queue: deque[ServerMessage | tuple[int, str] | str] = deque()
        """Messages to send: a dict, a state already encoded as (version, JSON text), or a
        message already encoded."""
        self._ready = asyncio.Event()
        self._shown: dict[int, float] = {}
        self._close: tuple[int, str] = (1000, "")
        self._drops: deque[float] = deque()
        self.sending_since: float | None = None
        """When the send in progress began (``time.monotonic``), or ``None`` between sends:
        `watch_sends` closes a connection whose send hangs."""
        self._hung = False
        self.writer: asyncio.Task[None] | None = None
        """The task running `write_loop`."""
        self.waiting_ping: PingMessage | None = None
        """A ping that goes out with the next state (`ping_loop`)."""
        direct = websocket.scope.get("extensions", {}).get(SEND_NOW_EXTENSION, {}).get("send")
        self._send_text_now: SendNow | None = direct
        """The websocket protocol's own write (`BatchedReadProtocol.send_text_now`), when the
        server runs it: a message goes out at once when nothing waits before it."""


    def send_now(self, item: Item) -> None:
        """Queue ``item`` (a state: ``sent_at`` is added on the way out; a `Closing`: close);
        a client whose queue is full is disconnected. `OutboxSends.send` and the others come
        here once the room's writes they wait for are stored."""
        if isinstance(item, Closing):
            self.close_now(item.code, item.reason)
            return
        if self.closed:
            return
        direct = self._send_text_now
        # Nothing waits before it: written now, without the write task (the usual case), unless
        # the client is not reading (or the socket closes): then by the write task, which waits.
        if direct is not None and not self._queue and self.sending_since is None:
            ping = self.waiting_ping if isinstance(item, tuple) else None  # it rides with a state
            # the ping first, so that the client answers it before it handles the state
            texts = (self._text(item),) if ping is None else (self._text(ping), self._text(item))
            if direct(*texts):
                if ping is not None:
                    self.waiting_ping = None
                TALLY.messages_out += len(texts)
                return
        if len(self._queue) >= self._limits.send_queue:
            log.info("closing a connection from %s: it does not read its messages", self.address)
            self.close_now(1013, "too slow: messages were not read")
            return
        self._queue.append(item)
        self._ready.set()

    def within(self, limit: RouteLimit, now: float) -> bool:
        """Whether a message held to ``limit`` (its route's) is within it; counts it if so."""
        bucket = self._route_buckets.get(limit.name)
        if bucket is None:
            bucket = self._route_buckets[limit.name] = TokenBucket(limit.per_second, limit.burst, now)
        return bucket.take(now)

    def _text(self, item: ServerMessage | tuple[int, str] | str) -> str:
        """``item`` as the text that goes on the wire, as it goes: a state stamped with when it
        was sent (``sent_at``, ``server_time_ms``), a ping's time noted for its round trip."""
        if isinstance(item, tuple):
            version, encoded = item
            sent = self._room_clock()
            self._shown[version] = sent
            self._shown.pop(version - SHOWN_VERSIONS, None)
            return (f'{{"sent_at":{round(sent)},"server_time_ms":'
                    f'{round(time.time() * 1000.0, 1)},{encoded[1:]}')
        if isinstance(item, str):
            return item
        if item["type"] == "ping":
            self.pinger.sent(item["id"], time.monotonic() * 1000.0)
        return encode_message(item)

    def close_now(self, code: int = 1000, reason: str = "") -> None:
        """Close after the messages already queued."""
        if not self.closed:
            self.closed = True
            self._close = (code, reason)
            self._ready.set()

    def shown_at(self, version: int) -> float | None:
        """The room time at which state ``version`` went out on this connection."""
        return self._shown.get(version)

    def dropped(self, now: float) -> bool:
        """Count a message dropped by the rate limit; True when the client is flooding."""
        self._drops.append(now)
        while self._drops and self._drops[0] <= now - self._limits.flood_window_s:
            self._drops.popleft()
        return len(self._drops) >= self._limits.flood_drops

    async def write_loop(self) -> None:
        """Send queued messages until the connection closes."""
        websocket = self.websocket
        try:
            while True:
                await self._ready.wait()
                self._ready.clear()
                while self._queue:
                    text = self._text(self._queue.popleft())
                    # No timer per message (a third of the write path's cost under load):
                    # watch_sends looks at sending_since once a second instead.
                    self.sending_since = time.monotonic()
                    await websocket.send_text(text)
                    self.sending_since = None
                    TALLY.messages_out += 1
                if self.closed:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(websocket.close(*self._close), 2.0)
                    return
        except (asyncio.CancelledError, WebSocketDisconnect, RuntimeError, OSError) as error:
            if isinstance(error, asyncio.CancelledError) and not self._hung:
                raise
            self.closed = True
            with contextlib.suppress(Exception):
                await asyncio.wait_for(websocket.close(1013, "too slow"), 1.0)

    def hung(self, now: float) -> bool:
        """Whether the send in progress has taken longer than the limit (at ``now``)."""
        since = self.sending_since
        return since is not None and now - since > self._limits.send_timeout_s

    def stop_hung_send(self) -> None:
        """Give up the hung send (cancel the write loop) and close."""
        log.info("closing a connection from %s: a send hung", self.address)
        self._hung = True
        self.sending_since = None
        if self.writer is not None:
            self.writer.cancel()

    async def ping_loop(self) -> None:
        """Ping on connect, quickly a few times, then about every 2 s: a ping then waits for
        the connection's next state and goes out in the same write to the socket (one write
        instead of two, for a ping a client answers as quickly either way); one that no state
        took by the next turn of this loop goes alone."""
        while not self.closed:
            waiting = self.waiting_ping
            if waiting is not None:
                self.waiting_ping = None
                self.send(waiting)
            else:
                alone = self.pinger.measuring_the_link
                ping: PingMessage = {"type": "ping", "id": self.pinger.ping(time.monotonic() * 1000.0)}
                if alone:
                    self.send(ping)
                else:
                    self.waiting_ping = ping
            await asyncio.sleep(self.pinger.next_ping_in_ms() / 1000.0)


async def watch_sends(connections: set[WebSocketConnection], limits: Limits) -> None:
    """Close every connection whose send has hung for longer than ``limits.send_timeout_s``
    (a client that stopped reading once its socket's buffers are full), looking a few times
    per timeout: one task for the server instead of a timer per message sent."""
    interval = max(0.05, min(1.0, limits.send_timeout_s / 4))
    while True:
        await asyncio.sleep(interval)
        now = time.monotonic()
        for conn in list(connections):
            if conn.hung(now):
                conn.stop_hung_send()


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


class SecurityHeaders:
    """Adds the Content-Security-Policy and friends to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = SECURITY_HEADERS
                if scope["path"] == WORKER_SCRIPT:  # issue 51: the offline worker runs WebAssembly
                    policy = content_security_policy(scope["path"], CONTENT_SECURITY_POLICY)
                    headers = [(b"content-security-policy", policy.encode()), *SECURITY_HEADERS[1:]]
                message["headers"] = list(message.get("headers", [])) + headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


# ---------------------------------------------------------------------------------- HTTP


def _server(request: Request | WebSocket) -> Server:
    server: Server = request.app.state.server
    return server


def _error(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _page(name: str) -> FileResponse:
    return FileResponse(WEB_DIR / name, media_type="text/html")


def _not_found_page(what: str) -> HTMLResponse:
    return HTMLResponse(
        "<!doctype html><meta charset=utf-8><title>Not found · ratscrew</title>"
        "<meta name=viewport content='width=device-width, initial-scale=1'>"
        "<link rel=stylesheet href=/static/css/ratscrew.css>"
        f"<main class=notfound><h1>Not found</h1><p>{what}</p>"
        "<p><a href=/>Start or join a room</a></p></main>",
        status_code=404)


async def home(request: Request) -> Response:
    """``GET /``: create a room, join one, leaderboard."""
    return _page("index.html")


async def room_page(request: Request) -> Response:
    """``GET /r/CODE``: the room's page."""
    code = str(request.path_params["code"]).upper()
    server = _server(request)
    wrong_shard = misdirected(code, server.shard)
    if wrong_shard is not None and await server.store.room_exists_async(code):
        log.warning("%s (or no shard %s runs; see ratscrew admin rooms list)", wrong_shard, code[:1])
        return misdirected_page()
    room = server.room_lookup(request, code)
    if isinstance(room, str):
        return HTMLResponse("<!doctype html><meta charset=utf-8><title>Too many tries · ratscrew</title>"
                            "<meta name=viewport content='width=device-width, initial-scale=1'>"
                            "<link rel=stylesheet href=/static/css/ratscrew.css>"
                            f"<main class=notfound><h1>Too many tries</h1><p>{room.capitalize()}.</p>"
                            "</main>", status_code=429)
    if room is None:
        if wrong_shard is None and await room_closed(server.store, code):
            return closed_page()
        return _not_found_page("There is no room with that code. Check the link, or start a new room.")
    return _page("room.html")


MAX_GAME_ID = 2**63 - 1
"""The largest game id a database holds (a signed 64-bit integer in SQLite and PostgreSQL)."""


async def _stored_record(request: Request) -> dict[str, Any] | None:
    """The record of the game the path names, or ``None`` when no game can have that id (not
    digits, or beyond what the database holds: asking the database would fail) or none has."""
    text = str(request.path_params["game_id"])
    if not text.isascii() or not text.isdigit() or len(text) > 19 or int(text) > MAX_GAME_ID:
        return None
    server = _server(request)
    return await server.call_store(request, server.store.game_record, int(text))


async def replay_page(request: Request) -> Response:
    """``GET /games/ID``: the replay viewer."""
    if await _stored_record(request) is None:
        return _not_found_page("There is no finished game with that number.")
    return _page("replay.html")


async def leaderboard_page(request: Request) -> Response:
    """``GET /leaderboard``."""
    return _page("leaderboard.html")


async def create_room(request: Request) -> JSONResponse:
    """``POST /api/rooms``: a new room from a validated body."""
    server = _server(request)
    body = await request.body()
    try:
        request_data = parse_room_request(decode_json(body.decode("utf-8", errors="replace")))
    except ProtocolError as error:
        return _error(400, str(error))
    address = client_address(request.client)
    if not await server.room_counter.allow_async(address, time.monotonic()):
        return _error(429, f"at most {server.limits.rooms_per_hour} rooms an hour from one address; "
                           "try again later")
    code = await new_room_code_async(server.store, server.shard)
    room = await Room.create_async(request_data, server.store, code, absence=server.absence,
                                   writer=server.writer)
    room.estimates_for = address
    server.add_room(room)
    return JSONResponse({"code": room.code, "url": f"/r/{room.code}"}, status_code=201)


async def room_info(request: Request) -> JSONResponse:
    """``GET /api/rooms/CODE``: the room's public summary."""
    code = str(request.path_params["code"]).upper()
    server = _server(request)
    wrong_shard = misdirected(code, server.shard)
    if wrong_shard is not None and await server.store.room_exists_async(code):
        return _error(421, wrong_shard)
    room = server.room_lookup(request, code)
    if isinstance(room, str):
        return _error(429, room)
    if room is None:
        if wrong_shard is None and await room_closed(server.store, code):
            return _coded_error(410, "room_closed", CLOSED_MESSAGE)
        return _error(404, "no room with that code")
    return JSONResponse(room.summary())


@lru_cache(maxsize=1)
def _presets() -> PresetsAnswer:
    presets: list[PresetInfo] = []
    for name in PRESET_NAMES:
        rules = Ruleset.preset(name)
        presets.append({"name": name, "summary": rules.summary, "toml": rules.to_toml(),
                        "lines": explain(rules), "max_players": rules.max_players})
    return {"presets": presets}


async def presets(request: Request) -> JSONResponse:
    """``GET /api/presets``."""
    return JSONResponse(_presets())


async def bots(request: Request) -> JSONResponse:
    """``GET /api/bots``."""
    from ratscrew.rl.agents import seat_listing

    answer: BotsAnswer = {
        "levels": [{"name": name, "mean_reaction_ms": round(p.mean_reaction_ms), "memory": p.memory}
                   for name, p in LEVELS.items()],
        "agents": [AgentInfo(name=a["name"], description=a["description"], reaction=a["reaction"],
                             mean_reaction_ms=a["mean_reaction_ms"]) for a in seat_listing()]}
    return JSONResponse(answer)


async def game_record(request: Request) -> JSONResponse:
    """``GET /api/games/ID/record``."""
    record = await _stored_record(request)
    if record is None:
        return _error(404, "no finished game with that number")
    server = _server(request)
    notes = await server.call_store(request, server.store.rating_notes, int(request.path_params["game_id"]))
    return JSONResponse(public_record(record, notes), headers={
        "content-disposition": f'inline; filename="ratscrew-game-{request.path_params["game_id"]}.json"'})


def public_record(record: dict[str, Any], notes: dict[str, Any] | None = None) -> dict[str, Any]:
    """A stored game record as anyone may read it: without the room's code (the room may still
    be open, and its code is all a stranger needs to join it), and with what rating made of it
    (``notes``: `Store.rating_notes`): ``unrated`` says why the game changed no rating, and
    ``rating`` whether it is rated yet and why a seat's part did not count (who left early)."""
    room = record.get("room")
    if isinstance(room, dict) and "code" in room:
        record = {**record, "room": {k: v for k, v in room.items() if k != "code"}}
    rating = {"rated": False, "unrated": None, "seats": {}} if notes is None else {"rated": True, **notes}
    record = {**record, "rating": rating}
    if rating["unrated"] and not record.get("unrated"):
        record["unrated"] = rating["unrated"]
    return record


@lru_cache(maxsize=32)
def _replay_frames(record_text: str) -> str:
    record = json.loads(record_text)
    names = record.get("names") or [f"Player {i + 1}" for i in range(len(record["hands"]))]
    frames = [{"observation": step.observation, "events": [e.public_dict() for e in step.events],
               "lines": [describe_event(e, names) for e in step.events]}
              for step in replay_steps(record) if step.events]
    return json.dumps({"names": names, "frames": frames})


async def game_replay(request: Request) -> Response:
    """``GET /api/games/ID/replay``: the spectator's view after every step that did something."""
    record = await _stored_record(request)
    if record is None:
        return _error(404, "no finished game with that number")
    return Response(_replay_frames(json.dumps(record, sort_keys=True)), media_type="application/json")


async def leaderboard(request: Request) -> JSONResponse:
    """``GET /api/leaderboard?rules=NAME``."""
    rules = request.query_params.get("rules", "classic")
    if len(rules) > 64:
        return _error(400, "rules: a ruleset name is at most 64 characters")
    server = _server(request)
    ranked = await server.call_store(request, ranking.leaderboard, server.store, rules)
    answer: LeaderboardAnswer = {"rules": rules, "players": ranked}
    return JSONResponse(answer)


def _coded_error(status: int, code: str, message: str) -> JSONResponse:
    """An API error with a code a client can act on: ``{"error": CODE, "message": TEXT}``."""
    return JSONResponse({"error": code, "message": message}, status_code=status)


async def player_page(request: Request) -> Response:
    """``GET /players/ID``: a player's page (ratings, reactions, slaps, games)."""
    page = WEB_DIR / "player.html"
    server = _server(request)
    if not page.is_file() or await server.call_store(
            request, server.store.player, str(request.path_params["player_id"])) is None:
        return _not_found_page("There is no player with that id.")
    return _page("player.html")


async def player_info(request: Request) -> JSONResponse:
    """``GET /api/players/ID`` (see docs/protocol.md)."""
    server = _server(request)
    info = await server.call_store(request, players.player_page, server.store,
                                   str(request.path_params["player_id"]))
    if info is None:
        return _coded_error(404, "unknown_player", "there is no player with that id on this server")
    return JSONResponse(info)


async def _key_request(request: Request, field_name: str) -> str | JSONResponse:
    body = await request.body()
    try:
        data = decode_json(body.decode("utf-8", errors="replace"))
    except ProtocolError as error:
        return _coded_error(400, "bad_json", str(error))
    value = data.get(field_name)
    if not isinstance(value, str) or len(value) > 200:
        return _coded_error(400, "bad_message", f"send {{\"{field_name}\": \"...\"}}")
    return value


async def import_player(request: Request) -> JSONResponse:
    """``POST /api/players/import {"code"}``: the player key of an import code from this
    server, to keep on another device."""
    return await _player_code_answer(request, "code", players.import_code)


async def export_player(request: Request) -> JSONResponse:
    """``POST /api/players/export {"player_key"}``: the import code that moves this key to
    another device."""
    return await _player_code_answer(request, "player_key", players.export)


async def _player_code_answer(request: Request, field_name: str,
                              answer: Callable[[Store, str], dict[str, Any]]) -> JSONResponse:
    """``answer`` for the request body's ``field_name``, or the error that says what is wrong."""
    value = await _key_request(request, field_name)
    if isinstance(value, JSONResponse):
        return value
    server = _server(request)
    if not await server.key_code_counter.allow_async(client_address(request.client), time.monotonic()):
        return _coded_error(429, "rate_limited", f"at most {server.limits.key_codes_per_hour} "
                            "exports and imports an hour from one address; try again later")
    try:
        return JSONResponse(await server.call_store(request, answer, server.store, value))
    except players.PlayerCodeError as error:
        return _coded_error(404 if error.code == "unknown_player" else 400, error.code, str(error))


async def store_unavailable(request: Request, exc: Exception) -> Response:
    """The database cannot be reached right now: ``503`` with ``{"error": …}``."""
    return _error(503, "the server cannot reach its database right now; try again in a moment")


async def client_gone(request: Request, exc: Exception) -> Response:
    """The client left (or was closed for being too slow) before its body was all here: there
    is nobody to answer, and nothing went wrong on this side."""
    return Response(status_code=400)


async def http_error(request: Request, exc: Exception) -> Response:
    """Errors under ``/api`` as ``{"error": …}``; pages as a short HTML page."""
    assert isinstance(exc, HTTPException)
    if request.url.path.startswith("/api/"):
        return _error(exc.status_code, str(exc.detail), exc.headers)
    if exc.status_code == 404:
        return _not_found_page("There is nothing at this address.")
    return HTMLResponse(f"<!doctype html><title>{exc.status_code}</title><p>{exc.status_code}: "
                        f"{html.escape(str(exc.detail))}</p>",
                        status_code=exc.status_code, headers=exc.headers)


# ---------------------------------------------------------------------------------- websocket


async def websocket_endpoint(websocket: WebSocket) -> None:
    """``/ws/CODE``: parse, check limits, forward to the room (see the module docstring)."""
    server = _server(websocket)
    code = str(websocket.path_params["code"]).upper()
    if not server.origin_allowed(websocket):
        log.info("refused a websocket from origin %s (host %s): not this server's; a server reached "
                 "by a name needs --allowed-origin", websocket.headers.get("origin", "")[:80],
                 websocket.headers.get("host", "")[:80])
        await websocket.close(code=1008)
        return
    wrong_shard = misdirected(code, server.shard)
    if wrong_shard is not None:
        await websocket.accept()  # so that the close can carry its reason
        await websocket.close(code=4421, reason=wrong_shard)
        return
    room = server.room_lookup(websocket, code)
    if isinstance(room, str):
        await websocket.accept()  # so that the close can carry its reason
        await websocket.close(code=1008, reason=room)
        return
    if room is None:
        if await room_closed(server.store, code):
            await websocket.accept()  # so that the close can carry its reason
            await websocket.close(code=CLOSED_WS_CODE, reason=CLOSED_MESSAGE)
        else:
            await websocket.close(code=4404)
        return
    address = client_address(websocket.client)
    if not server.open_websockets.open(address):
        log.info("refused a websocket from %s: it holds %d open", address,
                 server.limits.connections_per_address)
        await websocket.accept()
        await websocket.close(code=1008, reason="too many connections from your address")
        return
    try:
        await _serve_websocket(server, websocket, room, address)
    finally:
        server.open_websockets.close(address)


async def _serve_websocket(server: Server, websocket: WebSocket, room: Room, address: str) -> None:
    """Run an accepted websocket of ``room`` until it closes. Its messages are taken as they are
    read (`BatchedReadProtocol.take_messages`, no task wake-up per message) when the server runs
    that protocol; otherwise, and for what was queued before, from ``websocket.receive``."""
    await websocket.accept()
    conn = WebSocketConnection(websocket, address, room.clock.now, server.limits)
    server.connections.add(conn)
    writer = conn.writer = asyncio.create_task(conn.write_loop())
    pinger = asyncio.create_task(conn.ping_loop())
    conn.outbox = room.outbox

    def take(frame: str | bytes) -> None:
        _take_message(server, room, conn, address, frame)

    async def receive_until_closed() -> None:
        with contextlib.suppress(WebSocketDisconnect):
            while not conn.closed:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                text = message.get("text")
                take(text if text is not None else message.get("bytes") or b"")

    room.connect(conn)
    take_messages = websocket.scope.get("extensions", {}).get(RECEIVE_NOW_EXTENSION, {}).get("take")
    if take_messages is not None:
        take_messages(take)
    receiver = asyncio.create_task(receive_until_closed())
    try:
        # until the client goes, or the server closes it (the write task ends once the close
        # is sent, or given up on a client that does not read): messages taken as they are
        # read never wake this task, so it cannot look at conn.closed between them
        await asyncio.wait([receiver, writer], return_when=asyncio.FIRST_COMPLETED)
        failure = receiver.exception() if receiver.done() and not receiver.cancelled() else None
        if failure is not None:
            raise failure  # as if raised here (uvicorn logs it)
    finally:
        receiver.cancel()
        room.disconnect(conn)
        conn.close()
        server.connections.discard(conn)
        pinger.cancel()
        with contextlib.suppress(asyncio.CancelledError, TimeoutError, Exception):
            await asyncio.wait_for(writer, 3.0)


def _take_message(server: Server, room: Room, conn: WebSocketConnection, address: str,
                  frame: str | bytes) -> None:
    """One message from a websocket of ``room``: held to the connection's rates, parsed, and
    handed to the room; what is wrong with it is answered with an ``error``."""
    if conn.closed:  # closed by the server (a flood, a kick): nothing more is read from it
        return
    TALLY.messages_in += 1
    now = time.monotonic()
    if not conn.bucket.take(now):
        if conn.dropped(now):
            log.info("closing a flooding connection from %s", address)
            conn.send(error_message("flood", "far too many messages"))
            conn.close(1008, "flood")
        else:
            conn.send(error_message("rate_limited", "too many messages: this one was dropped"))
        return
    try:
        parsed = parse_client_message(frame)
    except ProtocolError as error:
        conn.send(error.to_message())
        return
    _take_parsed(server, room, conn, address, parsed, now)


def _take_parsed(server: Server, room: Room, conn: WebSocketConnection, address: str,
                 message: ClientMessage, now: float) -> None:
    """A parsed message, read at ``now``, handed to the room. The transport knows no message
    types: it asks the room's route table (`Room.route`) whether the message is held to a
    per-connection limit, and, behind an arrival being admitted as a task (PostgreSQL), whether
    it waits in order or goes ahead (a pong held back would measure the join's round trip, not
    the link's)."""
    try:
        route = room.route(message)
        if conn.waiting is not None and not route.ahead_of_arrivals:
            if len(conn.waiting) < conn.WAITING_MAX:
                conn.waiting.append((message, now))
            else:
                conn.send(error_message("rate_limited", "too many messages before your join was "
                                        "answered: this one was dropped"))
            return
        if route.limit is not None and not conn.within(route.limit, now):
            raise ProtocolError("rate_limited", route.limit.refusal)
        pending = room.handle(conn, message, server.door(conn, address, now))
        if pending is not None:
            conn.waiting = []  # what the connection sends next waits until the arrival is in
            task = asyncio.get_running_loop().create_task(
                _admitted_then_the_rest(server, room, conn, address, pending))
            server.admissions.add(task)
            task.add_done_callback(server.admissions.discard)
    except ProtocolError as error:
        conn.send(error.to_message())
    except StoreUnavailable:
        room.pause_for_store()


async def _admitted_then_the_rest(server: Server, room: Room, conn: WebSocketConnection, address: str,
                                  pending: Coroutine[Any, Any, None]) -> None:
    """Run an arrival the room admits as a task (`ratscrew.server.room.admission`), then what
    the connection sent meanwhile, in order."""
    try:
        await pending
    finally:
        waiting, conn.waiting = conn.waiting or [], None
        for index, (later, read_at) in enumerate(waiting):
            if server.gone(conn):
                break
            _take_parsed(server, room, conn, address, later, read_at)
            if conn.waiting is not None:  # another arrival: the rest wait behind it, in order
                conn.waiting.extend(waiting[index + 1:])
                break


# ---------------------------------------------------------------------------------- the app


def create_app(store: Store | str | Path, *, limits: Limits | None = None,
               allowed_origins: frozenset[str] = frozenset(), close_store: bool = False,
               shard: str | None = None, idle_room_hours: float | None = None,
               absence: AbsenceTimes | None = None, settle_gc: bool = False) -> Starlette:
    """The ratscrew web app over ``store`` (a `Store`, or a database path or URL to open and
    own); with ``shard``, it owns only the rooms whose code begins with that letter; with
    ``idle_room_hours``, rooms nobody has been in for that long are closed (`ratscrew.server.ops.expiry`);
    ``absence``: when people who left a game are stood in for, and the game abandoned (2 and 5 minutes);
    ``settle_gc``: once started, set the garbage collector for a server process
    (`ratscrew.server.ops.collector`; ``ratscrew serve`` does, tests do not).

    A store the app opened itself, or any store with ``close_store``, is closed when the app
    shuts down (uvicorn re-raises SIGTERM after its graceful shutdown, so code after
    ``Server.run`` never runs: the close must happen here)."""
    owned = close_store or isinstance(store, (str, Path))
    idle = None if idle_room_hours is None else IdleRooms(idle_room_hours * 3600.0)
    server = Server(instrument_store(open_store(store) if isinstance(store, (str, Path)) else store),
                    limits or Limits(), allowed_origins, shard=shard, absence=absence or AbsenceTimes(),
                    room_hooks=[] if idle is None else [idle])

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            ratings.catch_up(server.store)  # games a stopped server left unrated, before any room plays
        except StoreUnavailable:
            log.error("could not rate the games left unrated: the database is unavailable")
        server.restore_rooms()
        if server.store.writes_off_the_loop:
            await server.writer.game_ids.fill()  # so that the first games wait for no id either
        if settle_gc:
            settle_collector()
        watcher = asyncio.create_task(watch_store(server.store, server.rooms))
        send_watch = asyncio.create_task(watch_sends(server.connections, server.limits))
        expiry = (None if idle is None
                  else asyncio.create_task(close_idle_rooms(server, idle)))
        arena_sweep = asyncio.create_task(app.state.arenas.sweep())  # issue 50: final standings
        yield
        arena_sweep.cancel()
        watcher.cancel()
        send_watch.cancel()
        if expiry is not None:
            expiry.cancel()
        closing = list(server.connections)
        for conn in closing:
            conn.close(1012, "the server is restarting")
        await asyncio.gather(*(room.stop() for room in server.rooms.values()))
        await server.writer.drain()
        server.lab.shutdown()
        await server.store.close_async()
        if owned:
            server.store.close()
        log.info("shut down: %d rooms kept for the next start, %d connections closed",
                 len(server.rooms), len(closing))

    handler: Callable[[Request, Exception], Awaitable[Response]] = http_error
    app = Starlette(
        routes=[
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics),
            Route("/", home),
            Route("/r/{code}", room_page),
            Route("/games/{game_id}", replay_page),
            Route("/leaderboard", leaderboard_page),
            Route("/players/{player_id}", player_page),
            Route("/api/rooms", create_room, methods=["POST"]),
            Route("/api/rooms/{code}", room_info),
            Route("/api/presets", presets),
            Route("/api/bots", bots),
            Route("/api/games/{game_id}/record", game_record),
            Route("/api/games/{game_id}/replay", game_replay),
            Route("/api/leaderboard", leaderboard),
            Route("/api/players/import", import_player, methods=["POST"]),
            Route("/api/players/export", export_player, methods=["POST"]),
            Route("/api/players/{player_id}", player_info),
            *LAB_ROUTES,
            *OFFLINE_ROUTES,  # issue 51: manifest, service worker, /play
            *QUICKPLAY_ROUTES,  # issue 50: /api/pools, /ws/seek (before /ws/{code})
            *arenas.ROUTES,  # issue 50: /arenas/ID, /api/arenas
            WebSocketRoute("/ws/{code}", websocket_endpoint),
            Mount("/static", StaticFiles(directory=WEB_DIR, check_dir=False), name="static"),
        ],
        exception_handlers={HTTPException: handler, StoreUnavailable: store_unavailable,
                            ClientDisconnect: client_gone},
        lifespan=lifespan,
        max_body_size=MAX_FRAME_BYTES,
    )
    app.state.server = server
    arenas.attach(app, server, WindowCounter,  # issue 50
                  quickplay.attach(app, server, WindowCounter, TokenBucket))
    app.add_middleware(CrossSiteGuard, allowed_origins=allowed_origins)
    app.state.lab = server.lab
    app.add_middleware(SecurityHeaders)
    return app
