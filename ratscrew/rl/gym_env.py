"""ERS as a Gymnasium environment: one seat learns, the project's bots play the others.

Registered as ``ratscrew/ERS-v0`` by ``import ratscrew.rl``::

    gymnasium.make("ratscrew/ERS-v0", rules="classic", opponents=["casual", "casual", "casual"])

A step is one tick of the table (``tick_ms``, 25 ms by default) for the learning seat. The
observation is the pair of :mod:`ratscrew.rl.pettingzoo_env` (vector and ``action_mask``);
:meth:`ErsEnv.action_masks` gives the mask too, as maskable learners expect. The episode ends
when the game ends or the learning seat is out for good (terminated), or at ``max_ticks``
(truncated).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ratscrew.rl.core import (
    ACTIONS,
    DEFAULT_MAX_TICKS,
    DEFAULT_TICK_MS,
    BotSpec,
    EnvStateError,
    ReactionSpec,
    RulesSpec,
    TickTable,
)
from ratscrew.rl.pettingzoo_env import RENDER_MODES, ObsDict, observation_space, render_text


class ErsEnv(gymnasium.Env[ObsDict, Any]):
    """One learning ``seat`` (default 0) against ``opponents`` (bot levels, specs or profiles,
    one per other seat in seat order). ``players`` is ``len(opponents) + 1``. Other options as
    for `ratscrew.rl.core.TickTable`."""

    metadata = {"render_modes": ["ansi"], "render_fps": 40}  # noqa: RUF012 (Gymnasium's)

    def __init__(
        self,
        rules: RulesSpec = "classic",
        opponents: Sequence[BotSpec] = ("casual", "casual", "casual"),
        *,
        seat: int = 0,
        reaction: ReactionSpec = "casual",
        tick_ms: int = DEFAULT_TICK_MS,
        max_ticks: int = DEFAULT_MAX_TICKS,
        shaping: float = 0.0,
        pattern_hint: bool = True,
        render_mode: str | None = None,
    ) -> None:
        if isinstance(opponents, str) or not isinstance(opponents, Sequence):
            raise ValueError(f"opponents must be a list of bot levels, one per other seat, "
                             f"got {opponents!r}")
        players = len(opponents) + 1
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat must be a seat of this table of {players}, got {seat!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        others = [other for other in range(players) if other != seat]
        self.core = TickTable(rules, players, learners=[seat],
                              bots=dict(zip(others, opponents, strict=True)), reaction=reaction,
                              tick_ms=tick_ms, max_ticks=max_ticks, shaping=shaping,
                              pattern_hint=pattern_hint)
        self.seat = seat
        self.render_mode = render_mode
        self.observation_space = observation_space(self.core.encoder.size)
        self.action_space = spaces.Discrete(len(ACTIONS))
        self._over = True

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[ObsDict, dict[str, Any]]:
        """Deal a new game (from ``seed``, or the environment's generator)."""
        super().reset(seed=seed)
        self.core.reset(int(self.np_random.integers(2**31)))
        self._over = False
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[ObsDict, float, bool, bool, dict[str, Any]]:
        """One tick with the learning seat's ``action`` (0 wait, 1 play, 2 slap). An action the
        mask forbids is a `ValueError` naming it; a step after the end an `EnvStateError`."""
        if self._over:
            raise EnvStateError("the episode is over (or was never started): call reset() first")
        core = self.core
        seat = self.seat
        reward = core.step_seat(seat, action)
        # `_observe()` and `_info()`, inline: a step is short and most of them change nothing.
        mask = core.mask(seat)
        observation = {"observation": core.vector(seat).copy(), "action_mask": mask.copy()}
        info: dict[str, Any] = {"raw_observation": core.raw_view(seat),
                                "action_mask": mask.copy()}
        if seat not in core.places:
            return observation, reward, False, False, info
        self._over = True
        info["place"] = core.places[seat]
        info["winner"] = core.game.winner if core.game is not None else None
        truncated = core.truncated
        return observation, reward, not truncated, truncated, info

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The current action mask (wait, play, slap), for maskable learners."""
        return self.core.mask(self.seat).copy()

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``)."""
        if self.render_mode is None or self.core.game is None:
            return None
        return render_text(self.core)

    def _observe(self) -> ObsDict:
        return {"observation": self.core.vector(self.seat).copy(),
                "action_mask": self.core.mask(self.seat).copy()}

    def _info(self) -> dict[str, Any]:
        core = self.core
        info: dict[str, Any] = {"raw_observation": core.raw_view(self.seat),
                                "action_mask": core.mask(self.seat).copy()}
        if self.seat in core.places:
            info["place"] = core.places[self.seat]
            info["winner"] = core.game.winner if core.game is not None else None
        return info
