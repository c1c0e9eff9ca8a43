"""Who may send which message when: the room's dispatch table, checked before any handler runs.

Every client message class of the protocol has exactly one :class:`Route`: the handler the room
runs for it, who may send it (:class:`Who`: anyone, a watcher, a member of the room, a seated
player, the host), in which of the room's phases (``lobby``, ``playing``, ``over``), and what
the transport must know of it without knowing message types: whether it is an arrival (``join``,
``watch``: the room's one way in, `ratscrew.server.room.admission`, which the transport may have
to run as a task and hold the connection's next messages behind), whether it goes ahead of such
an arrival (``pong``: a pong held back measures the join, not the link), and the per-connection
limit it is held to (:class:`RouteLimit`, e.g. ``history``). :func:`check` applies a
route's precondition and refuses with the protocol's error codes (docs/protocol.md):
``unavailable`` while the room is paused for its store, ``not_seated`` for someone who has not
joined or watched (or holds no seat), ``not_host``, ``wrong_phase``. A message class with no route
is refused as ``bad_message``: it never falls through to another handler.

The table itself is built by the room (:data:`ratscrew.server.room.room.ROUTES`), which owns the
handlers; :func:`route_for` looks a message up in it.

>>> route = Route("start", Who.HOST, frozenset({"lobby"}), lambda *_: None, "the game has already started")
>>> check(route, "start", member=None, host=False, seated=False, phase="lobby", paused=None)
Traceback (most recent call last):
...
ratscrew.protocol.codec.ProtocolError: send join or watch first
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ratscrew.protocol.client_messages import ClientMessage
from ratscrew.protocol.codec import ProtocolError

PHASES: frozenset[str] = frozenset({"lobby", "playing", "over"})
"""Every phase a room has (`ratscrew.server.room.lobby.Lobby.phase`)."""
OUTSIDE_A_GAME: frozenset[str] = frozenset({"lobby", "over"})
"""Before the first game, or after one ended."""


class Who(enum.Enum):
    """Who may send a message; each kind includes the ones below it."""

    ANYONE = "anyone"
    """Any connection, before it joined or watched too."""
    WATCHER = "watcher"
    """A connection in the room: it watches, or joined (seated, waiting)."""
    MEMBER = "member"
    """A person who joined (seated or waiting: they hold the room's token)."""
    SEATED = "seated"
    """A member who holds a seat."""
    HOST = "host"
    """The member who holds the host's token."""


@dataclass(frozen=True)
class RouteLimit:
    """A per-connection rate a message type is held to (beyond: ``rate_limited``, with
    `refusal`); the transport keeps one token bucket per limit and connection."""

    name: str
    per_second: float
    burst: int
    refusal: str


@dataclass(frozen=True)
class Route:
    """What the room does with one message type, and when it may."""

    name: str
    """The message's ``type`` on the wire (``play, slap, resign`` for the three actions)."""
    who: Who
    phases: frozenset[str]
    handler: Callable[..., object]
    """Called as ``handler(room, conn, member, message)``; ``member`` is ``None`` only for
    `Who.ANYONE` routes."""
    wrong_phase: str = ""
    """The refusal's words in a phase not in `phases`."""
    while_paused: bool = False
    """Whether it is taken while the room is paused for its store (only ``pong``)."""
    admits: bool = False
    """An arrival (``join``, ``watch``): the room's one way in (`ratscrew.server.room.admission`);
    ``handler`` is `Admission.admit`, which may run as a task behind which the transport holds
    the connection's next messages."""
    ahead_of_arrivals: bool = False
    """Taken at once even while the connection's arrival is being admitted (only ``pong``)."""
    limit: RouteLimit | None = None
    """The per-connection rate this message type is held to, if any."""

    def transport_in_words(self) -> str:
        """What the transport does with it: ``arrival`` (held behind by the connection's next
        messages), ``ahead of arrivals``, ``at most N/s`` (its limit), or ``-``."""
        words = []
        if self.admits:
            words.append("arrival")
        if self.ahead_of_arrivals:
            words.append("ahead of arrivals")
        if self.limit is not None:
            words.append(f"at most {self.limit.per_second:g}/s, {self.limit.burst} at once")
        return "; ".join(words) or "-"

    def phases_in_words(self) -> str:
        """``any`` or the phases, in the order a room goes through them: e.g. ``lobby, over``."""
        if self.phases == PHASES:
            return "any"
        return ", ".join(phase for phase in ("lobby", "playing", "over") if phase in self.phases)


def routes_table(routes: Mapping[type[Any], Route]) -> str:
    """The table of docs/online.md "Inside a room": each message, who may send it, in which
    phases, and its handler (a test holds the page to it)."""
    lines = ["| message | who may send it | phases | while paused | transport | handler |",
             "| --- | --- | --- | --- | --- | --- |"]
    for route in routes.values():
        types = ", ".join(f"`{name}`" for name in route.name.split(", "))
        lines.append(f"| {types} | {route.who.value} | {route.phases_in_words()} | "
                     f"{'taken' if route.while_paused else 'refused'} | {route.transport_in_words()} | "
                     f"`{route.handler.__qualname__}` |")
    return "\n".join(lines) + "\n"


def route_for(routes: Mapping[type[Any], Route], message: ClientMessage) -> Route:
    """The route of ``message``'s class; a class the table does not list is refused."""
    route = routes.get(type(message))
    if route is None:
        raise ProtocolError("bad_message", f"unknown message type {type(message).__name__!r}")
    return route


def check(route: Route, what: str, *, member: object | None, host: bool, seated: bool, phase: str,
          paused: str | None) -> None:
    """Refuse (a `ProtocolError`, nothing changed) unless ``route``'s precondition holds for a
    sender who is ``member`` (``None``: not joined), the host or not, seated or not, in
    ``phase``; ``paused`` is why the room takes nothing now, if it is paused. ``what``: the
    message's type, as the refusals name it."""
    if paused is not None and not route.while_paused:
        raise ProtocolError("unavailable", paused)
    if route.who is not Who.ANYONE and member is None:
        raise ProtocolError("not_seated", "send join or watch first")
    if route.who is Who.MEMBER and getattr(member, "token_hash", None) is None:
        raise ProtocolError("not_seated", f"{what}: only someone who joined can do that")
    if route.who is Who.SEATED and not seated:
        raise ProtocolError("not_seated", f"{what}: only a seated player can do that")
    if route.who is Who.HOST and not host:
        raise ProtocolError("not_host", "only the host can do that")
    if phase not in route.phases:
        raise ProtocolError("wrong_phase", f"{what}: {route.wrong_phase or f'not in the {phase} phase'}")
