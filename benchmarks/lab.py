"""The house-rule lab's speed: 10,000 four-player games on the compiled kernel (issue 31's goal:
within 60 s on this 2-core machine once compiled), and a whole ``ratscrew lab`` report.

Run: ``.venv/bin/python benchmarks/lab.py [--games N] [--players N] [--workers N]``. The kernel
is compiled (or loaded from numba's cache) first, outside the timings. It prints figures;
nothing is asserted. On a machine shared with other work the wall-clock seconds include waiting
for a core: the CPU seconds are printed beside them.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

from ratscrew.bots.profile import LEVELS
from ratscrew.ruleset import Ruleset
from ratscrew.sim.kernel import warm_up
from ratscrew.sim.lab import LabRun, run_lab
from ratscrew.sim.runner import default_workers, simulate

GOAL_SECONDS = 60.0
"""Issue 31: 10,000 four-player games within a minute."""


def timed(work: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (this process and its finished children) of ``work()``."""
    before, wall = os.times(), time.perf_counter()
    work()
    after = os.times()
    cpu = (after.user + after.system + after.children_user + after.children_system
           - before.user - before.system - before.children_user - before.children_system)
    return time.perf_counter() - wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--workers", type=int, default=default_workers())
    args = parser.parse_args()
    print(f"kernel compiled or loaded in {warm_up():.1f} s")
    classic = Ruleset.preset("classic")
    bots = (LEVELS["casual"],) * args.players
    wall, cpu = timed(lambda: simulate(classic, bots, args.games, 1, workers=args.workers,
                                       engine="kernel"))
    verdict = "within" if wall <= GOAL_SECONDS * args.games / 10_000 else "OVER"
    print(f"{args.games:,} {args.players}-player casual classic games, {args.workers} workers: "
          f"{wall:.1f} s wall ({args.games / wall:,.0f} games/s), {cpu:.1f} s CPU; {verdict} the "
          f"goal of {GOAL_SECONDS:.0f} s per 10,000")
    add_to_ten = Ruleset.from_dict({**classic.to_dict(), "name": "classic + add to ten",
                                    "slaps": ["double", "sandwich", "add_to_ten"]})
    run = LabRun(add_to_ten, bots, args.games, workers=args.workers)
    wall, cpu = timed(lambda: run_lab(run))
    print(f"a whole lab report (classic + add to ten against classic, {run.total_games:,} games): "
          f"{wall:.1f} s wall, {cpu:.1f} s CPU")


if __name__ == "__main__":
    main()
