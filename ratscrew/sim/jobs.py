"""What one worker of a simulation does: the job description every backend runs.

A run is split into `Batch` slices of game indices; a worker plays a slice with
:func:`run_batch`, on the reference engine (:func:`play_reference_game`) or the compiled kernel.
The runner (:mod:`ratscrew.sim.runner`) splits runs and chooses the backend; the backends
(local processes, :mod:`ratscrew.sim.ray_backend`) import this module and never the runner, so
the layering reads one way: ``jobs <- backends <- runner``.

>>> Batch(0, 3).seeds(run_seed=1) == [game_seed(1, i) for i in range(3)]
True
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ratscrew.bots.agent import BotAgent
from ratscrew.bots.profile import BotProfile
from ratscrew.bots.spec import is_agent_spec
from ratscrew.engine import Game
from ratscrew.events import Event, Misslap, SlapWon
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import Agent, Table
from ratscrew.sim.summary import GameSummary, game_seed

DEFAULT_MAX_CARDS = 20_000
"""A game still going after this many cards is stopped and reported ``unfinished``."""


def bot_rng(seed: int, seat: int) -> random.Random:
    """The random generator of the bot at ``seat`` in the game dealt with ``seed``."""
    return random.Random(seed * 16 + seat + 1)


def _seat_agent(rules: Ruleset, profile: BotProfile, seed: int, seat: int,
                players: int) -> Agent:
    """The bot of ``profile``, or the saved agent an ``agent:NAME`` stand-in names
    (:mod:`ratscrew.rl.agents`: a tick policy or a bot profile, held to its human reaction
    profile)."""
    if is_agent_spec(profile.name):
        from ratscrew.rl.agents import seat_agent

        return seat_agent(profile, rules, players, bot_rng(seed, seat).getrandbits(32))
    return BotAgent(profile, rng=bot_rng(seed, seat))


def play_reference_game(rules: Ruleset, profiles: Sequence[BotProfile], seed: int,
                        max_cards: int = DEFAULT_MAX_CARDS) -> GameSummary:
    """Deal with ``seed`` and play one game between bots on the reference engine (a `Table`
    under the virtual clock)."""
    players = len(profiles)
    game = Game.deal(rules, players=players, seed=seed)
    agents = [_seat_agent(rules, profile, seed, seat, players) for seat, profile in enumerate(profiles)]
    slaps = [0] * players
    misslaps = [0] * players

    def count(events: Sequence[Event]) -> None:
        for event in events:
            if isinstance(event, SlapWon) and event.pattern != "claim" and event.seat is not None:
                slaps[event.seat] += 1
            elif isinstance(event, Misslap) and event.seat is not None:
                misslaps[event.seat] += 1

    table = Table(game, agents, max_cards=max_cards, keep_events=False)
    table.add_listener(count)
    table.run_virtual()
    return GameSummary(
        seed=seed, players=players, winner=game.winner,
        end_reason=game.end_reason if game.over and game.end_reason else "unfinished",
        cards_played=game.cards_played, tricks=game.tricks, duration_ms=game.now,
        slaps_won=tuple(slaps), misslaps=tuple(misslaps))


def load_kernel_module() -> object | None:
    """The compiled kernel's module, or ``None`` where it cannot be imported."""
    try:
        return importlib.import_module("ratscrew.sim.kernel")
    except ImportError:
        return None


def run_games(rules: Ruleset, profiles: Sequence[BotProfile], seeds: Sequence[int],
              engine: str = "reference", max_cards: int = DEFAULT_MAX_CARDS) -> list[GameSummary]:
    """Play one game per seed on the chosen engine, in order (one worker's share of a run)."""
    if engine == "kernel":
        module = load_kernel_module()
        run_kernel: Callable[..., list[GameSummary]] = getattr(module, "run_kernel_games")  # noqa: B009
        return list(run_kernel(rules, tuple(profiles), list(seeds), max_cards=max_cards))
    return [play_reference_game(rules, profiles, seed, max_cards) for seed in seeds]


@dataclass(frozen=True)
class Batch:
    """A contiguous slice of a run's games: indices ``start`` to ``stop - 1``."""

    start: int
    stop: int

    def seeds(self, run_seed: int) -> list[int]:
        """The game seeds of this slice."""
        return [game_seed(run_seed, i) for i in range(self.start, self.stop)]


def run_batch(rules: Ruleset, profiles: tuple[BotProfile, ...], seeds: list[int], engine: str,
              max_cards: int) -> list[GameSummary]:
    """One batch of a run: the games of ``seeds``, in order (what every backend runs)."""
    return run_games(rules, profiles, seeds, engine, max_cards)
