"""Reference-engine speed: complete random 4-player games per second, for every preset.

Games are played by the simple built-in players of :mod:`ratscrew.playout` under a virtual
clock, on one core. Run: ``.venv/bin/python benchmarks/engine.py [--games N] [--players P]``.

``--compare DIR --rounds R`` measures another checkout side by side (say ``git worktree add
/tmp/before main``): each round runs this script once on DIR's ``ratscrew`` and once on this
tree's, in a fresh process each, alternating which goes first, and prints the medians. On a
shared, noisy machine that is the only fair before/after.

``us/action`` is the whole run per accepted action (``advance`` included), the simple players'
own work included; ``engine us/action`` replays the same games' actions on fresh deals through
the public ``play``/``slap``/``resign``/``advance`` calls, so it is the engine's share alone.
``looking games/s`` replays them once more with a ``game.observe(seat)`` before each action
(the acting seat's, the spectator's before an ``advance``), as a driver that looks at the table
before it acts does (a bot, the runtime, an RL environment): the engine's games per second
through its public API, the observation it copies included.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ratscrew.engine import Game
from ratscrew.playout import play_simple_game
from ratscrew.ruleset import Ruleset

Action = tuple[str, int | None, int]


def measure(preset: str, players: int, games: int) -> tuple[float, ...]:
    """Games/s, card plays/s, mean cards per game, microseconds per action with the players,
    microseconds per action of the engine alone, games per second of this process's CPU
    time, and games per second of a replay that observes before each action, for ``games``
    seeded games. (On a loaded machine the wall-clock figures count the
    time other processes held the core; the CPU-time one does not.)"""
    rules = Ruleset.preset(preset)
    cards = 0
    played: list[tuple[int, list[Action]]] = []
    start, cpu_start = time.perf_counter(), time.process_time()
    for seed in range(games):
        game, _ = play_simple_game(rules, players=players, seed=seed)
        cards += game.cards_played
        played.append((seed, game.actions_since(0)))
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    actions = sum(len(taken) for _, taken in played)
    return (games / elapsed, cards / elapsed, cards / games, elapsed / actions * 1e6,
            replay(rules, players, played) / actions * 1e6, games / cpu,
            games / replay(rules, players, played, look=True))


def replay(rules: Ruleset, players: int, played: list[tuple[int, list[Action]]],
           look: bool = False) -> float:
    """Seconds to deal and replay every game's actions, engine calls only; with ``look``, each
    action after an observation by its seat (the spectator's for an ``advance``)."""
    start = time.perf_counter()
    for seed, taken in played:
        game = Game.deal(rules, players=players, seed=seed)
        observe = game.observe
        for kind, seat, at in taken:
            if look:
                observe(seat)
            if seat is None:
                game.advance(at)
            elif kind == "play":
                game.play(seat, at)
            elif kind == "slap":
                game.slap(seat, at)
            else:
                game.resign(seat, at)
    return time.perf_counter() - start


COLUMNS = ("games/s", "cards/s", "cards/game", "us/action", "engine us/action", "games/cpu-s",
           "looking games/s")


def run_in(tree: Path, args: argparse.Namespace) -> dict[str, list[float]]:
    """This script's figures with the ``ratscrew`` package of ``tree``, in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run(
        [sys.executable, __file__, "--games", str(args.games), "--players", str(args.players),
         "--presets", ",".join(args.presets), "--json"],
        env=env, cwd=tree, check=True, capture_output=True, text=True).stdout
    figures: dict[str, list[float]] = json.loads(out)
    return figures


def compare(other: Path, args: argparse.Namespace) -> None:
    here = Path(__file__).resolve().parent.parent
    trees = {"before": other.resolve(), "after": here}
    runs: dict[str, list[dict[str, list[float]]]] = {name: [] for name in trees}
    for number in range(args.rounds):
        order = list(trees) if number % 2 == 0 else list(reversed(trees))
        for name in order:
            runs[name].append(run_in(trees[name], args))
        print(f"round {number + 1}: " + "  ".join(
            f"{name} {runs[name][-1][p][0]:.1f} ({runs[name][-1][p][5]:.1f} per cpu-s)"
            for name in trees for p in args.presets[:1]) + f" games/s ({args.presets[0]})",
            flush=True)
    print(f"medians of {args.rounds} interleaved rounds; before = {trees['before']}, "
          f"after = {trees['after']}")
    print(f"{'preset':<10} {'tree':<7}" + "".join(f" {c:>16}" for c in COLUMNS))
    for preset in args.presets:
        for name in trees:
            medians = [statistics.median(run[preset][i] for run in runs[name])
                       for i in range(len(COLUMNS))]
            print(f"{preset:<10} {name:<7}" + "".join(f" {m:>16.2f}" for m in medians))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per preset (default 100)")
    parser.add_argument("--players", type=int, default=4, help="players per game (default 4)")
    parser.add_argument("--presets", type=lambda text: text.split(","),
                        default=list(Ruleset.presets()),
                        help="comma-separated presets (default: all)")
    parser.add_argument("--compare", type=Path, metavar="DIR",
                        help="also measure the checkout in DIR, interleaved, and print medians")
    parser.add_argument("--rounds", type=int, default=5, help="--compare: rounds (default 5)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compare is not None:
        compare(args.compare, args)
        return
    if args.json:
        print(json.dumps({preset: measure(preset, args.players, args.games)
                          for preset in args.presets}))
        return
    print(f"benchmarks/engine.py --games {args.games} --players {args.players}"
          f"  ({platform.python_implementation()} {platform.python_version()}, one core)")
    print(f"{'preset':<10} {'games/s':>9} {'cards/s':>10} {'cards/game':>11} {'us/action':>10}"
          f" {'engine us/action':>17} {'games/cpu-s':>12} {'looking games/s':>16}")
    for preset in args.presets:
        games_per_s, cards_per_s, mean_cards, us_action, engine_us, cpu_games, looking = measure(
            preset, args.players, args.games)
        print(f"{preset:<10} {games_per_s:>9.1f} {cards_per_s:>10.0f} {mean_cards:>11.1f}"
              f" {us_action:>10.2f} {engine_us:>17.2f} {cpu_games:>12.1f} {looking:>16.1f}")


if __name__ == "__main__":
    main()
