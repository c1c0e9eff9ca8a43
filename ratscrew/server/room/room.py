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
  the room's end (the absence watch, the idle-room sweep).

A person's message comes in through :meth:`Room.handle`, which checks its route's precondition
and calls its handler; an action is judged (:func:`ratscrew.server.room.judging.judge_action`) and
queued with the driver, which feeds it to the engine when the settling window has passed. After
each step the engine accepted, the room first appends the new actions to the store, then sends
every connection its own view: ``game.observe(seat)`` for a seat, ``observe(None)`` for a
spectator, the step's events and the words for them. Nothing else about the game leaves the room.
"""

from __future__ import annotations

import logging
import math
import secrets
import time
from collections.abc import Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ratscrew.bots.agent import BotAgent
from ratscrew.bots.profile import LEVELS, paced
from ratscrew.bots.spec import is_agent_spec
from ratscrew.engine import Game
from ratscrew.events import CardPlayed, Event
from ratscrew.narrate import refusal_text
from ratscrew.protocol.client_messages import (
    PACE_FACTORS,
    Act,
    ClientMessage,
    Join,
    RoomRequest,
    Watch,
    parse_room_request,
)
from ratscrew.protocol.codec import encode_message
from ratscrew.protocol.server_messages import (
    ExpectedLength,
    KickedMessage,
    NoteKind,
    NoticeMessage,
    Phase,
    RoomMessage,
    ServerMessage,
    error_message,
)
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import SUBMITTED, Intent, Rejection, Table
from ratscrew.server.lab.jobs import LabService
from ratscrew.server.ops.metrics import TALLY
from ratscrew.server.room import ending
from ratscrew.server.room.absence import STAND_IN_BOT, AbsenceTimes, AbsenceWatch, PlayCount
from ratscrew.server.room.admission import Admission, AdmittingRoom, Door, Reservation
from ratscrew.server.room.agents import RemoteSeat, Shown
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
    stored_phase,
    stored_seat_kind,
)
from ratscrew.server.room.membership import Member, Membership, hash_token
from ratscrew.server.room.persistence import RoomRecorder, StoredGame
from ratscrew.server.room.publisher import SHOWN_VERSIONS, Connection, Publisher, version_after_restart
from ratscrew.server.room.routes import ROUTES, RoutedRoom
from ratscrew.server.room.rules import rules_entry
from ratscrew.server.room.tally import ContestTally
from ratscrew.server.room.writer import Outbox, StepWriter
from ratscrew.server.ws.link import SETTLING_INPUTS, ChangeCount, noticeably_changed
from ratscrew.sim.summary import game_seed
from ratscrew.storage.records import RoomRow, StoreUnavailable
from ratscrew.storage.roles import Store

__all__ = ["CODE_ALPHABET", "CODE_LENGTH", "DEFAULT_BOT", "ROUTES", "SHOWN_VERSIONS", "Connection", "Member",
           "PendingAction", "Room", "RoomClock", "RoomSettings", "Seat", "hash_token", "new_code"]

log = logging.getLogger("ratscrew.server")

NO_SHOW = ("the players matched to this table did not all come in time: there is no game, and "
           "nobody is rated; seek again")
NO_SHOW_WS_CODE = 4410
"""A matched room that closed because its players did not all come (as a closed room's)."""


def _deal(rules: Ruleset, players: int, seed: int) -> Game:
    return Game.deal(rules, players=players, seed=seed)


def _membership(seats: Sequence[Seat], host_hash: str | None, known: dict[str, str] | None,
                kicked: Iterable[str]) -> Membership:
    """A room's membership as created or stored: its host, tokens and kicks, and the keyed
    players in its seats."""
    return Membership(host_hash=host_hash, known=known, kicked=kicked, player_ids={
        s.token_hash: s.player_id for s in seats if s.token_hash and s.player_id})


@dataclass(frozen=True)
class StoredRoom:
    """A room as its store holds it: the row (``None``: never stored) and the game in progress."""

    row: RoomRow | None
    game: StoredGame | None


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
        self.lobby = Lobby(seats, members=_membership(seats, host_hash, members, kicked), phase=phase)
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
        self.show_up_by: float | None = None
        """A matched room: the wall time by which every reserved player must have come."""
        self.on_no_show: Callable[[list[str], list[str]], None] | None = None
        """A matched room: told the missing and the present player ids when they did not all
        come in time (the room is closed then)."""
        self.outbox = Outbox()
        """What the room sends, held while a write it shows is being stored (the server hands
        it to each connection of this room; see `ratscrew.server.room.writer`)."""
        self.publisher = Publisher(self.clock.now, on_published=self.outbox.published)
        self._shown_links: list[int | None] = []
        """The seats' pings and the settling window the last ``room`` message showed."""
        self._link_changes = ChangeCount()
        """Moves when the round trip or jitter of a link of this room's connections does."""
        self._settle_key: tuple[int, int, str] | None = None
        self._settle = 0.0
        """The settling window, worked out when ``_settle_key`` (`SETTLING_INPUTS`, the links'
        own count and the judging) was as it is now."""
        self._new_game_parts()

    def _new_game_parts(self) -> None:
        """The parts that hold a game's state, empty: at creation, and when :meth:`reload`
        rebuilds the room from its store (the room's settings, seats and people are set apart)."""
        self.driver = GameDriver(self.clock, self._settle_window, self._pile_reaction_ms)
        self.tally = ContestTally(0)
        """The slaps on each pile state, the judgements, every seat's figures (one per game)."""
        self.recorder = RoomRecorder(self.store, self.code, self.writer, self.outbox,
                                     self._write_lost)
        self.paused: str | None = None
        """Why the room takes no actions now (its store is unavailable), or ``None``."""
        self.game_names: list[str] = []
        self._game_tokens: list[str | None] = []
        """The token hash of the person in each seat of the current (or last) game, as dealt: the
        lobby may change its seats after a game, and the finished game is still shown as it was."""
        self._tracked_actions = 0
        self._shown_pile: list[str] = []  # the live pile as of the last step shown
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
        """A new room from a validated ``POST /api/rooms`` body, saved to the store."""
        while code is None or store.room_exists(code):
            code = new_code()
        room = cls._new(request, code, store, **options)
        room.save()
        room._log_created(request)
        return room

    @classmethod
    async def create_async(cls, request: RoomRequest, store: Store, code: str,
                           **options: Any) -> Room:
        """`create` with a code known to be free (`ratscrew.server.ops.shards.new_room_code_async`),
        saved without a round trip on the event loop: saved when this returns."""
        room = cls._new(request, code, store, **options)
        await room.recorder.save_room_async(*room.parts())
        room._log_created(request)
        return room

    @classmethod
    def _new(cls, request: RoomRequest, code: str, store: Store, **options: Any) -> Room:
        """The room a request asks for, not saved yet."""
        seats = [Seat(index) for index in range(request.seats)]
        first_bot = request.seats - len(request.bots)
        for offset, level in enumerate(request.bots):
            seats[first_bot + offset].kind = "bot"
            seats[first_bot + offset].bot = level
        settings = RoomSettings(request.rules, request.seed, request.pace, request.turn_timeout_ms,
                                request.judging, request.time_limit_ms,
                                None if request.password is None else hash_token(request.password))
        room = cls(code, settings, seats, store, **options)
        room.lobby.name_bots()
        return room

    def _log_created(self, request: RoomRequest) -> None:
        log.info("room %s created: %s, %d seats, bots %s, judging %s", self.code,
                 request.rules.name, request.seats, ",".join(request.bots) or "none",
                 request.judging)

    @classmethod
    async def matched(cls, rules: str, players: int, reservations: Sequence[Reservation], store: Store,
                      code: str, *, show_up_s: float,
                      on_no_show: Callable[[list[str], list[str]], None] | None = None,
                      **options: Any) -> Room:
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
        room = cls._new(request, code, store, **options)
        room.members.hostless = True
        room.admission.reserve(reservations)
        room.show_up_by = room.clock.wall() + show_up_s
        room.on_no_show = on_no_show
        await room.recorder.save_room_async(*room.parts())
        log.info("room %s made for %d matched players (%s); they have %g s to come", code,
                 players, rules, show_up_s)
        return room

    def start_when_everyone_came(self) -> None:
        """A matched room's game starts by itself once every reserved player is at the table."""
        if self.phase == "lobby" and self.show_up_by is not None and not self.admission.missing()[0]:
            self.show_up_by = None
            self.start_game()

    def show_up_wait(self) -> float | None:
        """Seconds (of the room's wall clock) until a matched room's players must have come, or
        ``None`` once its game started or it closed."""
        if self.show_up_by is None or self.phase != "lobby":
            return None
        return max(0.0, self.show_up_by - self.clock.wall())

    def _no_show(self) -> None:
        """The matched players did not all come in time: no game, nobody rated, the room's
        connections closed, and `on_no_show` told who was missing."""
        missing, present = self.admission.missing()
        self.show_up_by = None
        self.lobby.phase = "over"
        log.info("room %s: %d of the matched players did not come; closed without a game",
                 self.code, len(missing))
        for conn in list(self.connections):
            conn.send(error_message("room_full", NO_SHOW))
            conn.close(NO_SHOW_WS_CODE, NO_SHOW)
        if self.on_no_show is not None:
            self.on_no_show(missing, present)

    @classmethod
    def restore(cls, row: RoomRow, store: Store, **options: Any) -> Room:
        """A room from the store after a restart; a game that was in progress is rebuilt by
        replaying its stored actions, and goes on from the time of its last action."""
        room = cls._from_row(row, store, **options)
        room.publisher.version = version_after_restart()  # versions never start again
        room._resume_stored_game(room._game_stored_for(row))
        return room

    @classmethod
    def _from_row(cls, row: RoomRow, store: Store, **options: Any) -> Room:
        """The room as stored, its game (if any) not rebuilt yet."""
        room = cls(row.code, RoomSettings.from_json(row.settings), [], store, **options)
        room._take_stored(row)
        return room

    def _take_stored(self, row: RoomRow) -> None:
        """Take the stored room's settings, seats, people and games (its game not rebuilt yet)."""
        seats = [Seat(s.seat, stored_seat_kind(s.kind), s.name, s.bot, s.token_hash, player_id=s.player_id)
                 for s in row.seats]
        self.settings = RoomSettings.from_json(row.settings)
        self.lobby = Lobby(seats, members=_membership(seats, row.host_hash, row.members, row.kicked),
                           phase=stored_phase(row.phase))
        self.games_played = row.games_played
        self.game_id = row.game_id

    def _resume_stored_game(self, stored: StoredGame | None) -> None:
        """Go on with the game the room was playing, as ``stored`` (``None``: none is stored)."""
        if self.phase != "playing" or self.game_id is None:
            return
        if stored is None:
            self.lobby.phase = "over" if self.games_played else "lobby"
            return
        self.clock.restart(float(stored.game.now))
        self._begin(stored.game, stored.judged)

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
        self._new_game_parts()  # the game, its table and agents, the tally: let go

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
            self.table.replace_agent(index, self._bot_agent(index, DEFAULT_BOT))
            self.tick()
        else:
            seat.kind, seat.name = "open", None

    def seat_the_waiting(self) -> None:
        """Outside a game, the people who wait sit down (`Lobby.seat_the_waiting`)."""
        for seat in self.lobby.seat_the_waiting():
            log.info("room %s: %s takes seat %d", self.code, seat.name, seat.index)

    # ------------------------------------------------------------------ games

    def start_game(self) -> None:
        """Deal a new game and seat everyone at its table (open seats get bots)."""
        self.lobby.fill_open_seats()
        rules = self.settings.rules
        if self.settings.seed is not None and self.games_played == 0:
            seed = self.settings.seed  # the creator's chosen deal: a seeded room is never rated
        else:
            seed = secrets.randbits(62)  # never derived from a seed a public record shows
        game = self.deal(rules, len(self.seats), seed)
        self.games_played += 1
        self.clock.restart(0.0)
        self.game_id = self.recorder.start_game(self.games_played, game,
                                                [s.name for s in self.seats], self.room_info())
        self._begin(game)
        log.info("room %s: game %d started (%s, seed %d, game id %d)", self.code,
                 self.games_played, rules.name, seed, self.game_id)

    def room_info(self) -> dict[str, Any]:
        return {"code": self.code, "judging": self.settings.judging,
                "time_limit_ms": self.settings.time_limit_ms,
                "seats": [{"kind": s.kind, "bot": s.bot} for s in self.seats]}

    def _begin(self, game: Game, judged: Sequence[dict[str, Any]] = ()) -> None:
        """Seat everyone at a table for ``game`` and start showing it."""
        self.game_names = self.lobby.names()
        self._game_tokens = [seat.token_hash if seat.kind == "human" else None for seat in self.seats]
        self.recorder.begin(game, len(judged))
        self._tracked_actions = game.action_count
        self._shown_pile = [str(card) for card in game.live_pile]
        self.tally = ContestTally(len(self.seats))
        self.game_finished = False
        self.publisher.start_game(self.games_played)
        self.lobby.phase = "playing"
        self.save()
        agents = [self._bot_agent(seat.index, seat.bot or DEFAULT_BOT, game) if seat.kind == "bot"
                  else Shown(RemoteSeat(self.settings.turn_timeout_ms), self.clock.now)
                  for seat in self.seats]
        table = self.driver.begin(game, agents, judged, self._on_events, self._on_rejected)
        self._watch_absence(game, judged)
        table.add_action_listener(self._on_action)
        self._publish([])
        self.publisher.card_version = self.version
        self.broadcast_room()
        self._start_driving()

    def _bot_agent(self, seat: int, level: str, game: Game | None = None) -> Shown:
        game = game or self.game
        assert game is not None
        if is_agent_spec(level):  # a saved agent, held to its human reaction profile
            from ratscrew.rl.agents import agent_from_spec, table_agent

            agent = table_agent(agent_from_spec(level), self.settings.rules, len(self.seats),
                                game_seed(game.seed, seat))
            return Shown(agent, self.clock.now)
        profile = paced(LEVELS[level], PACE_FACTORS[self.settings.pace])
        return Shown(BotAgent(profile, seed=game_seed(game.seed, seat)), self.clock.now)

    def _start_driving(self) -> None:
        if self.drive:
            self.driver.start(self._step, self.next_wake, self.pause_for_store, self._fail,
                              name=f"room {self.code}")

    def start_driving(self) -> None:
        """Start the task that moves a restored game on (called once the loop runs)."""
        if self.phase == "playing":
            self._start_driving()

    async def stop(self) -> None:
        """Stop moving the game (server shutdown) and store what it took."""
        await self.driver.stop()
        await self.writer.drain()

    def _step(self) -> bool:
        """The driver's task: move the game on; whether there is more to drive."""
        if self.phase != "playing" or self.paused is not None:
            return False
        self.tick()
        return self.phase == "playing" and self.paused is None

    def _write_lost(self, error: Exception) -> None:
        """A write that went through the writer failed: nothing held behind it was sent."""
        if isinstance(error, StoreUnavailable):
            self.pause_for_store()
        else:
            log.error("room %s: a write to the store failed", self.code, exc_info=error)
            self.driver.cancel()
            self._fail()

    def _fail(self) -> None:
        log.error("room %s: the game is stopped after an error", self.code)
        self.lobby.phase = "over"
        self._broadcast(error_message("server", "the server hit an error and stopped this game"))

    # ------------------------------------------------------------------ the store lost and back

    def pause_for_store(self) -> None:
        """The store failed: take no more actions and tell everyone. What the engine took since
        the last stored step was never shown (persist before publish), and is dropped when
        :meth:`reload` rebuilds the room from the store."""
        self.outbox.drop()  # what waited for the lost write is never sent
        dropped = self.outbox.take_dropped_states()
        if dropped:  # ... nor redrawn from the history (a page would show a move never made)
            self.publisher.history.forget_from(dropped[0])
        if self.paused is None:
            self.paused = ("the server lost its database: the game is paused, and nothing you do "
                           "counts until it is back")
            log.warning("room %s: paused, its store is unavailable", self.code)
            TALLY.room_pauses += 1
            self._broadcast(error_message("unavailable", self.paused))
        self.driver.cancel()

    def read_stored(self) -> StoredRoom:
        """What the store holds of this room: its row and the game it was playing, rebuilt.
        Only reads (`StoreUnavailable` if the store failed again), so the server may make it in
        a worker thread while the room stays paused (`ratscrew.server.room.outage`)."""
        row = self.store.load_room(self.code)
        return StoredRoom(row, None if row is None else self._game_stored_for(row))

    def _game_stored_for(self, row: RoomRow) -> StoredGame | None:
        """The game ``row`` says the room was playing, rebuilt from the store (reads only)."""
        if row.game_id is None or stored_phase(row.phase) != "playing":
            return None
        return self.recorder.stored_game(row.game_id)

    def reload(self, stored: StoredRoom | None = None) -> None:
        """The store is back: rebuild the room from what it holds (``stored``: read already by
        `read_stored`, else read now), as a restart would (a game in progress resumes at its
        last stored action), keep the people connected to it, and show everyone where the game
        stands. `StoreUnavailable` if the store failed again."""
        stored = stored or self.read_stored()
        row = stored.row
        if row is None:  # never stored: the room was being created when the store went away
            for conn in list(self.connections):
                conn.close(4404, "this room was lost with the database")
                self.left(conn, self.members.release(conn))
            return
        # Start again from the stored room, in place, keeping what the people connected to it
        # know: the connections, the versions they have seen, the clock their sends are
        # stamped with, the history (all in the publisher), and the room's own wiring (its
        # code, store, clock, deal, the lab it asks for expected lengths).
        connections = dict(self.connections)
        self._take_stored(row)
        self._new_game_parts()
        self._resume_stored_game(stored.game)
        self.admission.readmit(connections)
        log.info("room %s: the store is back; resumed", self.code)
        resumed: NoticeMessage = {"type": "notice", "code": "resumed", "message": "the database "
                                  "is back: the game goes on from its last stored move"}
        self._broadcast(resumed)
        self.broadcast_room()
        if self.game is not None:
            self._publish([])
        if self.phase == "over" and self.publisher.game_over is not None:
            self._broadcast(self.publisher.game_over)
        self.start_driving()

    # ------------------------------------------------------------------ judging and the engine

    def tick(self) -> None:
        """Move the game up to the horizon (:meth:`GameDriver.feed`), then store what it took,
        close the contests that are due and, at the end, finish the game."""
        wait = self.show_up_wait()
        if wait is not None:
            if wait <= 0.0:
                self._no_show()
            return
        game = self.game
        if game is None or self.phase != "playing":
            return
        if self._absence_due():
            return  # the game was abandoned
        self.driver.feed(self._time_limit_at())
        self._track_slaps([])  # slaps the engine took silently (held in a tie window)
        self.save_step()
        due = self.tally.due_at()
        if due is not None and (game.over or self.horizon >= due):
            self.tally.close()
        self.send_judgements()
        if game.over and not self.game_finished:
            ending.finish(self)

    def next_wake(self) -> float | None:
        """The room time at which :meth:`tick` next has something to do, if anything."""
        wait = self.show_up_wait()
        if wait is not None:  # wall seconds to room ms, rounded up to the next ms
            return math.ceil(self.clock.now() + wait * 1000.0)
        if self.phase != "playing":
            return None
        due = [at for at in (self.tally.due_at(), self._time_limit_at()) if at is not None]
        wake = self.driver.next_due(min(due) if due else None)
        absence = self.absence.next_at()
        if absence is not None:  # wall seconds to room ms, rounded up to the next ms
            at = self.clock.now() + max(0.0, absence - self.clock.wall()) * 1000.0
            wake = math.ceil(at) if wake is None else min(wake, math.ceil(at))
        return wake

    def _time_limit_at(self) -> float | None:
        """The table time at which the game's time limit runs out, if it has one."""
        return float(self.settings.time_limit_ms) if self.settings.time_limit_ms else None

    def save_step(self) -> None:
        if self.game is not None and self.game_id is not None:
            self.recorder.save_step(self.game_id, self.game, self.driver.judged)

    def _on_rejected(self, rejection: Rejection) -> None:
        if rejection.intent.note != SUBMITTED:
            return  # a stand-in's planned action: nobody to tell
        conn = self.seats[rejection.seat].conn
        if conn is not None and self.game is not None:  # in words, with names, not seat indices
            message = refusal_text(rejection, self.game_names[rejection.seat], self.game.observe(None),
                                   self.game_names)
            conn.send(error_message("illegal", message))

    def _on_events(self, events: Sequence[Event]) -> None:
        """After every step the engine accepted: store it, then show it."""
        self.save_step()
        self._track_slaps(events)
        self._publish(events)
        assert self.game is not None
        self._shown_pile = [str(card) for card in self.game.live_pile]

    def _publish(self, events: Sequence[Event]) -> None:
        assert self.game is not None
        self.publisher.publish(self.game, self.games_played, events, self.game_names, self.settle_ms,
                               [(conn, self._seat_in_game(member))
                                for conn, member in self.connections.items()],
                               self._reaction_ms)

    def _seat_in_game(self, member: Member) -> int | None:
        """The seat whose view of the current (or last) game ``member`` gets: their seat while a
        game is played; after it, the seat they had in it (``None``, a spectator's view, for
        someone who sat down since: seats added, moved or taken in the lobby count from the
        next game on)."""
        if self.phase == "playing":
            return member.seat
        if member.token_hash is None or member.seat is None:
            return None
        return next((index for index, token_hash in enumerate(self._game_tokens)
                     if token_hash == member.token_hash), None)

    def send_current_state(self, conn: Connection) -> None:
        if self.game is None or self.phase == "lobby":
            return
        self.publisher.send_current(conn, self._seat_in_game(self.connections[conn]), self.game,
                                    self.games_played,
                                    self.settle_ms, self.phase == "over")

    def _reaction_ms(self, seat: int, at: int) -> int | None:
        """``at`` minus when the pile's top card was shown to ``seat``."""
        shown = None
        card_version = self.publisher.card_version
        conn = self.seats[seat].conn if seat < len(self.seats) else None
        if conn is not None:
            shown = conn.shown_at(card_version)
        if shown is None:
            shown = self.publisher.shown_at(card_version)
        return None if shown is None else round(at - shown)

    def _pile_reaction_ms(self, seat: int, at: float) -> float | None:
        """``at`` minus when the pile's top card was sent to ``seat``'s own connection (``None``
        if it was not: the seat could not have seen it); what the integrity review counts."""
        conn = self.seats[seat].conn if seat < len(self.seats) else None
        shown = None if conn is None else conn.shown_at(self.publisher.card_version)
        return None if shown is None else at - shown

    # ------------------------------------------------------------------ contested slaps

    def _track_slaps(self, events: Sequence[Event]) -> None:
        """Hand the tally every slap action the engine accepted since the last call and the
        step's events (``events``), then send the judgements of the contests that closed."""
        game = self.game
        assert game is not None
        actions = game.actions_since(self._tracked_actions)
        self._tracked_actions += len(actions)
        # Slaps never play a card, so every slap here came before any card this step played.
        cards_before = game.cards_played - sum(isinstance(e, CardPlayed) for e in events)
        for kind, seat, at in actions:
            if kind == "slap" and seat is not None:
                # the pile the slap was made on: the step being tracked may have taken it
                self.tally.slap(cards_before, seat, at, self._shown_pile, self._reaction_ms(seat, at),
                                self.driver.slap_link_ms(seat, at))
        self.tally.events(events, self._reaction_ms)
        self.send_judgements()

    def send_judgements(self) -> None:
        """A ``judgement`` for each contested slap the tally closed, kept in the history."""
        for contest in self.tally.take_closed():
            self.publisher.judgement(contest, self.games_played, self.game_names, self.connections)

    # ------------------------------------------------------------------ people away (issue 26)

    def _watch_absence(self, game: Game, judged: Sequence[dict[str, Any]]) -> None:
        """A game starts or resumes: the people not connected now are gone from now on (after a
        restart, nobody is yet), and each seat's actions are counted from here."""
        people = [index for index, token_hash in enumerate(self._game_tokens) if token_hash is not None]
        present = [seat.index for seat in self.seats if seat.kind == "human" and seat.conn is not None]
        for seat in self.seats:
            seat.stand_in = None
        self.absence.begin(people, present, self.clock.wall())
        self.play_count = PlayCount(people, len(self.seats))
        if game.action_count:
            self.play_count.resumed(game.actions_since(0), judged)

    def _on_action(self, seat: int, intent: Intent) -> None:
        self.play_count.acted(seat, intent, self.absence.stand_ins)

    def present(self, seat: Seat) -> None:
        """The person in ``seat`` is connected again: a stand-in gives the seat back."""
        if self.phase != "playing" or seat.stand_in is None or self.table is None:
            return
        seat.stand_in = None
        self.table.replace_agent(seat.index, Shown(RemoteSeat(self.settings.turn_timeout_ms),
                                                   self.clock.now))
        name = self.game_names[seat.index]
        log.info("room %s: %s is back in seat %d", self.code, name, seat.index)
        self.announce("seat_back", f"{name} is back and plays again")

    def _absence_due(self) -> bool:
        """Seat a stand-in bot for each person gone long enough; end the game as abandoned when
        every person has been gone too long. Whether it was abandoned."""
        table = self.table
        newly, abandoned = self.absence.due(self.clock.wall())
        if abandoned:
            ending.abandon(self)
            return True
        for index in newly:
            assert table is not None
            self.seats[index].stand_in = STAND_IN_BOT
            table.replace_agent(index, self._bot_agent(index, STAND_IN_BOT))
            name = self.game_names[index]
            log.info("room %s: %s is away; a %s bot plays seat %d", self.code, name, STAND_IN_BOT, index)
            self.announce("seat_away", f"{name} is away: a bot plays for {name} until they come back")
        if newly:
            self.broadcast_room()
        return False

    def announce(self, kind: NoteKind, line: str) -> None:
        """A line in everyone's log, of the given kind (a step of its own, kept in the history)."""
        if self.game is not None:
            self.publisher.publish(self.game, self.games_played, [], self.game_names, self.settle_ms,
                                   [(conn, self._seat_in_game(member))
                                    for conn, member in self.connections.items()],
                                   self._reaction_ms, notes=[(kind, line)])

    # ------------------------------------------------------------------ room messages

    def summary(self, member: Member | None = None) -> RoomMessage:
        """The ``room`` message (see docs/protocol.md); ``you`` only with a member."""
        message = self._public_summary()
        if member is not None:
            own = self.lobby.for_member(message, member)
            message = {**message, "seats": own["seats"], "waiting": own["waiting"], "you": own["you"]}
        return message

    def _public_summary(self) -> RoomMessage:
        rules = self.settings.rules
        people = self.lobby.people()
        return {
            "type": "room", "code": self.code, "phase": self.lobby.phase,
            "rules": rules_entry(rules),  # made once per ruleset (roomrules.py)
            "settings": {"seats": len(self.seats), "pace": self.settings.pace,
                         "turn_timeout_ms": self.settings.turn_timeout_ms,
                         "judging": self.settings.judging, "seeded": self.settings.seed is not None,
                         "time_limit_ms": self.settings.time_limit_ms},
            "seats": self.lobby.seat_entries(),
            "spectators": people["spectators"], "waiting": people["waiting"],
            "open_seats": people["open_seats"],
            "games_played": self.games_played, "game_id": self.game_id,
            "settle_ms": round(self.settle_ms),
            "expected_length": self._expected_length(),
        }

    def _expected_length(self) -> ExpectedLength | None:
        """The median and 90th percentile minutes of a game under the room's rules, seats and
        bots (simulated by the lab's worker), or ``None`` while that is computed."""
        if self.expected_lengths is None:
            return None
        known = self.expected_lengths.expected_length(
            self.settings.rules, [seat.bot if seat.kind == "bot" and not is_agent_spec(seat.bot or "")
                                  else None for seat in self.seats],  # an agent: as a casual bot
            on_ready=self.broadcast_room, address=self.estimates_for)
        return None if known is None else {"median_minutes": known["median_minutes"],
                                           "p90_minutes": known["p90_minutes"]}

    def broadcast_room(self) -> None:
        """The room to everyone: a whole ``room`` message, or to those for whom only the people
        changed a small ``lobby_change`` (`Lobby.room_messages`, issue 47 item 3)."""
        public = self._public_summary()
        self._shown_links = self._link_figures()
        shared = {key: value for key, value in public.items() if key not in ("seats", "waiting")}
        whole, changed = self.lobby.room_messages(public, self.clock.wall() * 1000.0)
        if whole:  # (the shared part is encoded only for someone)
            self.publisher.room(shared, whole)
        encoded: dict[int, str] = {}  # one encoding of the change everyone else gets
        for conn, change in changed:
            if id(change) not in encoded:
                encoded[id(change)] = encode_message(change)
            conn.send_encoded(encoded[id(change)])

    def maybe_update_room(self) -> None:
        """After a pong: a ``room`` message, if the last went out long enough ago and a seat's
        ping or the settling window has since moved enough to notice (`link.noticeably_changed`).
        A steady link costs its room no message (in a 500-room load profile, ``room`` messages
        sent after pongs took 5.8% of the server's samples, most showing the same figures give
        or take a millisecond). Also the people's changes held back by `PEOPLE_GAP_MS`, once it
        is over."""
        if self.lobby.shown.due(self.clock.wall() * 1000.0) or (  # people told of together
                self.publisher.room_update_due()
                and noticeably_changed(self._shown_links, self._link_figures())):
            self.broadcast_room()

    def _link_figures(self) -> list[int | None]:
        """The seats' pings and the settling window as a ``room`` message shows them now."""
        return [*(seat.shown_ping for seat in self.seats), round(self.settle_ms)]

    def _broadcast(self, message: ServerMessage) -> None:
        self.publisher.broadcast(message, self.connections)


if TYPE_CHECKING:  # the parts' views of the room are the room (checked here, not at each call)
    def _parts_see_a_room(room: Room) -> tuple[RoutedRoom, AdmittingRoom, ending.EndingRoom]:
        return room, room, room
