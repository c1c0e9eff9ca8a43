"""Guards below the app, on the connections themselves (docs/online.md, "Hostile input").

uvicorn hands the app a request only once its headers are complete, so what a hostile client
does before that (or instead of it) never reaches the app's limits. Here:

- `guarded_protocols` makes the HTTP protocol (uvicorn's h11 one) and the websocket protocol
  (`ratscrew.server.ws.wsprotocol.BatchedReadProtocol`) this server runs: a connection from an
  address that already holds ``connections_per_address`` open connections is closed at once
  (a trusted proxy's own connections are not counted: the app counts the websockets by the
  address the proxy names), and a request whose headers (and body) are not complete within
  ``header_timeout_s`` of its first byte (or of the connection, for one that sends nothing) is
  closed.
- `GuardedListener` is the listening socket: when the process runs out of file descriptors,
  accepting pauses for a second instead of retrying in a tight loop (asyncio tries the whole
  backlog again and logs every failure), and `AcceptErrorFilter` lets that error be logged once
  per ``interval_s`` with how many times it happened meanwhile.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import time
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.protocols.http.h11_impl import H11Protocol

from ratscrew.server.http.limits import OpenConnections, limit_key
from ratscrew.server.ws.wsprotocol import BatchedReadProtocol

log = logging.getLogger("ratscrew.server")

OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
"""``accept()`` errors that mean the process (or the system) has no descriptor or memory left."""
INCOMPLETE = (h11.IDLE, h11.SEND_BODY)
"""The client's h11 states while a request is not all here (no headers yet, or part of a body)."""
ACCEPT_PAUSE_S = 1.0
"""How long accepting pauses after running out of file descriptors."""


@dataclass(frozen=True)
class ConnectionLimits:
    """What one address may do with connections (the defaults are documented in
    docs/online.md, "Hostile input")."""

    connections_per_address: int = 200
    """Open connections (HTTP and websocket) one address may hold."""
    header_timeout_s: float = 10.0
    """A request (its headers, and its body if it has one) must be complete this long after
    its first byte, or after the connection opened for the first request."""
    control_frames_per_second: float = 20.0
    """Ping and pong frames a websocket may send, on average..."""
    control_frame_burst: int = 40
    """... and at once; beyond, the connection is closed (1008)."""
    unsent_pongs: int = 16
    """Pongs held back from a client that does not read them before it is closed (1008)."""
    max_header_bytes: int = 16 * 1024
    """A request's line and headers together, in bytes; beyond, it is answered 431."""
    max_headers: int = 100
    """Header fields in one request; beyond, it is answered 431."""


class HeadersTooLarge(Exception):
    """A request's headers are past `ConnectionLimits.max_header_bytes` or `max_headers`."""


class HeaderBoundConnection(h11.Connection):
    """An h11 server connection that raises `HeadersTooLarge` for a request with too many
    headers, or with more header bytes than allowed (whether they came at once, which h11 lets
    through, or a piece at a time, which h11 refuses with its own 431 hint)."""

    def __init__(self, limits: ConnectionLimits) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=limits.max_header_bytes)
        self.limits = limits

    def next_event(self) -> Any:
        """h11's next event, checked against the header limits."""
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as error:
            if error.error_status_hint == 431:
                raise HeadersTooLarge(str(error)) from None
            raise
        if isinstance(event, h11.Request):
            size = len(event.target) + sum(len(name) + len(value) + 4
                                           for name, value in event.headers)
            if len(event.headers) > self.limits.max_headers or size > self.limits.max_header_bytes:
                raise HeadersTooLarge(f"{len(event.headers)} headers, {size} bytes")
        return event


def peer_address(peer: Any) -> str:
    """The address part of a socket's peer (``"unknown"`` if it has none).

    >>> peer_address(("10.0.0.9", 51234)), peer_address(None)
    ('10.0.0.9', 'unknown')
    """
    return str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"


class ConnectionRegistry:
    """The open connections of this process by the address they come from, across the upgrade
    from HTTP to websocket (both protocols share one transport)."""

    def __init__(self, limits: ConnectionLimits, trusted_proxies: str | None) -> None:
        self.limits = limits
        self.counts = OpenConnections(limits.connections_per_address)
        self._trusted = _TrustedHosts(trusted_proxies) if trusted_proxies else None
        self._address_of: dict[asyncio.BaseTransport, str] = {}
        self._accepted: dict[int, str] = {}
        """Sockets the listener accepted and counted (by descriptor) whose protocol has not
        been made yet: asyncio accepts a backlog's worth before it makes the first one."""
        self.refused = 0
        """Connections closed at once because their address held too many."""

    def trusted(self, address: str) -> bool:
        """Whether ``address`` is a proxy whose own connections are not counted."""
        return self._trusted is not None and address in self._trusted

    def admit(self, descriptor: int, address: str) -> bool:
        """Count a socket the listener has just accepted (`GuardedListener`), before asyncio
        makes its protocol; False if its address already holds too many (the listener then
        closes it, so that a flood cannot take the process's file descriptors even for the
        moment between accepting a backlog and making its protocols).

        >>> registry = ConnectionRegistry(ConnectionLimits(connections_per_address=2), None)
        >>> [registry.admit(fd, "10.0.0.9") for fd in (7, 8, 9)], registry.refused
        ([True, True, False], 1)
        """
        forgotten = self._accepted.pop(descriptor, None)  # a descriptor whose protocol never came
        if forgotten is not None:
            self.counts.close(forgotten)
        if self.trusted(address):
            return True
        address = limit_key(address)
        if not self.counts.open(address):
            self.refused += 1
            return False
        self._accepted[descriptor] = address
        return True

    def open(self, transport: asyncio.BaseTransport) -> bool:
        """Count a new connection (already counted if the listener admitted it); False if its
        address already holds too many."""
        address = peer_address(transport.get_extra_info("peername"))
        if self.trusted(address):
            return True
        address = limit_key(address)
        sock = transport.get_extra_info("socket")
        admitted = sock is not None and self._accepted.pop(sock.fileno(), None) is not None
        if not admitted and not self.counts.open(address):
            self.refused += 1
            return False
        self._address_of[transport] = address
        return True

    def close(self, transport: asyncio.BaseTransport) -> None:
        """A connection has gone (safe to call more than once)."""
        address = self._address_of.pop(transport, None)
        if address is not None:
            self.counts.close(address)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 HTTP protocol with the per-address cap and the header deadline (see the
    module docstring); `guarded_protocols` sets its `registry`."""

    registry: ConnectionRegistry

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn = HeaderBoundConnection(self.registry.limits)
        self._header_deadline: asyncio.TimerHandle | None = None
        self._upgraded = False

    def handle_events(self) -> None:
        """Handle events as uvicorn does; a request whose headers are too large or too many
        is answered 431 and the connection closed (the app never sees it)."""
        try:
            super().handle_events()
        except HeadersTooLarge as error:
            log.debug("431 to %s: %s", self.client, error)
            self._disarm_deadline()
            try:
                for event in (h11.Response(status_code=431, reason=b"Request Header Fields Too Large",
                                           headers=[(b"content-type", b"text/plain; charset=utf-8"),
                                                    (b"connection", b"close")]),
                              h11.Data(data=b"Request header fields too large.\n"),
                              h11.EndOfMessage()):
                    self.transport.write(self.conn.send(event) or b"")
            except h11.LocalProtocolError:  # h11 had not finished reading the request line
                self.transport.write(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
                                     b"connection: close\r\ncontent-length: 0\r\n\r\n")
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Count the connection (closing it at once if its address holds too many) and give
        it `ConnectionLimits.header_timeout_s` to send a request's headers."""
        super().connection_made(transport)
        if not self.registry.open(transport):
            log.debug("refused a connection from %s: too many open", self.client)
            transport.abort()
            return
        self._arm_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the connection."""
        self._disarm_deadline()
        if not self._upgraded:
            self.registry.close(self.transport)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Parse as uvicorn does; the deadline runs while a request's headers are incomplete."""
        super().data_received(data)
        if self._upgraded or self.transport.is_closing():
            return
        if self.conn.their_state in INCOMPLETE:
            self._arm_deadline()  # a (next) request has begun and is not all here
        else:
            self._disarm_deadline()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        """Hand the connection to the websocket protocol (which forgets it when it closes)."""
        self._disarm_deadline()
        self._upgraded = True
        super().handle_websocket_upgrade(event)

    def _arm_deadline(self) -> None:
        if self._header_deadline is None:
            self._header_deadline = self.loop.call_later(self.registry.limits.header_timeout_s,
                                                         self._headers_too_slow)

    def _disarm_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _headers_too_slow(self) -> None:
        self._header_deadline = None
        if self._upgraded or self.transport.is_closing() or self.conn.their_state not in INCOMPLETE:
            return
        if self.timeout_keep_alive_task is not None:
            return  # an idle keep-alive connection: uvicorn's own timer closes it
        log.debug("closing a connection from %s: no complete request in %.0f s",
                  self.client, self.registry.limits.header_timeout_s)
        self.transport.abort()


class GuardedWebSocketProtocol(BatchedReadProtocol):
    """The websocket protocol, forgetting its connection in the registry when it closes."""

    registry: ConnectionRegistry

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the connection."""
        self.registry.close(self.transport)
        super().connection_lost(exc)


Protocols = tuple[type[GuardedH11Protocol], type[GuardedWebSocketProtocol], ConnectionRegistry]
"""The HTTP protocol class, the websocket protocol class and their registry."""


def guarded_protocols(limits: ConnectionLimits, trusted_proxies: str | None) -> Protocols:
    """The HTTP and websocket protocol classes for uvicorn's ``http=`` and ``ws=``, sharing one
    registry of open connections (returned too, for tests and figures)."""
    registry = ConnectionRegistry(limits, trusted_proxies)
    http = type("RatscrewHttpProtocol", (GuardedH11Protocol,), {"registry": registry})
    websocket = type("RatscrewWebSocketProtocol", (GuardedWebSocketProtocol,), {
        "registry": registry, "control_frames_per_second": limits.control_frames_per_second,
        "control_frame_burst": limits.control_frame_burst, "unsent_pongs": limits.unsent_pongs})
    return http, websocket, registry


class GuardedListener(socket.socket):
    """A listening socket whose ``accept`` pauses for :data:`ACCEPT_PAUSE_S` once the process
    runs out of file descriptors: the first failure is raised (asyncio stops watching the socket
    and tries again a second later), the rest of that second says "nothing to accept" at once
    instead of failing (and being logged) up to a backlog's worth of times.

    With a `registry` (`ratscrew.commands.serve.uvicorn_config` sets it), a connection from an
    address that holds its cap is closed as it is accepted: asyncio accepts up to a backlog's
    worth of connections before it makes the first one's protocol (where the cap was checked
    alone), so a flood faster than the loop held a descriptor for each of them meanwhile."""

    paused_until = 0.0
    failures = 0
    """``accept()`` calls that found no descriptor left, since the server started."""
    registry: ConnectionRegistry | None = None
    REFUSALS_PER_CALL = 256
    """Connections refused in one call before it says "nothing to accept" (the loop then turns
    and accepting goes on at the next one): a flood cannot keep the loop here."""

    def accept(self) -> tuple[socket.socket, Any]:
        """``socket.accept``, with the pause and the cap described above."""
        for _ in range(self.REFUSALS_PER_CALL):
            if time.monotonic() < self.paused_until:
                raise BlockingIOError(errno.EAGAIN, "accepting is paused: out of file descriptors")
            try:
                conn, peer = super().accept()
            except OSError as error:
                if error.errno in OUT_OF_RESOURCES:
                    type(self).failures += 1
                    self.paused_until = time.monotonic() + ACCEPT_PAUSE_S
                raise
            address = peer_address(peer)
            if self.registry is None or self.registry.admit(conn.fileno(), address):
                return conn, peer
            log.debug("refused a connection from %s: too many open", address)
            conn.close()
        raise BlockingIOError(errno.EAGAIN, "refused a flood of connections: accepting on the next turn")


class AcceptErrorFilter(logging.Filter):
    """Lets asyncio's "socket.accept() out of system resource" through once per ``interval_s``,
    saying how many were held back; every other record passes."""

    MESSAGE = "socket.accept() out of system resource"

    def __init__(self, interval_s: float = 60.0) -> None:
        super().__init__()
        self.interval_s = interval_s
        self._last = -float("inf")
        self._held = 0

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether to log ``record`` (see the class docstring)."""
        if not str(record.msg).startswith(self.MESSAGE):
            return True
        now = time.monotonic()
        if now - self._last < self.interval_s:
            self._held += 1
            return False
        self._last = now
        held, self._held = self._held, 0
        record.msg = (f"{self.MESSAGE}: out of file descriptors, accepting paused for "
                      f"{ACCEPT_PAUSE_S:.0f} s ({held} more times since the last such line; "
                      f"logged at most once every {self.interval_s:.0f} s)")
        record.exc_info = None
        record.exc_text = None
        record.args = None
        return True


def install_accept_error_filter(interval_s: float = 60.0) -> AcceptErrorFilter:
    """Put an `AcceptErrorFilter` on asyncio's logger (where the event loop reports the error)."""
    accept_filter = AcceptErrorFilter(interval_s)
    logging.getLogger("asyncio").addFilter(accept_filter)
    return accept_filter
