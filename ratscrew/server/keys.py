"""Player keys, as the server has always imported them: a re-export of
:mod:`ratscrew.protocol.keys` (their one home, below the server and both clients)."""

from __future__ import annotations

from ratscrew.protocol.keys import (
    KEY_PATTERN,
    MIN_DISTINCT_KEY_CHARACTERS,
    MIN_NEW_KEY_LENGTH,
    looks_random,
    new_key,
    valid_key,
)

__all__ = ["KEY_PATTERN", "MIN_DISTINCT_KEY_CHARACTERS", "MIN_NEW_KEY_LENGTH", "looks_random",
           "new_key", "valid_key"]
