"""``ratscrew sim sweep``: vary one bot parameter, one rule setting or the preset, and plot it.

Every point of a sweep plays the same seeded deals (common random numbers), so differences
between points come from the setting, not from luck of the deal. The plot (PNG, matplotlib) and
the table behind it (CSV) are written side by side.
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ratscrew.bots.profile import BotProfile
from ratscrew.bots.spec import TUNABLE, coerce_parameter
from ratscrew.commands.sim import add_run_options, progress_bar, resolve_setup, simulate_or_explain
from ratscrew.ruleset import Ruleset
from ratscrew.sim.figures import MEASURES, values
from ratscrew.sim.intervals import Z_95, wilson_interval
from ratscrew.sim.summary import GameSummary

METRICS = ("win_rate", *MEASURES, "no_winner")
"""What a sweep can plot: the swept seat's win rate, the mean per game of a measure of
:data:`ratscrew.sim.figures.MEASURES` (cards, simulated minutes, slaps or misslaps of all seats,
piles won), or the share of games nobody won."""


@dataclass(frozen=True)
class SweepPoint:
    """One point of a sweep: the series (player count), the value, and what was measured."""

    players: int
    value: str
    games: int
    metric: float
    ci_low: float
    ci_high: float
    seat_win_rate: float
    cards_mean: float
    cards_median: float
    minutes_mean: float
    slaps_per_game: float
    misslaps_per_game: float
    no_winner: float
    engine: str


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sim-sweep", help="vary one bot parameter or rule setting and plot the result",
        description="Run 'ratscrew sim' once per value of one bot parameter (--param, for "
                    "--seat), one rule setting (--rule) or the preset (--presets), and write a "
                    "PNG plot plus the CSV table behind it. Invoked as 'ratscrew sim sweep'.")
    add_run_options(parser)
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--param", choices=sorted(TUNABLE), help="a bot parameter to vary")
    what.add_argument("--rule", help="a rule setting to vary, e.g. misslap_cards")
    what.add_argument("--presets", action="store_true",
                      help="vary the preset: --values are preset names")
    parser.add_argument("--values", required=True,
                        help="comma-separated values, e.g. 250,300,350")
    parser.add_argument("--seat", default="0",
                        help="the seat whose bot --param changes and whose win rate is plotted, "
                             "or 'all' to change every seat (default: 0)")
    parser.add_argument("--series-players", default=None, metavar="N,N",
                        help="one line per player count, e.g. 2,4 (default: --players only)")
    parser.add_argument("--metric", choices=METRICS, default=None,
                        help="what to plot (default: win_rate for --param, cards otherwise)")
    parser.add_argument("--out", default="sweep.png",
                        help="PNG file to write; the CSV table goes next to it (default: sweep.png)")
    parser.add_argument("--title", default=None, help="plot title")
    parser.add_argument("--xlabel", default=None, help="x-axis label")
    parser.set_defaults(run=run)


def _player_counts(args: argparse.Namespace) -> list[int]:
    if args.series_players is None:
        return [args.players] if args.players is not None else [0]
    try:
        return [int(v) for v in args.series_players.split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"--series-players needs whole numbers, got {args.series_players!r}") from None


def _values(args: argparse.Namespace) -> list[str]:
    values = [v.strip() for v in args.values.split(",") if v.strip()]
    if not values:
        raise ValueError("--values needs at least one value")
    return values


def _setups(args: argparse.Namespace, players: int, values: list[str]
            ) -> list[tuple[str, Ruleset, list[BotProfile]]]:
    """The ruleset and bots of every point of one series, checked before anything runs."""
    base = argparse.Namespace(**vars(args))
    base.players = None if players == 0 else players
    if args.presets:
        out = []
        for value in values:
            base.rules = value
            rules, profiles = resolve_setup(base)
            out.append((value, rules, profiles))
        return out
    rules, profiles = resolve_setup(base)
    out = []
    for value in values:
        point_rules, point_profiles = rules, list(profiles)
        if args.rule is not None:
            setting = _rule_value(rules, args.rule, value)
            point_rules = Ruleset.from_dict({**rules.to_dict(), args.rule: setting})
        else:
            number = coerce_parameter(args.param, value)
            seats = range(len(profiles)) if args.seat == "all" else [_seat(args.seat, len(profiles))]
            for seat in seats:
                changed = point_profiles[seat].with_changes(**{args.param: number})
                point_profiles[seat] = changed.with_changes(name=f"{changed.name}:{args.param}={value}")
        out.append((value, point_rules, point_profiles))
    return out


def _seat(text: str, players: int) -> int:
    try:
        seat = int(text)
    except ValueError:
        raise ValueError(f"--seat must be a seat number or 'all', got {text!r}") from None
    if not 0 <= seat < players:
        raise ValueError(f"--seat must be between 0 and {players - 1}")
    return seat


def _rule_value(rules: Ruleset, name: str, text: str) -> Any:
    current = rules.to_dict()
    if name not in current or name == "name":
        raise ValueError(f"unknown rule setting {name!r}; see 'ratscrew rules show {rules.name}'")
    kind = current[name]
    if isinstance(kind, bool):
        if text.lower() not in ("true", "false"):
            raise ValueError(f"rule setting {name} needs true or false, got {text!r}")
        return text.lower() == "true"
    if isinstance(kind, int):
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"rule setting {name} needs a whole number, got {text!r}") from None
    if isinstance(kind, list):
        return [part for part in text.split("+") if part]
    return text


def measure(summaries: list[GameSummary], metric: str, seat: int, players: int, value: str,
            engine: str) -> SweepPoint:
    """Reduce one point's games to the plotted metric with its 95% interval."""
    games = len(summaries)
    wins = sum(1 for s in summaries if s.winner == seat)
    cards, minutes = values(summaries, "cards"), values(summaries, "minutes")
    slaps, misslaps = values(summaries, "slaps"), values(summaries, "misslaps")
    no_winner = sum(1 for s in summaries if s.winner is None)
    if metric in ("win_rate", "no_winner"):
        count = wins if metric == "win_rate" else no_winner
        centre = count / games
        low, high = wilson_interval(count, games)
    else:
        series = values(summaries, metric)
        centre = statistics.fmean(series)
        half = Z_95 * statistics.stdev(series) / math.sqrt(games) if games > 1 else math.nan
        low, high = centre - half, centre + half
    return SweepPoint(players, value, games, centre, low, high, wins / games,
                      statistics.fmean(cards), statistics.median(cards), statistics.fmean(minutes),
                      statistics.fmean(slaps), statistics.fmean(misslaps), no_winner / games, engine)


def run(args: argparse.Namespace) -> int:
    values = _values(args)
    metric = args.metric or ("win_rate" if args.param else "cards")
    counts = _player_counts(args)
    plans = [(players, _setups(args, players, values)) for players in counts]
    seat = 0 if args.seat == "all" else _seat(args.seat, len(plans[0][1][0][2]))
    out = Path(args.out)
    if out.suffix.lower() != ".png":
        raise ValueError(f"--out must name a .png file, got {args.out}")
    points: list[SweepPoint] = []
    total = args.games * sum(len(setups) for _, setups in plans)
    started = time.perf_counter()
    show = not args.no_progress and sys.stderr.isatty()
    with progress_bar(total, "sweep", show) as advance:
        for _players, setups in plans:
            for value, rules, profiles in setups:
                summaries, engine = simulate_or_explain(args, rules, profiles, advance)
                points.append(measure(summaries, metric, seat, len(profiles), value, engine))
    table_path = out.with_suffix(".csv")
    out.parent.mkdir(parents=True, exist_ok=True)
    write_table(points, table_path)
    plot(points, metric, args, out)
    print(f"{len(points)} points x {args.games} games in {time.perf_counter() - started:.1f} s "
          f"-> {out} and {table_path}")
    print(f"{'players':>7}  {'value':>12}  {metric:>10}  {'95% CI':>19}  {'cards':>6}  {'minutes':>7}")
    for p in points:
        print(f"{p.players:>7}  {p.value:>12}  {p.metric:>10.3f}  "
              f"[{p.ci_low:>7.3f}, {p.ci_high:>7.3f}]  {p.cards_mean:>6.0f}  {p.minutes_mean:>7.1f}")
    return 0


def write_table(points: list[SweepPoint], path: Path) -> None:
    """The CSV table behind the plot."""
    names = list(SweepPoint.__dataclass_fields__)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(names)
        for point in points:
            writer.writerow([_cell(getattr(point, name)) for name in names])


def _cell(value: Any) -> Any:
    return f"{value:.5g}" if isinstance(value, float) else value


def plot(points: list[SweepPoint], metric: str, args: argparse.Namespace, out: Path) -> None:
    """Draw one line per player count with 95% error bars and save it as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    numeric = all(_is_number(p.value) for p in points)
    labels = list(dict.fromkeys(p.value for p in points))
    figure, axes = plt.subplots(figsize=(6.4, 4.2), dpi=110)
    for players in dict.fromkeys(p.players for p in points):
        line = [p for p in points if p.players == players]
        xs = [float(p.value) if numeric else labels.index(p.value) for p in line]
        ys = [p.metric for p in line]
        errors = [[max(0.0, p.metric - p.ci_low) for p in line],
                  [max(0.0, p.ci_high - p.metric) for p in line]]
        axes.errorbar(xs, ys, yerr=errors, marker="o", capsize=3, label=f"{players} players")
        if metric == "win_rate":
            axes.axhline(1 / players, color="grey", linewidth=0.8, linestyle=":")
    if not numeric:
        axes.set_xticks(range(len(labels)), labels)
    what = args.param or args.rule or "preset"
    axes.set_xlabel(args.xlabel or what)
    axes.set_ylabel(f"win rate of seat {args.seat}" if metric == "win_rate"
                    else "share of games with no winner" if metric == "no_winner"
                    else f"{MEASURES[metric].label} per game (mean)")
    axes.set_title(args.title or f"{metric} by {what}")
    axes.grid(alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(out)
    plt.close(figure)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
