"""The room's agents (`ratscrew.server.room.agents`): a person's stand-in plans from the time the
table is shown, whatever the events' own times, so `Shown` passes its events on as they are."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from hypothesis import given
from hypothesis import strategies as st

from ratscrew.cards import Card
from ratscrew.events import CardPlayed, ChallengeLost, Event, PileWon
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import Answer, Intent, Observation
from ratscrew.server.room.agents import RemoteSeat, Shown

SHOWN_AT = 5_000.0


def seen(now: int, turn: int = 0) -> Observation:
    """The only parts of an observation the stand-in reads."""
    return cast(Observation, {"now": now, "turn": turn})


def step_events(times: Sequence[int]) -> list[Event]:
    """Seat 0 plays, seat 1 loses a challenge to seat 0 (who must collect), seat 1 takes a pile."""
    played, lost, won = times
    return [CardPlayed(at=played, seat=0, card=Card.parse("7H")),
            ChallengeLost(at=lost, seat=1, winner=0, collect_at=None, exclusive_until=None),
            PileWon(at=won, seat=1, reason="slap", cards=3, penalty_cards=0)]


def plan(times: Sequence[int]) -> Answer:
    seat = Shown(RemoteSeat(timeout_ms=3000), shown_at=lambda: SHOWN_AT)
    seat.on_start(0, Ruleset.preset("classic"), seen(0, turn=1))
    return seat.on_events(step_events(times), seen(4_000))


@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=3, max_size=3))
def test_a_persons_stand_in_plans_from_the_time_shown_whatever_the_events_times(times: list[int]) -> None:
    assert plan(times) == plan([0, 0, 0]) == [Intent("play", SHOWN_AT + 3000, "time-out")]


def test_shown_hands_a_stand_in_the_events_as_they_are_and_restamps_them_for_a_bot() -> None:
    received: list[Sequence[Event]] = []

    class Recording(RemoteSeat):
        def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
            received.append(events)
            return None

    class Bot:
        def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
            received.append(events)
            return None

    events = step_events([1_000, 1_000, 1_000])
    Shown(Recording(timeout_ms=3000), shown_at=lambda: SHOWN_AT).on_events(events, seen(1_000))
    Shown(Bot(), shown_at=lambda: SHOWN_AT).on_events(events, seen(1_000))  # type: ignore[arg-type]
    assert all(a is b for a, b in zip(received[0], events, strict=True))
    assert [event.at for event in received[1]] == [SHOWN_AT] * 3
