"""``ratscrew bmn HAND1 HAND2``: play a Beggar-my-neighbour deal in record notation."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ratscrew.bmn import play_bmn


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bmn", help="play a Beggar-my-neighbour deal (or: bmn search)",
        description="Play one Beggar-my-neighbour deal written in record notation: one string "
                    "of 26 per hand, '-' for a number card and J Q K A for face cards, top card "
                    "first; hand 1 leads. Prints cards played, tricks and the winner, or that "
                    "the deal cycles forever. To search random deals for long games, run "
                    "'ratscrew bmn search --help'.",
        epilog="example: ratscrew bmn ---AJ--Q---------QAKQJJ-QK -----A----KJ-K--------A---")
    parser.add_argument("hand1", help="hand 1 (leads), top card first")
    parser.add_argument("hand2", help="hand 2, top card first")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    result = play_bmn(args.hand1, args.hand2)
    if args.json:
        print(json.dumps(result.to_dict()))
    elif result.cycle:
        print(f"cycle: the deal never ends (first repeated state after {result.cards} cards, "
              f"{result.tricks} tricks)")
    else:
        print(f"{result.cards} cards, {result.tricks} tricks: hand {result.winner} wins")
    return 0
