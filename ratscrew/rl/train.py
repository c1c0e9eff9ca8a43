"""Training ERS-Bench's learned agents, reproducibly: ``ratscrew bench train AGENT``.

Both learn 2-seat classic against one ``casual`` bot, held to the casual reaction profile (the
human-limited track: only decisions can differ), with the shaped reward of docs/rl.md (cards
won minus cards paid, weight 1) and a stalled (truncated) game counted as lost in training
only. The tabular learner discounts 0.97 per 25 ms tick; the network decides only when what it
sees changes (:class:`ratscrew.rl.agents.DecisionGate`) and discounts 0.95 per decision.

- ``tabular``: the REINFORCE table of docs/rl.md (:mod:`ratscrew.rl.learn`), seven yes/no
  features, 128 states.
- ``ppo``: proximal policy optimisation (Schulman et al. 2017: clipped surrogate, generalised
  advantage estimation, value head, entropy bonus, Adam), written out in NumPy: a network of one
  tanh hidden layer over :data:`ratscrew.rl.agents.MLP_FEATURES` (the same inputs at every
  preset and table size), policy and value heads.

Every random draw follows from ``seed``: the same seed and number of episodes give the same
file, byte for byte. ``minutes`` is a budget: training stops at the first batch boundary after
it, and the file's spec records how many episodes that was (``episodes=`` then reproduces it
exactly on any machine).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ratscrew.rl.agents import (
    MLP_FEATURES,
    TABULAR_FEATURES,
    Agent,
    AgentSpec,
    DecisionGate,
    Fields,
    mlp_features,
)
from ratscrew.rl.core import PLAY, SLAP
from ratscrew.rl.gym_env import ErsEnv

TRAINABLE = ("tabular", "ppo")
Report = Callable[[str], object]
Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class TrainOptions:
    """What a training run is: the same options give the same agent."""

    rules: str = "classic"
    opponent: str = "casual"
    seed: int = 0
    episodes: int | None = None
    minutes: float | None = None
    max_ticks: int = 40_000


def _env(options: TrainOptions) -> ErsEnv:
    return ErsEnv(options.rules, opponents=[options.opponent], reaction=options.opponent,
                  shaping=1.0, max_ticks=options.max_ticks)


def _budget(options: TrainOptions) -> Callable[[int], bool]:
    """``more(done)``: whether to train another episode (or batch)."""
    if options.episodes is None and options.minutes is None:
        raise ValueError("give a number of episodes or a number of minutes")
    deadline = None if options.minutes is None else time.monotonic() + 60 * options.minutes

    def more(done: int) -> bool:
        if options.episodes is not None:
            return done < options.episodes
        assert deadline is not None
        return time.monotonic() < deadline

    return more


def train(name: str, options: TrainOptions, report: Report = lambda line: None) -> Agent:
    """Train the agent ``name`` (one of :data:`TRAINABLE`)."""
    if name == "tabular":
        return train_tabular(options, report)
    if name == "ppo":
        return train_ppo(options, report)
    raise ValueError(f"cannot train {name!r}: choose one of {', '.join(TRAINABLE)}")


def _info(options: TrainOptions, episodes: int, seconds: float, **extra: Any) -> dict[str, Any]:
    # No clock time here: a --minutes run and its --episodes rerun make the same bytes.
    return {"rules": options.rules, "opponent": options.opponent, "seed": options.seed,
            "episodes": episodes,
            "command": f"ratscrew bench train {{name}} --episodes {episodes} --seed {options.seed}",
            **extra}


# ---------------------------------------------------------------------- tabular

def train_tabular(options: TrainOptions, report: Report = lambda line: None) -> Agent:
    """The tabular REINFORCE policy of docs/rl.md (its defaults: patience 3, lr 1, gamma
    0.97)."""
    from ratscrew.rl.learn import TabularPolicy, feature_reader, play_episode, update

    env = _env(options)
    state = feature_reader(env)
    policy = TabularPolicy(1 << len(TABULAR_FEATURES), patience=3.0, seed=options.seed)
    more = _budget(options)
    started = time.monotonic()
    done = 0
    wins: list[bool] = []
    while more(done):
        episode = play_episode(env, lambda x, mask: policy.act(state(x), mask),
                               seed=options.seed * 1_000_003 + done, record=True, state=state)
        update(policy, episode, 0.97, 1.0)
        wins.append(episode.won)
        done += 1
        if done % 50 == 0:
            report(f"tabular: {done} episodes, win rate (last 50) {np.mean(wins[-50:]):.2f}")
    info = _info(options, done, time.monotonic() - started)
    info["command"] = info["command"].format(name="tabular")
    spec = AgentSpec(name="tabular", kind="policy", policy="tabular", info=info,
                     description="REINFORCE over seven yes/no features (docs/rl.md), greedy")
    return Agent(spec, {"theta": policy.theta.copy(), "visits": policy.visits.copy()})


# ---------------------------------------------------------------------- PPO

HIDDEN = 32
BATCH_EPISODES = 4
EPOCHS = 4
MINIBATCH = 256
CLIP = 0.2
GAMMA = 0.95
LAMBDA = 0.9
LEARNING_RATE = 3e-3
ENTROPY = 0.01
VALUE_WEIGHT = 0.5


class Network:
    """Policy and value heads over one tanh hidden layer, with Adam (NumPy)."""

    def __init__(self, inputs: int, rng: np.random.Generator) -> None:
        scale = 1.0 / np.sqrt(inputs)
        self.params: dict[str, Floats] = {
            "w1": rng.normal(0.0, scale, (inputs, HIDDEN)), "b1": np.zeros(HIDDEN),
            "w2": rng.normal(0.0, 0.01, (HIDDEN, 3)), "b2": np.array([0.0, 0.0, -3.0]),
            "wv": rng.normal(0.0, 0.01, (HIDDEN, 1)), "bv": np.zeros(1),
        }
        self._m = {k: np.zeros_like(v) for k, v in self.params.items()}
        self._v = {k: np.zeros_like(v) for k, v in self.params.items()}
        self._t = 0

    def forward(self, x: Floats) -> tuple[Floats, Floats, Floats]:
        """Hidden layer, logits and values for a batch of inputs."""
        p = self.params
        hidden = np.tanh(x @ p["w1"] + p["b1"])
        return hidden, hidden @ p["w2"] + p["b2"], (hidden @ p["wv"] + p["bv"])[:, 0]

    def step(self, grads: dict[str, Floats]) -> None:
        """One Adam step (descent on the loss whose gradients are given)."""
        self._t += 1
        for key, grad in grads.items():
            self._m[key] = 0.9 * self._m[key] + 0.1 * grad
            self._v[key] = 0.999 * self._v[key] + 0.001 * grad * grad
            m = self._m[key] / (1 - 0.9 ** self._t)
            v = self._v[key] / (1 - 0.999 ** self._t)
            self.params[key] -= LEARNING_RATE * m / (np.sqrt(v) + 1e-8)


def _masked_softmax(logits: Floats, masks: Floats) -> Floats:
    z = np.where(masks > 0, logits, -1e9)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z) * (masks > 0)
    return e / e.sum(axis=1, keepdims=True)  # type: ignore[no-any-return]


def _ppo_update(net: Network, x: Floats, masks: Floats, actions: npt.NDArray[np.int64],
                old_logp: Floats, advantages: Floats, returns: Floats,
                rng: np.random.Generator) -> None:
    n = len(actions)
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    for _ in range(EPOCHS):
        order = rng.permutation(n)
        for start in range(0, n, MINIBATCH):
            idx = order[start:start + MINIBATCH]
            xb, mb, ab = x[idx], masks[idx], actions[idx]
            hidden, logits, values = net.forward(xb)
            probs = _masked_softmax(logits, mb)
            rows = np.arange(len(idx))
            logp = np.log(probs[rows, ab] + 1e-12)
            ratio = np.exp(logp - old_logp[idx])
            adv = advantages[idx]
            clipped = (ratio < 1 - CLIP) & (adv < 0) | (ratio > 1 + CLIP) & (adv > 0)
            # d(-surrogate)/d logp = -adv * ratio where not clipped
            dlogp = np.where(clipped, 0.0, -adv * ratio) / len(idx)
            onehot = np.zeros_like(probs)
            onehot[rows, ab] = 1.0
            dlogits = dlogp[:, None] * (onehot - probs)
            # entropy bonus: loss -= ENTROPY * H; dH/dlogits = -p (log p + H)
            logs = np.log(probs + 1e-12) * (mb > 0)
            entropy = -(probs * logs).sum(axis=1, keepdims=True)
            dlogits += ENTROPY * probs * (logs + entropy) / len(idx)
            dlogits *= mb > 0
            dvalues = VALUE_WEIGHT * 2.0 * (values - returns[idx]) / len(idx)
            p = net.params
            grads = {"w2": hidden.T @ dlogits, "b2": dlogits.sum(axis=0),
                     "wv": hidden.T @ dvalues[:, None], "bv": np.array([dvalues.sum()])}
            dhidden = (dlogits @ p["w2"].T + dvalues[:, None] @ p["wv"].T) * (1 - hidden ** 2)
            grads["w1"] = xb.T @ dhidden
            grads["b1"] = dhidden.sum(axis=0)
            norm = np.sqrt(sum(float((g * g).sum()) for g in grads.values()))
            if norm > 0.5:
                grads = {k: g * (0.5 / norm) for k, g in grads.items()}
            net.step(grads)


def _gae(rewards: Floats, values: Floats, last_value: float) -> tuple[Floats, Floats]:
    advantages = np.zeros_like(rewards)
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        next_value = values[t + 1] if t + 1 < len(values) else last_value
        delta = rewards[t] + GAMMA * next_value - values[t]
        running = delta + GAMMA * LAMBDA * running
        advantages[t] = running
    return advantages, advantages + values


def train_ppo(options: TrainOptions, report: Report = lambda line: None) -> Agent:
    """PPO in NumPy (see the module docstring)."""
    env = _env(options)
    rules = env.core.rules
    fields = Fields.of(env.core.encoder, rules)
    rng = np.random.default_rng(options.seed)
    net = Network(len(MLP_FEATURES), rng)
    more = _budget(options)
    started = time.monotonic()
    done = 0
    wins: list[bool] = []
    buffer = np.empty(len(MLP_FEATURES))
    while more(done):
        xs: list[Floats] = []
        masks: list[Floats] = []
        actions: list[int] = []
        logps: list[float] = []
        advantages: list[Floats] = []
        returns: list[Floats] = []
        for _ in range(BATCH_EPISODES):
            observation, _ = env.reset(seed=options.seed * 1_000_003 + done)
            ep_x: list[Floats] = []
            ep_rewards: list[float] = []
            ep_values: list[float] = []
            gate = DecisionGate(fields)
            while True:
                mask = observation["action_mask"]
                due = gate.due(observation["observation"], mask)
                if not (mask[PLAY] or mask[SLAP]) or not due:
                    # nothing to decide: wait, the reward carried to the last decision
                    observation, reward, terminated, truncated, info = env.step(0)
                    if ep_rewards:
                        ep_rewards[-1] += float(reward)
                    if terminated or truncated:
                        break
                    continue
                features = mlp_features(fields, observation["observation"], buffer).copy()
                hidden = np.tanh(features @ net.params["w1"] + net.params["b1"])
                logits = hidden @ net.params["w2"] + net.params["b2"]
                value = float(hidden @ net.params["wv"][:, 0] + net.params["bv"][0])
                probs = _masked_softmax(logits[None, :], mask[None, :].astype(float))[0]
                action = int(np.searchsorted(np.cumsum(probs), rng.random() * 0.999999))
                observation, reward, terminated, truncated, info = env.step(action)
                ep_x.append(features)
                masks.append(mask.astype(float))
                actions.append(action)
                logps.append(float(np.log(probs[action] + 1e-12)))
                ep_values.append(value)
                ep_rewards.append(float(reward))
                if terminated or truncated:
                    break
            if truncated and ep_rewards:
                ep_rewards[-1] -= 1.0  # training only: a stalled game counts as lost
            won = info.get("winner") == env.seat
            wins.append(bool(won))
            done += 1
            if ep_x:
                adv, ret = _gae(np.array(ep_rewards), np.array(ep_values), 0.0)
                xs.extend(ep_x)
                advantages.append(adv)
                returns.append(ret)
        if xs:
            _ppo_update(net, np.array(xs), np.array(masks), np.array(actions, dtype=np.int64),
                        np.array(logps), np.concatenate(advantages), np.concatenate(returns), rng)
        if done % 20 == 0:
            report(f"ppo: {done} episodes, win rate (last 20) {np.mean(wins[-20:]):.2f}")
    info = _info(options, done, time.monotonic() - started, hidden=HIDDEN,
                 batch_episodes=BATCH_EPISODES, epochs=EPOCHS, clip=CLIP, gamma=GAMMA,
                 gae_lambda=LAMBDA, learning_rate=LEARNING_RATE, entropy=ENTROPY)
    info["command"] = info["command"].format(name="ppo")
    spec = AgentSpec(name="ppo", kind="policy", policy="mlp", info=info,
                     description="PPO (NumPy) over 23 features, one tanh layer of 32, greedy")
    weights = {key: net.params[key].copy() for key in ("w1", "b1", "w2", "b2")}
    return Agent(spec, weights)
