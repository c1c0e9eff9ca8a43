"""Running a simulation's batches on a Ray cluster (``ratscrew sim --backend ray``).

Ray is an optional extra (``pip install 'ratscrew[ray]'``). Without ``--address`` a local Ray
instance is started for the run and shut down after it; with ``--address`` (``auto``, or
``HOST:PORT`` of a cluster head) the work goes to that cluster. Each batch is the same work a
local process would do, with the same game seeds, so results are identical to a local run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ratscrew.bots.profile import BotProfile
from ratscrew.ruleset import Ruleset
from ratscrew.sim.jobs import Batch, run_batch
from ratscrew.sim.summary import GameSummary


class RayUnavailableError(RuntimeError):
    """Ray is not installed."""


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailableError(
            "--backend ray needs Ray: pip install 'ratscrew[ray]'") from None
    return ray


def run_batches_on_ray(
    rules: Ruleset,
    profiles: tuple[BotProfile, ...],
    parts: list[Batch],
    run_seed: int,
    engine: str,
    max_cards: int,
    address: str | None = None,
    num_cpus: int | None = None,
) -> Iterator[tuple[Batch, list[GameSummary]]]:
    """Run every batch as a Ray task; yields each batch with its summaries as it finishes."""
    ray = _import_ray()
    started_here = not ray.is_initialized()
    if started_here:
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                   "configure_logging": False}
        if address is not None:
            options["address"] = address
        elif num_cpus is not None:
            options["num_cpus"] = num_cpus
        ray.init(**options)
    try:
        play = ray.remote(run_batch)
        rules_ref = ray.put(rules)
        refs = {play.remote(rules_ref, profiles, batch.seeds(run_seed), engine, max_cards): batch
                for batch in parts}
        waiting = list(refs)
        while waiting:
            done, waiting = ray.wait(waiting, num_returns=1)
            for ref in done:
                yield refs[ref], ray.get(ref)
    finally:
        if started_here:
            ray.shutdown()
