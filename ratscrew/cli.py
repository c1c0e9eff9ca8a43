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


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every command module's sub-command registered; given the ``command``
    about to run, only the module that registers it, where one does (`command_modules`).

    A command module imports what its command needs (``serve`` the server, ``play`` the
    terminal game): registering one keeps ``ratscrew serve`` from importing Textual and the
    simulator's progress bars, about a third of a second at every start. Anything else (no
    command, ``--help``, a misspelt command) gets every command, so that help and errors list
    them all.
    """
    parser = argparse.ArgumentParser(
        prog="ratscrew",
        description="Egyptian Rat Screw: play, watch, judge and simulate under any house rules.",
        epilog="Run 'ratscrew COMMAND --help' for the options of one command.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = command_modules(command) if command is not None else []
    for name in names:
        importlib.import_module(f"ratscrew.commands.{name}").register(subparsers)
    if command is not None and command in subparsers.choices:
        return parser
    if names:  # the guess registered something else: start again with every command
        return build_parser()
    for info in sorted(pkgutil.iter_modules(ratscrew.commands.__path__), key=lambda m: m.name):
        importlib.import_module(f"ratscrew.commands.{info.name}").register(subparsers)
    return parser


def command_modules(command: str) -> list[str]:
    """The command modules that may register ``command``: the module of its name (hyphens as
    underscores), and for a hyphenated one the module of its first word (``bench-train`` is
    ``bench``'s).

    >>> command_modules("sim-sweep"), command_modules("bench-train"), command_modules("nope")
    (['sim_sweep', 'sim'], ['bench'], [])
    """
    modules = {info.name for info in pkgutil.iter_modules(ratscrew.commands.__path__)}
    candidates = [command.replace("-", "_"), command.split("-", 1)[0]]
    return [name for name in dict.fromkeys(candidates) if name in modules]


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
    parser = build_parser(args_list[0] if args_list else None)
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
