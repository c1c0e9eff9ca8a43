"""Judging with synthetic timestamps: the link estimator, the table time of an action and its
bounds, the settling window and its cap (docs/fairness.md)."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratscrew.server.room.judging import (
    ALLOWANCE_CAP_MS,
    SETTLE_CAP_MS,
    UNMEASURED_SETTLE_MS,
    allowance_ms,
    judge_action,
    link_window_ms,
    settle_window_ms,
)
from ratscrew.server.ws.link import JITTER_WINDOW, WINDOW, LinkEstimate, Pinger


def link(*samples: float) -> LinkEstimate:
    estimate = LinkEstimate()
    for sample in samples:
        estimate.add(sample)
    return estimate


# ---------------------------------------------------------------------------------- the link


def test_the_round_trip_is_the_windows_minimum_so_slow_samples_do_not_move_it() -> None:
    estimate = link(80, 81, 300, 82, 250, 80.5)
    assert estimate.rtt_ms == 80
    assert estimate.median_ms == pytest.approx(81.5)


def test_old_samples_leave_the_window() -> None:
    estimate = link(10, *[60] * WINDOW)  # the link got slower: the 10 ms sample is forgotten
    assert estimate.samples == WINDOW and estimate.rtt_ms == 60


@given(st.lists(st.floats(min_value=-5.0, max_value=500.0), min_size=1, max_size=2 * WINDOW))
def test_the_ping_shown_is_the_median_of_the_window(samples: list[float]) -> None:
    link = LinkEstimate()
    for sample in samples:
        link.add(sample)
    assert link.median_ms == statistics.median(max(0.0, s) for s in samples[-WINDOW:])


def test_jitter_is_the_90th_percentile_above_the_minimum() -> None:
    assert link(40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 90).jitter_ms == pytest.approx(9)
    assert link(40).jitter_ms == 0 and LinkEstimate().rtt_ms is None


def test_a_busy_spell_stops_widening_the_allowance_once_the_latest_samples_are_calm() -> None:
    calm, busy = [40] * 10, [80] * 10  # a busy server reads every pong late for a while
    assert link(*calm, *busy).jitter_ms == 40
    after = link(*calm, *busy, *[41] * JITTER_WINDOW)
    assert after.samples == WINDOW  # the busy samples are still kept...
    assert after.jitter_ms == 1 and after.rtt_ms == 40  # ...but only the latest say how late


def test_the_jitter_is_measured_from_the_whole_windows_round_trip() -> None:
    estimate = link(30, *[50] * JITTER_WINDOW)  # the link's best is older than the latest ten
    assert estimate.rtt_ms == 30 and estimate.jitter_ms == 20


def test_one_late_sample_among_the_latest_does_not_move_the_jitter() -> None:
    assert link(*[40] * (JITTER_WINDOW - 1), 200).jitter_ms == 0


def test_pongs_are_matched_to_their_pings_once() -> None:
    pinger = Pinger()
    first = pinger.ping(now=1000.0)
    assert pinger.pong(first, now=1030.0) == 30.0
    assert pinger.pong(first, now=1100.0) is None       # a repeated pong counts once
    assert pinger.pong(999, now=1100.0) is None         # an id never sent counts for nothing
    assert pinger.link.samples == 1 and pinger.link.rtt_ms == 30.0


def test_the_allowance_follows_the_jitter_between_floor_and_cap() -> None:
    assert allowance_ms(link(20, 20, 20)) == 5.0
    assert allowance_ms(link(20, 32, 32)) == 12.0
    assert allowance_ms(link(20, 500, 500)) == ALLOWANCE_CAP_MS


# ---------------------------------------------------------------------------------- table time

def fair(arrived_at: float, shown_at: float | None, reaction_ms: float | None, rtt_ms: float | None,
         allowance: float = 5.0, horizon: float = 0.0) -> tuple[float, str | None]:
    verdict = judge_action("fair", arrived_at=arrived_at, shown_at=shown_at, reaction_ms=reaction_ms,
                           rtt_ms=rtt_ms, allowance_ms=allowance, horizon=horizon)
    return verdict.judged_at, verdict.clamped


def test_an_honest_action_is_judged_when_its_state_was_sent_plus_the_reaction() -> None:
    # sent at 1000; 75 ms to the client, 212 ms reaction, 75 ms back: arrives at 1362
    assert fair(1362, 1000, 212, rtt_ms=150) == (1212, None)


def test_a_lying_client_gains_no_more_than_its_link_explains() -> None:
    # the example: a 2 ms link, arriving 330 ms after the card, claiming 120 ms
    judged, clamped = fair(1330, 1000, 120, rtt_ms=2)
    assert clamped == "link" and judged == 1330 - 2 - 5
    # what a liar can gain at most: the allowance, never more
    assert fair(1330, 1000, 0, rtt_ms=2, allowance=ALLOWANCE_CAP_MS)[0] == 1330 - 2 - ALLOWANCE_CAP_MS


def test_a_claim_later_than_the_arrival_is_judged_at_the_arrival() -> None:
    assert fair(1100, 1000, 500, rtt_ms=10) == (1100, "arrival")


def test_an_unstamped_action_counts_half_its_round_trip() -> None:
    assert fair(1100, None, None, rtt_ms=60) == (1070, "unstamped")
    assert fair(1100, 1000, None, rtt_ms=60) == (1070, "unstamped")


def test_nothing_is_judged_before_what_the_engine_already_has() -> None:
    assert fair(1362, 1000, 212, rtt_ms=150, horizon=1250) == (1250, "settle")


def test_first_packet_judges_by_arrival() -> None:
    verdict = judge_action("first-packet", arrived_at=1362, shown_at=1000, reaction_ms=120,
                           rtt_ms=150, allowance_ms=5, horizon=0)
    assert (verdict.judged_at, verdict.link_ms, verdict.reaction_ms) == (1362, 0, 362)


def test_reactions_below_the_human_floor_are_anticipations() -> None:
    quick = judge_action("fair", arrived_at=1150, shown_at=1000, reaction_ms=80, rtt_ms=70,
                         allowance_ms=5, horizon=0)
    human = judge_action("fair", arrived_at=1170, shown_at=1000, reaction_ms=100, rtt_ms=70,
                         allowance_ms=5, horizon=0)
    assert quick.anticipation and quick.judged_at == 1080
    assert not human.anticipation


# ---------------------------------------------------------------------------------- settling

def test_the_settling_window_covers_the_slowest_link_up_to_the_cap() -> None:
    assert link_window_ms(link(100, 100)) == 105
    at_the_cap = link(250, 250, 250, 250, 250, 300, 300, 300, 300, 300)  # 250 ms, 50 ms jitter
    assert link_window_ms(at_the_cap) == SETTLE_CAP_MS == 300
    assert link_window_ms(link(400, 400)) == SETTLE_CAP_MS  # beyond the cap: compensated up to it
    assert link_window_ms(LinkEstimate()) == UNMEASURED_SETTLE_MS
    assert settle_window_ms("fair", [link(2, 2), link(180, 180)]) == 185
    assert settle_window_ms("fair", []) == 0
    assert settle_window_ms("first-packet", [link(180)]) == 0


def test_a_slap_from_beyond_the_cap_is_judged_no_earlier_than_the_horizon() -> None:
    # a 400 ms link: the room held actions only 300 ms, so this one is judged at the horizon
    judged, clamped = fair(1600, 1000, 200, rtt_ms=400, horizon=1300)
    assert (judged, clamped) == (1300, "settle")
