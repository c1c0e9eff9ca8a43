"""The agents a room seats at its `ratscrew.runtime.Table`: bots that see what players see, when
they see it, and the stand-in for a person playing over the network.

A room hands actions to the engine a settling window *behind* the wall clock (see
:mod:`ratscrew.server.room.judging`), so the state after an action at table time ``t`` is shown to
the players a little after ``t``. A person reacts from the moment the state is shown; so must a
bot, or it would react before anyone could see the card. `Shown` wraps an agent so that every
event and observation it gets is stamped with the room time at which the room shows it: a bot
"sees" the card at the same moment the players are sent it, and acts on the server clock as a
player with a perfect link.

`RemoteSeat` sits in a person's seat. It plans nothing while the person plays in time; when the
seat's turn has waited ``timeout_ms`` it plays the card for them, and when they won a challenge
they must slap to collect, it collects for them after ``timeout_ms``, so a player who left or
went idle never stalls the table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from ratscrew.errors import IllegalActionError
from ratscrew.events import CardPlayed, ChallengeLost, Event, PileWon
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import Agent, Answer, Intent, Observation


class Shown:
    """``agent``, told of everything at ``shown_at()`` (the room time the room shows it) rather
    than at the engine time the action was judged.

    >>> from ratscrew.cards import Card
    >>> class Echo:
    ...     def on_start(self, seat, rules, observation): return None
    ...     def on_events(self, events, observation):
    ...         return [Intent("slap", events[0].at + 300)]
    ...     def on_rejected(self, intent, error, observation): return None
    >>> agent = Shown(Echo(), shown_at=lambda: 1250.0)
    >>> agent.on_events([CardPlayed(at=1000, seat=0, card=Card.parse("7H"))], {"now": 1000})
    [Intent(kind='slap', at=1550.0, note='')]
    """

    def __init__(self, agent: Agent, shown_at: Callable[[], float]) -> None:
        self.agent = agent
        self._shown_at = shown_at
        self._restamp = not isinstance(agent, RemoteSeat)
        """Whether the events are stamped anew: not for a `RemoteSeat`, which plans from the
        observation's ``now`` and reads no event's time (a new event per agent per step was
        the costly part of this wrapper: 58,000 ``dataclasses.replace`` calls in one load run
        that sent 66,000 messages)."""

    def _view(self, observation: Observation) -> tuple[int, Observation]:
        at = int(self._shown_at())
        return at, {**observation, "now": max(at, observation["now"])}

    def on_start(self, seat: int, rules: Ruleset, observation: Observation) -> Answer:
        """Sit down, seeing the table as it is shown now."""
        return self.agent.on_start(seat, rules, self._view(observation)[1])

    def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
        """The events, each stamped with the time they are shown."""
        at, view = self._view(observation)
        if not self._restamp:
            return self.agent.on_events(events, view)
        # a new event only where the time moves (dataclasses.replace is the costly part)
        shown = [event if event.at >= at else dataclasses.replace(event, at=at) for event in events]
        return self.agent.on_events(shown, view)

    def on_rejected(self, intent: Intent, error: IllegalActionError,
                    observation: Observation) -> Answer:
        """Pass the refusal on."""
        return self.agent.on_rejected(intent, error, self._view(observation)[1])


class RemoteSeat:
    """The table's agent for a person playing over the network: plays and collects for them
    when they let ``timeout_ms`` pass (see the module docstring). It plans from the
    observation's ``now`` and the events' kinds and seats, never from an event's time (`Shown`
    relies on that to pass its events on as they are).

    >>> seat = RemoteSeat(timeout_ms=5000)
    >>> seat.on_start(0, Ruleset.preset("classic"), {"now": 100, "turn": 0})
    [Intent(kind='play', at=5100.0, note='time-out')]
    >>> seat.on_events([], {"now": 900, "turn": 0}) is None   # still waiting: keep the plan
    True
    """

    def __init__(self, timeout_ms: float) -> None:
        self.timeout_ms = timeout_ms
        self.seat = -1
        self._play: Intent | None = None
        self._claim: Intent | None = None

    def on_start(self, seat: int, rules: Ruleset, observation: Observation) -> Answer:
        """Take the seat; if the game opens on this seat's turn, start its clock."""
        self.seat = seat
        return self._plan([], observation)

    def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
        """Start, restart or drop the turn and claim clocks as the table changes."""
        return self._plan(events, observation)

    def on_rejected(self, intent: Intent, error: IllegalActionError,
                    observation: Observation) -> Answer:
        """A stand-in action the engine refused is dropped; plan again from what the seat sees."""
        if intent.kind == "play":
            self._play = None
        else:
            self._claim = None
        return self._plan([], observation)

    def _plan(self, events: Sequence[Event], observation: Observation) -> Answer:
        before = (self._play, self._claim)
        now = float(observation["now"])
        for event in events:
            if isinstance(event, CardPlayed) and event.seat == self.seat:
                self._play = None  # the turn, if it is still ours, starts again
            elif isinstance(event, PileWon):
                self._play = self._claim = None
            elif isinstance(event, ChallengeLost) and event.winner == self.seat and (
                    event.collect_at is None):
                self._claim = Intent("slap", now + self.timeout_ms, "collect for")
        if observation["turn"] != self.seat:
            self._play = None
        elif self._play is None:
            self._play = Intent("play", now + self.timeout_ms, "time-out")
        if (self._play, self._claim) == before:
            return None
        return [intent for intent in (self._play, self._claim) if intent is not None]
