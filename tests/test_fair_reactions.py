"""What counts as a reaction (issue 46, item 1): the integrity review counts only true
reactions, and the shipped clients stamp a press against the state the person was reacting to.

The rooms run on the fake clock (tests/online.py); a person is played by `Person`, a client
model that sees each state half a round trip after it was sent, presses a drawn reaction after
seeing a slappable pile (and presses anyway when someone took the pile meanwhile: a hand
already on its way), plays on its turn, and stamps its presses with the shipped client's own
code (`ratscrew.client.reaction.ShownStates`), as ``ratscrew join`` does. The review's own
functions read the stored records (`ratscrew.server.review.slap_samples`, `assess`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from online import FakeConnection, FakeWall, make_room, run_until

from ratscrew.cards import parse_cards
from ratscrew.client.reaction import ShownStates
from ratscrew.integrity import HUMAN_FLOOR_MS, SlapSample, assess
from ratscrew.patterns import find_slap
from ratscrew.ruleset import Ruleset
from ratscrew.server.protocol import Act, Start
from ratscrew.server.review import is_reaction, slap_samples
from ratscrew.server.room import Room

CLASSIC = Ruleset.preset("classic")


def ex_gaussian(rng: random.Random, mu: float = 300.0, sigma: float = 50.0,
                tau: float = 100.0) -> float:
    """An ordinary person's reaction (the issue's: mean 400 ms)."""
    return max(120.0, rng.gauss(mu, sigma) + rng.expovariate(1.0 / tau))


class Person:
    """One person at a fake connection (see the module docstring). ``stamp`` picks the state a
    press answers; the default is the shipped client's. ``before`` lets a colluder see this
    person's next press (its room time) and race it."""

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


def test_a_colluder_racing_the_victim_does_not_get_the_victim_flagged() -> None:
    # The victim (mean 400 ms) beside a colluder who sees each press coming and slaps
    # 30 ms before it on 60% of the piles: the victim's presses there come late (stamped, as
    # the shipped client does, against the pile as it was); the rest it wins. The game runs to
    # a five-minute time limit (a two-person game with nobody slapping much may go on for ever).
    rng = random.Random(48)
    people: list[Person] = []
    seats: list[Person] = []  # the victim of each game

    def table(number: int) -> tuple[Room, FakeWall, list[Person]]:
        room, wall = make_room(seats=2, seed=4801 + number, turn_timeout_ms=60_000)
        room.settings.time_limit_ms = 300_000
        victim = Person(room, "Vic", 40.0, lambda: ex_gaussian(rng))
        people[:] = [victim, Colluder(room, "Col", 10.0, victim, 0.6, rng)]
        seats.append(victim)
        return room, wall, people

    records = play(table, games=6)
    judged, samples = [], []
    for record, victim in zip(records, seats, strict=True):
        assert victim.seat is not None
        judged += [e for e in record["judging"] if e["seat"] == victim.seat and e["kind"] == "slap"]
        samples += slap_samples(record, victim.seat)
    late = [e for e in judged if e.get("outcome") == "late"]
    won = [e for e in judged if e.get("outcome") == "won"]
    assert len(late) >= 10 and len(won) >= 15, (len(late), len(won))
    assert all(e["reaction_ms"] is None or e["reaction_ms"] >= HUMAN_FLOOR_MS for e in late), late
    assert len(samples) == len(won)  # the late ones are not counted
    verdict = assess(samples)
    assert verdict.checked_slaps == len(won) and not verdict.flagged, verdict.reasons


def samples_of(records: list[dict[str, Any]], seat: int) -> list[SlapSample]:
    return [sample for record in records for sample in slap_samples(record, seat)]


def test_an_ordinary_person_against_an_expert_bot_is_not_flagged() -> None:
    rng = random.Random(46)
    people: list[Person] = []

    def table(number: int) -> tuple[Room, FakeWall, list[Person]]:
        room, wall = make_room(seats=2, bots=["expert"], seed=4601 + number, turn_timeout_ms=60_000)
        people.append(Person(room, "Ann", 40.0, lambda: ex_gaussian(rng)))
        return room, wall, people[-1:]

    records = play(table, games=1)
    seat = people[0].seat
    assert seat is not None
    judged = [e for r in records for e in r["judging"] if e["seat"] == seat and e["kind"] == "slap"]
    late = [e for e in judged if e.get("outcome") == "late"]
    assert len(judged) >= 15 and late, "the expert bot took piles the person slapped at too"
    samples = samples_of(records, seat)
    verdict = assess(samples)
    assert not verdict.flagged, verdict.reasons
    assert all(s.reaction_ms is not None and s.reaction_ms >= 150 for s in samples), samples
    # the presses that came after the bot took the pile answer the pile as it was
    assert all(e["reaction_ms"] is None or e["reaction_ms"] >= HUMAN_FLOOR_MS for e in late), late


def test_claims_of_ones_own_pile_misslaps_and_losing_slaps_are_not_reactions() -> None:
    base = {"kind": "slap", "seat": 0, "accepted": True, "reaction_ms": 210, "pile_reaction_ms": 210}
    assert is_reaction({**base, "outcome": "won"})
    for outcome in ("claim", "misslap", "late", "void", "repeat", "held"):
        assert not is_reaction({**base, "outcome": outcome}), outcome
    assert not is_reaction({**base, "outcome": "won", "pile_reaction_ms": None})  # never shown it
    assert not is_reaction({**base, "kind": "play", "outcome": "won"})
    # a player whose only slaps were claims at 180-260 ms (flagged after 2 games before)
    claims = [{**base, "outcome": "claim", "reaction_ms": 180 + i * 4, "pile_reaction_ms": 180 + i * 4}
              for i in range(20)]
    assert slap_samples({"judging": claims}, 0) == []
