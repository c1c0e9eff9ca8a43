"""Running many games between bots: one game on the reference engine, batches on local cores or
on the compiled kernel, and the seeding that makes results independent of how work is split.

Game ``i`` of a run seeded ``S`` is dealt with ``game_seed(S, i)`` and its bots draw from
generators seeded from that game seed and their seat, so a game's result depends only on
``(rules, profiles, S, i)``: one worker or twenty, local processes or a Ray cluster, the
summaries are identical and come back in game order.

>>> from ratscrew.bots.profile import LEVELS
>>> from ratscrew.ruleset import Ruleset
>>> summaries, engine = simulate(Ruleset.preset("classic"), (LEVELS["expert"],) * 2, games=2,
...                              seed=5, workers=1, engine="reference")
>>> [summary.end_reason for summary in summaries], engine
(['all_cards', 'all_cards'], 'reference')
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Literal

from ratscrew.bots.profile import BotProfile
from ratscrew.bots.spec import is_agent_spec
from ratscrew.ruleset import Ruleset
from ratscrew.sim.jobs import Batch, load_kernel_module, run_batch, run_games
from ratscrew.sim.reference import DEFAULT_MAX_CARDS
from ratscrew.sim.summary import GameSummary

__all__ = ["DEFAULT_MAX_CARDS", "Batch", "CardsPlayed", "EngineChoice", "KernelUnavailableError", "batches",
           "choose_engine", "default_workers", "kernel_can_run", "run_games", "simulate"]

EngineChoice = Literal["auto", "reference", "kernel"]
Progress = Callable[[int], object]
"""Called with the number of games just finished."""
CardsPlayed = Callable[[int], object]
"""Called with the cards a batch of games played (every card laid on the pile), as the batch
finishes: what a caller counts to bound a run's cost (raising stops the run)."""


class KernelUnavailableError(RuntimeError):
    """``--engine kernel`` was asked for but the kernel cannot run these rules or bots."""


def kernel_can_run(rules: Ruleset, profiles: Sequence[BotProfile]) -> bool:
    """True when the compiled kernel exists and says it models these rules and bots exactly."""
    if any(is_agent_spec(profile.name) for profile in profiles):
        return False  # a saved agent (agent:NAME) plays on the reference engine only
    module = load_kernel_module()
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


def batches(games: int, workers: int, per_batch: int | None = None) -> list[Batch]:
    """Split ``games`` into slices small enough to keep ``workers`` busy and a progress bar
    moving.

    >>> batches(10, 2, per_batch=4)
    [Batch(start=0, stop=4), Batch(start=4, stop=8), Batch(start=8, stop=10)]
    """
    size = per_batch or max(1, min(100, games // max(1, workers * 8)))
    return [Batch(i, min(i + size, games)) for i in range(0, games, size)]


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
    cards: CardsPlayed | None = None,
) -> tuple[list[GameSummary], str]:
    """Play ``games`` seeded games; returns their summaries in game order and the engine used.

    ``workers=1`` runs in this process; more use a process pool (or Ray with
    ``backend="ray"``). The result is the same for any worker count or backend. ``status``
    is told what the run is doing before the games start (compiling the kernel can take a
    minute the first time), and ``""`` once they do. ``cards`` is told the cards each batch
    played, after ``progress``; an exception from either stops the run.
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
        warm_up = getattr(load_kernel_module(), "warm_up", None)
        if callable(warm_up):
            if status is not None:
                status("loading the compiled kernel (the first run compiles it: about a minute)")
            warm_up()
            if status is not None:
                status("")
    workers = workers or default_workers()
    parts = batches(games, workers)
    results: dict[int, list[GameSummary]] = {}

    def finished(summaries: list[GameSummary]) -> None:
        if progress is not None:
            progress(len(summaries))
        if cards is not None:
            cards(sum(summary.cards_played for summary in summaries))
    if backend == "ray":
        from ratscrew.sim.ray_backend import run_batches_on_ray

        for batch, summaries in run_batches_on_ray(rules, profiles, parts, seed, chosen, max_cards,
                                                   address=address):
            results[batch.start] = summaries
            finished(summaries)
    elif workers == 1 or len(parts) == 1:
        for batch in parts:
            results[batch.start] = run_batch(rules, profiles, batch.seeds(seed), chosen, max_cards)
            finished(results[batch.start])
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(run_batch, rules, profiles, batch.seeds(seed), chosen,
                                   max_cards): batch for batch in parts}
            for future in as_completed(futures):
                batch = futures[future]
                results[batch.start] = future.result()
                finished(results[batch.start])
    ordered = [summary for start in sorted(results) for summary in results[start]]
    return ordered, chosen
