"""Fair slaps, measured: who wins a contested slap under unequal links, fair against first-packet
judging, on the real server.

Starts ``ratscrew serve`` on loopback and plays many two-player contests, each in its own room:
scripted players (``benchmarks/scripted.py``) whose links add a one-way delay and jitter in each
direction play in turn to a double and both slap it after a physical reaction drawn from the bot
model (``skilled`` level). The quicker reactor is the one with the shorter time from seeing the
double to slapping. Prints, for each judging, delay pair and jitter, the share of contests won by
the quicker reactor, by margin; what a client that lies about its reaction gains; what the lag
cheat gains (a client that answers pings late and claims quick reactions, issue 46); and the
latency from a slap to its result (what the settling window costs).

Usage: ``.venv/bin/python benchmarks/fairness.py [--contests N] [--quick] [--lag-cheat-only]
[--csv F] [--plot F]``.
It prints figures; nothing is asserted. Every run is bounded (``--contests`` per setting) and
stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import random
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.progress import Progress

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scripted import (
    Contender,
    ContestResult,
    run_contest,
    running_server,
    seeds_with_an_early_double,
)

from ratscrew.bots.agent import draw_reaction_ms
from ratscrew.bots.profile import LEVELS

DELAYS = (0, 25, 50, 100, 150)
"""The far player's one-way delay (ms); the near player's is 0."""
JITTERS = (0, 10, 30)
"""± jitter on every message, both players, both directions (ms)."""
MARGINS = (10, 20, 50)
JUDGINGS = ("fair", "first-packet")
LIE_MS = 80.0
"""How much quicker than its real reaction the lying client claims to be."""


LAG_HONEST = Contender(10.0, 5.0, 350.0)
"""The lag cheat's victim: an honest player 10 ms away each way (±5 ms), reacting in 350 ms."""
LAG_CHEAT = Contender(40.0, 5.0, 450.0, pong_delay_ms=200.0, claim_ms=300.0)
"""The lag cheat (issue 46, item 4): a link 60 ms slower than its victim's (40 ms each way),
every pong held 200 ms (its pings read ~280 ms), really reacting in 450 ms and claiming 300."""


@dataclass(frozen=True)
class Setting:
    judging: str
    far_ms: int
    jitter_ms: int
    liar: bool = False
    lag_cheat: bool = False


def quicker_share(results: Sequence[ContestResult], margin: float) -> tuple[float, int]:
    """Share of the contests decided by at least ``margin`` ms that the quicker reactor won."""
    decided = [r for r in results
               if r.winner is not None and abs(r.reactions[0] - r.reactions[1]) >= margin]
    won = sum(1 for r in decided if r.winner == (0 if r.reactions[0] < r.reactions[1] else 1))
    return (won / len(decided) if decided else float("nan")), len(decided)


def far_share_when_quicker(results: Sequence[ContestResult], margin: float = 20) -> float:
    """Of the contests in which the far player (side 1) was quicker by ``margin``, the share it won."""
    cases = [r for r in results if r.winner is not None and r.reactions[0] - r.reactions[1] >= margin]
    return sum(1 for r in cases if r.winner == 1) / len(cases) if cases else float("nan")


async def run_setting(url: str, setting: Setting, deals: list[tuple[int, int]], contests: int,
                      rng: random.Random, parallel: int, advance: object) -> list[ContestResult]:
    profile = LEVELS["skilled"]
    gate = asyncio.Semaphore(parallel)

    async def one(index: int) -> ContestResult | None:
        seed, cards = deals[index % len(deals)]
        near_reaction, far_reaction = draw_reaction_ms(profile, rng), draw_reaction_ms(profile, rng)
        near = Contender(0, setting.jitter_ms, near_reaction, LIE_MS if setting.liar else 0.0)
        far = Contender(setting.far_ms, setting.jitter_ms, far_reaction)
        if setting.lag_cheat:  # the honest player is side 0, the cheat side 1
            near, far = LAG_HONEST, LAG_CHEAT
        async with gate:
            try:
                return await run_contest(url, seed, cards, setting.judging, (near, far))
            except (TimeoutError, OSError) as error:
                print(f"a contest failed: {error!r}", file=sys.stderr)
                return None
            finally:
                advance()  # type: ignore[operator]

    results = await asyncio.gather(*(one(i) for i in range(contests)))
    return [r for r in results if r is not None]


def report_lag_cheat(results: Sequence[ContestResult]) -> None:
    """Print the lag cheat's contested-slap wins: overall, and where the honest player really
    was the quicker by 20 ms or more, and by more than the largest jitter allowance (each side's
    reaction as it happened, event-loop lag included)."""
    print("\nThe lag cheat (issue 46): B's link is 60 ms slower than A's (40 against 10 ms each way,")
    print("±5 ms); B holds every pong 200 ms, really slaps 450 ms after seeing the double and claims")
    print("300 ms; A is honest and slaps after 350 ms. Both have played a card (stamped as it")
    print("happened) before the double. Contested doubles won by the cheat B:")
    decided = [r for r in results if r.winner is not None]
    rows = [("all decided contests", decided)] + [
        (f"A really quicker by ≥ {margin} ms",
         [r for r in decided if r.reactions[1] - r.reactions[0] >= margin])
        for margin in (20, 60)]  # 60: beyond the largest jitter allowance (50 ms)
    for label, group in rows:
        won = sum(1 for r in group if r.winner == 1)
        share = percent(won / len(group) if group else float("nan"))
        print(f"  {label:<30} {won:>4} of {len(group):>4} ({share})")


def percent(value: float) -> str:
    return "   –  " if value != value else f"{100 * value:5.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--contests", type=int, default=120, help="contests per setting (default 120)")
    parser.add_argument("--quick", action="store_true", help="30 contests per setting, jitter 0 and 10 only")
    parser.add_argument("--parallel", type=int, default=24, help="rooms playing at once (default 24)")
    parser.add_argument("--seed", type=int, default=1, help="seed for the reaction draws")
    parser.add_argument("--csv", type=Path, default=None, help="also write every row to this CSV file")
    parser.add_argument("--plot", type=Path, default=None, help="also draw win share against delay (PNG)")
    parser.add_argument("--lag-cheat-only", action="store_true",
                        help="play only the lag cheat's contests (fair judging)")
    args = parser.parse_args()
    contests = 30 if args.quick else args.contests
    jitters = (0, 10) if args.quick else JITTERS
    settings = [Setting(j, d, jit) for j in JUDGINGS for jit in jitters for d in DELAYS]
    settings += [Setting(j, 100, 10, liar=True) for j in JUDGINGS]  # honest: the 0/100 ±10 row
    lag_cheat = Setting("fair", 40, 5, lag_cheat=True)
    settings = [lag_cheat] if args.lag_cheat_only else [*settings, lag_cheat]
    deals = seeds_with_an_early_double(50)
    rng = random.Random(args.seed)
    results: dict[Setting, list[ContestResult]] = {}

    async def run_all(url: str) -> None:
        with Progress() as progress:
            task = progress.add_task("contests", total=contests * len(settings))
            for setting in settings:
                results[setting] = await run_setting(
                    url, setting, deals, contests, rng, args.parallel,
                    lambda: progress.advance(task))

    with running_server() as server:
        asyncio.run(run_all(server.url))

    report_lag_cheat(results[lag_cheat])
    if args.lag_cheat_only:
        return

    print(f"\nContested doubles, two players (skilled reactions), {contests} contests per row; the near")
    print("player has a 0 ms link, the far one the delay shown (one way, each direction).")
    print("Share of contests won by the quicker reactor, by how much quicker (contests counted):")
    header = f"{'judging':<13}{'delay':>7}{'jitter':>8}{'all':>14}" + "".join(
        f"{'≥' + str(m) + ' ms':>14}" for m in MARGINS)
    print(header + f"{'far wins, quicker ≥20':>23}")
    rows: list[dict[str, Any]] = []
    for setting in settings:
        if setting.liar or setting.lag_cheat:
            continue
        got = results[setting]
        shares = [quicker_share(got, m) for m in (0, *MARGINS)]
        far = far_share_when_quicker(got)
        print(f"{setting.judging:<13}{'0/' + str(setting.far_ms):>7}{'±' + str(setting.jitter_ms):>8}"
              + "".join(f" {percent(share)} ({n:>4})" for share, n in shares) + f"{percent(far):>23}")
        rows.append({"judging": setting.judging, "far_one_way_ms": setting.far_ms,
                     "jitter_ms": setting.jitter_ms, "contests": len(got),
                     **{f"quicker_wins_{m}": round(share, 4)
                        for m, (share, _) in zip((0, *MARGINS), shares, strict=True)},
                     **{f"decided_{m}": n for m, (_, n) in zip((0, *MARGINS), shares, strict=True)},
                     "far_wins_when_quicker_20": round(far, 4)})

    print(f"\nA lying client: the near player (0 ms link) claims reactions {LIE_MS:.0f} ms quicker than")
    print("its real ones, against an honest far player (100 ms one way, ±10 ms jitter):")
    print(f"{'judging':<13}{'near player honest':>20}{'near player lying':>20}")
    for judging in JUDGINGS:
        honest = results[Setting(judging, 100, 10, False)]
        lying = results[Setting(judging, 100, 10, True)]
        share = [sum(1 for r in group if r.winner == 0) / max(1, len(group)) for group in (honest, lying)]
        print(f"{judging:<13}{percent(share[0]):>20}{percent(share[1]):>20}")

    print("\nFrom a slap leaving the client to its result arriving back (ms, all settings):")
    print(f"{'judging':<13}{'p50':>8}{'p99':>8}{'slaps':>8}")
    for judging in JUDGINGS:
        latencies = sorted(x for s, got in results.items() if s.judging == judging
                           for r in got for x in r.result_latency_ms)
        if latencies:
            p50 = statistics.median(latencies)
            p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
            print(f"{judging:<13}{p50:>8.0f}{p99:>8.0f}{len(latencies):>8}")

    if args.csv:
        args.csv.parent.mkdir(parents=True, exist_ok=True)
        with args.csv.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        print(f"\nwrote {args.csv}")
    if args.plot:
        plot(rows, args.plot)
        print(f"wrote {args.plot}")


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.2))
    styles = {"fair": "-", "first-packet": "--"}
    colours = {0: "#0072b2", 10: "#e69f00", 30: "#009e73"}
    for judging in JUDGINGS:
        for jitter in sorted({int(r["jitter_ms"]) for r in rows}):
            points = sorted((int(r["far_one_way_ms"]) * 2, float(r["quicker_wins_20"])) for r in rows
                            if r["judging"] == judging and r["jitter_ms"] == jitter)
            axes.plot([p[0] for p in points], [100 * p[1] for p in points], styles[judging],
                      marker="o", color=colours.get(jitter, "black"),
                      label=f"{judging}, jitter ±{jitter} ms")
    axes.set_xlabel("difference in round trip between the two players (ms)")
    axes.set_ylabel("quicker reactor wins (%), margin ≥ 20 ms")
    axes.set_ylim(0, 102)
    axes.grid(alpha=.3)
    axes.legend(fontsize=8, loc="lower left")
    axes.set_title("Contested doubles on the real server: fair vs first-packet judging")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
