"""What a room keeps in its store: its seats and settings, each game's start, every step's
actions and judgements, and the game's end; and a game in progress rebuilt from them.

A room writes through a :class:`RoomRecorder`, which remembers how much of the current game is
stored, so that each step is appended once and whole (the actions and their judgements in one
transaction). Steps and a game's end go through the process's
`ratscrew.server.room.writer.StepWriter`, which stores them off the event loop's critical path and
holds everything the room sends after them in the room's `ratscrew.server.room.writer.Outbox` until
they are stored (persist before publish): a step the store refused
(`ratscrew.storage.records.StoreUnavailable`) was never seen by anyone. The room's settings and
seats and its tokens are written at once on SQLite, and on PostgreSQL through the writer's task
on the event loop (`StepWriter.keeps_writes_off_the_loop`: a join never holds the event loop for
a round trip; the welcome waits for them instead); so is a game's start, with an id the writer
took ahead of time (`ratscrew.server.room.writer.GameIds`), and at once on SQLite or when none is at
hand (the room needs the new game's id before its first step). The recorder works the same on
any store (SQLite or PostgreSQL) and in any process.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ratscrew.cards import format_cards
from ratscrew.engine import RECORD_FORMAT, RECORD_VERSION, Game
from ratscrew.server.ladder import ratings
from ratscrew.server.room.lobby import Lobby, RoomSettings
from ratscrew.server.room.writer import OnLost, Outbox, StepWriter
from ratscrew.storage.records import RoomRow, SeatResult, SeatRow, StepRows
from ratscrew.storage.roles import Store

RoomParts = tuple[RoomSettings, Lobby, int, int | None]
"""What `RoomRecorder.save_room` stores of a room: settings, lobby, games played, game id."""

log = logging.getLogger("ratscrew.server")


@dataclass(frozen=True)
class StoredGame:
    """A game in progress as the store holds it: rebuilt up to its last stored action, and
    the judgements of the people's actions so far."""

    game: Game
    judged: list[dict[str, Any]]


@dataclass(frozen=True)
class StoredRoom:
    """A room as its store holds it: the row (``None``: never stored) and the game in progress."""

    row: RoomRow | None
    game: StoredGame | None


class RoomRecorder:
    """One room's writes to its store (see the module docstring)."""

    def __init__(self, store: Store, code: str, writer: StepWriter, outbox: Outbox,
                 on_lost: OnLost) -> None:
        self.store = store
        self.code = code
        self.writer = writer
        self.outbox = outbox
        """Where the room's messages wait for its writes."""
        self.on_lost = on_lost
        """What the room does when a write that went through the writer failed."""
        self._saved_actions = 0
        self._saved_judged = 0

    def save_room(self, settings: RoomSettings, lobby: Lobby, games_played: int,
                  game_id: int | None) -> None:
        """Write the room's settings, phase and seats: at once, or after the writes the room
        still waits for (so that an older picture of the room never overwrites a newer one), or
        (PostgreSQL, on the event loop) in the writer's task: what the room sends waits for it."""
        row = self._room_row(settings, lobby, games_played, game_id)
        store = self.store
        self._write(lambda: store.save_room(*row), lambda: store.save_room_async(*row))

    async def save_room_async(self, settings: RoomSettings, lobby: Lobby, games_played: int,
                              game_id: int | None) -> None:
        """Write the room now, without a round trip on the event loop (a new room, before its
        code is given out)."""
        await self.store.save_room_async(*self._room_row(settings, lobby, games_played, game_id))

    def _write(self, call: Callable[[], None], call_async: Callable[[], Awaitable[None]]) -> None:
        """Make a write at once, or queue it behind the room's writes in flight, or (PostgreSQL,
        on the event loop) hand it to the writer's task (`StepWriter.keeps_writes_off_the_loop`)."""
        if self.outbox.holding or self.writer.keeps_writes_off_the_loop:
            self.writer.write(self.outbox, call, self.on_lost, call_async)
        else:
            call()

    def _room_row(self, settings: RoomSettings, lobby: Lobby, games_played: int,
                  game_id: int | None) -> tuple[str, dict[str, Any], str | None, str, int,
                                                int | None, list[SeatRow]]:
        return (self.code, settings.to_json(), lobby.members.host_hash, lobby.phase, games_played,
                game_id, [seat.row() for seat in lobby.seats])

    def add_member(self, token_hash: str, name: str) -> None:
        """A token given out in this room, to someone who may not hold a seat."""
        store, code = self.store, self.code
        self._write(lambda: store.add_member(code, token_hash, name),
                    lambda: store.add_member_async(code, token_hash, name))

    def add_kicked(self, token_hash: str) -> None:
        """A token the host removed from this room."""
        store, code = self.store, self.code
        self._write(lambda: store.add_kicked(code, token_hash),
                    lambda: store.add_kicked_async(code, token_hash))

    def start_game(self, number: int, game: Game, names: Sequence[str | None],
                   room: dict[str, Any]) -> int:
        """Store a new game's start (rules, hands, leader, seed, names); its game id. On
        PostgreSQL in a running loop, with an id taken ahead of time, the start goes through the
        writer (what the room sends waits for it) instead of being written at once."""
        start = {"rules": game.rules.to_dict(), "hands": [format_cards(hand) for hand in game.initial_hands],
                 "leader": game.leader, "seed": game.seed, "names": list(names), "room": room}
        store, code, rules_name = self.store, self.code, game.rules.name
        game_id = self.writer.reserved_game_id()
        if game_id is None:
            return store.start_game(code, number, rules_name, start, 0.0)
        reserved = game_id

        def write() -> None:
            store.start_game(code, number, rules_name, start, 0.0, reserved)

        self._write(write, lambda: store.start_game_async(code, number, rules_name, start, 0.0, reserved))
        return game_id

    def begin(self, game: Game, judged: int = 0) -> None:
        """From now on, steps of ``game`` are appended after what is stored already (its
        actions so far and ``judged`` judgements)."""
        self._saved_actions = game.action_count
        self._saved_judged = judged

    def save_step(self, game_id: int, game: Game, judged: Sequence[dict[str, Any]]) -> None:
        """Append the actions the engine took and the judgements made since the last call."""
        actions = (game.actions_since(self._saved_actions) if game.action_count > self._saved_actions
                   else [])
        new_judged = judged[self._saved_judged:]
        if actions or new_judged:
            self.writer.append_step(self.outbox, StepRows(game_id, self._saved_actions, actions,
                                                          self._saved_judged, new_judged),
                                    self.on_lost)
            self._saved_actions += len(actions)
            self._saved_judged += len(new_judged)

    def finish_game(self, game_id: int, record: dict[str, Any], game: Game,
                    results: list[SeatResult], room: RoomParts, reason: str | None = None) -> None:
        """Store a finished game's record and each seat's result, then rate it (exactly once:
        see :mod:`ratscrew.server.ladder.ratings`), then the room as it is now (``room``: its settings,
        lobby, games played and game id); after the game's last steps, and before anything the
        room sends from now on. ``reason``: why it ended, when not the engine's
        (``abandoned``)."""
        store, winner, ended = self.store, game.winner, reason or game.end_reason
        room_row = self._room_row(*room)  # taken now: the write may run in another thread

        def finish() -> None:
            store.finish_game(game_id, record, winner, ended, results)
            ratings.rate_finished_game(store, game_id)
            store.save_room(*room_row)

        self.writer.write(self.outbox, finish, self.on_lost)

    def stored_game(self, game_id: int) -> StoredGame | None:
        """The game in progress with this id, rebuilt by replaying its stored actions; ``None``
        if the store holds no such game in progress."""
        stored = self.store.game_in_progress(game_id)
        if stored is None:
            return None
        start = stored.start
        record = {"format": RECORD_FORMAT, "version": RECORD_VERSION, "rules": start["rules"],
                  "hands": start["hands"], "leader": start["leader"], "seed": start["seed"],
                  "actions": [list(a) for a in stored.actions]}
        game = Game.from_record(record)
        log.info("room %s: game id %d resumed after %d actions at %d ms", self.code, game_id,
                 len(stored.actions), game.now)
        return StoredGame(game, list(stored.judged))
