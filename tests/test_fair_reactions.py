"""What counts as a reaction (issue 46, item 1): the integrity review counts only true
reactions, and the shipped clients stamp a press against the state the person was reacting to.

The rooms run on the fake clock (tests/online.py); a person is played by `people.Person`, a
client model that stamps its presses with the shipped client's own code
(`ratscrew.client.reaction.ShownStates`), as ``ratscrew join`` does. The review's own
functions read the stored records (`ratscrew.server.ladder.review.slap_samples`, `assess`).
"""

from __future__ import annotations

import random
from typing import Any

from online import FakeWall, make_room
from people import Colluder, Person, ex_gaussian, play

from ratscrew.integrity import HUMAN_FLOOR_MS, SlapSample, assess
from ratscrew.server.ladder.review import is_reaction, slap_samples
from ratscrew.server.room.room import Room


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
