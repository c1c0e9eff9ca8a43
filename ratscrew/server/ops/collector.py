"""How a server process sets Python's garbage collector once it has started.

A server holding 500 rooms keeps about half a million long-lived objects (games, tables, agents,
histories, connections) and makes short-lived ones at a high rate (a message, a step, a frame).
With CPython's default thresholds (700, 10, 10) the collector ran about 1,500 times a minute
there, and each full collection walked every long-lived object again: on the development
machine at 500 rooms it took 6.4 s of the process's CPU in 65 s and stopped the event loop for
up to 480 ms at a time (``benchmarks/server_load.py`` with a collector callback; see
docs/online.md, "Where the time goes"). Most of what a server makes is freed by reference
counting alone; the collector is there for reference cycles, which the hot paths avoid making.

`settle_collector`, called once the server has started and restored its rooms:

- collects once, then **freezes** everything alive (`gc.freeze`): the modules, rule sets and
  restored rooms of the start are never walked again;
- raises the young generation's threshold (`GC_THRESHOLDS`), so a collection comes every
  tens of thousands of allocations rather than every 700, and the older generations in
  proportion.

Only the ``ratscrew serve`` process does this (``create_app(settle_gc=True)``), and
``benchmarks/ws_floor.py``'s bare app does the same, so that the floor stays like for like;
the tests' apps leave the collector as it is.
"""

from __future__ import annotations

import gc
import logging

log = logging.getLogger("ratscrew.server")

GC_THRESHOLDS = (50_000, 20, 20)
"""The collector's thresholds in a server: a young collection every 50,000 net allocations, an
older one every 20 of those, the oldest at most every 20 of those (CPython also waits until a
quarter of the long-lived objects are new since the last). Measured at 500 rooms against
(20,000, 20, 20) and the default: docs/online.md, "Where the time goes"."""


def settle_collector(thresholds: tuple[int, int, int] = GC_THRESHOLDS) -> int:
    """Collect once, freeze what is alive and set ``thresholds``; the objects frozen.

    >>> import gc
    >>> before = gc.get_threshold()
    >>> settle_collector((5_000, 10, 10)) > 0 and gc.get_threshold() == (5_000, 10, 10)
    True
    >>> gc.unfreeze(); gc.set_threshold(*before)
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
    frozen = gc.get_freeze_count()
    log.info("garbage collector: %d objects of the start frozen, thresholds %s", frozen, thresholds)
    return frozen
