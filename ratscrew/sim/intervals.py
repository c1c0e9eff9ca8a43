"""Estimates with 95% intervals: the statistics every simulation figure is computed with.

A proportion gets a Wilson interval, a mean a normal-approximation interval, a quantile a
distribution-free interval from order statistics; :mod:`ratscrew.sim.figures` builds the figures
of a batch of games from these, and :mod:`ratscrew.sim.stats` its summaries.

>>> low, high = wilson_interval(55, 100)
>>> round(low, 3), round(high, 3)
(0.452, 0.644)
>>> describe([1, 2, 3, 4, 100])["median"]
3.0
>>> round(mean_interval([1.0, 2.0, 3.0])["value"], 3)
2.0
>>> median_interval([float(x) for x in range(101)])["value"]
50.0
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

Z_95 = 1.959963984540054
"""The two-sided 95% normal quantile."""


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default); ``(0, 1)`` with no trials.

    >>> wilson_interval(0, 10)[0]
    0.0
    """
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return low, high


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` percentile (0-100) with linear interpolation between order statistics.

    >>> percentile([10, 20, 30, 40], 50)
    25.0
    """
    if not values:
        return math.nan
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (position - low))


def describe(values: Sequence[float]) -> dict[str, float]:
    """Mean, median and 95th percentile (NaN for no values)."""
    if not values:
        return {"mean": math.nan, "median": math.nan, "p95": math.nan}
    return {"mean": float(statistics.fmean(values)), "median": float(statistics.median(values)),
            "p95": percentile(values, 95)}


def interval(value: float, low: float, high: float) -> dict[str, float]:
    """A figure with its 95% interval, rounded for reading."""
    return {"value": round(value, 4), "low": round(low, 4), "high": round(high, 4)}


def mean_interval(values: Sequence[float]) -> dict[str, float]:
    """The mean with a normal-approximation 95% interval (mean ± 1.96 standard errors)."""
    if not values:
        return interval(math.nan, math.nan, math.nan)
    mean = statistics.fmean(values)
    error = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return interval(mean, mean - Z_95 * error, mean + Z_95 * error)


def quantile_interval(values: Sequence[float], q: float) -> dict[str, float]:
    """The ``q`` quantile (0-1) with a distribution-free 95% interval: the order statistics
    at ranks ``n q ± 1.96 sqrt(n q (1 - q))``."""
    if not values:
        return interval(math.nan, math.nan, math.nan)
    ordered = sorted(values)
    n = len(ordered)
    position = (n - 1) * q
    below = math.floor(position)
    above = min(below + 1, n - 1)
    value = ordered[below] + (ordered[above] - ordered[below]) * (position - below)
    spread = Z_95 * math.sqrt(n * q * (1 - q))
    low = ordered[max(0, math.floor(n * q - spread) - 1)]
    high = ordered[min(n - 1, math.ceil(n * q + spread) - 1)] if n > 1 else ordered[0]
    return interval(value, min(low, value), max(high, value))


def median_interval(values: Sequence[float]) -> dict[str, float]:
    """The median with its distribution-free 95% interval."""
    return quantile_interval(values, 0.5)
