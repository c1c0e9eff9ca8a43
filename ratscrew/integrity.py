"""Reaction integrity: does a player's slapping look like a person's? An explainable table of
flags over the accepted slaps of one keyed player in one ruleset, each a plain statistic with
a threshold, so a verdict can always be read back as sentences (docs/fairness.md, "Integrity").
Pure and typed: no server imports; the server feeds it samples from stored records
(`ratscrew.server.ladder.review`) and ``benchmarks/integrity.py`` measures it.

The flags (thresholds measured by the benchmark, see docs/fairness.md):

========== ============================================================ =====================
flag       statistic                                                    fires when
========== ============================================================ =====================
floor      share of reactions under the human floor (100 ms)            >= 50% of >= 15
flat       coefficient of variation of reactions (sd / mean)            < 0.08 over >= 15
fast       lower quartile of reactions (the fastest human model, the    < 200 ms over >= 15
           expert bot's ex-Gaussian, puts it near 265 ms)
model      mean of reactions against the fastest human model's won      < 275 - 4 x 42 / sqrt(n)
           slaps (expert, racing a hand 120 ms quicker than itself:     over n >= 15
           mean 275 ms, sd 42 ms): the fit to the human model
lag        share of slaps reported under the floor that the link        >= 50% of >= 10
           bound had to pull back by 100 ms or more (large link
           estimates): the lag cheat
========== ============================================================ =====================

The samples are a player's true reactions only (`ratscrew.server.ladder.review.is_reaction`: slaps
that took a pile that had become slappable, timed from the card that made it so), so they are
the player's *winning* reactions, quicker on average than all their reactions: the model flag's
reference is the fastest human model's won slaps, not all of its slaps (docs/fairness.md, "What
counts as a reaction"); the flat and fast flags read only those at or above the
floor (an anticipation is not a reaction, and people do anticipate now and then: the floor
flag counts those); the lag flag also reads what the client reported.

>>> verdict = assess([SlapSample(40.0, 40.0, 2.0)] * 16)
>>> verdict.flagged, verdict.reasons[0].startswith("16 of 16 reactions were under 100 ms")
(True, True)
>>> assess([SlapSample(float(300 + 37 * (i % 7)), None, 2.0) for i in range(40)]).flagged
False
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import sqrt
from statistics import mean, pstdev, quantiles

HUMAN_FLOOR_MS = 100.0
"""No person reacts faster than this (a false start in athletics)."""
WINDOW = 100
"""The latest slaps assessed."""
FLOOR_SHARE = 0.5
FLOOR_MIN = 15
FLAT_CV = 0.08
FLAT_MIN = 30
"""Reactions needed before ``flat`` may fire. Only won slaps count (issue 46), and a fast
person's wins are the quick, narrow part of their spread: in simulation an expert-model person's
wins have CV < 0.08 in 1.8 % of sets of 15 and 0.05 % of sets of 30, and the review looks after
every game, so at 15 it flagged honest fast players (docs/fairness.md). Flat scripts faster than
people are caught by ``fast`` at 15 anyway."""
FAST_Q1_MS = 200.0
FAST_MIN = 15
MODEL_MEAN_MS = 275.0
"""The mean reaction of the fastest human model (the expert bot's ex-Gaussian, mu 260, sigma 30,
tau 60: 320 ms over all its slaps) over the slaps it *wins* (the only ones the review counts),
racing an opponent 120 ms quicker than itself: 274.9 ms in 200,000 simulated wins (284.5 ms
against an equal; the mean of won slaps falls little with a quicker opponent, since the model's
fast side is its narrow Gaussian part)."""
MODEL_SD_MS = 42.0
"""The standard deviation of those won reactions (42.1 ms in the same simulation)."""
MODEL_Z = 4.0
MODEL_MIN = 15
LAG_LINK_MS = 100.0
LAG_SHARE = 0.5
LAG_MIN = 10


@dataclass(frozen=True)
class SlapSample:
    """One accepted slap: ``reaction_ms`` judged (``None`` when unknown), ``reported_ms`` what
    the client claimed (``None``: unstamped or not recorded), ``link_ms`` how much earlier than
    its arrival it was judged (the link compensation), ``clamped`` the bound that applied."""

    reaction_ms: float | None
    reported_ms: float | None
    link_ms: float
    clamped: str | None = None


@dataclass(frozen=True)
class Flag:
    """One row of the table: the flag's name, the statistic measured, its threshold, how many
    slaps it was measured on, whether it fired, and the sentence that explains it."""

    name: str
    value: float | None
    threshold: float
    slaps: int
    fired: bool
    reason: str


@dataclass(frozen=True)
class IntegrityVerdict:
    """The table of flags for one player's slaps; flagged when any flag fired."""

    flags: tuple[Flag, ...]
    checked_slaps: int

    @property
    def flagged(self) -> bool:
        """Any flag fired."""
        return any(f.fired for f in self.flags)

    @property
    def reasons(self) -> list[str]:
        """The sentences of the flags that fired."""
        return [f.reason for f in self.flags if f.fired]


def assess(samples: Sequence[SlapSample]) -> IntegrityVerdict:
    """The flags over the latest `WINDOW` of ``samples`` (oldest first)."""
    window = list(samples)[-WINDOW:]
    reactions = [s.reaction_ms for s in window if s.reaction_ms is not None]
    seen = [r for r in reactions if r >= HUMAN_FLOOR_MS]  # anticipations are the floor flag's
    flags = (_floor(reactions), _flat(seen), _fast(seen), _model(seen), _lag(window))
    return IntegrityVerdict(flags, len(window))


def _floor(reactions: Sequence[float]) -> Flag:
    under = sum(1 for r in reactions if r < HUMAN_FLOOR_MS)
    share = under / len(reactions) if reactions else None
    fired = share is not None and len(reactions) >= FLOOR_MIN and share >= FLOOR_SHARE
    return Flag("floor", share, FLOOR_SHARE, len(reactions), fired,
                f"{under} of {len(reactions)} reactions were under {HUMAN_FLOOR_MS:.0f} ms, "
                "faster than any person reacts")


def _flat(reactions: Sequence[float]) -> Flag:
    m = mean(reactions) if reactions else 0.0
    cv = pstdev(reactions) / m if len(reactions) >= 2 and m > 0 else None
    fired = cv is not None and len(reactions) >= FLAT_MIN and cv < FLAT_CV
    return Flag("flat", cv, FLAT_CV, len(reactions), fired,
                f"reaction times barely vary (coefficient of variation {cv or 0.0:.2f}, "
                f"people's are above {FLAT_CV:.2f})")


def _fast(reactions: Sequence[float]) -> Flag:
    q1 = quantiles(reactions, n=4)[0] if len(reactions) >= 2 else None
    fired = q1 is not None and len(reactions) >= FAST_MIN and q1 < FAST_Q1_MS
    return Flag("fast", q1, FAST_Q1_MS, len(reactions), fired,
                f"a quarter of reactions were under {q1 or 0.0:.0f} ms, faster than the fastest "
                f"human reaction model (its lower quartile is above {FAST_Q1_MS:.0f} ms)")


def _model(reactions: Sequence[float]) -> Flag:
    n = len(reactions)
    m = mean(reactions) if reactions else None
    bound = MODEL_MEAN_MS - MODEL_Z * MODEL_SD_MS / sqrt(n) if n else MODEL_MEAN_MS
    fired = m is not None and n >= MODEL_MIN and m < bound
    return Flag("model", m, bound, n, fired,
                f"the mean reaction, {m or 0.0:.0f} ms over {n} slaps, is more than {MODEL_Z:.0f} "
                f"standard errors faster than the fastest human reaction model ({MODEL_MEAN_MS:.0f} ms)")


def _lag(window: Sequence[SlapSample]) -> Flag:
    stamped = [s for s in window if s.reported_ms is not None]
    pulled = sum(1 for s in stamped if s.reported_ms is not None and s.reported_ms < HUMAN_FLOOR_MS
                 and s.clamped == "link" and s.link_ms >= LAG_LINK_MS)
    share = pulled / len(stamped) if stamped else None
    fired = share is not None and len(stamped) >= LAG_MIN and share >= LAG_SHARE
    return Flag("lag", share, LAG_SHARE, len(stamped), fired,
                f"{pulled} of {len(stamped)} slaps reported reactions under {HUMAN_FLOOR_MS:.0f} ms "
                f"while the link's measured round trip was large ({LAG_LINK_MS:.0f} ms or more): "
                "the sign of a client that delays its pings to gain time")
