"""The websocket protocol the server runs on: uvicorn's sans-I/O implementation, reading in
batches, with ping and pong frames held to a rate.

uvicorn stops reading a socket after every message it hands the app and starts again when the
app has taken it: two changes to the event loop's selector per incoming frame. On a loaded
server (500 rooms, 1,200 frames a second in) that was a tenth of the process's samples
(``resume_reading``/``_add_reader`` under py-spy), for frames of a few dozen bytes. Here reading
stops only when :data:`RECEIVE_HIGH_WATER` messages wait for the app, and starts again once the
app has taken them all, so a flooding client is still held back (and the app's rate limit
closes it) while an ordinary one costs no selector change at all.

Control frames never reach the app, so its rate limit never saw them: a client sending ping
frames and never reading the pongs grew the server by hundreds of megabytes of unsent pongs.
Here ping and pong frames take tokens from their own bucket (:attr:`BatchedReadProtocol.
control_frames_per_second`, bursts of :attr:`~BatchedReadProtocol.control_frame_burst`); a
client past it is closed with 1008. A pong is written only while the client reads what it is
sent (the transport is not holding back writes); once :attr:`~BatchedReadProtocol.unsent_pongs`
pongs were held back the client is closed with 1008 too.

On loopback the kernel takes megabytes before the transport holds anything back, so "the client
reads what it is sent" also means the kernel's send queue holds at most :data:`UNSENT_HIGH_WATER`
unread bytes (looked at every :data:`UNSENT_CHECK_EVERY` bytes written, by either write path).
Past it the protocol holds every write back (``writable`` is cleared, as when the transport
pauses) and looks again every :data:`UNSENT_POLL_S` until the client has read down to
:data:`UNSENT_LOW_WATER`: the app's awaited send waits, and its own limits (a bounded queue, a
send timeout) find a client that never reads.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import struct
import termios
from collections import deque
from collections.abc import Callable
from typing import Protocol

from uvicorn._types import ASGISendEvent
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.frames import Frame

log = logging.getLogger("ratscrew.server")

RECEIVE_HIGH_WATER = 16
"""Messages waiting for the app before the socket stops being read (each at most the server's
largest frame, so a connection holds at most this many frames in memory)."""
INTERNAL_ERROR_CLOSE = 1011
"""The close code of a connection whose message the app failed on."""
FLOOD_CLOSE = 1008
"""The close code of a connection closed for flooding (policy violation)."""
CLOSE_GRACE_S = 2.0
"""How long a flooding connection has to take its close frame before it is cut."""


UNSENT_HIGH_WATER = 64 * 1024
"""Bytes written to a socket but not yet taken by its client (the kernel's send queue) above
which `BatchedReadProtocol.send_text_now` declines: the message then waits in the connection's
bounded queue, whose overflow finds a client that does not read (the same mark as the
transport's own high water)."""
UNSENT_LOW_WATER = 16 * 1024
"""Unread bytes below which writes held back by `UNSENT_HIGH_WATER` go on."""
UNSENT_CHECK_EVERY = 16 * 1024
"""Bytes written between two looks at the kernel's send queue (a look is a system call,
2.5 µs from Python, as much as a tenth of a small message's whole cost): a client that stops
reading is found at most this far past `UNSENT_HIGH_WATER`."""
UNSENT_POLL_S = 0.05
"""How often a connection held back by `UNSENT_HIGH_WATER` looks whether its client has read."""


def unsent_bytes(fileno: int) -> int:
    """Bytes in a socket's send queue not yet taken by its peer (Linux ``SIOCOUTQ``).

    >>> import socket
    >>> listener = socket.create_server(("127.0.0.1", 0))
    >>> client = socket.create_connection(listener.getsockname())
    >>> unsent_bytes(client.fileno())
    0
    >>> client.close(); listener.close()
    """
    answer = fcntl.ioctl(fileno, termios.TIOCOUTQ, b"\0\0\0\0")
    unsent: int = struct.unpack("i", answer)[0]
    return unsent


SEND_NOW_EXTENSION = "ratscrew.send_text_now"
"""The ASGI scope extension under which this protocol offers `BatchedReadProtocol.send_text_now`
(key ``"send"``) to the app: ``scope["extensions"][SEND_NOW_EXTENSION]["send"]``."""


class SendNow(Protocol):
    """`BatchedReadProtocol.send_text_now`, as the app holds it."""

    def __call__(self, *texts: str) -> bool:
        """Write ``texts`` now in one write, or False (the app then sends them its own way)."""


RECEIVE_NOW_EXTENSION = "ratscrew.receive_now"
"""The ASGI scope extension under which this protocol offers `BatchedReadProtocol.take_messages`
(key ``"take"``) to the app: ``scope["extensions"][RECEIVE_NOW_EXTENSION]["take"](handler)``."""

MessageHandler = Callable[[str | bytes], None]
"""What the app does with a message as it is read (text as ``str``, binary as ``bytes``)."""


class BatchedReadProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O websocket protocol that pauses reading only at
    :data:`RECEIVE_HIGH_WATER` queued messages and limits control frames (see the module
    docstring)."""

    control_frames_per_second = 20.0
    control_frame_burst = 40
    unsent_pongs = 16

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._control_tokens = float(self.control_frame_burst)
        self._control_at = self.loop.time()
        self._pongs_held = 0
        self._answers: deque[bytes] = deque()
        """What the library queued in answer to the frames of the chunk being handled (a pong
        per ping, in order; a close frame's echo): written one per ping as each is handled."""
        self.flood_closed = False
        """Whether this connection was closed for flooding with control frames."""
        self._unchecked = 0
        """Bytes written since the last look at the kernel's send queue."""
        self._unread_hold: asyncio.TimerHandle | None = None
        """The next look while writes are held back for a client past `UNSENT_HIGH_WATER`."""
        self._transport_paused = False
        """Whether the transport asked to stop writing (its own buffer is past its high water)."""
        self._on_message: MessageHandler | None = None
        """Where messages go as they are read (`take_messages`), if the app asked."""

    async def run_asgi(self) -> None:
        """Run the app, offering it `send_text_now` and `take_messages` in the scope's
        extensions."""
        self.scope["extensions"][SEND_NOW_EXTENSION] = {"send": self.send_text_now}
        self.scope["extensions"][RECEIVE_NOW_EXTENSION] = {"take": self.take_messages}
        await super().run_asgi()

    def take_messages(self, handler: MessageHandler) -> None:
        """From now on, hand each message to ``handler`` as it is read, in the protocol's read
        callback, instead of queueing it for ``websocket.receive`` and waking the app's task
        (a wake-up per message was a tenth of a loaded server's work). A message read while
        others wait in the queue is queued behind them, so the order holds; the close still
        comes through ``websocket.receive``. An error ``handler`` raises closes the connection
        (1011), as an error in the app's task does."""
        self._on_message = handler

    def send_receive_event_to_app(self) -> None:
        """Hand a complete message to the app's handler at once (`take_messages`), or queue it
        for the app; stop reading only when too many wait."""
        handler = self._on_message
        if handler is None or self.close_sent or self.queue.qsize() or self.curr_msg_data_type != "text":
            self._queue_for_app()
            return
        try:
            text = (self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)).decode()
        except UnicodeDecodeError:
            self._queue_for_app()  # the library's own path refuses it (1007)
            return
        self.frames = []
        try:
            handler(text)
        except Exception:
            log.exception("closing a websocket: its message could not be handled")
            self._close_after_error()

    def _close_after_error(self) -> None:
        self._on_message = None
        self._fail(INTERNAL_ERROR_CLOSE, "internal error")

    def _fail(self, code: int, reason: str) -> None:
        """Tell the app the connection is gone (``code``), and close it: the close frame with
        ``code`` and ``reason``, then the transport, unless either is done already."""
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
        if not self.close_sent and not self.transport.is_closing():
            self.conn.fail(code, reason)
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
            self.transport.close()

    def send_text_now(self, *texts: str) -> bool:
        """Write text messages now, in one write to the socket, without a coroutine, if the
        connection takes them now (open, handshake done, not closing, and the client reading
        what it is sent); False when not, and the app sends them the usual way
        (``websocket.send``, which waits). What ASGI's ``websocket.send`` does in this
        protocol, minus the wait."""
        if (not self.writable.is_set() or self.disconnected or not self.handshake_complete
                or self.close_sent or self.initial_response is not None or self.transport.is_closing()):
            return False
        try:
            for text in texts:
                self.conn.send_text(text.encode())
        except InvalidState:  # not open: the first fails, before anything is queued
            return False
        frames = self.conn.data_to_send()
        data = frames[0] if len(frames) == 1 else b"".join(frames)
        self.transport.write(data)
        self._count_written(len(data))
        return True

    async def send(self, message: ASGISendEvent) -> None:
        """The app's awaited send (uvicorn's), counted like `send_text_now`'s writes: it waits
        while the client leaves too much unread. A text or bytes send on a connection whose
        socket is already closing (lost, and ``connection_lost`` not run yet) raises
        `ClientDisconnected` at once: uvicorn's own send would write into the lost socket
        without yielding (asyncio logs "socket.send() raised exception." for each), so an app
        that sends in a loop would spin there and starve the loop that would tell it."""
        if message["type"] == "websocket.send" and self.transport.is_closing():
            raise ClientDisconnected()
        await super().send(message)
        if message["type"] == "websocket.send":
            data = message.get("text") or message.get("bytes") or b""
            self._count_written(len(data))  # a text's characters: near enough for a 16 KiB look

    def _count_written(self, size: int) -> None:
        """Count ``size`` bytes written; every `UNSENT_CHECK_EVERY` bytes, look at how much the
        client has left unread and hold writes back past `UNSENT_HIGH_WATER`."""
        self._unchecked += size
        if self._unchecked < UNSENT_CHECK_EVERY:
            return
        self._unchecked = 0
        if self._unread_hold is None and self._unread_bytes() > UNSENT_HIGH_WATER:
            self.writable.clear()
            self._unread_hold = self.loop.call_later(UNSENT_POLL_S, self._look_again)

    def _look_again(self) -> None:
        """While writes are held back: go on once the client has read down to
        `UNSENT_LOW_WATER` (or the connection is gone), else look again later."""
        if (not self.disconnected and not self.transport.is_closing()
                and self._unread_bytes() > UNSENT_LOW_WATER):
            self._unread_hold = self.loop.call_later(UNSENT_POLL_S, self._look_again)
            return
        self._unread_hold = None
        if not self._transport_paused or self.disconnected:
            self.writable.set()

    def pause_writing(self) -> None:
        """The transport's buffer is past its high water: hold writes back."""
        self._transport_paused = True
        super().pause_writing()

    def resume_writing(self) -> None:
        """The transport's buffer has drained: writes go on, unless the kernel's send queue
        still holds too much the client has not read."""
        self._transport_paused = False
        if self._unread_hold is None:
            super().resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop looking at a socket that is gone."""
        if self._unread_hold is not None:
            self._unread_hold.cancel()
            self._unread_hold = None
        super().connection_lost(exc)

    def _unread_bytes(self) -> int:
        """Bytes the client has not yet taken from the kernel's send queue (0 when this is not
        a socket that can be asked)."""
        sock = self.transport.get_extra_info("socket")
        if sock is None:
            return 0
        try:
            return unsent_bytes(sock.fileno())
        except OSError:
            return 0  # not a TCP socket this can ask: the transport's own mark still holds

    def _queue_for_app(self) -> None:
        """Queue a complete message for the app; stop reading only when too many wait."""
        paused = self.read_paused
        self.read_paused = True  # the parent pauses after every message unless already paused
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = paused
        if not paused and self.queue.qsize() >= RECEIVE_HIGH_WATER:
            self.read_paused = True
            self.transport.pause_reading()

    def _take_control_token(self) -> bool:
        now = self.loop.time()
        refill = (now - self._control_at) * self.control_frames_per_second
        self._control_tokens = min(float(self.control_frame_burst), self._control_tokens + refill)
        self._control_at = now
        if self._control_tokens >= 1.0:
            self._control_tokens -= 1.0
            return True
        return False

    def handle_ping(self) -> None:
        """Answer a ping with its pong, unless the client pings too often (closed) or does
        not read its pongs (held back, then closed)."""
        self._answers.extend(self.conn.data_to_send())  # the library answered every ping already
        pong = self._answers.popleft() if self._answers else b""
        if self.close_sent or self.flood_closed:
            return
        if not self._take_control_token():
            self._close_flooding("too many ping frames")
            return
        if not self.writable.is_set():  # the client does not read what it is sent
            self._pongs_held += 1
            if self._pongs_held >= self.unsent_pongs:
                self._close_flooding("pings whose pongs are not read")
            return
        self.transport.write(pong)

    def handle_pong(self, event: Frame) -> None:
        """A pong counts against the same rate as pings."""
        if self.close_sent or self.flood_closed:
            return
        if not self._take_control_token():
            self._close_flooding("too many pong frames")
            return
        super().handle_pong(event)

    def handle_close(self, event: Frame) -> None:
        """The client's close frame: the echo the library queued may be among the answers
        taken back by `handle_ping`."""
        if self._answers and not self.flood_closed:
            self.transport.write(b"".join(self._answers))
        self._answers.clear()
        super().handle_close(event)

    def _close_flooding(self, why: str) -> None:
        """Close with 1008, read nothing more, and cut the connection if the client does not
        take its close frame within :data:`CLOSE_GRACE_S`."""
        self.flood_closed = True
        self._answers.clear()
        prefix = f"{self.client[0]}:{self.client[1]}" if self.client else "a client"
        log.info("closing a websocket from %s: %s (policy violation, %d)", prefix, why, FLOOD_CLOSE)
        self._fail(FLOOD_CLOSE, why)
        self.loop.call_later(CLOSE_GRACE_S, self.transport.abort)
