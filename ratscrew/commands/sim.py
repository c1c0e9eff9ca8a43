"""``ratscrew sim``: many seeded games between bots, summarised with confidence intervals."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table as RichTable

from ratscrew.bots.profile import BotProfile
from ratscrew.bots.spec import is_agent_spec, parse_bot_spec
from ratscrew.cli import CommandError
from ratscrew.ruleset import Ruleset
from ratscrew.sim.figures import MEASURES
from ratscrew.sim.ray_backend import RayUnavailableError
from ratscrew.sim.runner import DEFAULT_MAX_CARDS, KernelUnavailableError, default_workers, simulate
from ratscrew.sim.stats import SimReport, summarize
from ratscrew.sim.summary import GameSummary


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options ``sim`` and ``sim sweep`` share: what to play, how many, where."""
    parser.add_argument("--rules", default="classic",
                        help="a preset name or a TOML ruleset file (default: classic)")
    parser.add_argument("--players", type=int, default=None,
                        help="players per game (default: the number of --bots, or 2)")
    parser.add_argument("--games", type=int, default=1000, help="games to play (default: 1000)")
    parser.add_argument("--seed", type=int, default=1,
                        help="run seed; the same seed gives the same results (default: 1)")
    parser.add_argument("--bots", nargs="+", default=["casual"], metavar="SPEC",
                        help="one bot per seat, or one for every seat: a level (beginner, casual, "
                             "skilled, expert, referee) optionally with changes, e.g. "
                             "expert:mu_ms=250,memory=0, or a saved agent, agent:NAME (docs/bench.md; "
                             "reference engine only) (default: casual)")
    parser.add_argument("--workers", type=int, default=None,
                        help=f"worker processes (default: one per core, {default_workers()} here)")
    parser.add_argument("--engine", choices=["auto", "reference", "kernel"], default="auto",
                        help="reference: the real engine with the bots in Python; kernel: the compiled "
                             "kernel; auto: the kernel when it models these rules and bots")
    parser.add_argument("--backend", choices=["local", "ray"], default="local",
                        help="local processes, or a Ray cluster (pip install 'ratscrew[ray]')")
    parser.add_argument("--address", default=None,
                        help="Ray cluster address (default: start a local Ray instance)")
    parser.add_argument("--max-cards", type=int, default=DEFAULT_MAX_CARDS,
                        help=f"stop a game after this many cards (default: {DEFAULT_MAX_CARDS})")
    parser.add_argument("--no-progress", action="store_true", help="do not show a progress bar")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sim", help="simulate many games between bots and summarise them",
        description="Play many seeded games between bots and report each seat's win rate with "
                    "a 95% confidence interval, game length, slaps and misslaps, cycles, and "
                    "whether identical bots show a seat bias. 'ratscrew sim sweep' varies one "
                    "setting and plots the result.")
    add_run_options(parser)
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the summary as JSON")
    output.add_argument("--csv", action="store_true", help="print the per-seat table as CSV")
    parser.add_argument("--games-csv", metavar="FILE", default=None,
                        help="also write one CSV row per game to FILE")
    parser.set_defaults(run=run)


def resolve_setup(args: argparse.Namespace) -> tuple[Ruleset, list[BotProfile]]:
    """The ruleset and one bot profile per seat from the shared options; bad input is a
    `ValueError` with a one-line message."""
    rules = Ruleset.load(args.rules)
    specs = seat_bot_specs(args, rules, default_players=2)
    if args.max_cards < 1:
        raise ValueError("--max-cards must be at least 1")
    return rules, [seat_profile(spec) for spec in specs]


def seat_profile(spec: str) -> BotProfile:
    """A bot spec's profile, or the stand-in of a saved agent (``agent:NAME``)."""
    if is_agent_spec(spec):
        from ratscrew.rl.agents import seat_profile as agent_seat_profile

        return agent_seat_profile(spec)
    return parse_bot_spec(spec)


def seat_bot_specs(args: argparse.Namespace, rules: Ruleset, *, default_players: int) -> list[str]:
    """One bot spec per seat from ``--players`` and ``--bots`` (one level for all, or one per
    seat), with ``--games`` and ``--workers`` checked: the options ``ratscrew sim`` and
    ``ratscrew lab`` share. Bad input is a `ValueError` with a one-line message."""
    specs: list[str] = args.bots
    players = args.players
    if players is None:
        players = len(specs) if len(specs) > 1 else default_players
    if not 2 <= players <= rules.max_players:
        raise ValueError(f"--players must be between 2 and {rules.max_players} for {rules.name}")
    if len(specs) == 1:
        specs = specs * players
    elif len(specs) != players:
        raise ValueError(f"give one bot for every seat or one for all: {len(specs)} bots for "
                         f"{players} players")
    if args.games < 1:
        raise ValueError("--games must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise ValueError("--workers must be at least 1")
    return specs


class GameProgress:
    """What a run reports to its progress bar: games done, and what it is doing meanwhile."""

    def __init__(self, advance: Callable[[int], object] = lambda done: None,
                 describe: Callable[[str], object] = lambda text: None) -> None:
        self._advance = advance
        self._describe = describe

    def __call__(self, done: int) -> None:
        """``done`` more games finished."""
        self._advance(done)

    def note(self, text: str) -> None:
        """Show ``text`` beside the bar (an empty text restores the label)."""
        self._describe(text)


@contextmanager
def progress_bar(total: int, label: str, enabled: bool) -> Iterator[GameProgress]:
    """A rich progress bar on stderr; yields a `GameProgress` (call it with games done)."""
    if not enabled:
        yield GameProgress()
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("games"), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield GameProgress(lambda done: bar.advance(task, done),
                           lambda text: bar.update(task, description=text or label))


def run_simulation(args: argparse.Namespace, rules: Ruleset, profiles: list[BotProfile],
                   label: str) -> tuple[list[GameSummary], str, float]:
    """Run the games the options ask for, with a progress bar; returns the summaries, the
    engine used and the seconds taken."""
    started = time.perf_counter()
    show = not args.no_progress and sys.stderr.isatty()
    with progress_bar(args.games, label, show) as advance:
        summaries, engine = simulate_or_explain(args, rules, profiles, advance)
    return summaries, engine, time.perf_counter() - started


def simulate_or_explain(args: argparse.Namespace, rules: Ruleset, profiles: list[BotProfile],
                        progress: GameProgress) -> tuple[list[GameSummary], str]:
    """`simulate` with the options given; a missing kernel or Ray, or a worker that died, is a
    one-line `CommandError`."""
    try:
        return simulate(rules, profiles, args.games, args.seed, workers=args.workers,
                        engine=args.engine, backend=args.backend, address=args.address,
                        max_cards=args.max_cards, progress=progress, status=progress.note)
    except (KernelUnavailableError, RayUnavailableError) as error:
        raise CommandError(str(error)) from None
    except BrokenProcessPool:
        raise CommandError(f"a worker process died while simulating on the {args.engine} engine; "
                           "try --engine reference") from None


def run(args: argparse.Namespace) -> int:
    rules, profiles = resolve_setup(args)
    summaries, engine, seconds = run_simulation(args, rules, profiles, f"{rules.name}")
    report = summarize(summaries, rules=rules.name, seed=args.seed, engine=engine,
                       bots=[p.name for p in profiles])
    report.extra.update(seconds=round(seconds, 3), games_per_second=round(len(summaries) / seconds, 1),
                        workers=args.workers or default_workers(), backend=args.backend)
    if args.games_csv:
        with open(args.games_csv, "w", newline="") as handle:
            write_games_csv(summaries, handle)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, default=_json_default))
    elif args.csv:
        sys.stdout.write(seats_csv(report))
    else:
        print_report(report)
    return 0


def _json_default(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def seats_csv(report: SimReport) -> str:
    """The per-seat table as CSV text."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["seat", "bot", "games", "wins", "win_rate", "ci_low", "ci_high",
                     "slaps_per_game", "misslaps_per_game"])
    for seat in report.seats:
        writer.writerow([seat.seat, seat.bot, report.games, seat.wins, f"{seat.win_rate:.4f}",
                         f"{seat.ci_low:.4f}", f"{seat.ci_high:.4f}",
                         f"{seat.slaps_per_game:.3f}", f"{seat.misslaps_per_game:.3f}"])
    return out.getvalue()


def write_games_csv(summaries: list[GameSummary], handle: io.TextIOBase | Any) -> None:
    """One row per game: seed, winner, end reason, length, and slaps/misslaps per seat."""
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(["game", "seed", "players", "winner", "end_reason", "cards_played", "tricks",
                     "duration_ms", "slaps_won", "misslaps"])
    for index, s in enumerate(summaries):
        writer.writerow([index, s.seed, s.players, "" if s.winner is None else s.winner,
                         s.end_reason, s.cards_played, s.tricks, s.duration_ms,
                         " ".join(map(str, s.slaps_won)), " ".join(map(str, s.misslaps))])


def print_report(report: SimReport) -> None:
    """The human-readable summary."""
    console = Console()
    extra = report.extra
    console.print(f"[bold]{report.rules}[/] rules, {report.players} players, {report.games} games, "
                  f"seed {report.seed} — {report.engine} engine, "
                  f"{'Ray' if extra.get('backend') == 'ray' else str(extra.get('workers')) + ' workers'}, "
                  f"{extra.get('seconds')} s ({extra.get('games_per_second')} games/s)")
    seats = RichTable(show_edge=False, box=None, pad_edge=False)
    for column in ("seat", "bot", "wins", "win rate", "95% CI", "slaps/game", "misslaps/game"):
        seats.add_column(column, justify="left" if column == "bot" else "right")
    for seat in report.seats:
        seats.add_row(str(seat.seat), seat.bot, str(seat.wins), f"{seat.win_rate:.1%}",
                      f"{seat.ci_low:.1%} – {seat.ci_high:.1%}", f"{seat.slaps_per_game:.2f}",
                      f"{seat.misslaps_per_game:.2f}")
    console.print(seats)
    reasons = ", ".join(f"{name} {count}" for name, count in report.end_reasons.items())
    console.print(f"no winner: {report.no_winner} (cycles {report.cycles}, unfinished "
                  f"{report.unfinished}); how games ended: {reasons}")
    lengths = RichTable(show_edge=False, box=None, pad_edge=False)
    for column in ("game length", "mean", "median", "p95"):
        lengths.add_column(column, justify="left" if column == "game length" else "right")
    for name, values in (("cards", report.cards), ("tricks", report.tricks),
                         ("minutes", report.minutes)):
        measure = MEASURES[name]
        lengths.add_row(measure.label, *(f"{values[k]:.{measure.digits}f}"
                                         for k in ("mean", "median", "p95")))
    console.print(lengths)
    console.print(f"slaps per game {report.slaps_per_game:.2f}, "
                  f"misslaps per game {report.misslaps_per_game:.2f}")
    if report.seat_bias is not None:
        style = "bold red" if report.seat_bias.flagged else "green"
        console.print(f"[{style}]{report.seat_bias.describe()}[/] (identical bots in every seat)")
    elif report.identical_bots:
        console.print("seat bias: too few decided games to test")
