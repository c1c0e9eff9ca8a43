"""The compiled kernel plays exactly the games of its specification on the real engine.

For every preset, 6,000 seeded games (two to eight bots: every level, counting ones included,
bots that slap blindly, and memoryless copies of the counting levels) are played by
:func:`ratscrew.sim.kernel.run_kernel_games` and by
:func:`ratscrew.sim.reference.run_reference_game`, which drives the real `Game` with the
same bots and the same random numbers; every `GameSummary` must be identical. Most games are
cut at 120 cards (identically in both paths, reported ``unfinished``) so that the pure-Python
side stays fast enough for CI; one in ten is played to 2,000 cards, long enough for the games
to end. Random rule variants from the whole space the kernel supports follow. The reference
side runs on two processes.

The first `SAMPLE_GAMES` of each preset's games are a test of their own, in ``make quick``; the
rest are marked ``slow`` (tests/conftest.py) and run in ``make test``, which so still compares
every one of the 6,000 games per preset.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from typing import Literal

import pytest

from ratscrew.bmn import parse_deal
from ratscrew.bots.profile import LEVELS, BotProfile
from ratscrew.cards import parse_cards
from ratscrew.engine import Game
from ratscrew.errors import IllegalActionError
from ratscrew.events import CardsBurned, Event
from ratscrew.patterns import PATTERNS
from ratscrew.ruleset import Ruleset, TiePolicy
from ratscrew.sim.kernel import kernel_supports, run_kernel_deal, run_kernel_games
from ratscrew.sim.reference import play_reference_game, run_reference_game
from ratscrew.sim.summary import GameSummary, game_seed

GAMES_PER_PRESET = 6_000
SAMPLE_GAMES = 600
SHORT_GAME = 120
LONG_GAME = 2_000
WORKERS = 2

CASUAL, BEGINNER = LEVELS["casual"], LEVELS["beginner"]
SKILLED, EXPERT = LEVELS["skilled"], LEVELS["expert"]  # count 8 and 26 cards
REFEREE = LEVELS["referee"]  # counts every card; no spread at all: sigma = tau = 0
FORGETFUL = LEVELS["expert"].with_changes(name="forgetful", memory=0)
CLUMSY = BotProfile("clumsy", mu_ms=380, sigma_ms=90, tau_ms=250, miss=0.4, flinch=0.35,
                    pace_mean_ms=420, pace_sd_ms=160)  # misslaps a lot: penalties, bars, claims
COUNTER = CASUAL.with_changes(name="counter", memory=3, anticipation_ms=60)  # forgets all the time
SPAMMER = CASUAL.with_changes(name="spammer", spam=0.3)  # slaps blindly
TWIN = REFEREE.with_changes(name="twin", memory=0)  # reacts exactly as fast as the referee: ties

TABLES: tuple[tuple[BotProfile, ...], ...] = (
    (CASUAL, BEGINNER),
    (EXPERT, CLUMSY),
    (REFEREE, TWIN),
    (SKILLED, SKILLED),
    (CLUMSY, BEGINNER, EXPERT),
    (CASUAL, CASUAL, CASUAL, CASUAL),
    (BEGINNER, CLUMSY, SKILLED, REFEREE),
    (SPAMMER, COUNTER),
    (FORGETFUL, EXPERT, SPAMMER),
    (REFEREE, EXPERT, SKILLED, CASUAL, BEGINNER, CLUMSY, COUNTER, SPAMMER),
    (COUNTER, TWIN, REFEREE, CLUMSY, FORGETFUL),
    (CLUMSY, CLUMSY),
)


def reference_batch(rules: Ruleset, profiles: tuple[BotProfile, ...], cap: int,
                    seeds: list[int]) -> list[GameSummary]:
    return [run_reference_game(rules, profiles, seed, max_cards=cap) for seed in seeds]


def tables_for(rules: Ruleset) -> list[tuple[BotProfile, ...]]:
    """The tables the ruleset seats (pagat: five players at most)."""
    return [table for table in TABLES if len(table) <= rules.max_players]


def plan(games: range, run_seed: int, tables: int) -> dict[tuple[int, int], list[int]]:
    """Game ``i`` sits at table ``i % tables`` and is cut at 120 cards, except one in ten
    played to 2,000; seeds come from ``game_seed`` (large numbers, as real runs use)."""
    groups: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i in games:
        cap = LONG_GAME if i % 10 == 3 else SHORT_GAME
        groups[(i % tables, cap)].append(game_seed(run_seed, i))
    return groups


def compare(rules_by_job: Sequence[Ruleset], jobs: Sequence[tuple[int, tuple[BotProfile, ...], int,
                                                                  list[int]]]) -> list[GameSummary]:
    """Run every job (rules index, bots, cap, seeds) on both paths and fail on the first
    difference, naming the game; returns the summaries compared."""
    kernel = [run_kernel_games(rules_by_job[r], bots, seeds, max_cards=cap)
              for r, bots, cap, seeds in jobs]
    chunks = []
    for number, (r, bots, cap, seeds) in enumerate(jobs):
        for start in range(0, len(seeds), 250):
            chunks.append((number, start, (rules_by_job[r], bots, cap, seeds[start:start + 250])))
    compared = []
    with ProcessPoolExecutor(max_workers=WORKERS) as pool:
        futures = [(number, start, pool.submit(reference_batch, *args)) for number, start, args in chunks]
        for number, start, future in futures:
            for offset, expected in enumerate(future.result()):
                got = kernel[number][start + offset]
                r, bots, cap, _ = jobs[number]
                assert got == expected, (
                    f"{rules_by_job[r].name} rules, bots {[b.name for b in bots]}, cap {cap}, "
                    f"seed {expected.seed}:\n  reference {expected}\n  kernel    {got}")
                compared.append(got)
    return compared


def preset_jobs(rules: Ruleset, games: range,
                run_seed: int) -> list[tuple[int, tuple[BotProfile, ...], int, list[int]]]:
    """The jobs of `compare` for games ``games`` of one preset's `plan`."""
    tables = tables_for(rules)
    assert all(kernel_supports(rules, bots) for bots in tables)
    return [(0, tables[table], cap, seeds) for (table, cap), seeds
            in sorted(plan(games, run_seed=run_seed, tables=len(tables)).items())]


@pytest.mark.parametrize("preset", Ruleset.presets())
def test_a_sample_of_each_presets_games_is_identical(preset: str) -> None:
    rules = Ruleset.preset(preset)
    summaries = compare([rules], preset_jobs(rules, range(SAMPLE_GAMES), run_seed=len(preset)))
    assert len(summaries) == SAMPLE_GAMES


@pytest.mark.parametrize("preset", Ruleset.presets())
def test_thousands_of_games_per_preset_are_identical(preset: str) -> None:
    """The games after the sample, compared on both paths; then the figures over all 6,000,
    from the kernel's summaries (each one equal to the reference's, the sample's by
    `test_a_sample_of_each_presets_games_is_identical`, the rest's here)."""
    rules = Ruleset.preset(preset)
    rest = compare([rules], preset_jobs(rules, range(SAMPLE_GAMES, GAMES_PER_PRESET), run_seed=len(preset)))
    assert len(rest) == GAMES_PER_PRESET - SAMPLE_GAMES
    sample = [summary for _, bots, cap, seeds in preset_jobs(rules, range(SAMPLE_GAMES), run_seed=len(preset))
              for summary in run_kernel_games(rules, bots, seeds, max_cards=cap)]
    summaries = sample + rest
    assert len(summaries) == GAMES_PER_PRESET
    # Not only openings: over a fifth of the games reach the end, and every seat wins some.
    ended = [s for s in summaries if s.end_reason in ("all_cards", "triple")]
    assert len(ended) > GAMES_PER_PRESET // 5
    assert {0, 1, 2, 3} <= {s.winner for s in ended}


def random_supported_rules(rng: random.Random, number: int) -> Ruleset:
    """A ruleset drawn from everything the kernel supports (every setting)."""
    jokers = rng.random() < 0.4
    tie_policy: TiePolicy = rng.choice(("earliest", "void", "random"))
    return Ruleset(
        name=f"variant{number}",
        jokers=jokers,
        first_player=rng.choice(["left_of_dealer", "highest_bottom_card"]),
        slaps=tuple(rng.sample(sorted(PATTERNS), rng.randint(0, 5))),
        run_length=rng.choice([3, 4]),
        run_wraps=rng.random() < 0.5,
        jack_chances=rng.randint(1, 2), queen_chances=rng.randint(1, 3),
        king_chances=rng.randint(1, 3), ace_chances=rng.randint(1, 4),
        joker_chances=rng.choice([0, 2, 5]) if jokers else 0,
        collect=rng.choice(["auto", "slap"]),
        grace_ms=rng.choice([0, 400, 1000]),
        claim_window_ms=rng.choice([0, 500, 3000]),
        challenge_out_of_cards=rng.choice(["challenger_wins", "next_player_pays"]),
        misslap_penalty=rng.choice(["none", "burn", "penalty_pile", "give_pile", "lockout"]),
        misslap_cards=rng.randint(1, 4),
        misslap_out_after=rng.choice([0, 0, 1, 3]),
        slap_in_bar_after=rng.choice([0, 0, 1, 2]),
        failure_rule=jokers and rng.random() < 0.5,
        tie_window_ms=rng.choice([0, 30, 30, 120]),
        tie_policy=tie_policy,
        out_of_turn=rng.choice(["reject", "burn"]),
        double_burn=rng.random() < 0.5,
        out_of_cards=rng.choice(["out", "slap_in"]),
        finishing_out=rng.random() < 0.5,
        last_holder_plays_turn=rng.random() < 0.5,
        triple_wins_game=rng.random() < 0.3,
        triple_sixes_lose=rng.random() < 0.5,
        joker_slap_tribute=jokers and rng.random() < 0.5,
    )


def test_random_rule_variants_are_identical() -> None:
    rng = random.Random(20260)
    variants = [random_supported_rules(rng, number) for number in range(60)]
    jobs = []
    for number, rules in enumerate(variants):
        bots = TABLES[number % len(TABLES)][:rules.max_players]
        assert kernel_supports(rules, bots), rules
        seeds = [game_seed(number, i) for i in range(25)]
        jobs.append((number, bots, 150 if number % 4 else LONG_GAME, seeds))
    summaries = compare(variants, jobs)
    assert len(summaries) == 60 * 25
    assert {"all_cards", "triple", "unfinished"} <= {s.end_reason for s in summaries}


def test_a_deal_that_never_ends_is_a_cycle_in_both() -> None:
    # Casella 2024 under the bmn preset: the bots can only flinch, which changes nothing.
    hands = parse_deal("---K---Q-KQAJ-----AAJ--J--", "----------Q----KQ-J-----KA")
    rules = Ruleset.preset("bmn")
    for seed in range(5):
        kernel = run_kernel_deal(rules, (CLUMSY, CASUAL), hands, seed)
        assert kernel == play_reference_game(rules, (CLUMSY, CASUAL), seed, hands=hands)[1]
        assert (kernel.end_reason, kernel.cards_played, kernel.tricks) == ("cycle", 474, 66)


@pytest.mark.parametrize("hands", [("2C 3C 5C", "4D"), ("2C KC", "4D"), ("2C 3C", "4D")])
def test_the_last_holder_plays_their_turn_in_both(hands: tuple[str, str]) -> None:
    # bmn: seat 1 runs out on a number card; seat 0 plays once more (in the last deal, its own
    # last card) and then takes the pile, as the record deals are counted.
    rules = Ruleset.preset("bmn")
    dealt = [parse_cards(hand) for hand in hands]
    kernel = run_kernel_deal(rules, (CLUMSY, CASUAL), dealt, 3)
    assert kernel == play_reference_game(rules, (CLUMSY, CASUAL), 3, hands=dealt)[1]
    assert (kernel.end_reason, kernel.winner, kernel.cards_played, kernel.tricks) == ("all_cards", 0, 3, 1)


def test_variants_change_the_games() -> None:
    # The variants above are not all alike: a different rule gives different games.
    rules = Ruleset.preset("classic")
    base = run_kernel_games(rules, TABLES[0], range(20), 400)
    other = run_kernel_games(replace(rules, slaps=("double",)), TABLES[0], range(20), 400)
    assert base != other


QUICK = BotProfile("quick", mu_ms=150, sigma_ms=20, tau_ms=10, miss=0.0, flinch=0.3,
                   pace_mean_ms=170, pace_sd_ms=30)  # plays about as fast as it slaps


@pytest.mark.parametrize("out_of_turn", ["burn", "reject"])
@pytest.mark.parametrize("policy", ["void", "random"])
def test_cards_played_into_an_open_tie_window_are_the_engines(
        monkeypatch: pytest.MonkeyPatch, policy: TiePolicy, out_of_turn: Literal["burn", "reject"]) -> None:
    # Long windows and quick hands: cards are played while a tie is open, which closes it first;
    # when the pile then goes to someone else, the card is burned or refused (and the closing
    # undone). The reference runs in this process, so the test can see that all that happened.
    seen: Counter[str] = Counter()
    play = Game.play

    def watched_play(game: Game, seat: int, at: int) -> list[Event]:
        tie_open = game._tie is not None  # watching the engine, not changing it
        try:
            events = play(game, seat, at)
        except IllegalActionError:
            seen["refused after closing"] += tie_open
            raise
        seen["closed by a card"] += tie_open
        seen["burned out of turn"] += any(isinstance(e, CardsBurned) and e.reason == "out_of_turn"
                                          for e in events)
        return events

    monkeypatch.setattr(Game, "play", watched_play)
    rules = replace(Ruleset.preset("northwest"), tie_policy=policy, tie_window_ms=120,
                    out_of_turn=out_of_turn)
    bots = (QUICK, QUICK, QUICK)
    seeds = [game_seed(5, i) for i in range(120)]
    assert run_kernel_games(rules, bots, seeds, max_cards=1500) == [
        run_reference_game(rules, bots, seed, max_cards=1500) for seed in seeds]
    assert seen["closed by a card"] > 100 and seen["refused after closing"] > 0
    assert (seen["burned out of turn"] > 0) == (out_of_turn == "burn")
