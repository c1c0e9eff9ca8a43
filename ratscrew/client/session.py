"""One client's view of an online room, kept from the server's messages: the Python twin of the
page's ``js/logbook.js`` and of the state ``js/room.js`` keeps, with no screen in it.

`RoomSession` takes every message a room sends (``welcome``, ``room``, ``lobby_change``,
``state``, ``history``, ``judgement``, ``notice``, ``game_over``, ``kicked``, ``replaced``,
``error``; docs/protocol.md) and the (re)connections of the link, and keeps what a client shows:
who this client is (seat, host, waiting or watching), the room, the latest state and when it
arrived, the room clock, the results, the latest notice, and the log. Each message gives back an
`Update`: the log items to draw (each with its event kind, so a screen colours by kind), whether
to clear the log first, messages to send (a ``history`` request when states skipped versions),
and what else changed. The terminal (:mod:`ratscrew.tui.online`) only draws a session; tests
feed it recorded message transcripts (tests/transcripts/).

`LogBook` keeps the log in step with the server's numbered history exactly as the page's
``LogBook`` does: each state's lines once, each judgement once, a divider where the game changes,
and the version to ask ``history`` for when states were skipped.

Nothing here decides a rule of the game: the server's words and the engine's events are drawn
as they come.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from ratscrew.protocol import PROTOCOL_VERSION
from ratscrew.protocol.server_messages import (
    ErrorMessage,
    GameOverMessage,
    HistoryMessage,
    JudgementMessage,
    LobbyChangeMessage,
    NoticeMessage,
    RoomMessage,
    ServerMessage,
    StateMessage,
    Status,
    WelcomeMessage,
)

ItemKind = Literal["line", "judgement", "divider", "notice"]
Tone = Literal["info", "warning", "error", "judgement"]
STATUSES: tuple[Status, ...] = ("player", "waiting", "watching")


def with_lobby_change(room: RoomMessage, change: LobbyChangeMessage) -> RoomMessage:
    """The ``room`` message as a ``lobby_change`` leaves it: the waiting list without the
    positions ``left`` and with ``joined`` after the rest, and the new ``spectators`` count
    (docs/protocol.md; the page's ``js/lobby.js`` does the same).

    >>> room = {"type": "room", "waiting": [{"name": "Cat"}, {"name": "Dan"}], "spectators": 0}
    >>> with_lobby_change(room, {"type": "lobby_change", "left": [0],
    ...                          "joined": [{"name": "Eve", "you": False}], "spectators": 2})
    {'type': 'room', 'waiting': [{'name': 'Dan'}, {'name': 'Eve', 'you': False}], 'spectators': 2}
    """
    waiting = room.get("waiting")
    left = {n for n in change.get("left", []) if isinstance(n, int)}
    kept = [entry for n, entry in enumerate(waiting if isinstance(waiting, list) else [])
            if n not in left]
    joined = change.get("joined")
    spectators = change.get("spectators")
    changed = room.copy()
    changed["waiting"] = kept + [entry for entry in (joined if isinstance(joined, list) else [])
                                 if isinstance(entry, dict)]
    changed["spectators"] = spectators if isinstance(spectators, int) else room.get("spectators", 0)
    return changed


@dataclass(frozen=True)
class LogItem:
    """One line of the log. ``kind`` is what it is (``line`` for a state's event, ``judgement``,
    ``divider`` where a game starts, ``notice`` for what the server announced); ``event_kind``
    is the engine event's kind of a line (``card_played``, ``slap_won``, ``misslap``, …), the
    room's note kind of a line it added after the events' (``seat_away``, ``seat_back``,
    ``game_abandoned``), or ``judgement``, ``divider`` or the notice's code, so a screen can
    colour by it; ``at`` is the event's room time, when it has one."""

    kind: ItemKind
    text: str
    game: int
    event_kind: str | None = None
    at: int | None = None


@dataclass(frozen=True)
class Notice:
    """A line that says what just happened to this client: ``code`` names it (a protocol error
    code, ``waiting``, ``watching``, ``seated``, ``kicked``, ``judgement``, a ``notice``'s
    code), ``text`` says it, ``tone`` how loudly."""

    code: str
    text: str
    tone: Tone


@dataclass
class Update:
    """What one message (or a new connection) changed, for the screen to draw."""

    log: list[LogItem] = field(default_factory=list)
    """Log items to add, oldest first."""
    reset_log: bool = False
    """Clear the log before adding `log` (a fresh history after a (re)connection)."""
    send: list[dict[str, Any]] = field(default_factory=list)
    """Messages to send to the room now."""
    notice: Notice | None = None
    """A new notice to show."""
    clear_notice: bool = False
    """The notice shown has had its day (the game it announced has begun): take it away."""
    seating: bool = False
    """Who sits where, the rules or this client's seat changed: redraw the table's seats."""
    state: bool = False
    """A new state to draw (stamp it once it is on screen)."""
    show_room: bool = False
    """Open the room screen (the lobby, or the results)."""
    playing: bool = False
    """A game is on and a state of it arrived: a room screen that opened by itself may close."""
    token: str | None = None
    """A token the room issued this client: keep it for this room."""
    forget_token: bool = False
    """The kept token no longer works here: forget it."""
    seated: bool = False
    """This client sits at the table now under its name: remember the name."""
    leave: str | None = None
    """The client must stop, and why (the server speaks another protocol)."""
    replaced: str | None = None
    """Why the server is about to close this connection for good (the seat was taken over)."""


def sentence(text: str) -> str:
    """The server's words as a sentence: a capital first, a full stop last.

    >>> sentence("another player already goes by 'Kim'; choose another name")
    "Another player already goes by 'Kim'; choose another name."
    >>> sentence("Done!")
    'Done!'
    """
    text = text.strip()
    if not text:
        return text
    text = text[:1].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _event_lines(events: object, lines: object, game: int, note_kinds: object = None) -> list[LogItem]:
    """A state's (or a history entry's) lines as log items, each with its event's kind and time;
    the room's own lines after the events' take their kind from ``note_kinds`` (``seat_away``,
    ``seat_back``, ``game_abandoned``; none when the server sent none).

    >>> [item.event_kind for item in _event_lines([{"kind": "card_played", "at": 5}],
    ...     ["Ann plays 7♥", "Bob is back and plays again"], 1, ["seat_back"])]
    ['card_played', 'seat_back']
    """
    texts = [str(line) for line in lines] if isinstance(lines, list) else []
    told = [e for e in events if isinstance(e, dict)] if isinstance(events, list) else []
    notes = [str(kind) for kind in note_kinds] if isinstance(note_kinds, list) else []
    items = []
    for index, text in enumerate(texts):
        event: Mapping[str, Any] = told[index] if index < len(told) else {}
        note = index - len(told)
        kind = event.get("kind") if index < len(told) else notes[note] if note < len(notes) else None
        at = event.get("at")
        items.append(LogItem("line", text, game, str(kind) if kind is not None else None,
                             round(at) if isinstance(at, (int, float)) and not isinstance(at, bool)
                             else None))
    return items


class LogBook:
    """The log of a room, kept in step with the server's numbered history (see the module
    docstring; the twin of ``js/logbook.js``)."""

    def __init__(self) -> None:
        self.last_version: int | None = None
        """The highest state version drawn, or ``None`` before the first."""
        self.game: int | None = None
        """The game of the last item drawn."""
        self._judged: set[tuple[int | None, str]] = set()

    def reset(self) -> None:
        """Forget everything (a fresh history redraws the whole log)."""
        self.last_version = None
        self.game = None
        self._judged.clear()

    def _enter(self, game: int) -> list[LogItem]:
        """A divider if ``game`` is another game than the last item's."""
        if game == self.game:
            return []
        divider = [] if self.game is None else [LogItem("divider", f"Game {game}", game, "divider")]
        self.game = game
        return divider

    def _game(self, game: object) -> int:
        return _int_or_none(game) or self.game or 1

    def state(self, state: Mapping[str, Any]) -> tuple[list[LogItem], int | None]:
        """A state arrived: the items to draw and the version to ask ``history`` for when
        versions were skipped (``None`` when none were; the state's lines are then left for the
        history to bring)."""
        version = _int_or_none(state.get("version"))
        if version is None:
            return [], None
        if self.last_version is not None and version <= self.last_version:
            return [], None
        if self.last_version is not None and version > self.last_version + 1:
            return [], self.last_version
        self.last_version = version
        game = self._game(state.get("game"))
        return self._enter(game) + _event_lines(state.get("events"), state.get("lines"), game,
                                                 state.get("note_kinds")), None

    def judgement(self, judgement: JudgementMessage | Mapping[str, Any]) -> list[LogItem]:
        """A judgement arrived (live or from the history): drawn once."""
        text = str(judgement.get("text", ""))
        key = (_int_or_none(judgement.get("version")), text)
        if key in self._judged:
            return []
        self._judged.add(key)
        game = self._game(judgement.get("game"))
        return [*self._enter(game), LogItem("judgement", text, game, "judgement")]

    def notice(self, notice: NoticeMessage) -> list[LogItem]:
        """Something the server announced (``notice``): logged with its code as its kind."""
        text = sentence(str(notice.get("message", "")))
        return [LogItem("notice", text, self.game or 1, str(notice.get("code", "notice")))] if text else []

    def history(self, entries: Iterable[Mapping[str, Any]]) -> list[LogItem]:
        """A ``history`` answer's entries, in order: what was not drawn yet."""
        items: list[LogItem] = []
        for entry in entries:
            judged = entry.get("judgement")
            version = _int_or_none(entry.get("version"))
            if isinstance(judged, dict):
                items += self.judgement({**judged, "version": version, "game": entry.get("game")})
            elif version is not None and (self.last_version is None or version > self.last_version):
                self.last_version = version
                game = self._game(entry.get("game"))
                items += self._enter(game) + _event_lines(entry.get("events"), entry.get("lines"), game,
                                                          entry.get("note_kinds"))
        return items


class RoomSession:
    """What one client knows of its room (see the module docstring). ``watching``: the client
    asked only to watch."""

    def __init__(self, code: str, *, watching: bool = False) -> None:
        self.code = code
        self.asked_to_watch = watching
        self.status: Status | None = "watching" if watching else None
        """``player``, ``waiting`` (for the next game) or ``watching``; ``None`` before the
        first ``welcome``."""
        self.seat: int | None = None
        self.host = False
        self.name: str | None = None
        self.player_id: str | None = None
        """This player's public id on the server (its page is /players/ID), once welcomed."""
        self.room: RoomMessage | None = None
        """The latest ``room`` message, with the ``lobby_change`` messages since applied."""
        self.state: StateMessage | None = None
        self.state_arrived = 0.0
        """When the latest state arrived (seconds, on the caller's monotonic clock)."""
        self.over: GameOverMessage | None = None
        """The latest ``game_over``, while the room's phase is ``over``."""
        self.judgement: JudgementMessage | None = None
        """The latest ``judgement``."""
        self.notice: Notice | None = None
        self.connections = 0
        self.log = LogBook()
        self._fresh_history = False
        self._history_asked = False

    # ------------------------------------------------------------------ what the client is

    @property
    def seated(self) -> bool:
        """This client holds a seat."""
        return self.seat is not None and self.status == "player"

    @property
    def phase(self) -> str | None:
        """The room's phase: ``lobby``, ``playing``, ``over`` (``None`` before the first room)."""
        phase = self.room.get("phase") if self.room is not None else None
        return str(phase) if phase is not None else None

    @property
    def game_on(self) -> bool:
        """A game is being played and this client has a state of it."""
        return self.state is not None and not self.observation.get("over", True)

    @property
    def may_resign(self) -> bool:
        """This client plays in the game that is on (so it may resign from it)."""
        return self.seated and self.game_on and self.observation.get("seat") == self.seat

    def seat_names(self) -> list[str | None]:
        """Who sits in each seat, as the table shows them: the room's seats, but while a finished
        game is shown, the names it was played by (a latecomer may have taken a bot's seat since).
        ``None`` for an open seat."""
        seats = [s for s in (self.room.get("seats", []) if self.room is not None else [])
                 if isinstance(s, dict)]
        names: list[str | None] = [str(s["name"]) if s.get("name") else None for s in seats]
        results = self.over.get("results") if self.over is not None and self.phase == "over" else None
        for result in results if isinstance(results, list) else []:
            seat = _int_or_none(result.get("seat")) if isinstance(result, dict) else None
            if seat is not None and 0 <= seat < len(names) and result.get("name"):
                names[seat] = str(result["name"])
        return names

    @property
    def observation(self) -> Mapping[str, Any]:
        """The latest state's observation (empty before the first)."""
        observation = self.state.get("observation") if self.state is not None else None
        return observation if isinstance(observation, dict) else {}

    def now_ms(self, now: float) -> float:
        """The room's clock at ``now`` (seconds on the clock the arrivals were stamped with): the
        latest state's ``sent_at`` (or, lacking it, its observation's ``now``) plus the time since
        it arrived; a finished game's clock stands at its end."""
        if self.state is None:
            return 0.0
        observation = self.observation
        game_now = observation.get("now", 0)
        if observation.get("over"):
            return float(game_now)
        sent_at = self.state.get("sent_at", game_now)
        return float(sent_at) + max(0.0, now - self.state_arrived) * 1000.0

    # ------------------------------------------------------------------ the link

    def connected(self) -> None:
        """A (re)connection opened: the history the room sends next redraws the whole log."""
        self.connections += 1
        self._fresh_history = True
        self._history_asked = False

    def receive(self, message: ServerMessage, arrived: float) -> Update:
        """One message from the room (``arrived``: when, on the caller's monotonic clock). Its
        fields are read with care all the same: a server of another version may leave some out."""
        update = Update()
        if "type" not in message:  # not a message: ignored, like one of an unknown type
            return update
        if message["type"] == "welcome":
            self._welcome(message, update)
        elif message["type"] == "room":
            self._room(message, update)
        elif message["type"] == "lobby_change":
            if self.room is not None:  # a room message always comes first; an open room
                self.room = with_lobby_change(self.room, message)  # screen redraws with it
        elif message["type"] == "state":
            self._state(message, arrived, update)
        elif message["type"] == "history":
            self._history(message, update)
        elif message["type"] == "judgement":
            self.judgement = message.copy()
            update.log += self.log.judgement(message)
            self._say(update, "judgement", str(message.get("text", "")), "judgement")
        elif message["type"] == "notice":
            items = self.log.notice(message)
            update.log += items
            if items:
                self._say(update, str(items[0].event_kind), items[0].text, "info")
        elif message["type"] == "game_over":
            self.over = message.copy()
            update.show_room = update.seating = True  # the finished table keeps its players' names
        elif message["type"] == "kicked":
            update.forget_token = True
            self.seat, self.host, self.status = None, False, "watching"
            update.seating = True
            self._say(update, "kicked", sentence(str(message.get("message", "the host removed you"))),
                      "error")
        elif message["type"] == "replaced":
            update.replaced = str(message.get("message", ""))
        elif message["type"] == "error":
            self._error(message, update)
        # other types are ignored, as the protocol asks
        return update

    def _say(self, update: Update, code: str, text: str, tone: Tone) -> None:
        self.notice = update.notice = Notice(code, text, tone)

    def _welcome(self, message: WelcomeMessage, update: Update) -> None:
        protocol = message.get("protocol")
        if protocol != PROTOCOL_VERSION:
            update.leave = (f"the server speaks protocol version {protocol}, this ratscrew speaks "
                            f"version {PROTOCOL_VERSION}: install the same ratscrew version as the "
                            "server (pip install -U ratscrew)")
            return
        self.seat = _int_or_none(message.get("seat"))
        self.host = bool(message.get("host"))
        player_id = message.get("player_id")
        self.player_id = player_id if isinstance(player_id, str) else None
        name = message.get("name")
        self.name = name if isinstance(name, str) else None
        status = message.get("status")
        self.status = status if status in STATUSES else ("player" if self.seat is not None else "watching")
        token = message.get("token")
        if isinstance(token, str) and token:
            update.token = token
        update.seating = True
        if self.seat is not None:
            update.seated = True
        elif self.status == "waiting":
            self._say(update, "waiting", self._waiting_text(), "warning")
        elif not self.asked_to_watch:
            self._say(update, "watching", f"No seat in room {self.code}: you are watching.", "warning")

    def _waiting_text(self) -> str:
        if self.phase == "playing" or self.game_on:
            return (f"A game is on in room {self.code}: you will be dealt into the next game (a "
                    "free seat, or a bot's). Watch this one meanwhile.")
        return (f"No open seat in room {self.code} now: you will be dealt into the next game (the "
                "host can open a seat for you).")

    def _room(self, message: RoomMessage, update: Update) -> None:
        before = self._seating()
        was_seat, was_status = self.seat, self.status
        self.room = message.copy()
        you = message.get("you")
        if isinstance(you, dict):
            self.seat = _int_or_none(you.get("seat"))
            self.host = bool(you.get("host"))
            status = you.get("status")
            if status in STATUSES:
                self.status = status
            elif self.seat is not None:
                self.status = "player"
        if self._seating() != before:
            update.seating = True
        if self.seat is not None and (was_seat is None or was_status != "player") \
                and self.status == "player" and was_status is not None:
            update.seated = True
            self._say(update, "seated", f"You have a seat now: seat {self.seat + 1}. "
                                        "The next game deals you in.", "info")
        if self.status == "waiting" and self.notice is not None and self.notice.code == "waiting" \
                and self.notice.text != self._waiting_text():
            self._say(update, "waiting", self._waiting_text(), "warning")
        if self.phase != "over" and self.over is not None:
            self.over = None
            update.seating = True
        if self.phase == "lobby" or (self.phase == "over" and self.over is not None):
            update.show_room = True

    def _seating(self) -> tuple[Any, ...]:
        rules = self.room.get("rules") if self.room is not None else None
        seats = self.room.get("seats") if self.room is not None else None
        return (rules.get("toml") if isinstance(rules, dict) else None, self.seat, self.status,
                tuple((s.get("name"), s.get("kind"), s.get("bot"), s.get("connected"))
                      for s in seats if isinstance(s, dict)) if isinstance(seats, list) else ())

    def _state(self, message: StateMessage, arrived: float, update: Update) -> None:
        self.state, self.state_arrived = message.copy(), arrived
        self._fresh_history = False
        items, missing = self.log.state(message)
        update.log += items
        if missing is not None and not self._history_asked:
            self._history_asked = True
            update.send.append({"type": "history", "since": missing})
        update.state = True
        update.playing = not self.observation.get("over", True)
        if update.playing and self.seated and self.notice is not None and self.notice.code == "seated":
            self.notice, update.clear_notice = None, True  # "the next game deals you in": it has

    def _history(self, message: HistoryMessage, update: Update) -> None:
        if self._fresh_history:
            self.log.reset()
            update.reset_log = True
            self._fresh_history = False
        self._history_asked = False
        entries = message.get("entries")
        update.log += self.log.history(e for e in entries if isinstance(e, dict)) \
            if isinstance(entries, list) else []

    def _error(self, message: ErrorMessage, update: Update) -> None:
        code = str(message.get("code", "error"))
        text = sentence(str(message.get("message", "refused")))
        if code in ("name_taken", "bad_key", "bad_token"):
            # this client was not seated: it watches meanwhile
            if code == "bad_token":
                update.forget_token = True
            self.status, self.asked_to_watch = "watching", True
            update.send.append({"type": "watch"})
            self._say(update, code, text, "error")
        elif code == "room_full" and not self.asked_to_watch:
            # too many wait for the next game: watch meanwhile (a refused watch is only said)
            self.status, self.asked_to_watch = "watching", True
            update.send.append({"type": "watch"})
            self._say(update, code, text, "error")
        elif code == "illegal":
            self._say(update, code, text, "warning")
        else:
            self._say(update, code, text, "error")


def replay(session: RoomSession, transcript: Sequence[Mapping[str, Any]]) -> list[Update]:
    """Feed a recorded transcript to ``session``: each entry is a message from the room as it was
    sent (its arrival ``"at"`` in seconds, if recorded), or ``{"type": "connected"}`` where a
    (re)connection opened. The updates, one per entry."""
    updates = []
    for message in transcript:
        if message.get("type") == "connected":
            session.connected()
            updates.append(Update())
        else:
            at = message.get("at", 0.0)
            updates.append(session.receive(cast(ServerMessage, message),  # recorded from a server
                                           float(at) if isinstance(at, (int, float)) else 0.0))
    return updates
