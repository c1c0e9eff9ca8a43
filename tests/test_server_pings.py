"""How a connection's pings go out: the first few at once, to measure the link before the first
card; after that each waits for the connection's next state and goes ahead of it in the same
write to the socket, or alone a ping gap later when no state came."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest

from ratscrew.server.http.limits import Limits
from ratscrew.server.ws import link
from ratscrew.server.ws.connection import WebSocketConnection
from ratscrew.server.ws.wsprotocol import SEND_NOW_EXTENSION


class RecordingWebSocket:
    """A websocket whose protocol takes every direct write, and remembers each write's
    messages by type (one write to the socket per call)."""

    def __init__(self) -> None:
        self.writes: list[list[str]] = []
        self.scope: dict[str, object] = {"extensions": {SEND_NOW_EXTENSION: {"send": self.send_now}}}

    def send_now(self, *texts: str) -> bool:
        self.writes.append([json.loads(text)["type"] for text in texts])
        return True


async def until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(10):
        while not condition():
            await asyncio.sleep(0.002)


def test_after_the_first_pings_a_ping_goes_ahead_of_the_next_state_in_one_write_or_alone_later(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(link, "FIRST_PING_GAP_MS", 5)
    monkeypatch.setattr(link, "PING_EVERY_MS", 100)

    async def scenario() -> RecordingWebSocket:
        websocket = RecordingWebSocket()
        conn = WebSocketConnection(websocket, "10.0.0.9", lambda: 0.0, Limits())  # type: ignore[arg-type]
        pinging = asyncio.create_task(conn.ping_loop())
        await until(lambda: conn.waiting_ping is not None)
        assert websocket.writes == [["ping"]] * link.FIRST_PINGS  # each at once, alone
        conn.send_state(1, '{"type":"state","version":1}')
        conn.send_state(2, '{"type":"state","version":2}')
        assert conn.waiting_ping is None
        await until(lambda: conn.waiting_ping is not None)  # the next one: no state comes ...
        await until(lambda: conn.waiting_ping is None)  # ... so it goes alone a gap later
        pinging.cancel()
        return websocket

    writes = asyncio.run(scenario()).writes[link.FIRST_PINGS:]
    assert writes == [["ping", "state"], ["state"], ["ping"]]
