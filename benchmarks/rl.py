"""Learning-environment speed: environment steps per second on one core, beside the engine's
own actions per second measured in the same run.

Run: ``.venv/bin/python benchmarks/rl.py [--seconds S] [--players P] [--profile]``.

- ``gymnasium``: ``ratscrew/ERS-v0`` (classic, one learning seat against casual bots), random
  actions among those the mask allows. A step is one 25 ms tick of the learning seat.
- ``gymnasium (sure hand)``: the same with an agent that plays when it may and slaps only
  when the pile shows a pattern, so its games last as long as real ones.
- ``pettingzoo parallel``: every seat learns, random masked actions; a step is one tick of the
  whole table (all seats' actions).
- ``gymnasium.vector (sync, 4)``: four environments in one ``SyncVectorEnv``; steps counted
  per environment.
- ``engine``: the reference engine's ``us/action`` for 4-player classic games between the
  simple players (:mod:`benchmarks.engine`'s replay: engine calls only).

``--profile`` prints where a Gymnasium step spends its time (cProfile, top functions).
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from engine import measure
from one_core import pin_to_one_core

from ratscrew.rl import SLAP, WAIT, ErsEnv, parallel_env  # importing ratscrew.rl registers ERS-v0

Mask = np.ndarray[Any, Any]
Policy = Callable[[ErsEnv, Mask, int], int]


def random_policy(env: ErsEnv, mask: Mask, draw: int) -> int:
    """A random action among those the mask allows (wait when the draw is not allowed)."""
    return draw if mask[draw] else WAIT


def sure_hand(env: ErsEnv, mask: Mask, draw: int) -> int:
    """Play when allowed; slap only a pile that shows a pattern (the observation's hint)."""
    if mask[1]:
        return 1
    pattern = dict(env.core.encoder.fields)["slap_pattern"]
    if mask[SLAP] and env.core.vector(env.seat)[pattern].any():
        return SLAP
    return WAIT


def gym_steps(seconds: float, players: int, policy: Policy) -> tuple[float, int]:
    """Steps per second and episodes finished, for ``seconds``."""
    env = gymnasium.make("ratscrew/ERS-v0", rules="classic", opponents=["casual"] * (players - 1))
    inner = env.unwrapped
    assert isinstance(inner, ErsEnv)
    draws = np.random.default_rng(0).integers(0, 3, size=1 << 16).tolist()
    steps = episodes = 0
    observation, _ = env.reset(seed=0)
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(1000):
            action = policy(inner, observation["action_mask"], draws[steps & 0xFFFF])
            observation, _, terminated, truncated, _ = env.step(action)
            steps += 1
            if terminated or truncated:
                episodes += 1
                observation, _ = env.reset()
        if time.perf_counter() > deadline:
            break
    return steps / (time.perf_counter() - start), episodes


def parallel_steps(seconds: float, players: int) -> float:
    """Table ticks per second of the PettingZoo Parallel environment, every seat learning."""
    env = parallel_env(rules="classic", players=players)
    rng = np.random.default_rng(0)
    observations, _ = env.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(500):
            actions = {}
            for agent, observation in observations.items():
                draw = int(rng.integers(0, 3))
                actions[agent] = draw if observation["action_mask"][draw] else WAIT
            observations, _, _, _, _ = env.step(actions)
            steps += 1
            if not env.agents:
                observations, _ = env.reset()
    return steps / (time.perf_counter() - start)


def vector_steps(seconds: float, players: int, copies: int = 4) -> float:
    """Environment steps per second (summed over the copies) of a ``SyncVectorEnv``."""
    envs = gymnasium.make_vec("ratscrew/ERS-v0", num_envs=copies, vectorization_mode="sync",
                              rules="classic", opponents=["casual"] * (players - 1))
    observations, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(200):
            draws = rng.integers(0, 3, size=copies)
            masks = observations["action_mask"]
            actions = np.where(masks[np.arange(copies), draws] == 1, draws, WAIT)
            observations, _, _, _, _ = envs.step(actions)
            steps += copies
    envs.close()
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per figure (default 5)")
    parser.add_argument("--players", type=int, default=4, help="seats at the table (default 4)")
    parser.add_argument("--profile", action="store_true", help="profile the Gymnasium step")
    args = parser.parse_args()
    core = pin_to_one_core()
    print(f"benchmarks/rl.py --seconds {args.seconds} --players {args.players}"
          f"  ({platform.python_implementation()} {platform.python_version()}, core {core})")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        gym_steps(args.seconds, args.players, random_policy)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(18)
        return
    rate, episodes = gym_steps(args.seconds, args.players, random_policy)
    sure, sure_episodes = gym_steps(args.seconds, args.players, sure_hand)
    par = parallel_steps(args.seconds, args.players)
    vec = vector_steps(args.seconds, args.players)
    engine_us = measure("classic", args.players, 40)[4]
    print(f"{'environment':<28} {'steps/s':>9} {'us/step':>8} {'x engine action':>16}")
    for name, value in ((f"gymnasium (random, {episodes} episodes)", rate),
                        (f"gymnasium (sure hand, {sure_episodes} ep.)", sure),
                        ("pettingzoo parallel", par), ("gymnasium.vector (sync, 4)", vec)):
        us = 1e6 / value
        print(f"{name:<28} {value:>9.0f} {us:>8.2f} {us / engine_us:>16.2f}")
    print(f"{'engine (classic, replay)':<28} {1e6 / engine_us:>9.0f} {engine_us:>8.2f} {1.0:>16.2f}"
          "   (actions/s, us/action)")


if __name__ == "__main__":
    main()
