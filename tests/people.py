"""People at rooms on the fake clock, for the scenario tests and benchmarks/integrity.py.

A `Person` is a client model at a `FakeConnection` (tests/online.py): it sees each state half a
round trip after it was sent, presses a drawn reaction after seeing a slappable pile (and
presses anyway when someone took the pile meanwhile: a hand already on its way), plays on its
turn, and stamps its presses with the shipped client's own code
(`ratscrew.client.reaction.ShownStates`), as ``ratscrew join`` does. A `Colluder` races a
victim's presses. `play` plays games to their end (or their time limit) and returns the stored
records.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from online import FakeConnection, FakeWall, run_until

from ratscrew.cards import parse_cards
from ratscrew.client.reaction import ShownStates
from ratscrew.patterns import find_slap
from ratscrew.protocol.client_messages import Act, Start
from ratscrew.ruleset import Ruleset
from ratscrew.server.room.room import Room

CLASSIC = Ruleset.preset("classic")


def ex_gaussian(rng: random.Random, mu: float = 300.0, sigma: float = 50.0,
                tau: float = 100.0) -> float:
    """An ordinary person's reaction (the issue's: mean 400 ms)."""
    return max(120.0, rng.gauss(mu, sigma) + rng.expovariate(1.0 / tau))


class Person:
    """One person at a fake connection (see the module docstring). ``stamp`` picks the state a
    press answers; the default is the shipped client's. Its ``presses`` (room time, kind) are
    known before they happen, so a `Colluder` can race them."""

    def __init__(self, room: Room, name: str, rtt_ms: float, react: Callable[[], float],
                 stamp: Callable[[ShownStates, float], tuple[int, float] | None] | None = None) -> None:
        self.conn = FakeConnection(room, rtt_ms=rtt_ms)
        self.conn.join(name)
        self.one_way = rtt_ms / 2
        self.react = react
        self.shown = ShownStates()
        self.stamp = stamp or (lambda shown, at: shown.reaction_to(at))
        self.read = 0
        self.presses: list[tuple[float, str]] = []   # (room time pressed, kind)
        self.outbox: list[tuple[float, Act]] = []    # (room time it arrives, message)
        self.slapped_on: set[int] = set()            # cards_played of piles slapped at
        self.played_on: set[int] = set()
        self.seat: int | None = None

    def next_at(self) -> float | None:
        """The room time of this person's next doing (seeing a state, a press, an arrival)."""
        due = [at for at, _ in self.presses] + [at for at, _ in self.outbox]
        for message in self.conn.sent[self.read:]:
            if message["type"] == "state":
                due.append(message["sent_at"] + self.one_way)
                break
        return min(due) if due else None

    def step(self, now: float) -> None:
        """See what has arrived by ``now``, press what is due, send what has arrived."""
        while self.read < len(self.conn.sent):
            message = self.conn.sent[self.read]
            if message["type"] != "state":
                self.read += 1
                continue
            seen = message["sent_at"] + self.one_way
            if seen > now:
                break
            self.read += 1
            self.shown.shown(int(message["version"]), at=seen / 1000.0)
            self.look(message["observation"], seen)
        for at, kind in sorted(p for p in self.presses if p[0] <= now):
            self.presses.remove((at, kind))
            stamp = self.stamp(self.shown, at / 1000.0)
            version, reaction = (None, None) if stamp is None else stamp
            self.outbox.append((at + self.one_way, Act(kind, reaction, version)))  # type: ignore[arg-type]
        for arrive, act in sorted((o for o in self.outbox if o[0] <= now), key=lambda o: o[0]):
            self.outbox.remove((arrive, act))
            if self.conn.room.phase == "playing":
                self.conn.do(act)

    def look(self, observation: dict[str, Any], seen: float) -> None:
        self.seat = observation["seat"]
        cards = observation["cards_played"]
        pile = parse_cards(" ".join(observation["pile"]))
        if (cards not in self.slapped_on and observation["may"]["slap"][self.seat]
                and find_slap(pile, CLASSIC.slaps, CLASSIC.pattern_options) is not None):
            self.slapped_on.add(cards)
            self.press(seen + self.react(), "slap")
        elif observation["turn"] == self.seat and cards not in self.played_on:
            self.played_on.add(cards)
            self.press(seen + 500.0, "play")

    def press(self, at: float, kind: str) -> None:
        # on a whole ms: the fake clock reads whole microseconds, and a press due between two
        # readings kept the loop in `play` stepping by less than one
        self.presses.append((float(math.ceil(at)), kind))


class Colluder(Person):
    """Slaps a little (30 ms) before ``victim`` presses at a slappable pile, on a ``share`` of
    them (the others it leaves to the victim); plays its turns like a person."""

    def __init__(self, room: Room, name: str, rtt_ms: float, victim: Person, share: float,
                 rng: random.Random) -> None:
        super().__init__(room, name, rtt_ms, lambda: 0.0)
        self.victim, self.share, self.rng = victim, share, rng
        self.raced: set[float] = set()

    def look(self, observation: dict[str, Any], seen: float) -> None:
        self.seat = observation["seat"]  # its slaps come from the victim's presses (`step`)
        cards = observation["cards_played"]
        if observation["turn"] == self.seat and cards not in self.played_on:
            self.played_on.add(cards)
            self.press(seen + 500.0, "play")

    def step(self, now: float) -> None:
        for at, kind in list(self.victim.presses):
            if kind == "slap" and at not in self.raced and at - 30.0 > now:
                self.raced.add(at)
                if self.rng.random() < self.share:
                    self.press(at - 30.0, "slap")
        super().step(now)


def play(table: Callable[[int], tuple[Room, FakeWall, list[Person]]], games: int) -> list[dict[str, Any]]:
    """``games`` games, each in a room of its own made by ``table(game number)``, played to
    their end; the stored records."""
    records = []
    for number in range(games):
        room, wall, people = table(number)
        people[0].conn.do(Start())
        while room.phase == "playing":
            due = [at for at in [room.next_wake(), *(p.next_at() for p in people)] if at is not None]
            now = min(due) if due else room.clock.now() + 1000.0
            run_until(room, wall, max(now, room.clock.now()))
            for person in people:
                person.step(room.clock.now())
        assert room.game_id is not None
        record = room.store.game_record(room.game_id)
        assert record is not None
        records.append(record)
    return records
