"""``ratscrew rules list`` and ``ratscrew rules show NAME``: the rulesets, in plain English."""

from __future__ import annotations

import argparse
from typing import Any

from ratscrew.rulebook import explain
from ratscrew.ruleset import Ruleset


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rules", help="list the rule presets or show one in plain English",
        description="List the shipped rule presets, or print one ruleset as rules a player can "
                    "read at the table.")
    actions = parser.add_subparsers(dest="rules_action", metavar="ACTION")
    actions.add_parser("list", help="the presets, one line each").set_defaults(run=run_list)
    show = actions.add_parser("show", help="one ruleset in plain English",
                              description="Print a preset (or a TOML ruleset file) in plain English.")
    show.add_argument("name", help="a preset name or the path of a TOML ruleset file")
    show.add_argument("--toml", action="store_true", help="print the settings as TOML instead")
    show.set_defaults(run=run_show)
    parser.set_defaults(run=run_list)


def run_list(args: argparse.Namespace) -> int:
    width = max(len(name) for name in Ruleset.presets())
    for name in Ruleset.presets():
        print(f"{name:<{width}}  {Ruleset.preset(name).summary}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    rules = Ruleset.load(args.name)
    if args.toml:
        print(rules.to_toml(), end="")
        return 0
    print(f"{rules.name}: {rules.summary}".rstrip(": "))
    for line in explain(rules):
        print(line if line.startswith("-") else f"\n{line}")
    return 0
