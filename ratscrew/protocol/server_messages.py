"""The server's messages to its clients, one TypedDict each (docs/protocol.md, "Server → client").

Each message has a ``type`` of its own (a ``Literal``), and its nested parts (the room's rules,
settings and seats, a judged slap, a seat's results, a history entry, ...) are TypedDicts too,
so ``mypy --strict`` checks every message the server builds, and ``python -m ratscrew.protocol
typescript`` writes the page's declarations (``ratscrew/web/js/protocol.d.ts``) from the same
types. A field the server sends only sometimes is ``NotRequired``; a field that may be ``null``
says ``| None``.

The engine's ``observation`` is its own TypedDict (`ratscrew.observation.Observation`, what
``Game.observe`` returns), typed field by field here too. One part is opaque: the ``events``
(`PublicEvent`, ``Event.public_dict``: ``kind``, ``at``, ``seat`` and the event's own fields), a
``NewType`` over plain dicts, so the generator can name it.

Fields are added, never renamed: the protocol is a public contract.
"""

from __future__ import annotations

from typing import Any, Literal, NewType, NotRequired, TypedDict, get_args

from ratscrew.observation import Observation
from ratscrew.protocol.room_words import Judging, Pace

Phase = Literal["lobby", "playing", "over"]
"""Where a room is: seating people (``lobby``), a game being played, or a game just ended."""
SeatKind = Literal["open", "bot", "human"]
"""What sits in a seat: nobody yet, a bot or a person."""
NoticeCode = Literal["resumed"]
"""Every ``notice`` code (docs/protocol.md, ``notice``)."""
NoteKind = Literal["seat_away", "seat_back", "game_abandoned"]
"""What a line the room adds after a state's events tells (docs/protocol.md, ``state``): a
stand-in bot plays for someone away, they are back, or everyone was away and the game is
abandoned."""

PublicEvent = NewType("PublicEvent", dict[str, Any])
"""One engine event as every client may see it (``Event.public_dict()``): ``kind``, ``at``,
``seat`` and the event's own fields."""

ErrorCode = Literal["bad_json", "bad_message", "not_host", "not_seated", "wrong_phase", "bad_rules",
                    "bad_token", "bad_key", "name_taken", "illegal", "rate_limited", "flood",
                    "unavailable", "room_full", "server", "bad_password", "no_pool",
                    "already_seeking", "flagged", "unknown_arena", "arena_closed"]
"""Every ``error`` code (docs/protocol.md, "Errors")."""
Status = Literal["player", "waiting", "watching"]
"""What a connection is in its room (docs/protocol.md, "Seating")."""


# ---------------------------------------------------------------------------------- welcome


class WelcomeMessage(TypedDict):
    """Who this connection is, after ``join`` or ``watch``."""

    type: Literal["welcome"]
    protocol: int
    code: str
    seat: int | None
    token: str | None
    host: bool
    name: str | None
    status: Status
    player_id: str | None


# ---------------------------------------------------------------------------------- room


class PatternExample(TypedDict):
    """A slap pattern the rules allow, what it means, and a pile that shows it."""

    name: str
    text: str
    example: list[str]


class RulesInfo(TypedDict):
    """The room's rules: the ruleset as TOML and in plain English."""

    name: str
    summary: str
    toml: str
    lines: list[str]
    preset: bool
    unrated: str | None
    patterns: list[PatternExample]


class SettingsInfo(TypedDict):
    """The room's settings (as in ``POST /api/rooms``)."""

    seats: int
    pace: Pace
    turn_timeout_ms: int
    judging: Judging
    seeded: bool
    time_limit_ms: int


class SeatInfo(TypedDict):
    """One seat: ``open``, a ``bot`` (with its level) or a ``human`` (with the person's link)."""

    seat: int
    kind: SeatKind
    name: str | None
    bot: NotRequired[str | None]
    host: NotRequired[bool]
    connected: NotRequired[bool]
    ready: NotRequired[bool]
    ping_ms: NotRequired[int | None]
    stand_in: NotRequired[str | None]
    you: NotRequired[bool]


class WaitingPerson(TypedDict):
    """Someone waiting for the next game."""

    name: str
    you: NotRequired[bool]


class RoomPeople(TypedDict):
    """Who is in the room but not seated: ``waiting`` for the next game, watching (counted)."""

    spectators: int
    waiting: list[WaitingPerson]
    open_seats: int


class YouInfo(TypedDict):
    """The recipient of a ``room`` message."""

    seat: int | None
    host: bool
    status: Status
    name: str | None


class ExpectedLength(TypedDict):
    """How long a game under the room's rules and seats lasts, in minutes."""

    median_minutes: float
    p90_minutes: float


class RoomMessage(TypedDict):
    """The room: its phase, rules, settings, seats and people (``you`` is the recipient's; the
    public summary of ``GET /api/rooms/CODE`` has none)."""

    type: Literal["room"]
    code: str
    phase: Phase
    rules: RulesInfo
    settings: SettingsInfo
    seats: list[SeatInfo]
    waiting: list[WaitingPerson]
    open_seats: int
    spectators: int
    games_played: int
    game_id: int | None
    settle_ms: int
    expected_length: ExpectedLength | None
    you: NotRequired[YouInfo]


class RoomPersonal(TypedDict):
    """The parts of a ``room`` message that differ per recipient."""

    seats: list[SeatInfo]
    waiting: list[WaitingPerson]
    you: YouInfo


class LobbyChangeMessage(TypedDict):
    """A change of the room's people alone, sent instead of a ``room`` message to a connection
    that was sent the room before and for which nothing else changed: ``left`` are positions in
    the waiting list as it last had it (in increasing order; remove them), ``joined`` the people
    who now wait after the others (append them), ``spectators`` the count now."""

    type: Literal["lobby_change"]
    left: list[int]
    joined: list[WaitingPerson]
    spectators: int


# ---------------------------------------------------------------------------------- the game


class StateMessage(TypedDict):
    """One step of the game, as a client receives it. The server builds it in two parts, a
    `StatePart` for everyone and a `ViewPart` per seat, and stamps ``sent_at`` and
    ``server_time_ms`` as it goes out on each connection."""

    type: Literal["state"]
    version: int
    game: int
    settle_ms: int
    slappable: str | None
    events: list[PublicEvent]
    lines: list[str]
    note_kinds: NotRequired[list[NoteKind]]
    observation: Observation
    sent_at: int
    server_time_ms: float


class StatePart(TypedDict):
    """The part of a ``state`` that is the same for every recipient (encoded once)."""

    type: Literal["state"]
    version: int
    game: int
    settle_ms: int
    slappable: str | None
    """The slap pattern the pile shows now, by the engine's own verdict
    (`ratscrew.engine.Game.slap_pattern`, a name from `ratscrew.patterns.PATTERNS`: ``double``,
    ``sandwich``, ...), ``None`` when it shows none or the game is over: worked out once per
    state, so that a page can say "double: slap!" without knowing the rule."""
    events: list[PublicEvent]
    lines: list[str]
    note_kinds: NotRequired[list[NoteKind]]


class ViewPart(TypedDict):
    """The part of a ``state`` that is one seat's view (joined to a `StatePart`)."""

    observation: Observation


class JudgedSlap(TypedDict):
    """One slap of a contested pile, judged."""

    seat: int
    name: str
    reaction_ms: int | None
    link_ms: int
    compensated: bool
    result: str


class JudgementMessage(TypedDict):
    """A contested slap, judged: who was quicker, by how much, and why."""

    type: Literal["judgement"]
    version: int
    game: int
    pile: list[str]
    slaps: list[JudgedSlap]
    text: str
    details: str


class SeatFigures(TypedDict):
    """A seat's slaps, misslaps, reactions and the cards it took in piles, in one game."""

    slaps: int
    misslaps: int
    median_reaction_ms: int | None
    best_reaction_ms: int | None
    cards_won: int


class SeatResultInfo(TypedDict):
    """How one seat did in a finished game: its figures and how many of its actions were its own."""

    seat: int
    name: str
    kind: str
    slaps: int
    misslaps: int
    median_reaction_ms: int | None
    best_reaction_ms: int | None
    cards_won: int
    actions: int
    by_stand_in: int
    by_time_out: int


class GameOverMessage(TypedDict):
    """The results of a game, and where its record and replay are."""

    type: Literal["game_over"]
    winner: int | None
    reason: str
    game_id: int
    record_url: str
    replay_url: str
    results: list[SeatResultInfo]


class StateEntry(TypedDict):
    """A state of the history: its events and lines (and the kinds of the room's notes)."""

    game: int
    version: int
    events: list[PublicEvent]
    lines: list[str]
    note_kinds: NotRequired[list[NoteKind]]


class JudgementEntry(TypedDict):
    """A judgement of the history, kept under the version it came after."""

    game: int
    version: int
    judgement: JudgementMessage


HistoryEntry = StateEntry | JudgementEntry


class HistoryMessage(TypedDict):
    """The log so far (or after a version), to redraw it without a gap or a duplicate."""

    type: Literal["history"]
    game: int | None
    entries: list[HistoryEntry]
    complete: bool


# ---------------------------------------------------------------------------------- the link


class PingMessage(TypedDict):
    """Answer with ``pong`` and the same ``id`` at once."""

    type: Literal["ping"]
    id: int


class KickedMessage(TypedDict):
    """The host removed you; you now watch."""

    type: Literal["kicked"]
    message: str


class ReplacedMessage(TypedDict):
    """The same token connected elsewhere; this connection closes."""

    type: Literal["replaced"]
    message: str


class ErrorMessage(TypedDict):
    """A refused message (nothing changed), or ``unavailable`` sent unasked."""

    type: Literal["error"]
    code: ErrorCode
    message: str


class NoticeMessage(TypedDict):
    """Something the server announces (``resumed``: the database is back)."""

    type: Literal["notice"]
    code: NoticeCode
    message: str


# ---------------------------------------------------------------------------------- quick play


class SeekingMessage(TypedDict):
    """On ``/ws/seek``: you wait in this pool, with ``waiting`` seekers in all (you too); sent at
    once and whenever the pool changes."""

    type: Literal["seeking"]
    rules: str
    players: int
    waiting: int
    arena: NotRequired[str]


class MatchedPlayer(TypedDict):
    """One player of a matched table, in seat order."""

    name: str
    player_id: str
    rating: float


class MatchedMessage(TypedDict):
    """On ``/ws/seek``: a table was made for you; open ``url`` (or join ``room``) with your
    player key to take ``seat``. The socket closes after it."""

    type: Literal["matched"]
    room: str
    url: str
    seat: int
    players: list[MatchedPlayer]
    arena: NotRequired[str]


SeekServerMessage = SeekingMessage | MatchedMessage | ErrorMessage
"""Every message the server sends on the quick-play websocket, ``/ws/seek``."""

SEEK_SERVER_MESSAGES: tuple[type, ...] = get_args(SeekServerMessage)
"""The members of `SeekServerMessage`, in the order docs/protocol.md describes them."""

ServerMessage = (WelcomeMessage | RoomMessage | LobbyChangeMessage | StateMessage | JudgementMessage
                 | GameOverMessage | HistoryMessage | PingMessage | KickedMessage | ReplacedMessage
                 | ErrorMessage | NoticeMessage)
"""Every message the server sends on a room's websocket."""

SERVER_MESSAGES: tuple[type, ...] = get_args(ServerMessage)
"""The members of `ServerMessage`, in the order docs/protocol.md describes them (the union's)."""


def error_message(code: ErrorCode, message: str) -> ErrorMessage:
    """An ``error`` message.

    >>> error_message("illegal", "Bob: not your turn, Ann plays next.")["code"]
    'illegal'
    """
    return {"type": "error", "code": code, "message": message}
