"""Statistics for simulation results: win rates with Wilson intervals, length summaries (of the
per-game measures of :data:`ratscrew.sim.figures.MEASURES`), and a seat-bias test, gathered into
one `SimReport` from a list of `GameSummary` records. The estimators are
:mod:`ratscrew.sim.intervals`'.

>>> seat_bias([50, 50]).flagged
False
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ratscrew.sim.figures import values
from ratscrew.sim.intervals import describe, wilson_interval
from ratscrew.sim.summary import GameSummary


def chi_square_sf(statistic: float, dof: int) -> float:
    """P(X >= statistic) for a chi-square variable with ``dof`` degrees of freedom.

    >>> round(chi_square_sf(3.841, 1), 3)
    0.05
    >>> round(chi_square_sf(9.488, 4), 3)
    0.05
    """
    if statistic <= 0:
        return 1.0
    return _upper_regularized_gamma(dof / 2.0, statistic / 2.0)


def _upper_regularized_gamma(a: float, x: float) -> float:
    """Q(a, x) by its series (x < a + 1) or continued fraction (Numerical Recipes 6.2)."""
    log_prefix = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(1000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefix))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_prefix) * h)


@dataclass(frozen=True)
class SeatBias:
    """A chi-square goodness-of-fit test of equal win counts across seats with identical bots."""

    statistic: float
    dof: int
    p_value: float
    flagged: bool

    def describe(self) -> str:
        """One line for the summary."""
        verdict = "SEAT BIAS" if self.flagged else "no seat bias"
        return (f"{verdict}: chi-square {self.statistic:.2f} on {self.dof} df, "
                f"p = {self.p_value:.3g}")


def seat_bias(wins: Sequence[int], alpha: float = 0.01) -> SeatBias | None:
    """Test whether ``wins`` per seat differ beyond chance (equal expected counts). ``None``
    with fewer than two seats or too few wins (< 5 expected per seat) to test.

    >>> seat_bias([50, 50]).flagged
    False
    >>> seat_bias([80, 20]).flagged
    True
    """
    total = sum(wins)
    seats = len(wins)
    if seats < 2 or total < 5 * seats:
        return None
    expected = total / seats
    statistic = sum((w - expected) ** 2 / expected for w in wins)
    p_value = chi_square_sf(statistic, seats - 1)
    return SeatBias(statistic, seats - 1, p_value, p_value < alpha)


@dataclass(frozen=True)
class SeatResult:
    """One seat's results over the run."""

    seat: int
    bot: str
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    slaps_per_game: float
    misslaps_per_game: float


@dataclass(frozen=True)
class SimReport:
    """Everything the ``ratscrew sim`` summary shows."""

    rules: str
    players: int
    games: int
    seed: int
    engine: str
    seats: tuple[SeatResult, ...]
    no_winner: int
    cycles: int
    unfinished: int
    end_reasons: dict[str, int]
    cards: dict[str, float]
    minutes: dict[str, float]
    tricks: dict[str, float]
    slaps_per_game: float
    misslaps_per_game: float
    seat_bias: SeatBias | None = None
    identical_bots: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form."""
        return asdict(self)


def summarize(summaries: Sequence[GameSummary], *, rules: str, seed: int, engine: str,
              bots: Sequence[str]) -> SimReport:
    """Gather game summaries into a report. ``bots`` names each seat's bot; when all are the
    same, the seats are tested for bias."""
    games = len(summaries)
    players = len(bots)
    wins = [0] * players
    slaps = [0] * players
    misslaps = [0] * players
    for summary in summaries:
        if summary.winner is not None:
            wins[summary.winner] += 1
        for seat in range(players):
            slaps[seat] += summary.slaps_won[seat]
            misslaps[seat] += summary.misslaps[seat]
    per_game = max(games, 1)
    seats = []
    for seat in range(players):
        low, high = wilson_interval(wins[seat], games)
        seats.append(SeatResult(seat, bots[seat], wins[seat], wins[seat] / per_game, low, high,
                                slaps[seat] / per_game, misslaps[seat] / per_game))
    reasons = Counter(s.end_reason for s in summaries)
    identical = len(set(bots)) == 1
    return SimReport(
        rules=rules, players=players, games=games, seed=seed, engine=engine, seats=tuple(seats),
        no_winner=sum(1 for s in summaries if s.winner is None),
        cycles=reasons.get("cycle", 0), unfinished=reasons.get("unfinished", 0),
        end_reasons=dict(sorted(reasons.items())),
        cards=describe(values(summaries, "cards")),
        minutes=describe(values(summaries, "minutes")),
        tricks=describe(values(summaries, "tricks")),
        slaps_per_game=sum(slaps) / per_game, misslaps_per_game=sum(misslaps) / per_game,
        seat_bias=seat_bias(wins) if identical else None, identical_bots=identical)
