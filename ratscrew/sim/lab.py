"""The house-rule lab: what a set of rules does to the game, judged by simulation.

:func:`run_lab` plays seeded games between bots (on the compiled kernel when it models the rules
and bots, else the reference engine) and gathers the figures a group designing its rules asks
about, each with a 95% confidence interval (every figure but the win shares is declared once in
:data:`ratscrew.sim.figures.FIGURES`, which says where the report holds it):

- ``win_share``: each seat's share of the games, ``[{seat, share, low, high}, ...]`` (Wilson
  intervals), and when some games had no winner a last row with ``seat`` null for them, so the
  shares add up to 1;
- ``length``: ``mean_cards``, ``median_minutes``, ``p90_minutes`` and ``mean_minutes``, the
  minutes read from the simulated game clock, so they are at the bots' human pace;
- ``slaps_per_game`` and ``misslaps_per_game`` (all seats together);
- ``memory_vs_speed``: how much a good memory is worth against a fast hand under these rules: the
  same games with seat 0 a good counter (``skilled``, remembers half the deck) and seat 1 a fast
  hand that does not count (``skilled``, 40 ms quicker), every other seat an ordinary
  ``skilled`` bot; the counter's share minus the fast hand's, with its interval;
- ``compared_to``: the same figures for the preset the rules start from, the settings that
  differ, and the differences that are significant at the 5% level.

A figure with an interval is ``{"value", "low", "high"}``.

>>> REPORT_KEYS
('win_share', 'length', 'slaps_per_game', 'misslaps_per_game', 'memory_vs_speed', 'compared_to')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from ratscrew.bots.profile import LEVELS, BotProfile
from ratscrew.ruleset import Ruleset
from ratscrew.sim.figures import (
    FIGURES,
    Lineup,
    figure_at,
    kernel_can_compute,
    place,
    report_keys,
    seat_share,
)
from ratscrew.sim.intervals import Z_95, wilson_interval
from ratscrew.sim.runner import DEFAULT_MAX_CARDS, CardsPlayed, EngineChoice, simulate
from ratscrew.sim.summary import GameSummary

COUNTER = LEVELS["skilled"].with_changes(name="counter", memory=26)
"""The good memory of ``memory_vs_speed``: a ``skilled`` bot that remembers half the deck."""
FAST_HAND = LEVELS["skilled"].with_changes(name="fast hand", memory=0,
                                           mu_ms=LEVELS["skilled"].mu_ms - 40)
"""The fast hand of ``memory_vs_speed``: a ``skilled`` bot 40 ms quicker that does not count."""
ORDINARY = LEVELS["skilled"].with_changes(name="skilled", memory=0)
"""The other seats of ``memory_vs_speed``."""

REPORT_KEYS = report_keys()
"""The keys of the lab's JSON report, in order (public contract): ``win_share``, the groups of
:data:`~ratscrew.sim.figures.FIGURES`, ``compared_to``."""

Progress = Callable[[int], object]
ALPHA = 0.05
"""Differences with a two-sided p-value below this are reported as significant."""

_IGNORED_SETTINGS = ("name", "summary")


def win_shares(summaries: Sequence[GameSummary], players: int) -> list[dict[str, Any]]:
    """Each seat's share of the games with its Wilson interval, ``{seat, share, low, high}``,
    and when some games had no winner (a cycle, a pile played out, a cap on cards), a last row
    with ``seat`` null for them, so the shares always add up to 1."""
    games = len(summaries)
    wins = [0] * players
    for summary in summaries:
        if summary.winner is not None:
            wins[summary.winner] += 1
    shares: list[dict[str, Any]] = []
    for seat, won in enumerate(wins):
        low, high = wilson_interval(won, games)
        shares.append({"seat": seat, "share": round(won / games, 4), "low": round(low, 4),
                       "high": round(high, 4)})
    nobody = games - sum(wins)
    if nobody:
        low, high = wilson_interval(nobody, games)
        shares.append({"seat": None, "share": round(nobody / games, 4), "low": round(low, 4),
                       "high": round(high, 4)})
    return shares


def lineup_figures(summaries: Sequence[GameSummary], lineup: Lineup,
                   report: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every figure of :data:`~ratscrew.sim.figures.FIGURES` computed from ``lineup``'s games,
    placed under its key in ``report`` (a new one if not given), which is returned."""
    report = {} if report is None else report
    for figure in FIGURES:
        if figure.lineup == lineup:
            place(report, figure, figure.compute(summaries))
    return report


def figures(summaries: Sequence[GameSummary], players: int) -> dict[str, Any]:
    """``win_share`` and every figure of the bots asked for (``length``, ``slaps_per_game``,
    ``misslaps_per_game``: :data:`~ratscrew.sim.figures.FIGURES`) of a run."""
    return lineup_figures(summaries, "asked", {"win_share": win_shares(summaries, players)})


def memory_vs_speed(summaries: Sequence[GameSummary]) -> dict[str, Any]:
    """Who played the ``memory_vs_speed`` games and the counter's (seat 0) and the fast hand's
    (seat 1) win shares, with 95% intervals (the figures of that lineup, such as the
    ``difference`` of the shares, are added by :func:`lineup_figures`)."""
    return {"memory_bot": describe_bot(COUNTER), "fast_bot": describe_bot(FAST_HAND),
            "memory_share": seat_share(0)(summaries), "fast_share": seat_share(1)(summaries)}


def describe_bot(profile: BotProfile) -> str:
    """A bot in a few words, for reports."""
    memory = f"remembers {profile.memory} cards" if profile.memory else "does not count"
    return f"{profile.name}: mean reaction {profile.mean_reaction_ms:.0f} ms, {memory}"


def memory_lineup(players: int) -> tuple[BotProfile, ...]:
    """The seats of the ``memory_vs_speed`` games: counter, fast hand, then ordinary bots."""
    return (COUNTER, FAST_HAND, *([ORDINARY] * (players - 2)))


def changed_settings(rules: Ruleset, base: Ruleset) -> list[str]:
    """The settings (by name) on which ``rules`` differs from ``base``."""
    return [f.name for f in fields(Ruleset) if f.name not in _IGNORED_SETTINGS
            and getattr(rules, f.name) != getattr(base, f.name)]


def starting_preset(rules: Ruleset) -> str:
    """The preset the rules start from: the one they are named after, else the preset with the
    fewest settings changed (the first of equals, in :meth:`Ruleset.presets` order).

    >>> import dataclasses
    >>> starting_preset(dataclasses.replace(Ruleset.preset("pagat"), name="ours", misslap_cards=2))
    'pagat'
    """
    if rules.name in Ruleset.presets():
        return rules.name
    return min(Ruleset.presets(),
               key=lambda name: len(changed_settings(rules, Ruleset.preset(name))))


def _z_difference(a: dict[str, float], b: dict[str, float]) -> tuple[float, bool]:
    """The difference of two figures and whether it is significant, from their intervals
    (each half-width is 1.96 standard errors; independent runs)."""
    difference = a["value"] - b["value"]
    error = math.hypot((a["high"] - a["low"]) / (2 * Z_95), (b["high"] - b["low"]) / (2 * Z_95))
    if error == 0:
        return difference, difference != 0
    z = abs(difference) / error
    p_value = math.erfc(z / math.sqrt(2))
    return difference, p_value < ALPHA


def significant_differences(ours: dict[str, Any], theirs: dict[str, Any]) -> list[dict[str, Any]]:
    """The figures on which two lab results differ beyond chance: ``{figure, value, preset,
    difference}`` each (``figure`` names it, e.g. ``length.median_minutes`` or
    ``win_share[0]``). Medians and percentiles use the same interval test as means."""
    pairs = [(figure.key, figure_at(ours, figure), figure_at(theirs, figure))
             for figure in FIGURES]
    by_seat = {row["seat"]: row for row in theirs["win_share"]}
    for row in ours["win_share"]:
        other = by_seat.get(row["seat"], {"seat": row["seat"], "share": 0.0, "low": 0.0,
                                          "high": 0.0})
        label = "win_share[no winner]" if row["seat"] is None else f"win_share[{row['seat']}]"
        pairs.append((label, _share_figure(row), _share_figure(other)))
    found = []
    for label, a, b in pairs:
        if any(math.isnan(x) for x in (a["value"], b["value"])):
            continue
        difference, significant = _z_difference(a, b)
        if significant:
            found.append({"figure": label, "value": a["value"], "preset": b["value"],
                          "difference": round(difference, 4)})
    return found


def _share_figure(row: dict[str, Any]) -> dict[str, float]:
    return {"value": row["share"], "low": row["low"], "high": row["high"]}


@dataclass(frozen=True)
class LabRun:
    """What one lab run plays: the rules, one bot per seat, games, seed, engine."""

    rules: Ruleset
    profiles: tuple[BotProfile, ...]
    games: int
    seed: int = 1
    engine: EngineChoice = "auto"
    workers: int | None = None
    max_cards: int = DEFAULT_MAX_CARDS

    @property
    def players(self) -> int:
        """Seats at the table."""
        return len(self.profiles)

    @property
    def total_games(self) -> int:
        """Games the whole report plays (these rules and the preset, each with the bots asked
        for and with the counter and the fast hand), for a progress bar."""
        base = Ruleset.preset(starting_preset(self.rules))
        runs = 2 if changed_settings(self.rules, base) else 1
        return 2 * runs * self.games


def _play(run: LabRun, rules: Ruleset, profiles: Sequence[BotProfile],
          progress: Progress | None, cards: CardsPlayed | None = None) -> list[GameSummary]:
    engine = run.engine if run.engine != "auto" or kernel_can_compute() else "reference"
    summaries, _ = simulate(rules, profiles, run.games, run.seed, workers=run.workers,
                            engine=engine, max_cards=run.max_cards, progress=progress,
                            cards=cards)
    return summaries


def rules_figures(run: LabRun, rules: Ruleset, progress: Progress | None = None,
                  cards: CardsPlayed | None = None) -> dict[str, Any]:
    """Every figure of one ruleset (no ``compared_to``); ``cards`` is told the cards played
    after every batch of games (`ratscrew.sim.runner.simulate`)."""
    result = figures(_play(run, rules, run.profiles, progress, cards), run.players)
    memory = _play(run, rules, memory_lineup(run.players), progress, cards)
    result["memory_vs_speed"] = memory_vs_speed(memory)
    return lineup_figures(memory, "memory", result)


def length_only(run: LabRun, progress: Progress | None = None) -> dict[str, Any]:
    """Just ``length`` for these rules and bots (what a room's lobby shows)."""
    length: dict[str, Any] = figures(_play(run, run.rules, run.profiles, progress),
                                     run.players)["length"]
    return length


def run_lab(run: LabRun, progress: Progress | None = None,
            cards: CardsPlayed | None = None) -> dict[str, Any]:
    """The lab's report: one object with exactly :data:`REPORT_KEYS`. ``progress`` is told the
    games and ``cards`` the cards played after every batch (the server's lab stops a job past
    its share of cards by raising from it)."""
    ours = rules_figures(run, run.rules, progress, cards)
    preset = starting_preset(run.rules)
    base = Ruleset.preset(preset)
    changed = changed_settings(run.rules, base)
    theirs = rules_figures(run, base, progress, cards) if changed else ours
    ours["compared_to"] = {
        "preset": preset,
        "changed": {name: _plain(getattr(run.rules, name)) for name in changed},
        **{key: theirs[key] for key in REPORT_KEYS if key != "compared_to"},
        "significant": significant_differences(ours, theirs) if changed else [],
    }
    return {key: ours[key] for key in REPORT_KEYS}


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value
