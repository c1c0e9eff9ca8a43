"""When the database goes away mid-game: rooms pause, and come back when it does.

A store method that cannot reach its database raises `ratscrew.storage.records.StoreUnavailable`;
the room that called it pauses (:func:`pause`): it tells its
players, refuses every action with an ``unavailable`` error and stops its game's clock. Nothing
it accepted is lost, because a step is shown only after it is stored; a step the engine took but
could not store was never shown, and is dropped. `watch_store` probes the database twice a second
while any room is paused, or while the store fails fast after a call no room made (a new room, a
join's count, a page) found it gone, in a thread, so the rooms that still run are not held up,
and, when it
answers, rebuilds each paused room from the store (:func:`reload`),
then rates the finished games the outage left unrated (:func:`ratscrew.server.ladder.ratings.catch_up`:
a game whose end was stored just before the database went away). On PostgreSQL the rooms' and
games' reads for that, and the rating, are made in a worker thread too (`off_the_loop`): a
shard with hundreds of paused rooms would otherwise hold its loop for their round trips.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from ratscrew.protocol.server_messages import NoticeMessage, ServerMessage, error_message
from ratscrew.server.blocking import off_the_loop
from ratscrew.server.ladder import ratings
from ratscrew.server.ops.metrics import TALLY
from ratscrew.server.room.lobby import stored_phase
from ratscrew.server.room.persistence import StoredGame, StoredRoom
from ratscrew.storage.records import RoomRow, StoreUnavailable
from ratscrew.storage.roles import Store

if TYPE_CHECKING:
    from ratscrew.engine import Game
    from ratscrew.events import Event
    from ratscrew.server.room.admission import Admission
    from ratscrew.server.room.driver import GameDriver
    from ratscrew.server.room.membership import Member, Membership
    from ratscrew.server.room.persistence import RoomRecorder
    from ratscrew.server.room.publisher import Connection, Publisher
    from ratscrew.server.room.writer import Outbox

log = logging.getLogger("ratscrew.server")

PROBE_EVERY_S = 0.5
"""How often a server with paused rooms (or a store failing fast) asks the database again."""


class PausableRoom(Protocol):
    """What `watch_store` asks of a room (`ratscrew.server.room.room.Room`)."""

    code: str
    paused: str | None

    def read_stored(self) -> StoredRoom: ...
    def reload(self, stored: StoredRoom) -> None: ...
    def pause_for_store(self) -> None: ...


class OutageRoom(Protocol):
    """What pausing a room and rebuilding it from its store ask of it."""

    code: str
    store: Store
    paused: str | None
    outbox: Outbox
    publisher: Publisher
    driver: GameDriver
    recorder: RoomRecorder
    admission: Admission

    @property
    def members(self) -> Membership: ...
    @property
    def connections(self) -> dict[Connection, Member]: ...
    @property
    def game(self) -> Game | None: ...
    @property
    def phase(self) -> str: ...
    def left(self, conn: Connection, member: Member | None, seat_in_game: int | None = None) -> None: ...
    def take_stored(self, row: RoomRow) -> None: ...
    def new_game_parts(self) -> None: ...
    def resume_stored_game(self, stored: StoredGame | None) -> None: ...
    def broadcast(self, message: ServerMessage) -> None: ...
    def broadcast_room(self) -> None: ...
    def publish(self, events: Sequence[Event]) -> None: ...
    def start_driving(self) -> None: ...


async def watch_store(store: Store, rooms: Mapping[str, PausableRoom], every_s: float = PROBE_EVERY_S
                      ) -> None:
    """Resume paused rooms whenever the store answers again (runs until cancelled)."""
    while True:
        await asyncio.sleep(every_s)
        paused = [room for room in list(rooms.values()) if room.paused is not None]
        if not (paused or store.failing_fast) or not await asyncio.to_thread(store.reachable):
            continue
        for room in paused:
            try:
                stored = await off_the_loop(store, room.read_stored)
                if room.paused is None or rooms.get(room.code) is not room:
                    continue  # resumed or let go meanwhile
                room.reload(stored)
            except StoreUnavailable:
                room.pause_for_store()
                break
            except Exception:
                log.exception("room %s could not be rebuilt from the store; it stays paused", room.code)
        else:  # the store answered for every room: rate what the outage left unrated
            with contextlib.suppress(StoreUnavailable):
                await off_the_loop(store, ratings.catch_up, store)


def pause(room: OutageRoom) -> None:
    """The store failed: take no more actions and tell everyone. What the engine took since
    the last stored step was never shown (persist before publish), and is dropped when
    `reload` rebuilds the room from the store."""
    room.outbox.drop()  # what waited for the lost write is never sent
    dropped = room.outbox.take_dropped_states()
    if dropped:  # ... nor redrawn from the history (a page would show a move never made)
        room.publisher.history.forget_from(dropped[0])
    if room.paused is None:
        room.paused = ("the server lost its database: the game is paused, and nothing you do "
                       "counts until it is back")
        log.warning("room %s: paused, its store is unavailable", room.code)
        TALLY.room_pauses += 1
        room.broadcast(error_message("unavailable", room.paused))
    room.driver.cancel()

def read_stored(room: OutageRoom) -> StoredRoom:
    """What the store holds of this room: its row and the game it was playing, rebuilt.
    Only reads (`StoreUnavailable` if the store failed again), so the server may make it in
    a worker thread while the room stays paused (`ratscrew.server.room.outage`)."""
    row = room.store.load_room(room.code)
    return StoredRoom(row, None if row is None else game_stored_for(room, row))

def game_stored_for(room: OutageRoom, row: RoomRow) -> StoredGame | None:
    """The game ``row`` says the room was playing, rebuilt from the store (reads only)."""
    if row.game_id is None or stored_phase(row.phase) != "playing":
        return None
    return room.recorder.stored_game(row.game_id)

def reload(room: OutageRoom, stored: StoredRoom | None = None) -> None:
    """The store is back: rebuild the room from what it holds (``stored``: read already by
    `read_stored`, else read now), as a restart would (a game in progress resumes at its
    last stored action), keep the people connected to it, and show everyone where the game
    stands. `StoreUnavailable` if the store failed again."""
    stored = stored or read_stored(room)
    row = stored.row
    if row is None:  # never stored: the room was being created when the store went away
        for conn in list(room.connections):
            conn.close(4404, "this room was lost with the database")
            room.left(conn, room.members.release(conn))
        return
    # Start again from the stored room, in place, keeping what the people connected to it
    # know: the connections, the versions they have seen, the clock their sends are
    # stamped with, the history (all in the publisher), and the room's own wiring (its
    # code, store, clock, deal, the lab it asks for expected lengths).
    connections = dict(room.connections)
    room.take_stored(row)
    room.new_game_parts()
    room.resume_stored_game(stored.game)
    room.admission.readmit(connections)
    log.info("room %s: the store is back; resumed", room.code)
    resumed: NoticeMessage = {"type": "notice", "code": "resumed", "message": "the database "
                              "is back: the game goes on from its last stored move"}
    room.broadcast(resumed)
    room.broadcast_room()
    if room.game is not None:
        room.publish([])
    if room.phase == "over" and room.publisher.game_over is not None:
        room.broadcast(room.publisher.game_over)
    room.start_driving()
