"""What a room sends: its audiences, each message encoded once, the state versions and the
numbered history.

Every step the engine accepted becomes one ``state`` with the next ``version``. Its public
part (version, game, settling window, the slap pattern the pile shows by the engine's verdict,
events and their words) is encoded once; so is the table as spectators see it
(``game.observe(None)``), and each seat's view is that text with its seat (`seat_view`), joined
to the public part; and the same text goes to every connection of an audience. The ``room``
message is encoded once too, but for the parts that say "you". The publisher also remembers
when each recent version was shown (the room times a slap's reaction is measured from) and
keeps the :class:`~ratscrew.server.room.history.History` a reloaded page redraws its log from.

It sends only what it is handed: the room decides what happened and stores it first (persist
before publish), then asks the publisher to show it.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from ratscrew.engine import Game
from ratscrew.events import CardPlayed, Event, SlapWon
from ratscrew.narrate import describe_event
from ratscrew.protocol.codec import encode_message
from ratscrew.protocol.server_messages import (
    GameOverMessage,
    HistoryMessage,
    JudgementMessage,
    NoteKind,
    PublicEvent,
    RoomPersonal,
    ServerMessage,
    StatePart,
    ViewPart,
)
from ratscrew.server.room.history import History
from ratscrew.server.room.tally import Contest, judgement_details, judgement_slaps, judgement_text

if TYPE_CHECKING:
    from ratscrew.server.ws.link import Pinger

SHOWN_VERSIONS = 64
"""How many recent states a connection remembers the send time of (for judging reactions)."""
ROOM_UPDATE_GAP_MS = 5000
"""The least time between two ``room`` messages sent only because a ping changed (a room
message carries the rules and is the largest the room sends: at one a second it was a fifth of
a loaded server's work)."""


class Connection(Protocol):
    """One client connection, as the room sees it (the websocket side lives in the app)."""

    address: str
    pinger: Pinger

    def send(self, message: ServerMessage) -> None:
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


Audience = Iterable[tuple[Connection, int | None]]
"""Connections and the seat whose view each gets (``None``: a spectator's)."""


def join_objects(shared: str, own: str) -> str:
    """Two encoded JSON objects as one (the keys of both; neither may be empty).

    >>> join_objects('{"type":"state","version":3}', '{"observation":{}}')
    '{"type":"state","version":3,"observation":{}}'
    """
    return f"{shared[:-1]},{own[1:]}"


SPECTATORS_VIEW_START = '{"observation":{"seat":null,'
"""How an encoded spectators' view begins (``seat`` is an observation's first key)."""


def seat_view(spectators: str, seat: int | None) -> str:
    """The encoded view of ``seat``, made from the spectators' (``{"observation": ...}`` as
    `encode_message` wrote it): `Game.observe` shows every seat the same table and differs
    between seats only in ``seat`` (tests/test_engine_observation.py holds it to that), so one
    observation, encoded once, serves a whole room.

    >>> seat_view('{"observation":{"seat":null,"now":5}}', 2)
    '{"observation":{"seat":2,"now":5}}'
    >>> seat_view('{"observation":{"seat":null,"now":5}}', None)
    '{"observation":{"seat":null,"now":5}}'
    """
    if seat is None:
        return spectators
    if not spectators.startswith(SPECTATORS_VIEW_START):
        raise ValueError("not an encoded spectators' view: " + spectators[:40])
    return f'{{"observation":{{"seat":{int(seat)},{spectators[len(SPECTATORS_VIEW_START):]}'


def slappable(game: Game) -> str | None:
    """What a state says in ``slappable``: the pattern the pile shows under the game's rules
    (the engine's verdict, `Game.slap_pattern`), or ``None`` when it shows none or the game is
    over. Asked once per state, for every recipient.

    >>> from ratscrew.ruleset import Ruleset
    >>> game = Game(Ruleset.preset("classic"), hands=["7H 2C", "7S 3D"], leader=0)
    >>> _ = game.play(0, at=0); _ = game.play(1, at=100)
    >>> slappable(game)
    'double'
    >>> _ = game.play(0, at=200); slappable(game) is None
    True
    """
    return None if game.over else game.slap_pattern()


def version_after_restart(now_s: float | None = None) -> int:
    """Where a restored room's state versions go on from: the wall-clock time in milliseconds.

    A room's versions count its states, and a room sends far fewer than one state a
    millisecond, so this is above every version it sent before the restart (even across
    several restarts): docs/protocol.md promises a ``version`` never starts again, and nothing
    needs to be stored to keep that promise.

    >>> version_after_restart(1_800_000_000.0)
    1800000000000
    """
    return int((time.time() if now_s is None else now_s) * 1000)


class Publisher:
    """A room's outgoing messages (see the module docstring)."""

    def __init__(self, now: Callable[[], float],
                 on_published: Callable[[int], None] = lambda version: None) -> None:
        self._now = now
        self._on_published = on_published
        """Told the version of each state published (the room's outbox: a state whose step is
        still being stored is forgotten with it if that write fails)."""
        self.version = 0
        """The version of the last state sent; grows by one per step, across games."""
        self.card_version = 0
        """The version of the last state that played a card (reactions count from it)."""
        self._shown: dict[int, float] = {}  # version -> room time it was sent
        self.history = History()
        self._history_sent: weakref.WeakKeyDictionary[Connection, int] = weakref.WeakKeyDictionary()
        """Per connection, the newest version a ``history`` message sent it held."""
        self.game_over: GameOverMessage | None = None
        """The last game's ``game_over``, for pages joining later."""
        self._last_room_update = -1e18

    # ------------------------------------------------------------------ states

    def start_game(self, game_number: int) -> None:
        """A new game's history begins (its states go on from the current version)."""
        self.history.start_game(game_number)

    def publish(self, game: Game, game_number: int, events: Sequence[Event], names: Sequence[str],
                settle_ms: float, audience: Audience,
                reaction_ms: Callable[[int, int], int | None],
                notes: Sequence[tuple[NoteKind, str]] = ()) -> None:
        """One ``state`` for a step the engine accepted (already stored), to every audience;
        ``notes``: lines of the room's own after the events', each with its kind (someone away,
        back, ...), sent as ``note_kinds`` alongside the lines."""
        self.version += 1
        self._shown[self.version] = self._now()
        self._shown.pop(self.version - SHOWN_VERSIONS, None)
        if any(isinstance(event, CardPlayed) for event in events):
            self.card_version = self.version
        event_dicts = [PublicEvent(event.public_dict()) for event in events]
        lines = [self._line(event, names, reaction_ms) for event in events] + [line for _, line in notes]
        note_kinds = [kind for kind, _ in notes]
        self.history.add_state(game_number, self.version, event_dicts, lines, note_kinds)
        shared: StatePart = {"type": "state", "version": self.version, "game": game_number,
                             "settle_ms": round(settle_ms), "slappable": slappable(game),
                             "events": event_dicts, "lines": lines}
        if note_kinds:
            shared["note_kinds"] = note_kinds
        self._on_published(self.version)
        public = encode_message(shared)
        view_part: ViewPart = {"observation": game.observe(None)}
        spectators = encode_message(view_part)  # observed and encoded once, for every seat
        encoded: dict[int | None, str] = {}
        for conn, seat in audience:
            text = encoded.get(seat)
            if text is None:
                text = encoded[seat] = join_objects(public, seat_view(spectators, seat))
            conn.send_state(self.version, text)

    def send_current(self, conn: Connection, seat: int | None, game: Game, game_number: int,
                     settle_ms: float, over: bool) -> None:
        """Bring a page that just joined up to date: the log so far, where the game stands,
        and the results if it is over."""
        self._send_history(conn, self.history.message(None))
        # as every state, stamped with ``sent_at`` on the way out (a late joiner's clock)
        shared: StatePart = {"type": "state", "version": self.version, "game": game_number,
                             "settle_ms": round(settle_ms), "slappable": slappable(game),
                             "events": [], "lines": []}
        view: ViewPart = {"observation": game.observe(seat)}
        conn.send_state(self.version, join_objects(encode_message(shared), encode_message(view)))
        if over and self.game_over is not None:
            conn.send(self.game_over)

    def answer_history(self, conn: Connection, since: int | None) -> None:
        """Answer ``history {since}`` with only what this connection lacks: entries it was
        already sent in a ``history`` message are not sent again (a client asking for the whole
        log over and over gets only what is new; docs/protocol.md, ``history``)."""
        had = self._history_sent.get(conn)
        if had is not None and (since is None or since < had):
            since = had
        self._send_history(conn, self.history.message(since))

    def _send_history(self, conn: Connection, message: HistoryMessage) -> None:
        versions = [int(entry["version"]) for entry in message["entries"]]
        if versions:
            self._history_sent[conn] = max(max(versions), self._history_sent.get(conn, 0))
        conn.send(message)

    def shown_at(self, version: int) -> float | None:
        """The room time at which state ``version`` was sent, if recent."""
        return self._shown.get(version)

    @staticmethod
    def _line(event: Event, names: Sequence[str],
              reaction_ms: Callable[[int, int], int | None]) -> str:
        line = describe_event(event, names)
        if isinstance(event, SlapWon) and event.pattern != "claim" and event.seat is not None:
            reaction = reaction_ms(event.seat, event.at)
            if reaction is not None and reaction >= 0:
                line += f" in {reaction} ms"
        return line

    # ------------------------------------------------------------------ other messages

    def judgement(self, contest: Contest, game_number: int, names: Sequence[str],
                  connections: Iterable[Connection]) -> None:
        """A ``judgement`` for a contested slap, kept in the history and sent to everyone."""
        judgement: JudgementMessage = {
            "type": "judgement", "version": self.version, "game": game_number, "pile": contest.pile,
            "slaps": judgement_slaps(contest, names), "text": judgement_text(contest, names),
            "details": judgement_details(contest, names)}
        self.history.add_judgement(self.version, judgement)
        self.broadcast(judgement, connections)

    def finish(self, game_over: GameOverMessage, connections: Iterable[Connection]) -> None:
        """Send the results, and keep them for pages that join after the end."""
        self.game_over = game_over
        self.broadcast(game_over, connections)

    @staticmethod
    def broadcast(message: ServerMessage, connections: Iterable[Connection]) -> None:
        """The same message to every connection."""
        encoded = encode_message(message)
        for conn in list(connections):
            conn.send_encoded(encoded)

    def room(self, public: Mapping[str, object], personal: Iterable[tuple[Connection, RoomPersonal]]) -> None:
        """The ``room`` message: its bulk (rules, settings) encoded once, and only the parts
        that say "you" once per connection."""
        self._last_room_update = self._now()
        shared = encode_message(public)
        for conn, own in personal:
            conn.send_encoded(join_objects(shared, encode_message(own)))

    def room_update_due(self) -> bool:
        """Whether a ``room`` message sent only because a ping changed may go out now."""
        return self._now() - self._last_room_update >= ROOM_UPDATE_GAP_MS
