"""The room's routes: what each client message does in a room (but the arrivals, ``join`` and
``watch``, which are the admission's: `ratscrew.server.room.admission`), and :data:`ROUTES`, the
table that says who may send which message when (checked by `ratscrew.server.room.dispatch`)
and what the transport must know of it (arrival, ahead of arrivals, per-connection limit).

Each handler is called as ``handler(room, conn, member, message)`` once the route's
precondition holds (`ratscrew.server.room.room.Room.handle`); a refusal is a `ProtocolError`
and changes nothing. A new message is a function here and a line in the table (see
docs/architecture.md, "Walk 1").
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any, Protocol

from ratscrew.protocol.client_messages import (
    Act,
    Configure,
    HistoryRequest,
    Join,
    Kick,
    MoveSeat,
    Pong,
    Ready,
    Rematch,
    SetSeat,
    Stand,
    Start,
    Watch,
)
from ratscrew.protocol.codec import ProtocolError
from ratscrew.server.ops.metrics import TALLY
from ratscrew.server.room.admission import Admission
from ratscrew.server.room.dispatch import OUTSIDE_A_GAME, PHASES, Route, RouteLimit, Who
from ratscrew.server.room.judging import judge_on_link

if TYPE_CHECKING:
    from ratscrew.engine import Game
    from ratscrew.server.room.driver import GameDriver, RoomClock
    from ratscrew.server.room.lobby import Lobby, RoomSettings
    from ratscrew.server.room.membership import Member
    from ratscrew.server.room.publisher import Connection, Publisher

log = logging.getLogger("ratscrew.server")


class RoutedRoom(Protocol):
    """What the routes ask of their room (`ratscrew.server.room.room.Room`)."""

    code: str
    settings: RoomSettings
    lobby: Lobby
    clock: RoomClock
    driver: GameDriver
    publisher: Publisher
    estimates_for: str | None

    @property
    def game(self) -> Game | None: ...
    def save(self) -> None: ...
    def broadcast_room(self) -> None: ...
    def maybe_update_room(self) -> None: ...
    def start_game(self) -> None: ...
    def seat_the_waiting(self) -> None: ...
    def kick(self, member: Member, index: int) -> None: ...
    def tick(self) -> None: ...
    def next_wake(self) -> float | None: ...


def pong(room: RoutedRoom, conn: Connection, member: Member | None, message: Pong) -> None:
    """The link's measure: a ``room`` message follows when a seat's ping moved enough."""
    if conn.pinger.pong(message.id, time.monotonic() * 1000.0) is not None:
        room.maybe_update_room()


def history(room: RoutedRoom, conn: Connection, member: Member, message: HistoryRequest) -> None:
    """The numbered steps since ``message.since``, from the room's bounded history."""
    room.publisher.answer_history(conn, message.since)


def ready(room: RoutedRoom, conn: Connection, member: Member, message: Ready) -> None:
    """A seated player says whether they are ready."""
    seat = room.lobby.own_seat(member, "ready")
    seat.ready = message.ready
    room.broadcast_room()


def stand(room: RoutedRoom, conn: Connection, member: Member, message: Stand) -> None:
    """Leave the seat (or the waiting list) to watch."""
    room.lobby.stand(conn, member)
    room.save()
    room.broadcast_room()


def act(room: RoutedRoom, conn: Connection, member: Member, message: Act) -> None:
    """``play``, ``slap`` or ``resign``: judged at its table time (`judge_on_link`), queued
    with the driver, and the game moved on."""
    seat = room.lobby.own_seat(member, message.kind)
    if room.game is None:
        raise ProtocolError("wrong_phase", f"{message.kind}: no game is being played")
    if seat.conn is not conn:
        raise ProtocolError("not_seated", "this connection no longer holds the seat")
    arrived = room.clock.now()
    shown = None if message.version is None else conn.shown_at(message.version)
    link = conn.pinger.link
    verdict = judge_on_link(room.settings.judging, link, arrived_at=arrived, shown_at=shown,
                            reaction_ms=message.reaction_ms, horizon=room.driver.advance_horizon())
    room.driver.queue(seat.index, message.kind, arrived, message.version, verdict,
                      message.reaction_ms, link.rtt_ms)
    TALLY.actions += 1
    room.tick()
    room.driver.wake_by(room.next_wake())


# ---------------------------------------------------------------------------------- the host


def start(room: RoutedRoom, conn: Connection, member: Member, message: Start) -> None:
    """The host starts the first game (open seats filled with bots or removed)."""
    room.lobby.fill_or_remove_open_seats(message)
    room.start_game()
    _changed_by_host(room)


def rematch(room: RoutedRoom, conn: Connection, member: Member, message: Rematch) -> None:
    """The host deals the next game (those who waited sit down first)."""
    room.seat_the_waiting()
    room.start_game()
    _changed_by_host(room)


def configure(room: RoutedRoom, conn: Connection, member: Member, message: Configure) -> None:
    """The host changes the room's settings."""
    room.lobby.configure(room.settings, message)
    room.estimates_for = conn.address  # (a refused command changes nothing)
    _changed_by_host(room)


def set_seat(room: RoutedRoom, conn: Connection, member: Member, message: SetSeat) -> None:
    """The host seats a bot, or opens a seat."""
    room.lobby.set_seat(message)
    room.estimates_for = conn.address  # (a refused command changes nothing)
    _changed_by_host(room)


def move_seat(room: RoutedRoom, conn: Connection, member: Member, message: MoveSeat) -> None:
    """The host moves someone to another seat."""
    room.lobby.move_seat(message)
    room.estimates_for = conn.address  # (a refused command changes nothing)
    _changed_by_host(room)


def kick(room: RoutedRoom, conn: Connection, member: Member, message: Kick) -> None:
    """The host removes the person in a seat (a bot plays it on during a game)."""
    room.kick(member, message.seat)
    _changed_by_host(room)


def _changed_by_host(room: RoutedRoom) -> None:
    room.save()
    room.broadcast_room()


HISTORY_LIMIT = RouteLimit("history", 1.0, 4, "too many history requests: this one was dropped; "
                           "ask again in a second")
"""``history`` requests one connection may make (beyond: ``rate_limited``)."""

ROUTES: dict[type[Any], Route] = {
    Pong: Route("pong", Who.ANYONE, PHASES, pong, while_paused=True, ahead_of_arrivals=True),
    Join: Route("join", Who.ANYONE, PHASES, Admission.admit, admits=True),
    Watch: Route("watch", Who.ANYONE, PHASES, Admission.admit, admits=True),
    HistoryRequest: Route("history", Who.WATCHER, PHASES, history, limit=HISTORY_LIMIT),
    Stand: Route("stand", Who.WATCHER, PHASES, stand),
    Ready: Route("ready", Who.SEATED, PHASES, ready),
    Act: Route("play, slap, resign", Who.SEATED, frozenset({"playing"}), act,
               "no game is being played"),
    Kick: Route("kick", Who.HOST, PHASES, kick),
    Start: Route("start", Who.HOST, frozenset({"lobby"}), start,
                 "the game has already started; use rematch after it ends"),
    Rematch: Route("rematch", Who.HOST, frozenset({"over"}), rematch,
                   "a rematch comes after a game has ended"),
    Configure: Route("configure", Who.HOST, OUTSIDE_A_GAME, configure,
                     "settings cannot change during a game"),
    SetSeat: Route("set_seat", Who.HOST, OUTSIDE_A_GAME, set_seat,
                   "settings cannot change during a game"),
    MoveSeat: Route("move_seat", Who.HOST, OUTSIDE_A_GAME, move_seat,
                    "settings cannot change during a game"),
}
"""Every client message type: who may send it, when, and its handler
(`ratscrew.server.room.dispatch`; docs/online.md "Inside a room" lists it)."""
