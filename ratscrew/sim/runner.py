"""Running many games between bots: one game on the reference engine, batches on local cores or
on the compiled kernel, and the seeding that makes results independent of how work is split.

Game ``i`` of a run seeded ``S`` is dealt with ``game_seed(S, i)`` and its bots draw from
generators seeded from that game seed and their seat, so a game's result depends only on
``(rules, profiles, S, i)``: one worker or twenty, local processes or a Ray cluster, the
summaries are identical and come back in game order.

>>> from ratscrew.bots.profile import LEVELS
>>> from ratscrew.ruleset import Ruleset
>>> summary = play_reference_game(Ruleset.preset("classic"), (LEVELS["expert"],) * 2, seed=5)
>>> summary.winner in (0, 1), summary.end_reason
(True, 'all_cards')
"""

from __future__ import annotations

import importlib
import os
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Literal

from ratscrew.bots.agent import BotAgent
from ratscrew.bots.profile import BotProfile
from ratscrew.engine import Game
from ratscrew.events import Event, Misslap, SlapWon
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import Table
from ratscrew.sim.summary import GameSummary, game_seed

EngineChoice = Literal["auto", "reference", "kernel"]
DEFAULT_MAX_CARDS = 20_000
"""A game still going after this many cards is stopped and reported ``unfinished``."""

Progress = Callable[[int], object]
"""Called with the number of games just finished."""


class KernelUnavailableError(RuntimeError):
    """``--engine kernel`` was asked for but the kernel cannot run these rules or bots."""


def bot_rng(seed: int, seat: int) -> random.Random:
    """The random generator of the bot at ``seat`` in the game dealt with ``seed``."""
    return random.Random(seed * 16 + seat + 1)


def play_reference_game(rules: Ruleset, profiles: Sequence[BotProfile], seed: int,
                        max_cards: int = DEFAULT_MAX_CARDS) -> GameSummary:
    """Deal with ``seed`` and play one game between bots on the reference engine (a `Table`
    under the virtual clock)."""
    players = len(profiles)
    game = Game.deal(rules, players=players, seed=seed)
    agents = [BotAgent(profile, rng=bot_rng(seed, seat)) for seat, profile in enumerate(profiles)]
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


def _kernel_module() -> object | None:
    try:
        return importlib.import_module("ratscrew.sim.kernel")
    except ImportError:
        return None


def kernel_can_run(rules: Ruleset, profiles: Sequence[BotProfile]) -> bool:
    """True when the compiled kernel exists and says it models these rules and bots exactly."""
    module = _kernel_module()
    supports = getattr(module, "kernel_supports", None)
    if supports is None or not hasattr(module, "run_kernel_games"):
        return False
    return bool(supports(rules, tuple(profiles)))


def choose_engine(engine: EngineChoice, rules: Ruleset, profiles: Sequence[BotProfile]) -> str:
    """``reference`` or ``kernel`` for a run: ``auto`` takes the kernel when it can."""
    if engine == "reference":
        return "reference"
    if kernel_can_run(rules, profiles):
        return "kernel"
    if engine == "kernel":
        raise KernelUnavailableError(
            "the compiled kernel cannot run these rules or bots; use --engine auto or reference")
    return "reference"


def run_games(rules: Ruleset, profiles: Sequence[BotProfile], seeds: Sequence[int],
              engine: str = "reference", max_cards: int = DEFAULT_MAX_CARDS) -> list[GameSummary]:
    """Play one game per seed on the chosen engine, in order (one worker's share of a run)."""
    if engine == "kernel":
        module = _kernel_module()
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


def batches(games: int, workers: int, per_batch: int | None = None) -> list[Batch]:
    """Split ``games`` into slices small enough to keep ``workers`` busy and a progress bar
    moving.

    >>> batches(10, 2, per_batch=4)
    [Batch(start=0, stop=4), Batch(start=4, stop=8), Batch(start=8, stop=10)]
    """
    size = per_batch or max(1, min(100, games // max(1, workers * 8)))
    return [Batch(i, min(i + size, games)) for i in range(0, games, size)]


def _run_batch(rules: Ruleset, profiles: tuple[BotProfile, ...], seeds: list[int], engine: str,
               max_cards: int) -> list[GameSummary]:
    return run_games(rules, profiles, seeds, engine, max_cards)


def default_workers() -> int:
    """One worker per local core."""
    return max(1, os.cpu_count() or 1)


def simulate(
    rules: Ruleset,
    profiles: Sequence[BotProfile],
    games: int,
    seed: int,
    *,
    workers: int | None = None,
    engine: EngineChoice = "auto",
    backend: Literal["local", "ray"] = "local",
    address: str | None = None,
    max_cards: int = DEFAULT_MAX_CARDS,
    progress: Progress | None = None,
    status: Callable[[str], object] | None = None,
) -> tuple[list[GameSummary], str]:
    """Play ``games`` seeded games; returns their summaries in game order and the engine used.

    ``workers=1`` runs in this process; more use a process pool (or Ray with
    ``backend="ray"``). The result is the same for any worker count or backend. ``status``
    is told what the run is doing before the games start (compiling the kernel can take a
    minute the first time), and ``""`` once they do.
    """
    if games < 1:
        raise ValueError("--games must be at least 1")
    if len(profiles) < 2:
        raise ValueError("a game needs at least two players")
    if len(profiles) > rules.max_players:
        raise ValueError(f"{len(profiles)} players is more than the {rules.max_players} "
                         f"that {rules.name} allows")
    chosen = choose_engine(engine, rules, profiles)
    profiles = tuple(profiles)
    if chosen == "kernel":
        # Compile once here (or load numba's cache) so workers do not each compile.
        warm_up = getattr(_kernel_module(), "warm_up", None)
        if callable(warm_up):
            if status is not None:
                status("loading the compiled kernel (the first run compiles it: about a minute)")
            warm_up()
            if status is not None:
                status("")
    workers = workers or default_workers()
    parts = batches(games, workers)
    results: dict[int, list[GameSummary]] = {}
    if backend == "ray":
        from ratscrew.sim.ray_backend import run_batches_on_ray

        for batch, summaries in run_batches_on_ray(rules, profiles, parts, seed, chosen, max_cards,
                                                   address=address):
            results[batch.start] = summaries
            if progress is not None:
                progress(len(summaries))
    elif workers == 1 or len(parts) == 1:
        for batch in parts:
            results[batch.start] = _run_batch(rules, profiles, batch.seeds(seed), chosen, max_cards)
            if progress is not None:
                progress(batch.stop - batch.start)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_run_batch, rules, profiles, batch.seeds(seed), chosen,
                                   max_cards): batch for batch in parts}
            for future in as_completed(futures):
                batch = futures[future]
                results[batch.start] = future.result()
                if progress is not None:
                    progress(batch.stop - batch.start)
    ordered = [summary for start in sorted(results) for summary in results[start]]
    return ordered, chosen
