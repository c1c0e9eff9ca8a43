"""The websocket to a room: one JSON object per text frame, pings answered at once, and a new
connection with growing pauses (0.5 s doubling up to 10 s) whenever the old one drops.

`RoomLink` runs as a task in the caller's event loop (Textual's, for ``ratscrew join``) and
calls back: ``on_open`` after every (re)connection, so the caller can send ``join`` or ``watch``
again; ``on_message`` with every message but ``ping`` and the monotonic time it arrived;
``on_status`` with a line saying how the link is. It stops for good - the run returns the
reason - when the server replaces the connection (close code 4001), refuses it (1008 or an
HTTP 4xx on the handshake), or the caller calls :meth:`RoomLink.stop`.

`fetch_room` asks the server about a room over plain HTTP before any of that, so an unknown room
or a server that is not there is one clear error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any, cast

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI

from ratscrew.client.address import RoomAddress
from ratscrew.protocol.server_messages import ServerMessage

FINAL_CLOSE_CODES = {4001: "replaced", 4404: "unknown room", 4410: "the room has closed", 1008: "refused"}
"""Close codes after which reconnecting cannot help."""
MAX_BACKOFF_S = 10.0


class RoomUnavailable(Exception):
    """The room cannot be joined; the message says why and what to do."""


def fetch_room(address: RoomAddress, timeout: float = 10.0) -> dict[str, Any]:
    """``GET /api/rooms/CODE``: the room's public summary; `RoomUnavailable` when there is no
    such room or no ratscrew server answers."""
    request = urllib.request.Request(address.info_url, headers={"accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            data = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        if error.code == 404:
            raise RoomUnavailable(
                f"there is no room {address.code} on {address.server}: check the code (or the "
                f"--server), or create a room at {address.server}/") from None
        if error.code == 410:
            raise RoomUnavailable(
                f"room {address.code} on {address.server} has closed (nobody had been in it for a "
                f"while, or the site closed it); create a new room at {address.server}/") from None
        raise RoomUnavailable(f"{address.server} answered {error.code} {error.reason} for room "
                              f"{address.code}: is it a ratscrew server?") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise RoomUnavailable(
            f"cannot reach a ratscrew server at {address.server} ({reason}): check the address, "
            "or start one with 'ratscrew serve'") from None
    except (ValueError, UnicodeDecodeError):
        raise RoomUnavailable(f"{address.server} is not a ratscrew server (its answer is not "
                              "JSON)") from None
    if not isinstance(data, dict) or not isinstance(data.get("seats"), list):
        raise RoomUnavailable(f"{address.server} is not a ratscrew server (unexpected answer)")
    return data


OnMessage = Callable[[ServerMessage, float], None]


class RoomLink:
    """One room's websocket, reconnecting (see the module docstring). ``clock`` stamps arrivals
    (seconds, monotonic)."""

    def __init__(self, url: str, *, on_open: Callable[[], None], on_message: OnMessage,
                 on_status: Callable[[str], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.url = url
        self.on_open = on_open
        self.on_message = on_message
        self.on_status = on_status
        self.clock = clock
        self.connected = False
        self.connections = 0
        """Connections opened so far (the first, then each reconnection)."""
        self.sent: list[dict[str, Any]] = []
        """Every message sent but ``pong``, newest last (kept for tests; bounded)."""
        self._ws: ClientConnection | None = None
        self._outbox: asyncio.Queue[str] | None = None
        self._stopped = False
        self._closing: asyncio.Future[None] | None = None

    def send(self, message: dict[str, Any]) -> bool:
        """Queue a message for the open connection; ``False`` when there is none."""
        if self._ws is None or self._outbox is None:
            return False
        self._outbox.put_nowait(json.dumps(message))
        self.sent.append(message)
        del self.sent[:-200]
        return True

    def stop(self) -> None:
        """Close the connection and do not reconnect."""
        self._stopped = True
        if self._ws is not None:
            self._closing = asyncio.ensure_future(self._ws.close())

    def drop(self) -> None:
        """Cut the connection as a network failure would (no closing handshake); the link
        reconnects. For tests and for trying it by hand."""
        if self._ws is not None:
            self._ws.transport.abort()

    async def run(self) -> str:
        """Connect, and reconnect after every drop, until the link stops for good; the reason."""
        failures = 0
        while not self._stopped:
            opened = self.connections
            reason = await self._session()
            if reason is not None:
                self.on_status(f"disconnected: {reason}")
                return reason
            if self._stopped:
                break
            failures = 1 if self.connections > opened else failures + 1
            delay = min(MAX_BACKOFF_S, 0.5 * 2 ** min(failures - 1, 5))
            self.on_status(f"reconnecting in {delay:.0f} s…" if delay >= 1 else "reconnecting…")
            await asyncio.sleep(delay)
        return "closed"

    async def _session(self) -> str | None:
        """One connection from open to close; a reason when it must not be retried."""
        try:
            async with connect(self.url, open_timeout=10, proxy=None, compression=None,
                               max_size=2**20, ping_interval=10, ping_timeout=20) as ws:
                self._ws, self._outbox = ws, asyncio.Queue()
                self.connected = True
                self.connections += 1
                writer = asyncio.create_task(self._write(ws, self._outbox))
                self.on_status("connected")
                try:
                    self.on_open()
                    await self._read(ws)
                finally:
                    writer.cancel()
                    with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
                        await writer
            code, why = ws.close_code, ws.close_reason or ""
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
            why = closed.rcvd.reason if closed.rcvd is not None else ""
        except InvalidStatus as refused:
            status = refused.response.status_code
            if 400 <= status < 500:
                return f"the server refused the connection (HTTP {status})"
            self.on_status(f"the server answered HTTP {status}")
            return None
        except InvalidURI as error:
            return f"bad address: {error}"
        except (OSError, InvalidHandshake, TimeoutError) as error:
            self.on_status(f"cannot connect: {error}")
            return None
        finally:
            self._ws, self._outbox = None, None
            self.connected = False
        if code in FINAL_CLOSE_CODES:  # a refusal says why (e.g. a per-address limit)
            return FINAL_CLOSE_CODES[code] + (f": {why}" if code == 1008 and why else "")
        return None

    async def _read(self, ws: ClientConnection) -> None:
        async for frame in ws:
            arrived = self.clock()
            if not isinstance(frame, str):
                continue
            try:
                message = json.loads(frame)
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue
            if message.get("type") == "ping":
                await ws.send(json.dumps({"type": "pong", "id": message.get("id")}))
                continue
            # the server builds each message as its type (ratscrew.protocol.server_messages);
            # the session reads the fields with care all the same
            self.on_message(cast(ServerMessage, message), arrived)

    @staticmethod
    async def _write(ws: ClientConnection, outbox: asyncio.Queue[str]) -> None:
        while True:
            await ws.send(await outbox.get())
