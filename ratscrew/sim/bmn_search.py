"""Search random Beggar-my-neighbour deals for long games and cycles, across local processes.

Deal ``i`` of a search seeded ``s`` depends only on ``(s, i)`` (see
:func:`ratscrew.sim.bmn_kernel.random_deals`), and the results are merged by keys that do not
depend on the split, so the same seed gives the same report whatever the number of workers.

>>> report = search(deals=2000, seed=1, workers=1, top=3)
>>> len(report.longest), report.longest[0].cards >= report.longest[1].cards
(3, True)
>>> from ratscrew.bmn import play_bmn
>>> best = report.longest[0]
>>> play_bmn(best.hand1, best.hand2).cards == best.cards
True
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ratscrew.sim.bmn_kernel import DealResult, deal_strings, play_random_deals, random_deals

CHUNK_DEALS = 50_000
"""Deals per unit of work handed to a process (the progress bar moves by chunks)."""


class SearchError(ValueError):
    """A search was asked for with impossible settings; the message says which."""


@dataclass(frozen=True, kw_only=True)
class FoundDeal(DealResult):
    """One deal worth reporting: how it went (a `DealResult`), which deal of the search it was,
    and its hands in record notation (hand 1 leads)."""

    index: int
    hand1: str
    hand2: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return asdict(self)


@dataclass
class ChunkReport:
    """What one range of deals produced: its best deals, its cycles and running totals."""

    deals: int = 0
    total_cards: int = 0
    total_tricks: int = 0
    hand1_wins: int = 0
    hand2_wins: int = 0
    longest: list[FoundDeal] = field(default_factory=list)
    cycles: list[FoundDeal] = field(default_factory=list)


@dataclass(frozen=True)
class SearchReport:
    """The result of a whole search."""

    seed: int
    deals: int
    workers: int
    seconds: float
    mean_cards: float
    mean_tricks: float
    hand1_wins: int
    hand2_wins: int
    longest: list[FoundDeal]
    cycles: list[FoundDeal]

    @property
    def deals_per_second(self) -> float:
        """Throughput of the whole search (all workers together)."""
        return self.deals / self.seconds if self.seconds > 0 else float("inf")

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (timing included)."""
        return {
            "seed": self.seed, "deals": self.deals, "workers": self.workers,
            "seconds": round(self.seconds, 3), "deals_per_second": round(self.deals_per_second),
            "mean_cards": self.mean_cards, "mean_tricks": self.mean_tricks,
            "hand1_wins": self.hand1_wins, "hand2_wins": self.hand2_wins,
            "longest": [d.to_dict() for d in self.longest],
            "cycles": [d.to_dict() for d in self.cycles],
        }


def _found(seed: int, index: int, row: np.ndarray[Any, Any]) -> FoundDeal:
    hand1, hand2 = deal_strings(random_deals(seed, index, 1)[0])
    winner = int(row[2])
    return FoundDeal(index=index, hand1=hand1, hand2=hand2, cards=int(row[0]),
                     tricks=int(row[1]), winner=winner or None, cycle=winner == 0,
                     cycle_tricks=int(row[3]), cycle_cards=int(row[4]))


def search_chunk(seed: int, start: int, count: int, top: int) -> ChunkReport:
    """Play deals ``start`` .. ``start + count - 1``; keep the ``top`` longest games that end
    (longest first, lower index first on equal length) and every cycle."""
    rows = play_random_deals(seed, start, count)
    cards, tricks, winners = rows[:, 0], rows[:, 1], rows[:, 2]
    ending = np.flatnonzero(winners != 0)
    order = ending[np.lexsort((ending, -cards[ending]))][:top]
    cycles = np.flatnonzero(winners == 0)
    return ChunkReport(
        deals=count,
        total_cards=int(cards.sum()),
        total_tricks=int(tricks.sum()),
        hand1_wins=int((winners == 1).sum()),
        hand2_wins=int((winners == 2).sum()),
        longest=[_found(seed, start + int(i), rows[i]) for i in order],
        cycles=[_found(seed, start + int(i), rows[i]) for i in cycles],
    )


def _chunks(deals: int, chunk: int) -> Iterator[tuple[int, int]]:
    for start in range(0, deals, chunk):
        yield start, min(chunk, deals - start)


def merge(reports: list[ChunkReport], top: int) -> ChunkReport:
    """Combine chunk reports; the order they arrive in does not matter."""
    merged = ChunkReport()
    for report in reports:
        merged.deals += report.deals
        merged.total_cards += report.total_cards
        merged.total_tricks += report.total_tricks
        merged.hand1_wins += report.hand1_wins
        merged.hand2_wins += report.hand2_wins
        merged.longest.extend(report.longest)
        merged.cycles.extend(report.cycles)
    merged.longest = sorted(merged.longest, key=lambda d: (-d.cards, d.index))[:top]
    merged.cycles.sort(key=lambda d: d.index)
    return merged


def default_workers() -> int:
    """Every core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def search(
    deals: int,
    seed: int,
    workers: int | None = None,
    top: int = 10,
    chunk: int = CHUNK_DEALS,
    progress: Callable[[int], None] | None = None,
) -> SearchReport:
    """Play ``deals`` random deals seeded ``seed`` on ``workers`` processes (default: every
    core) and report the ``top`` longest games and every cycle. ``progress`` is called with
    the number of deals each finished chunk held."""
    if deals < 1:
        raise SearchError(f"--deals must be at least 1, got {deals}")
    if top < 0:
        raise SearchError(f"--top must not be negative, got {top}")
    if chunk < 1:
        raise SearchError(f"chunk must be at least 1, got {chunk}")
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise SearchError(f"--workers must be at least 1, got {workers}")
    started = time.perf_counter()
    parts: list[ChunkReport] = []
    pieces = list(_chunks(deals, chunk))
    if workers == 1 or len(pieces) == 1:
        for start, count in pieces:
            parts.append(search_chunk(seed, start, count, top))
            if progress is not None:
                progress(count)
    else:
        with ProcessPoolExecutor(max_workers=min(workers, len(pieces))) as pool:
            futures = {pool.submit(search_chunk, seed, start, count, top): count
                       for start, count in pieces}
            for future in as_completed(futures):
                parts.append(future.result())
                if progress is not None:
                    progress(futures[future])
    merged = merge(parts, top)
    seconds = time.perf_counter() - started
    return SearchReport(
        seed=seed, deals=merged.deals, workers=workers, seconds=seconds,
        mean_cards=merged.total_cards / merged.deals, mean_tricks=merged.total_tricks / merged.deals,
        hand1_wins=merged.hand1_wins, hand2_wins=merged.hand2_wins,
        longest=merged.longest, cycles=merged.cycles,
    )
