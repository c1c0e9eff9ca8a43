"""Simulation speed: games and cards per second on the reference engine (Table + BotAgent), per
preset and player count, on one core; and the kernel's speed where it can run the same setup.

Usage: ``.venv/bin/python benchmarks/sim.py [--games N] [--bots SPEC] [--presets a,b]``.
It prints figures; nothing is asserted.
"""

from __future__ import annotations

import argparse
import time

from ratscrew.bots.spec import parse_bot_spec
from ratscrew.ruleset import Ruleset
from ratscrew.sim.runner import kernel_can_run, simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--bots", default="casual")
    parser.add_argument("--presets", default="classic,ratscrew,paranoid")
    parser.add_argument("--players", default="2,4")
    args = parser.parse_args()
    profile = parse_bot_spec(args.bots)
    print(f"{'preset':<10} {'players':>7} {'engine':>9} {'games/s':>9} {'cards/s':>9} {'cards/game':>10}")
    for preset in args.presets.split(","):
        rules = Ruleset.preset(preset)
        for players in (int(p) for p in args.players.split(",")):
            profiles = [profile] * players
            engines = ["reference"] + (["kernel"] if kernel_can_run(rules, profiles) else [])
            for engine in engines:
                started = time.perf_counter()
                summaries, used = simulate(rules, profiles, args.games, seed=1, workers=1,
                                           engine=engine)  # type: ignore[arg-type]
                seconds = time.perf_counter() - started
                cards = sum(s.cards_played for s in summaries)
                print(f"{preset:<10} {players:>7} {used:>9} {len(summaries) / seconds:>9.1f} "
                      f"{cards / seconds:>9.0f} {cards / len(summaries):>10.0f}")


if __name__ == "__main__":
    main()
