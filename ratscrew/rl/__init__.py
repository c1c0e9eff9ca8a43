"""Egyptian Rat Screw as a reinforcement-learning environment (``pip install 'ratscrew[rl]'``).

- :func:`parallel_env`: a PettingZoo Parallel environment (every seat may act at every tick);
  :func:`env` its AEC form with PettingZoo's usual wrappers, :func:`raw_env` without them.
- ``gymnasium.make("ratscrew/ERS-v0", rules="classic", opponents=["casual"] * 3)``: one seat
  learns against the project's bots (registered on import).

The table runs on the engine's virtual clock in ticks; a learning seat's play or slap lands a
human reaction time after it is chosen. See ``docs/rl.md``.

>>> import ratscrew.rl
>>> par = ratscrew.rl.parallel_env(rules="classic", players=2)
>>> observations, infos = par.reset(seed=1)
>>> sorted(observations), observations["seat_0"]["action_mask"].tolist()
(['seat_0', 'seat_1'], [1, 1, 1])
"""

from __future__ import annotations

from typing import Any

try:
    import gymnasium
    from pettingzoo.utils import wrappers
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError("ratscrew.rl needs PettingZoo and Gymnasium: pip install 'ratscrew[rl]'") from error

from ratscrew.rl.core import ACTIONS, PLAY, SLAP, WAIT, EnvStateError, TickTable
from ratscrew.rl.gym_env import ErsEnv
from ratscrew.rl.pettingzoo_env import ErsAECEnv, ErsParallelEnv

__all__ = ["ACTIONS", "GYM_ID", "PLAY", "SLAP", "WAIT", "EnvStateError", "ErsAECEnv", "ErsEnv",
           "ErsParallelEnv", "TickTable", "env", "parallel_env", "raw_env"]

GYM_ID = "ratscrew/ERS-v0"


def parallel_env(rules: Any = "classic", players: int = 4, **options: Any) -> ErsParallelEnv:
    """A PettingZoo Parallel environment (see `ErsParallelEnv` for the options)."""
    return ErsParallelEnv(rules, players, **options)


def raw_env(rules: Any = "classic", players: int = 4, **options: Any) -> ErsAECEnv:
    """The AEC environment without wrappers."""
    return ErsAECEnv(ErsParallelEnv(rules, players, **options))


def env(rules: Any = "classic", players: int = 4, **options: Any) -> Any:
    """The AEC environment with PettingZoo's usual wrappers (actions in bounds, order of
    calls enforced)."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        raw_env(rules, players, **options)))


if GYM_ID not in gymnasium.registry:
    gymnasium.register(id=GYM_ID, entry_point="ratscrew.rl.gym_env:ErsEnv")
