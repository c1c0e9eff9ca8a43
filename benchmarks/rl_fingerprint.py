"""A fingerprint of the learning environments' behaviour: one hash over many seeded episodes,
for speed work on :mod:`ratscrew.rl` (and the runtime under it).

Run it before and after a change: the hashes must not move.
``.venv/bin/python benchmarks/rl_fingerprint.py`` prints one SHA-256 per part and a total:

- ``gymnasium``: ``ErsEnv`` episodes over several presets, seat counts, learning seats, bot
  levels, reaction settings (a level, a fixed delay, none), tick lengths, shaping, without the
  pattern hint, and with a tick limit that cuts games; random masked actions and a sure-handed
  agent. Hashed at every step: the observation vector and mask (bytes, dtype, shape), the
  reward (value and type), terminated, truncated, the info's keys, its mask, its raw
  observation, place and winner. Every few steps bad actions are tried first (a masked-out
  action, values that are not actions): each error's class and message is hashed, and the
  table must be exactly as it was (the vector, mask, clock and the game's record).
- ``parallel``: the PettingZoo Parallel environment, every seat learning or some seats bots,
  hashed the same way agent by agent, with bad actions tried the same way.
- ``aec``: the AEC form for a few hundred cycles.

It also checks that each step returns new arrays (no array shared with an earlier step's
observation or with the info), as replay buffers need.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import time
from typing import Any

import numpy as np
from rl import random_policy, sure_hand

import ratscrew.rl as rl
from ratscrew.rl import WAIT, ErsEnv
from ratscrew.rl.core import EnvStateError

# (rules, opponents, seat, options, episodes, policy)
GYM_CASES: list[tuple[str, list[str], int, dict[str, Any], int, str]] = [
    ("classic", ["casual", "casual", "casual"], 0, {}, 4, "random"),
    ("classic", ["casual", "casual", "casual"], 0, {}, 2, "sure"),
    ("classic", ["expert"], 0, {"reaction": None}, 4, "random"),
    ("classic", ["casual"], 1, {"reaction": 250, "shaping": 0.5}, 4, "sure"),
    ("ratscrew", ["beginner", "skilled"], 1, {"reaction": "expert", "shaping": 1.0}, 3, "random"),
    ("northwest", ["casual", "expert", "casual"], 2,
     {"reaction": "expert", "pattern_hint": False, "tick_ms": 10, "max_ticks": 6000}, 2, "random"),
    ("bmn", ["casual"], 0, {"tick_ms": 100}, 3, "random"),
    ("bmn", ["skilled", "casual"], 2, {"reaction": "skilled"}, 2, "sure"),
    ("pagat", ["casual"] * 4, 3, {"reaction": "skilled", "max_ticks": 8000}, 2, "sure"),
    ("paranoid", ["skilled"] * 4, 4, {"reaction": 0, "max_ticks": 8000}, 2, "random"),
    ("classic", ["referee"] * 7, 5, {"max_ticks": 5000}, 1, "random"),
]
PARALLEL_CASES: list[tuple[str, int, dict[str, Any], int]] = [
    ("classic", 4, {"max_ticks": 6000}, 4),
    ("classic", 2, {"reaction": None}, 6),
    ("ratscrew", 3, {"bots": {1: "casual"}, "shaping": 0.5}, 5),
    ("paranoid", 5, {"bots": {0: "expert", 2: "casual"}, "reaction": 300, "max_ticks": 5000}, 4),
    ("northwest", 4, {"bots": {3: "casual"}, "tick_ms": 40, "pattern_hint": False}, 4),
    ("classic", 3, {"bots": {0: "casual", 1: "casual"}, "reaction": "casual"}, 3),
]
BAD_ACTIONS: list[Any] = [3, -1, 1.0, True, "slap", None, np.int64(7)]


class Fingerprint:
    """A SHA-256 fed with text and bytes, and a count of what went in."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()
        self.steps = 0

    def add(self, *parts: Any) -> None:
        for part in parts:
            self.hash.update(part if isinstance(part, bytes) else repr(part).encode())
            self.hash.update(b"|")

    def array(self, array: np.ndarray[Any, Any]) -> None:
        self.add(str(array.dtype), array.shape, array.tobytes())

    def info(self, info: dict[str, Any]) -> None:
        self.add(sorted(info), sorted(dict(info["raw_observation"]).items()),
                 info.get("place"), info.get("winner"))
        self.array(info["action_mask"])

    def observation(self, observation: dict[str, Any]) -> None:
        self.add(sorted(observation))
        self.array(observation["observation"])
        self.array(observation["action_mask"])


def check_fresh(observation: dict[str, Any], info: dict[str, Any], kept: list[np.ndarray[Any, Any]]) -> None:
    """The step's arrays are new: none shares memory with the info's or an earlier step's."""
    arrays = [observation["observation"], observation["action_mask"], info["action_mask"]]
    for index, array in enumerate(arrays):
        for other in arrays[index + 1:] + kept:
            assert not np.shares_memory(array, other), "a returned array is shared"
    kept[:] = arrays


def table_state(core: rl.TickTable) -> tuple[Any, ...]:
    game = core.game
    assert game is not None
    return (core.now, core.ticks, core.done, dict(core.places),
            {seat: core.vector(seat).tobytes() for seat in core.learners},
            {seat: core.mask(seat).tobytes() for seat in core.learners},
            {seat: core.in_flight(seat) for seat in core.learners}, game.to_record())


def try_bad(fp: Fingerprint, core: rl.TickTable, attempt: Any) -> None:
    """Call ``attempt`` (a step with a bad action): it must raise and change nothing."""
    before = table_state(core)
    try:
        attempt()
    except (ValueError, EnvStateError) as error:
        fp.add(type(error).__name__, str(error))
    else:
        raise AssertionError("a bad action was accepted")
    assert table_state(core) == before, "a refused action changed the table"


def policy(kind: str, env: ErsEnv, mask: np.ndarray[Any, Any], draw: int) -> int:
    """The benchmark's agents (benchmarks/rl.py): random masked actions, or the sure hand."""
    return (random_policy if kind == "random" else sure_hand)(env, mask, draw)


def gym_part(fp: Fingerprint) -> None:
    for case, (rules, opponents, seat, options, episodes, kind) in enumerate(GYM_CASES):
        env = ErsEnv(rules, opponents, seat=seat, **options)
        rng = random.Random(case)
        observation, info = env.reset(seed=1000 + case)
        fp.add("reset", case)
        fp.observation(observation)
        fp.info(info)
        kept: list[np.ndarray[Any, Any]] = []
        done = 0
        while done < episodes:
            mask = observation["action_mask"]
            if fp.steps % 211 == 0:
                forbidden = [a for a in range(3) if not mask[a]]
                for bad in [*forbidden, BAD_ACTIONS[fp.steps % len(BAD_ACTIONS)]]:
                    try_bad(fp, env.core, lambda env=env, bad=bad: env.step(bad))
            action = policy(kind, env, mask, rng.randrange(3))
            observation, reward, terminated, truncated, info = env.step(action)
            fp.steps += 1
            check_fresh(observation, info, kept)
            fp.observation(observation)
            fp.add(type(reward).__name__, reward, terminated, truncated)
            fp.info(info)
            if terminated or truncated:
                try_bad(fp, env.core, lambda env=env: env.step(WAIT))
                done += 1
                game = env.core.game
                assert game is not None
                fp.add("episode", env.core.ticks, game.winner, game.end_reason, game.action_count)
                observation, info = env.reset()
                fp.observation(observation)
                fp.info(info)


def parallel_part(fp: Fingerprint) -> None:
    for case, (rules, players, options, episodes) in enumerate(PARALLEL_CASES):
        env = rl.parallel_env(rules=rules, players=players, **options)
        rng = random.Random(100 + case)
        observations, infos = env.reset(seed=2000 + case)
        done = 0
        while done < episodes:
            if fp.steps % 97 == 0:
                for agent in env.agents:
                    mask = observations[agent]["action_mask"]
                    for bad in [*[a for a in range(3) if not mask[a]],
                                BAD_ACTIONS[fp.steps % len(BAD_ACTIONS)]]:
                        try_bad(fp, env.core, lambda env=env, agent=agent, bad=bad: env.step({agent: bad}))
                try_bad(fp, env.core, lambda env=env: env.step({"seat_99": WAIT}))
            actions = {}
            for agent in env.agents:
                draw = rng.randrange(4)  # 3: leave the agent out (it waits)
                if draw < 3:
                    actions[agent] = draw if observations[agent]["action_mask"][draw] else WAIT
            observations, rewards, terminations, truncations, infos = env.step(actions)
            fp.steps += 1
            for agent in sorted(observations):
                fp.add(agent)
                fp.observation(observations[agent])
                fp.info(infos[agent])
                fp.add(rewards[agent], terminations[agent], truncations[agent])
            fp.add(env.agents)
            if not env.agents:
                done += 1
                fp.add("episode", env.core.ticks)
                observations, infos = env.reset()


def aec_part(fp: Fingerprint) -> None:
    for case, (rules, players) in enumerate([("classic", 3), ("ratscrew", 2)]):
        env = rl.env(rules=rules, players=players, max_ticks=3000)
        env.reset(seed=3000 + case)
        rng = random.Random(300 + case)
        for agent in env.agent_iter(max_iter=6000):
            observation, reward, termination, truncation, _ = env.last()
            fp.add(agent, reward, termination, truncation)
            fp.observation(observation)
            if termination or truncation:
                action = None
            else:
                draw = rng.randrange(3)
                action = draw if observation["action_mask"][draw] else WAIT
            env.step(action)
            fp.steps += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    total = hashlib.sha256()
    for name, part in (("gymnasium", gym_part), ("parallel", parallel_part), ("aec", aec_part)):
        fp = Fingerprint()
        start = time.perf_counter()
        part(fp)
        digest = fp.hash.hexdigest()
        total.update(digest.encode())
        print(f"{name:<10} {digest}  ({fp.steps} steps, {time.perf_counter() - start:.1f} s)")
    print(f"{'total':<10} {total.hexdigest()}")


if __name__ == "__main__":
    main()
