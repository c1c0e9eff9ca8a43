"""``ratscrew replay FILE``: step through a saved game record, forward and back.

The record is checked (read, parsed and replayed through the engine) before the screen opens;
``--text`` prints the narrated game instead of opening it.
"""

from __future__ import annotations

import argparse
from typing import Any

from ratscrew.history import replay_steps
from ratscrew.tui.replay import load_record, record_names, step_lines, visible_steps


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay", help="step through a saved game record, forward and back",
        description="Open a game record saved by 'ratscrew play' (or Game.to_record()) and step "
                    "through it: right/left one step, PgUp/PgDn ten, [ and ] from pile to pile, "
                    "Home/End, q to quit.")
    parser.add_argument("file", help="the record, a JSON file")
    parser.add_argument("--step", type=int, default=0, help="open at this step (default: the deal)")
    parser.add_argument("--colour-blind", "--color-blind", dest="colour_blind", action="store_true",
                        help="four-colour cards with suit letters")
    parser.add_argument("--text", action="store_true",
                        help="print the narrated game instead of opening the viewer")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    record = load_record(args.file)
    steps = visible_steps(replay_steps(record))  # a record that does not replay stops here
    if args.text:
        for line in step_lines(steps, record_names(record, len(record["hands"]))):
            print(line)
        return 0
    from ratscrew.tui.replay import ReplayApp

    ReplayApp(record, colour_blind=args.colour_blind, start=args.step).run()
    return 0
