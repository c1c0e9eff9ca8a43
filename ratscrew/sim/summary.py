"""What one simulated game produced, and how game seeds are derived from a run's seed.

Both simulation paths, the reference engine driven by bots and the compiled kernel, return
`GameSummary` records, so statistics and plots never care which path ran.

>>> game_seed(42, 0) == game_seed(42, 0), game_seed(42, 0) == game_seed(42, 1)
(True, False)
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class GameSummary:
    """One finished (or abandoned) simulated game.

    ``winner`` is ``None`` for no winner (cycle, nobody wins, triple sixes, or ``unfinished``
    when a cap on cards was hit). ``slaps_won`` and ``misslaps`` are per seat.
    """

    seed: int
    players: int
    winner: int | None
    end_reason: str
    cards_played: int
    tricks: int
    duration_ms: int
    slaps_won: tuple[int, ...]
    misslaps: tuple[int, ...]

    @property
    def cycle(self) -> bool:
        """True when the game was ended because it repeated a state."""
        return self.end_reason == "cycle"

    def to_dict(self) -> dict[str, Any]:
        """JSON/CSV-able form."""
        out = asdict(self)
        out["slaps_won"] = list(self.slaps_won)
        out["misslaps"] = list(self.misslaps)
        return out


def game_seed(run_seed: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded ``run_seed``: independent of how the games
    are split across workers, so any number of workers gives the same results."""
    digest = hashlib.blake2b(f"{run_seed}:{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1
