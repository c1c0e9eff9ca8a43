"""A client that never reads must not delay its room: its messages pile up in a bounded queue,
then it is disconnected, while the others at the table go on receiving every state on time.

The server runs in a thread (uvicorn on a loopback port) with small limits so that this happens
in seconds; the stuck client is a real websocket whose socket buffer is tiny and which stops
reading (``max_queue=1``), and it makes the server answer it a great deal (one error per bad
frame) to fill its queue quickly.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from raw_clients import handshake
from serving import server_in_a_thread
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from ratscrew.server.app import create_app
from ratscrew.server.http.limits import Limits
from ratscrew.server.ws.connection import WebSocketConnection, watch_sends
from ratscrew.server.ws.wsprotocol import (
    RECEIVE_NOW_EXTENSION,
    UNSENT_CHECK_EVERY,
    UNSENT_HIGH_WATER,
    BatchedReadProtocol,
)
from ratscrew.storage.sqlite import SqliteStore


@pytest.fixture
def server_url() -> Iterator[str]:
    limits = Limits(send_queue=32, send_timeout_s=1.0, messages_per_second=100_000,
                    message_burst=100_000, flood_drops=10**9)
    app = create_app(SqliteStore(":memory:"), limits=limits)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    with server_in_a_thread(uvicorn.Config(app, log_level="warning", ws=BatchedReadProtocol,
                                           ws_per_message_deflate=False), sock):
        yield f"127.0.0.1:{port}"


def test_a_client_that_never_reads_is_dropped_and_does_not_slow_its_room(
        server_url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ratscrew.server")
    code = httpx.post(f"http://{server_url}/api/rooms",
                      json={"rules": "classic", "seats": 2, "bots": ["expert"], "pace": "fast",
                            "turn_timeout_ms": 1000}).json()["code"]
    url = f"ws://{server_url}/ws/{code}"
    # a client waits for its close to be answered after every message still unread in its own
    # queue: neither end here reads its last messages, so a second is enough to wait
    with connect(url, close_timeout=1) as player:
        player.send(json.dumps({"type": "join", "name": "Ann"}))
        player.send(json.dumps({"type": "start"}))
        raw = socket.socket()
        # small before connecting, so that the window it offers is small from the start (set
        # later, the kernel may drop what arrives past it, acknowledgements too, and the
        # client's own sends stall)
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        raw.connect(("127.0.0.1", int(server_url.split(":")[1])))
        with connect(url, sock=raw, max_queue=1, close_timeout=1) as stuck:
            stuck.send(json.dumps({"type": "watch"}))
            for _ in range(3000):  # each earns an error message the client never reads
                try:
                    stuck.send('{"type": "slap", "reaction_ms": "fast"}')
                except ConnectionClosed:
                    break  # dropped already (a loaded machine is slow to send the 3,000)
            # meanwhile the player keeps getting the game as it happens, stand-in and bot
            # playing, for 6 s at least and until the stuck client is gone. How soon that is
            # depends on how much of the flood the kernel delivered (a socket with so small a
            # buffer may stall its own sends): the room's states to the stuck client then fill
            # what it leaves unread, more slowly.
            states, started = 0, time.monotonic()
            gaps: list[float] = []
            last = asked = started
            spectators = 1
            while time.monotonic() - started < 6 or (spectators and time.monotonic() - started < 40):
                message = json.loads(player.recv(timeout=3))
                if message["type"] == "ping":
                    player.send(json.dumps({"type": "pong", "id": message["id"]}))
                elif message["type"] == "state":
                    states += 1
                    now = time.monotonic()
                    gaps.append(now - last)
                    last = now
                if time.monotonic() - asked > 0.5:
                    asked = time.monotonic()
                    room = httpx.get(f"http://{server_url}/api/rooms/{code}").json()
                    spectators = room["spectators"]
            assert states >= 5, "the room stalled while a client did not read"
            assert max(gaps) < 3.0
            assert spectators == 0, "the client that never reads is still connected"
            why = [r.getMessage() for r in caplog.records if "closing a connection" in r.getMessage()]
            assert any("does not read" in w or "send hung" in w for w in why), why
            with contextlib.suppress(Exception):
                stuck.close()


class HangingWebSocket:
    """A websocket whose sends never finish (a peer that stopped reading, buffers full)."""

    def __init__(self) -> None:
        self.scope: dict[str, object] = {"extensions": {}}  # no protocol offering a direct write
        self.closed_with: tuple[int, str] | None = None
        self.sends = 0

    async def send_text(self, text: str) -> None:
        self.sends += 1
        await asyncio.Event().wait()  # never set

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed_with = (code, reason)


def test_a_send_that_hangs_closes_the_connection_after_the_send_timeout(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ratscrew.server")
    limits = Limits(send_timeout_s=0.2)

    async def scenario() -> tuple[HangingWebSocket, WebSocketConnection, float]:
        websocket = HangingWebSocket()
        conn = WebSocketConnection(websocket, "10.0.0.9", lambda: 0.0, limits)  # type: ignore[arg-type]
        conn.writer = asyncio.create_task(conn.write_loop())
        watch = asyncio.create_task(watch_sends({conn}, limits))
        started = time.monotonic()
        conn.send({"type": "notice", "code": "resumed", "message": "hello"})
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(conn.writer, 2.0)
        watch.cancel()
        return websocket, conn, time.monotonic() - started

    websocket, conn, took = asyncio.run(scenario())
    assert websocket.sends == 1
    assert conn.closed and websocket.closed_with == (1013, "too slow")
    assert 0.2 <= took < 1.0, f"closed after {took:.2f} s; the limit is 0.2 s"
    assert any("a send hung" in record.getMessage() for record in caplog.records)


def test_the_awaited_send_waits_while_the_client_leaves_too_much_unread() -> None:
    """On loopback the kernel takes far more than the transport's own mark before it holds a
    write back: the protocol looks at what the client left unread and holds back the app's
    awaited sends too (not only its direct writes), then lets them go on once it reads."""
    written: list[int] = []
    message = "x" * 1000

    async def app(scope: dict[str, object], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        while True:
            await send({"type": "websocket.send", "text": message})  # the awaited path only
            written.append(len(message))

    with bare_server(app) as port, socket.socket() as client:
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window from the start
        client.connect(("127.0.0.1", port))
        client.sendall(handshake("/", f"127.0.0.1:{port}"))
        time.sleep(1.5)  # the client reads nothing
        held_at = sum(written)
        assert held_at >= UNSENT_HIGH_WATER, "the app could not write even the mark's worth"
        # written until a look found more than the mark unread: one look per CHECK_EVERY bytes
        assert held_at <= UNSENT_HIGH_WATER + UNSENT_CHECK_EVERY + len(message), held_at
        time.sleep(0.3)
        assert sum(written) == held_at, "the awaited send went on while the client read nothing"
        client.settimeout(0.2)
        read, until = 0, time.monotonic() + 3
        while sum(written) <= held_at + UNSENT_HIGH_WATER and time.monotonic() < until:
            with contextlib.suppress(TimeoutError):
                read += len(client.recv(1 << 16))
        assert sum(written) > held_at + UNSENT_HIGH_WATER, "the sends did not go on once it read"


def test_an_app_sending_in_a_loop_hears_that_its_client_is_gone() -> None:
    """A client that vanishes (its socket reset) under an app that sends in a loop: the app's
    next send raises (uvicorn's `ClientDisconnected`) instead of writing into the lost socket
    without ever yielding, which starved the loop, flooded the log with "socket.send() raised
    exception." and left the server unable to stop."""
    import threading

    from uvicorn.protocols.utils import ClientDisconnected

    ended = threading.Event()

    async def app(scope: dict[str, object], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        try:
            while True:
                await send({"type": "websocket.send", "text": "x" * 100})
        except ClientDisconnected:
            ended.set()

    with bare_server(app) as port:
        client = socket.socket()
        client.connect(("127.0.0.1", port))
        client.sendall(handshake("/", f"127.0.0.1:{port}"))
        client.recv(1 << 16)  # the handshake's answer and the first messages
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        client.close()  # with unread data and linger 0: a reset
        assert ended.wait(timeout=10), "the app kept sending to a client that is gone"


def test_an_error_in_the_handler_of_a_message_read_in_place_closes_with_1011() -> None:
    """A message handed to the app in the read callback (`take_messages`) whose handling
    raises closes that connection with 1011, and the app hears the close as from a client."""
    handled: list[str] = []
    heard: list[dict[str, Any]] = []

    def handle(text: str) -> None:
        if text == "boom":
            raise RuntimeError("a bug in the handler")
        handled.append(text)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        scope["extensions"][RECEIVE_NOW_EXTENSION]["take"](handle)
        heard.append(await receive())

    with bare_server(app) as port, connect(f"ws://127.0.0.1:{port}/", close_timeout=1) as client:
        client.send("first")
        client.send("boom")
        with pytest.raises(ConnectionClosed) as closed:
            # the close may already be here when this send goes: either raises the close
            client.send("never handled")
            client.recv(timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1011
    deadline = time.monotonic() + 5
    while not heard and time.monotonic() < deadline:
        time.sleep(0.02)
    assert handled == ["first"] and heard and heard[0]["type"] == "websocket.disconnect"
    assert heard[0]["code"] == 1011


@contextlib.contextmanager
def bare_server(app: Any) -> Iterator[int]:
    """A bare ASGI ``app`` on uvicorn with the server's websocket protocol, on a free loopback
    port (yielded), stopped on the way out."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    with server_in_a_thread(uvicorn.Config(app, log_level="warning", ws=BatchedReadProtocol,
                                           ws_per_message_deflate=False, lifespan="off"), listener):
        yield listener.getsockname()[1]
