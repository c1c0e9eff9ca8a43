"""The one way into a room: how a ``join`` or a ``watch`` becomes a member with a seat (or a
place on the waiting list, or a spectator's view) and a ``welcome``.

Every arrival goes through :meth:`Admission.admit`, one coroutine, in this order:

1. **count**: the address's joins (and, for a player key this server has not seen, its new
   players) against the limits the transport hands in its :class:`Door`;
2. one join of the room at a time from here (`Admission.lock`), then the route's precondition
   (`ratscrew.server.room.dispatch`: the room may have been paused meanwhile);
3. **token or password**: a token this room gave out (its holder comes back), checked by
   `Membership.arrival`; the lifecycle hooks' `on_auth` may refuse it; a room made with a
   password refuses a newcomer without it;
4. **name**: not one someone else in the room goes by (issue 29);
5. **reserved seats**: in a matched room (:class:`Reservation`, quick play) only the reserved
   players take seats, each their own;
6. **store entry**: the player key's player entered (named) in the store;
7. **seat** (or the waiting list), then **welcome**, the room for everyone and the game so far.

A refusal at any step is a `ProtocolError` and changes nothing (the key's name included). The
store calls are the async ones. :meth:`Admission.take` runs the coroutine at once as far as it
goes without waiting: on SQLite (whose calls answer at once) and for a join that needs no round
trip it is done there, and a join is answered before the next message is read; on PostgreSQL it
stops at its first round trip and the transport runs the rest as a task while the event loop
runs on (and holds the connection's next messages behind it).

A restored room's people come back through the same path (with their tokens), and a room
rebuilt after its store came back keeps its connections through :meth:`Admission.readmit`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ratscrew.protocol import names
from ratscrew.protocol.client_messages import PROTOCOL_VERSION, Join, Watch
from ratscrew.protocol.codec import ProtocolError
from ratscrew.protocol.keys import looks_random, valid_key
from ratscrew.protocol.server_messages import ReplacedMessage, WelcomeMessage
from ratscrew.server.ladder import players
from ratscrew.server.room.lobby import MAX_WAITING_PEOPLE, MAX_WATCHERS, Seat
from ratscrew.server.room.membership import Arrival, Member, hash_token
from ratscrew.storage.records import NameTaken, RateCounter, StoreUnavailable

if TYPE_CHECKING:
    from ratscrew.protocol.client_messages import ClientMessage
    from ratscrew.server.room.lifecycle import RoomHooks
    from ratscrew.server.room.lobby import Lobby, RoomSettings
    from ratscrew.server.room.membership import Membership
    from ratscrew.server.room.persistence import RoomRecorder
    from ratscrew.server.room.publisher import Connection
    from ratscrew.storage.roles import Store

log = logging.getLogger("ratscrew.server")

T = TypeVar("T")

TOO_MANY_JOINS = "too many joins from your address; wait a minute"
SEATS_RESERVED = ("this table's seats are kept for the players matched to it: you may watch "
                  "(send watch), or seek a game of your own")


@dataclass(frozen=True)
class Reservation:
    """A seat of a matched room kept for one player (quick play, issue 50): the public player
    id the ladder gives a player key (`ratscrew.server.ladder.players`), and the name the seat
    is shown under unless the player's join gives another."""

    player_id: str
    name: str


def _never() -> bool:
    return False


@dataclass(frozen=True)
class Door:
    """Where an arrival came from, as the transport knows it: the address and when its message
    was read, the counters its joins and new players are held to (``None``: not counted, as
    in room-scenario tests), and whether the connection is gone meanwhile."""

    address: str = "local"
    now: float = 0.0
    joins: RateCounter | None = None
    new_players: RateCounter | None = None
    new_players_per_hour: int = 0
    gone: Callable[[], bool] = _never
    """Closed, or disconnected while the admission waited: it joins nothing (its seat would
    look taken)."""


async def resumed(coroutine: Coroutine[Any, Any, T], waits_for: Any) -> T:
    """Finish ``coroutine``, which was started by hand (``coroutine.send(None)``) and is now
    waiting for ``waits_for`` (what it yielded: an asyncio future, or ``None`` for a bare
    yield), as a task would: wait for each thing it waits for, then let it go on (it reads the
    result, or the exception, itself). Python 3.12's eager tasks do the same."""
    while True:
        if waits_for is None:
            await asyncio.sleep(0)
        else:
            waits_for._asyncio_future_blocking = False  # as a task takes what was yielded to it
            with contextlib.suppress(BaseException):  # the coroutine sees the outcome itself
                await waits_for
        try:
            waits_for = coroutine.send(None)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]


class AdmittingRoom(Protocol):
    """What the admission asks of its room (`ratscrew.server.room.room.Room`)."""

    code: str
    store: Store
    settings: RoomSettings
    lobby: Lobby
    hooks: list[RoomHooks]
    recorder: RoomRecorder

    @property
    def seats(self) -> list[Seat]: ...
    @property
    def members(self) -> Membership: ...
    def checked_member(self, conn: Connection, message: ClientMessage) -> Member | None: ...
    def save(self) -> None: ...
    def joined(self, conn: Connection, member: Member) -> None: ...
    def left(self, conn: Connection, member: Member | None) -> None: ...
    def present(self, seat: Seat) -> None: ...
    def broadcast_room(self) -> None: ...
    def send_current_state(self, conn: Connection) -> None: ...
    def start_when_everyone_came(self) -> None: ...
    def pause_for_store(self) -> None: ...


class Admission:
    """One room's way in (see the module docstring)."""

    def __init__(self, room: AdmittingRoom) -> None:
        self.room = room
        self.lock = asyncio.Lock()
        """Held from the room's checks of a join to its welcome: no other join of this room may
        change the answer in between (a join waits here while another's key is entered)."""
        self.reserved: list[Reservation] = []
        """Each seat's reservation, in seat order (a matched room), or none."""

    # ------------------------------------------------------------------ the transport's entry

    def take(self, conn: Connection, message: Join | Watch, door: Door
             ) -> Coroutine[Any, Any, None] | None:
        """Admit ``message``, at once as far as it can go without waiting: ``None`` when it is
        done (a refusal raised here as a `ProtocolError`; on SQLite, and for a join that needs
        no round trip, it always is), else the coroutine that finishes it, which the transport
        runs as a task and which answers its own refusals on ``conn``."""
        admitting = self.admit(conn, message, door)
        try:
            waits_for = admitting.send(None)
        except StopIteration:
            return None
        return self._finished(conn, admitting, waits_for)

    async def _finished(self, conn: Connection, admitting: Coroutine[Any, Any, None],
                        waits_for: Any) -> None:
        """Go on with ``admitting`` (started by `take`, now waiting for ``waits_for``) as a task
        would, and answer what it refuses on ``conn``."""
        room = self.room
        try:
            await resumed(admitting, waits_for)
        except ProtocolError as error:
            conn.send(error.to_message())
        except StoreUnavailable:
            room.pause_for_store()
        except Exception:  # as the websocket's own handler would: said in the log, the socket closed
            log.exception("room %s: a join failed", room.code)
            conn.close(1011, "server error")

    # ------------------------------------------------------------------ the one way in

    async def admit(self, conn: Connection, message: Join | Watch, door: Door = Door()) -> None:
        """The steps of the module docstring; a refusal is a `ProtocolError`, nothing changed."""
        if door.joins is not None and not await door.joins.allow_async(door.address, door.now):
            if door.gone():
                return
            raise ProtocolError("rate_limited", TOO_MANY_JOINS)
        if door.gone():
            return
        async with self.lock:
            if door.gone():
                return
            if isinstance(message, Watch):
                self._watch(conn, message)
                return
            known_id = await self._counted_key(message, door)
            room = self.room
            member = room.checked_member(conn, message)
            arrival, token_hash = self._arrival(conn, member, message)
            self._refuse_a_name_in_use(message.name, token_hash, known_id)
            reservation = self._reservation(arrival, token_hash, known_id)
            player_id = await self._entered(message, known_id)
            if door.gone():
                return
            self._seat(conn, message, arrival, token_hash, player_id, reservation)

    async def _counted_key(self, message: Join, door: Door) -> str | None:
        """The player the join's key is, if the store knows it; a new player is counted
        against the address's limit first (keys that would be refused are not counted)."""
        key = message.player_key
        if key is None:
            return None
        existing = await self.room.store.player_by_key_async(players.hash_key(key))
        if (door.new_players is not None and looks_random(key) and existing is None
                and not await door.new_players.allow_async(door.address, door.now)):
            raise players.too_many_new_players(door.new_players_per_hour)
        return existing.player_id if existing is not None and valid_key(key) else None

    def _arrival(self, conn: Connection, member: Member | None, message: Join
                 ) -> tuple[Arrival, str | None]:
        """What the join is (`Membership.arrival`): a token is its holder's, and the hooks may
        refuse it; a newcomer to a room with a password must give it."""
        room = self.room
        arrival, token_hash = room.members.arrival(
            conn, message.token, room.seats,
            watching=member is None or room.lobby.status(member) == "watching")
        if arrival == "returning":
            assert token_hash is not None
            for hooks in room.hooks:
                hooks.on_auth(room.code, token_hash)
        elif arrival == "new" and (expected := room.settings.password_hash) is not None and (
                message.password is None
                or not hmac.compare_digest(hash_token(message.password), expected)):
            raise ProtocolError("bad_password", "join: this room has a password: ask whoever "
                                "sent you the link for it")
        return arrival, token_hash

    def _refuse_a_name_in_use(self, name: str, token_hash: str | None, player_id: str | None) -> None:
        """Refuse a join under a name someone else in the room goes by (or one that looks the
        same), other than this token's or this player's own (issue 29)."""
        in_use = self.room.lobby.names_in_use(token_hash, player_id)
        if (taken := names.same_name_as(name, in_use)) is not None:
            looks = "" if taken == name else f", which looks the same as {name!r}"
            raise ProtocolError("name_taken", f"Someone in this room already goes by {taken!r}"
                                f"{looks}; choose another name")

    def _reservation(self, arrival: Arrival, token_hash: str | None,
                     known_id: str | None) -> Reservation | None:
        """In a matched room: the seat's reservation of the player joining (a token's holder
        coming back keeps their seat); anyone else only watches."""
        if not self.reserved or arrival == "returning":
            return None
        found = next((r for r in self.reserved if known_id is not None
                      and hmac.compare_digest(r.player_id, known_id)), None)
        if found is None:
            raise ProtocolError("room_full", SEATS_RESERVED)
        index = self.reserved.index(found)
        holder = self.room.seats[index].token_hash
        if holder is not None and holder != token_hash:
            raise ProtocolError("room_full", "your seat at this table is taken by your own "
                                "earlier join: come back with its token")
        return found

    async def _entered(self, message: Join, known_id: str | None) -> str | None:
        """The join's key entered in the store under the join's name: its public id (``None``
        for a guest). `ProtocolError` ``bad_key`` or ``name_taken``; nothing changed then."""
        key = message.player_key
        if key is None:
            return None
        players.check_key(key, lambda: known_id is None)
        try:
            entered = await self.room.store.enter_player_async(
                players.hash_key(key), message.name, players.new_public_id())
        except NameTaken:
            raise ProtocolError("name_taken", players.name_taken_text(message.name)) from None
        return entered.player_id

    def _seat(self, conn: Connection, message: Join, arrival: Arrival, token_hash: str | None,
              player_id: str | None, reservation: Reservation | None) -> None:
        """Seat (or put on the waiting list) the person the join is, then welcome them."""
        room = self.room
        lobby, members = room.lobby, room.members
        name = message.name or (reservation.name if reservation is not None else "")
        token: str | None = None
        if arrival == "sitting_down":
            assert token_hash is not None
            members.release(conn)
            members.note_player(token_hash, player_id)  # issue 17
            seat = lobby.seat_person(token_hash, name, conn)
            members.known[token_hash] = name
        elif arrival == "returning":
            assert token_hash is not None
            token = message.token
            seat = self._come_back(conn, token_hash, name, player_id)
        else:
            if lobby.would_wait() and len(lobby.waiting) >= MAX_WAITING_PEOPLE:
                raise ProtocolError("room_full", f"{MAX_WAITING_PEOPLE} people already wait for "
                                    "the next game here; watch instead, or try another room")
            token, token_hash = members.issue(name, player_id)
            room.recorder.add_member(token_hash, name)
            seat = lobby.seat_person(token_hash, name, conn)
            log.info("room %s: %s joined %s", room.code, name,
                     f"seat {seat.index}" if seat is not None else "and waits for the next game")
        room.save()
        self.welcome(conn, Member(None if seat is None else seat.index, token_hash, name,
                                  members.player_ids.get(token_hash)), token)
        if self.reserved:
            room.start_when_everyone_came()

    def _come_back(self, conn: Connection, token_hash: str, name: str, player_id: str | None) -> Seat | None:
        """A token's holder is back: to their seat (a connection holding it already is replaced),
        or else seated or waiting as a person who joins."""
        room = self.room
        members = room.members
        members.note_player(token_hash, player_id)  # issue 17
        seat = room.lobby.seat_of(token_hash)
        if seat is None:
            members.known[token_hash] = name
            return room.lobby.seat_person(token_hash, name, conn)
        if seat.conn is not None and seat.conn is not conn:
            old = seat.conn
            room.left(old, members.release(old))
            replaced: ReplacedMessage = {"type": "replaced", "message": "this seat was taken "
                                         "over by a newer connection with the same token"}
            old.send(replaced)
            old.close(4001, "replaced")
        seat.conn = conn
        seat.name = name
        seat.player_id = members.player_ids.get(token_hash)  # issue 17
        room.present(seat)
        return seat

    def _watch(self, conn: Connection, message: Watch) -> None:
        room = self.room
        room.checked_member(conn, message)
        if room.lobby.watchers() >= MAX_WATCHERS:
            raise ProtocolError("room_full", f"{MAX_WATCHERS} people already watch this room; "
                                "try again later")
        self.welcome(conn, room.members.watcher(conn), None)

    def welcome(self, conn: Connection, member: Member, token: str | None) -> None:
        """Take ``conn`` in as ``member``: ``welcome`` (the token only to its owner), the room
        for everyone, then the game so far for this page."""
        room = self.room
        room.members.admit(conn, member)
        room.joined(conn, member)
        welcome: WelcomeMessage = {
            "type": "welcome", "protocol": PROTOCOL_VERSION, "code": room.code,
            "seat": member.seat, "token": token, "host": room.lobby.is_host(member.token_hash),
            "name": member.name, "status": room.lobby.status(member), "player_id": member.player_id}
        conn.send(welcome)
        room.broadcast_room()
        room.send_current_state(conn)

    def readmit(self, connections: dict[Connection, Member]) -> None:
        """The room was rebuilt from its store (`Room.reload`): its connections stay, each to
        its seat if the stored room still gives it to them, else as a spectator (no welcome:
        they were welcomed already)."""
        room = self.room
        for conn, member in connections.items():
            index = member.seat
            seat = room.seats[index] if index is not None and index < len(room.seats) else None
            if seat is not None and seat.token_hash == member.token_hash:
                seat.conn = conn
                room.members.admit(conn, member)
                room.present(seat)
            else:
                member = Member(None, member.token_hash, member.name)
                room.members.admit(conn, member)
            room.joined(conn, member)

    # ------------------------------------------------------------------ a matched table

    def reserve(self, reservations: Sequence[Reservation]) -> None:
        """Keep each seat for one player, in order (the room has that many seats)."""
        self.reserved = list(reservations)
        for seat, reservation in zip(self.room.seats, self.reserved, strict=True):
            seat.reserved_for = reservation.player_id

    def missing(self) -> tuple[list[str], list[str]]:
        """The reserved players not at the table, and those who are (player ids)."""
        missing: list[str] = []
        present: list[str] = []
        for seat, reservation in zip(self.room.seats, self.reserved, strict=True):
            came = seat.kind == "human" and seat.conn is not None and seat.player_id == reservation.player_id
            (present if came else missing).append(reservation.player_id)
        return missing, present
