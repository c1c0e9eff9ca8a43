"""Simulated ERS games per second on one core: the reference engine against the compiled kernel.

Both play the same work - the ``classic`` preset, four bots (``casual`` by default), the same
seeds - and give the same `GameSummary` records (checked here on the reference games). The
reference is :func:`ratscrew.sim.kernel_reference.run_reference_game` (the real engine driven
by the bots) and, when present, the simulation runner's own reference path (``BotAgent`` bots
at a ``Table``). Run: ``.venv/bin/python benchmarks/kernel.py [--games N] [--bots LEVEL ...]``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
import time
from collections.abc import Callable, Sequence

from one_core import pin_to_one_core

from ratscrew.bots.profile import LEVELS, BotProfile
from ratscrew.ruleset import Ruleset
from ratscrew.sim.kernel import run_kernel_games, warm_up
from ratscrew.sim.kernel_reference import run_reference_game
from ratscrew.sim.summary import GameSummary, game_seed

TARGET_GAMES_PER_SECOND = 50_000




def timed(play: Callable[[], list[GameSummary]]) -> tuple[list[GameSummary], float]:
    start = time.perf_counter()
    summaries = play()
    return summaries, time.perf_counter() - start


def line(name: str, summaries: Sequence[GameSummary], seconds: float) -> str:
    cards = sum(s.cards_played for s in summaries)
    return (f"{name:<34} {len(summaries) / seconds:>10,.1f} games/s {cards / seconds:>12,.0f} "
            f"cards/s  ({len(summaries)} games, {cards / len(summaries):.0f} cards/game)")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=50,
                        help="games for each reference path (default 50)")
    parser.add_argument("--kernel-games", type=int, default=5000,
                        help="games for the kernel (the reference ones first; default 5000)")
    parser.add_argument("--bots", nargs="+", default=["casual"] * 4, metavar="LEVEL",
                        help="bot levels, one per seat (memory is set to 0; default 4 casual)")
    parser.add_argument("--rules", default="classic", help="preset (default classic)")
    parser.add_argument("--seed", type=int, default=1, help="run seed (default 1)")
    args = parser.parse_args()
    rules = Ruleset.preset(args.rules)
    bots: list[BotProfile] = [LEVELS[name].with_changes(memory=0) for name in args.bots]
    seeds = [game_seed(args.seed, i) for i in range(max(args.games, args.kernel_games))]
    core = pin_to_one_core()
    print(f"benchmarks/kernel.py --games {args.games} --kernel-games {args.kernel_games} "
          f"--bots {' '.join(args.bots)} --rules {args.rules} --seed {args.seed}  "
          f"(Python {sys.version.split()[0]}, pinned to core {core})")

    print(f"kernel first call (compile or load from cache): {warm_up():.1f} s")

    reference, ref_seconds = timed(lambda: [run_reference_game(rules, bots, s) for s in seeds[:args.games]])
    print(line("reference engine (kernel_reference)", reference, ref_seconds))
    runner = None
    with contextlib.suppress(ImportError):
        runner = importlib.import_module("ratscrew.sim.runner")
    if runner is not None:
        table, table_seconds = timed(
            lambda: [runner.play_reference_game(rules, bots, s) for s in seeds[:args.games]])
        print(line("reference engine (runner, Table)", table, table_seconds))

    same, _ = timed(lambda: run_kernel_games(rules, bots, seeds[:args.games]))
    if same != reference:
        raise SystemExit("the kernel and the reference disagree on these games")
    kernel, kernel_seconds = timed(lambda: run_kernel_games(rules, bots, seeds[:args.kernel_games]))
    print(line("compiled kernel", kernel, kernel_seconds))
    kernel_rate = len(kernel) / kernel_seconds
    print(f"kernel / reference engine: {kernel_rate / (len(reference) / ref_seconds):,.0f}x "
          f"(same games: identical summaries)")
    verdict = "met" if kernel_rate >= TARGET_GAMES_PER_SECOND else "NOT met"
    print(f"target: {TARGET_GAMES_PER_SECOND:,} games/s per core: {verdict}")


if __name__ == "__main__":
    main()
