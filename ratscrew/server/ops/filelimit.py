"""The server's open-file budget: each websocket is one open file, so a shard can hold no more
sockets than its soft ``RLIMIT_NOFILE``. Many systems start a service with a soft limit of 1,024
(systemd's default) under a far higher hard limit; `raise_open_file_limit` lifts the soft limit
to the hard one at start, and the log says how many sockets that leaves (docs/online.md,
"Sizing"). The systemd unit in ``deploy/systemd`` raises the hard limit too (``LimitNOFILE``).
"""

from __future__ import annotations

import logging
import resource
from dataclasses import dataclass

log = logging.getLogger("ratscrew.server")

RESERVED_FILES = 64
"""Open files a shard keeps for itself (the database, logs, the lab worker's pipes, Python's own
modules): the rest of the limit is its socket budget."""


@dataclass(frozen=True)
class FileLimit:
    """The soft limit before and after the start raised it, and the hard limit."""

    before: int
    soft: int
    hard: int

    @property
    def sockets(self) -> int:
        """About how many sockets the process can hold at once.

        >>> FileLimit(1024, 65536, 65536).sockets
        65472
        """
        return max(0, self.soft - RESERVED_FILES)


def raise_open_file_limit() -> FileLimit:
    """Raise the soft ``RLIMIT_NOFILE`` to the hard limit (never lower it) and log the budget."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, 1_048_576)
    raised = soft
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            raised = target
        except (ValueError, OSError) as error:
            log.warning("could not raise the open-file limit from %d to %d: %s", soft, target, error)
    limit = FileLimit(soft, raised, hard)
    log.info("open files: soft limit %d (was %d), hard %d: about %d sockets for this process%s",
             limit.soft, limit.before, limit.hard, limit.sockets,
             "" if limit.sockets >= 4096 else "; raise LimitNOFILE (systemd) or ulimit -n to hold more")
    return limit
