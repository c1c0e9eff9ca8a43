"""Reference-engine speed: complete random 4-player games per second, for every preset.

Games are played by the simple built-in players of :mod:`ratscrew.playout` under a virtual
clock, on one core. Run: ``.venv/bin/python benchmarks/engine.py [--games N] [--players P]``.
"""

from __future__ import annotations

import argparse
import platform
import time

from ratscrew.playout import play_simple_game
from ratscrew.ruleset import Ruleset


def measure(preset: str, players: int, games: int) -> tuple[float, float, float]:
    """Games/s, card plays/s and mean cards per game for ``games`` seeded games."""
    rules = Ruleset.preset(preset)
    cards = 0
    start = time.perf_counter()
    for seed in range(games):
        game, _ = play_simple_game(rules, players=players, seed=seed)
        cards += game.cards_played
    elapsed = time.perf_counter() - start
    return games / elapsed, cards / elapsed, cards / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per preset (default 100)")
    parser.add_argument("--players", type=int, default=4, help="players per game (default 4)")
    args = parser.parse_args()
    print(f"benchmarks/engine.py --games {args.games} --players {args.players}"
          f"  ({platform.python_implementation()} {platform.python_version()}, one core)")
    print(f"{'preset':<10} {'games/s':>9} {'cards/s':>10} {'cards/game':>11}")
    for preset in Ruleset.presets():
        games_per_s, cards_per_s, mean_cards = measure(preset, args.players, args.games)
        print(f"{preset:<10} {games_per_s:>9.1f} {cards_per_s:>10.0f} {mean_cards:>11.1f}")


if __name__ == "__main__":
    main()
