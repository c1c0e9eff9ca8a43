"""``ratscrew watch``: a narrated game between simple built-in players."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ratscrew.engine import Game
from ratscrew.events import CardPlayed
from ratscrew.narrate import describe_event, seat_names
from ratscrew.playout import play_simple_game
from ratscrew.ruleset import Ruleset


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "watch", help="watch a narrated game between built-in players",
        description="Play a whole game between simple built-in players and narrate every play, "
                    "slap, penalty and challenge, and the winner.")
    parser.add_argument("--rules", default="classic",
                        help="a preset name or a TOML ruleset file (default: classic)")
    parser.add_argument("--players", type=int, default=3, help="number of players, 2-8 (default: 3)")
    parser.add_argument("--seed", type=int, default=None, help="seed for a reproducible deal")
    parser.add_argument("--delay", type=float, default=0.0,
                        help="seconds to pause after each card, to watch at table speed")
    parser.add_argument("--quiet", action="store_true", help="print only pile results and the end")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rules = Ruleset.load(args.rules)
    if not 2 <= args.players <= rules.max_players:
        raise ValueError(f"--players must be between 2 and {rules.max_players} for {rules.name}")
    seed = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    names = seat_names(args.players)
    game = Game.deal(rules, players=args.players, seed=seed)
    print(f"{rules.title}, {args.players} players, seed {seed}. "
          f"Player {game.leader + 1} leads.")
    game, events = play_simple_game(rules, args.players, seed, game=game)
    for event in events:
        if args.quiet and isinstance(event, CardPlayed):
            continue
        seconds = event.at / 1000
        print(f"[{int(seconds // 60):02d}:{seconds % 60:04.1f}] {describe_event(event, names)}")
        if args.delay and isinstance(event, CardPlayed):
            sys.stdout.flush()
            time.sleep(args.delay)
    if not game.over:
        print(f"Stopped after {game.cards_played} cards without a winner.")
    print(f"{game.cards_played} cards played, {game.tricks} piles won.")
    return 0
