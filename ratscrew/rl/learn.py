"""A small learner in NumPy for the worked experiment of ``docs/rl.md``: a tabular softmax
policy over a few features read from the encoded observation, trained by REINFORCE against a
bot and at that bot's own reaction profile ("equal hands": only the decisions differ).

Run (about a quarter of an hour on one core)::

    python -m ratscrew.rl.learn --rules classic --opponent casual --episodes 400 \\
        --out docs/img/rl-training.png

It prints the win rate as training goes, then evaluates the trained policy, a scripted
"sure hand" (slaps exactly the patterns, otherwise plays at once) held to the same reaction
profile, and the bot against itself; prints the learned policy state by state; and plots the
win rate over training with those references (the CSV of the curve is written beside it).

The features (:data:`FEATURES`) are yes/no questions about the observation vector, so the
policy is a table of ``2 ** len(FEATURES)`` states by three actions: small enough to read.

>>> policy = TabularPolicy(states=4, patience=0.0)
>>> mask = np.array([1, 0, 1], dtype=np.int8)
>>> [round(float(p), 2) for p in policy.probabilities(3, mask)]
[0.5, 0.0, 0.5]
"""

from __future__ import annotations

import argparse
import csv
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ratscrew.rl.agents import TABULAR_FEATURES
from ratscrew.rl.core import ACTIONS, PLAY, SLAP, WAIT
from ratscrew.rl.encoding import CLOCK_SCALE_MS
from ratscrew.rl.gym_env import ErsEnv

Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]

FEATURES = TABULAR_FEATURES
"""The yes/no features the tabular policy sees, bit by bit (one home: `ratscrew.rl.agents`,
where the saved tabular agent reads them too)."""


def feature_reader(env: ErsEnv) -> Callable[[Vector], int]:
    """A function from an observation vector to its state number (the features as bits)."""
    fields = dict(env.core.encoder.fields)
    pattern = fields["slap_pattern"]
    since = fields["since_card"].start
    turn = fields["turn"].start
    hand = fields["hand_sizes"].start
    collection = fields["collection"].start
    flight = fields["in_flight"].start
    fresh = 100 / CLOCK_SCALE_MS

    def state(x: Vector) -> int:
        waits = x[collection] > 0
        mine = waits and x[collection + 1] > 0
        bits = (x[pattern].any(), x[since] <= fresh, x[turn] > 0, x[hand] > 0, mine,
                waits and not mine, x[flight + 1] > 0)
        return sum(1 << i for i, bit in enumerate(bits) if bit)

    return state


def describe_state(number: int) -> str:
    """The features that are true in a state, by name."""
    names = [name for i, (name, _) in enumerate(FEATURES) if number >> i & 1]
    return ", ".join(names) or "(none)"


class TabularPolicy:
    """``softmax(theta[state])`` over the actions the mask allows, with a per-state baseline."""

    def __init__(self, states: int, patience: float = 0.0, seed: int = 0) -> None:
        self.theta = np.zeros((states, len(ACTIONS)))
        self.theta[:, SLAP] = -patience  # > 0: start by slapping rarely (see main)
        self.baseline = np.zeros(states)
        self.visits = np.zeros(states)
        self.rng = np.random.default_rng(seed)

    def probabilities(self, state: int, mask: Mask) -> npt.NDArray[np.float64]:
        """The action probabilities in ``state`` (zero where the mask forbids)."""
        logits = np.where(mask > 0, self.theta[state], -np.inf)
        weights = np.exp(logits - logits.max())
        return weights / weights.sum()  # type: ignore[no-any-return]

    def act(self, state: int, mask: Mask, greedy: bool = False) -> int:
        """An action drawn from the policy (its most likely one if ``greedy``)."""
        probabilities = self.probabilities(state, mask)
        if greedy:
            return int(np.argmax(probabilities))
        return int(np.searchsorted(np.cumsum(probabilities), self.rng.random() * 0.999999))


@dataclass
class Episode:
    """What one episode recorded: states, masks, actions, rewards, and how it ended."""

    states: list[int] = field(default_factory=list)
    masks: list[npt.NDArray[np.int8]] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    place: int = 0
    won: bool = False
    truncated: bool = False


def play_episode(env: ErsEnv, choose: Callable[[Vector, Mask], int], seed: int, record: bool,
                 state: Callable[[Vector], int] | None = None) -> Episode:
    """One episode with ``choose(vector, mask) -> action``; with ``record``, the states (by
    ``state``), masks, actions and rewards are kept."""
    episode = Episode()
    observation, _ = env.reset(seed=seed)
    while True:
        x, mask = observation["observation"], observation["action_mask"]
        action = choose(x, mask)
        if record and state is not None:
            episode.states.append(state(x))
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


def update(policy: TabularPolicy, episode: Episode, gamma: float, lr: float) -> None:
    """One REINFORCE step from an episode: each state's logits move by the mean, over its
    visits, of ``(chosen - probabilities) * (return - baseline)``, so rare states (a pattern
    showing) learn as fast as common ones."""
    states = np.asarray(episode.states)
    masks = np.asarray(episode.masks)
    actions = np.asarray(episode.actions)
    returns = discounted(episode.rewards, gamma)
    advantages = returns - policy.baseline[states]
    advantages /= advantages.std() + 1e-9  # rewards are small (a card is 1/52): step in units
    logits = np.where(masks > 0, policy.theta[states], -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    probabilities = np.exp(logits)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    chosen = np.zeros_like(probabilities)
    chosen[np.arange(len(actions)), actions] = 1.0
    counts = np.bincount(states, minlength=len(policy.baseline)).astype(float)
    gradient = np.zeros_like(policy.theta)
    np.add.at(gradient, states, (chosen - probabilities) * advantages[:, None])
    seen = counts > 0
    policy.theta[seen] += lr * gradient[seen] / counts[seen, None]
    sums = np.bincount(states, weights=returns, minlength=len(policy.baseline))
    policy.baseline[seen] += 0.2 * (sums[seen] / counts[seen] - policy.baseline[seen])
    policy.visits += counts


def sure_hand(env: ErsEnv) -> Callable[[Vector, Mask], int]:
    """The scripted reference: slap exactly when the pile shows a pattern (or a won pile waits
    for this seat to claim it) and then wait for the slap to land; otherwise play at once when
    it may."""
    fields = dict(env.core.encoder.fields)
    pattern = fields["slap_pattern"]
    collection = fields["collection"]

    def choose(x: Vector, mask: Mask) -> int:
        claim = x[collection.start] > 0 and (x[collection.start + 1] > 0 or x[collection.start + 2] > 0)
        if x[pattern].any() or (claim and env.core.rules.collect == "slap"):
            return SLAP if mask[SLAP] else WAIT  # never cover a pile worth slapping
        return PLAY if mask[PLAY] else WAIT

    return choose


def win_rate(env: ErsEnv, choose: Callable[[Vector, Mask], int], episodes: int,
             first_seed: int) -> float:
    """The share of ``episodes`` won."""
    wins = sum(play_episode(env, choose, first_seed + i, record=False).won
               for i in range(episodes))
    return wins / episodes


def bot_against_itself(rules: str, opponent: str, games: int, first_seed: int) -> float:
    """The bot's win rate in seat 0 against the same bot (what equal hands and equal decisions
    give)."""
    from ratscrew.bots.profile import level
    from ratscrew.ruleset import Ruleset
    from ratscrew.sim.reference import run_reference_game

    profile = level(opponent)
    wins = sum(run_reference_game(Ruleset.load(rules), (profile, profile), first_seed + i).winner == 0
               for i in range(games))
    return wins / games


def _first_paragraph(text: str) -> str:
    r"""The first paragraph of a docstring as one line, for ``--help``.

    >>> _first_paragraph("A learner\nfor ERS.\n\nMore.")
    'A learner for ERS.'
    """
    return " ".join(text.strip().split("\n\n")[0].split())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ratscrew.rl.learn", description=_first_paragraph(__doc__ or ""),
        epilog="example: python -m ratscrew.rl.learn --rules classic --opponent casual "
               "--episodes 400 --out rl-training.png (docs/rl.md)")
    parser.add_argument("--rules", default="classic", help="preset or TOML ruleset (default classic)")
    parser.add_argument("--opponent", default="casual", help="the bot level to learn against")
    parser.add_argument("--episodes", type=int, default=600, help="training episodes")
    parser.add_argument("--evaluate", type=int, default=100, help="episodes per final evaluation")
    parser.add_argument("--shaping", type=float, default=1.0, help="reward per cards won / deck")
    parser.add_argument("--gamma", type=float, default=0.97, help="discount per tick")
    parser.add_argument("--lr", type=float, default=1.0, help="policy step size")
    parser.add_argument("--patience", type=float, default=3.0,
                        help="initial reluctance to slap (logit; default 3)")
    parser.add_argument("--max-ticks", type=int, default=40_000, help="tick limit per episode")
    parser.add_argument("--window", type=int, default=50, help="episodes per point of the curve")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="plot to write (PNG); its CSV goes beside it")
    args = parser.parse_args(argv)
    env = ErsEnv(args.rules, opponents=[args.opponent], reaction=args.opponent,
                 shaping=args.shaping, max_ticks=args.max_ticks)
    # A tick is 25 ms: a policy that picks uniformly slaps about every 75 ms, so it always has
    # a slap on its way and no single choice makes a difference to learn from. It starts by
    # slapping rarely instead (about once a second), and playing as readily as waiting.
    state = feature_reader(env)
    policy = TabularPolicy(1 << len(FEATURES), patience=args.patience, seed=args.seed)

    def sample(x: Vector, mask: Mask) -> int:
        return policy.act(state(x), mask)

    def greedy(x: Vector, mask: Mask) -> int:
        return policy.act(state(x), mask, greedy=True)

    curve: list[tuple[int, float, float]] = []
    wins: list[bool] = []
    ticks = 0
    start = time.perf_counter()
    for number in range(args.episodes):
        episode = play_episode(env, sample, seed=args.seed * 1_000_003 + number, record=True,
                               state=state)
        ticks += len(episode.actions)
        update(policy, episode, args.gamma, args.lr)
        wins.append(episode.won)
        if (number + 1) % args.window == 0:
            recent = wins[-args.window:]
            rate = sum(recent) / len(recent)
            curve.append((number + 1, rate, ticks / (time.perf_counter() - start)))
            print(f"episodes {number + 1:>5}  win rate (last {args.window}) {rate:.2f}  "
                  f"steps/s {curve[-1][2]:,.0f}", flush=True)
    evaluation_seed = 10_000_000
    learned = win_rate(env, sample, args.evaluate, evaluation_seed)
    greedy_rate = win_rate(env, greedy, args.evaluate, evaluation_seed)
    scripted = win_rate(env, sure_hand(env), args.evaluate, evaluation_seed)
    mirror = bot_against_itself(args.rules, args.opponent, args.evaluate, evaluation_seed)
    print(f"after training, over {args.evaluate} games against {args.opponent} "
          f"(reaction: {args.opponent}'s):")
    print(f"  learned policy   {learned:.2f}  (greedy: {greedy_rate:.2f})")
    print(f"  sure hand        {scripted:.2f}")
    print(f"  {args.opponent} vs {args.opponent:<7} {mirror:.2f}")
    report_policy(policy)
    if args.out is not None:
        plot(args, curve, learned, greedy_rate, scripted, mirror)
    return 0


def report_policy(policy: TabularPolicy) -> None:
    """The learned policy, state by state (states seen at least 200 times), as the chances of
    each action when all three are allowed."""
    every = np.ones(len(ACTIONS), dtype=np.int8)
    print(f"  {'visits':>9}  {'wait':>5} {'play':>5} {'slap':>5}  state")
    for number in np.argsort(-policy.visits):
        if policy.visits[number] < 200:
            break
        p = policy.probabilities(int(number), every)
        print(f"  {int(policy.visits[number]):>9}  {p[WAIT]:5.2f} {p[PLAY]:5.2f} {p[SLAP]:5.2f}  "
              f"{describe_state(int(number))}")


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
