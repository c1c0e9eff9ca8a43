"""A room's lobby: who sits where, who waits and who watches, and what the host may change.

The lobby knows the seats (open, a person's, a bot's), the people waiting for the next game and
the room's phase (``lobby``, ``playing``, ``over``); who the people connected to the room are
(their tokens, the host, the people removed) is its
:class:`~ratscrew.server.room.membership.Membership`. It refuses what the protocol forbids with a
:class:`~ratscrew.protocol.errors.ProtocolError` and changes nothing then. It neither runs a game
nor sends anything: the room (:mod:`ratscrew.server.room.room`) asks it and tells the people.

>>> from ratscrew.ruleset import Ruleset
>>> lobby = Lobby([Seat(0), Seat(1, "bot", bot="casual")])
>>> lobby.seat_person("hash-of-ann", "Ann", conn=None).index
0
>>> [seat.name for seat in lobby.seats]
['Ann', 'Casual bot']
"""

from __future__ import annotations

import hmac
import math
import secrets
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, get_args

from ratscrew.protocol.client_messages import Configure, Judging, MoveSeat, Pace, SetSeat, Start, load_rules
from ratscrew.protocol.codec import ProtocolError
from ratscrew.protocol.names import bot_name
from ratscrew.protocol.server_messages import (
    LobbyChangeMessage,
    Phase,
    RoomMessage,
    RoomPeople,
    RoomPersonal,
    SeatInfo,
    SeatKind,
    Status,
    YouInfo,
)
from ratscrew.ruleset import Ruleset
from ratscrew.server.room.membership import Member, Membership
from ratscrew.server.ws.link import SETTLING_INPUTS
from ratscrew.storage.records import SeatRow

if TYPE_CHECKING:
    from ratscrew.server.room.publisher import Connection
    from ratscrew.server.ws.link import LinkEstimate

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Room codes use letters and digits that cannot be mistaken for one another (no I, O, 0, 1)."""
CODE_LENGTH = 6
"""32**6, about a billion codes: with join limits per address, too many to guess."""
DEFAULT_BOT = "casual"
"""The level of the bots that fill open seats at the start, or take over a kicked player."""


_Word = TypeVar("_Word", bound=str)


def _stored_word(text: str, words: tuple[_Word, ...], what: str) -> _Word:
    """``text`` read from the store as one of ``words`` (a Literal's values), or ValueError."""
    for word in words:
        if word == text:
            return word
    raise ValueError(f"{what} is {text!r}, none of {words}")


def stored_phase(text: str) -> Phase:
    """A room's phase as the store keeps it (text), as the protocol's `Phase`.

    >>> stored_phase("over")
    'over'
    """
    return _stored_word(text, get_args(Phase), "a stored room's phase")


def stored_seat_kind(text: str) -> SeatKind:
    """A seat's kind as the store keeps it (text), as the protocol's `SeatKind`.

    >>> stored_seat_kind("bot")
    'bot'
    """
    return _stored_word(text, get_args(SeatKind), "a stored seat's kind")


def new_code() -> str:
    """A fresh random room code.

    >>> len(new_code()) == CODE_LENGTH and set(new_code()) <= set(CODE_ALPHABET)
    True
    """
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


SETTLING_FIELDS = frozenset({"kind", "conn"})
"""A seat's fields that its room's settling window depends on (`SETTLING_INPUTS`)."""


MAX_WAITING_PEOPLE = 32
"""People who may wait for the next game in one room; past it a new person is refused
(``room_full``) and may watch instead."""
MAX_WATCHERS = 200
"""Connections that may watch one room; past it ``watch`` is refused (``room_full``)."""


@dataclass
class Seat:
    """One seat: ``open`` (waiting for a person), ``human`` or ``bot``."""

    index: int
    kind: SeatKind = "open"
    name: str | None = None
    bot: str | None = None
    token_hash: str | None = None
    ready: bool = False
    conn: Connection | None = None
    player_id: str | None = None
    """The keyed player sitting here (only meant while ``kind`` is ``human``; issue 17)."""
    stand_in: str | None = None
    """The level of the bot playing for the person here while they are away (issue 26)."""
    reserved_for: str | None = None
    """The player this seat is kept for (a matched room: `ratscrew.server.room.admission`)."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in SETTLING_FIELDS:  # who is seated and connected: the settling window's links
            SETTLING_INPUTS.bump()
        object.__setattr__(self, name, value)

    @property
    def shown_ping(self) -> int | None:
        """The ping shown on this seat (its link's median round trip, in whole ms), if a
        connected person sits here and it has been measured."""
        if self.kind != "human" or self.conn is None:
            return None
        ping = self.conn.pinger.link.median_ms
        return None if ping is None else round(ping)

    def row(self) -> SeatRow:
        """What the store keeps of the seat."""
        return SeatRow(self.index, self.kind, self.name, self.bot, self.token_hash,
                       self.player_id if self.kind == "human" else None)


@dataclass
class RoomSettings:
    """What the host can change."""

    rules: Ruleset
    seed: int | None = None
    pace: Pace = "normal"
    turn_timeout_ms: int = 5000
    judging: Judging = "fair"
    time_limit_ms: int = 0
    """How long a game may last (ms of table time); then the player holding the most cards wins
    (``Game.end_on_time``). 0: no limit."""
    password_hash: str | None = None
    """The SHA-256 of the room's password (`ratscrew.server.room.membership.hash_token`), if it
    was made with one: a newcomer's ``join`` must give it (`ratscrew.server.room.admission`)."""

    def to_json(self) -> dict[str, Any]:
        """JSON-able, for the store."""
        return {"rules": self.rules.to_toml(), "seed": self.seed, "pace": self.pace,
                "turn_timeout_ms": self.turn_timeout_ms, "judging": self.judging,
                "time_limit_ms": self.time_limit_ms, "password_hash": self.password_hash}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoomSettings:
        """Back from :meth:`to_json`."""
        return cls(rules=Ruleset.from_toml(data["rules"]), seed=data.get("seed"),
                   pace=data.get("pace", "normal"),
                   turn_timeout_ms=int(data.get("turn_timeout_ms", 5000)),
                   judging=data.get("judging", "fair"),
                   time_limit_ms=int(data.get("time_limit_ms", 0)),
                   password_hash=data.get("password_hash"))


def _beyond_people(public: RoomMessage) -> dict[str, Any]:
    """The ``room`` message but its people (``waiting``, ``spectators``) and its link figures
    (``settle_ms``, the seats' ``ping_ms``: sent for themselves at most every 5 s anyway): what
    must be as a connection was last shown for a ``lobby_change`` to be enough."""
    rest: dict[str, Any] = {key: value for key, value in public.items()
                            if key not in ("waiting", "spectators", "settle_ms", "seats")}
    rest["seats"] = [{key: value for key, value in seat.items() if key != "ping_ms"}
                     for seat in public["seats"]]
    return rest


PEOPLE_GAP_MS = 500.0
"""The least time between two rounds of ``lobby_change`` messages in a room: people who arrive
or leave faster than that are told of together, with the next message the room sends or after
the next pong once the gap is over (a flood of watchers cost every member a message each)."""


@dataclass(frozen=True)
class People:
    """A room's people as a connection was shown them: the waiting list (token hash and name,
    in order) and the count of watchers."""

    waiting: tuple[tuple[str, str], ...]
    spectators: int

    def change_to(self, now: People) -> tuple[list[int], list[tuple[str, str]]] | None:
        """The ``left`` positions and the ``joined`` entries that make ``now`` of this, or
        ``None`` when it is not a removal and an append (a reordering, a new name)."""
        current = {token_hash for token_hash, _ in now.waiting}
        kept = [entry for entry in self.waiting if entry[0] in current]
        before = {token_hash for token_hash, _ in self.waiting}
        joined = now.waiting[len(kept):]
        if list(now.waiting[:len(kept)]) != kept or any(h in before for h, _ in joined):
            return None
        return [n for n, (h, _) in enumerate(self.waiting) if h not in current], list(joined)


@dataclass
class ShownPeople:
    """What each of the room's connections was last sent of it, so that a change of its people
    alone goes out as a small ``lobby_change`` (`Lobby.room_messages`).

    Before, every join re-sent the whole ``room`` message, rules and waiting list included, to
    every member: with 32 waiting and 200 watching, each newcomer cost the square of the room's
    size in large messages (issue 47 item 3)."""

    rest: dict[str, Any] | None = None
    """`_beyond_people` of the last ``room`` message (the same for every connection)."""
    seen: weakref.WeakKeyDictionary[Connection, tuple[People, YouInfo]] = field(
        default_factory=weakref.WeakKeyDictionary)
    """Each connection that was sent the room: the people it was shown, and its ``you`` (held
    weakly: a connection gone from the room is forgotten with it, even before the next round)."""
    changed_at: float = -math.inf
    """When (wall clock ms) ``lobby_change`` messages last went out."""
    behind: bool = False
    """Some connection was not yet told of the people's latest change (`PEOPLE_GAP_MS`)."""

    def due(self, wall_ms: float) -> bool:
        """Whether connections wait to be told of a change and the gap is over."""
        return self.behind and wall_ms - self.changed_at >= PEOPLE_GAP_MS


def _change_message(diff: tuple[list[int], list[tuple[str, str]]], now: People,
                    you: str | None) -> LobbyChangeMessage:
    """The ``lobby_change`` of a `People.change_to` difference, with ``you`` marked on the
    joined entry of the token hash ``you``."""
    left, joined = diff
    return {"type": "lobby_change", "left": left,
            "joined": [{"name": name, "you": token_hash == you} for token_hash, name in joined],
            "spectators": now.spectators}


class Lobby:
    """The seats and the people of one room (see the module docstring)."""

    def __setattr__(self, name: str, value: object) -> None:
        if name == "seats":  # seats added, moved or restored: the settling window's links
            SETTLING_INPUTS.bump()
        object.__setattr__(self, name, value)

    def __init__(self, seats: list[Seat], *, members: Membership | None = None,
                 phase: Phase = "lobby") -> None:
        self.seats = seats
        self.members = members or Membership(player_ids={
            s.token_hash: s.player_id for s in seats if s.token_hash and s.player_id})
        """The room's tokens, host, kicks and connections (`ratscrew.server.room.membership`)."""
        self.phase: Phase = phase
        """``lobby`` (no game yet), ``playing`` or ``over`` (a game ended; a rematch may follow)."""
        self.waiting: list[str] = []
        """Token hashes of people waiting to be dealt into the next game, first come first."""
        self.shown = ShownPeople()
        """What the connections were last sent of the room (`room_messages`)."""

    # ------------------------------------------------------------------ who is who

    @property
    def connections(self) -> dict[Connection, Member]:
        """Every connection that joined or watches, and who it is (the membership's)."""
        return self.members.connections

    def seat_of(self, token_hash: str) -> Seat | None:
        """The seat a token holds (`Membership.seat_of`)."""
        return self.members.seat_of(self.seats, token_hash)

    def is_host(self, token_hash: str | None) -> bool:
        """Whether ``token_hash`` is the host's."""
        return self.members.is_host(token_hash)

    def status(self, member: Member) -> Status:
        """``player``, ``waiting`` (for the next game) or ``watching``."""
        if member.seat is not None:
            return "player"
        if member.token_hash is not None and member.token_hash in self.waiting:
            return "waiting"
        return "watching"

    def own_seat(self, member: Member, what: str) -> Seat:
        """The member's seat, or a refusal of ``what`` for someone without one."""
        if member.seat is None:
            raise ProtocolError("not_seated", f"{what}: only a seated player can do that")
        return self.seats[member.seat]

    def names_in_use(self, token_hash: str | None, player_id: str | None) -> list[str]:
        """The names of everyone in the room (people seated, waiting or watching, and bots) but
        the holder of ``token_hash`` and the player ``player_id`` (the same person again, under
        another token): a name that looks the same as one of these is taken
        (`ratscrew.protocol.names.same_name_as`)."""

        def someone_else(known: str | None) -> bool:
            if known is None:
                return True
            if token_hash is not None and hmac.compare_digest(known, token_hash):
                return False
            return player_id is None or self.members.player_ids.get(known) != player_id

        people = [name for known, name in self.members.known.items() if someone_else(known)]
        return people + [seat.name for seat in self.seats if seat.name and someone_else(seat.token_hash)]

    def names(self) -> list[str]:
        """Every seat's name, as the game's narration uses them."""
        return [seat.name or f"Seat {seat.index + 1}" for seat in self.seats]

    def links(self) -> list[LinkEstimate]:
        """The link estimates of the people seated and connected (for the settling window)."""
        return [seat.conn.pinger.link for seat in self.seats
                if seat.kind == "human" and seat.conn is not None]

    # ------------------------------------------------------------------ seating

    def seat_person(self, token_hash: str, name: str, conn: Connection | None) -> Seat | None:
        """Give a person a seat: outside a game the first open seat, or else the last bot's;
        during a game (or with no such seat) they wait for the next game."""
        seat = (None if self.phase == "playing"
                else self._seat_for_a_person(self.members.player_ids.get(token_hash)))
        if seat is None:
            if token_hash not in self.waiting:
                self.waiting.append(token_hash)
            return None
        if token_hash in self.waiting:
            self.waiting.remove(token_hash)
        seat.kind, seat.name, seat.bot, seat.token_hash, seat.conn = "human", name, None, token_hash, conn
        seat.ready = False
        seat.player_id = self.members.player_ids.get(token_hash)
        self.name_bots()
        return seat

    def would_wait(self) -> bool:
        """Whether a person joining now would wait for the next game (no seat for them)."""
        return self.phase == "playing" or self._seat_for_a_person() is None

    def watchers(self) -> int:
        """Connections that only watch (neither seated nor waiting)."""
        return sum(1 for m in self.connections.values()
                   if m.seat is None and m.token_hash not in self.waiting)

    def _seat_for_a_person(self, player_id: str | None = None) -> Seat | None:
        """The first open seat, or else the last seat a bot sits in (the bot gives it up); in
        a matched room, the open seat kept for ``player_id``."""
        if any(seat.reserved_for is not None for seat in self.seats):
            return next((s for s in self.seats if s.kind == "open" and player_id is not None
                         and s.reserved_for == player_id), None)
        open_seat = next((s for s in self.seats if s.kind == "open"), None)
        if open_seat is not None:
            return open_seat
        return next((s for s in reversed(self.seats) if s.kind == "bot"), None)

    def seat_the_waiting(self) -> list[Seat]:
        """Outside a game, deal the people who wait into open seats, then bots' seats; the
        seats they took."""
        taken: list[Seat] = []
        for token_hash in list(self.waiting):
            conn = self.members.holder(token_hash)
            seat = self.seat_person(token_hash, self.members.known.get(token_hash, "Player"), conn)
            if seat is None:
                break
            if conn is not None:
                self.connections[conn].seat = seat.index
            taken.append(seat)
        return taken

    def stand(self, conn: Connection, member: Member) -> None:
        """``member`` leaves their seat (or the waiting list) to watch; the host stays host."""
        if self.status(member) == "watching":
            raise ProtocolError("wrong_phase", "stand: you are already watching")
        if self.phase == "playing" and member.seat is not None:
            raise ProtocolError("wrong_phase", "stand: you cannot leave your seat during a game; resign "
                                "to stop playing")
        if member.seat is not None:
            seat = self.seats[member.seat]
            seat.kind, seat.name, seat.token_hash, seat.conn, seat.ready = "open", None, None, None, False
            if member.token_hash is not None:
                self.members.known[member.token_hash] = member.name or "Player"
        elif member.token_hash in self.waiting:
            self.waiting.remove(member.token_hash)
        self.connections[conn] = Member(None, member.token_hash, member.name)
        self.seat_the_waiting()

    def leave(self, conn: Connection) -> bool:
        """A connection went away (its seat stays its player's); whether it held a seat."""
        self.shown.seen.pop(conn, None)
        member = self.members.release(conn)
        if member is None or member.seat is None or self.seats[member.seat].conn is not conn:
            return False
        self.seats[member.seat].conn = None
        self.seats[member.seat].ready = False
        return True

    def remove_person(self, index: int, by: Member) -> tuple[Seat, str]:
        """The host removes the person in seat ``index``: their token no longer counts here.
        The seat and the token hash it held; the room decides who sits there next."""
        if index >= len(self.seats) or self.seats[index].kind != "human":
            raise ProtocolError("bad_message", f"kick: no person sits in seat {index}")
        if by.seat == index:
            raise ProtocolError("bad_message", "kick: the host cannot kick themselves")
        seat = self.seats[index]
        token_hash = seat.token_hash
        assert token_hash is not None
        self.members.kick(token_hash)
        if token_hash in self.waiting:
            self.waiting.remove(token_hash)
        seat.token_hash, seat.ready = None, False
        return seat, token_hash

    def name_bots(self) -> None:
        """Bots are named by level, numbered when a level sits more than once."""
        counts: dict[str, int] = {}
        for seat in self.seats:
            if seat.kind == "bot" and seat.bot is not None:
                counts[seat.bot] = counts.get(seat.bot, 0) + 1
                number = counts[seat.bot]
                seat.name = bot_name(seat.bot, number)

    # ------------------------------------------------------------------ the host's commands

    def configure(self, settings: RoomSettings, message: Configure) -> None:
        """Change the rules, seat count, pace, turn timeout, judging or time limit (outside a
        game)."""
        rules = settings.rules if message.rules is None else load_rules(message.rules)
        seats = len(self.seats) if message.seats is None else message.seats
        if seats > rules.max_players:
            raise ProtocolError("bad_message",
                                f"configure: these rules allow at most {rules.max_players} players")
        dropped = self.seats[seats:]
        if any(seat.kind == "human" for seat in dropped):
            raise ProtocolError("bad_message", "configure: a seat with a person in it cannot be "
                                "removed; kick them first")
        settings.rules = rules
        self.seats = self.seats[:seats] + [Seat(i) for i in range(len(self.seats), seats)]
        self.seat_the_waiting()
        if message.pace is not None:
            settings.pace = message.pace
        if message.turn_timeout_ms is not None:
            settings.turn_timeout_ms = message.turn_timeout_ms
        if message.judging is not None:
            settings.judging = message.judging
        if message.time_limit_ms is not None:
            settings.time_limit_ms = message.time_limit_ms

    def set_seat(self, message: SetSeat) -> None:
        """Open a seat, or put a bot of a level in it (never over a person)."""
        if message.seat >= len(self.seats):
            raise ProtocolError("bad_message", f"set_seat: there is no seat {message.seat}")
        seat = self.seats[message.seat]
        if seat.kind == "human":
            raise ProtocolError("bad_message", "set_seat: a person sits there; kick them first")
        seat.kind = "open" if message.bot is None else "bot"
        seat.bot = message.bot
        seat.name = None
        self.name_bots()
        if message.bot is None:
            self.seat_the_waiting()

    def move_seat(self, message: MoveSeat) -> None:
        """Swap two seats (whoever sits in them goes along)."""
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
        self.name_bots()

    def fill_or_remove_open_seats(self, message: Start) -> None:
        """At the start: bots of the chosen level in the open seats, or the open seats gone."""
        open_seats = [seat for seat in self.seats if seat.kind == "open"]
        if not open_seats:
            return
        if message.open_seats == "bots":
            for seat in open_seats:
                seat.kind, seat.bot = "bot", message.bot
            self.name_bots()
            return
        left = [seat for seat in self.seats if seat.kind != "open"]
        if len(left) < 2:
            raise ProtocolError("bad_message", "start: a game needs at least two players; fill the "
                                "open seats with bots or wait for a friend")
        self._renumber(left)

    def fill_open_seats(self, level: str = DEFAULT_BOT) -> None:
        """Every seat still open gets a bot of ``level`` (a game is about to be dealt)."""
        for seat in self.seats:
            if seat.kind == "open":
                seat.kind, seat.bot = "bot", level
        self.name_bots()

    # ------------------------------------------------------------------ the room message's parts

    def seat_entries(self) -> list[SeatInfo]:
        """The ``seats`` of the ``room`` message, the same for everyone."""
        seats = []
        for seat in self.seats:
            entry: SeatInfo = {"seat": seat.index, "kind": seat.kind, "name": seat.name}
            if seat.kind == "bot":
                entry["bot"] = seat.bot
            elif seat.kind == "human":
                entry["host"], entry["connected"] = self.is_host(seat.token_hash), seat.conn is not None
                entry["ready"], entry["ping_ms"] = seat.ready, seat.shown_ping
                entry["stand_in"] = seat.stand_in
            seats.append(entry)
        return seats

    def people(self) -> RoomPeople:
        """The ``spectators``, ``waiting`` and ``open_seats`` of the ``room`` message."""
        return {
            "spectators": self.watchers(),
            "waiting": [{"name": self.members.known.get(token_hash, "Player")}
                        for token_hash in self.waiting],
            "open_seats": sum(1 for seat in self.seats if seat.kind == "open"),
        }

    def for_member(self, public: RoomMessage, member: Member,
                   you: YouInfo | None = None) -> RoomPersonal:
        """The parts of the ``room`` message that differ per member: ``you`` (seat, host,
        status, name), and ``you`` marked on their own seat and in the waiting list."""
        return {
            "seats": [{**entry, "you": entry["seat"] == member.seat} for entry in public["seats"]],
            "waiting": [{**entry, "you": member.token_hash == token_hash}
                        for entry, token_hash in zip(public["waiting"], self.waiting, strict=True)],
            "you": you or self.you(member),
        }

    def you(self, member: Member) -> YouInfo:
        """The ``you`` of the member's ``room`` message."""
        return {"seat": member.seat, "host": self.is_host(member.token_hash),
                "status": self.status(member), "name": member.name}

    def room_messages(self, public: RoomMessage, wall_ms: float
                      ) -> tuple[list[tuple[Connection, RoomPersonal]],
                                 list[tuple[Connection, LobbyChangeMessage]]]:
        """What each connection is sent of the room at ``wall_ms`` (the wall clock's
        milliseconds; the room's own clock starts again with each game): the parts of a
        whole ``room`` message that are its own, or a ``lobby_change`` when only the people
        changed since it was last sent the room and its own ``you`` did not. A connection new
        to the room gets the whole message, and so does everyone when something beyond the
        people changed, or nothing did (as before ``lobby_change``). Changes less than
        `PEOPLE_GAP_MS` after the last round wait (`ShownPeople.due`). Everyone whose own entry
        is not among the ``joined`` of the same change shares one message object."""
        shown = self.shown
        names = (entry["name"] for entry in public["waiting"])
        now = People(tuple(zip(self.waiting, names, strict=True)), public["spectators"])
        rest = _beyond_people(public)
        yours = {conn: self.you(member) for conn, member in self.connections.items()}
        people_only = rest == shown.rest and any(
            shown.seen.get(conn) != (now, you) for conn, you in yours.items())
        may_wait = wall_ms - shown.changed_at < PEOPLE_GAP_MS
        whole: list[tuple[Connection, RoomPersonal]] = []
        changed: list[tuple[Connection, LobbyChangeMessage]] = []
        diffs: dict[People, tuple[list[int], list[tuple[str, str]]] | None] = {}
        shared: dict[People, LobbyChangeMessage] = {}
        seen: weakref.WeakKeyDictionary[Connection, tuple[People, YouInfo]] = (
            weakref.WeakKeyDictionary())
        behind = False
        for conn, member in list(self.connections.items()):
            you = yours[conn]
            before = shown.seen.get(conn)
            seen[conn] = (now, you)
            if not people_only or before is None or before[1] != you:
                whole.append((conn, self.for_member(public, member, you)))
                continue
            if before[0] == now:
                continue
            if may_wait:
                seen[conn], behind = before, True
                continue
            if before[0] not in diffs:
                diffs[before[0]] = before[0].change_to(now)
            diff = diffs[before[0]]
            if diff is None:
                whole.append((conn, self.for_member(public, member, you)))
            elif any(token_hash == member.token_hash for token_hash, _ in diff[1]):
                changed.append((conn, _change_message(diff, now, member.token_hash)))
            else:
                if before[0] not in shared:
                    shared[before[0]] = _change_message(diff, now, None)
                changed.append((conn, shared[before[0]]))
        if changed:
            shown.changed_at = wall_ms
        shown.rest, shown.seen, shown.behind = rest, seen, behind
        return whole, changed
