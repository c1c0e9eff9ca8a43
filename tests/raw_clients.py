"""Raw clients for hostile-traffic tests and ``benchmarks/hostile.py``: a websocket opened over a
plain asyncio stream (so a test decides what it sends and whether it ever reads), ping frames,
close frames, and a process's resident memory.

Connections can come from any loopback address (``source="127.0.0.2"``): Linux routes all of
127.0.0.0/8 to the loopback interface, so a test has several "client addresses" on one machine.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from pathlib import Path

MASK = b"\x01\x02\x03\x04"
PING = b"\x89\x80" + MASK
"""A client's ping frame with no payload (clients must mask their frames)."""
BIG_PING = b"\x89" + bytes([0x80 | 125]) + MASK + bytes(125)
"""A client's ping frame with the largest payload a control frame may carry (125 bytes): each
pong the server owes for it is 127 bytes."""


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB (``VmRSS`` in ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    raise AssertionError(f"no VmRSS for process {pid}")


def handshake(path: str, host: str, origin: str | None = None, forwarded_for: str | None = None) -> bytes:
    """A websocket upgrade request for ``path``."""
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "Upgrade: websocket", "Connection: Upgrade",
             f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    if forwarded_for is not None:
        lines.append(f"X-Forwarded-For: {forwarded_for}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def open_raw(port: int, source: str = "127.0.0.1") -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP connection to the server on loopback from address ``source``."""
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))


async def raw_websocket(port: int, path: str, *, source: str = "127.0.0.1", origin: str | None = None,
                        forwarded_for: str | None = None, host: str | None = None
                        ) -> tuple[int, asyncio.StreamReader, asyncio.StreamWriter]:
    """Open a websocket by hand: the handshake's HTTP status, and the stream to go on with."""
    reader, writer = await open_raw(port, source)
    writer.write(handshake(path, host or f"127.0.0.1:{port}", origin, forwarded_for))
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    status = int(head.split(b" ", 2)[1])
    return status, reader, writer


def text_frame(text: str) -> bytes:
    """A client's masked text frame."""
    data = text.encode()
    masked = bytes(b ^ MASK[i % 4] for i, b in enumerate(data))
    if len(data) < 126:
        header = bytes([0x81, 0x80 | len(data)])
    else:
        header = bytes([0x81, 0x80 | 126]) + struct.pack("!H", len(data))
    return header + MASK + masked


async def read_frames(reader: asyncio.StreamReader, timeout: float) -> list[tuple[int, bytes]]:
    """Server frames (opcode, payload) until the connection ends or ``timeout`` passes; a
    reset connection ends the list too."""
    frames: list[tuple[int, bytes]] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    try:
        while (left := deadline - loop.time()) > 0:
            head = await asyncio.wait_for(reader.readexactly(2), left)
            length = head[1] & 0x7F
            if length == 126:
                length = struct.unpack("!H", await reader.readexactly(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", await reader.readexactly(8))[0]
            frames.append((head[0] & 0x0F, await reader.readexactly(length)))
            if head[0] & 0x0F == 0x8:
                break
    except (asyncio.IncompleteReadError, ConnectionError, TimeoutError):
        pass
    return frames


def close_code(frames: list[tuple[int, bytes]]) -> int | None:
    """The code of the close frame among ``frames``, if there is one."""
    for opcode, payload in frames:
        if opcode == 0x8 and len(payload) >= 2:
            return int(struct.unpack("!H", payload[:2])[0])
    return None


async def closed_within(reader: asyncio.StreamReader, timeout: float) -> bool:
    """Whether the server ends the connection within ``timeout`` seconds (reading and dropping
    whatever it sends before that)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    try:
        while (left := deadline - loop.time()) > 0:
            if not await asyncio.wait_for(reader.read(65536), left):
                return True
    except ConnectionError:
        return True
    except TimeoutError:
        return False
    return False
