"""Helpers for the server's tests: a room on a fake clock, fake connections with a measured link,
and the card-secrecy check every message must pass.

A `FakeConnection` stands for one browser: it keeps every message the room sent it, stamps each
state with the room time it was sent (as the real connection does), and can be given a round
trip so the room judges its actions as it would a real link's.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from ratscrew.cards import Card
from ratscrew.client.session import with_lobby_change
from ratscrew.engine import Game
from ratscrew.events import CardPlayed, CardsBurned, ChallengeStarted, Event, Misslap, SlapWon
from ratscrew.protocol.client_messages import Act, ClientMessage, Join, Pong, parse_room_request
from ratscrew.protocol.server_messages import LobbyChangeMessage, RoomMessage
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import Table
from ratscrew.server.room.room import Room
from ratscrew.server.ws.link import Pinger
from ratscrew.storage.sqlite import SqliteStore


class FakeWall:
    """A wall clock that only moves when told to (seconds, like ``time.monotonic``)."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class FakeConnection:
    """One client of a room (see the module docstring)."""

    def __init__(self, room: Room, rtt_ms: float | None = 10.0, address: str = "10.0.0.1") -> None:
        self.room = room
        self.address = address
        self.pinger = Pinger()
        if rtt_ms is not None:
            for _ in range(5):
                self.pinger.link.add(rtt_ms)
        self.sent: list[dict[str, Any]] = []
        self.closed: tuple[int, str] | None = None
        self._shown: dict[int, float] = {}
        room.connect(self)  # as the server does when the websocket opens

    def send(self, message: Mapping[str, Any]) -> None:
        if message["type"] == "state":
            now = self.room.clock.now()
            self._shown[int(message["version"])] = now
            message = {**message, "sent_at": round(now)}
        self.sent.append(json.loads(json.dumps(message)))  # exactly what would go on the wire

    def send_state(self, version: int, encoded: str) -> None:
        message = json.loads(encoded)
        assert message["version"] == version
        self.send(message)

    def send_encoded(self, encoded: str) -> None:
        self.send(json.loads(encoded))

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = (code, reason)

    def shown_at(self, version: int) -> float | None:
        return self._shown.get(version)

    def of(self, kind: str) -> list[dict[str, Any]]:
        """Every message of one type, oldest first."""
        return [m for m in self.sent if m["type"] == kind]

    def last(self, kind: str) -> dict[str, Any]:
        """The latest message of one type."""
        found = self.of(kind)
        assert found, f"no {kind} message among {[m['type'] for m in self.sent]}"
        return found[-1]

    def room_now(self) -> dict[str, Any]:
        """The room as this client knows it: the latest ``room`` message with the
        ``lobby_change`` messages since applied, as ``ratscrew join`` applies them."""
        last = max(n for n, m in enumerate(self.sent) if m["type"] == "room")
        room = cast(RoomMessage, self.sent[last])
        for message in self.sent[last + 1:]:
            if message["type"] == "lobby_change":
                room = with_lobby_change(room, cast(LobbyChangeMessage, message))
        return dict(room)

    @property
    def version(self) -> int:
        """The version of the latest state this client was sent."""
        return int(self.last("state")["version"])

    def do(self, message: ClientMessage) -> None:
        """Send a message to the room."""
        self.room.handle(self, message)

    def join(self, name: str, token: str | None = None) -> dict[str, Any]:
        """Join (or rejoin) the room; returns the welcome."""
        self.room.connect(self)
        self.do(Join(name, token))
        return self.last("welcome")


def pong_after(conn: FakeConnection, rtt_ms: float) -> None:
    """``conn`` answers a ping sent ``rtt_ms`` ago (the room reads the real monotonic clock)."""
    ping_id = conn.pinger.ping(now=time.monotonic() * 1000.0 - rtt_ms)
    conn.do(Pong(ping_id))


def make_room(rules: str = "classic", seats: int = 2, bots: Sequence[str] = (),
              hands: Sequence[str] | None = None, leader: int = 0, judging: str = "fair",
              turn_timeout_ms: int = 5000, seed: int | None = 1) -> tuple[Room, FakeWall]:
    """A room on a fake clock that nothing drives but the test; ``hands`` fixes the deal."""
    request = parse_room_request({"rules": rules, "seats": seats, "bots": list(bots), "seed": seed,
                                  "judging": judging, "turn_timeout_ms": turn_timeout_ms})
    wall = FakeWall()

    def fixed_deal(ruleset: Ruleset, players: int, deal_seed: int) -> Game:
        assert hands is not None
        return Game(ruleset, list(hands), leader=leader, seed=deal_seed)

    room = Room.create(request, SqliteStore(":memory:"), wall=wall, drive=False,
                       deal=None if hands is None else fixed_deal)
    return room, wall


def move_to(room: Room, wall: FakeWall, at_ms: float) -> None:
    """Set the room's clock to ``at_ms`` (never backwards) without ticking."""
    wall.t += max(0.0, at_ms - room.clock.now()) / 1000.0


def run_until(room: Room, wall: FakeWall, at_ms: float) -> None:
    """Let the room run to room time ``at_ms``, waking it whenever it has something due."""
    stuck = 0
    while True:
        due = room.next_wake()
        stuck = stuck + 1 if due is not None and due <= room.clock.now() else 0
        assert stuck < 1000, f"the room keeps asking to be woken at {due} but does nothing"
        if due is None or due > at_ms:
            move_to(room, wall, at_ms)
            room.tick()
            return
        move_to(room, wall, due)
        room.tick()


def act(conn: FakeConnection, wall: FakeWall, kind: str, arrive_at: float,
        reaction_ms: float | None = None, version: int | None = None) -> None:
    """The action arrives at room time ``arrive_at`` (the room runs up to then first). With a
    ``reaction_ms`` and no ``version``, it answers the newest state the client had by then."""
    run_until(conn.room, wall, arrive_at)
    if reaction_ms is not None and version is None:
        version = conn.version
    conn.do(Act(kind, reaction_ms, version))  # type: ignore[arg-type]


CARD_IN_TEXT = re.compile(r"(?<![A-Za-z0-9])(10|[2-9TJQKA])([CDHS♣♦♥♠])(?![A-Za-z0-9])")
"""A card named inside any text, in notation (``7H``) or as shown to people (``7♥``)."""
_SUIT_LETTERS = str.maketrans("♣♦♥♠", "CDHS")


def card_strings(value: Any) -> set[str]:
    """Every card (in notation) named anywhere in a message's strings.

    >>> sorted(card_strings({"lines": ["Ann plays 10♥", "then 7S"], "pile": ["KD"]}))
    ['7S', 'KD', 'TH']
    """
    found: set[str] = set()
    if isinstance(value, str):
        for rank, suit in CARD_IN_TEXT.findall(value):
            found.add(str(Card.parse(rank + suit.translate(_SUIT_LETTERS))))
    elif isinstance(value, dict):
        for item in value.values():
            found |= card_strings(item)
    elif isinstance(value, list):
        for item in value:
            found |= card_strings(item)
    return found


def face_up_cards(event: Event) -> set[str]:
    """The cards an engine event shows everyone: played, burned face up (for a misslap too) or
    slapped. Cards a misslap puts in the penalty pile go face down: never public."""
    if isinstance(event, (CardPlayed, ChallengeStarted)):
        return {str(event.card)}
    if isinstance(event, Misslap) and event.penalty == "penalty_pile":
        return set()
    if isinstance(event, (CardsBurned, Misslap)):
        return {str(c) for c in event.cards}
    if isinstance(event, SlapWon):
        return {str(c) for c in event.top}
    return set()


class SecrecyWatch:
    """Checks, at every message a room sends, that it names no card that was never face up.

    What has been face up is taken from the engine's own events (the table is told to keep
    them), never from the messages being checked."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.public: set[str] = set()
        self.messages = 0
        self._table: Table | None = None
        self._seen = 0

    def check(self, message: dict[str, Any]) -> None:
        table = self.room.table
        if table is not None:
            if table is not self._table:
                self._table, self._seen = table, 0
                table.keep_events = True
            for event in table.events[self._seen:]:
                self.public |= face_up_cards(event)
            self._seen = len(table.events)
        # a name people chose ("QH" is a fine name) is theirs to show, not a card
        names = [seat.name for seat in self.room.seats if seat.name]
        names += list(self.room.known_members.values())
        names += [m.name for m in self.room.connections.values() if m.name]
        # and a token is random text (it may hold "-3S-"), never shown; the rules' teaching
        # examples (a double is "3C 7H 7S") are the same for every room, not cards of a game
        shown = {key: value for key, value in message.items() if key not in ("token", "rules")}
        leaked = card_strings(shown) - self.public - card_strings(names)
        assert not leaked, f"{message['type']} message names face-down cards {sorted(leaked)}"
        self.messages += 1


class WatchedConnection(FakeConnection):
    """A fake connection that runs the secrecy check on everything it is sent."""

    def __init__(self, room: Room, watch: SecrecyWatch, **options: Any) -> None:
        super().__init__(room, **options)
        self.watch = watch

    def send(self, message: Mapping[str, Any]) -> None:
        self.watch.check(dict(message))
        super().send(message)


def receive(ws: Any, kind: str, where: Callable[[dict[str, Any]], bool] = lambda m: True,
            limit: int = 300, errors_fail: bool = False) -> dict[str, Any]:
    """The next message of type ``kind`` that passes ``where`` on a `TestClient` websocket,
    answering pings on the way; with ``errors_fail``, an ``error`` on the way fails at once.
    ``limit`` messages without it fail the test instead of hanging it."""
    for _ in range(limit):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == "ping" and kind != "ping":
            ws.send_json({"type": "pong", "id": message["id"]})
        if message["type"] == kind and where(message):
            return message
        assert not errors_fail or message["type"] != "error", message
    raise AssertionError(f"no {kind} message in {limit}")


def play_to_the_end(ws: Any, seat: int, limit: int = 2_000) -> dict[str, Any]:
    """The ``game_over`` of a `TestClient` websocket's game, its seat playing a card whenever
    the state says it may. For the player left after the others resign: a resigned player may
    slap back in, so the game goes on until one seat holds every card, and a player who only
    waited would wait out a turn timeout per card. A play refused because the pile's
    collection came due on its way changes nothing (the next state is played on); any other
    error fails. ``limit`` messages without ``game_over`` fail the test instead of hanging it."""
    played: set[int] = set()
    for _ in range(limit):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == "ping":
            ws.send_json({"type": "pong", "id": message["id"]})
        elif message["type"] == "game_over":
            return message
        elif (message["type"] == "state" and message["observation"]["may"]["play"][seat]
              and message["version"] not in played):
            played.add(message["version"])
            ws.send_json({"type": "play"})
        assert message["type"] != "error" or message["code"] == "illegal", message
    raise AssertionError(f"no game_over in {limit} messages")
