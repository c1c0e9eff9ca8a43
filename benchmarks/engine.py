"""Reference-engine speed: complete random 4-player games per second, for every preset.

Games are played by the simple built-in players of :mod:`ratscrew.playout` under a virtual
clock, on one core. Run: ``.venv/bin/python benchmarks/engine.py [--games N] [--players P]``.

``us/action`` is the whole run per accepted action (``advance`` included), the simple players'
own work included; ``engine us/action`` replays the same games' actions on fresh deals through
the public ``play``/``slap``/``resign``/``advance`` calls, so it is the engine's share alone.
"""

from __future__ import annotations

import argparse
import platform
import time

from ratscrew.engine import Game
from ratscrew.playout import play_simple_game
from ratscrew.ruleset import Ruleset

Action = tuple[str, int | None, int]


def measure(preset: str, players: int, games: int) -> tuple[float, float, float, float, float]:
    """Games/s, card plays/s, mean cards per game, microseconds per action with the players,
    and microseconds per action of the engine alone, for ``games`` seeded games."""
    rules = Ruleset.preset(preset)
    cards = 0
    played: list[tuple[int, list[Action]]] = []
    start = time.perf_counter()
    for seed in range(games):
        game, _ = play_simple_game(rules, players=players, seed=seed)
        cards += game.cards_played
        played.append((seed, game.actions_since(0)))
    elapsed = time.perf_counter() - start
    actions = sum(len(taken) for _, taken in played)
    return (games / elapsed, cards / elapsed, cards / games, elapsed / actions * 1e6,
            replay(rules, players, played) / actions * 1e6)


def replay(rules: Ruleset, players: int, played: list[tuple[int, list[Action]]]) -> float:
    """Seconds to deal and replay every game's actions, engine calls only."""
    start = time.perf_counter()
    for seed, taken in played:
        game = Game.deal(rules, players=players, seed=seed)
        for kind, seat, at in taken:
            if seat is None:
                game.advance(at)
            elif kind == "play":
                game.play(seat, at)
            elif kind == "slap":
                game.slap(seat, at)
            else:
                game.resign(seat, at)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per preset (default 100)")
    parser.add_argument("--players", type=int, default=4, help="players per game (default 4)")
    args = parser.parse_args()
    print(f"benchmarks/engine.py --games {args.games} --players {args.players}"
          f"  ({platform.python_implementation()} {platform.python_version()}, one core)")
    print(f"{'preset':<10} {'games/s':>9} {'cards/s':>10} {'cards/game':>11} {'us/action':>10}"
          f" {'engine us/action':>17}")
    for preset in Ruleset.presets():
        games_per_s, cards_per_s, mean_cards, us_action, engine_us = measure(
            preset, args.players, args.games)
        print(f"{preset:<10} {games_per_s:>9.1f} {cards_per_s:>10.0f} {mean_cards:>11.1f}"
              f" {us_action:>10.2f} {engine_us:>17.2f}")


if __name__ == "__main__":
    main()
