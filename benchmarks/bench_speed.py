"""ERS-Bench's speed: what a policy agent's game costs stepped at every tick (as before
`TickTable.play_out`) and played out (idle ticks and steady stretches skipped), paired game
by game, and where a bench run's time goes.

Run: ``.venv/bin/python benchmarks/bench_speed.py [--agents A,B] [--presets P,Q] [--deals N]
[--players 2,4] [--profile]``.

Every game (agent x preset x table size x track x deal x seat) is played both ways, one
right after the other, so both see the same load; the script checks that both ways give the
same result, and prints the CPU seconds (``time.process_time``) of each and the ratio. On a
shared machine CPU seconds, not wall seconds, are the figure to compare. ``--profile``
prints the top functions (cProfile) of the played-out games alone: cProfile's per-call cost
inflates the tick loop, so read it for the shares, and the paired CPU seconds for the gain.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import time

from ratscrew.rl import agents, bench
from ratscrew.ruleset import Ruleset

POLICIES = "random,never-slap,always-slap,sure-hand,tabular,ppo"


def main() -> None:
    """Parse the options, play the games both ways, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", default=POLICIES, help=f"agents (default: {POLICIES})")
    parser.add_argument("--presets", default="classic,pagat,ratscrew",
                        help="presets (default: classic,pagat,ratscrew)")
    parser.add_argument("--players", default="2,4", help="table sizes (default: 2,4)")
    parser.add_argument("--deals", type=int, default=1, help="deals per cell (default: 1)")
    parser.add_argument("--profile", action="store_true", help="profile the played-out games")
    args = parser.parse_args()
    print(f"# {platform.python_implementation()} {platform.python_version()}, "
          f"{platform.machine()}; load average at start "
          f"{' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    spent = {True: 0.0, False: 0.0}
    per_agent: dict[str, list[float]] = {}
    games = 0
    profiler = cProfile.Profile() if args.profile else None
    for name in args.agents.split(","):
        agent = agents.load(name)
        for preset in args.presets.split(","):
            rules = Ruleset.load(preset)
            for players in (int(p) for p in args.players.split(",")):
                for track in bench.TRACKS:
                    for index in range(args.deals):
                        seed = bench.deal_seed(preset, players, index)
                        for seat in range(players):
                            results = {}
                            for tick_by_tick in (True, False):
                                if profiler is not None and not tick_by_tick:
                                    profiler.enable()
                                started = time.process_time()
                                results[tick_by_tick] = bench.play_game(
                                    agent, rules, players, seat, seed, track, tick_by_tick)
                                took = time.process_time() - started
                                if profiler is not None and not tick_by_tick:
                                    profiler.disable()
                                spent[tick_by_tick] += took
                                per_agent.setdefault(name, [0.0, 0.0])[not tick_by_tick] += took
                            if results[True] != results[False]:
                                raise SystemExit(f"different results: {name} {preset} {players} "
                                                 f"{track} deal {index} seat {seat}: {results}")
                            games += 1
    print(f"{games} games, each played both ways with the same result")
    print(f"{'agent':12s} {'tick by tick':>13s} {'played out':>11s} {'ratio':>6s}")
    for name, (old, new) in per_agent.items():
        print(f"{name:12s} {old:12.1f}s {new:10.1f}s {old / new:6.2f}")
    print(f"{'all':12s} {spent[True]:12.1f}s {spent[False]:10.1f}s {spent[True] / spent[False]:6.2f}")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
