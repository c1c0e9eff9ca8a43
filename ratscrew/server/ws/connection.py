"""One websocket as a room sees it (`WebSocketConnection`): its bounded send queue written out
by its own task, its pings, its message rates, and the watch that closes a connection whose send
hangs (`watch_sends`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable

from starlette.websockets import WebSocket, WebSocketDisconnect

from ratscrew.protocol.client_messages import ClientMessage
from ratscrew.protocol.codec import encode_message
from ratscrew.protocol.server_messages import PingMessage, ServerMessage
from ratscrew.server.http.limits import (
    Limits,
    TokenBucket,
)
from ratscrew.server.ops.metrics import TALLY
from ratscrew.server.room.dispatch import RouteLimit
from ratscrew.server.room.room import SHOWN_VERSIONS
from ratscrew.server.room.writer import Closing, Item, OutboxSends
from ratscrew.server.ws.link import Pinger
from ratscrew.server.ws.wsprotocol import SEND_NOW_EXTENSION, SendNow

log = logging.getLogger("ratscrew.server")


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
