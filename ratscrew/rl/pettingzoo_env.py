"""ERS as PettingZoo environments: `ErsParallelEnv` (every seat acts at every tick, as at a real
table) and its AEC form `ErsAECEnv`, over the ticking table of :mod:`ratscrew.rl.core`.

Agents are named ``seat_0``, ``seat_1``, ...: the learning seats (seats given to ``bots`` are
played by the project's bots and are not agents). Each observation is PettingZoo's classic
card-game pair ``{"observation": float32 vector, "action_mask": int8 [wait, play, slap]}``; the
info holds the raw view (``raw_observation``, what `ratscrew.engine.Game.observe` returns), the
mask again, and once the seat is placed its ``place``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv
from pettingzoo.utils.conversions import parallel_to_aec_wrapper

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

AgentID = str
RENDER_MODES = ("ansi",)
ObsDict = dict[str, Any]


def observation_space(size: int) -> spaces.Dict:
    """The observation space of a vector of ``size`` values plus the action mask."""
    return spaces.Dict({
        "observation": spaces.Box(0.0, 1.0, shape=(size,), dtype=np.float32),
        "action_mask": spaces.Box(0, 1, shape=(len(ACTIONS),), dtype=np.int8),
    })


class ErsParallelEnv(ParallelEnv[AgentID, ObsDict, int]):  # type: ignore[misc]
    """ERS as a PettingZoo Parallel environment; see the module docstring and `TickTable` for
    the options (``rules``: preset name, TOML file or `Ruleset`; ``players``: 2 to 8;
    ``bots``: seat -> bot level for seats that do not learn; ``reaction``: the learning seats'
    reaction profile; ``tick_ms``, ``max_ticks``, ``shaping``, ``pattern_hint``)."""

    metadata = {"name": "ratscrew_ers_v0", "render_modes": ["ansi"],  # noqa: RUF012 (PettingZoo's)
                "is_parallelizable": True}

    def __init__(
        self,
        rules: RulesSpec = "classic",
        players: int = 4,
        *,
        bots: Mapping[int, BotSpec] | None = None,
        reaction: ReactionSpec = "casual",
        tick_ms: int = DEFAULT_TICK_MS,
        max_ticks: int = DEFAULT_MAX_TICKS,
        shaping: float = 0.0,
        pattern_hint: bool = True,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.core = TickTable(rules, players, bots=bots, reaction=reaction, tick_ms=tick_ms,
                              max_ticks=max_ticks, shaping=shaping, pattern_hint=pattern_hint)
        self.render_mode = render_mode
        self.possible_agents = [f"seat_{seat}" for seat in self.core.learners]
        self.agents: list[AgentID] = []
        self._seats = {f"seat_{seat}": seat for seat in self.core.learners}
        self._observation_space = observation_space(self.core.encoder.size)
        self._action_space = spaces.Discrete(len(ACTIONS))
        self._seeds = np.random.default_rng()

    def observation_space(self, agent: AgentID) -> spaces.Space[Any]:
        """The same for every agent: the encoded vector and the action mask."""
        return self._observation_space

    def action_space(self, agent: AgentID) -> spaces.Space[Any]:
        """``Discrete(3)``: 0 wait, 1 play, 2 slap."""
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[AgentID, ObsDict], dict[AgentID, dict[str, Any]]]:
        """Deal a new game. A ``seed`` makes this and every later unseeded reset reproducible."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        self.core.reset(int(self._seeds.integers(2**31)))
        self.agents = list(self.possible_agents)
        return ({agent: self._observe(agent) for agent in self.agents},
                {agent: self._info(agent) for agent in self.agents})

    def check_action(self, agent: AgentID, action: Any) -> None:
        """Raise a `ValueError` naming what is wrong if ``agent`` may not take ``action`` now
        (an `EnvStateError` if the episode is over), changing nothing."""
        self.core.check_actions({self._seat(agent): action})

    def step(self, actions: Mapping[AgentID, Any]) -> tuple[
            dict[AgentID, ObsDict], dict[AgentID, float], dict[AgentID, bool],
            dict[AgentID, bool], dict[AgentID, dict[str, Any]]]:
        """One tick; an agent left out of ``actions`` waits. Bad actions raise before anything
        changes (see `TickTable.check_actions`)."""
        if not self.agents:
            raise EnvStateError("the episode is over (or was never started): call reset() first")
        for agent in actions:
            if agent not in self.agents:
                raise ValueError(f"{agent!r} is not an agent still playing; agents: {self.agents}")
        seats = {self._seats[agent]: action for agent, action in actions.items()}
        core = self.core
        rewards = core.step(seats)
        agents = self.agents
        observations = {agent: self._observe(agent) for agent in agents}
        infos = {agent: self._info(agent) for agent in agents}
        reward = {agent: rewards.get(self._seats[agent], 0.0) for agent in agents}
        finished = {agent: self._seats[agent] in core.places for agent in agents}
        truncations = {agent: finished[agent] and core.truncated for agent in agents}
        terminations = {agent: finished[agent] and not core.truncated for agent in agents}
        self.agents = [agent for agent in agents if not finished[agent]]
        return observations, reward, terminations, truncations, infos

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``)."""
        if self.render_mode is None or self.core.game is None:
            return None
        return render_text(self.core)

    def close(self) -> None:
        """Nothing to release."""

    def state(self) -> np.ndarray[Any, Any]:
        """Not offered: a global state would show face-down cards."""
        raise NotImplementedError("ERS has no global state to show: it would reveal hidden cards")

    def _seat(self, agent: AgentID) -> int:
        if agent not in self._seats:
            raise ValueError(f"no agent {agent!r}; agents: {self.possible_agents}")
        return self._seats[agent]

    def _observe(self, agent: AgentID) -> ObsDict:
        seat = self._seats[agent]
        return {"observation": self.core.vector(seat).copy(),
                "action_mask": self.core.mask(seat).copy()}

    def _info(self, agent: AgentID) -> dict[str, Any]:
        seat = self._seats[agent]
        info: dict[str, Any] = {"raw_observation": self.core.raw_view(seat),
                                "action_mask": self.core.mask(seat).copy()}
        if seat in self.core.places:
            info["place"] = self.core.places[seat]
        return info


def render_text(core: TickTable) -> str:
    """One line per seat and a line for the pile: what anyone at the table can see."""
    game = core.game
    assert game is not None
    view = game.observe(None)
    lines = [f"t={core.now} ms  pile: {' '.join(view['pile'][-6:]) or '(empty)'}"
             f"  ({len(view['pile'])} cards)"]
    for seat in range(core.players):
        who = "bot" if seat in core.bot_profiles else "agent"
        turn = "  <- turn" if view["turn"] == seat else ""
        lines.append(f"seat {seat} ({who}): {view['hand_sizes'][seat]} cards, "
                     f"{view['status'][seat]}{turn}")
    return "\n".join(lines)


class ErsAECEnv(parallel_to_aec_wrapper):  # type: ignore[misc]
    """The AEC form of `ErsParallelEnv`: agents choose one after another within a tick, and
    the tick runs once the last of them has chosen. Each action is checked as it is given, so a
    bad one raises before anything is stored."""

    metadata = {"name": "ratscrew_ers_aec_v0", "render_modes": ["ansi"],  # noqa: RUF012
                "is_parallelizable": True}

    def __init__(self, parallel_env: ErsParallelEnv) -> None:
        super().__init__(parallel_env)
        self.metadata = {**ErsAECEnv.metadata}

    def step(self, action: Any) -> None:
        """Record the selected agent's action (checked first); the last one runs the tick."""
        agent = self.agent_selection
        if not (self.terminations[agent] or self.truncations[agent]):
            self.env.check_action(agent, action)
        super().step(action)
