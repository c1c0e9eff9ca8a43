"""The runtime: a `Table` drives a `Game` with a clock and a set of agents.

One scheduler, two clocks. Agents (bots, a human at the keyboard, later a remote player) see
only what a player sees: their seat's observation (``game.observe(seat)``) and the events of
each action. They answer with timed intentions, `Intent` ("play at t", "slap at t",
"resign at t"); the table keeps each seat's pending intents and performs the earliest one when
its time comes, or advances the engine when one of its timers (``game.next_deadline``) falls due
first.

- :meth:`Table.run_virtual` runs on a virtual clock: time jumps straight to the next due intent
  or timer, as fast as the CPU allows. Simulation uses this.
- :meth:`Table.run_realtime` runs the same scheduling under asyncio against the real clock
  (scaled by ``speed``), with :meth:`Table.submit` for actions that arrive from outside
  (a key press), listeners for views, :meth:`Table.pause` / :meth:`Table.resume` and an
  adjustable speed. The terminal game and the server use this.

How answers work. Every agent callback (`Agent.on_start`, `Agent.on_events`,
`Agent.on_rejected`) returns either ``None`` - keep my pending intents as they are - or a
sequence of intents, which *replaces* all of that seat's pending intents (an empty sequence
cancels them). An intent's time is clamped to the present: nobody acts in the past. Times are
floats in ms so that two seats reacting "in the same millisecond" are still ordered by their
exact draw, without a seat-order bias; the engine receives the time rounded down.

Observations. Nothing in an observation is secret from any seat (no face-down card is ever in
one), so the table builds the spectator's view once per batch of events and gives each agent a
copy with its own ``seat``: the same dict ``game.observe(seat)`` returns, at a fraction of the
cost (``tests/test_runtime.py`` holds the two equal over whole games).

Illegal actions never crash the table: when the engine refuses an intent or a submitted action
(`ratscrew.errors.IllegalActionError`), the table records a `Rejection`, tells the agent through
`Agent.on_rejected` and the rejection listeners, and goes on.

>>> from ratscrew.ruleset import Ruleset
>>> game = Game(Ruleset.preset("classic"), hands=["7H 2C", "7S 3D"], leader=0)
>>> class Dealer:  # plays a card 500 ms after its turn comes, slaps nothing
...     def on_start(self, seat, rules, observation):
...         return self.on_events([], observation)
...     def on_events(self, events, observation):
...         if observation["turn"] == observation["seat"]:
...             return [Intent("play", observation["now"] + 500)]
...         return []
...     def on_rejected(self, intent, error, observation):
...         return None
>>> class Slapper(Dealer):  # also slaps 250 ms after a 7 lands on a 7
...     def on_events(self, events, observation):
...         pile = observation["pile"]
...         if len(pile) >= 2 and pile[-1][0] == pile[-2][0]:
...             return [Intent("slap", observation["now"] + 250)]
...         return super().on_events(events, observation)
>>> table = Table(game, [Dealer(), Slapper()])
>>> [(e.kind, e.seat, e.at) for e in table.run_virtual()][:4]
[('card_played', 0, 500), ('card_played', 1, 1000), ('slap_won', 1, 1250), ('pile_won', 1, 1250)]
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, get_args

from ratscrew.engine import MAX_TIME_MS, Game
from ratscrew.errors import IllegalActionError, InvalidTimeError, NoSuchSeatError
from ratscrew.events import Event
from ratscrew.observation import Observation as Observation  # what an agent is shown
from ratscrew.ruleset import Ruleset

ActionKind = Literal["play", "slap", "resign"]
"""What an agent can do: play its top card, slap the pile, or resign."""
ACTION_KINDS: tuple[str, ...] = get_args(ActionKind)


MAX_CONSECUTIVE_REJECTIONS = 1000
"""A virtual run stops (``stop_reason == "stalled"``) after this many refused actions in a row:
an agent that keeps asking for the impossible cannot hang a simulation. Refused actions that
came from outside (:meth:`Table.submit`) do not count: a person pressing keys stalls nothing."""
SUBMITTED = "submitted"
"""The note of an intent made by :meth:`Table.submit` from an outside action."""


@dataclass(frozen=True, slots=True)
class Intent:
    """An agent's intention to act at table time ``at`` (ms). ``note`` says why, for logs and
    tests (a bot writes e.g. ``"react double"``, ``"flinch"``, ``"anticipate sandwich"``).

    >>> Intent("slap", 1250)
    Intent(kind='slap', at=1250.0, note='')
    """

    kind: ActionKind
    at: float
    note: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ACTION_KINDS:
            raise ValueError(f"unknown action {self.kind!r}; choose one of {', '.join(ACTION_KINDS)}")
        object.__setattr__(self, "at", float(self.at))


Answer = Sequence[Intent] | None
"""An agent's answer: ``None`` keeps its pending intents; a sequence replaces them."""


def _intent_time(intent: Intent) -> float:
    return intent.at


class Agent(Protocol):
    """Anything that can sit at a table. It is told its seat, the rules and what it sees, and
    answers with intents (see the module docstring for what an answer means)."""

    def on_start(self, seat: int, rules: Ruleset, observation: Observation) -> Answer:
        """The game is about to start and this agent holds ``seat``."""

    def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
        """An action (anyone's) or a timer produced ``events``; ``observation`` is the seat's
        view right after them (``observation["now"]`` is their time)."""

    def on_rejected(self, intent: Intent, error: IllegalActionError,
                    observation: Observation) -> Answer:
        """The engine refused this agent's ``intent`` (it is no longer pending)."""


@dataclass(frozen=True, slots=True)
class Rejection:
    """An action the engine refused: who, what, and the engine's reason."""

    seat: int
    intent: Intent
    error: IllegalActionError

    @property
    def reason(self) -> str:
        """The engine's message, for a status line."""
        return str(self.error)


class TablePausedError(IllegalActionError):
    """An action was submitted while the table is paused."""


EventListener = Callable[[Sequence[Event]], object]
RejectionListener = Callable[[Rejection], object]
ActionListener = Callable[[int, Intent], object]
"""Told ``(seat, intent)`` for every intent the engine accepted (whose action it was)."""


# ---------------------------------------------------------------------------------- clocks


class VirtualClock:
    """Simulated time: it stands still until the table moves it to the next due moment."""

    def __init__(self, start_ms: float = 0.0) -> None:
        self._now = start_ms

    def now(self) -> float:
        """The current table time in ms."""
        return self._now

    def move_to(self, at: float) -> None:
        """Jump forward to ``at`` (never backward)."""
        self._now = max(self._now, at)


class RealClock:
    """Table time from the wall clock: ``speed`` table-ms per real ms, frozen while paused.

    >>> clock = RealClock(speed=2.0, start_ms=1000, wall=lambda: 10.0)
    >>> clock.now()
    1000.0
    """

    def __init__(self, speed: float = 1.0, start_ms: float = 0.0,
                 wall: Callable[[], float] = time.monotonic) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self._wall = wall
        self._speed = speed
        self._base_table = float(start_ms)
        self._base_wall = wall()
        self._paused = False
        self._held = False

    @property
    def speed(self) -> float:
        """Table milliseconds per real millisecond (2.0 runs the game twice as fast)."""
        return self._speed

    @speed.setter
    def speed(self, value: float) -> None:
        if value <= 0:
            raise ValueError("speed must be positive")
        self._rebase()
        self._speed = value

    @property
    def paused(self) -> bool:
        """True while the clock is frozen."""
        return self._paused

    def now(self) -> float:
        """The current table time in ms."""
        if self._paused or self._held:
            return self._base_table
        return self._base_table + (self._wall() - self._base_wall) * 1000.0 * self._speed

    def pause(self) -> None:
        """Freeze table time."""
        if not self._paused:
            self._rebase()
            self._paused = True

    @property
    def held(self) -> bool:
        """True while the clock waits for the first action (:meth:`hold`)."""
        return self._held

    def hold(self) -> None:
        """Keep table time standing until :meth:`release`: a game whose first card is a
        person's starts its clock when that card is played, however long they wait.

        >>> seconds = [0.0]
        >>> clock = RealClock(wall=lambda: seconds[0])
        >>> clock.hold(); seconds[0] = 600.0; clock.now()
        0.0
        >>> clock.release(); seconds[0] = 600.5; clock.now()
        500.0
        """
        if not self._paused and not self._held:
            self._rebase()
        self._held = True

    def release(self) -> None:
        """Let held table time run from now (nothing happens if it was not held)."""
        if self._held:
            self._held = False
            if not self._paused:
                self._base_wall = self._wall()

    def resume(self) -> None:
        """Let table time run again from where it stopped."""
        if self._paused:
            self._base_wall = self._wall()
            self._paused = False

    def seconds_until(self, at: float) -> float:
        """Real seconds until table time ``at`` (0 if it has passed)."""
        return max(0.0, (at - self.now()) / 1000.0 / self._speed)

    def _rebase(self) -> None:
        self._base_table = self.now()
        self._base_wall = self._wall()


# ---------------------------------------------------------------------------------- table


@dataclass(frozen=True, slots=True)
class _Due:
    at: float
    seat: int | None  # None: an engine timer
    intent: Intent | None


class Table:
    """Drives ``game`` with one agent per seat (``None``: nobody acts for that seat).

    ``max_cards`` and ``max_ms`` stop a run that goes on too long (``stop_reason`` says which);
    ``keep_events=False`` stops the table from keeping every event (listeners still get them).
    """

    def __init__(
        self,
        game: Game,
        agents: Sequence[Agent | None],
        *,
        max_cards: int | None = None,
        max_ms: int | None = None,
        keep_events: bool = True,
    ) -> None:
        if len(agents) != game.players:
            raise ValueError(f"the table has {game.players} seats but {len(agents)} agents were given")
        self.game = game
        self.agents: list[Agent | None] = list(agents)
        self.max_cards = max_cards
        self.max_ms = max_ms
        self.keep_events = keep_events
        self.events: list[Event] = []
        self.rejections: list[Rejection] = []
        self.stop_reason: str | None = None
        """Why the last run stopped: ``game_over``, ``idle`` (nothing left to happen),
        ``max_cards``, ``max_ms``, ``stalled`` or ``stopped``."""
        self._pending: list[list[Intent]] = [[] for _ in agents]
        self._event_listeners: list[EventListener] = []
        self._rejection_listeners: list[RejectionListener] = []
        self._action_listeners: list[ActionListener] = []
        self._clock: VirtualClock | RealClock = VirtualClock(float(game.now))
        self._started = False
        self._stop_requested = False
        self._rejections_in_a_row = 0
        self._wake: asyncio.Event | None = None
        # Nothing is due before `_quiet_until` while the game has accepted `_quiet_actions`
        # actions: the scheduler's last look (see `fire_due`), lowered by every new plan.
        self._quiet_until = -math.inf
        self._quiet_actions = -1
        for seat, agent in enumerate(self.agents):
            attach = getattr(agent, "attach", None)
            if callable(attach):
                attach(self, seat)

    # ------------------------------------------------------------------ public state

    @property
    def now(self) -> float:
        """The table clock in ms (virtual or real)."""
        return self._clock.now()

    def pending(self, seat: int) -> list[Intent]:
        """The seat's pending intents, earliest first (a copy)."""
        return list(self._pending[seat])

    def has_pending(self, seat: int) -> bool:
        """True if the seat has an intent pending (``bool(pending(seat))``, without the copy)."""
        return bool(self._pending[seat])

    @property
    def paused(self) -> bool:
        """True while a real-clock run is paused."""
        return isinstance(self._clock, RealClock) and self._clock.paused

    @property
    def speed(self) -> float:
        """Real-clock speed (table-ms per real ms); 1.0 under the virtual clock."""
        return self._clock.speed if isinstance(self._clock, RealClock) else 1.0

    @speed.setter
    def speed(self, value: float) -> None:
        if isinstance(self._clock, RealClock):
            self._clock.speed = value
            self._poke()
        elif value <= 0:
            raise ValueError("speed must be positive")

    def add_listener(self, listener: EventListener) -> None:
        """Call ``listener(events)`` after every action or timer that produced events (views,
        logs). Listeners are called before agents hear of the events."""
        self._event_listeners.append(listener)

    def add_rejection_listener(self, listener: RejectionListener) -> None:
        """Call ``listener(rejection)`` whenever the engine refuses an action."""
        self._rejection_listeners.append(listener)

    def add_action_listener(self, listener: ActionListener) -> None:
        """Call ``listener(seat, intent)`` for every intent the engine accepted, before its
        events go out: who acted, and how (an intent's ``note``: ``submitted`` from outside, or
        the agent's own), for counting whose actions a seat's were."""
        self._action_listeners.append(listener)

    # ------------------------------------------------------------------ scheduling (shared)

    def start(self) -> None:
        """Tell every agent its seat and let it plan (done once, by the first run)."""
        if self._started:
            return
        self._started = True
        for seat, agent in enumerate(self.agents):
            if agent is not None:
                self._apply(seat, agent.on_start(seat, self.game.rules, self.game.observe(seat)))

    def next_due(self) -> tuple[float, int | None, Intent | None] | None:
        """The next thing to happen: ``(at, seat, intent)`` for an intent, ``(at, None, None)``
        for an engine timer, or ``None`` when nothing is scheduled."""
        due = self._next_due()
        return None if due is None else (due.at, due.seat, due.intent)

    def _next_due(self) -> _Due | None:
        if self.game.over:
            return None
        # The earliest head of the seats' pending intents (the lowest seat on a tie), then an
        # engine timer due no later than it; one `_Due` built, for the winner only.
        best: Intent | None = None
        best_seat = 0
        for seat, intents in enumerate(self._pending):
            if intents:
                head = intents[0]
                if best is None or head.at < best.at:
                    best, best_seat = head, seat
        deadline = self.game.next_deadline
        if deadline is not None and (best is None or deadline <= best.at):
            return _Due(float(deadline), None, None)
        return None if best is None else _Due(best.at, best_seat, best)

    def fire_due(self, until: float) -> list[Event]:
        """Perform every intent and timer due at or before ``until``, in time order; returns
        the events they produced. Both clocks use this one loop.

        A driver that calls this at every tick (the learning environments of
        :mod:`ratscrew.rl`, a real-clock loop) mostly finds nothing due: the table remembers
        when its last look found the next thing due, lowers that time whenever a plan comes in,
        and trusts it only while the game has accepted no action since, so such a call costs a
        comparison and does exactly what the full look would (nothing)."""
        if until < self._quiet_until and self.game.action_count == self._quiet_actions:
            return []  # nothing is due by `until` (see `_apply`; `_stop_requested` changes nothing)
        produced: list[Event] = []
        while not self._stop_requested:
            due = self._next_due()
            if due is None or due.at > until:
                self._quiet_until = math.inf if due is None else due.at
                self._quiet_actions = self.game.action_count
                break
            if self._cap_reached(due.at):
                break
            produced.extend(self._fire(due))
            if self._rejections_in_a_row >= MAX_CONSECUTIVE_REJECTIONS:
                self.stop_reason = "stalled"
                break
        return produced

    def _cap_reached(self, at: float) -> bool:
        if self.max_cards is not None and self.game.cards_played >= self.max_cards:
            self.stop_reason = "max_cards"
            return True
        if self.max_ms is not None and at > self.max_ms:
            self.stop_reason = "max_ms"
            return True
        return False

    def _fire(self, due: _Due) -> list[Event]:
        if isinstance(self._clock, VirtualClock):
            self._clock.move_to(due.at)
        if due.seat is None or due.intent is None:
            events = self.game.advance(int(due.at))
            self._dispatch(events)
            return events
        self._pending[due.seat].pop(0)
        return self._perform(due.seat, due.intent)

    def _perform(self, seat: int, intent: Intent) -> list[Event]:
        at = max(int(intent.at), self.game.now)
        try:
            events = getattr(self.game, intent.kind)(seat, at)
        except IllegalActionError as error:
            self._reject(seat, intent, error, outside=intent.note == SUBMITTED)
            return []
        self._rejections_in_a_row = 0
        for listener in self._action_listeners:
            listener(seat, intent)
        self._dispatch(events)
        return list(events)

    def _reject(self, seat: int, intent: Intent, error: IllegalActionError,
                outside: bool = False) -> None:
        if not outside:  # only agents asking for the impossible can stall a run
            self._rejections_in_a_row += 1
        rejection = Rejection(seat, intent, error)
        self.rejections.append(rejection)
        for listener in self._rejection_listeners:
            listener(rejection)
        agent = self.agents[seat]
        if agent is not None:
            self._apply(seat, agent.on_rejected(intent, error, self.game.observe(seat)))

    def _dispatch(self, events: Sequence[Event]) -> None:
        if not events:
            return
        if self.keep_events:
            self.events.extend(events)
        for listener in self._event_listeners:
            listener(events)
        shared = self.game.observe(None)
        for seat, agent in enumerate(self.agents):
            if agent is not None:
                view = shared.copy()
                view["seat"] = seat
                self._apply(seat, agent.on_events(events, view))

    def _apply(self, seat: int, answer: Answer) -> None:
        if answer is None:
            return
        floor = max(float(self.game.now), self._clock.now())
        intents = [i if i.at >= floor else Intent(i.kind, floor, i.note) for i in answer]
        if len(intents) > 1:  # a bot's answer is mostly one play or one slap
            intents.sort(key=_intent_time)
        self._pending[seat] = intents
        if intents and intents[0].at < self._quiet_until:
            self._quiet_until = intents[0].at  # the new plan may be due before anything else
        self._poke()

    def plan(self, seat: int, intents: Sequence[Intent]) -> None:
        """Replace ``seat``'s pending intents from outside the agent callbacks, exactly as an
        agent's answer would (clamped to the present): how a driver that decides between
        events, such as the learning environments of :mod:`ratscrew.rl`, schedules its seat."""
        if not 0 <= seat < len(self.agents):
            raise ValueError(f"no seat {seat} at this table of {len(self.agents)}")
        self._apply(seat, intents)

    def replace_agent(self, seat: int, agent: Agent | None) -> None:
        """Seat ``agent`` in place of whoever acts for ``seat`` (a bot taking over from a
        person who was removed, say). The seat's pending intents are dropped and, once the
        table has started, the new agent is told its seat and plans from what it sees now."""
        if not 0 <= seat < len(self.agents):
            raise ValueError(f"no seat {seat} at this table of {len(self.agents)}")
        self.agents[seat] = agent
        self._pending[seat] = []
        attach = getattr(agent, "attach", None)
        if callable(attach):
            attach(self, seat)
        if self._started and agent is not None and not self.game.over:
            self._apply(seat, agent.on_start(seat, self.game.rules, self.game.observe(seat)))
        self._poke()

    # ------------------------------------------------------------------ outside actions

    def submit(self, seat: int, kind: ActionKind, at: float | None = None) -> list[Event]:
        """Perform an action for ``seat`` now (a key press, a network message), stamped with the
        table clock (or ``at``, never earlier than the game's latest action). Everything due
        before it happens first. Returns its events; a refused action returns ``[]`` and is
        reported like any rejection (the seat's agent and the rejection listeners are told).
        """
        # Checked before anything happens; values may come from the network, so the messages
        # name the value's type rather than writing out what may be a 5,000-digit int.
        if type(seat) is not int or not 0 <= seat < len(self.agents):
            raise NoSuchSeatError(f"a seat is an int from 0 to {len(self.agents) - 1}, "
                                  f"got a {type(seat).__name__} that is not one")
        if at is not None and (isinstance(at, bool) or not isinstance(at, (int, float))
                               or not 0 <= at <= MAX_TIME_MS):
            raise InvalidTimeError(f"a time is a number of ms from 0 to {MAX_TIME_MS}, "
                                   f"got a {type(at).__name__} that is not one")
        if isinstance(self._clock, RealClock) and not self._clock.paused:
            self._clock.release()
        intent = Intent(kind, self._clock.now() if at is None else at, SUBMITTED)
        if self.paused:
            self._reject(seat, intent, TablePausedError("the game is paused"), outside=True)
            return []
        self.start()
        self.fire_due(intent.at)
        events = self._perform(seat, intent)
        self._poke()
        return events

    def end_on_time(self, at: float) -> list[Event]:
        """The game's time limit ran out at table time ``at`` (`Game.end_on_time`): everything
        due by then happens first, then the game ends, told to the listeners and agents as any
        step is. Returns its events (none if the game was already over)."""
        self.start()
        self.fire_due(at)
        if self.game.over:
            return []
        events = self.game.end_on_time(max(int(at), self.game.now))
        self._dispatch(events)
        self._poke()
        return events

    # ------------------------------------------------------------------ virtual clock

    def run_virtual(self) -> list[Event]:
        """Run to the end of the game (or a cap, or until nothing more is scheduled) under the
        virtual clock, as fast as the CPU allows. Returns every event kept so far."""
        if isinstance(self._clock, RealClock):
            raise RuntimeError("this table is running on the real clock")
        self.start()
        self.stop_reason = None
        self.fire_due(math.inf)
        if self.stop_reason is None:
            self.stop_reason = "game_over" if self.game.over else (
                "stopped" if self._stop_requested else "idle")
        return self.events

    # ------------------------------------------------------------------ real clock

    async def run_realtime(self, speed: float = 1.0,
                           wall: Callable[[], float] = time.monotonic) -> list[Event]:
        """Run the game against the real clock (``speed`` table-ms per real ms, read from
        ``wall`` in seconds) until it ends or :meth:`stop` is called. Outside actions come in
        through :meth:`submit`. Returns every event kept. When a person is to play the first
        card, table time stands still until they do."""
        self._clock = RealClock(speed=speed, start_ms=max(self._clock.now(), float(self.game.now)),
                                wall=wall)
        self._wake = asyncio.Event()
        self._stop_requested = False
        self.stop_reason = None
        self.start()
        if not self.events and self._next_due() is None:
            # Nobody acts until a person plays the first card: the game's clock starts with
            # that card (submit releases it), not when the table was opened.
            self._clock.hold()
        while not self._stop_requested and not self.game.over:
            clock = self._clock
            if not clock.paused:
                self.fire_due(clock.now())
                if self.stop_reason is not None:
                    break
            due = self._next_due()
            timeout = None if due is None or clock.paused else clock.seconds_until(due.at)
            self._wake.clear()
            if timeout == 0.0:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)
        if self.stop_reason is None:
            self.stop_reason = "game_over" if self.game.over else "stopped"
        return self.events

    def pause(self) -> None:
        """Freeze the real clock: nothing happens and submitted actions are refused."""
        if isinstance(self._clock, RealClock):
            self._clock.pause()
            self._poke()

    def resume(self) -> None:
        """Let the real clock run again."""
        if isinstance(self._clock, RealClock):
            self._clock.resume()
            self._poke()

    def stop(self) -> None:
        """End the current run after the action in progress."""
        self._stop_requested = True
        self._poke()

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()


# ---------------------------------------------------------------------------------- humans


class HumanAgent:
    """A seat played by a person: key presses call :meth:`press`, which submits the action to
    the table at once, stamped with the table clock. The agent itself never plans anything; it
    keeps what a view needs to show (the latest observation, the latest refusal) and calls
    ``on_update(self)`` whenever that changes.
    """

    def __init__(self, name: str = "you",
                 on_update: Callable[[HumanAgent], object] | None = None) -> None:
        self.name = name
        self.on_update = on_update
        self.table: Table | None = None
        self.seat: int | None = None
        self.rules: Ruleset | None = None
        self.observation: Observation | None = None
        self.last_rejection: str | None = None

    def attach(self, table: Table, seat: int) -> None:
        """Called by the table this agent sits at."""
        self.table = table
        self.seat = seat

    def press(self, kind: ActionKind) -> list[Event]:
        """The person pressed the key for ``kind`` ("play", "slap" or "resign")."""
        if self.table is None or self.seat is None:
            raise RuntimeError("this human agent is not seated at a table")
        self.last_rejection = None
        return self.table.submit(self.seat, kind)

    def on_start(self, seat: int, rules: Ruleset, observation: Observation) -> Answer:
        """Remember the seat, rules and first view."""
        self.seat, self.rules, self.observation = seat, rules, observation
        self._updated()
        return None

    def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
        """Keep the latest view; a human plans nothing ahead."""
        self.observation = observation
        self._updated()
        return None

    def on_rejected(self, intent: Intent, error: IllegalActionError,
                    observation: Observation) -> Answer:
        """Keep the engine's reason so the view can show it."""
        self.observation = observation
        self.last_rejection = str(error)
        self._updated()
        return None

    def _updated(self) -> None:
        if self.on_update is not None:
            self.on_update(self)
