"""A saved game, step by step: replay a record through the engine and keep what each action did.

The replay viewers (terminal and browser) and the end-of-game statistics read a game this way.
Nothing is decided here: each recorded action is given to the engine again
(`Game.replay_action`), and each step keeps the events the engine answered with, the spectator's
observation afterwards and the pattern the engine says the pile shows.

>>> from ratscrew.engine import Game
>>> from ratscrew.ruleset import Ruleset
>>> game = Game(Ruleset.preset("classic"), hands=["7H 2C", "7S 3D"], leader=0)
>>> _ = game.play(0, at=0), game.play(1, at=500), game.slap(0, at=800)
>>> steps = replay_steps(game.to_record())
>>> [(step.kind, step.seat, step.at, step.pattern) for step in steps]
[('play', 0, 0, None), ('play', 1, 500, 'double'), ('slap', 0, 800, None)]
>>> [event.kind for event in steps[2].events]
['slap_won', 'pile_won']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ratscrew.engine import Game
from ratscrew.events import Event
from ratscrew.observation import Observation


@dataclass(frozen=True)
class Step:
    """One recorded action and what it did: ``events``, then the table as a spectator saw it
    (``observation``) and the slap pattern the pile showed (``pattern``, ``None`` if none)."""

    index: int
    kind: str
    seat: int | None
    at: int
    events: tuple[Event, ...]
    observation: Observation
    pattern: str | None


def start_of(record: dict[str, Any]) -> Game:
    """The game of a record as it was dealt, before any action; a record that is not a ratscrew
    game record is a `ValueError`."""
    if not isinstance(record, dict):
        raise ValueError("not a ratscrew game record")
    game = Game.from_record({**record, "actions": []})
    if not isinstance(record.get("actions"), list):
        raise ValueError("the record has no list of actions")
    return game


def replay_steps(record: dict[str, Any]) -> list[Step]:
    """Every action of the record, replayed in order through the engine.

    A record whose actions do not replay is a `ValueError` naming the action that failed.
    """
    game = start_of(record)
    steps: list[Step] = []
    for index, action in enumerate(record["actions"]):
        events = game.replay_action(index, action)
        kind, seat, at = action
        steps.append(Step(index=index, kind=kind, seat=seat, at=at, events=tuple(events),
                          observation=game.observe(None), pattern=game.slap_pattern()))
    return steps
