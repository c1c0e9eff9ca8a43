"""Beggar-my-neighbour deals per second on one core: the compiled kernel against the C yardstick.

Plays the same number of random deals with :func:`ratscrew.sim.bmn_kernel.play_random_deals`
and with ``bmn_ref.c`` (built with gcc when it is there), pinned to one core, and prints both
rates and their ratio; the engine's own ``play_bmn`` is timed on a few deals for scale.
Run: ``.venv/bin/python benchmarks/bmn.py [--deals N] [--c-source PATH]``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from one_core import pin_to_one_core

from ratscrew.bmn import play_bmn
from ratscrew.sim.bmn_kernel import deal_strings, play_random_deals, random_deals

DEFAULT_C_SOURCE = Path(__file__).resolve().parents[2] / "shared" / "bench" / "bmn_ref.c"




def kernel_rate(deals: int, seed: int) -> tuple[float, float, int]:
    """Deals/s, mean cards and longest game of the compiled kernel."""
    play_random_deals(seed, 0, 1000)  # compile or load from the cache first
    start = time.perf_counter()
    rows = play_random_deals(seed, 0, deals)
    elapsed = time.perf_counter() - start
    return deals / elapsed, float(rows[:, 0].mean()), int(rows[:, 0].max())


def engine_rate(deals: int, seed: int) -> float:
    """Deals/s of the real engine (``ratscrew.bmn.play_bmn``) on the same kind of deals."""
    hands = [deal_strings(deck) for deck in random_deals(seed, 0, deals)]
    start = time.perf_counter()
    for hand1, hand2 in hands:
        play_bmn(hand1, hand2)
    return deals / (time.perf_counter() - start)


def c_rate(source: Path, deals: int) -> tuple[float, str] | None:
    """Deals/s of the C yardstick and its own report line, or None without gcc or source."""
    gcc = shutil.which("gcc")
    if gcc is None or not source.exists():
        return None
    with tempfile.TemporaryDirectory() as folder:
        binary = Path(folder) / "bmn_ref"
        subprocess.run([gcc, "-O2", "-march=native", "-o", str(binary), str(source)], check=True)
        output = subprocess.run([str(binary), str(deals), "1"], check=True, capture_output=True,
                                text=True).stdout.strip()
    match = re.search(r"([\d.]+) deals/s", output)
    return (float(match.group(1)), output) if match else None


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--deals", type=int, default=1_000_000, help="deals to time (default 1000000)")
    parser.add_argument("--seed", type=int, default=1, help="search seed for the kernel (default 1)")
    parser.add_argument("--engine-deals", type=int, default=2000,
                        help="deals for the real engine's rate (default 2000)")
    parser.add_argument("--c-source", type=Path, default=DEFAULT_C_SOURCE,
                        help=f"bmn_ref.c to build (default {DEFAULT_C_SOURCE})")
    args = parser.parse_args()
    core = pin_to_one_core()
    print(f"benchmarks/bmn.py --deals {args.deals} --seed {args.seed}  "
          f"(Python {sys.version.split()[0]}, pinned to core {core})")
    kernel, mean_cards, longest = kernel_rate(args.deals, args.seed)
    print(f"kernel (numba):      {kernel:>12,.0f} deals/s  (mean {mean_cards:.1f} cards, "
          f"longest {longest})")
    yardstick = c_rate(args.c_source, args.deals)
    if yardstick is None:
        print(f"C yardstick:         not run (needs gcc and {args.c_source})")
    else:
        rate, line = yardstick
        print(f"C yardstick bmn_ref: {rate:>12,.0f} deals/s  ({line})")
        print(f"kernel / C:          {kernel / rate:>12.2f}")
    engine = engine_rate(args.engine_deals, args.seed)
    print(f"engine (play_bmn):   {engine:>12,.0f} deals/s  ({args.engine_deals} deals; "
          f"kernel is {kernel / engine:,.0f}x)")
    print("target: 250,000 deals/s per core: " + ("met" if kernel >= 250_000 else "NOT met"))


if __name__ == "__main__":
    main()
