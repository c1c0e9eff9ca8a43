"""The ``ratscrew`` command line: a thin dispatcher over the command modules.

Each module in :mod:`ratscrew.commands` defines ``register(subparsers)``, adding its own
sub-command with ``set_defaults(run=...)``; ``run(args)`` returns the exit status. Bad input is
reported in one line on stderr with exit status 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

import ratscrew.commands
from ratscrew.cards import CardNotationError
from ratscrew.ruleset import RulesetError


class CommandError(Exception):
    """A user-facing error: printed as ``ratscrew: error: <message>`` with exit status 2."""


ALIASES = {("bmn", "search"): "bmn-search", ("sim", "sweep"): "sim-sweep",
           ("bench", "train"): "bench-train"}
"""Two-word commands that are registered under one hyphenated name."""

_BMN_OPTIONS = ("-h", "--help", "--json")


def _is_bmn_option(argument: str) -> bool:
    """Whether a word after ``ratscrew bmn`` is one of its options rather than a deal string.

    >>> _is_bmn_option("--json"), _is_bmn_option("---AJ--Q"), _is_bmn_option("--A-X")
    (True, False, False)
    """
    return argument in _BMN_OPTIONS


def build_parser() -> argparse.ArgumentParser:
    """The parser with every command module's sub-command registered."""
    parser = argparse.ArgumentParser(
        prog="ratscrew",
        description="Egyptian Rat Screw: play, watch, judge and simulate under any house rules.",
        epilog="Run 'ratscrew COMMAND --help' for the options of one command.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(ratscrew.commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"ratscrew.commands.{info.name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ratscrew`` console script."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    alias = ALIASES.get(tuple(args_list[:2]))  # type: ignore[arg-type]
    if alias is not None:
        args_list = [alias, *args_list[2:]]
    if args_list[:1] == ["bmn"]:
        # Deal strings start with '-', which argparse would take for options: everything that
        # is not one of bmn's own options is a deal, so a typo in one is reported as a typo
        # in the deal (not as a missing hand2).
        deals = [a for a in args_list[1:] if not _is_bmn_option(a)]
        others = [a for a in args_list[1:] if _is_bmn_option(a)]
        args_list = ["bmn", *others, "--", *deals]
    parser = build_parser()
    args = parser.parse_args(args_list)
    if getattr(args, "run", None) is None:
        parser.print_help()
        return 2
    try:
        status: int = args.run(args)
        return status
    except BrokenPipeError:  # the reader went away (e.g. piped into head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (CommandError, RulesetError, CardNotationError, ValueError, OSError) as error:
        print(f"ratscrew: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130



if __name__ == "__main__":
    sys.exit(main())
