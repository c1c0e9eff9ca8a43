"""A room: one invite code, its seats and settings, the people connected to it, and the game
played in it. The room is the only writer of its game.

How a game runs. The room seats a `ratscrew.runtime.Table` on a virtual clock that the room
moves itself: bots (`ratscrew.bots.BotAgent`) and the stand-ins of people
(`ratscrew.server.agents.RemoteSeat`) sit at it, each wrapped in
`ratscrew.server.agents.Shown` so it sees every state when the room shows it. A person's
action comes in as a message; :meth:`Room.handle` judges at what table time it happened
(:func:`ratscrew.server.judging.judge_action`) and queues it. :meth:`Room.tick` is the one place
that feeds the engine: it hands queued actions to the table in table-time order, together with
the bots' intents and the engine's timers, up to the *horizon*, the wall clock minus the settling
window (:func:`ratscrew.server.judging.settle_window_ms`). Under ``first-packet`` judging the
window is 0 and every action is judged at its arrival.

After each step the engine accepted, the room first appends the new actions to the store, then
sends every connection its own view: ``game.observe(seat)`` for a seat, ``observe(None)`` for a
spectator, the step's events and the words for them. Nothing else about the game leaves the room.

Times. *Room time* is milliseconds on the room's clock (:class:`RoomClock`), which restarts at 0
when a game starts, so the engine's times in a record count from the start of the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import heapq
import hmac
import logging
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ratscrew.bots.agent import BotAgent
from ratscrew.bots.profile import LEVELS, paced
from ratscrew.cards import format_cards
from ratscrew.engine import RECORD_FORMAT, RECORD_VERSION, Game
from ratscrew.events import (
    CardPlayed,
    Event,
    SlapWon,
)
from ratscrew.narrate import describe_event
from ratscrew.rulebook import explain, pattern_examples
from ratscrew.ruleset import PRESET_NAMES, Ruleset
from ratscrew.runtime import SUBMITTED, Rejection, Table
from ratscrew.server import players, ratings  # issue 17: player keys and ratings
from ratscrew.server.agents import RemoteSeat, Shown
from ratscrew.server.history import History
from ratscrew.server.judging import Verdict, allowance_ms, judge_action, settle_window_ms
from ratscrew.server.link import Pinger
from ratscrew.server.protocol import (
    PACE_FACTORS,
    PROTOCOL_VERSION,
    Act,
    ClientMessage,
    Configure,
    HistoryRequest,
    Join,
    Judging,
    Kick,
    MoveSeat,
    Pace,
    Pong,
    ProtocolError,
    Ready,
    Rematch,
    RoomRequest,
    SetSeat,
    Stand,
    Start,
    Watch,
    encode_message,
    load_rules,
)
from ratscrew.server.store import RoomRow, SeatResult, SeatRow, Store, StoreUnavailable
from ratscrew.server.tally import ContestTally, judgement_slaps, judgement_text
from ratscrew.sim.summary import game_seed

log = logging.getLogger("ratscrew.server")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Room codes use letters and digits that cannot be mistaken for one another (no I, O, 0, 1)."""
CODE_LENGTH = 6
"""32**6, about a billion codes: with join limits per address, too many to guess."""
DEFAULT_BOT = "casual"
"""The level of the bots that fill open seats at the start, or take over a kicked player."""
SHOWN_VERSIONS = 64
"""How many recent states a connection remembers the send time of (for judging reactions)."""
ROOM_UPDATE_GAP_MS = 5000
"""The least time between two ``room`` messages sent only because a ping changed (a room
message carries the rules and is the largest the room sends: at one a second it was a fifth of
a loaded server's work)."""


def _deal(rules: Ruleset, players: int, seed: int) -> Game:
    return Game.deal(rules, players=players, seed=seed)


def _encode(message: dict[str, Any]) -> str:
    """Compact JSON text, as every message goes on the wire."""
    return encode_message(message)


def new_code() -> str:
    """A fresh random room code.

    >>> len(new_code()) == CODE_LENGTH and set(new_code()) <= set(CODE_ALPHABET)
    True
    """
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def hash_token(token: str) -> str:
    """What the server keeps of a token: its SHA-256, so a stolen database holds no tokens."""
    return hashlib.sha256(token.encode()).hexdigest()


class Connection(Protocol):
    """One client connection, as the room sees it (the websocket side lives in the app)."""

    address: str
    pinger: Pinger

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message; never blocks (a connection that cannot keep up is closed)."""

    def send_state(self, version: int, encoded: str) -> None:
        """Queue state ``version``, already encoded as a JSON object (the same text goes to
        everyone in its audience); the connection adds ``sent_at`` when it goes out."""

    def send_encoded(self, encoded: str) -> None:
        """Queue a message already encoded as a JSON object."""

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Close the connection."""

    def shown_at(self, version: int) -> float | None:
        """The room time at which state ``version`` was sent on this connection, if recent."""


class RoomClock:
    """Room time in ms from the wall clock; :meth:`restart` puts it back to a given time.

    >>> clock = RoomClock(wall=lambda: 10.0)
    >>> clock.now()
    0.0
    """

    def __init__(self, wall: Callable[[], float] = time.monotonic) -> None:
        self._wall = wall
        self._base_wall = wall()
        self._base_ms = 0.0

    def now(self) -> float:
        """The current room time in ms, to the microsecond (so that a wake-up set for a time
        is never missed by a rounding error in the wall clock's seconds)."""
        return round(self._base_ms + (self._wall() - self._base_wall) * 1000.0, 3)

    def restart(self, at_ms: float = 0.0) -> None:
        """From now on, room time counts from ``at_ms``."""
        self._base_wall = self._wall()
        self._base_ms = at_ms


@dataclass
class Seat:
    """One seat: ``open`` (waiting for a person), ``human`` or ``bot``."""

    index: int
    kind: str = "open"
    name: str | None = None
    bot: str | None = None
    token_hash: str | None = None
    ready: bool = False
    conn: Connection | None = None
    player_id: str | None = None
    """The keyed player sitting here (only meant while ``kind`` is ``human``)."""

    def row(self) -> SeatRow:
        """What the store keeps of the seat."""
        return SeatRow(self.index, self.kind, self.name, self.bot, self.token_hash,
                       self.player_id if self.kind == "human" else None)


@dataclass
class Member:
    """Who a connection is: a seat (or ``None``), and the token hash it holds (``None`` for
    someone who only watches)."""

    seat: int | None
    token_hash: str | None
    name: str | None
    player_id: str | None = None


@dataclass
class RoomSettings:
    """What the host can change."""

    rules: Ruleset
    seed: int | None = None
    pace: Pace = "normal"
    turn_timeout_ms: int = 5000
    judging: Judging = "fair"

    def to_json(self) -> dict[str, Any]:
        """JSON-able, for the store."""
        return {"rules": self.rules.to_toml(), "seed": self.seed, "pace": self.pace,
                "turn_timeout_ms": self.turn_timeout_ms, "judging": self.judging}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoomSettings:
        """Back from :meth:`to_json`."""
        return cls(rules=Ruleset.from_toml(data["rules"]), seed=data.get("seed"),
                   pace=data.get("pace", "normal"),
                   turn_timeout_ms=int(data.get("turn_timeout_ms", 5000)),
                   judging=data.get("judging", "fair"))


@dataclass(order=True)
class PendingAction:
    """A person's action waiting in the settling window, ordered by its table time."""

    judged_at: float
    seq: int
    seat: int = field(compare=False)
    kind: str = field(compare=False)
    arrived_at: float = field(compare=False)
    version: int | None = field(compare=False)
    verdict: Verdict = field(compare=False)




class Room:
    """One room (see the module docstring). ``drive=False`` leaves moving the game to whoever
    calls :meth:`tick` (tests with a fake clock); otherwise a task does it while a game runs."""

    def __init__(self, code: str, settings: RoomSettings, seats: list[Seat], store: Store, *,
                 wall: Callable[[], float] = time.monotonic, drive: bool = True,
                 host_hash: str | None = None, phase: str = "lobby", games_played: int = 0,
                 members: dict[str, str] | None = None, kicked: Iterable[str] = (),
                 deal: Callable[[Ruleset, int, int], Game] | None = None) -> None:
        self.code = code
        self.settings = settings
        self.seats = seats
        self.store = store
        self.clock = RoomClock(wall)
        self.drive = drive
        self.host_hash = host_hash
        self.phase = phase
        self.games_played = games_played
        self.known_members: dict[str, str] = dict(members or {})  # token hash -> name
        self.kicked: set[str] = set(kicked)
        self.deal = deal or _deal
        """How a game is dealt from (rules, seats, seed): ``Game.deal``, or a fixed deal in tests."""
        self.connections: dict[Connection, Member] = {}
        self.game: Game | None = None
        self.table: Table | None = None
        self.game_id: int | None = None
        self.version = 0
        self._shown: dict[int, float] = {}  # version -> room time the room sent it
        self._pending: list[PendingAction] = []
        self._seq = 0
        self._horizon = 0.0
        self._saved_actions = 0
        self._tracked_actions = 0
        self._judged: list[dict[str, Any]] = []
        self._saved_judged = 0
        self._links: dict[tuple[int, int], int] = {}  # (seat, judged at) -> link ms of a slap
        self._card_version = 0
        self._shown_pile: list[str] = []  # the live pile as of the last step shown
        self.tally = ContestTally(0)
        """The slaps on each pile state, the judgements, every seat's figures (one per game)."""
        self._names: list[str] = []
        self._last_room_update = -1e18
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._finished = False
        self._game_over: dict[str, Any] | None = None  # the last game's end, for pages joining later
        self.paused: str | None = None
        """Why the room takes no actions now (its store is unavailable), or ``None``."""
        self.waiting: list[str] = []
        """Token hashes of people waiting to be dealt into the next game, first come first."""
        self.history = History()
        self.player_ids: dict[str, str] = {}
        """Token hash -> public id of the keyed people who joined (issue 17)."""

    # ------------------------------------------------------------------ creation

    @classmethod
    def create(cls, request: RoomRequest, store: Store, code: str | None = None,
               **options: Any) -> Room:
        """A new room from a validated ``POST /api/rooms`` body, saved to the store."""
        while code is None or store.room_exists(code):
            code = new_code()
        seats = [Seat(index) for index in range(request.seats)]
        first_bot = request.seats - len(request.bots)
        for offset, level in enumerate(request.bots):
            seats[first_bot + offset].kind = "bot"
            seats[first_bot + offset].bot = level
        settings = RoomSettings(request.rules, request.seed, request.pace, request.turn_timeout_ms,
                                request.judging)
        room = cls(code, settings, seats, store, **options)
        room._name_bots()
        room.save()
        log.info("room %s created: %s, %d seats, bots %s, judging %s", code, request.rules.name,
                 request.seats, ",".join(request.bots) or "none", request.judging)
        return room

    @classmethod
    def restore(cls, row: RoomRow, store: Store, **options: Any) -> Room:
        """A room from the store after a restart; a game that was in progress is rebuilt by
        replaying its stored actions, and goes on from the time of its last action."""
        room = cls._from_row(row, store, **options)
        room._resume_stored_game()
        return room

    @classmethod
    def _from_row(cls, row: RoomRow, store: Store, **options: Any) -> Room:
        """The room as stored, its game (if any) not rebuilt yet."""
        seats = [Seat(s.seat, s.kind, s.name, s.bot, s.token_hash, player_id=s.player_id)
                 for s in row.seats]
        room = cls(row.code, RoomSettings.from_json(row.settings), seats, store,
                   host_hash=row.host_hash, phase=row.phase, games_played=row.games_played,
                   members=row.members, kicked=row.kicked, **options)
        room.game_id = row.game_id
        room.player_ids = {s.token_hash: s.player_id for s in row.seats  # issue 17
                           if s.token_hash is not None and s.player_id is not None}
        return room

    def _resume_stored_game(self) -> None:
        if self.phase == "playing" and self.game_id is not None:
            self._resume_game(self.game_id)

    def save(self) -> None:
        """Write the room's settings and seats to the store."""
        self.store.save_room(self.code, self.settings.to_json(), self.host_hash, self.phase,
                             self.games_played, self.game_id, [seat.row() for seat in self.seats])

    # ------------------------------------------------------------------ connections

    def connect(self, conn: Connection) -> None:
        """A new connection: it is nobody until it sends ``join`` or ``watch``."""

    def disconnect(self, conn: Connection) -> None:
        """A connection went away; its seat stays its player's."""
        member = self.connections.pop(conn, None)
        if member is None:
            return
        if member.seat is not None and self.seats[member.seat].conn is conn:
            self.seats[member.seat].conn = None
            self.seats[member.seat].ready = False
            self._broadcast_room()

    def handle(self, conn: Connection, message: ClientMessage) -> None:
        """Take one validated message; a refusal is a `ProtocolError` (nothing changed)."""
        if isinstance(message, Pong):
            if conn.pinger.pong(message.id, time.monotonic() * 1000.0) is not None:
                self._maybe_update_room()
            return
        if self.paused is not None:
            raise ProtocolError("unavailable", self.paused)
        if isinstance(message, Join):
            self._join(conn, message)
        elif isinstance(message, Watch):
            self._watch(conn)
        else:
            member = self.connections.get(conn)
            if member is None:
                raise ProtocolError("not_seated", "send join or watch first")
            if isinstance(message, Act):
                self._act(conn, member, message)
            elif isinstance(message, HistoryRequest):
                conn.send(self.history.message(message.since))
            elif isinstance(message, Ready):
                seat = self._own_seat(member, "ready")
                seat.ready = message.ready
                self._broadcast_room()
            elif isinstance(message, Stand):
                self._stand(conn, member)
            else:
                self._host_command(member, message)

    def _join(self, conn: Connection, message: Join) -> None:
        known = self.connections.get(conn)
        if known is not None and self._status(known) != "watching":
            raise ProtocolError("wrong_phase", "this connection has already joined")
        player_id = players.enter(self.store, message.player_key, message.name)  # issue 17
        if message.token is None and known is not None and known.token_hash is not None:
            # someone who stood up to watch sits down again as themselves (the host stays host)
            self.connections.pop(conn)
            self._note_player(known.token_hash, player_id)  # issue 17
            seat = self._seat_person(known.token_hash, message.name, conn)
            self.known_members[known.token_hash] = message.name
            self.save()
            self._welcome(conn, Member(None if seat is None else seat.index, known.token_hash,
                                       message.name, self.player_ids.get(known.token_hash)), None)
            return
        if message.token is not None:
            token_hash = hash_token(message.token)
            if token_hash in self.kicked:
                raise ProtocolError("bad_token", "the host removed this player from the room")
            seat = self._seat_of(token_hash)
            if seat is None and not any(hmac.compare_digest(token_hash, known)
                                        for known in self.known_members):
                raise ProtocolError("bad_token", "that token is not from this room; join without it")
            token = message.token
            self._note_player(token_hash, player_id)  # issue 17
            if seat is not None:
                if seat.conn is not None and seat.conn is not conn:
                    old = seat.conn
                    self.connections.pop(old, None)
                    old.send({"type": "replaced", "message": "this seat was taken over by a "
                              "newer connection with the same token"})
                    old.close(4001, "replaced")
                seat.conn = conn
                seat.name = message.name
                seat.player_id = self.player_ids.get(token_hash)  # issue 17
            else:
                self.known_members[token_hash] = message.name
                seat = self._seat_person(token_hash, message.name, conn)
            self.save()
        else:
            token = secrets.token_urlsafe(24)
            token_hash = hash_token(token)
            if self.host_hash is None:
                self.host_hash = token_hash
            self.known_members[token_hash] = message.name
            self._note_player(token_hash, player_id)  # issue 17
            self.store.add_member(self.code, token_hash, message.name)
            seat = self._seat_person(token_hash, message.name, conn)
            self.save()
            log.info("room %s: %s joined %s", self.code, message.name,
                     f"seat {seat.index}" if seat is not None else "and waits for the next game")
        self._welcome(conn, Member(None if seat is None else seat.index, token_hash, message.name,
                                   self.player_ids.get(token_hash)), token)

    def _note_player(self, token_hash: str, player_id: str | None) -> None:
        """Issue 17: the holder of this token plays as ``player_id`` (a keyed join)."""
        if player_id is not None:
            self.player_ids[token_hash] = player_id

    def _welcome(self, conn: Connection, member: Member, token: str | None) -> None:
        """Take ``conn`` in as ``member``: ``welcome`` (the token only to its owner), the room
        for everyone, then the game so far for this page."""
        self.connections[conn] = member
        conn.send({"type": "welcome", "protocol": PROTOCOL_VERSION, "code": self.code,
                   "seat": member.seat, "token": token, "host": self._is_host(member.token_hash),
                   "name": member.name, "status": self._status(member),
                   "player_id": member.player_id})
        self._broadcast_room()
        self._send_current_state(conn)

    def _seat_person(self, token_hash: str, name: str, conn: Connection | None) -> Seat | None:
        """Give a person a seat: outside a game the first open seat, or else the last bot's;
        during a game (or with no such seat) they wait for the next game."""
        seat = None if self.phase == "playing" else self._seat_for_a_person()
        if seat is None:
            if token_hash not in self.waiting:
                self.waiting.append(token_hash)
            return None
        if token_hash in self.waiting:
            self.waiting.remove(token_hash)
        seat.kind, seat.name, seat.bot, seat.token_hash, seat.conn = "human", name, None, token_hash, conn
        seat.ready = False
        seat.player_id = self.player_ids.get(token_hash)  # issue 17
        self._name_bots()
        return seat

    def _seat_for_a_person(self) -> Seat | None:
        """The first open seat, or else the last seat a bot sits in (the bot gives it up)."""
        open_seat = next((s for s in self.seats if s.kind == "open"), None)
        if open_seat is not None:
            return open_seat
        return next((s for s in reversed(self.seats) if s.kind == "bot"), None)

    def _seat_the_waiting(self) -> None:
        """Outside a game, deal the people who wait into open seats, then bots' seats."""
        for token_hash in list(self.waiting):
            conn = next((c for c, m in self.connections.items() if m.token_hash == token_hash), None)
            seat = self._seat_person(token_hash, self.known_members.get(token_hash, "Player"), conn)
            if seat is None:
                break
            if conn is not None:
                self.connections[conn].seat = seat.index
            log.info("room %s: %s takes seat %d", self.code, seat.name, seat.index)

    def _stand(self, conn: Connection, member: Member) -> None:
        if self._status(member) == "watching":
            raise ProtocolError("wrong_phase", "stand: you are already watching")
        if self.phase == "playing" and member.seat is not None:
            raise ProtocolError("wrong_phase", "stand: you cannot leave your seat during a game; resign "
                                "to stop playing")
        if member.seat is not None:
            seat = self.seats[member.seat]
            seat.kind, seat.name, seat.token_hash, seat.conn, seat.ready = "open", None, None, None, False
            if member.token_hash is not None:
                self.known_members[member.token_hash] = member.name or "Player"
        elif member.token_hash in self.waiting:
            self.waiting.remove(member.token_hash)
        self.connections[conn] = Member(None, member.token_hash, member.name)  # still the host if so
        self._seat_the_waiting()
        self.save()
        self._broadcast_room()

    def _status(self, member: Member) -> str:
        """``player``, ``waiting`` (for the next game) or ``watching``."""
        if member.seat is not None:
            return "player"
        if member.token_hash is not None and member.token_hash in self.waiting:
            return "waiting"
        return "watching"

    def _watch(self, conn: Connection) -> None:
        if conn in self.connections:
            raise ProtocolError("wrong_phase", "this connection has already joined")
        self.connections[conn] = Member(None, None, None)
        conn.send({"type": "welcome", "protocol": PROTOCOL_VERSION, "code": self.code,
                   "seat": None, "token": None, "host": False, "name": None, "status": "watching",
                   "player_id": None})
        self._broadcast_room()
        self._send_current_state(conn)

    def _seat_of(self, token_hash: str) -> Seat | None:
        found = None
        for seat in self.seats:  # compare every seat, in constant time each
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, token_hash):
                found = seat
        return found

    def _is_host(self, token_hash: str | None) -> bool:
        return (token_hash is not None and self.host_hash is not None
                and hmac.compare_digest(token_hash, self.host_hash))

    def _own_seat(self, member: Member, what: str) -> Seat:
        if member.seat is None:
            raise ProtocolError("not_seated", f"{what}: only a seated player can do that")
        return self.seats[member.seat]

    # ------------------------------------------------------------------ the host

    def _host_command(self, member: Member, message: ClientMessage) -> None:
        if not self._is_host(member.token_hash):
            raise ProtocolError("not_host", "only the host can do that")
        if isinstance(message, Kick):
            self._kick(member, message.seat)
        elif isinstance(message, Start):
            if self.phase != "lobby":
                raise ProtocolError("wrong_phase", "the game has already started; use rematch after it ends")
            self._fill_or_remove_open_seats(message)
            self._start_game()
        elif isinstance(message, Rematch):
            if self.phase != "over":
                raise ProtocolError("wrong_phase", "a rematch comes after a game has ended")
            self._seat_the_waiting()
            self._start_game()
        elif self.phase == "playing":
            raise ProtocolError("wrong_phase", "settings cannot change during a game")
        elif isinstance(message, Configure):
            self._configure(message)
        elif isinstance(message, SetSeat):
            self._set_seat(message)
        elif isinstance(message, MoveSeat):
            self._move_seat(message)
        self.save()
        self._broadcast_room()

    def _configure(self, message: Configure) -> None:
        rules = self.settings.rules if message.rules is None else load_rules(message.rules)
        seats = len(self.seats) if message.seats is None else message.seats
        if seats > rules.max_players:
            raise ProtocolError("bad_message",
                                f"configure: these rules allow at most {rules.max_players} players")
        dropped = self.seats[seats:]
        if any(seat.kind == "human" for seat in dropped):
            raise ProtocolError("bad_message", "configure: a seat with a person in it cannot be "
                                "removed; kick them first")
        self.settings.rules = rules
        self.seats = self.seats[:seats] + [Seat(i) for i in range(len(self.seats), seats)]
        self._seat_the_waiting()
        if message.pace is not None:
            self.settings.pace = message.pace
        if message.turn_timeout_ms is not None:
            self.settings.turn_timeout_ms = message.turn_timeout_ms
        if message.judging is not None:
            self.settings.judging = message.judging

    def _set_seat(self, message: SetSeat) -> None:
        if message.seat >= len(self.seats):
            raise ProtocolError("bad_message", f"set_seat: there is no seat {message.seat}")
        seat = self.seats[message.seat]
        if seat.kind == "human":
            raise ProtocolError("bad_message", "set_seat: a person sits there; kick them first")
        seat.kind = "open" if message.bot is None else "bot"
        seat.bot = message.bot
        seat.name = None
        self._name_bots()
        if message.bot is None:
            self._seat_the_waiting()

    def _move_seat(self, message: MoveSeat) -> None:
        last = len(self.seats) - 1
        if message.from_seat > last or message.to_seat > last:
            raise ProtocolError("bad_message", f"move_seat: seats are numbered 0 to {last}")
        order = list(self.seats)
        order[message.from_seat], order[message.to_seat] = order[message.to_seat], order[message.from_seat]
        self._renumber(order)

    def _renumber(self, order: list[Seat]) -> None:
        """Seat ``order`` as the room's seats, numbered afresh; connections follow their seats."""
        for index, seat in enumerate(order):
            seat.index = index
            if seat.conn is not None and seat.conn in self.connections:
                self.connections[seat.conn].seat = index
        self.seats = order
        self._name_bots()

    def _fill_or_remove_open_seats(self, message: Start) -> None:
        open_seats = [seat for seat in self.seats if seat.kind == "open"]
        if not open_seats:
            return
        if message.open_seats == "bots":
            for seat in open_seats:
                seat.kind, seat.bot = "bot", message.bot
            self._name_bots()
            return
        left = [seat for seat in self.seats if seat.kind != "open"]
        if len(left) < 2:
            raise ProtocolError("bad_message", "start: a game needs at least two players; fill the "
                                "open seats with bots or wait for a friend")
        self._renumber(left)

    def _kick(self, member: Member, index: int) -> None:
        if index >= len(self.seats) or self.seats[index].kind != "human":
            raise ProtocolError("bad_message", f"kick: no person sits in seat {index}")
        seat = self.seats[index]
        if member.seat == index:
            raise ProtocolError("bad_message", "kick: the host cannot kick themselves")
        assert seat.token_hash is not None
        self.kicked.add(seat.token_hash)
        if seat.token_hash in self.waiting:
            self.waiting.remove(seat.token_hash)
        self.store.add_kicked(self.code, seat.token_hash)
        if seat.conn is not None:
            self.connections[seat.conn] = Member(None, None, None)
            seat.conn.send({"type": "kicked", "message": "the host removed you from the table; "
                            "you are watching now"})
        log.info("room %s: the host removed %s from seat %d", self.code, seat.name, index)
        seat.conn, seat.token_hash, seat.ready = None, None, False
        if self.phase == "playing" and self.table is not None:
            seat.kind, seat.bot, seat.name = "bot", DEFAULT_BOT, None
            self._name_bots()
            self.table.replace_agent(index, self._bot_agent(index, DEFAULT_BOT))
            self.tick()
        else:
            seat.kind, seat.name = "open", None

    def _name_bots(self) -> None:
        counts: dict[str, int] = {}
        for seat in self.seats:
            if seat.kind == "bot" and seat.bot is not None:
                counts[seat.bot] = counts.get(seat.bot, 0) + 1
                number = counts[seat.bot]
                seat.name = f"{seat.bot.capitalize()} bot" + (f" {number}" if number > 1 else "")

    # ------------------------------------------------------------------ games

    def _start_game(self) -> None:
        for seat in self.seats:
            if seat.kind == "open":
                seat.kind, seat.bot = "bot", DEFAULT_BOT
        self._name_bots()
        rules = self.settings.rules
        if self.settings.seed is not None:
            seed = self.settings.seed + self.games_played
        else:
            seed = secrets.randbits(62)
        game = self.deal(rules, len(self.seats), seed)
        self.games_played += 1
        self.clock.restart(0.0)
        self.game_id = self.store.start_game(self.code, self.games_played, rules.name,
                                             self._start_info(game), 0.0)
        self._begin(game)
        log.info("room %s: game %d started (%s, seed %d, game id %d)", self.code,
                 self.games_played, rules.name, seed, self.game_id)

    def _start_info(self, game: Game) -> dict[str, Any]:
        return {"rules": game.rules.to_dict(), "hands": [format_cards(h) for h in game.initial_hands],
                "leader": game.leader, "seed": game.seed, "names": [s.name for s in self.seats],
                "room": self._room_info()}

    def _room_info(self) -> dict[str, Any]:
        return {"code": self.code, "judging": self.settings.judging,
                "seats": [{"kind": s.kind, "bot": s.bot} for s in self.seats]}

    def _begin(self, game: Game, judged: Sequence[dict[str, Any]] = ()) -> None:
        """Seat everyone at a table for ``game`` and start showing it."""
        self.game = game
        self._names = [seat.name or f"Seat {seat.index + 1}" for seat in self.seats]
        agents = [self._bot_agent(seat.index, seat.bot or DEFAULT_BOT) if seat.kind == "bot"
                  else Shown(RemoteSeat(self.settings.turn_timeout_ms), self.clock.now)
                  for seat in self.seats]
        self.table = Table(game, agents, keep_events=False)
        self.table.add_listener(self._on_events)
        self.table.add_rejection_listener(self._on_rejected)
        self._pending = []
        self._horizon = float(game.now)
        self._saved_actions = self._tracked_actions = game.action_count
        self._judged = list(judged)
        self._saved_judged = len(self._judged)
        self._links = {}
        self._shown_pile = [str(card) for card in game.live_pile]
        self.tally = ContestTally(len(self.seats))
        self._finished = False
        self.history.start_game(self.games_played)
        self.phase = "playing"
        self.save()
        self.table.start()
        self._publish([])
        self._card_version = self.version
        self._broadcast_room()
        self._start_driving()

    def _bot_agent(self, seat: int, level: str) -> Shown:
        profile = paced(LEVELS[level], PACE_FACTORS[self.settings.pace])
        assert self.game is not None
        return Shown(BotAgent(profile, seed=game_seed(self.game.seed, seat)), self.clock.now)

    def _resume_game(self, game_id: int) -> None:
        stored = self.store.game_in_progress(game_id)
        if stored is None:
            self.phase = "over" if self.games_played else "lobby"
            return
        start = stored.start
        record = {"format": RECORD_FORMAT, "version": RECORD_VERSION, "rules": start["rules"],
                  "hands": start["hands"], "leader": start["leader"], "seed": start["seed"],
                  "actions": [list(a) for a in stored.actions]}
        game = Game.from_record(record)
        self.clock.restart(float(game.now))
        log.info("room %s: game id %d resumed after %d actions at %d ms", self.code, game_id,
                 len(stored.actions), game.now)
        self._begin(game, stored.judged)

    def _start_driving(self) -> None:
        if not self.drive:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # not in a loop yet: the app starts the drivers of restored rooms
        if self._task is None or self._task.done():
            self._wake = asyncio.Event()
            self._task = loop.create_task(self._run(), name=f"room {self.code}")

    def start_driving(self) -> None:
        """Start the task that moves a restored game on (called once the loop runs)."""
        if self.phase == "playing":
            self._start_driving()

    async def stop(self) -> None:
        """Stop moving the game (server shutdown); everything accepted is already stored."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        wake = self._wake
        assert wake is not None
        while self.phase == "playing" and self.paused is None:
            try:
                self.tick()
            except StoreUnavailable:
                self.pause_for_store()
                return
            except Exception:
                log.exception("room %s: the game loop failed; the game is stopped", self.code)
                self.phase = "over"
                self._broadcast_error("the server hit an error and stopped this game")
                return
            due = self.next_wake()
            timeout = None if due is None else max(0.0, (due - self.clock.now()) / 1000.0)
            wake.clear()
            if timeout == 0.0:
                await asyncio.sleep(0)
                continue
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):  # (no task made per wake-up, as wait_for would)
                    await wake.wait()

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    # ------------------------------------------------------------------ the store lost and back

    def pause_for_store(self) -> None:
        """The store failed: take no more actions and tell everyone. What the engine took since
        the last stored step was never shown (persist before publish), and is dropped when
        :meth:`reload` rebuilds the room from the store."""
        if self.paused is None:
            self.paused = ("the server lost its database: the game is paused, and nothing you do "
                           "counts until it is back")
            log.warning("room %s: paused, its store is unavailable", self.code)
            self._broadcast({"type": "error", "code": "unavailable", "message": self.paused})
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
        self._task = None

    def reload(self) -> None:
        """The store is back: rebuild the room from what it holds, as a restart would (a game
        in progress resumes at its last stored action), keep the people connected to it, and
        show everyone where the game stands. `StoreUnavailable` if the store failed again."""
        row = self.store.load_room(self.code)
        if row is None:  # never stored: the room was being created when the store went away
            for conn in list(self.connections):
                conn.close(4404, "this room was lost with the database")
            self.connections.clear()
            return
        # Start again from the stored room, in place (the table's listeners are this room's
        # bound methods), keeping what the people connected to it know: the connections, the
        # versions they have seen, the clock their sends are stamped with, the history.
        fresh = Room._from_row(row, self.store, wall=self.clock._wall, drive=self.drive,
                               deal=self.deal)
        connections, version, game_over = self.connections, self.version, self._game_over
        clock, history = self.clock, self.history
        self.__dict__.update(fresh.__dict__)
        self.clock, self.version, self.history = clock, version, history
        self._resume_stored_game()
        if self.phase == "over":
            self._game_over = self._game_over or game_over
        self.connections = {}
        for conn, member in connections.items():
            index = member.seat
            seat = self.seats[index] if index is not None and index < len(self.seats) else None
            if seat is not None and seat.token_hash == member.token_hash:
                seat.conn = conn
                self.connections[conn] = member
            else:
                self.connections[conn] = Member(None, member.token_hash, member.name)
        log.info("room %s: the store is back; resumed", self.code)
        self._broadcast({"type": "notice", "code": "resumed",
                         "message": "the database is back: the game goes on from its last stored move"})
        self._broadcast_room()
        if self.game is not None:
            self._publish([])
        if self.phase == "over" and self._game_over is not None:
            self._broadcast(self._game_over)
        self.start_driving()

    # ------------------------------------------------------------------ judging and the engine

    @property
    def settle_ms(self) -> float:
        """How long actions are held before they are handed to the engine, now."""
        links = [seat.conn.pinger.link for seat in self.seats
                 if seat.kind == "human" and seat.conn is not None]
        return settle_window_ms(self.settings.judging, links)

    @property
    def horizon(self) -> float:
        """The latest table time handed to the engine."""
        return self._horizon

    def _advance_horizon(self) -> float:
        self._horizon = max(self._horizon, self.clock.now() - self.settle_ms)
        return self._horizon

    def _act(self, conn: Connection, member: Member, message: Act) -> None:
        seat = self._own_seat(member, message.kind)
        if self.phase != "playing" or self.game is None:
            raise ProtocolError("wrong_phase", f"{message.kind}: no game is being played")
        if seat.conn is not conn:
            raise ProtocolError("not_seated", "this connection no longer holds the seat")
        arrived = self.clock.now()
        shown = None if message.version is None else conn.shown_at(message.version)
        link = conn.pinger.link
        verdict = judge_action(self.settings.judging, arrived_at=arrived, shown_at=shown,
                               reaction_ms=message.reaction_ms, rtt_ms=link.rtt_ms,
                               allowance_ms=allowance_ms(link), horizon=self._advance_horizon())
        self._seq += 1
        heapq.heappush(self._pending, PendingAction(verdict.judged_at, self._seq, seat.index,
                                                    message.kind, arrived, message.version, verdict))
        self.tick()
        self._poke()

    def tick(self) -> None:
        """Hand the engine everything due up to the horizon, in table-time order: queued
        actions of people, bots' intents and the engine's timers. The one place that feeds the
        engine."""
        table, game = self.table, self.game
        if table is None or game is None or self.phase != "playing":
            return
        horizon = self._advance_horizon()
        while self._pending and self._pending[0].judged_at <= horizon and not game.over:
            self._commit(heapq.heappop(self._pending))
        if not game.over:
            table.fire_due(horizon)
        self._track_slaps([])  # slaps the engine took silently (held in a tie window)
        self._save_new_actions()
        due = self.tally.due_at()
        if due is not None and (game.over or horizon >= due):
            self.tally.close()
        self._send_judgements()
        if game.over and not self._finished:
            self._finish()

    def _commit(self, action: PendingAction) -> None:
        assert self.table is not None and self.game is not None
        if action.kind == "slap":
            self._links[(action.seat, int(action.judged_at))] = round(action.verdict.link_ms)
        before = self.game.action_count
        self.table.submit(action.seat, action.kind, at=action.judged_at)  # type: ignore[arg-type]
        accepted = self.game.action_count > before and self.game.actions_since(before)[-1][0] == action.kind
        verdict = action.verdict
        self._judged.append({
            "seat": action.seat, "kind": action.kind, "arrived_at": round(action.arrived_at),
            "judged_at": int(action.judged_at), "reaction_ms": None if verdict.reaction_ms is None
            else round(verdict.reaction_ms), "version": action.version,
            "link_ms": round(verdict.link_ms), "clamped": verdict.clamped, "accepted": accepted})

    def next_wake(self) -> float | None:
        """The room time at which :meth:`tick` next has something to do, if anything."""
        if self.table is None or self.phase != "playing":
            return None
        due: list[float] = []
        if self._pending:
            due.append(self._pending[0].judged_at)
        upcoming = self.table.next_due()
        if upcoming is not None:
            due.append(upcoming[0])
        contest_due = self.tally.due_at()
        if contest_due is not None:
            due.append(contest_due)
        return min(due) + self.settle_ms if due else None

    def _save_new_actions(self) -> None:
        game, game_id = self.game, self.game_id
        if game is None or game_id is None:
            return
        actions = (game.actions_since(self._saved_actions) if game.action_count > self._saved_actions
                   else [])
        judged = self._judged[self._saved_judged:]
        if actions or judged:
            self.store.append_step(game_id, self._saved_actions, actions, self._saved_judged, judged)
            self._saved_actions += len(actions)
            self._saved_judged += len(judged)

    def _on_rejected(self, rejection: Rejection) -> None:
        if rejection.intent.note != SUBMITTED:
            return  # a stand-in's planned action: nobody to tell
        conn = self.seats[rejection.seat].conn
        if conn is not None:
            conn.send({"type": "error", "code": "illegal", "message": rejection.reason})

    def _on_events(self, events: Sequence[Event]) -> None:
        """After every step the engine accepted: store it, then show it."""
        self._save_new_actions()
        self._track_slaps(events)
        self._publish(events)
        assert self.game is not None
        self._shown_pile = [str(card) for card in self.game.live_pile]

    def _publish(self, events: Sequence[Event]) -> None:
        game = self.game
        assert game is not None
        self.version += 1
        now = self.clock.now()
        self._shown[self.version] = now
        self._shown.pop(self.version - SHOWN_VERSIONS, None)
        if any(isinstance(event, CardPlayed) for event in events):
            self._card_version = self.version
        event_dicts = [event.to_dict() for event in events]
        lines = [self._line(event) for event in events]
        self.history.add_state(self.games_played, self.version, event_dicts, lines)
        # Encode once per audience: the public part (events, lines, versions) once per step,
        # each seat's view once, and the same text to every connection of that audience.
        public = _encode({"type": "state", "version": self.version, "game": self.games_played,
                          "settle_ms": round(self.settle_ms), "events": event_dicts, "lines": lines})
        encoded: dict[int | None, str] = {}
        for conn, member in list(self.connections.items()):
            text = encoded.get(member.seat)
            if text is None:
                view = _encode(game.observe(member.seat))
                text = encoded[member.seat] = f'{public[:-1]},"observation":{view}}}'
            conn.send_state(self.version, text)

    def _send_current_state(self, conn: Connection) -> None:
        if self.game is None or self.phase == "lobby":
            return
        member = self.connections[conn]
        conn.send(self.history.message(None))  # the log so far, so a reloaded page redraws it
        conn.send({"type": "state", "version": self.version, "game": self.games_played,
                   "settle_ms": round(self.settle_ms),
                   "observation": self.game.observe(member.seat), "events": [], "lines": []})
        if self.phase == "over" and self._game_over is not None:
            conn.send(self._game_over)  # a page opened after the end still shows the results

    def _line(self, event: Event) -> str:
        line = describe_event(event, self._names)
        if isinstance(event, SlapWon) and event.pattern != "claim" and event.seat is not None:
            reaction = self._reaction_ms(event.seat, event.at)
            if reaction is not None and reaction >= 0:
                line += f" in {reaction} ms"
        return line

    def _reaction_ms(self, seat: int, at: int) -> int | None:
        """``at`` minus when the pile's top card was shown to ``seat``."""
        shown = None
        conn = self.seats[seat].conn if seat < len(self.seats) else None
        if conn is not None:
            shown = conn.shown_at(self._card_version)
        if shown is None:
            shown = self._shown.get(self._card_version)
        return None if shown is None else round(at - shown)

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
                                self._links.pop((seat, at), 0))
        self.tally.events(events, self._reaction_ms)
        self._send_judgements()

    def _send_judgements(self) -> None:
        """A ``judgement`` for each contested slap the tally closed, kept in the history."""
        for contest in self.tally.take_closed():
            judgement = {"type": "judgement", "version": self.version, "game": self.games_played,
                         "pile": contest.pile, "slaps": judgement_slaps(contest, self._names),
                         "text": judgement_text(contest, self._names)}
            self.history.add_judgement(self.version, judgement)
            self._broadcast(judgement)

    # ------------------------------------------------------------------ the end

    def _finish(self) -> None:
        game, game_id = self.game, self.game_id
        assert game is not None and game_id is not None
        self._finished = True
        self.tally.close()
        self._send_judgements()
        self._save_new_actions()
        record = game.to_record()
        record["names"] = list(self._names)
        record["room"] = self._room_info()
        record["judging"] = list(self._judged)
        tallies = [t.public() for t in self.tally.tallies]
        results = [SeatResult(seat.index, seat.kind if seat.kind != "open" else "bot",
                              self._names[seat.index],
                              seat.token_hash if seat.kind == "human" else None,
                              game.winner == seat.index, tallies[seat.index]["slaps"],
                              tallies[seat.index]["misslaps"],
                              tuple(self.tally.tallies[seat.index].reactions),
                              seat.player_id if seat.kind == "human" else None,  # issue 17
                              seat.bot if seat.kind == "bot" else None) for seat in self.seats]
        self.store.finish_game(game_id, record, game.winner, game.end_reason, results)
        ratings.rate_finished_game(self.store, game_id)  # issue 17: exactly once, see ratings.py
        self.phase = "over"
        self.save()
        log.info("room %s: game id %d over (%s, winner %s) after %d cards", self.code, game_id,
                 game.end_reason, "nobody" if game.winner is None else self._names[game.winner],
                 game.cards_played)
        self._game_over = {
            "type": "game_over", "winner": game.winner, "reason": game.end_reason,
            "game_id": game_id, "record_url": f"/api/games/{game_id}/record",
            "replay_url": f"/games/{game_id}",
            "results": [{"seat": seat.index, "name": self._names[seat.index], "kind": seat.kind,
                         **tallies[seat.index]} for seat in self.seats]}
        self._broadcast(self._game_over)
        if self.waiting:
            self._seat_the_waiting()  # people who waited sit down now, for the rematch
            self.save()
        self._broadcast_room()

    # ------------------------------------------------------------------ room messages

    def summary(self, member: Member | None = None) -> dict[str, Any]:
        """The ``room`` message (see docs/protocol.md); ``you`` only with a member."""
        rules = self.settings.rules
        seats = []
        for seat in self.seats:
            entry: dict[str, Any] = {"seat": seat.index, "kind": seat.kind, "name": seat.name}
            if seat.kind == "bot":
                entry["bot"] = seat.bot
            elif seat.kind == "human":
                link = seat.conn.pinger.link if seat.conn is not None else None
                ping = None if link is None else link.median_ms
                entry.update(host=self._is_host(seat.token_hash), connected=seat.conn is not None,
                             ready=seat.ready, ping_ms=None if ping is None else round(ping))
            seats.append(entry)
        message: dict[str, Any] = {
            "type": "room", "code": self.code, "phase": self.phase,
            "rules": {"name": rules.name, "summary": rules.summary, "toml": rules.to_toml(),
                      "lines": explain(rules), "preset": rules.name in PRESET_NAMES,
                      "patterns": pattern_examples(rules)},
            "settings": {"seats": len(self.seats), "pace": self.settings.pace,
                         "turn_timeout_ms": self.settings.turn_timeout_ms,
                         "judging": self.settings.judging, "seeded": self.settings.seed is not None},
            "seats": seats,
            "spectators": sum(1 for m in self.connections.values()
                              if m.seat is None and m.token_hash not in self.waiting),
            "waiting": [{"name": self.known_members.get(token_hash, "Player")}
                        for token_hash in self.waiting],
            "open_seats": sum(1 for seat in self.seats if seat.kind == "open"),
            "games_played": self.games_played, "game_id": self.game_id,
            "settle_ms": round(self.settle_ms),
        }
        if member is not None:
            message = self._for_member(message, member)
        return message

    def _for_member(self, public: dict[str, Any], member: Member) -> dict[str, Any]:
        """The ``room`` message for one member: ``you`` (seat, host, status, name), and ``you``
        marked on their own seat and in the waiting list."""
        return {
            **public,
            "seats": [{**entry, "you": entry["seat"] == member.seat} for entry in public["seats"]],
            "waiting": [{**entry, "you": member.token_hash == token_hash}
                        for entry, token_hash in zip(public["waiting"], self.waiting, strict=True)],
            "you": {"seat": member.seat, "host": self._is_host(member.token_hash),
                    "status": self._status(member), "name": member.name},
        }

    def _broadcast_room(self) -> None:
        self._last_room_update = self.clock.now()
        public = self.summary()
        # the bulk (rules, settings) is the same for everyone: encode it once, and only the
        # parts that say "you" once per member
        shared = _encode({key: value for key, value in public.items() if key not in ("seats", "waiting")})
        for conn, member in list(self.connections.items()):
            own = self._for_member(public, member)
            personal = _encode({"seats": own["seats"], "waiting": own["waiting"], "you": own["you"]})
            conn.send_encoded(f"{shared[:-1]},{personal[1:]}")

    def _maybe_update_room(self) -> None:
        if self.clock.now() - self._last_room_update >= ROOM_UPDATE_GAP_MS:
            self._broadcast_room()

    def _broadcast(self, message: dict[str, Any]) -> None:
        for conn in list(self.connections):
            conn.send(message)

    def _broadcast_error(self, text: str) -> None:
        self._broadcast({"type": "error", "code": "server", "message": text})
