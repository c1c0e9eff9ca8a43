"""``/ws/seek``: quick play's websocket (docs/protocol.md, "Quick play").

It parses each frame (`ratscrew.protocol.client_messages.parse_seek_message`), holds the socket
to its limits, and hands the seek to the pools (`ratscrew.server.quickplay.pools.QuickPlay`):
the key's player is entered (as a join does), refused if flagged, and sought at its rating under
the pool's rules. Limits (item 6 of issue 50): the socket counts against its address's open
connections (`ratscrew.server.http.limits.OpenConnections`), seeks are counted per address in
the shared per-address counters (PostgreSQL's ``rate_events`` past one process), one key seeks
once at a time (``already_seeking``), and a socket that floods is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any, Protocol

from starlette.websockets import WebSocket, WebSocketDisconnect

from ratscrew.protocol.client_messages import Seek, parse_seek_message
from ratscrew.protocol.codec import ProtocolError, encode_message
from ratscrew.protocol.server_messages import SeekServerMessage, error_message
from ratscrew.server.blocking import off_the_loop
from ratscrew.server.http.limits import TokenBucket, limit_key
from ratscrew.server.ladder import players
from ratscrew.server.ladder.ranking import conservative
from ratscrew.server.quickplay.pools import QuickPlay
from ratscrew.storage.records import RateCounter, StoreUnavailable
from ratscrew.storage.roles import Store

log = logging.getLogger("ratscrew.server")

SEEKS_PER_MINUTE = 20
"""Seeks one address may make in a minute (every shard together)."""
SEEK_MESSAGES_PER_SECOND, SEEK_MESSAGE_BURST = 2.0, 10
"""What one seek socket may send; past it its messages are dropped (``rate_limited``)."""
SEEK_FLOOD_DROPS = 20
"""Dropped messages that close a seek socket as a flood."""


@dataclass
class Seeking:
    """What ``/ws/seek`` needs of the app, kept on ``app.state.seeking``."""

    service: QuickPlay
    seek_counter: RateCounter
    """Seeks per address (`SEEKS_PER_MINUTE`), shared by every shard on PostgreSQL."""


class SeekServer(Protocol):
    """The parts of the app's server state the endpoint uses (`ratscrew.server.app.Server`)."""

    store: Store
    limits: Any
    open_websockets: Any
    player_counter: RateCounter

    def origin_allowed(self, websocket: WebSocket) -> bool:
        """Whether a browser's websocket comes from this server's origin."""


class SocketLink:
    """One seek socket: messages written out in order by its own task."""

    def __init__(self, websocket: WebSocket) -> None:
        self.seek_id = secrets.token_urlsafe(12)
        self.websocket = websocket
        self.closed = False
        self._queue: asyncio.Queue[str | tuple[int, str]] = asyncio.Queue()

    def send(self, message: SeekServerMessage) -> None:
        """Queue ``message``."""
        if not self.closed:
            self._queue.put_nowait(encode_message(message))

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Close after what is queued."""
        if not self.closed:
            self.closed = True
            self._queue.put_nowait((code, reason))

    async def write_loop(self) -> None:
        """Send what is queued until the close."""
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            while True:
                item = await self._queue.get()
                if isinstance(item, tuple):
                    await asyncio.wait_for(self.websocket.close(*item), 2.0)
                    return
                await asyncio.wait_for(self.websocket.send_text(item), 10.0)


def _address(websocket: WebSocket) -> str:
    client = websocket.client
    return limit_key(str(client[0])) if client else "unknown"


def _seek_player(store: Store, seek: Seek, counter: RateCounter, address: str, now: float,
                 per_hour: int) -> tuple[str, float]:
    """The seeking key's player (entered as a join enters it) and rating under the seek's rules;
    `ProtocolError` for a refused key or name, or a flagged player."""
    players.admit_new_player(store, seek.player_key, counter, address, now, per_hour)
    player_id = players.enter(store, seek.player_key, seek.name)
    assert player_id is not None
    flag = store.integrity_flag(player_id)
    if flag is not None and flag.get("cleared_at") is None:
        raise ProtocolError("flagged", "seek: your play is being reviewed (an integrity flag), so "
                            "you cannot seek rated games until a moderator has looked at it")
    return player_id, rating_of(store, player_id, seek.rules)


def rating_of(store: Store, player_id: str, rules: str) -> float:
    """The player's rating under ``rules`` as pools compare them (mu - 3 sigma; 0 when new)."""
    return next((conservative(r["mu"], r["sigma"]) for r in store.ratings_of(player_id)
                 if r["rules"] == rules), 0.0)


async def seek_endpoint(websocket: WebSocket) -> None:
    """``/ws/seek`` (see the module docstring)."""
    server: SeekServer = websocket.app.state.server
    seeking: Seeking = websocket.app.state.seeking
    if not server.origin_allowed(websocket):
        await websocket.close(code=1008)
        return
    address = _address(websocket)
    if not server.open_websockets.open(address):
        await websocket.accept()
        await websocket.close(code=1008, reason="too many connections from your address")
        return
    try:
        await websocket.accept()
        link = SocketLink(websocket)
        writer = asyncio.create_task(link.write_loop())
        try:
            await _serve(server, seeking, websocket, link, address)
        finally:
            await seeking.service.cancel(link)
            link.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, 3.0)
    finally:
        server.open_websockets.close(address)


async def _serve(server: SeekServer, seeking: Seeking, websocket: WebSocket, link: SocketLink,
                 address: str) -> None:
    bucket = TokenBucket(SEEK_MESSAGES_PER_SECOND, SEEK_MESSAGE_BURST, time.monotonic())
    drops = 0
    with contextlib.suppress(WebSocketDisconnect):
        while not link.closed:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                return
            now = time.monotonic()
            if not bucket.take(now):
                drops += 1
                if drops >= SEEK_FLOOD_DROPS:
                    log.info("closing a flooding seek socket from %s", address)
                    link.send(error_message("flood", "far too many messages"))
                    link.close(1008, "flood")
                    return
                link.send(error_message("rate_limited", "too many messages: this one was dropped"))
                continue
            try:
                message = parse_seek_message(frame.get("text") or frame.get("bytes") or b"")
                if isinstance(message, Seek):
                    await _seek(server, seeking, link, message, address, now)
                else:
                    await seeking.service.cancel(link)
            except ProtocolError as error:
                link.send(error.to_message())
            except StoreUnavailable:
                link.send(error_message("unavailable", "the server cannot reach its database "
                                        "right now; seek again in a moment"))


async def _seek(server: SeekServer, seeking: Seeking, link: SocketLink, seek: Seek, address: str,
                now: float) -> None:
    if link.seek_id in seeking.service.links:
        raise ProtocolError("already_seeking", "seek: this socket already seeks; cancel first")
    if not await seeking.seek_counter.allow_async(address, now):
        raise ProtocolError("rate_limited", f"seek: at most {SEEKS_PER_MINUTE} seeks a minute from "
                            "your address; wait a minute")
    player_id, rating = await off_the_loop(
        server.store, _seek_player, server.store, seek, server.player_counter, address, now,
        server.limits.players_per_hour)
    await seeking.service.seek(link, (seek.rules, seek.players, seek.arena), player_id, seek.name,
                               rating)
