"""The websocket endpoint ``/ws/CODE``: it finds the room, holds each frame to the connection's
rates, parses it into a validated message (:mod:`ratscrew.protocol`) and hands it to the room.
It knows no message types: the room's route table says which messages are arrivals, which go
ahead of one, and the per-connection limit each is held to."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from ratscrew.protocol.client_messages import ClientMessage, parse_client_message
from ratscrew.protocol.codec import ProtocolError
from ratscrew.protocol.server_messages import error_message
from ratscrew.server.ops.expiry import (
    CLOSED_MESSAGE,
    CLOSED_WS_CODE,
    room_closed,
)
from ratscrew.server.ops.metrics import TALLY
from ratscrew.server.ops.shards import misdirected
from ratscrew.server.room.room import Room
from ratscrew.server.state import Server, client_address, server_of
from ratscrew.server.ws.connection import WebSocketConnection
from ratscrew.server.ws.wsprotocol import RECEIVE_NOW_EXTENSION
from ratscrew.storage.records import StoreUnavailable

log = logging.getLogger("ratscrew.server")


async def websocket_endpoint(websocket: WebSocket) -> None:
    """``/ws/CODE``: parse, check limits, forward to the room (see the module docstring)."""
    server = server_of(websocket)
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
