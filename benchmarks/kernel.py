"""Simulated ERS games per second on one core: the reference engine against the compiled kernel.

For every preset and each bot level asked for (``casual``, which does not count cards, and
``expert``, which remembers 26, by default), both engines play the same seeded games between
four bots of that level; the table gives games/s side by side and the speed-up. The kernel's
summaries are checked against the reference's on the games both played (the script stops if
one differs). The reference is :func:`ratscrew.sim.reference.run_reference_game`: the
real engine driven by the bots, the kernel's specification (the ``--engine reference`` path of
``ratscrew sim`` plays the same games through a ``Table``, a little slower).

Run: ``.venv/bin/python benchmarks/kernel.py [--games N] [--kernel-games N] [--levels L ...]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

from one_core import pin_to_one_core

from ratscrew.bots.profile import LEVELS, BotProfile
from ratscrew.ruleset import Ruleset
from ratscrew.sim.kernel import run_kernel_games, warm_up
from ratscrew.sim.reference import run_reference_game
from ratscrew.sim.summary import GameSummary, game_seed

TARGET_GAMES_PER_SECOND = 50_000
"""The kernel's goal for four casual bots under the classic rules, per core."""


def timed(play: Callable[[], list[GameSummary]]) -> tuple[list[GameSummary], float]:
    """The summaries ``play`` returns and the seconds it took."""
    start = time.perf_counter()
    summaries = play()
    return summaries, time.perf_counter() - start


def measure(rules: Ruleset, bots: Sequence[BotProfile], seeds: Sequence[int], reference_games: int
            ) -> tuple[float, float, float]:
    """Reference games/s, kernel games/s and mean cards per game; stops the script if the
    kernel and the reference part ways on any game both played."""
    reference, reference_seconds = timed(
        lambda: [run_reference_game(rules, bots, seed) for seed in seeds[:reference_games]])
    kernel, kernel_seconds = timed(lambda: run_kernel_games(rules, bots, seeds))
    if kernel[:reference_games] != reference:
        raise SystemExit(f"{rules.name}, {bots[0].name}: the kernel and the reference disagree")
    cards = sum(summary.cards_played for summary in kernel) / len(kernel)
    return reference_games / reference_seconds, len(kernel) / kernel_seconds, cards


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=20,
                        help="games per cell on the reference engine (default 20)")
    parser.add_argument("--kernel-games", type=int, default=2000,
                        help="games per cell on the kernel (the reference ones first; default 2000)")
    parser.add_argument("--levels", nargs="+", default=["casual", "expert"], choices=list(LEVELS),
                        metavar="LEVEL", help="bot levels, one table row each (default casual expert)")
    parser.add_argument("--players", type=int, default=4, help="bots per game (default 4)")
    parser.add_argument("--rules", nargs="+", default=Ruleset.presets(), choices=Ruleset.presets(),
                        metavar="PRESET", help="presets (default: all)")
    parser.add_argument("--seed", type=int, default=1, help="run seed (default 1)")
    args = parser.parse_args()
    if args.games < 1 or args.kernel_games < args.games:
        parser.error("--games must be at least 1 and --kernel-games at least --games")
    core = pin_to_one_core()
    print(f"benchmarks/kernel.py --games {args.games} --kernel-games {args.kernel_games} "
          f"--levels {' '.join(args.levels)} --players {args.players} --seed {args.seed}  "
          f"(Python {sys.version.split()[0]}, pinned to core {core})")
    print(f"kernel first call (compile or load from cache): {warm_up():.1f} s")
    seeds = [game_seed(args.seed, i) for i in range(args.kernel_games)]
    print(f"{'preset':<10} {'bots':<8} {'cards/game':>10} {'reference games/s':>18} "
          f"{'kernel games/s':>15} {'speed-up':>9}")
    classic_casual = None
    for preset in args.rules:
        rules = Ruleset.preset(preset)
        for level in args.levels:
            bots = [LEVELS[level]] * args.players
            reference_rate, kernel_rate, cards = measure(rules, bots, seeds, args.games)
            if (preset, level) == ("classic", "casual"):
                classic_casual = kernel_rate
            print(f"{preset:<10} {level:<8} {cards:>10.0f} {reference_rate:>18,.1f} "
                  f"{kernel_rate:>15,.0f} {kernel_rate / reference_rate:>8,.0f}x", flush=True)
    print(f"summaries identical on the first {args.games} games of every cell")
    if classic_casual is not None and args.players == 4:
        verdict = "met" if classic_casual >= TARGET_GAMES_PER_SECOND else "NOT met"
        print(f"target: {TARGET_GAMES_PER_SECOND:,} games/s per core for classic, 4 casual bots: "
              f"{verdict} ({classic_casual:,.0f})")


if __name__ == "__main__":
    main()
