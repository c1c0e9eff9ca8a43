"""The compiled simulation kernel: whole ERS games between bots, thousands per second per core.

:func:`run_kernel_games` plays one game per seed and returns the same `GameSummary` records as
:func:`ratscrew.sim.reference.run_reference_game`, which drives the real engine with the
same bots and the same random numbers: the kernel is a faster implementation of that
specification, not a different model. The rules come from a compiled port of the engine, the
random numbers from a compiled port of CPython's ``random`` (both in
:mod:`ratscrew.sim.kernel_compiled`), so the deal is ``Game.deal(rules, players, seed)`` card
for card and each bot draws exactly what ``random.Random(bot_seed(seed, seat))`` gives.

What the kernel supports (:func:`kernel_limits` says why not, for anything else):

- every `Ruleset` setting: every preset, every slap pattern, jokers, both first-player rules,
  both collection modes, every misslap penalty, misslap elimination, slap-in bars, the Failure
  rule, triples that win or lose the game, joker tribute, finishing out or last holder (at once
  or after their own turn), every tie policy with its window (a slap into the window waits for
  it to close; ``random`` ties are drawn from the game's own ``random.Random(seed)``), cards
  played out of turn (which only a tie closing under a bot's play can cause), cycle detection.
  Settings about actions bots never take (``resign_bars_slap_in``) and about seats that start
  without cards (``outsiders_slap_in``) cannot matter and are accepted;
- 2 to 16 players, no more than the ruleset's ``max_players``;
- every bot profile with finite numbers: every level, counting bots (``memory``, with their
  anticipation) and bots that slap blindly (``spam``);
- seeds from 0 to 2**64 - 1.

>>> from ratscrew.bots.profile import LEVELS
>>> from ratscrew.ruleset import Ruleset
>>> from ratscrew.sim.reference import run_reference_game
>>> rules, bots = Ruleset.preset("classic"), [LEVELS["casual"], LEVELS["beginner"]]
>>> kernel_supports(rules, bots)
True
>>> run_kernel_games(rules, bots, [11])[0] == run_reference_game(rules, bots, 11)
True
>>> expert = [LEVELS["expert"], LEVELS["referee"]]  # both count cards
>>> run_kernel_games(rules, expert, [11])[0] == run_reference_game(rules, expert, 11)
True
>>> kernel_limits(Ruleset.preset("pagat"), [LEVELS["casual"]] * 6)
['6 players (2 to 5)']
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ratscrew.bots.profile import BotProfile
from ratscrew.cards import Card, Rank
from ratscrew.ruleset import Ruleset
from ratscrew.sim.kernel_compiled import (
    C_CHANCES,
    C_KINDS,
    C_PATTERNS,
    C_SIZE,
    MAX_KERNEL_PLAYERS,
    MIN_ANTICIPATION,
    O_CARDS,
    O_DURATION,
    O_REASON,
    O_SEATS,
    O_TRICKS,
    O_WINNER,
    P_SIZE,
    PACE_FLOOR,
    PATTERN_CODES,
    PENALTY_CODES,
    R_BAR_AFTER,
    R_CLAIM_WINDOW,
    R_COLLECT_SLAP,
    R_COUNTING,
    R_DOUBLE_BURN,
    R_FAILURE,
    R_FINISHING_OUT,
    R_GRACE,
    R_HAS_TRIPLE,
    R_HIGHEST_BOTTOM_LEADS,
    R_LAST_HOLDER_PLAYS,
    R_LATE_WINDOW,
    R_MISSLAP_CARDS,
    R_NEXT_PAYS,
    R_OUT_AFTER,
    R_OUT_OF_TURN_BURN,
    R_PATTERNS,
    R_PENALTY,
    R_PLAYERS,
    R_RUN_LENGTH,
    R_RUN_WRAPS,
    R_SLAP_IN,
    R_TIE_RANDOM,
    R_TIE_VOID,
    R_TIE_WINDOW,
    R_TOTAL,
    R_TRIBUTE,
    R_TRIPLE_SIXES,
    R_TRIPLE_WINS,
    REACTION_FLOOR,
    REASONS,
    RECOGNITION_COST,
    run_games,
)
from ratscrew.sim.reference import DEFAULT_MAX_CARDS, MAX_REJECTIONS_IN_A_ROW
from ratscrew.sim.summary import GameSummary

# ----------------------------------------------------------------------------- what it runs


def kernel_limits(rules: Ruleset, profiles: Sequence[BotProfile]) -> list[str]:
    """Why the kernel cannot run these rules and bots (empty when it can).

    >>> from ratscrew.bots.profile import LEVELS
    >>> kernel_limits(Ruleset.preset("ratscrew"), [LEVELS["expert"]] * 2)
    []
    >>> broken = LEVELS["casual"].with_changes(mu_ms=float("nan"))
    >>> kernel_limits(Ruleset.preset("ratscrew"), [broken, LEVELS["expert"]])
    ["bot 'casual' has a parameter that is not a finite number"]
    """
    from ratscrew.bots.decision import MIN_ANTICIPATION_MS, RECOGNITION_COST_MS
    from ratscrew.bots.profile import ANTICIPATION_FLOOR_MS, MIN_PACE_MS

    reasons = []
    unknown = [name for name in rules.slaps if name not in PATTERN_CODES]
    if unknown:
        reasons.append(f"slap patterns {', '.join(unknown)}")
    if rules.misslap_penalty not in PENALTY_CODES:
        reasons.append(f"misslap penalty {rules.misslap_penalty}")
    players = len(profiles)
    if not 2 <= players <= min(MAX_KERNEL_PLAYERS, rules.max_players):
        reasons.append(f"{players} players (2 to {min(MAX_KERNEL_PLAYERS, rules.max_players)})")
    for profile in profiles:
        numbers = (profile.mu_ms, profile.sigma_ms, profile.tau_ms, profile.miss, profile.flinch,
                   profile.pace_mean_ms, profile.pace_sd_ms, profile.anticipation_ms, profile.spam)
        if not all(math.isfinite(float(x)) for x in numbers):
            reasons.append(f"bot {profile.name!r} has a parameter that is not a finite number")
        if not 0 <= profile.memory < 2**31:
            reasons.append(f"bot {profile.name!r} remembers {profile.memory} cards")
    if (ANTICIPATION_FLOOR_MS, MIN_PACE_MS, MIN_ANTICIPATION_MS, RECOGNITION_COST_MS) != (
            REACTION_FLOOR, PACE_FLOOR, MIN_ANTICIPATION, RECOGNITION_COST):
        reasons.append("the bot model's constants changed")  # pragma: no cover
    return reasons


def kernel_supports(rules: Ruleset, profiles: Sequence[BotProfile]) -> bool:
    """True when :func:`run_kernel_games` can play these rules and bots exactly as the
    reference engine would (see the module docstring for what it supports)."""
    return not kernel_limits(rules, profiles)


def _rules_array(rules: Ruleset, players: int) -> npt.NDArray[np.int64]:
    """The ruleset as the kernel's ``conf`` array: settings, pattern codes, chances, kinds."""
    conf = np.zeros(C_SIZE, dtype=np.int64)
    conf[R_PLAYERS] = players
    conf[R_COLLECT_SLAP] = rules.collect == "slap"
    conf[R_GRACE] = rules.grace_ms
    conf[R_CLAIM_WINDOW] = rules.claim_window_ms
    conf[R_NEXT_PAYS] = rules.challenge_out_of_cards == "next_player_pays"
    conf[R_PENALTY] = PENALTY_CODES[rules.misslap_penalty]
    conf[R_MISSLAP_CARDS] = rules.misslap_cards
    conf[R_OUT_AFTER] = rules.misslap_out_after
    conf[R_BAR_AFTER] = rules.slap_in_bar_after
    conf[R_FAILURE] = rules.failure_rule
    conf[R_TIE_WINDOW] = rules.tie_window_ms
    conf[R_LATE_WINDOW] = max(rules.tie_window_ms, rules.too_slow_ms)
    conf[R_SLAP_IN] = rules.out_of_cards == "slap_in"
    conf[R_FINISHING_OUT] = rules.finishing_out
    conf[R_LAST_HOLDER_PLAYS] = rules.last_holder_plays_turn
    conf[R_TRIPLE_WINS] = rules.triple_wins_game
    conf[R_TRIPLE_SIXES] = rules.triple_sixes_lose
    conf[R_TRIBUTE] = rules.joker_slap_tribute
    conf[R_HAS_TRIPLE] = "triple" in rules.slaps
    conf[R_PATTERNS] = len(rules.slaps)
    conf[R_RUN_LENGTH] = rules.run_length
    conf[R_RUN_WRAPS] = rules.run_wraps
    conf[R_TOTAL] = rules.deck_size
    conf[R_HIGHEST_BOTTOM_LEADS] = rules.first_player == "highest_bottom_card"
    conf[R_TIE_VOID] = rules.tie_policy == "void"
    conf[R_TIE_RANDOM] = rules.tie_policy == "random"
    conf[R_OUT_OF_TURN_BURN] = rules.out_of_turn == "burn"
    conf[R_DOUBLE_BURN] = rules.double_burn
    for i, name in enumerate(rules.slaps):
        conf[C_PATTERNS + i] = PATTERN_CODES[name]
    for rank in Rank:
        conf[C_CHANCES + int(rank)] = rules.chances(rank)
        conf[C_KINDS + int(rank)] = int(rank) if rules.slaps else rules.chances(rank)
    return conf


def _profile_arrays(profiles: Sequence[BotProfile]) -> tuple[npt.NDArray[np.float64], ...]:
    numbers = np.zeros((len(profiles), P_SIZE), dtype=np.float64)
    misses = np.zeros((len(profiles), len(PATTERN_CODES)), dtype=np.float64)
    for seat, profile in enumerate(profiles):
        numbers[seat] = (profile.mu_ms, profile.sigma_ms, profile.tau_ms, profile.flinch,
                         profile.pace_mean_ms, profile.pace_sd_ms, profile.memory,
                         profile.anticipation_ms, profile.spam)
        for name, code in PATTERN_CODES.items():
            misses[seat, code] = profile.miss_chance(name)
    return numbers, misses


# ----------------------------------------------------------------------------- Python API


def _run(rules: Ruleset, profiles: Sequence[BotProfile], seeds: Sequence[int], max_cards: int,
         hands: Sequence[Sequence[Card]] | None, trace_limit: int
         ) -> tuple[list[GameSummary], list[tuple[str, int | None, int]]]:
    """Check, convert, run the compiled games; the trace is that of the first game."""
    reasons = kernel_limits(rules, profiles)
    if reasons:
        raise ValueError("the kernel cannot run this: " + "; ".join(reasons))
    seed_list = [int(seed) for seed in seeds]
    if any(not 0 <= seed < 1 << 64 for seed in seed_list):
        raise ValueError("kernel seeds must be between 0 and 2**64 - 1")
    if max_cards < 0:
        raise ValueError(f"max_cards must not be negative, got {max_cards}")
    players = len(profiles)
    conf = _rules_array(rules, players)
    conf[R_COUNTING] = any(profile.memory > 0 for profile in profiles)
    numbers, misses = _profile_arrays(profiles)
    dealt = np.zeros((players, 64), dtype=np.uint8)
    dealt_sizes = np.full(players, -1, dtype=np.int64)
    if hands is not None:
        if len(hands) != players or not all(hands) or sum(len(h) for h in hands) > 54:
            raise ValueError("the kernel needs one non-empty hand per player, 54 cards at most")
        for seat, hand in enumerate(hands):
            dealt_sizes[seat] = len(hand)
            dealt[seat, :len(hand)] = [int(card.rank) for card in hand]
        conf[R_TOTAL] = sum(len(hand) for hand in hands)
    out = np.zeros((len(seed_list), O_SEATS + 2 * players), dtype=np.int64)
    trace = np.zeros((trace_limit + 1, 3), dtype=np.int64)
    if seed_list:
        run_games(np.array(seed_list, dtype=np.uint64), players, conf, numbers, misses, max_cards,
                  MAX_REJECTIONS_IN_A_ROW, out, 0 if trace_limit else -1, trace, dealt,
                  dealt_sizes)
    summaries = []
    for seed, row in zip(seed_list, out.tolist(), strict=True):
        winner = row[O_WINNER]
        summaries.append(GameSummary(
            seed=seed, players=players, winner=None if winner < 0 else winner,
            end_reason=REASONS[row[O_REASON]], cards_played=row[O_CARDS], tricks=row[O_TRICKS],
            duration_ms=row[O_DURATION], slaps_won=tuple(row[O_SEATS:O_SEATS + players]),
            misslaps=tuple(row[O_SEATS + players:O_SEATS + 2 * players])))
    names = ("play", "slap", "advance")
    actions = [(names[kind], None if seat < 0 else seat, at)
               for kind, seat, at in trace[1:trace[0, 0] + 1].tolist()]
    return summaries, actions


def run_kernel_games(rules: Ruleset, profiles: Sequence[BotProfile], seeds: Sequence[int],
                     max_cards: int = DEFAULT_MAX_CARDS) -> list[GameSummary]:
    """Play one game per seed (dealt by ``Game.deal(rules, len(profiles), seed)``) between
    the bots, in compiled code; the summaries are those
    :func:`~ratscrew.sim.reference.run_reference_game` gives, in seed order. A game
    still going after ``max_cards`` cards stops as ``unfinished``.

    A `ValueError` says why when the kernel does not support the rules or bots (check with
    :func:`kernel_supports`) or a seed is outside 0 .. 2**64 - 1.
    """
    return _run(rules, profiles, seeds, max_cards, None, 0)[0]


def run_kernel_deal(rules: Ruleset, profiles: Sequence[BotProfile], hands: Sequence[Sequence[Card]],
                    seed: int, max_cards: int = DEFAULT_MAX_CARDS) -> GameSummary:
    """One game from an explicit deal (every seat holding cards), the bots seeded by ``seed``:
    what :func:`~ratscrew.sim.reference.play_reference_game` gives with ``hands``."""
    return _run(rules, profiles, [seed], max_cards, hands, 0)[0][0]


def warm_up() -> float:
    """Compile the kernel (or load it from numba's disk cache) now; returns the seconds it
    took. The first compile takes tens of seconds; call this in a parent process before
    starting workers so that they all find the cache."""
    start = time.perf_counter()
    run_kernel_games(Ruleset.preset("classic"), [_WARM_UP_BOT, _WARM_UP_BOT], [0], max_cards=10)
    return time.perf_counter() - start


_WARM_UP_BOT = BotProfile("warm-up", mu_ms=300, sigma_ms=30, tau_ms=50, miss=0.1, flinch=0.1,
                          pace_mean_ms=600, pace_sd_ms=100)


def kernel_actions(rules: Ruleset, profiles: Sequence[BotProfile], seed: int,
                   max_cards: int = DEFAULT_MAX_CARDS, limit: int = 200_000,
                   hands: Sequence[Sequence[Card]] | None = None
                   ) -> list[tuple[str, int | None, int]]:
    """The actions the engine accepted in the kernel's game ``seed``, as in
    ``Game.to_record()["actions"]``: ``(kind, seat, at)``, at most ``limit`` of them. For
    tests, and for finding where a game went differently."""
    return _run(rules, profiles, [seed], max_cards, hands, limit)[1]
