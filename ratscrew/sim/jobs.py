"""What one worker of a simulation does: the job description every backend runs.

A run is split into `Batch` slices of game indices; a worker plays a slice with
:func:`run_batch`, on the reference driver (:func:`ratscrew.sim.reference.run_reference_game`)
or the compiled kernel.
The runner (:mod:`ratscrew.sim.runner`) splits runs and chooses the backend; the backends
(local processes, :mod:`ratscrew.sim.ray_backend`) import this module and never the runner, so
the layering reads one way: ``jobs <- backends <- runner``.

>>> Batch(0, 3).seeds(run_seed=1) == [game_seed(1, i) for i in range(3)]
True
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ratscrew.bots.profile import BotProfile
from ratscrew.ruleset import Ruleset
from ratscrew.sim.reference import DEFAULT_MAX_CARDS, run_reference_game
from ratscrew.sim.summary import GameSummary, game_seed


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
    return [run_reference_game(rules, profiles, seed, max_cards) for seed in seeds]


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
