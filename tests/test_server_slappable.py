"""Every ``state`` says which slap pattern its pile shows (``slappable``, issue 51), by the
engine's verdict, so that the screen reader mode can say "double: slap!" without knowing a rule:
the room on a fake clock, a page that joins late, and the offline table (the same publisher)."""

from __future__ import annotations

import json
from typing import Any

from online import FakeConnection, act, make_room, run_until
from test_server_room import double_on_the_table

from ratscrew.cards import parse_cards
from ratscrew.offline.room import OfflineRoom, parse_play_query
from ratscrew.patterns import find_slap
from ratscrew.protocol.client_messages import Start
from ratscrew.ruleset import Ruleset


def piles_and_verdicts(states: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """Each state's pile (notation, bottom to top) and what it said in ``slappable``."""
    return [(" ".join(state["observation"]["pile"]), state["slappable"]) for state in states]


def test_a_double_is_named_in_its_state_and_the_card_that_covers_it_brings_null() -> None:
    room, wall = make_room(seats=2, hands=["7H 2C 2H", "7S 4D 5D"], turn_timeout_ms=60_000)
    ann, bob = FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    bob.join("Bob")
    ann.do(Start())
    for at, (player, kind) in enumerate([(ann, "play"), (bob, "play"), (ann, "play"),
                                         (bob, "play"), (ann, "play")], start=1):
        act(player, wall, kind, 1000 * at, reaction_ms=300)
    run_until(room, wall, 6000)
    assert piles_and_verdicts(ann.of("state")) == [
        ("", None), ("7H", None), ("7H 7S", "double"), ("7H 7S 2C", None),
        ("7H 7S 2C 4D", None), ("7H 7S 2C 4D 2H", "sandwich")]
    assert [state["slappable"] for state in bob.of("state")] == [
        state["slappable"] for state in ann.of("state")]  # worked out once, the same for all


def test_a_page_that_joins_on_a_double_is_told_it_is_a_double() -> None:
    room, _, ann, _, _ = double_on_the_table("fair")
    assert ann.last("state")["slappable"] == "double"
    late = FakeConnection(room)
    late.join("Cat")  # no seat left: Cat watches, sent the log and the latest state
    assert piles_and_verdicts(late.of("state")) == [("7H 7S", "double")]


def test_the_offline_table_says_what_the_engine_says_of_every_pile_it_shows() -> None:
    seconds = [0.0]
    query = "rules=classic&bots=casual,casual,casual&seed=7&time_limit_ms=600000"
    room = OfflineRoom(parse_play_query(query), wall=lambda: seconds[0])
    frames = [json.loads(frame) for frame in room.receive(json.dumps({"type": "join", "name": "Ann"}))]
    while room.phase == "playing":
        wake = room.wake_in_ms()
        assert wake is not None
        seconds[0] = (room.now() + wake) / 1000.0
        frames += [json.loads(frame) for frame in room.advance()]
    states = [frame for frame in frames if frame["type"] == "state"]
    rules = Ruleset.preset("classic")
    expected = [None if state["observation"]["over"] else find_slap(
        parse_cards(" ".join(state["observation"]["pile"])), rules.slaps, rules.pattern_options)
        for state in states]
    assert [state["slappable"] for state in states] == expected
    met = [name for name in expected if name is not None]
    assert len(set(met)) >= 2, met  # several patterns were met
