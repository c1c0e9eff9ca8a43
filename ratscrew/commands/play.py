"""``ratscrew play``: the terminal game, against bots or with friends on one keyboard.

Every option is checked before the screen opens: an unknown preset, a broken TOML file, a key
mapped twice or too many seats for the rules stop the program with one line on stderr.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ratscrew.bots.profile import LEVELS
from ratscrew.ruleset import Ruleset
from ratscrew.tui.keys import DEFAULT_KEYS, format_key_spec, parse_key_spec
from ratscrew.tui.options import MAX_BOTS, MAX_PACE, MIN_PACE, PlayOptions, check_options


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play", help="play in the terminal against bots, or with friends on one keyboard",
        description="Play Egyptian Rat Screw in the terminal: you against bots, or 2-4 people "
                    "sharing one keyboard (each with a play key and a slap key), plus bots.",
        epilog="Default keys: " + format_key_spec(DEFAULT_KEYS) + ". In the game: Esc pause, "
               "F1 help (the rules in plain words), F2 settings, +/- bot pace, Ctrl+Q quit.")
    parser.add_argument("--rules", default="classic",
                        help="a preset (classic, northwest, pagat, ratscrew, paranoid, bmn) or "
                             "the path of a TOML ruleset file (default: classic)")
    parser.add_argument("--humans", type=int, default=1,
                        help="people sharing the keyboard, 1-4 (default: 1)")
    parser.add_argument("--bots", default=None, metavar="N|SPECS",
                        help=f"bots at the table, 0-{MAX_BOTS} (default: 3 with one person, "
                             "none with more), or one seat spec per bot, comma-separated: a "
                             "level (casual) or a saved agent (agent:sure-hand, agent:tabular, "
                             "agent:FILE.npz; docs/bench.md)")
    parser.add_argument("--level", default="casual", choices=list(LEVELS),
                        help="how good the bots are (default: casual)")
    parser.add_argument("--keys", default=None, metavar="SPEC",
                        help="players' keys, e.g. 'p1=play:space,slap:enter;p2=play:l,slap:k' "
                             "(a single character or a key name: space, enter, tab, left, "
                             "semicolon, f5)")
    parser.add_argument("--seed", type=int, default=None, help="seed for a reproducible deal")
    parser.add_argument("--pace", type=float, default=1.0,
                        help=f"how fast bots play their cards, {MIN_PACE}-{MAX_PACE} times their "
                             "usual pace (default: 1)")
    parser.add_argument("--colour-blind", "--color-blind", dest="colour_blind", action="store_true",
                        help="four-colour cards with suit letters")
    parser.add_argument("--record-dir", type=Path, default=Path("."),
                        help="where the end screen saves game records (default: here)")
    parser.set_defaults(run=run)


def options_from_args(args: argparse.Namespace) -> PlayOptions:
    """Build and check the game's options; any problem raises a `ValueError` with a message
    fit for the command line."""
    rules = Ruleset.load(args.rules)
    bots, specs = bot_seats(args.bots, args.humans)
    humans = args.humans
    if not 1 <= humans <= len(DEFAULT_KEYS):
        raise ValueError(f"--humans must be between 1 and {len(DEFAULT_KEYS)}, not {humans}")
    options = PlayOptions(rules=rules, humans=humans, bots=bots, level=args.level, bot_specs=specs,
                          keys=parse_key_spec(args.keys, humans), seed=args.seed, pace=args.pace,
                          colour_blind=args.colour_blind, record_dir=args.record_dir)
    check_options(options)
    return options


def bot_seats(text: str | None, humans: int) -> tuple[int, tuple[str, ...]]:
    """``--bots``: a number of bots of ``--level``, or one seat spec per bot (a level or
    ``agent:NAME``). Returns the number and the specs (empty: every bot is ``--level``)."""
    if text is None:
        return (3 if humans == 1 else 0), ()
    if text.strip().lstrip("-").isdigit():
        return int(text), ()
    specs = tuple(part.strip() for part in text.split(",") if part.strip())
    if not specs:
        raise ValueError("--bots takes a number or seat specs like casual,agent:sure-hand")
    return len(specs), specs


def run(args: argparse.Namespace) -> int:
    options = options_from_args(args)
    from ratscrew.tui.app import PlayApp  # Textual is imported only once the options are good

    app = PlayApp(options)
    app.run()
    if app.saved_record is not None:
        print(f"Game record saved to {app.saved_record}; replay it with: "
              f"ratscrew replay {app.saved_record}")
    return 0
