"""The bot's decision model, written once: what a bot plans after each batch of events, and the
order in which it draws its random numbers.

Two pure-Python drivers use it: the table bot (:class:`ratscrew.bots.agent.BotAgent`, which
learns what happened from its observation and the events) and the simulation kernel's reference
(:mod:`ratscrew.sim.reference`, which asks the real `Game`). Each follows the events its
own way (cards remembered, the card it foresaw) and hands :func:`replan` what they showed; the
plan, and every random number behind it, comes from here. The compiled kernel
(:mod:`ratscrew.sim.kernel_compiled`, numba) cannot call Python: it is a port of this model,
held to the reference game by game with the same seeds (``tests/test_kernel.py``,
``tests/test_kernel_differential.py``).

A bot holds at most one planned slap (`Plans.slap_at`, and why: `Plans.slap_why`) and one
planned play (`Plans.play_at`), in ms of table time. After the events of one action (or none:
the game's start, a refused action), in this order, drawing from its own ``random.Random``:

1. **The card shown** (a card was played, and no pile was won after it), when the bot may slap
   (:func:`react_to_card`): a blind slap with ``spam``; a foreseen pattern anticipated; a
   pattern seen unless missed (:meth:`~ratscrew.bots.profile.BotProfile.miss_chance`) and
   slapped after a reaction; a near pattern flinched at.
2. **Claims**: a challenge it won under slap collection is claimed after a reaction (replacing
   any slap); when the claim window opens to everyone and it plans no slap but may slap, it
   slaps to claim after a reaction.
3. A bot that may not slap drops any planned slap but its own claim.
4. **Its turn**: with no planned play, or a pile just won, it plays after a pace
   (:func:`draw_pace_ms`); when it is not its turn it plans no play.

>>> import random
>>> from ratscrew.bots.profile import LEVELS
>>> plans = Plans()
>>> why = replan(LEVELS["expert"], random.Random(1), plans, may_slap=True, my_turn=False, now=500,
...              shown_at=500, pattern="double", foreseen=False, near=lambda: False)
>>> why, plans.slap_why, 500 + 100 <= plans.slap_at, plans.play_at
('react double', 'react double', True, None)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ratscrew.bots.profile import ANTICIPATION_FLOOR_MS, MIN_PACE_MS, BotProfile

MIN_ANTICIPATION_MS = 20.0
"""Even a slap the bot saw coming takes this long to land after the card appears."""

RECOGNITION_COST_MS = 170.0
"""How much longer deciding "is this slappable?" takes than just reacting to a card: recognition
reaction (about 380-420 ms) minus simple reaction (about 190-230 ms)."""

CLAIM = "claim"
"""`Plans.slap_why` of a slap that claims a pile the bot won (kept when it may not slap)."""


def draw_reaction_ms(profile: BotProfile, rng: random.Random) -> float:
    """One reaction time: ex-Gaussian (``gauss(mu, sigma)``, just ``mu`` when ``sigma`` is 0,
    plus ``expovariate(1 / tau)`` when ``tau`` > 0), never below the anticipation floor.

    >>> from ratscrew.bots.profile import LEVELS
    >>> rng = random.Random(0)
    >>> all(draw_reaction_ms(LEVELS["expert"], rng) >= ANTICIPATION_FLOOR_MS for _ in range(1000))
    True
    """
    value = rng.gauss(profile.mu_ms, profile.sigma_ms) if profile.sigma_ms > 0 else profile.mu_ms
    if profile.tau_ms > 0:
        value += rng.expovariate(1.0 / profile.tau_ms)
    return max(float(ANTICIPATION_FLOOR_MS), value)


def draw_pace_ms(profile: BotProfile, rng: random.Random) -> float:
    """The delay before a card is played once it is the bot's turn: ``gauss(pace_mean_ms,
    pace_sd_ms)`` (just the mean when the deviation is 0), never below `MIN_PACE_MS`."""
    pace = rng.gauss(profile.pace_mean_ms, profile.pace_sd_ms) if profile.pace_sd_ms > 0 \
        else profile.pace_mean_ms
    return max(float(MIN_PACE_MS), pace)


@dataclass(slots=True)
class Plans:
    """One bot's plans: a slap at ``slap_at`` (``None``: none) for the reason ``slap_why``
    (``"react double"``, ``"anticipate sandwich"``, ``"flinch"``, ``"spam"``, `CLAIM`,
    ``"claim open"``) and a play at ``play_at``, in ms of table time."""

    slap_at: float | None = None
    slap_why: str = ""
    play_at: float | None = None


def react_to_card(profile: BotProfile, rng: random.Random, shown_at: float, pattern: str | None,
                  foreseen: bool, near: Callable[[], bool]) -> tuple[float, str] | None:
    """Step 1: what the bot does about the card shown at ``shown_at``: ``(slap time, why)``, or
    ``None`` to let it go. ``pattern`` is the slap pattern the pile shows (``None``: none);
    ``foreseen``: the bot remembered this card as the top of the hand that played it; ``near``
    says (asked only when it matters) whether the pile shows a near pattern.

    In this order: with ``spam > 0``, a card not foreseen is slapped blindly when ``random() <
    spam``, after a simple reaction (``reaction - RECOGNITION_COST_MS``, never under the floor);
    a foreseen pattern is slapped after ``max(MIN_ANTICIPATION_MS, gauss(anticipation_ms,
    anticipation_ms / 4))``; a pattern is seen unless ``random() < miss_chance(pattern)``, then
    slapped after a reaction; a near pattern on a card not foreseen makes it flinch when
    ``flinch > 0`` and ``random() < flinch``, slapping after a reaction."""
    if profile.spam > 0 and not foreseen and rng.random() < profile.spam:
        reaction = max(float(ANTICIPATION_FLOOR_MS), draw_reaction_ms(profile, rng) - RECOGNITION_COST_MS)
        return shown_at + reaction, "spam"
    if foreseen and pattern is not None:
        delay = max(MIN_ANTICIPATION_MS, rng.gauss(profile.anticipation_ms, profile.anticipation_ms / 4))
        return shown_at + delay, f"anticipate {pattern}"
    if pattern is not None:
        if rng.random() >= profile.miss_chance(pattern):
            return shown_at + draw_reaction_ms(profile, rng), f"react {pattern}"
        return None
    if not foreseen and profile.flinch > 0 and near() and rng.random() < profile.flinch:
        return shown_at + draw_reaction_ms(profile, rng), "flinch"
    return None


def replan(profile: BotProfile, rng: random.Random, plans: Plans, *, may_slap: bool,
           my_turn: bool, now: int, shown_at: int | None = None, pattern: str | None = None,
           foreseen: bool = False, near: Callable[[], bool] = lambda: False,
           claim_at: int | None = None, opened_at: int | None = None,
           pile_won: bool = False) -> str | None:
    """Steps 1-4 of the module docstring: bring ``plans`` up to date after a batch of events
    (the driver has already dropped the plans the events made moot: a slap the pile changed
    under or that happened, a play made). Returns why the bot slaps at the card shown (step 1),
    or ``None`` when no card was shown or it lets the card go.

    ``may_slap``: the bot's seat may slap now (its status is one of
    `~ratscrew.observation.SLAPPING_STATUSES`); ``my_turn``: it is the seat's turn at ``now``;
    ``shown_at``, ``pattern``, ``foreseen``, ``near``: the card shown (:func:`react_to_card`);
    ``claim_at``: the seat won a challenge under slap collection at that time; ``opened_at``:
    the claim window opened to everyone then; ``pile_won``: a pile was won."""
    why = None
    if shown_at is not None and may_slap:
        decision = react_to_card(profile, rng, shown_at, pattern, foreseen, near)
        if decision is not None:
            plans.slap_at, why = decision
            plans.slap_why = why
    if claim_at is not None:
        plans.slap_at, plans.slap_why = claim_at + draw_reaction_ms(profile, rng), CLAIM
    elif opened_at is not None and plans.slap_at is None and may_slap:
        plans.slap_at, plans.slap_why = opened_at + draw_reaction_ms(profile, rng), "claim open"
    if not may_slap and not (plans.slap_at is not None and plans.slap_why == CLAIM):
        plans.slap_at = None
    if not my_turn:
        plans.play_at = None
    elif plans.play_at is None or pile_won:
        plans.play_at = now + draw_pace_ms(profile, rng)
    return why
