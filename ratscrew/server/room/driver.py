"""Driving a room's game: the room clock, the settling window, and feeding the engine.

The game is seated at a `ratscrew.runtime.Table` on a virtual clock that the driver moves
itself: bots (`ratscrew.bots.BotAgent`) and the stand-ins of people
(`ratscrew.server.room.agents.RemoteSeat`) sit at it. A person's action arrives judged
(:func:`ratscrew.server.room.judging.judge_action` places it at a table time) and waits in a queue;
:meth:`GameDriver.feed` is the one place that hands the engine anything: the queued actions in
table-time order, the bots' intents and the engine's timers, up to the *horizon*, the room time
minus the settling window (:func:`ratscrew.server.room.judging.settle_window_ms`). Under
``first-packet`` judging the window is 0 and every action is judged at its arrival.

While a game runs, a task wakes the room when something is due (:meth:`GameDriver.run`). What
happens after a step (storing it, showing it, the contest tally, the end) is the room's: the
driver calls back.

Times. *Room time* is milliseconds on the room's clock (:class:`RoomClock`), which restarts at 0
when a game starts, so the engine's times in a record count from the start of the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ratscrew.engine import Game
from ratscrew.events import Event, Misslap, SlapIgnored, SlapWon
from ratscrew.runtime import Rejection, Table
from ratscrew.server.room.agents import Shown
from ratscrew.server.room.judging import Verdict
from ratscrew.storage.records import StoreUnavailable

log = logging.getLogger("ratscrew.server")


class RoomClock:
    """Room time in ms from the wall clock; :meth:`restart` puts it back to a given time.

    >>> clock = RoomClock(wall=lambda: 10.0)
    >>> clock.now()
    0.0
    """

    def __init__(self, wall: Callable[[], float] = time.monotonic) -> None:
        self.wall = wall
        self._base_wall = wall()
        self._base_ms = 0.0

    def now(self) -> float:
        """The current room time in ms, to the microsecond (so that a wake-up set for a time
        is never missed by a rounding error in the wall clock's seconds)."""
        return round(self._base_ms + (self.wall() - self._base_wall) * 1000.0, 3)

    def restart(self, at_ms: float = 0.0) -> None:
        """From now on, room time counts from ``at_ms``."""
        self._base_wall = self.wall()
        self._base_ms = at_ms


@dataclass(order=True)
class PendingAction:
    """A person's action waiting in the settling window, ordered by its table time."""

    judged_at: float
    seq: int
    seat: int = field(compare=False)
    kind: str = field(compare=False)
    arrived_at: float = field(compare=False)
    version: int | None = field(compare=False)
    verdict: Verdict = field(compare=False)
    reported_ms: float | None = field(default=None, compare=False)
    """The reaction the client reported (for the integrity review, issue 30)."""
    rtt_ms: float | None = field(default=None, compare=False)
    """The link's measured round trip when the action arrived."""


def slap_outcome(seat: int, events: Sequence[Event]) -> str:
    """What came of ``seat``'s slap, from the events the engine gave it: ``won`` (it took a
    slappable pile), ``claim`` (it claimed a pile already its own: a won challenge),
    ``misslap``, ``late``, ``void`` or ``repeat`` (ignored: see `SlapIgnored`), or ``held``
    (waiting in a tie window with others' slaps).

    >>> slap_outcome(1, [SlapWon(at=300, seat=1, pattern="double")])
    'won'
    >>> slap_outcome(1, [SlapIgnored(at=338, seat=1, reason="late", margin_ms=38, beaten_by=0)])
    'late'
    >>> slap_outcome(1, [SlapWon(at=300, seat=1, pattern="claim")]), slap_outcome(1, [])
    ('claim', 'held')
    """
    for event in events:
        if event.seat != seat:
            continue
        if isinstance(event, SlapWon):
            return "claim" if event.pattern == "claim" else "won"
        if isinstance(event, SlapIgnored):
            return event.reason
        if isinstance(event, Misslap):
            return "misslap"
    return "held"


class GameDriver:
    """One game at its table, the people's actions waiting to be fed to it, and the task that
    moves it (see the module docstring). ``settle_ms`` says how long actions are held now."""

    def __init__(self, clock: RoomClock, settle_ms: Callable[[], float],
                 pile_reaction_ms: Callable[[int, float], float | None] = lambda seat, at: None) -> None:
        self.clock = clock
        self._settle_ms = settle_ms
        self._pile_reaction_ms = pile_reaction_ms
        """``(seat, table time)`` -> that time minus when the card that made the pile what it
        is was sent to the seat's own connection (``None`` if it was not)."""
        self.game: Game | None = None
        self.table: Table | None = None
        self._pending: list[PendingAction] = []
        self._seq = 0
        self._horizon = 0.0
        self.judged: list[dict[str, Any]] = []
        """How each person's action was judged, in the order they were fed (for the record)."""
        self._links: dict[tuple[int, int], int] = {}  # (seat, judged at) -> link ms of a slap
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._waits_until: float | None = None
        """The room time the task is asleep until (``math.inf``: until poked); ``None`` while it
        is awake or poked (see :meth:`wake_by`)."""
        self._timer: asyncio.TimerHandle | None = None
        """The timer that wakes the sleeping task at ``_waits_until``."""

    def begin(self, game: Game, agents: Sequence[Shown], judged: Sequence[dict[str, Any]],
              on_events: Callable[[Sequence[Event]], None],
              on_rejected: Callable[[Rejection], None]) -> Table:
        """Seat ``agents`` at a table for ``game`` (``judged``: the judgements stored so far,
        for a game resumed from the store) and start it; the engine's steps go to ``on_events``."""
        self.game = game
        self.table = Table(game, list(agents), keep_events=False)
        self.table.add_listener(on_events)
        self.table.add_rejection_listener(on_rejected)
        self._pending = []
        self._horizon = float(game.now)
        self.judged = list(judged)
        self._links = {}
        self.table.start()
        return self.table

    @property
    def settle_ms(self) -> float:
        """How long actions are held before they are handed to the engine, now."""
        return self._settle_ms()

    @property
    def horizon(self) -> float:
        """The latest table time handed to the engine."""
        return self._horizon

    def advance_horizon(self) -> float:
        """Move the horizon up to now minus the settling window (it never goes back)."""
        self._horizon = max(self._horizon, self.clock.now() - self.settle_ms)
        return self._horizon

    def queue(self, seat: int, kind: str, arrived_at: float, version: int | None,
              verdict: Verdict, reported_ms: float | None = None, rtt_ms: float | None = None) -> None:
        """A person's judged action, to be fed when the horizon passes its table time."""
        self._seq += 1
        heapq.heappush(self._pending, PendingAction(verdict.judged_at, self._seq, seat, kind,
                                                    arrived_at, version, verdict, reported_ms, rtt_ms))

    def feed(self, time_limit: float | None = None) -> None:
        """Hand the engine everything due up to the horizon, in table-time order: queued actions
        of people, bots' intents and the engine's timers. The one place that feeds the engine.

        With a ``time_limit`` (table time) the horizon has passed, what came before it is fed
        and then the game ends on time (`Table.end_on_time`); anything at or after it is too
        late."""
        table, game = self.table, self.game
        if table is None or game is None:
            return
        horizon = self.advance_horizon()
        time_up = time_limit is not None and horizon >= time_limit
        until = time_limit - 1 if time_up and time_limit is not None else horizon
        while self._pending and self._pending[0].judged_at <= until and not game.over:
            self._commit(heapq.heappop(self._pending))
        if not game.over:
            table.fire_due(until)
        if time_up and time_limit is not None and not game.over:
            self._pending = []
            table.end_on_time(time_limit)

    def _commit(self, action: PendingAction) -> None:
        assert self.table is not None and self.game is not None
        if action.kind == "slap":
            self._links[(action.seat, int(action.judged_at))] = round(action.verdict.link_ms)
        before = self.game.action_count
        events = self.table.submit(action.seat, action.kind, at=action.judged_at)  # type: ignore[arg-type]
        accepted = self.game.action_count > before and self.game.actions_since(before)[-1][0] == action.kind
        verdict = action.verdict
        slap: dict[str, Any] = {}
        if action.kind == "slap" and accepted:
            pile_reaction = self._pile_reaction_ms(action.seat, action.judged_at)
            slap = {"outcome": slap_outcome(action.seat, events),
                    "pile_reaction_ms": None if pile_reaction is None else round(pile_reaction)}
        self.judged.append({
            "seat": action.seat, "kind": action.kind, "arrived_at": round(action.arrived_at),
            "judged_at": int(action.judged_at), "reaction_ms": None if verdict.reaction_ms is None
            else round(verdict.reaction_ms), "version": action.version,
            "link_ms": round(verdict.link_ms), "clamped": verdict.clamped, "accepted": accepted,
            "reported_ms": None if action.reported_ms is None else round(action.reported_ms),
            "rtt_ms": None if action.rtt_ms is None else round(action.rtt_ms), **slap})

    def slap_link_ms(self, seat: int, at: int) -> int:
        """The link compensation given to ``seat``'s slap fed at table time ``at`` (once)."""
        return self._links.pop((seat, at), 0)

    def next_due(self, also: float | None = None) -> float | None:
        """The room time at which :meth:`feed` next has something to do (``also``: another
        table time the room waits for), if anything."""
        if self.table is None:
            return None
        due: list[float] = []
        if self._pending:
            due.append(self._pending[0].judged_at)
        upcoming = self.table.next_due()
        if upcoming is not None:
            due.append(upcoming[0])
        if also is not None:
            due.append(also)
        return min(due) + self.settle_ms if due else None

    # ------------------------------------------------------------------ the task

    def start(self, step: Callable[[], bool], wake_at: Callable[[], float | None],
              on_store_lost: Callable[[], None], on_failure: Callable[[], None], name: str) -> None:
        """Start the task that calls ``step`` whenever ``wake_at`` says (and when poked), while
        ``step`` returns True; outside an event loop, nothing (the app starts it later)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._task is None or self._task.done():
            self._wake = asyncio.Event()
            self._task = loop.create_task(self._run(step, wake_at, on_store_lost, on_failure, name),
                                          name=name)

    async def _run(self, step: Callable[[], bool], wake_at: Callable[[], float | None],
                   on_store_lost: Callable[[], None], on_failure: Callable[[], None],
                   name: str) -> None:
        wake = self._wake
        assert wake is not None
        while True:
            try:
                if not step():
                    return
            except StoreUnavailable:
                on_store_lost()
                return
            except Exception:
                log.exception("%s: the game loop failed; the game is stopped", name)
                on_failure()
                return
            due = wake_at()
            timeout = None if due is None else max(0.0, (due - self.clock.now()) / 1000.0)
            wake.clear()
            if timeout == 0.0:
                await asyncio.sleep(0)
                continue
            # A timer that sets the event, not asyncio.timeout: a timeout ends by raising an
            # exception into the task, whose traceback is a reference cycle for the garbage
            # collector to find, at every wake-up of every room (no task made either).
            loop = asyncio.get_running_loop()
            self._timer = None if timeout is None else loop.call_later(timeout, wake.set)
            self._waits_until = math.inf if due is None else due
            try:
                await wake.wait()
            finally:
                self._waits_until = None
                if self._timer is not None:
                    self._timer.cancel()
                    self._timer = None

    @property
    def asleep_until(self) -> float | None:
        """The room time the task sleeps until (``math.inf``: until poked), or ``None`` while
        it is not asleep (stepping, poked, or not started)."""
        return self._waits_until

    def poke(self) -> None:
        """Wake the task now (something new is queued)."""
        if self._wake is not None:
            self._waits_until = None
            self._wake.set()

    def wake_by(self, due: float | None) -> None:
        """Make sure the task wakes by room time ``due``, which the room has just worked out
        after stepping the game itself (``None``: nothing is due, e.g. the game just ended: the
        task is poked, so that it sees). A task asleep until later has its timer moved earlier
        instead of being woken to step again and find nothing due (an action waits out the
        settling window: a poke per action was a wake-up, a step and a timer for nothing).

        >>> async def demo() -> tuple[bool, bool, bool]:
        ...     driver = GameDriver(RoomClock(), settle_ms=lambda: 0.0)
        ...     steps: list[float] = []
        ...     driver.start(lambda: not steps.append(driver.clock.now()), lambda: 60_000.0,
        ...                  lambda: None, lambda: None, name="demo")
        ...     await asyncio.sleep(0.01)  # stepped once, asleep until 60 s
        ...     driver.wake_by(90_000.0)   # later than it wakes anyway: nothing happens
        ...     later = driver.asleep_until == 60_000.0
        ...     driver.wake_by(driver.clock.now() + 20)  # sooner: its timer moves, no step yet
        ...     moved = len(steps) == 1 and (driver.asleep_until or 60_000.0) < 60_000.0
        ...     await asyncio.sleep(0.05)
        ...     await driver.stop()
        ...     return later, moved, len(steps) == 2
        >>> asyncio.run(demo())
        (True, True, True)
        """
        waits_until, wake = self._waits_until, self._wake
        if wake is None or waits_until is None or (due is not None and due >= waits_until):
            return
        timeout = 0.0 if due is None else (due - self.clock.now()) / 1000.0
        if timeout <= 0.0:
            self.poke()
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(timeout, wake.set)
        self._waits_until = due

    def cancel(self) -> None:
        """Stop the task without waiting for it (unless it is the caller)."""
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
        self._task = None

    async def stop(self) -> None:
        """Stop the task and wait until it has stopped."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
