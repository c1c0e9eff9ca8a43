"""The client's messages to the server, validated into typed objects at the edge.

Every websocket frame and HTTP body is checked here before anything reaches a room: one schema
per message type, strict about types (``true`` is not a number, ``1.5`` is not a seat), ranges,
missing and extra fields. A message that fails is a `ProtocolError` carrying the error code and
message sent back to the client (see ``docs/protocol.md``).

>>> parse_client_message('{"type": "slap", "reaction_ms": 212.5, "version": 7}')
Act(kind='slap', reaction_ms=212.5, version=7)
>>> parse_client_message('{"type": "slap", "reaction_ms": "fast"}')
Traceback (most recent call last):
...
ratscrew.protocol.codec.ProtocolError: slap: reaction_ms must be a number, not a string
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, get_args

from ratscrew.bots.profile import LEVELS
from ratscrew.bots.spec import is_agent_spec
from ratscrew.protocol import names
from ratscrew.protocol.codec import ProtocolError, decode_json
from ratscrew.protocol.keys import KEY_PATTERN
from ratscrew.protocol.room_words import Judging as Judging
from ratscrew.protocol.room_words import Pace as Pace
from ratscrew.ruleset import PRESET_NAMES, Ruleset, RulesetError

PROTOCOL_VERSION = 1
"""The protocol's version, sent in ``welcome``; a client speaking another one stops."""
MAX_REACTION_MS = 60_000
"""The largest reaction time a client may report."""
MAX_RULES_TEXT = 8 * 1024
"""The longest TOML ruleset text accepted."""
MIN_SEATS, MAX_SEATS = 2, 8
"""How many seats a room may have."""
MIN_TURN_TIMEOUT_MS, MAX_TURN_TIMEOUT_MS = 1000, 60_000
"""The range of the turn time-out setting."""
MIN_TIME_LIMIT_MS, MAX_TIME_LIMIT_MS = 60_000, 4 * 3_600_000
"""The range of a game's time limit, when there is one (``time_limit_ms = 0``: none): a minute
to four hours."""
MAX_SEED = 2**63 - 1
"""The largest deal seed accepted."""
DEFAULT_TURN_TIMEOUT_MS = 5000
"""How long a human seat may sit on its turn before its card is played for it."""
MAX_WINDOW_FACTOR = 4
"""The most a room's ``window_factor`` lengthens the rules' windows by
(`Ruleset.with_longer_windows`): four times the claim window is 12 seconds."""

PACE_FACTORS: dict[str, float] = {"slow": 0.7, "normal": 1.0, "fast": 1.4}
"""How many times their level's usual card-playing speed the bots play at, by pace name."""
JUDGINGS: tuple[str, ...] = get_args(Judging)
ActKind = Literal["play", "slap", "resign"]
LEFT_OUT = {"null": False}
"""A field's metadata: ``None`` means the field was left out; on the wire it may not be null."""

_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")
_PLAYER_KEY = KEY_PATTERN
"""A player key's form (`ratscrew.protocol.keys`)."""


# ---------------------------------------------------------------------------------- messages


@dataclass(frozen=True)
class Join:
    """Sit down (or take a seat back with ``token``)."""

    TYPE: ClassVar[str] = "join"

    name: str
    token: str | None = None
    player_key: str | None = None
    """The player's key (docs/online.md, "Players and ratings"); ``None``: a guest."""
    password: str | None = None
    """The room's password, for a room made with one (a newcomer needs it; a token does not)."""


@dataclass(frozen=True)
class Watch:
    """Look on without a seat."""

    TYPE: ClassVar[str] = "watch"


@dataclass(frozen=True)
class Ready:
    """Say whether you are ready to start."""

    TYPE: ClassVar[str] = "ready"

    ready: bool


@dataclass(frozen=True)
class Configure:
    """The host changes some of the room's settings (``None``: unchanged)."""

    TYPE: ClassVar[str] = "configure"

    rules: str | None = field(default=None, metadata=LEFT_OUT)
    seats: int | None = field(default=None, metadata=LEFT_OUT)
    pace: Pace | None = field(default=None, metadata=LEFT_OUT)
    turn_timeout_ms: int | None = field(default=None, metadata=LEFT_OUT)
    judging: Judging | None = field(default=None, metadata=LEFT_OUT)
    time_limit_ms: int | None = field(default=None, metadata=LEFT_OUT)


@dataclass(frozen=True)
class SetSeat:
    """The host puts a bot of level ``bot`` in ``seat``, or opens it (``bot=None``)."""

    TYPE: ClassVar[str] = "set_seat"

    seat: int
    bot: str | None


@dataclass(frozen=True)
class Kick:
    """The host removes the person in ``seat``."""

    TYPE: ClassVar[str] = "kick"

    seat: int


@dataclass(frozen=True)
class MoveSeat:
    """The host swaps what sits in two seats (people, bots or nobody) before a game."""

    TYPE: ClassVar[str] = "move_seat"

    from_seat: int = field(metadata={"wire": "from"})
    to_seat: int = field(metadata={"wire": "to"})


OpenSeats = Literal["bots", "remove"]


@dataclass(frozen=True)
class Start:
    """The host starts the game; seats still open get a ``bot`` of that level, or are removed."""

    TYPE: ClassVar[str] = "start"

    open_seats: OpenSeats = "bots"
    bot: str = "casual"


@dataclass(frozen=True)
class Stand:
    """Leave your seat, or stop waiting, and watch (not during a game)."""

    TYPE: ClassVar[str] = "stand"


@dataclass(frozen=True)
class HistoryRequest:
    """Ask for the entries after state ``since`` (``None``: all that is kept)."""

    TYPE: ClassVar[str] = "history"

    since: int | None


@dataclass(frozen=True)
class Rematch:
    """The host starts a new game with the same seats after one ended."""

    TYPE: ClassVar[str] = "rematch"


@dataclass(frozen=True)
class Act:
    """A game action with the client's reaction stamp (both optional)."""

    kind: ActKind = field(metadata={"wire": "type"})
    reaction_ms: float | None = None
    version: int | None = None


@dataclass(frozen=True)
class Pong:
    """The answer to ``ping`` ``id``."""

    TYPE: ClassVar[str] = "pong"

    id: int


@dataclass(frozen=True)
class Seek:
    """Quick play (``/ws/seek``): wait in the pool of ``rules`` and ``players`` (or of arena
    ``arena``) for a table of strangers. A key is required: quick play is rated."""

    TYPE: ClassVar[str] = "seek"

    rules: str
    players: int
    name: str
    player_key: str
    arena: str | None = field(default=None, metadata=LEFT_OUT)
    """The arena entered by this seek (``None``: quick play)."""


@dataclass(frozen=True)
class Cancel:
    """Stop seeking (closing the socket does too)."""

    TYPE: ClassVar[str] = "cancel"


ClientMessage = (Join | Watch | Stand | Ready | Configure | SetSeat | MoveSeat | Kick | Start | Rematch
                 | Act | Pong | HistoryRequest)
"""Every message a client sends on a room's websocket."""

CLIENT_MESSAGES: tuple[type, ...] = get_args(ClientMessage)
"""Every client message, in the order docs/protocol.md lists them (the union's). On the wire each
has its ``TYPE`` (`Act`: its ``kind``), and a field its ``"wire"`` name where the metadata gives
one."""


SeekClientMessage = Seek | Cancel
"""Every message a client sends on the quick-play websocket, ``/ws/seek``."""

SEEK_CLIENT_MESSAGES: tuple[type, ...] = get_args(SeekClientMessage)
"""The members of `SeekClientMessage`, in the order docs/protocol.md lists them."""

POOL_RULES: tuple[str, ...] = ("classic", "northwest", "pagat", "ratscrew", "paranoid")
"""The presets that have quick-play pools (Beggar-my-neighbour, with no slaps, has none)."""
POOL_PLAYERS: tuple[int, ...] = (2, 4)
"""The table sizes that have quick-play pools."""
_ARENA_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


# ---------------------------------------------------------------------------------- fields


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    return "an object"


class _Fields:
    """Reads the fields of one message, refusing wrong types, ranges and leftovers."""

    def __init__(self, where: str, data: dict[str, Any], allowed: set[str]) -> None:
        self.where = where
        self.data = data
        extra = sorted(set(data) - allowed - {"type"})
        if extra:
            raise ProtocolError("bad_message", f"{where}: unknown field {extra[0]!r}")

    def fail(self, message: str) -> ProtocolError:
        return ProtocolError("bad_message", f"{self.where}: {message}")

    def integer(self, key: str, low: int, high: int, required: bool = True) -> int | None:
        if key not in self.data:
            if required:
                raise self.fail(f"{key} is missing")
            return None
        value = self.data[key]
        if isinstance(value, float) and value.is_integer() and math.isfinite(value):
            value = int(value)
        if type(value) is not int:
            raise self.fail(f"{key} must be a whole number, not {_type_name(value)}")
        if not low <= value <= high:
            raise self.fail(f"{key} must be from {low} to {high}, not {value}")
        return value

    def number(self, key: str, low: float, high: float) -> float | None:
        if key not in self.data or self.data[key] is None:
            return None
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(f"{key} must be a number, not {_type_name(value)}")
        if not math.isfinite(value) or not low <= value <= high:
            raise self.fail(f"{key} must be a number from {low:g} to {high:g}")
        return float(value)

    def text(self, key: str, required: bool = True, limit: int = 1024) -> str | None:
        if key not in self.data:
            if required:
                raise self.fail(f"{key} is missing")
            return None
        value = self.data[key]
        if not isinstance(value, str):
            raise self.fail(f"{key} must be a string, not {_type_name(value)}")
        if len(value) > limit:
            raise self.fail(f"{key} is longer than {limit} characters")
        return value

    def choice(self, key: str, choices: tuple[str, ...]) -> str | None:
        value = self.text(key, required=False)
        if value is not None and value not in choices:
            raise self.fail(f"{key} must be one of {', '.join(choices)}, not {value!r}")
        return value

    def boolean(self, key: str) -> bool:
        if key not in self.data:
            raise self.fail(f"{key} is missing")
        value = self.data[key]
        if not isinstance(value, bool):
            raise self.fail(f"{key} must be true or false, not {_type_name(value)}")
        return value


def clean_name(name: str) -> str:
    """A player's name as it will be shown, checked by the name rules
    (`ratscrew.protocol.names.clean`): a refused name is a `ProtocolError` ``bad_message``.

    >>> clean_name("  Ann ")
    'Ann'
    >>> clean_name("Bob\\u202e")
    Traceback (most recent call last):
    ...
    ratscrew.protocol.codec.ProtocolError: a name cannot hold invisible, control or formatting characters
    """
    try:
        return names.clean(name)
    except names.NameRefused as error:
        raise ProtocolError("bad_message", str(error)) from None


def _bot_level(value: object, where: str) -> str:
    if isinstance(value, str) and is_agent_spec(value):
        from ratscrew.rl.agents import seat_names  # a saved agent, by name only (never a path)

        if value in seat_names():
            return value
        raise ProtocolError("bad_message", f"{where}: a saved agent is one of "
                                           f"{', '.join(seat_names())}, not {value!r}")
    if not isinstance(value, str) or value not in LEVELS:
        raise ProtocolError("bad_message",
                            f"{where}: a bot level is one of {', '.join(LEVELS)}, not {value!r}")
    return value


def parse_client_message(frame: str | bytes) -> ClientMessage:
    """Validate one websocket frame from a client into its message (see the module docstring)."""
    data = decode_json(frame)
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "a message needs a \"type\" string")
    if kind == "join":
        f = _Fields("join", data, {"name", "token", "player_key", "password"})
        name = clean_name(f.text("name", limit=200) or "")
        token = f.text("token", required=False, limit=64) if data.get("token") is not None else None
        if token is not None and not _TOKEN.fullmatch(token):
            raise ProtocolError("bad_token", "join: that is not a token this server issued")
        key = data.get("player_key")
        if key is not None and (not isinstance(key, str) or not _PLAYER_KEY.fullmatch(key)):
            raise ProtocolError("bad_key", "join: a player_key is 20 to 64 letters, digits, - or _")
        password = (f.text("password", required=False, limit=MAX_PASSWORD_LENGTH)
                    if data.get("password") is not None else None)
        return Join(name=name, token=token, player_key=key, password=password)
    if kind in ("watch", "rematch", "stand"):
        _Fields(kind, data, set())
        return Watch() if kind == "watch" else Rematch() if kind == "rematch" else Stand()
    if kind == "start":
        f = _Fields("start", data, {"open_seats", "bot"})
        open_seats = f.choice("open_seats", get_args(OpenSeats)) or "bots"
        level = "casual" if data.get("bot") is None else _bot_level(data["bot"], "start")
        return Start(open_seats=open_seats, bot=level)  # type: ignore[arg-type]
    if kind == "history":
        f = _Fields("history", data, {"since"})
        if "since" not in data:
            raise f.fail("since is missing (a state version, or null for everything)")
        since = None if data["since"] is None else f.integer("since", 0, 2**53)
        return HistoryRequest(since=since)
    if kind == "move_seat":
        f = _Fields("move_seat", data, {"from", "to"})
        from_seat = f.integer("from", 0, MAX_SEATS - 1)
        to_seat = f.integer("to", 0, MAX_SEATS - 1)
        assert from_seat is not None and to_seat is not None
        return MoveSeat(from_seat=from_seat, to_seat=to_seat)
    if kind == "ready":
        return Ready(ready=_Fields("ready", data, {"ready"}).boolean("ready"))
    if kind in ("play", "slap", "resign"):
        f = _Fields(kind, data, {"reaction_ms", "version"})
        reaction = f.number("reaction_ms", 0, MAX_REACTION_MS)
        version = f.integer("version", 0, 2**53, required=False) if data.get("version") is not None else None
        return Act(kind=kind, reaction_ms=reaction, version=version)  # type: ignore[arg-type]
    if kind == "pong":
        ping_id = _Fields("pong", data, {"id"}).integer("id", 0, 2**53)
        assert ping_id is not None
        return Pong(id=ping_id)
    if kind == "kick":
        seat = _Fields("kick", data, {"seat"}).integer("seat", 0, MAX_SEATS - 1)
        assert seat is not None
        return Kick(seat=seat)
    if kind == "set_seat":
        f = _Fields("set_seat", data, {"seat", "bot"})
        seat = f.integer("seat", 0, MAX_SEATS - 1)
        assert seat is not None
        if "bot" not in data:
            raise f.fail("bot is missing (a level, or null to open the seat)")
        bot = None if data["bot"] is None else _bot_level(data["bot"], "set_seat")
        return SetSeat(seat=seat, bot=bot)
    if kind == "configure":
        f = _Fields("configure", data, {"rules", "seats", "pace", "turn_timeout_ms", "judging",
                                        "time_limit_ms"})
        return Configure(
            rules=f.text("rules", required=False, limit=MAX_RULES_TEXT),
            seats=f.integer("seats", MIN_SEATS, MAX_SEATS, required=False),
            pace=f.choice("pace", tuple(PACE_FACTORS)),  # type: ignore[arg-type]
            turn_timeout_ms=f.integer("turn_timeout_ms", MIN_TURN_TIMEOUT_MS, MAX_TURN_TIMEOUT_MS,
                                      required=False),
            judging=f.choice("judging", JUDGINGS),  # type: ignore[arg-type]
            time_limit_ms=_time_limit(f),
        )
    raise ProtocolError("bad_message", f"unknown message type {kind[:40]!r}")


def parse_seek_message(frame: str | bytes) -> SeekClientMessage:
    """Validate one frame of ``/ws/seek`` (docs/protocol.md, "Quick play"). A ruleset that is
    not a preset is ``bad_rules``; a preset or table size without a pool (custom rules, ``bmn``,
    3 players) is ``no_pool``; a missing or malformed key ``bad_key``.

    >>> parse_seek_message('{"type": "seek", "rules": "pagat", "players": 4, "name": "Ann", '
    ...                    '"player_key": "ann-key-Qm3xT9vLp2Zr7WbK4sYd8Hc"}').players
    4
    >>> parse_seek_message('{"type": "seek", "rules": "bmn", "players": 2, "name": "Ann", '
    ...                    '"player_key": "ann-key-Qm3xT9vLp2Zr7WbK4sYd8Hc"}')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ratscrew.protocol.codec.ProtocolError: seek: quick play has pools for classic, ... not bmn
    """
    data = decode_json(frame)
    kind = data.get("type")
    if kind == "cancel":
        _Fields("cancel", data, set())
        return Cancel()
    if kind != "seek":
        raise ProtocolError("bad_message", "on /ws/seek a message is seek or cancel, not "
                            f"{str(kind)[:40]!r}")
    f = _Fields("seek", data, {"rules", "players", "name", "player_key", "arena"})
    rules = f.text("rules", limit=MAX_RULES_TEXT) or ""
    if rules not in PRESET_NAMES:
        if "=" in rules or "\n" in rules:
            raise ProtocolError("no_pool", "seek: quick play is played under a preset's rules, "
                                "never custom ones (make a room for friends to play those)")
        raise ProtocolError("bad_rules", f"seek: unknown preset {rules[:40]!r}; the pools are "
                            f"{', '.join(POOL_RULES)}")
    if rules not in POOL_RULES:
        raise ProtocolError("no_pool", f"seek: quick play has pools for {', '.join(POOL_RULES)}; "
                            f"not {rules}")
    players = f.integer("players", MIN_SEATS, MAX_SEATS)
    if players not in POOL_PLAYERS:
        raise ProtocolError("no_pool", f"seek: the pools seat {' or '.join(map(str, POOL_PLAYERS))}"
                            f" players, not {players}")
    assert players is not None
    name = clean_name(f.text("name", limit=200) or "")
    key = data.get("player_key")
    if not isinstance(key, str) or not _PLAYER_KEY.fullmatch(key):
        raise ProtocolError("bad_key", "seek: quick play is rated, so a seek needs a player_key "
                            "(20 to 64 letters, digits, - or _; the page and ratscrew join make one)")
    arena = f.text("arena", required=False, limit=64) if data.get("arena") is not None else None
    if arena is not None and not _ARENA_ID.fullmatch(arena):
        raise ProtocolError("unknown_arena", "seek: that is not an arena's id")
    return Seek(rules=rules, players=players, name=name, player_key=key, arena=arena)


def _time_limit(f: _Fields) -> int | None:
    """The ``time_limit_ms`` field, if given: 0 (no limit), or a minute to four hours."""
    value = f.integer("time_limit_ms", 0, MAX_TIME_LIMIT_MS, required=False)
    if value is not None and 0 < value < MIN_TIME_LIMIT_MS:
        raise f.fail(f"time_limit_ms is 0 (no time limit) or from {MIN_TIME_LIMIT_MS} (a minute) "
                     f"to {MAX_TIME_LIMIT_MS}, not {value}")
    return value


# ---------------------------------------------------------------------------------- rooms


def load_rules(text: str) -> Ruleset:
    """A preset by name or a ruleset from TOML text, with the command line's error messages
    (a `ProtocolError` ``bad_rules``).

    >>> load_rules("pagat").name
    'pagat'
    >>> load_rules("tie_policy = 'fastest'")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ratscrew.protocol.codec.ProtocolError: tie_policy: 'fastest' is not allowed; choose one of ...
    """
    stripped = text.strip()
    try:
        if stripped in PRESET_NAMES:
            return Ruleset.preset(stripped)
        if "=" not in stripped:
            raise RulesetError(f"unknown preset {stripped[:40]!r}; give a preset "
                               f"({', '.join(PRESET_NAMES)}) or the text of a TOML ruleset")
        return Ruleset.from_toml(text)
    except RulesetError as error:
        raise ProtocolError("bad_rules", str(error)) from None


@dataclass(frozen=True)
class RoomRequest:
    """A validated ``POST /api/rooms`` body."""

    rules: Ruleset
    seats: int
    bots: tuple[str, ...]
    seed: int | None
    pace: Pace
    turn_timeout_ms: int
    judging: Judging
    time_limit_ms: int = 0
    """0: no time limit; otherwise the ms after which the player holding the most cards wins."""
    password: str | None = None
    """A password a newcomer's ``join`` must give (``None``: anyone with the link may join)."""


MAX_PASSWORD_LENGTH = 64
"""The longest room password (a room's, and a join's)."""


def parse_room_request(data: object) -> RoomRequest:
    """Validate the body of ``POST /api/rooms`` (see docs/protocol.md); a problem is a
    `ProtocolError` naming the field.

    >>> parse_room_request({"rules": "classic", "seats": 4, "bots": ["casual"], "seed": 42}).bots
    ('casual',)
    >>> parse_room_request({"rules": "classic", "window_factor": 2}).rules.grace_ms
    2000
    >>> parse_room_request({"seats": 9})
    Traceback (most recent call last):
    ...
    ratscrew.protocol.codec.ProtocolError: room: seats must be from 2 to 8, not 9
    """
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "the body must be a JSON object")
    f = _Fields("room", data, {"rules", "seats", "bots", "seed", "pace", "turn_timeout_ms", "judging",
                               "time_limit_ms", "window_factor", "password"})
    rules = load_rules(f.text("rules", required=False, limit=MAX_RULES_TEXT) or "classic")
    # the house rule for a slower table: longer windows make other rules, played unrated
    rules = rules.with_longer_windows(f.integer("window_factor", 1, MAX_WINDOW_FACTOR, required=False) or 1)
    seats = f.integer("seats", MIN_SEATS, MAX_SEATS, required=False) or 4
    if seats > rules.max_players:
        raise f.fail(f"seats: these rules allow at most {rules.max_players} players, not {seats}")
    bots_value = data.get("bots", [])
    if not isinstance(bots_value, list):
        raise f.fail(f"bots must be a list of bot levels, not {_type_name(bots_value)}")
    if len(bots_value) > seats:
        raise f.fail(f"bots: {len(bots_value)} bots do not fit in {seats} seats")
    bots = tuple(_bot_level(level, "room: bots") for level in bots_value)
    seed = f.integer("seed", 0, MAX_SEED, required=False) if data.get("seed") is not None else None
    timeout = f.integer("turn_timeout_ms", MIN_TURN_TIMEOUT_MS, MAX_TURN_TIMEOUT_MS, required=False)
    return RoomRequest(
        rules=rules, seats=seats, bots=bots, seed=seed,
        pace=f.choice("pace", tuple(PACE_FACTORS)) or "normal",  # type: ignore[arg-type]
        turn_timeout_ms=timeout or DEFAULT_TURN_TIMEOUT_MS,
        judging=f.choice("judging", JUDGINGS) or "fair",  # type: ignore[arg-type]
        time_limit_ms=_time_limit(f) or 0,
        password=(f.text("password", required=False, limit=MAX_PASSWORD_LENGTH) or None
                  if data.get("password") is not None else None),
    )
