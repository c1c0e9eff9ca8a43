"""``ratscrew bench``: ERS-Bench, the table of agents over fixed deals in two tracks, and
``ratscrew bench train AGENT``, which retrains a learned agent reproducibly.

The evaluation itself is :mod:`ratscrew.rl.bench`; the agents :mod:`ratscrew.rl.agents`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table as RichTable

from ratscrew.cli import CommandError

QUICK_DEALS = 2
DEFAULT_DEALS = 25


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bench", help="ERS-Bench: every agent over fixed deals, both tracks, with intervals",
        description="Play every agent from every seat of fixed evaluation deals against casual "
                    "bots, per preset, table size and track (human: reactions drawn from the "
                    "agent's human profile; unlimited: it reacts when it chooses), and print "
                    "win share with a 95% interval, cards won and misslaps per game. "
                    "'ratscrew bench train AGENT --minutes N' retrains a learned agent.",
        epilog="Agents: a name (see docs/bench.md) or the path of an agent file (.npz).")
    parser.add_argument("--presets", nargs="+", default=None, metavar="PRESET",
                        help="presets, space- or comma-separated (default: all six; "
                             "--quick: classic, pagat)")
    parser.add_argument("--players", default=None,
                        help="table sizes, comma-separated (default: 2,4; --quick: 2)")
    parser.add_argument("--deals", type=int, default=None,
                        help=f"evaluation deals per cell, each played from every seat "
                             f"(default: {DEFAULT_DEALS}; --quick: {QUICK_DEALS})")
    parser.add_argument("--track", choices=["human", "unlimited", "both"], default="both",
                        help="human-limited, unlimited or both (default: both)")
    parser.add_argument("--agents", nargs="+", default=None, metavar="AGENT",
                        help="agents (names or .npz files), space- or comma-separated "
                             "(default: every built-in and shipped agent)")
    parser.add_argument("--quick", action="store_true",
                        help="a small run for tests: few deals, two presets, 2 players")
    parser.add_argument("--json", action="store_true", help="print the results as one JSON object")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="also write bench.json and bench.md (the table) to DIR")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes (default: one per core)")
    parser.add_argument("--no-progress", action="store_true", help="do not show a progress bar")
    parser.set_defaults(run=run)
    train = subparsers.add_parser(
        "bench-train", help="retrain an ERS-Bench agent (ratscrew bench train AGENT)",
        description="Retrain a learned agent (tabular or ppo) on 2-seat classic against a "
                    "casual bot at casual reaction times. The same --seed and number of "
                    "episodes give the same file; --minutes is a budget, and the file records "
                    "how many episodes it reached.")
    train.add_argument("agent", help="tabular or ppo")
    budget = train.add_mutually_exclusive_group(required=True)
    budget.add_argument("--minutes", type=float, help="train for about this long")
    budget.add_argument("--episodes", type=int, help="train for exactly this many episodes")
    train.add_argument("--seed", type=int, default=0, help="training seed (default: 0)")
    train.add_argument("--out", type=Path, default=None,
                       help="the agent file to write (default: AGENT.npz here)")
    train.set_defaults(run=run_train)


def _split(values: Sequence[str] | None) -> list[str]:
    return [part for value in values or () for part in value.split(",") if part.strip()]


def _players(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"--players takes table sizes like 2,4, got {text!r}") from None
    if not sizes or any(not 2 <= size <= 8 for size in sizes):
        raise ValueError(f"--players takes table sizes from 2 to 8, got {text!r}")
    return sizes


def plan(args: argparse.Namespace) -> tuple[list[Any], int, list[str], list[str]]:
    """The jobs the options ask for, checked: (jobs, deals, tracks, agents)."""
    from ratscrew.rl import agents as agent_files
    from ratscrew.rl.bench import PRESETS, QUICK_PRESETS, Job
    from ratscrew.ruleset import Ruleset

    presets = _split(args.presets) or list(QUICK_PRESETS if args.quick else PRESETS)
    for preset in presets:
        Ruleset.load(preset)  # an unknown one is a clear error now, not in a worker
    sizes = _players(args.players) if args.players else ([2] if args.quick else [2, 4])
    deals = args.deals if args.deals is not None else (QUICK_DEALS if args.quick else DEFAULT_DEALS)
    if deals < 1:
        raise ValueError("--deals must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise ValueError("--workers must be at least 1")
    tracks = ["human", "unlimited"] if args.track == "both" else [args.track]
    names = _split(args.agents) or agent_files.names()
    for name in names:
        agent_files.load(name)  # an unknown agent or a bad file is a clear error now
    jobs: list[Any] = []
    for name in names:
        for preset in presets:
            rules = Ruleset.load(preset)
            for players in sizes:
                if players > rules.max_players:
                    raise ValueError(f"{preset} allows at most {rules.max_players} players")
                jobs.extend(Job(name, preset, players, track, deals) for track in tracks)
    return jobs, deals, tracks, names


def run(args: argparse.Namespace) -> int:
    from ratscrew.rl.agents import AgentFileError
    from ratscrew.rl.bench import job_cost, run_job

    try:
        jobs, deals, tracks, names = plan(args)
    except AgentFileError as error:
        raise CommandError(str(error)) from None
    workers = args.workers or os.cpu_count() or 1
    total = sum(job.deals * job.players for job in jobs)
    show = not args.no_progress and sys.stderr.isatty()
    rows: dict[int, dict[str, Any]] = {}
    started = time.perf_counter()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("games"), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True, disable=not show) as bar:
        task = bar.add_task("ERS-Bench", total=total)
        order = sorted(range(len(jobs)), key=lambda i: -job_cost(jobs[i]))
        if workers == 1 or len(jobs) == 1:
            for index in order:
                rows[index] = run_job(jobs[index])
                bar.advance(task, jobs[index].deals * jobs[index].players)
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                futures = {pool.submit(run_job, jobs[index]): index for index in order}
                for future in as_completed(futures):
                    index = futures[future]
                    rows[index] = future.result()
                    bar.advance(task, jobs[index].deals * jobs[index].players)
    seconds = time.perf_counter() - started
    result = {"deals": deals, "tracks": tracks, "rows": [rows[i] for i in range(len(jobs))],
              "field": "casual", "seconds": round(seconds, 1), "workers": workers}
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "bench.json").write_text(json.dumps(result, indent=1) + "\n")
        (args.out / "bench.md").write_text(markdown_table(result, names) + "\n")
    if args.json:
        print(json.dumps(result))
    else:
        print_table(result, names)
    return 0


def _columns(rows: list[dict[str, Any]]) -> list[tuple[str, int, str]]:
    seen: dict[tuple[str, int, str], None] = {}
    for row in rows:
        seen.setdefault((row["preset"], row["players"], row["track"]), None)
    return list(seen)


def _cell(row: dict[str, Any] | None) -> str:
    if row is None:
        return ""
    return f"{row['win_share']:.2f} ({row['low']:.2f}-{row['high']:.2f})"


def _label(preset: str, players: int, track: str, reaction: str | None) -> str:
    hand = f"human ({reaction})" if track == "human" else "unlimited"
    return f"{preset} {players}p {hand}"


def markdown_table(result: dict[str, Any], names: Sequence[str]) -> str:
    """The table as Markdown: one row per agent, one column per preset x size x track (win
    share and 95% interval), then cards won and misslaps per game below."""
    rows = result["rows"]
    columns = _columns(rows)
    index = {(r["agent"], r["preset"], r["players"], r["track"]): r for r in rows}
    reaction = {r["agent"]: r["reaction"] for r in rows if r["track"] == "human"}
    lines = []
    for title, fmt in (("win share (95% interval)", _cell),
                       ("cards won / misslaps per game",
                        lambda r: "" if r is None else
                        f"{r['cards_per_game']:.0f} / {r['misslaps_per_game']:.1f}")):
        header = ["agent", *(_label(p, n, t, "casual") for p, n, t in columns)]
        lines.append(f"**{title}**, {result['deals']} deals x every seat per cell\n")
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for name in dict.fromkeys(r["agent"] for r in rows):
            label = name if reaction.get(name) in (None, "casual") else f"{name} [{reaction[name]}]"
            cells = [fmt(index.get((name, p, n, t))) for p, n, t in columns]
            lines.append("| " + " | ".join([label, *cells]) + " |")
        lines.append("")
    return "\n".join(lines)


def print_table(result: dict[str, Any], names: Sequence[str]) -> None:
    """The table on the terminal (rich)."""
    console = Console()
    rows = result["rows"]
    columns = _columns(rows)
    index = {(r["agent"], r["preset"], r["players"], r["track"]): r for r in rows}
    table = RichTable(title=f"ERS-Bench: win share (95% interval) against casual bots, "
                            f"{result['deals']} deals x every seat, {result['seconds']} s")
    table.add_column("agent")
    for preset, players, track in columns:
        table.add_column(_label(preset, players, track, "casual"), justify="right")
    for name in dict.fromkeys(r["agent"] for r in rows):
        table.add_row(name, *(_cell(index.get((name, p, n, t))) for p, n, t in columns))
    console.print(table)


def run_train(args: argparse.Namespace) -> int:
    from ratscrew.rl.train import TRAINABLE, TrainOptions, train

    if args.agent not in TRAINABLE:
        raise CommandError(f"cannot train {args.agent!r}: choose one of {', '.join(TRAINABLE)}")
    if args.minutes is not None and args.minutes <= 0:
        raise ValueError("--minutes must be more than 0")
    if args.episodes is not None and args.episodes < 1:
        raise ValueError("--episodes must be at least 1")
    options = TrainOptions(seed=args.seed, episodes=args.episodes, minutes=args.minutes)
    agent = train(args.agent, options, lambda line: print(line, file=sys.stderr, flush=True))
    path = agent.save(args.out or Path(f"{args.agent}.npz"))
    print(f"wrote {path}: {agent.spec.info['episodes']} episodes; reproduce with: "
          f"{agent.spec.info['command']}")
    return 0
