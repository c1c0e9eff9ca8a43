"""``ratscrew judge``: is this pile slappable under these rules, and by which pattern?"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ratscrew.cards import format_cards, parse_cards
from ratscrew.patterns import PATTERN_DESCRIPTIONS, find_slap
from ratscrew.ruleset import Ruleset


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "judge", help="say whether a pile can be slapped, and why",
        description="Judge a pile, given bottom to top in card notation (7H, TD, QS, JK for a "
                    "joker). Burned cards are not part of the pile: leave them out.",
        epilog="example: ratscrew judge --rules classic 7H 3C 7S")
    parser.add_argument("cards", nargs="+", metavar="CARD", help="the pile, bottom card first")
    parser.add_argument("--rules", default="classic",
                        help="a preset name or a TOML ruleset file (default: classic)")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rules = Ruleset.load(args.rules)
    pile = parse_cards(" ".join(args.cards))
    pattern = find_slap(pile, rules.slaps, rules.pattern_options)
    if pattern is not None:
        reason = PATTERN_DESCRIPTIONS[pattern]
    elif not rules.slaps:
        reason = f"the {rules.title} allow no slaps"
    else:
        reason = "none of these patterns shows: " + ", ".join(rules.slaps)
    if args.json:
        print(json.dumps({"rules": rules.name, "pile": format_cards(pile),
                          "slappable": pattern is not None, "pattern": pattern, "reason": reason}))
    elif pattern is not None:
        print(f"slappable: {pattern} ({reason})")
    else:
        print(f"not slappable: {reason}")
    return 0
