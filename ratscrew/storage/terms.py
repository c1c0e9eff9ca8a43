"""The ladder's terms the storage counts by: the plain numbers its queries need, kept below the
server so that the storage imports nothing of it (the rules that use them, and why these values,
are the server's: `ratscrew.server.ladder.rated`)."""

from __future__ import annotations

FARM_WINDOW_S = 86_400.0
"""How far back earlier quick resignations between the same keys are counted."""
MIN_OPPONENTS = 3
"""A player is ranked (on the leaderboard, with a rank) only after rated games against at least
this many different opponents in the ruleset: other keyed players or bot levels (a bot level
counts once, whatever its seats). Bots count because the server plays them honestly and no one
can own one; a second key is one opponent however many games it gives away."""
