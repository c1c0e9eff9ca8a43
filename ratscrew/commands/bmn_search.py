"""``ratscrew bmn search``: search random Beggar-my-neighbour deals for long games and cycles.

Registered as ``bmn-search``; :func:`ratscrew.cli.main` maps ``bmn search`` to it.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

if TYPE_CHECKING:  # the search (and its numba kernel) is imported only when it runs
    from ratscrew.sim.bmn_search import FoundDeal, SearchReport


def _cores() -> int:
    """The cores this process may use (the search's default ``--workers``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bmn-search", help="search random Beggar-my-neighbour deals for long games and cycles",
        description="Deal and play random Beggar-my-neighbour games with the compiled kernel, "
                    "on every core, and report the longest games (in record notation, ready for "
                    "'ratscrew bmn') and every deal that never ends. The same --seed gives the "
                    "same report whatever --workers is.",
        epilog="example: ratscrew bmn search --deals 1000000 --seed 42 --top 5")
    parser.add_argument("--deals", type=int, required=True, help="how many random deals to play")
    parser.add_argument("--workers", type=int, default=None,
                        help=f"processes to use (default: every core, here {_cores()})")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the search (default: a random one, printed in the report)")
    parser.add_argument("--top", type=int, default=10,
                        help="how many of the longest games to report (default: 10)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ratscrew.sim.bmn_search import SearchError, search

    seed = args.seed if args.seed is not None else secrets.randbits(32)
    if args.deals is None or args.deals < 1:
        raise SearchError(f"--deals must be at least 1, got {args.deals}")
    console = Console(stderr=True)
    show_bar = console.is_terminal and not args.json
    with Progress(TextColumn("dealing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=console, transient=True, disable=not show_bar) as bar:
        task = bar.add_task("deals", total=args.deals)
        report = search(args.deals, seed, workers=args.workers, top=args.top,
                        progress=lambda done: bar.advance(task, done))
    if args.json:
        json.dump(report.to_dict(), sys.stdout)
        sys.stdout.write("\n")
    else:
        print_report(report)
    return 0


def _describe(deal: FoundDeal) -> str:
    if deal.cycle:
        return (f"never ends: a loop of {deal.cycle_tricks} tricks / {deal.cycle_cards} cards, "
                f"first repeated state after {deal.tricks} tricks / {deal.cards} cards")
    return f"{deal.cards:,} cards, {deal.tricks:,} tricks, hand {deal.winner} wins"


def print_report(report: SearchReport) -> None:
    """The report in plain text, each deal with the command that replays it."""
    ended = report.hand1_wins + report.hand2_wins
    hand1_share = 100 * report.hand1_wins / ended if ended else 0.0
    print(f"Searched {report.deals:,} deals (seed {report.seed}) in {report.seconds:.2f} s on "
          f"{report.workers} worker{'s' if report.workers != 1 else ''}: "
          f"{report.deals_per_second:,.0f} deals/s")
    print(f"Mean {report.mean_cards:.1f} cards, {report.mean_tricks:.1f} tricks; "
          f"hand 1 won {hand1_share:.1f}% of the games that ended.")
    if report.longest:
        print(f"Longest {len(report.longest)} game{'s' if len(report.longest) != 1 else ''}:")
        for rank, deal in enumerate(report.longest, start=1):
            print(f"{rank:>3}. {_describe(deal)}  (deal #{deal.index})")
            print(f"     ratscrew bmn {deal.hand1} {deal.hand2}")
    if report.cycles:
        print(f"Cycles ({len(report.cycles)}):")
        for deal in report.cycles:
            print(f"  deal #{deal.index}: {_describe(deal)}")
            print(f"     ratscrew bmn {deal.hand1} {deal.hand2}")
    else:
        print("Cycles: none found.")
