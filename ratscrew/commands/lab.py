"""``ratscrew lab``: what a set of house rules does to the game, judged by simulation.

See :mod:`ratscrew.sim.lab` for the figures and docs/lab.md for how to read them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table as RichTable

from ratscrew.bots.spec import parse_bot_spec
from ratscrew.cli import CommandError
from ratscrew.commands.sim import progress_bar, seat_bot_specs
from ratscrew.ruleset import Ruleset
from ratscrew.sim.figures import FIGURES, Figure, figure_at
from ratscrew.sim.lab import REPORT_KEYS, LabRun, describe_bot, run_lab
from ratscrew.sim.runner import KernelUnavailableError, default_workers

DEFAULT_GAMES = 10_000


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "lab", help="what a set of house rules does to the game, judged by simulation",
        description="Play many games between bots under RULES and report, each with a 95% "
                    "confidence interval: each seat's share of wins, how long a game lasts (cards "
                    "and minutes at the bots' human pace), slaps and misslaps per game, what a "
                    "good memory is worth against a fast hand, and the same figures for the "
                    "preset the rules start from, with the differences that are significant. "
                    "See docs/lab.md.")
    parser.add_argument("rules", metavar="RULES",
                        help=f"a preset ({', '.join(Ruleset.presets())}) or a TOML ruleset file")
    parser.add_argument("--players", type=int, default=None,
                        help="players per game (default: the number of --bots, or 4)")
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES,
                        help=f"games per figure set (default: {DEFAULT_GAMES:,})")
    parser.add_argument("--bots", nargs="+", default=["casual"], metavar="LEVEL",
                        help="one bot per seat, or one for every seat: beginner, casual, skilled, "
                             "expert or referee, optionally with changes such as "
                             "expert:memory=0 (default: casual)")
    parser.add_argument("--seed", type=int, default=1,
                        help="run seed; the same seed gives the same figures (default: 1)")
    parser.add_argument("--workers", type=int, default=None,
                        help=f"worker processes (default: one per core, {default_workers()} here)")
    parser.add_argument("--json", action="store_true",
                        help=f"print one JSON object: {', '.join(REPORT_KEYS)}")
    parser.add_argument("--plot", metavar="FILE", default=None,
                        help="also draw the win shares and game lengths, against the preset, "
                             "to FILE (PNG)")
    parser.add_argument("--no-progress", action="store_true", help="do not show a progress bar")
    parser.set_defaults(run=run)


def lab_run_from(args: argparse.Namespace) -> LabRun:
    """The run the options ask for; bad input is a `ValueError` with a one-line message."""
    rules = Ruleset.load(args.rules)
    specs = seat_bot_specs(args, rules, default_players=4)
    return LabRun(rules, tuple(parse_bot_spec(spec) for spec in specs), args.games, args.seed,
                  workers=args.workers)


def check_plot_path(path: str) -> None:
    """Refuse a plot file that cannot be written before any game is played.

    >>> check_plot_path("/nowhere/lab.png")
    Traceback (most recent call last):
    ...
    ratscrew.cli.CommandError: cannot write the plot to '/nowhere/lab.png': there is no folder '/nowhere'
    """
    folder = Path(path).parent
    if not folder.is_dir():
        raise CommandError(f"cannot write the plot to {path!r}: there is no folder '{folder}'")
    if not os.access(folder, os.W_OK):
        raise CommandError(f"cannot write the plot to {path!r}: the folder '{folder}' is not writable")


def run(args: argparse.Namespace) -> int:
    lab = lab_run_from(args)
    if args.plot:
        check_plot_path(args.plot)
    show = not args.no_progress and sys.stderr.isatty()
    started = time.perf_counter()
    try:
        with progress_bar(lab.total_games, f"lab: {lab.rules.name}", show) as advance:
            report = run_lab(lab, advance)
    except KernelUnavailableError as error:
        raise CommandError(str(error)) from None
    except BrokenProcessPool:
        raise CommandError("a worker process died while simulating; try --workers 1") from None
    seconds = time.perf_counter() - started
    if args.json:
        print(json.dumps(report, indent=2, default=_json_default))
    else:
        print_report(report, lab, seconds)
    if args.plot:  # after the report: a plot that cannot be drawn never costs the figures
        draw(report, lab, args.plot)
    return 0


def _json_default(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def _ci(figure: dict[str, float], fmt: str = "{:.1f}") -> str:
    return f"{fmt.format(figure['value'])} ({fmt.format(figure['low'])}–{fmt.format(figure['high'])})"


def _share(row: dict[str, Any]) -> str:
    return f"{row['share']:.1%} ({row['low']:.1%}–{row['high']:.1%})"


def print_report(report: dict[str, Any], lab: LabRun, seconds: float) -> None:
    """The human-readable report: these rules beside the preset they start from."""
    console = Console()
    base = report["compared_to"]
    changed = base["changed"]
    console.print(f"[bold]{lab.rules.title}[/], {lab.players} players, {lab.games:,} games "
                  f"per column, seed {lab.seed} ({seconds:.1f} s)")
    if changed:
        console.print(f"against [bold]{base['preset']}[/]: "
                      + ", ".join(f"{name} = {value}" for name, value in changed.items()))
    else:
        console.print(f"the {base['preset']} preset itself")
    console.print("95% confidence intervals in brackets.")
    table = RichTable(show_edge=False, box=None, pad_edge=False)
    table.add_column("figure")
    table.add_column("these rules", justify="right")
    if changed:
        table.add_column(base["preset"], justify="right")
    theirs = {row["seat"]: row for row in base["win_share"]}
    for row in report["win_share"]:
        label = "no winner" if row["seat"] is None else f"seat {row['seat']} wins"
        cells = [_share(row)]
        if changed:
            cells.append(_share(theirs[row["seat"]]) if row["seat"] in theirs else "0.0%")
        table.add_row(label, *cells)
    for figure in FIGURES:
        fmt = _format(figure)
        cells = [_ci(figure_at(report, figure), fmt)]
        if changed:
            cells.append(_ci(figure_at(base, figure), fmt))
        table.add_row(figure.short, *cells)
    console.print(table)
    memory = report["memory_vs_speed"]
    console.print(f"memory against speed: {memory['memory_bot']} against {memory['fast_bot']}; "
                  "the difference is the counter's share of wins minus the fast hand's")
    if changed:
        if base["significant"]:
            console.print("[bold]significant differences[/] (p < 0.05): " + ", ".join(
                f"{d['figure']} {d['difference']:+.3g}" for d in base["significant"]))
        else:
            console.print("no difference from the preset is significant at these game counts")
    console.print("bots: " + ", ".join(describe_bot(p) for p in dict.fromkeys(lab.profiles)))


def _format(figure: Figure) -> str:
    """How the terminal writes the figure: its decimals, and a difference with its sign.

    >>> from ratscrew.sim.figures import figure_named
    >>> _format(figure_named("memory_vs_speed.difference")).format(0.1234)
    '+0.12'
    """
    sign = "+" if figure.unit == "share difference" else ""
    return f"{{:{sign}.{figure.digits}f}}"


def draw(report: dict[str, Any], lab: LabRun, path: str) -> None:
    """Win shares and game lengths with their intervals, these rules beside the preset."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    base = report["compared_to"]
    columns = [(lab.rules.name, report)]
    if base["changed"]:
        columns.append((base["preset"], base))
    figure, (shares, lengths) = plt.subplots(1, 2, figsize=(9, 4), dpi=110)
    width = 0.8 / len(columns)
    for index, (name, data) in enumerate(columns):
        rows = [row for row in data["win_share"] if row["seat"] is not None]
        xs = [row["seat"] + index * width for row in rows]
        ys = [row["share"] for row in rows]
        errors = [[row["share"] - row["low"] for row in rows], [row["high"] - row["share"] for row in rows]]
        shares.bar(xs, ys, width, yerr=errors, capsize=3, label=name)
        keys = ["median_minutes", "p90_minutes", "mean_minutes"]
        figures = [data["length"][key] for key in keys]
        lengths.bar([k + index * width for k in range(len(keys))], [f["value"] for f in figures],
                    width, yerr=[[f["value"] - f["low"] for f in figures],
                                 [f["high"] - f["value"] for f in figures]], capsize=3, label=name)
    shares.set_title("share of wins by seat")
    shares.set_xticks([seat + width * (len(columns) - 1) / 2 for seat in range(lab.players)],
                      [str(seat) for seat in range(lab.players)])
    shares.set_xlabel("seat")
    lengths.set_title("game length (minutes)")
    lengths.set_xticks([k + width * (len(columns) - 1) / 2 for k in range(3)],
                       ["median", "90th pct", "mean"])
    # head room above the tallest whisker, so the legend never covers a bar
    tallest = max(row["high"] for _, data in columns for row in data["win_share"])
    shares.set_ylim(0, tallest * 1.35)
    longest = max(data["length"]["p90_minutes"]["high"] for _, data in columns)
    lengths.set_ylim(0, longest * 1.35)
    for axes in (shares, lengths):
        axes.legend(loc="upper center", ncol=2, frameon=False)
    figure.tight_layout()
    try:
        figure.savefig(path)
    except OSError as error:
        raise CommandError(f"cannot write the plot to {path!r}: {error.strerror}") from None
    finally:
        plt.close(figure)
