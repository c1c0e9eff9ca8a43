"""The step writer (`ratscrew.server.room.writer`): steps stored off the event loop's critical path,
one transaction for a loop turn's steps on SQLite, a connection of the writer's own on PostgreSQL,
and what a room sends held until the step it shows is stored (persist before publish)."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from online import FakeConnection, FakeWall, move_to
from postgres import PostgresCluster

from ratscrew.protocol.client_messages import Join, Start, Watch, parse_room_request
from ratscrew.server.ops.metrics import PUBLISH_WAIT_BUCKETS, Tally
from ratscrew.server.room.room import Room
from ratscrew.server.room.writer import Closing, Item, Outbox, OutboxSends, StepWriter
from ratscrew.storage.opening import open_store
from ratscrew.storage.postgres import PostgresStore
from ratscrew.storage.postgres_steps import StepsConnection
from ratscrew.storage.records import StepRows, StoreUnavailable
from ratscrew.storage.roles import Store
from ratscrew.storage.sql import Conflict
from ratscrew.storage.sqlite import SqliteStore


class Recording(OutboxSends):
    """A connection that writes down what reaches the wire, in order."""

    def __init__(self, outbox: Outbox | None = None) -> None:
        self.outbox = outbox
        self.wire: list[Any] = []

    def send_now(self, item: Item) -> None:
        if isinstance(item, Closing):
            self.close_now(item.code, item.reason)
        else:
            self.wire.append(item)

    def close_now(self, code: int = 1000, reason: str = "") -> None:
        self.wire.append(("closed", code))


def never_lost(error: Exception) -> None:
    raise AssertionError(f"a write was lost: {error}")


def a_game(store: Store, code: str) -> int:
    store.save_room(code, {}, None, "playing", 1, None, [])
    return store.start_game(code, 1, "classic", {"rules": {}}, 0.0)


def stored_actions(store: Store, game_id: int) -> int:
    stored = store.game_in_progress(game_id)
    assert stored is not None
    return len(stored.actions)


def test_what_a_room_sends_after_a_write_waits_for_it_in_order_close_included() -> None:
    outbox = Outbox()
    ann = Recording(outbox)
    ann.send({"type": "notice", "code": "resumed", "message": "before any write"})
    assert len(ann.wire) == 1  # nothing held: sent at once
    outbox.hold_until(1)
    ann.send_state(7, '{"type":"state","version":7}')
    outbox.hold_until(2)
    ann.send_encoded('{"type":"room"}')
    ann.close(4000, "kicked")
    assert len(ann.wire) == 1
    outbox.release(1)
    assert ann.wire[1:] == [(7, '{"type":"state","version":7}')]
    outbox.release(2)
    assert ann.wire[2:] == ['{"type":"room"}', ("closed", 4000)]
    assert not outbox.holding


def test_on_sqlite_the_steps_every_room_took_in_one_loop_turn_are_one_transaction(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "ratscrew.db")
    writer = StepWriter(store)
    games = [a_game(store, code) for code in ("AAAA", "BBBB", "CCCC")]
    outboxes = [Outbox() for _ in games]
    people = [Recording(outbox) for outbox in outboxes]

    async def one_turn() -> None:
        for n, (game_id, outbox, person) in enumerate(zip(games, outboxes, people, strict=True)):
            writer.append_step(outbox, StepRows(game_id, 0, [("play", 0, 10 * n)], 0, []), never_lost)
            person.send({"type": "notice", "code": "resumed", "message": f"step {n}"})
        # the turn is not over: nothing is stored, nothing is shown
        assert [stored_actions(store, game_id) for game_id in games] == [0, 0, 0]
        assert all(person.wire == [] for person in people)
        await asyncio.sleep(0)  # the loop turns: the writer writes
        assert [stored_actions(store, game_id) for game_id in games] == [1, 1, 1]
        assert [len(person.wire) for person in people] == [1, 1, 1]

    asyncio.run(one_turn())
    assert (writer.batches, writer.steps) == (1, 3)
    store.close()


def test_on_postgresql_steps_are_written_off_the_event_loop_and_shown_once_stored(
        fresh_database: str) -> None:
    store = open_store(fresh_database)
    writer = StepWriter(store)
    game_id = a_game(store, "PGPG")
    outbox = Outbox()
    checked: list[int] = []

    class Checking(Recording):
        def send_now(self, item: Item) -> None:  # when it goes out, its step is in PostgreSQL
            if isinstance(item, tuple):
                checked.append(item[0])
                assert stored_actions(store, game_id) >= item[0]
            super().send_now(item)

    ann = Checking(outbox)

    async def play() -> int:
        turns = 0
        for n in range(1, 41):  # every third step with a person's judged action
            judged = [{"seat": 0, "kind": "play", "n": n}] if n % 3 == 0 else []
            writer.append_step(outbox, StepRows(game_id, n - 1, [("play", n % 2, 100 * n)], (n - 1) // 3,
                                                judged), never_lost)
            ann.send_state(n, json.dumps({"type": "state", "version": n}))
            await asyncio.sleep(0)
            turns += 1
        while outbox.holding:  # the loop keeps turning while PostgreSQL answers
            await asyncio.sleep(0)
            turns += 1
        await store.close_async()
        return turns

    turns = asyncio.run(play())
    assert checked == list(range(1, 41)) and stored_actions(store, game_id) == 40
    stored = store.game_in_progress(game_id)
    assert stored is not None and [entry["n"] for entry in stored.judged] == list(range(3, 41, 3))
    assert writer.steps == 40 and writer.batches < 40  # steps queued while one was in flight went together
    assert turns > 40
    store.close()


def test_on_postgresql_a_batchs_messages_go_out_in_the_turn_its_answer_is_read(
        fresh_database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the writer's connection is made, each batch is sent without a task
    (`Store.start_steps`): the state it held back goes out from the connection's reader, in the
    turn the answer is read, not a turn later when a task would have been woken."""
    wire_lengths_after_reads: list[tuple[int, int]] = []  # around each read of the socket
    reading = StepsConnection._on_readable

    def read_and_see(self: StepsConnection) -> None:
        before = len(ann.wire)
        reading(self)
        wire_lengths_after_reads.append((before, len(ann.wire)))

    monkeypatch.setattr(StepsConnection, "_on_readable", read_and_see)
    store = open_store(fresh_database)
    tally = Tally()
    writer = StepWriter(store, tally=tally)
    game_id = a_game(store, "TURN")
    outbox = Outbox()
    ann = Recording(outbox)

    async def play() -> None:
        writer.append_step(outbox, StepRows(game_id, 0, [("play", 0, 0)], 0, []), never_lost)
        await writer.drain()  # the first makes the connection, in a task
        wire_lengths_after_reads.clear()
        for n in range(1, 11):
            writer.append_step(outbox, StepRows(game_id, n, [("play", n % 2, 10 * n)], 0, []), never_lost)
            ann.send_state(n, json.dumps({"type": "state", "version": n}))
            await writer.drain()
        await store.close_async()

    asyncio.run(play())
    assert [item[0] for item in ann.wire] == list(range(1, 11))
    assert stored_actions(store, game_id) == 11
    sent_by_a_read = [after - before for before, after in wire_lengths_after_reads if after > before]
    assert sent_by_a_read == [1] * 10, wire_lengths_after_reads
    assert tally.store_calls.count == 10  # each batch's round trip counted once, by the writer
    store.close()


def test_on_postgresql_a_batch_the_database_refuses_is_lost_and_the_next_goes_on_a_new_connection(
        fresh_database: str) -> None:
    store = open_store(fresh_database)
    assert isinstance(store, PostgresStore)
    writer = StepWriter(store)
    game_id = a_game(store, "FKEY")
    outbox = Outbox()
    ann = Recording(outbox)
    lost: list[Exception] = []

    async def play() -> None:
        writer.append_step(outbox, StepRows(game_id, 0, [("play", 0, 0)], 0, []), never_lost)
        await writer.drain()
        writer.append_step(outbox, StepRows(999_999, 0, [("play", 0, 0)], 0, []), lost.append)  # no such game
        ann.send_state(1, '{"type":"state","version":1}')
        await writer.drain()
        writer.append_step(outbox, StepRows(game_id, 1, [("play", 1, 500)], 0, []), never_lost)
        ann.send_state(2, '{"type":"state","version":2}')
        await writer.drain()
        await store.close_async()

    asyncio.run(play())
    assert len(lost) == 1 and isinstance(lost[0], Conflict)  # the store's error, as when awaited
    assert ann.wire == [(2, '{"type":"state","version":2}')]  # what the refused batch held is dropped
    assert stored_actions(store, game_id) == 2 and store.steps_connection.connections == 2
    store.close()


def test_on_postgresql_a_write_whose_task_is_cancelled_is_made_by_drain_not_forgotten(
        fresh_database: str) -> None:
    """A loop that is ending cancels its tasks: the write the writer's task was making, and what
    queued behind it, go back in the queue, and `drain` makes them at once, so the room's held
    message still goes out and nothing waits for a task that is gone."""
    store = open_store(fresh_database)
    writer = StepWriter(store)
    game_id = a_game(store, "CANC")
    outbox = Outbox()
    ann = Recording(outbox)
    made: list[str] = []

    async def never_answered() -> None:
        await asyncio.sleep(60)

    async def play() -> None:
        writer.write(outbox, lambda: made.append("at once"), never_lost, never_answered)
        writer.append_step(outbox, StepRows(game_id, 0, [("play", 0, 0)], 0, []), never_lost)
        ann.send_state(1, '{"type":"state","version":1}')
        await asyncio.sleep(0.05)  # the task awaits the write
        task = writer._task
        assert task is not None and not task.done() and ann.wire == []
        task.cancel()
        await asyncio.wait_for(writer.drain(), 10)
        await store.close_async()

    asyncio.run(play())
    assert made == ["at once"] and ann.wire == [(1, '{"type":"state","version":1}')]
    assert stored_actions(store, game_id) == 1 and writer.pending == 0
    store.close()


def test_on_sqlite_under_load_transactions_begin_at_least_the_gap_apart_and_share_what_queued(
        tmp_path: Path) -> None:
    """A step every loop turn: the first is written at the end of its turn, the next ones wait
    for the gap (every commit writes its pages to the log again) and then go together. (The gap
    here is longer than the server's, so that no slow loop turn hides it.)"""
    store = SqliteStore(tmp_path / "ratscrew.db")
    gap = 0.03
    writer = StepWriter(store, commit_gap_s=gap)
    game_id = a_game(store, "GAPS")
    outbox = Outbox()
    begun: list[tuple[float, int]] = []  # when each transaction of steps began, and its steps
    append = store.append_steps

    def timed(steps: Sequence[StepRows]) -> None:
        begun.append((time.monotonic(), len(steps)))
        append(steps)

    store.append_steps = timed  # type: ignore[method-assign]

    async def play() -> None:
        started = time.monotonic()
        n = 0
        while writer.batches < 6 and time.monotonic() - started < 10:  # a step every loop turn
            writer.append_step(outbox, StepRows(game_id, n, [("play", n % 2, n)], 0, []), never_lost)
            n += 1
            await asyncio.sleep(0)
        await asyncio.sleep(2 * gap)  # the last steps go in their own time too
        await writer.drain()

    asyncio.run(play())
    gaps = [later - earlier for (earlier, _), (later, _) in itertools.pairwise(begun)]
    # (a transaction's own start is stamped a moment after the writer's: 10% allowed for that)
    assert len(begun) >= 6 and min(gaps) >= 0.9 * gap, gaps
    assert begun[0][1] == 1 and max(size for _, size in begun[1:]) > 1  # the first at once; then shared
    assert sum(size for _, size in begun) == writer.steps == stored_actions(store, game_id)
    store.close()


def test_each_write_counts_how_long_it_held_its_room_back(tmp_path: Path) -> None:
    """``ratscrew_publish_wait_seconds``: one sample per write, from queued to stored. Two steps
    in one loop turn go at its end together; a step queued right after that transaction waits
    out SQLite's spacing (a long one here, so that it shows in the buckets whatever the
    machine's load)."""
    store = SqliteStore(tmp_path / "ratscrew.db")
    tally = Tally()
    writer = StepWriter(store, commit_gap_s=0.3, tally=tally)
    game_id = a_game(store, "WAIT")
    outbox = Outbox()

    async def play() -> None:
        writer.append_step(outbox, StepRows(game_id, 0, [("play", 0, 0)], 0, []), never_lost)
        writer.append_step(outbox, StepRows(game_id, 1, [("play", 1, 1)], 0, []), never_lost)
        await asyncio.sleep(0.02)  # the end of the turn wrote both
        assert tally.publish_waits.count == 2
        writer.append_step(outbox, StepRows(game_id, 2, [("play", 0, 2)], 0, []), never_lost)
        await asyncio.sleep(0.4)  # (not drain(): that writes at once, spacing or not)

    asyncio.run(play())
    waits = tally.publish_waits
    assert waits.count == 3 == stored_actions(store, game_id)
    quick = sum(waits.buckets[:PUBLISH_WAIT_BUCKETS.index(0.05) + 1])  # within 50 ms
    spaced = sum(waits.buckets[PUBLISH_WAIT_BUCKETS.index(0.1) + 1:])  # over 100 ms: the spacing
    assert (quick, spaced) == (2, 1), waits.buckets
    assert 0.1 < waits.sum < 2.0
    store.close()


def test_a_lost_write_drops_what_waited_for_it_and_the_room_hears_of_it(
        private_cluster: PostgresCluster) -> None:
    store = open_store(private_cluster.create_database())
    writer = StepWriter(store)
    game_id = a_game(store, "LOST")
    outbox = Outbox()
    ann = Recording(outbox)
    lost: list[Exception] = []

    async def play() -> None:
        writer.append_step(outbox, StepRows(game_id, 0, [("play", 0, 0)], 0, []), lost.append)
        ann.send_state(1, '{"type":"state","version":1}')
        await writer.drain()
        private_cluster.stop()
        writer.append_step(outbox, StepRows(game_id, 1, [("play", 1, 500)], 0, []), lost.append)
        writer.append_step(outbox, StepRows(game_id, 2, [("play", 0, 900)], 0, []), lost.append)
        ann.send_state(2, '{"type":"state","version":2}')
        ann.close(1012, "bye")
        await writer.drain()
        await store.close_async()

    asyncio.run(play())
    assert ann.wire == [(1, '{"type":"state","version":1}')]  # state 2 and the close never went out
    assert len(lost) == 1 and isinstance(lost[0], StoreUnavailable)  # the room is told once
    assert not outbox.holding and writer.pending == 0
    private_cluster.start()
    assert store.reachable() and stored_actions(store, game_id) == 1
    store.close()


class HeldFakeConnection(OutboxSends, FakeConnection):  # type: ignore[misc]  # send takes any mapping there
    """A test client behind its room's outbox, as a websocket is; checks that every state it is
    sent shows only actions the store already holds."""

    def __init__(self, room: Room) -> None:
        FakeConnection.__init__(self, room)
        self.outbox = room.outbox
        self.checked = 0

    def send_now(self, item: Item) -> None:
        if isinstance(item, Closing):
            FakeConnection.close(self, item.code, item.reason)
        elif isinstance(item, tuple):
            game, game_id = self.room.game, self.room.game_id
            assert game is not None and game_id is not None
            stored = self.room.store.game_in_progress(game_id)
            if stored is not None or not game.over:  # a finished game's actions sit in its record
                held = [] if stored is None else stored.actions
                assert held == game.actions_since(0), (  # (the test lets nothing act meanwhile)
                    f"state {item[0]} sent with {game.action_count} actions taken, {len(held)} stored")
                self.checked += 1
            FakeConnection.send_state(self, *item)
        elif isinstance(item, str):
            FakeConnection.send_encoded(self, item)
        else:
            FakeConnection.send(self, item)

    def close_now(self, code: int = 1000, reason: str = "") -> None:
        FakeConnection.close(self, code, reason)


async def joined(conn: FakeConnection, name: str) -> dict[str, Any]:
    """Join in a running loop: on PostgreSQL the welcome waits until the writer has stored the
    joiner's token and seat (`StepWriter.keeps_writes_off_the_loop`)."""
    conn.room.connect(conn)
    conn.do(Join(name))
    await conn.room.writer.drain()
    return conn.last("welcome")


@pytest.mark.parametrize("database", ["sqlite", "postgres"])
def test_in_a_running_loop_a_room_shows_a_step_only_after_the_writer_stored_it(
        database: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    target = (str(tmp_path / "ratscrew.db") if database == "sqlite"
              else request.getfixturevalue("fresh_database"))
    store = open_store(target)
    request_data = parse_room_request({"rules": "classic", "seats": 3, "bots": ["expert", "casual"],
                                       "seed": 11, "turn_timeout_ms": 1000})
    wall = FakeWall()
    room = Room.create(request_data, store, wall=wall, drive=False)
    held_while_writing = 0

    async def play() -> None:
        nonlocal held_while_writing
        ann, watcher = HeldFakeConnection(room), HeldFakeConnection(room)
        await joined(ann, "Ann")
        room.connect(watcher)
        watcher.do(Watch())
        ann.do(Start())
        await room.writer.drain()  # the room's save at the start (PostgreSQL: in the writer's task)
        game = room.game
        assert game is not None
        while game.action_count < 60 and room.clock.now() < 120_000:
            due = room.next_wake()
            move_to(room, wall, room.clock.now() + 50 if due is None else max(due, room.clock.now()))
            before = len(ann.of("state"))
            room.tick()
            if room.outbox.holding:
                held_while_writing += 1
                assert len(ann.of("state")) == before  # its step is being stored: not shown yet
            await room.writer.drain()
        assert ann.checked > 20 and watcher.checked == ann.checked
        await store.close_async()

    asyncio.run(play())
    assert held_while_writing > 20  # the writer, not the room, stored the steps
    assert room.game is not None and room.game.action_count >= 60
    store.close()


def test_a_state_published_to_nobody_is_forgotten_with_the_write_the_store_lost(
        private_cluster: PostgresCluster) -> None:
    """Ann leaves; the bots play on, each step published to nobody. PostgreSQL stops under a
    write: the room pauses, and its history keeps no step the store does not hold (a page
    opening later must not see a move that was never made)."""
    store = open_store(private_cluster.create_database())
    request_data = parse_room_request({"rules": "classic", "seats": 3, "bots": ["expert", "casual"],
                                       "seed": 11, "turn_timeout_ms": 1000})
    wall = FakeWall()
    room = Room.create(request_data, store, wall=wall, drive=False)

    def played_in_history() -> int:
        told: dict[str, Any] = json.loads(json.dumps(room.publisher.history.message(None)))  # as sent
        return sum(1 for entry in told["entries"] for event in entry.get("events", [])
                   if event["kind"] == "card_played")

    async def play() -> tuple[int, int]:
        ann = FakeConnection(room)
        await joined(ann, "Ann")
        ann.do(Start())
        game = room.game
        assert game is not None
        room.disconnect(ann)  # nobody is there from now on: every state goes to no one
        while game.action_count < 10:
            move_to(room, wall, room.clock.now() + 100)
            room.tick()
            await room.writer.drain()
        assert not room.connections
        private_cluster.stop()
        while room.paused is None and room.clock.now() < 600_000:
            move_to(room, wall, room.clock.now() + 100)
            room.tick()  # the engine takes steps the writer cannot store
            await room.writer.drain()
        await store.close_async()
        assert room.game_id is not None
        return played_in_history(), room.game_id

    shown, game_id = asyncio.run(play())
    assert room.paused is not None
    private_cluster.start()
    assert store.reachable()
    stored = store.game_in_progress(game_id)
    assert stored is not None
    plays = sum(1 for action in stored.actions if action[0] == "play")
    assert shown == plays  # the history holds exactly the stored plays, none the store lost
    store.close()


def test_on_postgresql_in_a_running_loop_a_joiners_welcome_waits_for_their_token_and_seat(
        fresh_database: str) -> None:
    """The join's writes go through the writer's task (no round trip on the event loop), and
    what shows the join waits for them, as a step's state does."""
    store = open_store(fresh_database)
    request_data = parse_room_request({"rules": "classic", "seats": 2, "seed": 3})
    room = Room.create(request_data, store, wall=FakeWall(), drive=False)

    async def join() -> tuple[bool, list[str]]:
        ann = HeldFakeConnection(room)
        room.connect(ann)
        ann.do(Join("Ann"))
        held = room.outbox.holding
        sent_before = [m["type"] for m in ann.sent]
        await room.writer.drain()
        assert [m["type"] for m in ann.sent][:2] == ["welcome", "room"]  # once they are stored
        await store.close_async()
        return held, sent_before

    held, sent_before = asyncio.run(join())
    assert held and sent_before == []
    row = store.load_room(room.code)
    assert row is not None and row.seats[0].name == "Ann" and row.seats[0].token_hash
    assert row.members  # the token, kept before the welcome went out
    store.close()
