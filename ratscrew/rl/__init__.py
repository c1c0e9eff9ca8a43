"""Egyptian Rat Screw as a reinforcement-learning environment (``pip install 'ratscrew[rl]'``).

- :func:`parallel_env`: a PettingZoo Parallel environment (every seat may act at every tick);
  :func:`env` its AEC form with PettingZoo's usual wrappers, :func:`raw_env` without them.
- ``gymnasium.make("ratscrew/ERS-v0", rules="classic", opponents=["casual"] * 3)``: one seat
  learns against the project's bots (registered on import when Gymnasium is installed).

The table runs on the engine's virtual clock in ticks; a learning seat's play or slap lands a
human reaction time after it is chosen. See ``docs/rl.md``.

Only the environments need the ``rl`` extra (Gymnasium and PettingZoo): the tick table
(:mod:`ratscrew.rl.core`) and ERS-Bench's agents (:mod:`ratscrew.rl.agents`, loadable with
NumPy alone, seated by the server and the terminal game) import without it, and the
environment names here import their modules when first used (a clear `ImportError` without
the extra).

>>> import ratscrew.rl
>>> par = ratscrew.rl.parallel_env(rules="classic", players=2)
>>> observations, infos = par.reset(seed=1)
>>> sorted(observations), observations["seat_0"]["action_mask"].tolist()
(['seat_0', 'seat_1'], [1, 1, 1])
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ratscrew.rl.core import ACTIONS, PLAY, SLAP, WAIT, EnvStateError, TickTable

if TYPE_CHECKING:
    from ratscrew.rl.gym_env import ErsEnv
    from ratscrew.rl.pettingzoo_env import ErsAECEnv, ErsParallelEnv

__all__ = ["ACTIONS", "GYM_ID", "PLAY", "SLAP", "WAIT", "EnvStateError", "ErsAECEnv", "ErsEnv",
           "ErsParallelEnv", "TickTable", "env", "parallel_env", "raw_env"]

GYM_ID = "ratscrew/ERS-v0"
MISSING_EXTRA = ("ratscrew.rl's environments need PettingZoo and Gymnasium: "
                 "pip install 'ratscrew[rl]'")
"""What using an environment says when the ``rl`` extra is not installed."""
_ENVIRONMENTS = {"ErsEnv": "ratscrew.rl.gym_env", "ErsAECEnv": "ratscrew.rl.pettingzoo_env",
                 "ErsParallelEnv": "ratscrew.rl.pettingzoo_env"}
"""The names whose modules need the ``rl`` extra, imported when first asked for."""


def _environment_module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as error:
        if error.name in ("gymnasium", "pettingzoo") or str(error.name).startswith(
                ("gymnasium.", "pettingzoo.")):
            raise ImportError(MISSING_EXTRA) from error
        raise


def __getattr__(name: str) -> Any:
    """The environment classes, imported on first use (they need the ``rl`` extra)."""
    if name in _ENVIRONMENTS:
        return getattr(_environment_module(_ENVIRONMENTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parallel_env(rules: Any = "classic", players: int = 4, **options: Any) -> ErsParallelEnv:
    """A PettingZoo Parallel environment (see `ErsParallelEnv` for the options)."""
    environments = _environment_module("ratscrew.rl.pettingzoo_env")
    return environments.ErsParallelEnv(rules, players, **options)  # type: ignore[no-any-return]


def raw_env(rules: Any = "classic", players: int = 4, **options: Any) -> ErsAECEnv:
    """The AEC environment without wrappers."""
    environments = _environment_module("ratscrew.rl.pettingzoo_env")
    return environments.ErsAECEnv(  # type: ignore[no-any-return]
        environments.ErsParallelEnv(rules, players, **options))


def env(rules: Any = "classic", players: int = 4, **options: Any) -> Any:
    """The AEC environment with PettingZoo's usual wrappers (actions in bounds, order of
    calls enforced)."""
    wrappers = _environment_module("pettingzoo.utils.wrappers")
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        raw_env(rules, players, **options)))


def _register() -> None:
    """Register ``ratscrew/ERS-v0`` with Gymnasium, when it is installed."""
    try:
        gymnasium = importlib.import_module("gymnasium")
    except ImportError:
        return
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="ratscrew.rl.gym_env:ErsEnv")


_register()
