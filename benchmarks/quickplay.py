"""Quick play's pairing under a stream of seekers: how long people wait for a table and how far
apart the ratings at a table are, by how many seek a minute (the pure rule,
`ratscrew.matchmaking.pairing`, on a virtual clock; no server).

Run: ``.venv/bin/python benchmarks/quickplay.py [--per-minute 6,30,120] [--players 2]
[--minutes 60] [--seed 1]``.

Seekers arrive at random (Poisson) with ratings drawn from a spread like a ladder's (normal,
mean 10, sd 8 rating points of mu - 3 sigma); every `WAVE_S` a wave pairs the pool, and between
waves a table of close ratings is made the moment it is there (as the server does, on each
seek). Each seeker who just played remembers its last opponents. Printed per arrival rate:
tables made, the median and 90th percentile wait (s), the longest, and the median and 90th
percentile rating spread at a table.
"""

from __future__ import annotations

import argparse
import random
import statistics

from ratscrew.matchmaking.pairing import WAVE_S, PairingRules, Seeker, after_wave, pair_wave


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def run(per_minute: float, players: int, minutes: float, seed: int) -> dict[str, float]:
    """One stream of seekers; the figures."""
    rng = random.Random(seed)
    rules = PairingRules()
    arrivals: list[tuple[float, Seeker]] = []
    at, n = 0.0, 0
    while at < minutes * 60:
        at += rng.expovariate(per_minute / 60.0)
        arrivals.append((at, Seeker(f"s{n}", f"p{n % max(players * 4, int(per_minute * 3))}",
                                    rng.gauss(10.0, 8.0), order=at)))
        n += 1
    pool: list[Seeker] = []
    sought: dict[str, float] = {}
    waits: list[float] = []
    spreads: list[float] = []
    last: dict[str, frozenset[str]] = {}

    def seat(tables: list[tuple[Seeker, ...]], now: float) -> None:
        nonlocal pool
        taken = {s.seek_id for table in tables for s in table}
        for table in tables:
            ratings = [s.rating for s in table]
            spreads.append(max(ratings) - min(ratings))
            for s in table:
                waits.append(now - sought[s.seek_id])
                last[s.player_id] = frozenset(o.player_id for o in table) - {s.player_id}
        pool = [s for s in pool if s.seek_id not in taken]

    next_wave = WAVE_S
    for at, seeker in arrivals:
        while next_wave <= at:
            seat(pair_wave(pool, players, rules), next_wave)
            pool = after_wave(pool)
            next_wave += WAVE_S
        if any(s.player_id == seeker.player_id for s in pool):
            continue  # that player already seeks
        seeker = Seeker(seeker.seek_id, seeker.player_id, seeker.rating,
                        last_opponents=last.get(seeker.player_id, frozenset()), order=at)
        sought[seeker.seek_id] = at
        pool.append(seeker)
        seat(pair_wave(pool, players, rules, at_once=True), at)
    return {"tables": len(spreads), "median_wait_s": statistics.median(waits) if waits else float("nan"),
            "p90_wait_s": percentile(waits, 0.9), "max_wait_s": max(waits, default=float("nan")),
            "median_spread": statistics.median(spreads) if spreads else float("nan"),
            "p90_spread": percentile(spreads, 0.9), "left_waiting": len(pool)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-minute", default="6,30,120",
                        help="seekers arriving a minute, comma-separated (default 6,30,120)")
    parser.add_argument("--players", type=int, default=2, choices=(2, 4), help="table size")
    parser.add_argument("--minutes", type=float, default=60.0, help="virtual minutes per rate")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"tables of {args.players}, {args.minutes:g} virtual minutes per rate, waves every {WAVE_S:g} s")
    print(f"{'seek/min':>8} {'tables':>7} {'wait med':>9} {'wait p90':>9} {'wait max':>9} "
          f"{'spread med':>11} {'spread p90':>11}")
    for rate in (float(r) for r in args.per_minute.split(",")):
        f = run(rate, args.players, args.minutes, args.seed)
        print(f"{rate:8g} {f['tables']:7.0f} {f['median_wait_s']:8.1f}s {f['p90_wait_s']:8.1f}s "
              f"{f['max_wait_s']:8.1f}s {f['median_spread']:11.1f} {f['p90_spread']:11.1f}")


if __name__ == "__main__":
    main()
