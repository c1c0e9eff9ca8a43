"""Per-address limits against hostile traffic, and the cross-site checks (docs/online.md,
"Hostile input").

Every limit here counts a *client address*: the peer's address, or behind a proxy trusted with
``--forwarded-allow-ips`` the address it names in ``X-Forwarded-For`` (uvicorn puts it in the
ASGI scope before the app sees the request); an IPv6 address counts as its /64 (`limit_key`).
The transport-level guards (a connection's request headers, ping frames, running out of file
descriptors) are in :mod:`ratscrew.server.ws.transport`.

- `Limits`: what one client may do (the numbers), `TokenBucket` (a connection's message
  rates) and `WindowCounter` (an address's counts in memory; on PostgreSQL the database counts).
- `OpenConnections`: how many websockets one address holds open, capped.
- `UnknownCodes`: lookups of room codes that do not exist, per address; past the limit every
  lookup from that address is refused (a 429 for a room that exists too, so the answer says
  nothing about which codes exist).
- `is_own_origin` and `CrossSiteGuard`: a browser's state-changing request or websocket must
  come from the server's own origin, and a state-changing request must be ``application/json``
  (which a page elsewhere cannot send without the server's consent).
"""

from __future__ import annotations

import ipaddress
import json
from collections import Counter, deque
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
"""HTTP methods that change nothing, so need no cross-site check."""


IPV6_PREFIX = 64
"""An IPv6 client is counted by its /64 network: one host usually holds a whole /64."""


def limit_key(address: str) -> str:
    """The address every per-address limit counts: an IPv4 address as it is (an IPv4-mapped
    IPv6 address as its IPv4 one), an IPv6 address as its /64 network, anything else as it is.

    >>> limit_key("203.0.113.9"), limit_key("::ffff:203.0.113.9")
    ('203.0.113.9', '203.0.113.9')
    >>> limit_key("2001:db8:1:2:aaaa::1") == limit_key("2001:db8:1:2:ffff::9")
    True
    >>> limit_key("2001:db8:1:2::1"), limit_key("unknown")
    ('2001:db8:1:2::/64', 'unknown')
    """
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, IPV6_PREFIX), strict=False))
    return address


class OpenConnections:
    """How many connections each address holds open, at most ``cap`` each.

    >>> open_now = OpenConnections(cap=2)
    >>> [open_now.open("1.2.3.4") for _ in range(3)]
    [True, True, False]
    >>> open_now.close("1.2.3.4"); open_now.open("1.2.3.4")
    True
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._open: Counter[str] = Counter()

    def open(self, address: str) -> bool:
        """Count one more connection from ``address`` unless it already holds ``cap``."""
        if self._open[address] >= self.cap:
            return False
        self._open[address] += 1
        return True

    def close(self, address: str) -> None:
        """One connection from ``address`` has closed."""
        left = self._open[address] - 1
        if left > 0:
            self._open[address] = left
        else:
            del self._open[address]

    def count(self, address: str) -> int:
        """How many connections ``address`` holds open now."""
        return self._open.get(address, 0)


class UnknownCodes:
    """Lookups of unknown room codes per address within a sliding window.

    >>> misses = UnknownCodes(limit=2, window_s=60)
    >>> misses.miss("a", 0); misses.miss("a", 1)
    >>> [misses.blocked("a", 2), misses.blocked("b", 2), misses.blocked("a", 61)]
    [True, False, False]
    """

    def __init__(self, limit: int, window_s: float) -> None:
        self.limit, self.window_s = limit, window_s
        self._times: dict[str, deque[float]] = {}

    def _recent(self, address: str, now: float) -> deque[float] | None:
        times = self._times.get(address)
        if times is None:
            return None
        while times and times[0] <= now - self.window_s:
            times.popleft()
        if not times:
            del self._times[address]
            return None
        return times

    def blocked(self, address: str, now: float) -> bool:
        """Whether ``address`` looked up too many unknown codes lately (every lookup refused)."""
        times = self._recent(address, now)
        return times is not None and len(times) >= self.limit

    def miss(self, address: str, now: float) -> None:
        """``address`` looked up a code that is not a room here."""
        times = self._recent(address, now)
        if times is None:
            times = self._times[address] = deque()
        times.append(now)
        if len(self._times) > 10_000:  # forget addresses that have gone quiet
            for stale in [a for a, t in self._times.items() if not t or t[-1] <= now - self.window_s]:
                del self._times[stale]


def _is_literal_host(hostname: str) -> bool:
    """An IP address or ``localhost``: a name that DNS rebinding cannot point a page at."""
    if hostname == "localhost":
        return True
    try:
        ipaddress.ip_address(hostname.strip("[]"))
    except ValueError:
        return False
    return True


def is_own_origin(origin: str | None, host: str | None, allowed: frozenset[str]) -> bool:
    """Whether a request with this ``Origin`` header (``None``: not sent, so not a browser's
    cross-site request) may act on this server reached as ``host`` (the ``Host`` header).

    The server's own origin is one whose host and port are the ``Host`` the request was sent
    to, when that is an IP address or ``localhost``; a server reached by a name must be told
    that name with ``--allowed-origin`` (a page on a name of the attacker's that resolves to
    this server, DNS rebinding, sends ``Host`` and ``Origin`` alike).

    >>> own = frozenset({"https://ers.example.org"})
    >>> [is_own_origin(None, "x", own), is_own_origin("http://127.0.0.1:8000", "127.0.0.1:8000", own),
    ...  is_own_origin("https://ers.example.org", "ers.example.org", own),
    ...  is_own_origin("https://evil.example", "evil.example", own),
    ...  is_own_origin("https://evil.example", "127.0.0.1:8000", own), is_own_origin("null", "x", own)]
    [True, True, True, False, False, False]
    """
    if origin is None:
        return True
    if origin.rstrip("/") in allowed:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc or host is None:
        return False
    return parts.netloc.lower() == host.lower() and _is_literal_host((parts.hostname or "").lower())


class CrossSiteGuard:
    """Refuses a state-changing HTTP request (``POST`` and the like) from another site: its
    ``Origin`` must be the server's own (`is_own_origin`) and its body ``application/json``
    (a form or ``text/plain`` POST is what a page elsewhere can send without asking)."""

    def __init__(self, app: ASGIApp, allowed_origins: frozenset[str]) -> None:
        self.app = app
        self.allowed_origins = allowed_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = {name.lower(): value.decode("latin-1") for name, value in scope["headers"]}
        refusal: tuple[int, str] | None = None
        if not is_own_origin(headers.get(b"origin"), headers.get(b"host"), self.allowed_origins):
            refusal = (403, "cross-site request refused: this page is not from this server "
                            "(a server reached by a name needs --allowed-origin)")
        elif headers.get(b"content-type", "").split(";")[0].strip().lower() != "application/json":
            refusal = (415, "send the body as JSON with content-type: application/json")
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message = refusal
        body = json.dumps({"error": message}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


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
