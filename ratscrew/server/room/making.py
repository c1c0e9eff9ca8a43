"""How a room comes to be: made for a ``POST /api/rooms`` body (:func:`create`,
:func:`create_async`), for quick play's matched players (:func:`matched`), or rebuilt from the
store after a restart (:func:`restore`; :func:`take_stored` and :func:`resume_stored_game` also
rebuild a room whose store came back, `ratscrew.server.room.outage.reload`).

Each function is handed the room's constructor (``make``: the class
`ratscrew.server.room.room.Room`, whose classmethods call these) and sees the room it made
through :class:`MadeRoom`, so that this module never imports the room's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ratscrew.protocol.client_messages import RoomRequest, parse_room_request
from ratscrew.server.room import games, outage
from ratscrew.server.room.lobby import Lobby, RoomSettings, Seat, new_code, stored_phase, stored_seat_kind
from ratscrew.server.room.membership import Membership, hash_token
from ratscrew.server.room.publisher import version_after_restart

if TYPE_CHECKING:
    from ratscrew.server.room.admission import Reservation
    from ratscrew.server.room.persistence import StoredGame
    from ratscrew.storage.records import RoomRow
    from ratscrew.storage.roles import Store

log = logging.getLogger("ratscrew.server")


class MadeRoom(games.PlayingRoom, outage.OutageRoom, Protocol):
    """What making a room asks of the room made (`ratscrew.server.room.room.Room`): a room
    made plays games and is rebuilt from its store."""


R = TypeVar("R", bound=MadeRoom)


def create(make: Callable[..., R], request: RoomRequest, store: Store, code: str | None = None,
           **options: Any) -> R:
    """A new room from a validated ``POST /api/rooms`` body, saved to the store."""
    while code is None or store.room_exists(code):
        code = new_code()
    room = new(make, request, code, store, **options)
    room.save()
    log_created(room, request)
    return room


async def create_async(make: Callable[..., R], request: RoomRequest, store: Store, code: str,
                       **options: Any) -> R:
    """`create` with a code known to be free (`ratscrew.server.ops.shards.new_room_code_async`),
    saved without a round trip on the event loop: saved when this returns."""
    room = new(make, request, code, store, **options)
    await room.recorder.save_room_async(*room.parts())
    log_created(room, request)
    return room


def new(make: Callable[..., R], request: RoomRequest, code: str, store: Store, **options: Any) -> R:
    """The room a request asks for, not saved yet."""
    seats = [Seat(index) for index in range(request.seats)]
    first_bot = request.seats - len(request.bots)
    for offset, level in enumerate(request.bots):
        seats[first_bot + offset].kind = "bot"
        seats[first_bot + offset].bot = level
    settings = RoomSettings(request.rules, request.seed, request.pace, request.turn_timeout_ms,
                            request.judging, request.time_limit_ms,
                            None if request.password is None else hash_token(request.password))
    room = make(code, settings, seats, store, **options)
    room.lobby.name_bots()
    return room


def log_created(room: MadeRoom, request: RoomRequest) -> None:
    """One line in the server's log for a room made."""
    log.info("room %s created: %s, %d seats, bots %s, judging %s", room.code,
             request.rules.name, request.seats, ",".join(request.bots) or "none",
             request.judging)


async def matched(make: Callable[..., R], rules: str, players: int, reservations: Sequence[Reservation],
                  store: Store, code: str, *, show_up_s: float,
                  on_no_show: Callable[[list[str], list[str]], None] | None = None, **options: Any) -> R:
    """A matched room (quick play): the preset ``rules``, one seat reserved for each of
    ``reservations``, no host and no lobby; its game starts once every reserved player has
    joined, and if they have not all joined within ``show_up_s`` of room time the room
    closes without a game and ``on_no_show(missing, present)`` is told (player ids).
    Saved when this returns."""
    if len(reservations) != players:
        raise ValueError(f"{players} seats need {players} reservations, not {len(reservations)}")
    request = parse_room_request({"rules": rules, "seats": players, "bots": []})
    if request.rules.name != rules:
        raise ValueError(f"a matched room plays a preset, not {rules!r}")
    room = new(make, request, code, store, **options)
    room.members.hostless = True
    room.admission.reserve(reservations, room.clock.wall() + show_up_s, on_no_show)
    await room.recorder.save_room_async(*room.parts())
    log.info("room %s made for %d matched players (%s); they have %g s to come", code,
             players, rules, show_up_s)
    return room


def membership(seats: Sequence[Seat], host_hash: str | None, known: dict[str, str] | None,
               kicked: Iterable[str]) -> Membership:
    """A room's membership as created or stored: its host, tokens and kicks, and the keyed
    players in its seats."""
    return Membership(host_hash=host_hash, known=known, kicked=kicked, player_ids={
        s.token_hash: s.player_id for s in seats if s.token_hash and s.player_id})


def restore(make: Callable[..., R], row: RoomRow, store: Store, **options: Any) -> R:
    """A room from the store after a restart; a game that was in progress is rebuilt by
    replaying its stored actions, and goes on from the time of its last action."""
    room = make(row.code, RoomSettings.from_json(row.settings), [], store, **options)
    room.take_stored(row)  # the room as stored, its game not rebuilt yet
    room.publisher.version = version_after_restart()  # versions never start again
    room.resume_stored_game(outage.game_stored_for(room, row))
    return room


def take_stored(room: MadeRoom, row: RoomRow) -> None:
    """Take the stored room's settings, seats, people and games (its game not rebuilt yet)."""
    seats = [Seat(s.seat, stored_seat_kind(s.kind), s.name, s.bot, s.token_hash, player_id=s.player_id)
             for s in row.seats]
    room.settings = RoomSettings.from_json(row.settings)
    room.lobby = Lobby(seats, members=membership(seats, row.host_hash, row.members, row.kicked),
                       phase=stored_phase(row.phase))
    room.games_played = row.games_played
    room.game_id = row.game_id


def resume_stored_game(room: MadeRoom, stored: StoredGame | None) -> None:
    """Go on with the game the room was playing, as ``stored`` (``None``: none is stored)."""
    if room.phase != "playing" or room.game_id is None:
        return
    if stored is None:
        room.lobby.phase = "over" if room.games_played else "lobby"
        return
    room.clock.restart(float(stored.game.now))
    games.begin(room, stored.game, stored.judged)
