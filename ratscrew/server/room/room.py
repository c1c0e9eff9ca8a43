"""A room: one invite code, its seats and settings, the people connected to it, and the game
played in it. The room is the only writer of its game.

The room wires its parts together, each with one job:

- :data:`~ratscrew.server.room.routes.ROUTES` (checked by :mod:`ratscrew.server.room.dispatch`):
  who may send which message when, and the handler each message goes to
  (:mod:`ratscrew.server.room.routes`); ``join`` and ``watch`` go to the one way in,
  :class:`~ratscrew.server.room.admission.Admission`;
- :class:`~ratscrew.server.room.membership.Membership`: tokens, the host, kicks, who each connection
  is;
- :class:`~ratscrew.server.room.lobby.Lobby`: who sits where, who waits, who watches, what the
  host may change;
- :class:`~ratscrew.server.room.driver.GameDriver`: the game at its table, the settling window and
  the one place that feeds the engine (people's judged actions, bots, timers);
- :class:`~ratscrew.server.room.tally.ContestTally`: the slaps on each pile state and the
  judgements of contested ones;
- :class:`~ratscrew.server.room.publisher.Publisher`: what is sent, encoded once per audience, with
  its versions and numbered history;
- :class:`~ratscrew.server.room.persistence.RoomRecorder`: what is stored;
- :class:`~ratscrew.server.room.lifecycle.RoomHooks`: who hears of people arriving and leaving and of
  the room's end (the absence watch, the idle-room sweep);
- functions over the room, each module seeing it through a narrow Protocol (checked against
  `Room` at the end of this module, so that no part imports this one):
  :mod:`~ratscrew.server.room.making` (a room created, matched or restored),
  :mod:`~ratscrew.server.room.games` (a game dealt, driven, each step stored and shown),
  :mod:`~ratscrew.server.room.ending` (a game finished or abandoned),
  :mod:`~ratscrew.server.room.absence` (people away and their stand-ins),
  :mod:`~ratscrew.server.room.messages` (the ``room`` message),
  :mod:`~ratscrew.server.room.outage` (the store lost and back).

A person's message comes in through :meth:`Room.handle`, which checks its route's precondition
and calls its handler; an action is judged (:func:`ratscrew.server.room.judging.judge_action`) and
queued with the driver, which feeds it to the engine when the settling window has passed. After
each step the engine accepted, the room first appends the new actions to the store, then sends
every connection its own view: ``game.observe(seat)`` for a seat, ``observe(None)`` for a
spectator, the step's events and the words for them. Nothing else about the game leaves the room.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Coroutine, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from ratscrew.engine import Game
from ratscrew.events import Event
from ratscrew.protocol.client_messages import Act, ClientMessage, Join, RoomRequest, Watch
from ratscrew.protocol.server_messages import KickedMessage, NoteKind, Phase, RoomMessage, ServerMessage
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import Table
from ratscrew.server.lab.jobs import LabService
from ratscrew.server.room import absence, ending, games, making, messages, outage
from ratscrew.server.room.absence import AbsenceTimes, AbsenceWatch, PlayCount
from ratscrew.server.room.admission import Admission, AdmittingRoom, Door, Reservation
from ratscrew.server.room.agents import Shown
from ratscrew.server.room.dispatch import Route, check, route_for
from ratscrew.server.room.driver import GameDriver, PendingAction, RoomClock
from ratscrew.server.room.judging import settle_window_ms
from ratscrew.server.room.lifecycle import Presence, RoomHooks
from ratscrew.server.room.lobby import (
    CODE_ALPHABET,
    CODE_LENGTH,
    DEFAULT_BOT,
    Lobby,
    RoomSettings,
    Seat,
    new_code,
)
from ratscrew.server.room.membership import Member, Membership, hash_token
from ratscrew.server.room.persistence import RoomRecorder, StoredGame, StoredRoom
from ratscrew.server.room.publisher import SHOWN_VERSIONS, Connection, Publisher
from ratscrew.server.room.routes import ROUTES, RoutedRoom
from ratscrew.server.room.tally import ContestTally
from ratscrew.server.room.writer import Outbox, StepWriter
from ratscrew.server.ws.link import SETTLING_INPUTS, ChangeCount
from ratscrew.storage.records import RoomRow
from ratscrew.storage.roles import Store

__all__ = ["CODE_ALPHABET", "CODE_LENGTH", "DEFAULT_BOT", "ROUTES", "SHOWN_VERSIONS", "Connection", "Member",
           "PendingAction", "Room", "RoomClock", "RoomSettings", "Seat", "StoredRoom", "hash_token",
           "new_code"]

log = logging.getLogger("ratscrew.server")


def _deal(rules: Ruleset, players: int, seed: int) -> Game:
    return Game.deal(rules, players=players, seed=seed)


class Room:
    """One room (see the module docstring). ``drive=False`` leaves moving the game to whoever
    calls :meth:`tick` (tests with a fake clock); otherwise a task does it while a game runs."""

    def __init__(self, code: str, settings: RoomSettings, seats: list[Seat], store: Store, *,
                 wall: Callable[[], float] = time.monotonic, drive: bool = True,
                 host_hash: str | None = None, phase: Phase = "lobby", games_played: int = 0,
                 members: dict[str, str] | None = None, kicked: Iterable[str] = (),
                 deal: Callable[[Ruleset, int, int], Game] | None = None,
                 absence: AbsenceTimes | None = None, writer: StepWriter | None = None) -> None:
        self.code = code
        self.settings = settings
        self.store = store
        self.clock = RoomClock(wall)
        self.drive = drive
        self.games_played = games_played
        self.deal = deal or _deal
        """How a game is dealt from (rules, seats, seed): ``Game.deal``, or a fixed deal in tests."""
        self.game_id: int | None = None
        self.lobby = Lobby(seats, members=making.membership(seats, host_hash, members, kicked), phase=phase)
        self.expected_lengths: LabService | None = None
        """Where the lobby's expected game length comes from (the server's lab), if anywhere."""
        self.estimates_for: str | None = None
        """The address that last set the rules or seats (the creator, then the host): the lab
        counts the room's expected-length estimates against it."""
        self.absence_times = absence or AbsenceTimes()
        self.absence = AbsenceWatch(self.absence_times)
        """Who of the game's people is gone, and for whom a stand-in bot plays (issue 26); it
        hears of people leaving and coming back through its hooks."""
        self.hooks: list[RoomHooks] = [self.absence]
        """Who hears of the room's lifecycle (`ratscrew.server.room.lifecycle`)."""
        self.writer = writer or StepWriter(store)
        """Who stores the game's steps (the server's one writer; a room of its own otherwise)."""
        self.admission = Admission(self)
        """The room's one way in: joins and watches (`ratscrew.server.room.admission`)."""
        self.outbox = Outbox()
        """What the room sends, held while a write it shows is being stored (the server hands
        it to each connection of this room; see `ratscrew.server.room.writer`)."""
        self.publisher = Publisher(self.clock.now, on_published=self.outbox.published)
        self.shown_links: list[int | None] = []
        """The seats' pings and the settling window the last ``room`` message showed."""
        self._link_changes = ChangeCount()
        """Moves when the round trip or jitter of a link of this room's connections does."""
        self._settle_key: tuple[int, int, str] | None = None
        self._settle = 0.0
        """The settling window, worked out when ``_settle_key`` (`SETTLING_INPUTS`, the links'
        own count and the judging) was as it is now."""
        self.new_game_parts()

    def new_game_parts(self) -> None:
        """The parts that hold a game's state, empty: at creation, and when :meth:`reload`
        rebuilds the room from its store (the room's settings, seats and people are set apart)."""
        self.driver = GameDriver(self.clock, self._settle_window, partial(games.pile_reaction_ms, self))
        self.tally = ContestTally(0)
        """The slaps on each pile state, the judgements, every seat's figures (one per game)."""
        self.recorder = RoomRecorder(self.store, self.code, self.writer, self.outbox,
                                     partial(games.write_lost, self))
        self.paused: str | None = None
        """Why the room takes no actions now (its store is unavailable), or ``None``."""
        self.game_names: list[str] = []
        self.game_tokens: list[str | None] = []
        """The token hash of the person in each seat of the current (or last) game, as dealt: the
        lobby may change its seats after a game, and the finished game is still shown as it was."""
        self.tracked_actions = 0
        """How many of the game's actions the tally has been handed."""
        self.shown_pile: list[str] = []
        """The live pile as of the last step shown."""
        self.game_finished = False
        self.play_count = PlayCount((), 0)
        """Each seat's actions in the current game, and those made for its person."""

    # ------------------------------------------------------------------ the parts' state, by name

    @property
    def seats(self) -> list[Seat]:
        """The seats, in order (the lobby's)."""
        return self.lobby.seats

    @property
    def phase(self) -> str:
        """``lobby``, ``playing`` or ``over`` (the lobby's `Phase`)."""
        return self.lobby.phase

    @property
    def members(self) -> Membership:
        """Who belongs to the room: tokens, host, kicks, connections (the lobby's)."""
        return self.lobby.members

    @property
    def connections(self) -> dict[Connection, Member]:
        """Every connection that joined or watches, and who it is."""
        return self.lobby.members.connections

    @property
    def waiting(self) -> list[str]:
        """Token hashes of people waiting for the next game."""
        return self.lobby.waiting

    @property
    def known_members(self) -> dict[str, str]:
        """Every token given out in this room (hash) and the name its holder chose."""
        return self.lobby.members.known

    @property
    def game(self) -> Game | None:
        """The current (or last) game."""
        return self.driver.game

    @property
    def table(self) -> Table | None:
        """The table the current game is played at."""
        return self.driver.table

    @property
    def version(self) -> int:
        """The version of the last state sent."""
        return self.publisher.version

    @property
    def horizon(self) -> float:
        """The latest table time handed to the engine."""
        return self.driver.horizon

    @property
    def settle_ms(self) -> float:
        """How long actions are held before they are handed to the engine, now."""
        return self._settle_window()

    def _settle_window(self) -> float:
        # kept until a link, a seat or the judging changes (a step looks at it several times)
        key = (SETTLING_INPUTS.count, self._link_changes.count, self.settings.judging)
        if key != self._settle_key:
            self._settle_key, self._settle = key, settle_window_ms(self.settings.judging, self.lobby.links())
        return self._settle

    # ------------------------------------------------------------------ creation

    @classmethod
    def create(cls, request: RoomRequest, store: Store, code: str | None = None,
               **options: Any) -> Room:
        """A new room from a validated ``POST /api/rooms`` body, saved (`making.create`)."""
        return making.create(cls, request, store, code, **options)

    @classmethod
    async def create_async(cls, request: RoomRequest, store: Store, code: str,
                           **options: Any) -> Room:
        """`create` with a code known to be free, saved when this returns (`making.create_async`)."""
        return await making.create_async(cls, request, store, code, **options)

    @classmethod
    async def matched(cls, rules: str, players: int, reservations: Sequence[Reservation], store: Store,
                      code: str, *, show_up_s: float,
                      on_no_show: Callable[[list[str], list[str]], None] | None = None,
                      **options: Any) -> Room:
        """A matched room (quick play) for ``reservations``, saved (`making.matched`)."""
        return await making.matched(cls, rules, players, reservations, store, code,
                                    show_up_s=show_up_s, on_no_show=on_no_show, **options)

    def show_up_wait(self) -> float | None:
        """A matched room: seconds until its players must have come (`Admission.show_up_wait`)."""
        return self.admission.show_up_wait()

    @classmethod
    def restore(cls, row: RoomRow, store: Store, **options: Any) -> Room:
        """A room from the store after a restart, its game resumed (`making.restore`)."""
        return making.restore(cls, row, store, **options)

    def take_stored(self, row: RoomRow) -> None:
        """Take the stored room's settings, seats and people (`making.take_stored`)."""
        making.take_stored(self, row)

    def resume_stored_game(self, stored: StoredGame | None) -> None:
        """Go on with the game the room was playing (`making.resume_stored_game`)."""
        making.resume_stored_game(self, stored)

    def parts(self) -> tuple[RoomSettings, Lobby, int, int | None]:
        return self.settings, self.lobby, self.games_played, self.game_id

    def save(self) -> None:
        """Write the room's settings and seats to the store."""
        self.recorder.save_room(self.settings, self.lobby, self.games_played, self.game_id)

    # ------------------------------------------------------------------ connections

    def connect(self, conn: Connection) -> None:
        """A new connection: it is nobody until it sends ``join`` or ``watch``. Its link's
        changes move this room's settling window only (`LinkEstimate.inputs`)."""
        conn.pinger.link.inputs = self._link_changes

    def disconnect(self, conn: Connection) -> None:
        """A connection went away; its seat stays its player's (during a game, a stand-in bot
        plays it if they stay away: `ratscrew.server.room.absence` hears of it)."""
        member = self.connections.get(conn)
        held_seat = self.lobby.leave(conn)
        playing = self.phase == "playing" and held_seat and member is not None
        self.left(conn, member, member.seat if playing and member is not None else None)
        if held_seat:
            if playing:
                self.driver.poke()
            self.broadcast_room()

    def add_hooks(self, hooks: RoomHooks) -> None:
        """``hooks`` hears of this room's lifecycle from now on (`ratscrew.server.room.lifecycle`)."""
        self.hooks.append(hooks)

    def _presence(self, conn: Connection, member: Member, seat_in_game: int | None) -> Presence:
        return Presence(self.code, conn, member, len(self.connections), seat_in_game, self.clock.wall())

    def left(self, conn: Connection, member: Member | None, seat_in_game: int | None = None) -> None:
        """Tell the hooks ``conn`` (who was ``member``, if anyone) is gone from the room."""
        if member is not None:
            presence = self._presence(conn, member, seat_in_game)
            for hooks in self.hooks:
                hooks.on_leave(presence)

    def joined(self, conn: Connection, member: Member) -> None:
        """Tell the hooks ``conn`` is in the room as ``member``."""
        presence = self._presence(conn, member, member.seat if self.phase == "playing" else None)
        for hooks in self.hooks:
            hooks.on_join(presence)

    async def dispose(self, close_code: int = 1001, reason: str = "") -> None:
        """The room is closed for good: stop its game's task, close its connections (with
        ``close_code`` and ``reason``), tell the hooks, and let go of its game, people and
        listeners, so that nothing keeps the room alive."""
        await self.driver.stop()
        await self.writer.drain()
        for conn in list(self.connections):
            conn.close(close_code, reason)
        self.connections.clear()
        for seat in self.seats:
            seat.conn = None
        for hooks in self.hooks:
            hooks.on_dispose(self.code)
        self.hooks.clear()
        self.expected_lengths = None
        self.new_game_parts()  # the game, its table and agents, the tally: let go

    def handle(self, conn: Connection, message: ClientMessage, door: Door | None = None
               ) -> Coroutine[Any, Any, None] | None:
        """Take one validated message; a refusal is a `ProtocolError` (nothing changed).

        The message's route in :data:`ROUTES` says who may send it and when
        (`ratscrew.server.room.dispatch`); a type with no route is refused, never guessed at.
        An arrival (``join``, ``watch``) goes to the room's one way in, counted at ``door``
        (`Admission.take`): answered at once, or, on a store that answers later, the coroutine
        the caller runs as a task (which answers its own refusals)."""
        route = route_for(ROUTES, message)
        if route.admits:
            assert isinstance(message, (Join, Watch))
            return self.admission.take(conn, message, door or Door())
        route.handler(self, conn, self.checked_member(conn, message, route), message)
        return None

    @staticmethod
    def route(message: ClientMessage) -> Route:
        """The route of ``message`` (`ratscrew.server.room.dispatch.route_for`): what the
        transport asks of a message without knowing its type."""
        return route_for(ROUTES, message)

    def checked_member(self, conn: Connection, message: ClientMessage,
                       route: Route | None = None) -> Member | None:
        """Who sends ``message`` on ``conn``, once its route's precondition holds."""
        route = route or route_for(ROUTES, message)
        member = self.connections.get(conn)
        what = message.kind if isinstance(message, Act) else route.name
        check(route, what, member=member, host=member is not None and self.lobby.is_host(member.token_hash),
              seated=member is not None and member.seat is not None, phase=self.phase, paused=self.paused)
        return member

    # ------------------------------------------------------------------ the host

    def kick(self, member: Member, index: int) -> None:
        """The host removes the person in seat ``index`` (`ratscrew.server.room.routes.kick`)."""
        seat, token_hash = self.lobby.remove_person(index, member)
        self.recorder.add_kicked(token_hash)
        if seat.conn is not None:
            kicked: KickedMessage = {"type": "kicked", "message": "the host removed you from the "
                                     "table; you are watching now"}
            seat.conn.send(kicked)
        log.info("room %s: the host removed %s from seat %d", self.code, seat.name, index)
        seat.conn = None
        if self.phase == "playing" and self.table is not None:
            seat.kind, seat.bot, seat.name, seat.stand_in = "bot", DEFAULT_BOT, None, None
            self.absence.drop(index)
            self.play_count.people.discard(index)  # a bot's seat from now on
            self.lobby.name_bots()
            self.table.replace_agent(index, self.bot_agent(index, DEFAULT_BOT))
            self.tick()
        else:
            seat.kind, seat.name = "open", None

    def seat_the_waiting(self) -> None:
        """Outside a game, the people who wait sit down (`Lobby.seat_the_waiting`)."""
        for seat in self.lobby.seat_the_waiting():
            log.info("room %s: %s takes seat %d", self.code, seat.name, seat.index)

    # ------------------------------------------------------------------ the game (`room.games`)

    def start_game(self) -> None:
        """Deal a new game and seat everyone at its table (`ratscrew.server.room.games.start_game`)."""
        games.start_game(self)

    def room_info(self) -> dict[str, Any]:
        """The room as a game's record shows it: code, judging, time limit, seats."""
        return {"code": self.code, "judging": self.settings.judging,
                "time_limit_ms": self.settings.time_limit_ms,
                "seats": [{"kind": s.kind, "bot": s.bot} for s in self.seats]}

    def bot_agent(self, seat: int, level: str, game: Game | None = None) -> Shown:
        """A bot's agent for ``seat`` (`ratscrew.server.room.games.bot_agent`)."""
        return games.bot_agent(self, seat, level, game)

    def start_driving(self) -> None:
        """Start the task that moves a restored game on (called once the loop runs)."""
        if self.phase == "playing":
            games.drive(self)

    async def stop(self) -> None:
        """Stop moving the game (server shutdown) and store what it took."""
        await self.driver.stop()
        await self.writer.drain()

    def tick(self) -> None:
        """Move the game up to the horizon and on (`ratscrew.server.room.games.tick`)."""
        games.tick(self)

    def next_wake(self) -> float | None:
        """The room time at which :meth:`tick` next has something to do, if anything."""
        return games.next_wake(self)

    def save_step(self) -> None:
        """Store the game's new actions and judgements (`ratscrew.server.room.games.save_step`)."""
        games.save_step(self)

    def publish(self, events: Sequence[Event]) -> None:
        """Show the game's step to every connection (`ratscrew.server.room.games.publish`)."""
        games.publish(self, events)

    def send_current_state(self, conn: Connection) -> None:
        """The game as it is now, to ``conn`` (`ratscrew.server.room.games.send_current_state`)."""
        games.send_current_state(self, conn)

    def send_judgements(self) -> None:
        """A ``judgement`` for each contested slap the tally closed (`games.send_judgements`)."""
        games.send_judgements(self)

    def announce(self, kind: NoteKind, line: str) -> None:
        """A line in everyone's log, of the given kind (`ratscrew.server.room.games.announce`)."""
        games.announce(self, kind, line)

    # ------------------------------------------------------------------ the store lost and back

    def pause_for_store(self) -> None:
        """The store failed: take no more actions, and say so (`ratscrew.server.room.outage.pause`)."""
        outage.pause(self)

    def read_stored(self) -> StoredRoom:
        """What the store holds of this room (reads only: `ratscrew.server.room.outage.read_stored`)."""
        return outage.read_stored(self)

    def reload(self, stored: StoredRoom | None = None) -> None:
        """The store is back: the room rebuilt from it (`ratscrew.server.room.outage.reload`)."""
        outage.reload(self, stored)

    # ------------------------------------------------------------------ people away (issue 26)

    def present(self, seat: Seat) -> None:
        """The person in ``seat`` is connected again (`ratscrew.server.room.absence.back`)."""
        absence.back(self, seat)

    # ------------------------------------------------------------------ room messages

    def summary(self, member: Member | None = None) -> RoomMessage:
        """The ``room`` message; ``you`` only with a member (`ratscrew.server.room.messages`)."""
        return messages.summary(self, member)

    def broadcast_room(self) -> None:
        """The room to everyone, whole or as a ``lobby_change`` (`messages.broadcast_room`)."""
        messages.broadcast_room(self)

    def maybe_update_room(self) -> None:
        """After a pong: the room again if a link moved enough (`messages.maybe_update_room`)."""
        messages.maybe_update_room(self)

    def broadcast(self, message: ServerMessage) -> None:
        self.publisher.broadcast(message, self.connections)


if TYPE_CHECKING:  # the parts' views of the room are the room (checked here, not at each call)
    def _parts_see_a_room(room: Room) -> tuple[RoutedRoom, AdmittingRoom, ending.EndingRoom,
                                               outage.OutageRoom, outage.PausableRoom, absence.AwayRoom,
                                               messages.AnnouncingRoom, games.PlayingRoom, making.MadeRoom]:
        return room, room, room, room, room, room, room, room, room
