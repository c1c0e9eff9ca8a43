"""What the benchmark scripts share: running on one core, as their figures are per core."""

from __future__ import annotations

import os


def pin_to_one_core() -> int | None:
    """Run this process (and any program it starts) on one core; returns that core, or
    ``None`` where the platform cannot pin."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    return core
