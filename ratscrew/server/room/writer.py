"""Storing the rooms' steps without holding up the event loop, and holding back what shows a
step until the step is stored (persist before publish).

A room does not write its steps itself: it hands each one to the process's :class:`StepWriter`
with a *ticket*, and from then on everything the room sends waits in the room's
:class:`Outbox` until the writer says the ticket is stored. The room goes on meanwhile (its
game moves, more steps queue behind the first), so a slow write delays what people see by the
write's time, never the other rooms.

How the writer writes depends on the store (`Store.writes_off_the_loop`):

- **SQLite** (a local file, a write is tens of microseconds): the steps every room took in one
  turn of the event loop are written at the end of that turn, in one transaction (one commit
  instead of one per step), and then the held messages go out. Under load, transactions are
  at least :data:`SQLITE_COMMIT_GAP_S` apart: the steps of the turns in between wait and share
  the next one (every commit writes the pages it touched to the write-ahead log again, and a
  full log is copied back with a flush to disk on the event loop), so a loaded server commits a
  few hundred times a second instead of once per turn, for at most that much more delay.
- **PostgreSQL** (a round trip to another process, ~200 µs or more): the steps go on the
  store's own steps connection (`ratscrew.storage.postgres_steps.StepsConnection`), one batch
  at a time (each batch is everything queued while the last one was in flight); no step waits
  for a round trip on the event loop. A batch is sent without a task (`Store.start_steps`) and
  its answer is taken in the connection's reader callback, which releases the held messages in
  that turn of the event loop (awaited in a task, each answer waited a turn more for the task
  to be woken: 0.5 ms at p99 at 500 rooms); the next batch goes a turn later, with what that
  turn queued.

Other writes that must come after a room's steps and before what shows them (a game's start and
end, its record and rating) go through :meth:`StepWriter.write`, in order with the steps; on PostgreSQL
they run in a thread, or, when the write has an asynchronous form (a room's seats, a token: the
store's ``…_async`` methods), in the writer's task on the event loop. On PostgreSQL a room's
seats and tokens always go through the writer (`StepWriter.keeps_writes_off_the_loop`), so a
player joining never holds the event loop for a round trip: the welcome waits for them instead;
so does a game's start, with an id taken from the database ahead of time (:class:`GameIds`).
Without a running event loop (tests that drive a room by hand) every write happens at once,
before the call returns.

How long each write held its room's messages back (from being queued to being stored) is
counted in ``ratscrew_publish_wait_seconds`` (`ratscrew.server.ops.metrics`): the store's share of
the delay between a player's action and the state that shows it.

If a write fails, nothing held behind it is sent: the room hears of it
(``on_lost``) and pauses (:meth:`ratscrew.server.room.room.Room.pause_for_store`) or stops, as if
the room had written itself.

>>> from ratscrew.storage.records import StepRows
>>> from ratscrew.storage.sqlite import SqliteStore
>>> store = SqliteStore(":memory:")
>>> writer = StepWriter(store)
>>> store.save_room("ABCD", {}, None, "playing", 1, None, [])
>>> game_id = store.start_game("ABCD", 1, "classic", {}, 0.0)
>>> outbox = Outbox()
>>> writer.append_step(outbox, StepRows(game_id, 0, [("play", 0, 0)], 0, []), print)
>>> len(store.game_in_progress(game_id).actions)  # no event loop: written at once
1
>>> outbox.holding
False
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol

from ratscrew.protocol.server_messages import ServerMessage
from ratscrew.server.ops.metrics import TALLY, Tally
from ratscrew.storage.records import StepRows
from ratscrew.storage.roles import Store

log = logging.getLogger("ratscrew.server")

SQLITE_COMMIT_GAP_S = 0.003
"""Least time between two SQLite transactions of steps (see the module docstring). An idle
server writes a step at the end of its turn as before. At 500 rooms the server made one
transaction per 6.3 messages it sent (about one step each; ``ratscrew_store_seconds_count``
against ``ratscrew_messages_out_total``), and with this gap one per 18. Three milliseconds is
far below what a player can see and far above a commit (tens of microseconds)."""


@dataclass(frozen=True)
class Closing:
    """A connection's close, held in order with its messages."""

    code: int
    reason: str


Item = ServerMessage | tuple[int, str] | str | Closing
"""What a connection sends: a message, a state encoded once for its audience (version, JSON
text), a message already encoded, or its close."""


class HeldConnection(Protocol):
    """A connection whose sends an :class:`Outbox` can hold (``WebSocketConnection``)."""

    def send_now(self, item: Item) -> None:
        """Send ``item`` without asking the outbox."""


class OutboxSends:
    """The sending side of a connection whose room may hold its messages: while the room's
    :attr:`outbox` holds, what is sent (and a close) waits there in order; otherwise it goes
    to :meth:`send_now` (and :meth:`close_now`) at once. ``WebSocketConnection`` is one."""

    outbox: Outbox | None = None
    """The outbox of the connection's room, once it is in one."""

    def send(self, message: ServerMessage) -> None:
        """Send a message (after the room's writes in flight)."""
        self._hand(message)

    def send_state(self, version: int, encoded: str) -> None:
        """Send a state encoded once for its whole audience (after the room's writes)."""
        self._hand((version, encoded))

    def send_encoded(self, encoded: str) -> None:
        """Send a message already encoded as JSON text (after the room's writes)."""
        self._hand(encoded)

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Close, after what is sent and held before."""
        self._hand(Closing(code, reason))

    def _hand(self, item: Item) -> None:
        outbox = self.outbox
        if outbox is not None and outbox.holding:
            outbox.defer(self, item)
        elif isinstance(item, Closing):
            self.close_now(item.code, item.reason)
        else:
            self.send_now(item)

    def send_now(self, item: Item) -> None:
        """Send ``item`` without asking the outbox (a `Closing` closes)."""
        raise NotImplementedError

    def close_now(self, code: int = 1000, reason: str = "") -> None:
        """Close without waiting for the room's writes."""
        raise NotImplementedError


@dataclass(frozen=True)
class Published:
    """A mark in the outbox: state ``version`` was published here (to anyone or to no one)."""

    version: int


class Outbox:
    """One room's messages held until the writes they show are stored (see the module
    docstring): tickets of writes in flight and, behind each, what was sent after it and
    which states were published after it (`Published`), so that a lost write's states can be
    forgotten even when nobody was there to be sent them.

    >>> outbox = Outbox()
    >>> class Printing:
    ...     def send_now(self, item: Item) -> None:
    ...         print(item)
    >>> outbox.hold_until(1)
    >>> outbox.defer(Printing(), "after step 1")
    >>> outbox.hold_until(2)
    >>> outbox.defer(Printing(), "after step 2")
    >>> outbox.release(1)
    after step 1
    >>> outbox.holding
    True
    >>> outbox.release(2)
    after step 2
    """

    def __init__(self) -> None:
        self._held: deque[int | Published | tuple[HeldConnection, Item]] = deque()
        self._dropped_states: set[int] = set()

    @property
    def holding(self) -> bool:
        """Whether anything waits for a write (then new messages wait too, in order)."""
        return bool(self._held)

    def hold_until(self, ticket: int) -> None:
        """What is sent from now on waits until write ``ticket`` is stored."""
        self._held.append(ticket)

    def published(self, version: int) -> None:
        """State ``version`` was just published: while writes are in flight it depends on them,
        and is among the dropped states if one of them fails."""
        if self._held:
            self._held.append(Published(version))

    def defer(self, conn: HeldConnection, item: Item) -> None:
        """Keep ``item`` for ``conn`` until the writes before it are stored."""
        self._held.append((conn, item))

    def release(self, stored: int) -> None:
        """Writes up to ticket ``stored`` are stored: send what waited for them only."""
        held = self._held
        while held:
            first = held[0]
            if isinstance(first, int):
                if first > stored:
                    return
                held.popleft()
                continue
            held.popleft()
            if isinstance(first, Published):
                continue
            conn, item = first
            conn.send_now(item)

    def drop(self) -> None:
        """A write failed: what waited for it is never sent (the versions of the states
        published after it are kept for :meth:`take_dropped_states`; a state sent to a page
        joining meanwhile may be an older one, already stored, and is not among them).

        >>> outbox = Outbox()
        >>> outbox.hold_until(1)
        >>> outbox.defer(None, (6, '{"type":"state","version":6}'))  # a joiner's: stored before
        >>> outbox.published(7)
        >>> outbox.defer(None, (7, '{"type":"state","version":7}'))
        >>> outbox.published(8)  # a state published with nobody there to send it to
        >>> outbox.drop()
        >>> outbox.holding, outbox.take_dropped_states(), outbox.take_dropped_states()
        (False, [7, 8], [])
        """
        self._dropped_states.update(entry.version for entry in self._held if isinstance(entry, Published))
        self._held.clear()

    def take_dropped_states(self) -> list[int]:
        """The versions of the states dropped since the last call, in order (each never sent: the
        room's history must not keep them either)."""
        dropped, self._dropped_states = sorted(self._dropped_states), set()
        return dropped


OnLost = Callable[[Exception], None]
"""What a room does when one of its writes failed (pause for the store, or stop the game)."""


@dataclass
class _Write:
    ticket: int
    outbox: Outbox
    step: StepRows | None
    call: Callable[[], None] | None
    on_lost: OnLost
    call_async: Callable[[], Awaitable[None]] | None = None
    """The same write, made without a round trip on the event loop (used by the task)."""
    queued_at: float = 0.0
    """When it was queued (``time.perf_counter``)."""


class GameIds:
    """New games' ids taken from the database ahead of time (PostgreSQL), so that a game's
    start can go through the writer like its steps instead of waiting on the event loop for its
    id: a few dozen at a time, taken again in a task when half are used. Ids a process took and
    never used are gaps in the sequence, as a failed insert's are."""

    BATCH = 32
    """Ids taken at a time."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._ids: deque[int] = deque()
        self._task: asyncio.Task[None] | None = None

    def take(self) -> int | None:
        """An id taken ahead of time, or ``None`` when none is at hand (the game's start is then
        written at once); asks for more in the background when half are used."""
        if len(self._ids) <= self.BATCH // 2 and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(self.fill(), name="game ids")
        return self._ids.popleft() if self._ids else None

    async def fill(self) -> None:
        """Take another batch of ids (a failure is logged: starts are then written at once)."""
        try:
            self._ids.extend(await self.store.reserve_game_ids_async(self.BATCH))
        except Exception as error:  # the database is away: the rooms hear of it on their own
            log.warning("could not take games' ids ahead of time: %s", error)


class StepWriter:
    """The process's writer of the rooms' steps (see the module docstring); one per store."""

    def __init__(self, store: Store, commit_gap_s: float = SQLITE_COMMIT_GAP_S,
                 tally: Tally = TALLY) -> None:
        self.store = store
        self.tally = tally
        """Where each write's wait is counted (``ratscrew_publish_wait_seconds``)."""
        self.commit_gap_s = commit_gap_s
        """Least time between two SQLite transactions of steps (`SQLITE_COMMIT_GAP_S`)."""
        self._pending: list[_Write] = []
        self._tickets = 0
        self._scheduled = False
        self._flushing = False
        self._last_flush = -1e18
        """When the last SQLite transaction of steps began (``time.monotonic``)."""
        self._writing = False
        """PostgreSQL: a run of writes is in flight, or about to be (`_write_next`)."""
        self._runs: deque[tuple[list[_Write], list[_Write]]] = deque()
        """PostgreSQL: the runs of the batch being written, each with the rest of its batch
        (`_groups`)."""
        self._idle: list[asyncio.Future[None]] = []
        """Who waits for the writer to have nothing in flight (`drain`)."""
        self._task: asyncio.Task[None] | None = None
        """PostgreSQL: the task of a run that is not sent with `Store.start_steps`."""
        self.batches = 0
        """Batches written so far (a batch is one transaction of steps, for the benchmarks)."""
        self.steps = 0
        """Steps written so far."""
        self.game_ids = GameIds(store)
        """New games' ids taken ahead of time (`reserved_game_id`)."""

    def reserved_game_id(self) -> int | None:
        """An id for a new game whose start can go through the writer (`write`) rather than be
        written at once: PostgreSQL, in a running loop, with an id at hand; else ``None``."""
        return self.game_ids.take() if self.keeps_writes_off_the_loop else None

    def append_step(self, outbox: Outbox, step: StepRows, on_lost: OnLost) -> None:
        """Store ``step``; until it is stored, what ``outbox``'s room sends waits."""
        self._add(_Write(0, outbox, step, None, on_lost))

    def write(self, outbox: Outbox, call: Callable[[], None], on_lost: OnLost,
              call_async: Callable[[], Awaitable[None]] | None = None) -> None:
        """Run the store call(s) of ``call`` after the writes queued before it; until it has
        run, what ``outbox``'s room sends waits. ``call_async``: the same write in the form the
        writer's task awaits on the event loop (PostgreSQL), instead of running ``call`` in a
        thread."""
        self._add(_Write(0, outbox, None, call, on_lost, call_async))

    @property
    def keeps_writes_off_the_loop(self) -> bool:
        """Whether a room's rarer writes (its seats, a token) should be queued here rather than
        made at once: the store's round trips must stay off the event loop (PostgreSQL) and one
        is running."""
        if not self.store.writes_off_the_loop:
            return False
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return False
        return True

    def _add(self, write: _Write) -> None:
        self._tickets += 1
        write.ticket = self._tickets
        write.queued_at = time.perf_counter()
        write.outbox.hold_until(write.ticket)
        self._pending.append(write)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush_now()
            return
        if self.store.writes_off_the_loop:
            if not self._writing:  # what the rest of this turn queues goes with it
                self._writing = True
                loop.call_soon(self._write_next)
        elif not self._scheduled:
            self._scheduled = True
            wait = self._last_flush + self.commit_gap_s - time.monotonic()
            if wait > 0:  # a transaction began a moment ago: the next one takes more steps
                loop.call_later(wait, self._write_on_the_loop)
            else:
                loop.call_soon(self._write_on_the_loop)

    @property
    def pending(self) -> int:
        """Writes queued and not yet stored."""
        return len(self._pending)

    # ------------------------------------------------------------------ SQLite: at the turn's end

    def _write_on_the_loop(self) -> None:
        self._scheduled = False
        self.flush_now()

    def flush_now(self) -> None:
        """Write everything queued, now, on this thread (SQLite at the end of a loop turn; any
        store without an event loop, and at shutdown)."""
        if self._flushing:  # a write's own call queued another: the loop below takes it
            return
        self._flushing = True
        try:
            for group, rest in self._queued_groups():
                try:
                    if group[0].step is not None:
                        steps = _steps(group)
                        self._last_flush = time.monotonic()  # the gap runs from a transaction's begin
                        self.store.append_steps(steps)
                    else:
                        for write in group:
                            assert write.call is not None
                            self._last_flush = time.monotonic()
                            write.call()
                except Exception as error:
                    self._lost(rest, error)
                    return
                self._stored(group)
        finally:
            self._flushing = False

    # ------------------------------------------------------------------ PostgreSQL: one run at a time

    def _write_next(self) -> None:
        """Start writing the next run of what is queued (PostgreSQL), unless it is all stored.

        A run of steps is sent at once when the store's connection is ready for it
        (`Store.start_steps`); its answer is taken in the connection's reader (`_answered`),
        which sends the held messages in that turn and comes back here in the next. Other
        writes, and steps when a connection has to be made first, run in a task, which comes
        back here when done."""
        try:
            while True:
                if not self._runs:
                    if not self._pending:
                        self._stop_writing()
                        return
                    self._runs.extend(self._queued_groups())  # the batch queued so far
                group, rest = self._runs[0]
                if group[0].step is not None:
                    try:
                        sent = time.perf_counter()
                        if self.store.start_steps(_steps(group),
                                                  partial(self._answered, group, rest, sent)):
                            return
                    except Exception as error:  # it could not be sent
                        self._runs.popleft()
                        self._lost_run(rest, error)
                        continue
                self._task = asyncio.get_running_loop().create_task(
                    self._write_run(group, rest), name="step writer")
                return
        except BaseException:
            self._stop_writing()
            raise

    def _stop_writing(self) -> None:
        """Nothing is in flight any more: whoever waits in `drain` goes on."""
        self._writing = False
        idle, self._idle = self._idle, []
        for waiter in idle:
            if not waiter.done():
                waiter.set_result(None)

    def _answered(self, group: list[_Write], rest: list[_Write], sent: float,
                  error: Exception | None) -> None:
        """A run of steps sent by `_write_next` at ``sent`` was stored, or failed with
        ``error``: called from the steps' connection's reader. Its round trip is counted as a
        store call (``ratscrew_store_seconds``; `start_steps` itself is not timed). What it held
        goes out now; the next batch is sent in the next turn, so that it takes what the rest of
        this turn queues (sending it from here was tried too, and measured no better:
        docs/online.md, "How far shards go")."""
        self.tally.store_call(time.perf_counter() - sent)
        try:
            self._settle(group, rest, error)
        finally:  # whatever happened there, what is queued behind it is written
            asyncio.get_running_loop().call_soon(self._write_next)

    def _settle(self, group: list[_Write], rest: list[_Write], error: Exception | None) -> None:
        """A run was stored (its held messages go out), or failed with ``error``."""
        self._runs.popleft()
        if error is None:
            self._stored(group)
        else:
            self._lost_run(rest, error)

    async def _write_run(self, group: list[_Write], rest: list[_Write]) -> None:
        try:
            if group[0].step is not None:
                await self.store.append_steps_async(_steps(group))
            else:
                for write in group:
                    if write.call_async is not None:
                        await write.call_async()
                    else:
                        assert write.call is not None
                        await asyncio.to_thread(write.call)
            error: Exception | None = None
        except asyncio.CancelledError:  # the loop is ending: `drain` writes the run at once
            self._pending[:0] = rest
            self._runs.clear()
            self._stop_writing()
            raise
        except Exception as failure:
            error = failure
        try:
            self._settle(group, rest, error)
        finally:  # (a turn after the answer already: what queued meanwhile goes next)
            self._write_next()

    def _lost_run(self, rest: list[_Write], error: Exception) -> None:
        """A run failed: the rest of its batch goes with it (`_lost`)."""
        self._runs.clear()
        self._lost(rest, error)

    def _queued_groups(self) -> Iterator[tuple[list[_Write], list[_Write]]]:
        """What is queued, batch after batch (a batch: everything queued while the last was
        written), cut into runs of steps (one transaction each) and runs of other writes; each
        run with itself and what follows it in its batch (what a failure loses)."""
        while self._pending:
            batch, self._pending = self._pending, []
            for start, group in _groups(batch):
                yield group, batch[start:]

    async def drain(self) -> None:
        """Wait until everything queued is stored (or has failed): at shutdown, before a room
        is disposed of."""
        while self._pending or self._writing:
            if self._writing:
                waiter = asyncio.get_running_loop().create_future()
                self._idle.append(waiter)
                await waiter
            else:
                self.flush_now()

    # ------------------------------------------------------------------ after a batch

    def _stored(self, group: Sequence[_Write]) -> None:
        if group[0].step is not None:
            self.batches += 1
            self.steps += len(group)
        last: dict[int, tuple[Outbox, int]] = {}
        now = time.perf_counter()
        for write in group:
            last[id(write.outbox)] = (write.outbox, write.ticket)
            self.tally.publish_waits.add(now - write.queued_at)
        for outbox, ticket in last.values():
            outbox.release(ticket)

    def _lost(self, failed: Sequence[_Write], error: Exception) -> None:
        """A write failed: it, the writes after it and everything queued since are not stored;
        each room concerned drops what it held and hears of it once."""
        everything = [*failed, *self._pending]
        self._pending = []
        told: set[int] = set()
        for write in everything:
            write.outbox.drop()
        for write in everything:
            if id(write.outbox) not in told:
                told.add(id(write.outbox))
                try:
                    write.on_lost(error)
                except Exception:
                    log.exception("a room failed while its store write was lost")


def _steps(group: Sequence[_Write]) -> list[StepRows]:
    return [write.step for write in group if write.step is not None]


def _groups(batch: Sequence[_Write]) -> list[tuple[int, list[_Write]]]:
    """``batch`` cut into runs of steps (one transaction each) and runs of other writes, each
    with the index of its first write."""
    groups: list[tuple[int, list[_Write]]] = []
    for index, write in enumerate(batch):
        if groups and (groups[-1][1][0].step is None) == (write.step is None):
            groups[-1][1].append(write)
        else:
            groups.append((index, [write]))
    return groups
