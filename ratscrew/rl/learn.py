"""A small learner in NumPy for the worked experiment of ``docs/rl.md``: a linear softmax policy
over the encoded observation, trained by REINFORCE with a linear value baseline, against a bot
and at that bot's own reaction profile ("equal hands": only the decisions differ).

Run (about ten minutes on one core)::

    python -m ratscrew.rl.learn --rules classic --opponent casual --episodes 600 \\
        --out docs/img/rl-training.png

It prints the win rate as training goes, then evaluates the trained policy, a scripted
"sure hand" (plays at once, slaps exactly the patterns, never anything else) held to the same
reaction profile, and the bot against itself, and plots the win rate over training with those
references. The CSV of the curve is written beside the plot.

>>> policy = LinearPolicy(size=4, seed=0)
>>> mask = np.array([1, 0, 1], dtype=np.int8)
>>> probabilities = policy.probabilities(np.ones(4, dtype=np.float32), mask)
>>> [round(float(p), 2) for p in probabilities]
[0.5, 0.0, 0.5]
"""

from __future__ import annotations

import argparse
import csv
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ratscrew.rl.core import ACTIONS, PLAY, SLAP, WAIT
from ratscrew.rl.gym_env import ErsEnv

Vector = npt.NDArray[np.float32]


class LinearPolicy:
    """``softmax(W x + b)`` over the actions the mask allows, with a linear value ``v x + c``
    as the baseline."""

    def __init__(self, size: int, seed: int = 0) -> None:
        self.weights = np.zeros((len(ACTIONS), size), dtype=np.float64)
        self.bias = np.zeros(len(ACTIONS), dtype=np.float64)
        self.value_weights = np.zeros(size, dtype=np.float64)
        self.value_bias = 0.0
        self.rng = np.random.default_rng(seed)

    def probabilities(self, x: Vector, mask: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        """The policy's action probabilities in this state (zero where the mask forbids)."""
        logits = self.weights @ x + self.bias
        logits = np.where(mask > 0, logits, -np.inf)
        logits -= logits.max()
        weights = np.exp(logits)
        return weights / weights.sum()  # type: ignore[no-any-return]

    def act(self, x: Vector, mask: npt.NDArray[np.int8], greedy: bool = False) -> int:
        """An action drawn from the policy (its most likely one if ``greedy``)."""
        probabilities = self.probabilities(x, mask)
        if greedy:
            return int(np.argmax(probabilities))
        return int(np.searchsorted(np.cumsum(probabilities), self.rng.random() * 0.999999))


@dataclass
class Episode:
    """What one episode recorded: states, masks, actions, rewards, and how it ended."""

    states: list[Vector] = field(default_factory=list)
    masks: list[npt.NDArray[np.int8]] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    place: int = 0
    won: bool = False
    truncated: bool = False


def play_episode(env: ErsEnv, choose: Any, seed: int, record: bool) -> Episode:
    """One episode with ``choose(vector, mask) -> action``."""
    episode = Episode()
    observation, _ = env.reset(seed=seed)
    while True:
        x, mask = observation["observation"], observation["action_mask"]
        action = choose(x, mask)
        if record:
            episode.states.append(x)
            episode.masks.append(mask)
            episode.actions.append(action)
        observation, reward, terminated, truncated, info = env.step(action)
        if record:
            episode.rewards.append(float(reward))
        if terminated or truncated:
            episode.place = int(info["place"])
            episode.won = info.get("winner") == env.seat
            episode.truncated = bool(truncated)
            if truncated and record:
                episode.rewards[-1] -= 1.0  # training only: a stalled game counts as lost
            return episode


def discounted(rewards: list[float], gamma: float) -> npt.NDArray[np.float64]:
    """Returns ``G_t = r_t + gamma G_{t+1}``.

    >>> discounted([0.0, 0.0, 1.0], 0.5).tolist()
    [0.25, 0.5, 1.0]
    """
    out = np.zeros(len(rewards))
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def update(policy: LinearPolicy, episode: Episode, gamma: float, lr: float, value_lr: float) -> None:
    """One REINFORCE step from an episode, with the value baseline fitted alongside."""
    states = np.asarray(episode.states, dtype=np.float64)
    masks = np.asarray(episode.masks)
    actions = np.asarray(episode.actions)
    returns = discounted(episode.rewards, gamma)
    values = states @ policy.value_weights + policy.value_bias
    advantages = returns - values
    # The value baseline: least squares by gradient steps.
    policy.value_weights += value_lr * states.T @ advantages / len(states)
    policy.value_bias += value_lr * float(advantages.mean())
    scale = advantages.std() + 1e-8
    advantages = advantages / scale
    logits = states @ policy.weights.T + policy.bias
    logits = np.where(masks > 0, logits, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    probabilities = np.exp(logits)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    chosen = np.zeros_like(probabilities)
    chosen[np.arange(len(actions)), actions] = 1.0
    gradient = (chosen - probabilities) * advantages[:, None]
    policy.weights += lr * gradient.T @ states / len(states)
    policy.bias += lr * gradient.mean(axis=0)


def sure_hand(env: ErsEnv) -> Any:
    """The scripted reference: slap exactly when the pile shows a pattern (or a won pile waits
    for this seat to claim it) and then wait for the slap to land; otherwise play at once when
    it may."""
    fields = dict(env.core.encoder.fields)
    pattern = fields["slap_pattern"]
    collection = fields["collection"]

    def choose(x: Vector, mask: npt.NDArray[np.int8]) -> int:
        claim = x[collection.start] > 0 and (x[collection.start + 1] > 0 or x[collection.start + 2] > 0)
        if x[pattern].any() or (claim and env.core.rules.collect == "slap"):
            return SLAP if mask[SLAP] else WAIT  # never cover a pile worth slapping
        return PLAY if mask[PLAY] else WAIT

    return choose


def win_rate(env: ErsEnv, choose: Any, episodes: int, first_seed: int) -> float:
    """The share of ``episodes`` won."""
    wins = sum(play_episode(env, choose, first_seed + i, record=False).won
               for i in range(episodes))
    return wins / episodes


def bot_against_itself(rules: str, opponent: str, games: int, first_seed: int) -> float:
    """The bot's win rate in seat 0 against the same bot (what equal hands and equal decisions
    give)."""
    from ratscrew.bots.profile import level
    from ratscrew.ruleset import Ruleset
    from ratscrew.sim.jobs import play_reference_game

    profile = level(opponent)
    wins = sum(play_reference_game(Ruleset.load(rules), (profile, profile), first_seed + i).winner == 0
               for i in range(games))
    return wins / games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rules", default="classic", help="preset or TOML ruleset (default classic)")
    parser.add_argument("--opponent", default="casual", help="the bot level to learn against")
    parser.add_argument("--episodes", type=int, default=600, help="training episodes")
    parser.add_argument("--evaluate", type=int, default=200, help="episodes per final evaluation")
    parser.add_argument("--shaping", type=float, default=1.0, help="reward per cards won / deck")
    parser.add_argument("--gamma", type=float, default=0.995, help="discount per tick")
    parser.add_argument("--lr", type=float, default=0.5, help="policy step size")
    parser.add_argument("--max-ticks", type=int, default=40_000, help="tick limit per episode")
    parser.add_argument("--window", type=int, default=50, help="episodes per point of the curve")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="plot to write (PNG); its CSV goes beside it")
    args = parser.parse_args(argv)
    env = ErsEnv(args.rules, opponents=[args.opponent], reaction=args.opponent,
                 shaping=args.shaping, max_ticks=args.max_ticks)
    policy = LinearPolicy(env.core.encoder.size, seed=args.seed)
    curve: list[tuple[int, float, float]] = []
    wins: list[bool] = []
    ticks = 0
    start = time.perf_counter()
    for number in range(args.episodes):
        episode = play_episode(env, policy.act, seed=args.seed * 1_000_003 + number, record=True)
        ticks += len(episode.actions)
        update(policy, episode, args.gamma, args.lr, value_lr=0.05)
        wins.append(episode.won)
        if (number + 1) % args.window == 0:
            recent = wins[-args.window:]
            rate = sum(recent) / len(recent)
            curve.append((number + 1, rate, ticks / (time.perf_counter() - start)))
            print(f"episodes {number + 1:>5}  win rate (last {args.window}) {rate:.2f}  "
                  f"steps/s {curve[-1][2]:,.0f}", flush=True)
    evaluation_seed = 10_000_000
    learned = win_rate(env, policy.act, args.evaluate, evaluation_seed)
    greedy = win_rate(env, lambda x, m: policy.act(x, m, greedy=True), args.evaluate, evaluation_seed)
    scripted = win_rate(env, sure_hand(env), args.evaluate, evaluation_seed)
    mirror = bot_against_itself(args.rules, args.opponent, args.evaluate, evaluation_seed)
    print(f"after training, over {args.evaluate} games against {args.opponent} "
          f"(reaction: {args.opponent}'s):")
    print(f"  learned policy   {learned:.2f}  (greedy: {greedy:.2f})")
    print(f"  sure hand        {scripted:.2f}")
    print(f"  {args.opponent} vs {args.opponent:<7} {mirror:.2f}")
    report_policy(policy, env)
    if args.out is not None:
        plot(args, curve, learned, greedy, scripted, mirror)
    return 0


def report_policy(policy: LinearPolicy, env: ErsEnv) -> None:
    """The weights that matter most, by field: what the policy learned to look at."""
    for action in (PLAY, SLAP):
        contrast = policy.weights[action] - policy.weights[WAIT]
        print(f"  {ACTIONS[action]} vs wait, bias {policy.bias[action] - policy.bias[WAIT]:+.2f}; "
              "strongest features:")
        for index in np.argsort(-np.abs(contrast))[:6]:
            name = next(name for name, part in env.core.encoder.fields
                        if part.start <= index < part.stop)
            print(f"    {name}[{index - dict(env.core.encoder.fields)[name].start}] "
                  f"{contrast[index]:+.2f}")


def plot(args: argparse.Namespace, curve: list[tuple[int, float, float]], learned: float,
         greedy: float, scripted: float, mirror: float) -> None:
    """The win rate over training, with the references, as PNG plus CSV."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out: Path = args.out
    with out.with_suffix(".csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["episodes", "win_rate", "steps_per_s"])
        writer.writerows(curve)
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.plot([c[0] for c in curve], [c[1] for c in curve], marker="o",
              label=f"learning policy (win rate over the last {args.window} episodes)")
    axes.axhline(scripted, color="tab:green", linestyle="--", label=f"sure hand (scripted) {scripted:.2f}")
    axes.axhline(mirror, color="tab:gray", linestyle=":",
                 label=f"{args.opponent} vs {args.opponent} {mirror:.2f}")
    axes.axhline(greedy, color="tab:orange", linestyle="-.", label=f"trained policy, greedy {greedy:.2f}")
    axes.set_ylim(0, 1)
    axes.set_xlabel("training episodes")
    axes.set_ylabel(f"win rate against {args.opponent}")
    axes.set_title(f"{args.rules}, 2 seats, learner at {args.opponent}'s reaction profile")
    axes.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    figure.savefig(out, dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
