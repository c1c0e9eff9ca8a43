"""Bot profiles: the numbers that make a bot feel human, and the named difficulty levels.

The numbers feed the decision model every bot implementation shares,
:mod:`ratscrew.bots.decision` (the table bots of :mod:`ratscrew.bots.agent`, the simulation
kernel's reference and, ported, the compiled kernel): for each card that appears on the pile a
bot may miss a pattern (:meth:`BotProfile.miss_chance`: harder patterns are missed more), or
slap it after a reaction drawn from an ex-Gaussian (``mu``, ``sigma``, ``tau``, never below
:data:`ANTICIPATION_FLOOR_MS`); it flinches at near patterns with probability ``flinch``, and
plays in its turn after a pace drawn from a normal (``pace_mean_ms``, ``pace_sd_ms``, never
below :data:`MIN_PACE_MS`).

Reaction times are grounded in the visual reaction-time literature: simple reaction is about
190-230 ms for young adults, while *recognition* reaction ("respond to some stimuli, ignore
others" - deciding whether a pile is slappable is exactly that) is about 380-420 ms. An
ex-Gaussian with mean ``mu + tau`` is the standard shape of such distributions.

>>> LEVELS["expert"].mean_reaction_ms
320.0
>>> LEVELS["beginner"].miss_chance("double") < LEVELS["beginner"].miss_chance("run")
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ratscrew.patterns import PATTERN_FACTS

ANTICIPATION_FLOOR_MS = 100
"""No honest reaction is faster than this; anything quicker is anticipation."""
MIN_PACE_MS = 150
"""The fastest a hand can turn over a card."""

CLAIM_DIFFICULTY = 0.5
"""How much harder than a double it is to see that one may slap to claim a won pile (not a
pattern: the pile is the claimer's whatever it shows)."""

PATTERN_DIFFICULTY: dict[str, float] = {
    **{name: facts.difficulty for name, facts in PATTERN_FACTS.items()}, "claim": CLAIM_DIFFICULTY}
"""How much harder a pattern is to see than a double (which is 1.0): each pattern's
``difficulty`` in the registry (:data:`ratscrew.patterns.PATTERN_FACTS`), and the claim's."""


@dataclass(frozen=True)
class BotProfile:
    """The parameters of one bot.

    ``miss`` is the chance to miss a double; harder patterns are missed more often:
    ``1 - (1 - miss) ** difficulty``. ``memory`` is how many cards of collected piles the bot
    remembers for counting (0: none); ``anticipation_ms`` is how fast a counting bot slaps a
    pattern it saw coming.
    """

    name: str
    mu_ms: float
    sigma_ms: float
    tau_ms: float
    miss: float
    flinch: float
    pace_mean_ms: float
    pace_sd_ms: float
    memory: int = 0
    anticipation_ms: float = 80.0
    """How soon after a card appears a counting bot slaps when its memory told
    it the card would make a slap (see :mod:`ratscrew.bots.agent`)."""
    spam: float = 0.0
    """Chance to slap a card without looking, at simple-reaction speed (0 for
    every level; raised to study players who slap at everything)."""

    @property
    def mean_reaction_ms(self) -> float:
        """Mean of the ex-Gaussian: ``mu + tau`` (before the anticipation floor)."""
        return float(self.mu_ms + self.tau_ms)

    def miss_chance(self, pattern: str) -> float:
        """Chance to miss a slappable pile showing ``pattern``."""
        difficulty = PATTERN_DIFFICULTY.get(pattern, 2.0)
        return float(1.0 - (1.0 - self.miss) ** difficulty)

    def with_changes(self, **changes: float | int | str) -> BotProfile:
        """A copy with some parameters changed (for sweeps)."""
        return replace(self, **changes)  # type: ignore[arg-type]


LEVELS: dict[str, BotProfile] = {
    # Slow recognition, long tail, misses a quarter of doubles, flinches often, no counting.
    "beginner": BotProfile("beginner", mu_ms=420, sigma_ms=60, tau_ms=180, miss=0.25,
                           flinch=0.08, pace_mean_ms=1000, pace_sd_ms=250),
    # A typical player: recognition reaction near the 400 ms literature mean.
    "casual": BotProfile("casual", mu_ms=350, sigma_ms=50, tau_ms=110, miss=0.12,
                         flinch=0.04, pace_mean_ms=800, pace_sd_ms=200),
    # A practised player: faster and more reliable, remembers a few cards.
    "skilled": BotProfile("skilled", mu_ms=300, sigma_ms=40, tau_ms=70, miss=0.05,
                          flinch=0.02, pace_mean_ms=650, pace_sd_ms=150, memory=8),
    # Close to the simple-reaction limit (~230 ms mean for college students) for easy patterns.
    "expert": BotProfile("expert", mu_ms=260, sigma_ms=30, tau_ms=60, miss=0.02,
                         flinch=0.01, pace_mean_ms=550, pace_sd_ms=120, memory=26),
    # Not human: never misses, never flinches, reacts at the anticipation floor, counts all.
    "referee": BotProfile("referee", mu_ms=100, sigma_ms=0, tau_ms=0, miss=0.0,
                          flinch=0.0, pace_mean_ms=500, pace_sd_ms=0, memory=54),
}
"""The named difficulty levels, weakest first."""


def paced(profile: BotProfile, pace: float) -> BotProfile:
    """The profile with its card-playing pace sped up ``pace`` times (reactions unchanged).

    >>> paced(LEVELS["casual"], 2.0).pace_mean_ms
    400.0
    """
    return profile.with_changes(pace_mean_ms=profile.pace_mean_ms / pace,
                                pace_sd_ms=profile.pace_sd_ms / pace)


def level(name: str) -> BotProfile:
    """The profile of a named level; an unknown name is a `ValueError` listing the levels."""
    try:
        return LEVELS[name]
    except KeyError:
        raise ValueError(f"unknown bot level {name!r}; choose one of {', '.join(LEVELS)}") from None
