"""The bot's decision model, written once (ratscrew/bots/decision.py): what a bot plans after a
batch of events, and the order of its random draws, step by step against a generator seeded the
same way and drawn by hand in the order the model's docstring gives."""

import random

from ratscrew.bots.decision import (
    CLAIM,
    MIN_ANTICIPATION_MS,
    RECOGNITION_COST_MS,
    Plans,
    draw_pace_ms,
    draw_reaction_ms,
    react_to_card,
    replan,
)
from ratscrew.bots.profile import ANTICIPATION_FLOOR_MS, LEVELS, MIN_PACE_MS

CASUAL = LEVELS["casual"]


def reaction(rng: random.Random) -> float:
    """A casual bot's reaction, drawn by hand: gauss(mu, sigma), then expovariate(1 / tau)."""
    value = rng.gauss(CASUAL.mu_ms, CASUAL.sigma_ms) + rng.expovariate(1.0 / CASUAL.tau_ms)
    return max(float(ANTICIPATION_FLOOR_MS), value)


def pace(rng: random.Random) -> float:
    return max(float(MIN_PACE_MS), rng.gauss(CASUAL.pace_mean_ms, CASUAL.pace_sd_ms))


def seed_where(seen: bool, pattern: str) -> int:
    """A seed whose first ``random()`` makes a casual bot see (or miss) ``pattern``."""
    return next(seed for seed in range(1000)
                if (random.Random(seed).random() >= CASUAL.miss_chance(pattern)) == seen)


def test_the_draws_are_the_ones_every_driver_uses() -> None:
    assert draw_reaction_ms(CASUAL, random.Random(3)) == reaction(random.Random(3))
    assert draw_pace_ms(CASUAL, random.Random(3)) == pace(random.Random(3))


def test_a_double_seen_is_slapped_after_a_reaction_and_then_the_turn_is_paced() -> None:
    seed = seed_where(True, "double")
    plans = Plans()
    why = replan(CASUAL, random.Random(seed), plans, may_slap=True, my_turn=True, now=1000,
                 shown_at=1000, pattern="double", near=lambda: False)
    by_hand = random.Random(seed)
    assert by_hand.random() >= CASUAL.miss_chance("double")  # seen
    slap_at = 1000 + reaction(by_hand)
    play_at = 1000 + pace(by_hand)
    assert (why, plans.slap_why) == ("react double", "react double")
    assert (plans.slap_at, plans.play_at) == (slap_at, play_at)


def test_a_double_missed_costs_one_draw_and_plans_no_slap() -> None:
    seed = seed_where(False, "double")
    plans = Plans()
    why = replan(CASUAL, random.Random(seed), plans, may_slap=True, my_turn=True, now=1000,
                 shown_at=1000, pattern="double")
    by_hand = random.Random(seed)
    by_hand.random()  # missed
    assert (why, plans.slap_at, plans.play_at) == (None, None, 1000 + pace(by_hand))


def test_a_seat_that_may_not_slap_draws_nothing_for_the_card_and_drops_its_slap() -> None:
    plans = Plans(slap_at=900.0, slap_why="react sandwich")
    replan(CASUAL, random.Random(5), plans, may_slap=False, my_turn=True, now=1000,
           shown_at=1000, pattern="double")
    assert plans.slap_at is None
    assert plans.play_at == 1000 + pace(random.Random(5))  # the first draw went to the pace


def test_a_won_challenge_is_claimed_even_by_a_seat_that_may_not_slap_otherwise() -> None:
    plans = Plans()
    replan(CASUAL, random.Random(8), plans, may_slap=False, my_turn=False, now=2000, claim_at=2000)
    assert (plans.slap_at, plans.slap_why) == (2000 + reaction(random.Random(8)), CLAIM)


def test_an_open_claim_window_is_slapped_only_by_a_seat_with_no_slap_planned() -> None:
    idle, busy = Plans(), Plans(slap_at=2100.0, slap_why="react double")
    replan(CASUAL, random.Random(9), idle, may_slap=True, my_turn=False, now=3000, opened_at=3000)
    replan(CASUAL, random.Random(9), busy, may_slap=True, my_turn=False, now=3000, opened_at=3000)
    assert (idle.slap_at, idle.slap_why) == (3000 + reaction(random.Random(9)), "claim open")
    assert (busy.slap_at, busy.slap_why) == (2100.0, "react double")


def test_a_planned_play_stands_until_a_pile_is_won_and_goes_when_the_turn_does() -> None:
    plans = Plans(play_at=1500.0)
    replan(CASUAL, random.Random(1), plans, may_slap=True, my_turn=True, now=1200)
    assert plans.play_at == 1500.0
    replan(CASUAL, random.Random(1), plans, may_slap=True, my_turn=True, now=1200, pile_won=True)
    assert plans.play_at == 1200 + pace(random.Random(1))
    replan(CASUAL, random.Random(1), plans, may_slap=True, my_turn=False, now=1300)
    assert plans.play_at is None


def test_a_foreseen_pattern_is_anticipated_and_never_missed() -> None:
    counter = LEVELS["expert"]
    decision = react_to_card(counter, random.Random(2), 500, "sandwich", foreseen=True, near=lambda: False)
    by_hand = random.Random(2)
    delay = max(MIN_ANTICIPATION_MS, by_hand.gauss(counter.anticipation_ms, counter.anticipation_ms / 4))
    assert decision == (500 + delay, "anticipate sandwich")


def test_a_spammer_slaps_blind_after_a_simple_reaction() -> None:
    spammer = CASUAL.with_changes(spam=1.0)
    decision = react_to_card(spammer, random.Random(4), 700, None, foreseen=False, near=lambda: False)
    by_hand = random.Random(4)
    by_hand.random()  # < spam: a blind slap
    simple = max(float(ANTICIPATION_FLOOR_MS), reaction(by_hand) - RECOGNITION_COST_MS)
    assert decision == (700 + simple, "spam")


def test_a_near_pattern_is_looked_at_only_when_no_pattern_shows() -> None:
    looked: list[bool] = []

    def near() -> bool:
        looked.append(True)
        return True

    flincher = CASUAL.with_changes(flinch=1.0)
    decision = react_to_card(flincher, random.Random(6), 800, None, False, near)
    assert decision is not None and decision[1] == "flinch"
    assert looked == [True]
    react_to_card(flincher, random.Random(6), 800, "double", False, near)
    react_to_card(flincher, random.Random(6), 800, None, True, near)  # foreseen: no flinch
    assert looked == [True]
