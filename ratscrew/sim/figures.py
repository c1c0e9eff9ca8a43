"""The simulation figures, each declared once: what ``ratscrew sim``, ``ratscrew sim sweep``,
``ratscrew lab``, the server's lab jobs and the lab page report about a batch of games.

Two kinds of entries, both computed from `GameSummary` records only (what the reference engine
and the compiled kernel both return), so a run's engine never changes a figure:

- a `Measure` is one number per game (cards played, simulated minutes, slaps, ...): ``ratscrew
  sim`` describes it (mean, median, 95th percentile) and ``ratscrew sim sweep`` plots its mean;
- a `Figure` is what the lab reports about a batch: a value with its 95% interval
  (``{"value", "low", "high"}``), stored in the lab's JSON report under its dotted ``key``
  (``length.mean_cards`` is ``report["length"]["mean_cards"]``), compared with the preset the
  rules start from, shown by ``ratscrew lab`` (``short``) and by the lab page (``label``, sent
  by ``GET /api/lab/settings``, ``figures``).

Adding a figure is adding an entry to :data:`FIGURES` (and its computation, if none here fits):
the lab's report, its comparison with the preset, the terminal table and the page's table all
read this list. A figure that needs more than a `GameSummary` says ``kernel=False``; the lab
then plays on the reference engine (see :func:`kernel_can_compute`).

>>> [figure.key for figure in FIGURES][:2]
['length.mean_cards', 'length.median_minutes']
>>> figure_named("slaps_per_game").label
'Slaps won per game'
>>> MEASURES["minutes"].of(GameSummary(1, 2, 0, "all_cards", 52, 7, 90_000, (0, 0), (0, 0)))
1.5
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ratscrew.sim.intervals import Z_95, interval, mean_interval, quantile_interval, wilson_interval
from ratscrew.sim.summary import GameSummary

Estimate = dict[str, float]
"""A figure's value with its 95% interval: ``{"value", "low", "high"}``."""


@dataclass(frozen=True)
class Measure:
    """One number per game, read from its `GameSummary`."""

    name: str
    """What ``--metric`` and the tables call it."""
    label: str
    """What it counts, in words (``simulated minutes``)."""
    of: Callable[[GameSummary], float]
    """Its value in one game."""
    digits: int
    """Decimals worth showing of its mean."""


MEASURES: dict[str, Measure] = {measure.name: measure for measure in (
    Measure("cards", "cards", lambda game: float(game.cards_played), 0),
    Measure("minutes", "simulated minutes", lambda game: game.duration_ms / 60_000, 1),
    Measure("slaps", "slaps", lambda game: float(sum(game.slaps_won)), 2),
    Measure("misslaps", "misslaps", lambda game: float(sum(game.misslaps)), 2),
    Measure("tricks", "piles won", lambda game: float(game.tricks), 0),
)}
"""Every per-game measure, in the order the commands list them."""


def values(games: Sequence[GameSummary], measure: str) -> list[float]:
    """The measure's value in each game, in order."""
    of = MEASURES[measure].of
    return [of(game) for game in games]


Lineup = Literal["asked", "memory"]
"""Whose games a lab figure is computed from: the bots asked for, or the ``memory_vs_speed``
lineup (a counter in seat 0 against a fast hand in seat 1, :mod:`ratscrew.sim.lab`)."""

Unit = Literal["cards", "minutes", "count", "share difference"]
"""What a figure's value counts: how it is shown (a share difference as points of a percent,
with its sign). The page's type of it is ``ratscrew.protocol.http.FigureUnit`` (the protocol sits
above simulation, so it cannot import this; ``tests/test_figures.py`` holds the two equal)."""


@dataclass(frozen=True)
class Figure:
    """One figure of the lab's report."""

    key: str
    """Where the report holds it: ``length.mean_cards`` is ``report["length"]["mean_cards"]``;
    the name the comparison with the preset and the page use."""
    label: str
    """What the lab page calls it."""
    short: str
    """What the ``ratscrew lab`` table calls it."""
    compute: Callable[[Sequence[GameSummary]], Estimate]
    """The figure, with its 95% interval, from a batch of games."""
    digits: int
    """Decimals shown."""
    unit: Unit
    lineup: Lineup = "asked"
    kernel: bool = True
    """True when the compiled kernel's summaries are enough to compute it (a figure that needs
    the engine's events is ``False``, and the lab then plays on the reference engine)."""

    @property
    def path(self) -> tuple[str, ...]:
        """The keys leading to the figure in the report."""
        return tuple(self.key.split("."))

def mean_of(measure: str) -> Callable[[Sequence[GameSummary]], Estimate]:
    """The mean of a `Measure` over the games, with its normal-approximation interval."""
    return lambda games: mean_interval(values(games, measure))


def quantile_of(measure: str, q: float) -> Callable[[Sequence[GameSummary]], Estimate]:
    """The ``q`` quantile (0-1) of a `Measure`, with its distribution-free interval."""
    return lambda games: quantile_interval(values(games, measure), q)


def share_difference(first: int, second: int) -> Callable[[Sequence[GameSummary]], Estimate]:
    """Seat ``first``'s share of wins minus seat ``second``'s, with the interval from the
    multinomial variance of two shares of the same games."""
    def compute(games: Sequence[GameSummary]) -> Estimate:
        count = len(games)
        p = sum(1 for game in games if game.winner == first) / count
        q = sum(1 for game in games if game.winner == second) / count
        error = math.sqrt(max(0.0, p + q - (p - q) ** 2) / count)
        return interval(p - q, p - q - Z_95 * error, p - q + Z_95 * error)
    return compute


def seat_share(seat: int) -> Callable[[Sequence[GameSummary]], Estimate]:
    """Seat ``seat``'s share of wins with its Wilson interval."""
    def compute(games: Sequence[GameSummary]) -> Estimate:
        won = sum(1 for game in games if game.winner == seat)
        low, high = wilson_interval(won, len(games))
        return interval(won / len(games), low, high)
    return compute


FIGURES: tuple[Figure, ...] = (
    Figure("length.mean_cards", "Cards played per game (mean)", "cards per game (mean)",
           mean_of("cards"), 0, "cards"),
    Figure("length.median_minutes", "Minutes per game (median)", "minutes (median)",
           quantile_of("minutes", 0.5), 1, "minutes"),
    Figure("length.p90_minutes", "Minutes per game (90th percentile)",
           "minutes (90th percentile)", quantile_of("minutes", 0.9), 1, "minutes"),
    Figure("length.mean_minutes", "Minutes per game (mean)", "minutes (mean)",
           mean_of("minutes"), 1, "minutes"),
    Figure("slaps_per_game", "Slaps won per game", "slaps per game", mean_of("slaps"), 1,
           "count"),
    Figure("misslaps_per_game", "Misslaps per game", "misslaps per game", mean_of("misslaps"), 1,
           "count"),
    Figure("memory_vs_speed.difference", "Memory's lead over speed (share of wins)",
           "memory beats speed by", share_difference(0, 1), 2, "share difference",
           lineup="memory"),
)
"""Every figure of the lab's report (the seats' win shares aside: a row per seat, see
:func:`ratscrew.sim.lab.win_shares`), in the order the report and the tables show them."""


def figure_named(key: str) -> Figure:
    """The figure stored under ``key``; a `KeyError` names the known ones."""
    for figure in FIGURES:
        if figure.key == key:
            return figure
    raise KeyError(f"no figure {key!r}; the figures are {', '.join(f.key for f in FIGURES)}")


def kernel_can_compute(figures: Sequence[Figure] | None = None) -> bool:
    """True when the compiled kernel's summaries give every one of ``figures`` (by default
    every figure of :data:`FIGURES`)."""
    return all(figure.kernel for figure in (FIGURES if figures is None else figures))


def figure_at(report: Mapping[str, Any], figure: Figure) -> Estimate:
    """The figure's estimate in a report (or in its ``compared_to`` part)."""
    found: Any = report
    for key in figure.path:
        found = found[key]
    estimate: Estimate = found
    return estimate


def place(report: dict[str, Any], figure: Figure, estimate: Estimate) -> None:
    """Store the figure's estimate in a report under its key (creating the groups it is in)."""
    *groups, leaf = figure.path
    here = report
    for key in groups:
        here = here.setdefault(key, {})
    here[leaf] = estimate


def report_keys() -> tuple[str, ...]:
    """The top-level keys of the lab's report, in order: the win shares, the figures' groups,
    then the comparison with the preset."""
    return ("win_share", *dict.fromkeys(figure.path[0] for figure in FIGURES), "compared_to")
