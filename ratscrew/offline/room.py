"""A room for one person and bots, hosted in the browser's worker (the offline table, issue 51).

It speaks the online protocol: :meth:`OfflineRoom.receive` takes the frames the page would send
a server and returns the frames a server would send back, and :meth:`OfflineRoom.advance` moves
the game on the clock. Everything it says is made by the server's own parts, which need
nothing of the server's web or storage layers: the engine at a `ratscrew.runtime.Table`, the
bots (`ratscrew.bots.BotAgent`, paced as a room paces them, seated through
`ratscrew.server.room.agents.Shown`), the person's stand-in for a turn left to time out
(`ratscrew.server.room.agents.RemoteSeat`), the server's `ratscrew.server.room.publisher.Publisher`
(states, history, judgements, results, encoded as the server encodes them), its contest tally
and its ``rules`` entry. No rule is decided here.

What differs from a server's room, on purpose: there is one person, who hosts; the game starts
as soon as they sit down; actions are judged when they arrive (nothing travels a network, so
there is no settling window, as under ``first-packet`` judging); nothing is stored or rated.

>>> room = OfflineRoom(parse_play_query("bots=casual&time_limit_ms=60000&seed=7"), wall=lambda: 0.0)
>>> [json.loads(frame)["type"] for frame in room.receive('{"type": "join", "name": "Ann"}')]
['welcome', 'room', 'state', 'room']
"""

from __future__ import annotations

import json
import math
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import parse_qs

from ratscrew.bots.agent import BotAgent
from ratscrew.bots.profile import LEVELS, paced
from ratscrew.engine import Game
from ratscrew.events import CardPlayed, Event
from ratscrew.narrate import refusal_text
from ratscrew.protocol.client_messages import (
    PACE_FACTORS,
    PROTOCOL_VERSION,
    Act,
    HistoryRequest,
    Join,
    Pong,
    Rematch,
    RoomRequest,
    Start,
    parse_client_message,
    parse_room_request,
)
from ratscrew.protocol.codec import ProtocolError
from ratscrew.protocol.names import bot_name
from ratscrew.protocol.server_messages import (
    Phase,
    RoomMessage,
    SeatInfo,
    SeatResultInfo,
    ServerMessage,
    WelcomeMessage,
    error_message,
)
from ratscrew.runtime import SUBMITTED, Intent, Rejection, Table
from ratscrew.server.room.agents import RemoteSeat, Shown
from ratscrew.server.room.publisher import SHOWN_VERSIONS, Publisher
from ratscrew.server.room.rules import rules_entry
from ratscrew.server.room.tally import ContestTally
from ratscrew.server.ws.link import Pinger
from ratscrew.sim.summary import game_seed

CODE = "OFFLINE"
"""The offline table's room code (its page is ``/play``; room codes have six characters)."""
DEFAULT_BOTS = ("casual", "casual", "casual")
"""The bots of ``/play`` without a ``bots`` parameter."""


def parse_play_query(query: str) -> RoomRequest:
    """The table ``/play?QUERY`` asks for: ``rules`` (a preset), ``bots`` (levels, comma
    separated), ``time_limit_ms``, ``pace``, ``window_factor`` (the house rule "longer
    windows", for a slower table) and ``seed``, every one optional; checked as the server checks
    ``POST /api/rooms`` (a `ProtocolError` names the field).

    >>> request = parse_play_query("rules=classic&bots=casual,casual,casual&time_limit_ms=600000")
    >>> request.rules.name, request.seats, request.bots, request.time_limit_ms
    ('classic', 4, ('casual', 'casual', 'casual'), 600000)
    >>> parse_play_query("").bots
    ('casual', 'casual', 'casual')
    >>> parse_play_query("bots=grandmaster")
    Traceback (most recent call last):
    ...
    ratscrew.protocol.codec.ProtocolError: room: bots: a bot level is one of ...
    """
    fields = {key: values[-1] for key, values in parse_qs(query.lstrip("?"), keep_blank_values=True).items()}
    bots = [level for level in fields.get("bots", ",".join(DEFAULT_BOTS)).split(",") if level]
    if not bots:
        raise ProtocolError("bad_message", "room: bots: the offline table needs at least one bot")
    body: dict[str, Any] = {"rules": fields.get("rules", "classic"), "seats": len(bots) + 1,
                            "bots": bots, "judging": "first-packet"}
    for name in ("time_limit_ms", "seed", "window_factor"):
        if name in fields:
            try:
                body[name] = int(fields[name])
            except ValueError:
                raise ProtocolError("bad_message", f"room: {name} must be a whole number, "
                                                   f"not {fields[name][:20]!r}") from None
    if "pace" in fields:
        body["pace"] = fields["pace"]
    return parse_room_request(body)


class _Page:
    """The one connection: what the room sends is kept as text for the worker to post."""

    address = "worker"

    def __init__(self, now: Callable[[], float]) -> None:
        self.pinger = Pinger()
        self.out: list[str] = []
        self._now = now
        self._shown: dict[int, float] = {}

    def send(self, message: ServerMessage) -> None:
        self.out.append(json.dumps(message, separators=(",", ":"), ensure_ascii=False))

    def send_state(self, version: int, encoded: str) -> None:
        # stamped as the server's connection stamps it on the way out
        sent = self._now()
        self._shown[version] = sent
        self._shown.pop(version - SHOWN_VERSIONS, None)
        self.out.append(f'{{"sent_at":{round(sent)},"server_time_ms":'
                        f'{round(time.time() * 1000.0, 1)},{encoded[1:]}')

    def send_encoded(self, encoded: str) -> None:
        self.out.append(encoded)

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Nothing to close: the page ends the worker."""

    def shown_at(self, version: int) -> float | None:
        return self._shown.get(version)


class OfflineRoom:
    """One person (seat 0, the host) and the bots ``request`` names (see the module docstring).
    ``wall`` is the clock in seconds (the browser's, through Pyodide)."""

    def __init__(self, request: RoomRequest, *, wall: Callable[[], float] = time.monotonic) -> None:
        self.request = request
        self._wall = wall
        self._base = wall()
        self.page = _Page(self.now)
        self.publisher = Publisher(self.now)
        self.names = ["You", *(bot_name(level, number) for level, number in _numbered(request.bots))]
        self.phase: Phase = "lobby"
        self.token: str | None = None
        self.games_played = 0
        self.game: Game | None = None
        self.table: Table | None = None
        self.tally = ContestTally(request.seats)
        self._tracked_actions = 0
        self._shown_pile: list[str] = []
        self._finished = False
        self._actions: list[tuple[int, int]] = []
        """Each seat's actions in the current game, and those its stand-in made on time-out."""

    # ------------------------------------------------------------------ the clock

    def now(self) -> float:
        """Room time in ms since the current game started (since the room opened before)."""
        return round((self._wall() - self._base) * 1000.0, 3)

    def next_wake(self) -> float | None:
        """The room time at which :meth:`advance` next has something to do, if anything."""
        if self.phase != "playing" or self.table is None:
            return None
        due = [at for at in (self.tally.due_at(), self._time_limit_at()) if at is not None]
        upcoming = self.table.next_due()
        if upcoming is not None:
            due.append(upcoming[0])
        return min(due) if due else None

    def wake_in_ms(self) -> float | None:
        """How long until :meth:`advance` has something to do (``None``: nothing is due)."""
        wake = self.next_wake()
        return None if wake is None else max(0.0, math.ceil(wake - self.now()))

    # ------------------------------------------------------------------ the protocol

    def receive(self, frame: str) -> list[str]:
        """One frame from the page; the frames the room sends in answer (JSON text, as on a
        websocket)."""
        try:
            message = parse_client_message(frame)
            self._handle(message)
        except ProtocolError as error:
            self.page.send(error.to_message())
        return self._take()

    def advance(self) -> list[str]:
        """Move the game up to now; the frames the room sends because of it."""
        self._step()
        return self._take()

    def _take(self) -> list[str]:
        out, self.page.out = self.page.out, []
        return out

    def _handle(self, message: object) -> None:
        if isinstance(message, Pong):
            return
        if isinstance(message, Join):
            self._join(message)
            return
        if self.token is None:
            raise ProtocolError("not_seated", "join the table first")
        if isinstance(message, Act):
            self._act(message)
        elif isinstance(message, HistoryRequest):
            self.publisher.answer_history(self.page, message.since)
        elif isinstance(message, (Start, Rematch)):
            if self.phase == "playing":
                raise ProtocolError("wrong_phase", "the game has already started")
            self._start_game()
        else:
            raise ProtocolError("bad_message", "the offline table has one person and its bots: "
                                               "there is nothing to change or share")

    def _join(self, message: Join) -> None:
        self.token = message.token or secrets.token_urlsafe(24)
        self.names[0] = message.name
        welcome: WelcomeMessage = {"type": "welcome", "protocol": PROTOCOL_VERSION, "code": CODE,
                                   "seat": 0, "token": self.token, "host": True,
                                   "name": message.name, "status": "player", "player_id": None}
        self.page.send(welcome)
        self.page.send(self.summary())
        if self.game is None:
            self._start_game()  # the table against bots opens at once
        else:
            self.publisher.send_current(self.page, 0, self.game, self.games_played, 0.0,
                                        self.phase == "over")

    def _act(self, message: Act) -> None:
        if self.phase != "playing" or self.table is None or self.game is None:
            raise ProtocolError("wrong_phase", f"{message.kind}: no game is being played")
        self._step()
        if self.game.over:
            return
        self.table.submit(0, message.kind, at=max(self.now(), float(self.game.now)))
        self._step()

    # ------------------------------------------------------------------ the game

    def _start_game(self) -> None:
        request = self.request
        seed = request.seed if request.seed is not None and self.games_played == 0 else secrets.randbits(62)
        game = Game.deal(request.rules, players=request.seats, seed=seed)
        self.games_played += 1
        self._base = self._wall()
        self.game, self.phase, self._finished = game, "playing", False
        self.tally = ContestTally(request.seats)
        self._tracked_actions = game.action_count
        self._shown_pile = []
        agents: list[Shown] = [Shown(RemoteSeat(request.turn_timeout_ms), self.now)]
        profile_pace = PACE_FACTORS[request.pace]
        agents += [Shown(BotAgent(paced(LEVELS[level], profile_pace), seed=game_seed(game.seed, seat)),
                         self.now) for seat, level in enumerate(request.bots, start=1)]
        self.table = Table(game, agents, keep_events=False)
        self.table.add_listener(self._on_events)
        self.table.add_rejection_listener(self._on_rejected)
        self.table.add_action_listener(self._on_action)
        self._actions = [(0, 0) for _ in range(request.seats)]
        self.publisher.start_game(self.games_played)
        self.table.start()
        self._publish([])
        self.publisher.card_version = self.publisher.version
        self.page.send(self.summary())

    def _time_limit_at(self) -> float | None:
        return float(self.request.time_limit_ms) if self.request.time_limit_ms else None

    def _step(self) -> None:
        table, game = self.table, self.game
        if table is None or game is None or self.phase != "playing":
            return
        now = self.now()
        limit = self._time_limit_at()
        if limit is not None and now >= limit:
            table.fire_due(limit - 1)
            if not game.over:
                table.end_on_time(limit)
        else:
            table.fire_due(now)
        self._track_slaps([])
        due = self.tally.due_at()
        if due is not None and (game.over or now >= due):
            self.tally.close()
        self._send_judgements()
        if game.over and not self._finished:
            self._finish()

    def _on_events(self, events: Sequence[Event]) -> None:
        self._track_slaps(events)
        self._publish(events)
        assert self.game is not None
        self._shown_pile = [str(card) for card in self.game.live_pile]

    def _on_action(self, seat: int, intent: Intent) -> None:
        actions, by_time_out = self._actions[seat]
        stand_in = seat == 0 and intent.note != SUBMITTED
        self._actions[seat] = (actions + 1, by_time_out + stand_in)

    def _on_rejected(self, rejection: Rejection) -> None:
        if rejection.intent.note == SUBMITTED and self.game is not None:
            self.page.send(error_message("illegal", refusal_text(
                rejection, self.names[rejection.seat], self.game.observe(None), self.names)))

    def _publish(self, events: Sequence[Event]) -> None:
        assert self.game is not None
        self.publisher.publish(self.game, self.games_played, events, self.names, 0.0,
                               [(self.page, 0)], self._reaction_ms)

    def _reaction_ms(self, seat: int, at: int) -> int | None:
        shown = self.publisher.shown_at(self.publisher.card_version)
        return None if shown is None else round(at - shown)

    def _track_slaps(self, events: Sequence[Event]) -> None:
        """As the server's room: every accepted slap to the tally, then the step's events."""
        game = self.game
        assert game is not None
        actions = game.actions_since(self._tracked_actions)
        self._tracked_actions += len(actions)
        cards_before = game.cards_played - sum(isinstance(e, CardPlayed) for e in events)
        for kind, seat, at in actions:
            if kind == "slap" and seat is not None:
                self.tally.slap(cards_before, seat, at, self._shown_pile, self._reaction_ms(seat, at), 0)
        self.tally.events(events, self._reaction_ms)
        self._send_judgements()

    def _send_judgements(self) -> None:
        for contest in self.tally.take_closed():
            self.publisher.judgement(contest, self.games_played, self.names, [self.page])

    def _finish(self) -> None:
        game = self.game
        assert game is not None
        self._finished = True
        self.tally.close()
        self._send_judgements()
        self.phase = "over"
        tallies = [tally.public() for tally in self.tally.tallies]
        results: list[SeatResultInfo] = [
            {"seat": seat, "name": self.names[seat], "kind": "human" if seat == 0 else "bot",
             **tallies[seat], "actions": 0, "by_stand_in": 0, "by_time_out": 0}
            for seat in range(self.request.seats)]
        for seat, (actions, by_time_out) in enumerate(self._actions):
            results[seat]["actions"], results[seat]["by_time_out"] = actions, by_time_out
        self.publisher.finish({
            "type": "game_over", "winner": game.winner, "reason": game.end_reason or "unknown",
            "game_id": 0, "record_url": "", "replay_url": "", "results": results}, [self.page])
        self.page.send(self.summary())

    # ------------------------------------------------------------------ the room message

    def summary(self) -> RoomMessage:
        """The ``room`` message, as the server words it (docs/protocol.md)."""
        request = self.request
        seats: list[SeatInfo] = [{"seat": 0, "kind": "human", "name": self.names[0], "host": True,
                                  "connected": True, "ready": True, "ping_ms": None,
                                  "stand_in": None, "you": True}]
        seats += [{"seat": seat, "kind": "bot", "name": self.names[seat], "bot": level}
                  for seat, level in enumerate(request.bots, start=1)]
        return {
            "type": "room", "code": CODE, "phase": self.phase,
            "rules": rules_entry(request.rules),
            "settings": {"seats": request.seats, "pace": request.pace,
                         "turn_timeout_ms": request.turn_timeout_ms, "judging": request.judging,
                         "seeded": request.seed is not None, "time_limit_ms": request.time_limit_ms},
            "seats": seats, "waiting": [], "open_seats": 0, "spectators": 0,
            "games_played": self.games_played, "game_id": None, "settle_ms": 0,
            "expected_length": None,
            "you": {"seat": 0, "host": True, "status": "player", "name": self.names[0]},
        }


def _numbered(levels: Sequence[str]) -> list[tuple[str, int]]:
    """Each bot's level and its number among the bots of that level (as the lobby names them)."""
    counts: dict[str, int] = {}
    numbered = []
    for level in levels:
        counts[level] = counts.get(level, 0) + 1
        numbered.append((level, counts[level]))
    return numbered
