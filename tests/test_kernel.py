"""The compiled kernel: what it supports, how it refuses the rest, its random numbers, and that
it plays action for action what the real engine plays."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from ratscrew.bmn import parse_deal
from ratscrew.bots.profile import LEVELS, BotProfile
from ratscrew.cards import parse_cards
from ratscrew.ruleset import Ruleset
from ratscrew.sim.kernel import (
    kernel_actions,
    kernel_limits,
    kernel_supports,
    run_kernel_deal,
    run_kernel_games,
)
from ratscrew.sim.kernel_compiled import (
    new_generators,
    next_below,
    next_exponential,
    next_gauss,
    next_random,
    seed_by_array,
    seed_uint64,
    seed_words,
    shuffle_ranks,
)
from ratscrew.sim.reference import bot_seed, play_reference_game, play_table_game, run_reference_game

CASUAL, BEGINNER = LEVELS["casual"], LEVELS["beginner"]
PRESETS = tuple(Ruleset.presets())


# ---------------------------------------------------------------------------- what it supports


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", [2, 3, 4, 5, 8])
def test_every_preset_runs_with_every_bot_level(preset: str, players: int) -> None:
    rules = Ruleset.preset(preset)
    levels = list(LEVELS.values())
    bots = [levels[seat % len(levels)] for seat in range(players)]
    assert kernel_supports(rules, bots) == (players <= rules.max_players)


def test_every_tie_policy_and_blind_slappers_are_supported() -> None:
    for policy in ("earliest", "void", "random"):
        rules = dataclasses.replace(Ruleset.preset("classic"), tie_policy=policy, tie_window_ms=50)
        assert kernel_limits(rules, [CASUAL.with_changes(spam=0.4), LEVELS["referee"]]) == []


def test_bots_with_impossible_numbers_are_not_supported() -> None:
    broken = CASUAL.with_changes(mu_ms=float("nan"))
    assert kernel_limits(Ruleset.preset("classic"), [broken, CASUAL]) == [
        "bot 'casual' has a parameter that is not a finite number"]
    assert not kernel_supports(Ruleset.preset("classic"), [CASUAL.with_changes(spam=float("inf")), CASUAL])


@pytest.mark.parametrize("players", [1, 6])
def test_table_sizes_outside_the_rules_are_not_supported(players: int) -> None:
    assert not kernel_supports(Ruleset.preset("pagat"), [CASUAL] * players)  # pagat: at most 5


def test_unsupported_rules_are_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="6 players"):
        run_kernel_games(Ruleset.preset("pagat"), [CASUAL] * 6, [1])
    with pytest.raises(ValueError, match="not a finite number"):
        run_kernel_games(Ruleset.preset("classic"), [CASUAL.with_changes(tau_ms=float("nan")), CASUAL], [1])


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_seeds_outside_64_bits_are_refused(seed: int) -> None:
    with pytest.raises(ValueError, match="seeds must be between"):
        run_kernel_games(Ruleset.preset("classic"), [CASUAL, CASUAL], [seed])


def test_an_explicit_deal_needs_a_hand_for_every_player() -> None:
    with pytest.raises(ValueError, match="one non-empty hand per player"):
        run_kernel_deal(Ruleset.preset("classic"), [CASUAL, CASUAL], [parse_cards("7H 7S"), []], 1)


# ---------------------------------------------------------------------------- random numbers


@pytest.mark.parametrize("seed", [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1, 2**67 + 12345])
def test_the_compiled_generator_is_cpythons(seed: int) -> None:
    words, index, cached = new_generators(1)
    key = np.zeros(4, dtype=np.uint64)
    seed_uint64(words, index, 0, np.uint64(seed % 2**64), np.uint64(seed >> 64), key)
    python = random.Random(seed)
    for _ in range(700):  # more than one twist of the 624-word state
        assert next_random(words, index, 0) == python.random()
        assert next_gauss(words, index, cached, 0, 350.0, 50.0) == python.gauss(350.0, 50.0)
        assert next_exponential(words, index, 0, 1.0 / 110) == python.expovariate(1.0 / 110)
    for n in (2, 3, 52, 54, 1000):
        assert next_below(words, index, 0, n) == python.randrange(n)


def test_the_compiled_shuffle_is_cpythons() -> None:
    words, index, _ = new_generators(1)
    for seed in (3, 99, 2**40 + 1):
        key = seed_words(seed)
        seed_by_array(words, index, 0, key, len(key))
        cards = np.arange(54, dtype=np.uint8)
        shuffle_ranks(words, index, 0, cards, 54)
        expected = list(range(54))
        random.Random(seed).shuffle(expected)
        assert cards.tolist() == expected


def test_each_bot_has_its_own_generator() -> None:
    assert len({bot_seed(7, seat) for seat in range(8)}) == 8
    assert bot_seed(7, 0) != bot_seed(8, 0)


# ---------------------------------------------------------------------------- same games


@pytest.mark.parametrize("preset", PRESETS)
def test_every_action_is_the_engines(preset: str) -> None:
    rules = Ruleset.preset(preset)
    bots = [LEVELS["expert"], BEGINNER, LEVELS["referee"].with_changes(spam=0.2)]
    for seed in range(6):
        game, summary = play_reference_game(rules, bots, seed, max_cards=400)
        expected = [tuple(action) for action in game.to_record()["actions"]]
        assert kernel_actions(rules, bots, seed, max_cards=400) == expected
        assert run_kernel_games(rules, bots, [seed], max_cards=400) == [summary]


def test_the_largest_seeds_deal_and_draw_like_the_engine() -> None:
    rules = Ruleset.preset("classic")
    seeds = [2**64 - 1, 2**63, 2**32, 0]
    assert run_kernel_games(rules, [CASUAL, BEGINNER], seeds, max_cards=300) == [
        run_reference_game(rules, [CASUAL, BEGINNER], seed, max_cards=300) for seed in seeds]


def test_highest_bottom_card_and_jokers_deal_and_lead_like_the_engine() -> None:
    rules = dataclasses.replace(Ruleset.preset("classic"), jokers=True, joker_chances=2,
                                first_player="highest_bottom_card", slaps=("double", "joker"))
    bots = [CASUAL, BEGINNER, CASUAL, BEGINNER]
    for seed in range(8):
        game, summary = play_reference_game(rules, bots, seed, max_cards=300)
        assert run_kernel_games(rules, bots, [seed], max_cards=300) == [summary]
        assert kernel_actions(rules, bots, seed, max_cards=300)[0] == ("play", game.leader,
                                                                      game.to_record()["actions"][0][2])


def test_the_card_cap_stops_both_at_the_same_card() -> None:
    rules = Ruleset.preset("classic")
    capped = run_kernel_games(rules, [CASUAL, CASUAL], range(10), max_cards=30)
    assert all(s.end_reason == "unfinished" and s.cards_played == 30 and s.winner is None
               for s in capped)
    assert capped == [run_reference_game(rules, [CASUAL, CASUAL], seed, max_cards=30) for seed in range(10)]


def test_a_batch_gives_what_its_games_give_one_by_one() -> None:
    rules = Ruleset.preset("paranoid")
    bots = [BEGINNER, CASUAL]
    together = run_kernel_games(rules, bots, list(range(30)), max_cards=500)
    alone = [run_kernel_games(rules, bots, [seed], max_cards=500)[0] for seed in range(30)]
    assert together == alone


def test_record_deals_under_bmn_rules_play_to_the_record_counts() -> None:
    # The bots can only flinch under bmn rules, which changes no card: the famous deals replay.
    rules = Ruleset.preset("bmn")
    nessler = parse_deal("---AJ--Q---------QAKQJJ-QK", "-----A----KJ-K--------A---")
    summary = run_kernel_deal(rules, [CASUAL, BEGINNER], nessler, seed=3)
    assert (summary.end_reason, summary.cards_played, summary.tricks) == ("all_cards", 8344, 1164)
    casella = parse_deal("---K---Q-KQAJ-----AAJ--J--", "----------Q----KQ-J-----KA")
    summary = run_kernel_deal(rules, [CASUAL, BEGINNER], casella, seed=3)
    assert (summary.end_reason, summary.cards_played, summary.tricks) == ("cycle", 474, 66)


def test_every_slap_goes_to_the_faster_hand() -> None:
    # A referee (never misses, reacts in 100 ms) against a slow bot that never misses either.
    fast = LEVELS["referee"].with_changes(memory=0)
    slow = BotProfile("slow", mu_ms=900, sigma_ms=10, tau_ms=10, miss=0.0, flinch=0.0,
                      pace_mean_ms=600, pace_sd_ms=50)
    games = run_kernel_games(Ruleset.preset("classic"), [slow, fast], range(40), 2000)
    assert all(s.slaps_won[0] == 0 and s.slaps_won[1] > 0 for s in games)
    assert sum(s.winner == 1 for s in games) > 30


def test_the_project_reference_simulation_plays_the_same_games() -> None:
    # BotAgent bots at a runtime Table are the same model: for every bot level, counting
    # included, the kernel reproduces them game for game.
    for preset in PRESETS:
        rules = Ruleset.preset(preset)
        for players in (2, 4):
            bots = [LEVELS["skilled"], LEVELS["referee"], CASUAL.with_changes(spam=0.2),
                    LEVELS["expert"]][:players]
            seeds = list(range(8))
            kernel = run_kernel_games(rules, bots, seeds)
            assert kernel == [play_table_game(rules, bots, seed) for seed in seeds]
