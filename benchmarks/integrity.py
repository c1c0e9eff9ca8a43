"""Measure the integrity flags (`ratscrew.integrity`): replay human-like reaction traces and
scripted cheaters through the real judging (`ratscrew.server.judging.judge_action` with a real
`ratscrew.server.link.LinkEstimate` fed by pings) and the real flagging, and print per kind the
share flagged and the slaps until flagged.

Human-like traces: the bots' reaction model (ex-Gaussian, `ratscrew.bots.agent.draw_reaction_ms`)
at every human level (beginner, casual, skilled, expert), each with its variance; the counting
levels (skilled, expert) also anticipate a pile they saw coming 5% of the time (about 80 ms, as
the bots do). Each trace is `HUMAN_SLAPS` slaps on an honest link (20-120 ms round trip with
jitter), checked after every slap as the server checks after every game (a trace is flagged if
any check flags it). Cheaters: `CHEAT_SLAPS` slaps each, flagged when a check within the first
`GOAL_SLAPS` flags it. Every slap is taken as contested (a race on a slappable pile).

    PYTHONPATH=. python benchmarks/integrity.py [--humans-per-level 300] [--cheaters 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from ratscrew.bots.agent import draw_reaction_ms
from ratscrew.bots.profile import LEVELS, BotProfile
from ratscrew.integrity import SlapSample, assess
from ratscrew.server.judging import allowance_ms, judge_action
from ratscrew.server.link import LinkEstimate

HUMAN_LEVELS = ("beginner", "casual", "skilled", "expert")
HUMAN_SLAPS = 200
CHEAT_SLAPS = 60
GOAL_SLAPS = 30
ANTICIPATION_RATE = {"skilled": 0.05, "expert": 0.05}


@dataclass
class Player:
    """How one trace reacts (real reaction, reported reaction) and answers pings."""

    react: Callable[[random.Random], float]
    """The real time from seeing the pile to the slap leaving the client."""
    report: Callable[[float, random.Random], float]
    """What the client reports, from the real reaction."""
    ping_delay: Callable[[random.Random], float]
    """Extra delay the client adds to its pong answers (0 for an honest client)."""


def human(profile: BotProfile, anticipation: float) -> Player:
    """An honest person with the bots' reaction model."""
    def react(rng: random.Random) -> float:
        if rng.random() < anticipation:
            return max(20.0, rng.gauss(profile.anticipation_ms, profile.anticipation_ms / 4))
        return draw_reaction_ms(profile, rng)
    return Player(react, lambda real, rng: real, lambda rng: 0.0)


def scripted(react: Callable[[random.Random], float]) -> Player:
    """A script that reports its real (inhuman) reaction."""
    return Player(react, lambda real, rng: real, lambda rng: 0.0)


def humanised(profile: BotProfile, shift: float) -> Player:
    """A script drawing from a human model shifted ``shift`` ms faster."""
    return scripted(lambda rng: max(1.0, draw_reaction_ms(profile, rng) - shift))


def lag_cheat() -> Player:
    """Reports 0 ms, answers pings 200-400 ms late, reacts like a casual player."""
    return Player(lambda rng: draw_reaction_ms(LEVELS["casual"], rng), lambda real, rng: 0.0,
                  lambda rng: rng.uniform(200.0, 400.0))


def trace(player: Player, slaps: int, rng: random.Random) -> list[SlapSample]:
    """``slaps`` slaps judged as the room judges them (fair judging)."""
    base_rtt = rng.uniform(20.0, 120.0)
    link = LinkEstimate()

    def ping() -> None:
        link.add(base_rtt + rng.expovariate(1 / 8.0) + player.ping_delay(rng))

    for _ in range(5):
        ping()
    samples = []
    now = 1000.0
    for _ in range(slaps):
        ping()
        shown = now  # the server sends the pile
        one_way_out = base_rtt / 2 + rng.expovariate(1 / 4.0)
        real = player.react(rng)
        arrived = shown + one_way_out + real + base_rtt / 2 + rng.expovariate(1 / 4.0)
        reported = player.report(real, rng)
        verdict = judge_action("fair", arrived_at=arrived, shown_at=shown, reaction_ms=reported,
                               rtt_ms=link.rtt_ms, allowance_ms=allowance_ms(link), horizon=shown)
        samples.append(SlapSample(verdict.reaction_ms, reported, verdict.link_ms, verdict.clamped))
        now += rng.uniform(1500.0, 6000.0)
    return samples


def first_flag(samples: list[SlapSample], limit: int) -> int | None:
    """The number of slaps after which a check first flags, within ``limit``."""
    for n in range(1, min(limit, len(samples)) + 1):
        if assess(samples[:n]).flagged:
            return n
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--humans-per-level", type=int, default=300)
    parser.add_argument("--cheaters", type=int, default=200)
    parser.add_argument("--seed", type=int, default=30)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    kinds: dict[str, Callable[[], Player]] = {
        "fixed 40 ms": lambda: scripted(lambda r: 40.0),
        "fixed 150 +- 5 ms": lambda: scripted(lambda r: r.uniform(145.0, 155.0)),
        "uniform 120-200 ms": lambda: scripted(lambda r: r.uniform(120.0, 200.0)),
        "humanised expert -120 ms": lambda: humanised(LEVELS["expert"], 120.0),
        "humanised skilled -120 ms": lambda: humanised(LEVELS["skilled"], 120.0),
        "lag cheat (0 ms, pings +200-400 ms)": lag_cheat,
    }
    print(f"{'kind':40} {'traces':>6} {'flagged':>9} {'slaps until flagged (median, max)':>36}")
    humans_flagged = humans = 0
    for level in HUMAN_LEVELS:
        flagged = []
        for _ in range(args.humans_per_level):
            n = first_flag(trace(human(LEVELS[level], ANTICIPATION_RATE.get(level, 0.0)),
                                 HUMAN_SLAPS, rng), HUMAN_SLAPS)
            if n is not None:
                flagged.append(n)
        humans += args.humans_per_level
        humans_flagged += len(flagged)
        print(f"{'human ' + level:40} {args.humans_per_level:6} "
              f"{100.0 * len(flagged) / args.humans_per_level:8.2f}% "
              f"{_until(flagged):>36}")
    print(f"{'all human-like traces':40} {humans:6} {100.0 * humans_flagged / humans:8.2f}%"
          f"   (goal: at most 0.1%, {HUMAN_SLAPS} slaps each, checked after every slap)")
    for kind, make in kinds.items():
        flagged = []
        for _ in range(args.cheaters):
            n = first_flag(trace(make(), CHEAT_SLAPS, rng), GOAL_SLAPS)
            if n is not None:
                flagged.append(n)
        print(f"{kind:40} {args.cheaters:6} {100.0 * len(flagged) / args.cheaters:8.2f}% "
              f"{_until(flagged):>36}")
    print(f"(goal: at least 95% of every scripted kind flagged within {GOAL_SLAPS} slaps)")


def _until(flagged: list[int]) -> str:
    return "-" if not flagged else f"{statistics.median(flagged):.0f}, {max(flagged)}"


if __name__ == "__main__":
    main()
