"""ERS-Bench's agents: what they are, how they are saved, and how one is loaded.

An agent is a small ``.npz`` file holding its **spec** (a JSON object: name, kind, the human
reaction profile it is held to, what it is) and its **weights** (NumPy arrays), loadable with
NumPy alone (``allow_pickle=False``). :func:`load` takes a built-in name (``sure-hand``,
``casual``, ``tabular`` ...) or the path of a file.

Kinds:

- ``policy`` agents choose ``wait``, ``play`` or ``slap`` at every tick of the learning
  environments' table (:class:`ratscrew.rl.core.TickTable`), from the encoded observation and
  its mask: ``random`` (uniform over the mask), ``never-slap``, ``always-slap`` (the flincher),
  ``sure-hand`` (scripted), ``tabular`` (the REINFORCE table of docs/rl.md) and ``mlp`` (a
  small network, trained by PPO: :mod:`ratscrew.rl.bench`). Their actions land a reaction time
  after they choose them (see docs/rl.md).
- ``bot`` agents are bot profiles (:mod:`ratscrew.bots.profile`): the five levels, and
  ``counting``, a casual player who never misses or flinches and remembers every collected
  card (the only agent that counts: docs/bench.md says where it pays). They sit at the table as
  the project's `BotAgent`.

>>> agent = load("sure-hand")
>>> agent.name, agent.kind, agent.reaction
('sure-hand', 'policy', 'casual')
>>> sorted(BUILTIN)[:3]
['always-slap', 'attentive', 'beginner']
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ratscrew.bots.agent import BotAgent, draw_reaction_ms
from ratscrew.bots.profile import LEVELS, BotProfile
from ratscrew.bots.spec import AGENT_PREFIX, is_agent_spec, parse_bot_spec
from ratscrew.cards import Card
from ratscrew.errors import IllegalActionError
from ratscrew.events import (
    CardPlayed,
    CardsBurned,
    Event,
    Misslap,
    PileWon,
    SlapIgnored,
    SlapTie,
    SlapWon,
)
from ratscrew.patterns import find_slap
from ratscrew.rl.core import PLAY, SLAP, WAIT
from ratscrew.rl.encoding import CLOCK_SCALE_MS, ObservationEncoder
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import Answer, Intent, Observation

Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]
Policy = Callable[[Vector, Mask], int]
"""``policy(vector, mask) -> action``: one tick's choice (0 wait, 1 play, 2 slap)."""

FORMAT = "ers-bench-agent/1"
"""The ``format`` every agent file's spec carries."""
DEFAULT_REACTION = "casual"
"""The human reaction profile an agent is held to unless its spec names another."""
ZOO = "zoo"
"""The package folder (``ratscrew/rl/zoo``) of the shipped trained agents."""
POLICY_KINDS = ("random", "never-slap", "always-slap", "sure-hand", "tabular", "mlp")


class AgentFileError(ValueError):
    """An agent name that is not known, or a file that is not an agent."""


@dataclass
class AgentSpec:
    """What an agent is: its ``name``, ``kind`` (``policy`` or ``bot``), ``policy`` (one of
    :data:`POLICY_KINDS` for a policy agent), ``profile`` (a bot spec for a bot agent),
    ``reaction`` (the human profile whose reaction times it is held to), a ``description``,
    and ``info`` (how it was made: training options, episodes, seed)."""

    name: str
    kind: str
    description: str
    policy: str = ""
    profile: str = ""
    reaction: str = DEFAULT_REACTION
    info: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """The spec as the JSON text an agent file stores."""
        return json.dumps({"format": FORMAT, "name": self.name, "kind": self.kind,
                           "description": self.description, "policy": self.policy,
                           "profile": self.profile, "reaction": self.reaction,
                           "info": self.info}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str, where: str) -> AgentSpec:
        """The spec of a file's JSON text; anything else is an `AgentFileError`."""
        try:
            data = json.loads(text)
        except ValueError:
            raise AgentFileError(f"{where}: its spec is not JSON") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise AgentFileError(f"{where}: not an ERS-Bench agent (format {FORMAT!r} expected)")
        try:
            spec = cls(name=str(data["name"]), kind=str(data["kind"]),
                       description=str(data.get("description", "")),
                       policy=str(data.get("policy", "")), profile=str(data.get("profile", "")),
                       reaction=str(data.get("reaction", DEFAULT_REACTION)),
                       info=dict(data.get("info", {})))
        except (KeyError, TypeError, ValueError):
            raise AgentFileError(f"{where}: its spec lacks a name or a kind") from None
        spec.check(where)
        return spec

    def check(self, where: str) -> None:
        """Refuse a spec that names an unknown kind, policy, profile or reaction profile."""
        if self.kind not in ("policy", "bot"):
            raise AgentFileError(f"{where}: unknown agent kind {self.kind!r} (policy or bot)")
        if self.kind == "policy" and self.policy not in POLICY_KINDS:
            raise AgentFileError(f"{where}: unknown policy {self.policy!r}; one of "
                                 f"{', '.join(POLICY_KINDS)}")
        try:
            if self.kind == "bot":
                parse_bot_spec(self.profile)
            parse_bot_spec(self.reaction)
        except ValueError as error:
            raise AgentFileError(f"{where}: {error}") from None


@dataclass
class Agent:
    """A loaded agent: its spec and its weights (see the module docstring)."""

    spec: AgentSpec
    weights: dict[str, npt.NDArray[Any]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The agent's name (the table's row)."""
        return self.spec.name

    @property
    def kind(self) -> str:
        """``policy`` or ``bot``."""
        return self.spec.kind

    @property
    def reaction(self) -> str:
        """The human reaction profile it is held to in the human-limited track."""
        return self.spec.reaction

    def reaction_profile(self) -> BotProfile:
        """The profile its reactions are drawn from in the human-limited track."""
        return parse_bot_spec(self.spec.reaction)

    def bot_profile(self, track: str) -> BotProfile:
        """A bot agent's profile in ``track``: its own (``unlimited``), or with the reaction
        times of its reaction profile (``human``: only its decisions differ)."""
        own = parse_bot_spec(self.spec.profile)
        if track == "unlimited":
            return own
        hand = self.reaction_profile()
        return own.with_changes(mu_ms=hand.mu_ms, sigma_ms=hand.sigma_ms, tau_ms=hand.tau_ms)

    def policy(self, encoder: ObservationEncoder, rules: Ruleset, seed: int = 0) -> Policy:
        """A policy agent's tick policy for a table of ``encoder``'s shape (greedy where the
        agent has weights; the random agent draws from a generator seeded ``seed``)."""
        if self.kind != "policy":
            raise ValueError(f"agent {self.name!r} is a bot profile, not a tick policy")
        inner = make_policy(self.spec.policy, self.weights, encoder, rules, seed,
                            sample=self.spec.info.get("act") == "sample")
        return OnTheClock(inner, Fields.of(encoder, rules))

    def save(self, path: str | Path) -> Path:
        """Write the agent to ``path`` (``.npz``); returns the path written."""
        target = Path(path)
        if target.suffix != ".npz":
            target = target.with_suffix(".npz")
        target.parent.mkdir(parents=True, exist_ok=True)
        arrays = {"spec": np.frombuffer(self.spec.to_json().encode(), dtype=np.uint8),
                  **{f"w_{name}": np.asarray(value) for name, value in sorted(self.weights.items())}}
        # np.savez's layout (a zip of .npy files), with fixed dates: the same agent is the
        # same bytes (np.savez stamps each member with the current time).
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for key, array in arrays.items():
                member = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                member.compress_type = zipfile.ZIP_DEFLATED
                buffer = io.BytesIO()
                np.lib.format.write_array(buffer, np.ascontiguousarray(array), allow_pickle=False)
                archive.writestr(member, buffer.getvalue())
        return target


# ---------------------------------------------------------------------- features

@dataclass(frozen=True)
class Fields:
    """Offsets of the observation fields the built-in policies read (any preset or size)."""

    pattern: slice
    since: int
    turn: int
    hand: int
    hands: slice
    collection: int
    challenge: int
    counts: int
    tie: int
    flight: int
    collect_by_slap: bool

    @classmethod
    def of(cls, encoder: ObservationEncoder, rules: Ruleset) -> Fields:
        """The offsets in ``encoder``'s vectors."""
        parts = dict(encoder.fields)
        return cls(pattern=parts["slap_pattern"], since=parts["since_card"].start,
                   turn=parts["turn"].start, hand=parts["hand_sizes"].start,
                   hands=parts["hand_sizes"], collection=parts["collection"].start,
                   challenge=parts["challenge"].start, counts=parts["pile_counts"].start,
                   tie=parts["tie_window"].start, flight=parts["in_flight"].start,
                   collect_by_slap=rules.collect == "slap")


class OnTheClock:
    """A policy agent's tick policy on the turn clock (:data:`TURN_CLOCK`): its card is
    played for it once its turn has waited 5 s, as a room's turn time-out plays for an idle
    person; otherwise ``inner`` decides. ``since_thresholds`` (see
    `ratscrew.rl.core.TickTable.play_out`): the ``since_card`` values the answer turns on
    when only the clocks move, or ``None`` where ``inner`` does not say (it draws at every
    tick, or remembers)."""

    def __init__(self, inner: Policy, fields: Fields) -> None:
        self.inner = inner
        self.fields = fields
        own: tuple[float, ...] | None = getattr(inner, "since_thresholds", None)
        self.since_thresholds = None if own is None else (*own, TURN_CLOCK)

    def __call__(self, x: Vector, mask: Mask) -> int:
        f = self.fields
        if mask[PLAY] and x[f.turn] > 0 and x[f.since] >= TURN_CLOCK and not x[f.flight]:
            return PLAY  # its turn has waited 5 s: the card is played for it
        return self.inner(x, mask)


def with_thresholds(policy: Policy, thresholds: tuple[float, ...]) -> Policy:
    """``policy``, declaring that it answers from the observation alone and reads the clocks
    only as ``since_card`` compared with ``thresholds`` (`OnTheClock.since_thresholds`)."""
    policy.since_thresholds = thresholds  # type: ignore[attr-defined]
    return policy


TURN_CLOCK = 1.0
"""``since_card`` at which a policy agent's turn has waited long enough (5 s, where the clock
stops): its card is played for it, as a room's turn time-out plays for an idle person. The
PPO learner found that refusing to answer a challenge it was losing stalled the game (a
truncated game cost it no more than a lost one, and much later); with this clock no agent can
hold a table up."""
STALE = 1000 / CLOCK_SCALE_MS
"""``since_card`` above this: a pattern has shown for over a second, so the sure hand's slap
did not take it (under ``ratscrew`` and ``northwest`` rules the engine may ignore a slap at a
pattern): it plays on rather than wait for a pile it cannot take (without this it stalled
half of its human-track games under those rules)."""
FRESH = 100 / CLOCK_SCALE_MS
"""``since_card`` at or below this: the pile changed within the last 100 ms."""

TABULAR_FEATURES = (
    ("pattern", "the pile shows a slap pattern"),
    ("fresh", "the top card appeared (or the pile changed) within the last 100 ms"),
    ("my_turn", "it is this seat's turn"),
    ("holding", "this seat holds cards"),
    ("my_pile_waits", "a won challenge's pile waits for this seat"),
    ("their_pile_waits", "a won challenge's pile waits for another seat"),
    ("slap_on_its_way", "this seat's slap is on its way"),
)
"""The yes/no features of the tabular policy, bit by bit (those of docs/rl.md)."""


def tabular_state(f: Fields, x: Vector) -> int:
    """The tabular policy's state number: :data:`TABULAR_FEATURES` as bits."""
    waits = x[f.collection] > 0
    mine = waits and x[f.collection + 1] > 0
    bits = (x[f.pattern].any(), x[f.since] <= FRESH, x[f.turn] > 0, x[f.hand] > 0, mine,
            waits and not mine, x[f.flight + 1] > 0)
    return sum(1 << i for i, bit in enumerate(bits) if bit)


MLP_FEATURES = (
    "pattern", "fresh", "since_card", "my_turn", "nobody's_turn", "my_hand", "others_hands",
    "my_pile_waits", "their_pile_waits", "open_to_all", "collection_time", "challenge_on",
    "i_must_answer", "i_challenged", "chances_left", "pile_size", "burned", "penalty_pile",
    "tie_window", "play_on_its_way", "slap_on_its_way", "top_is_face", "bias",
)
"""The inputs of the network agent: the same for every preset and table size (so one network
sits at any table), read from the observation vector."""

_FACE_SLOTS = (9, 10, 11, 12)  # J, Q, K, A in the top card's rank one-hot


def mlp_features(f: Fields, x: Vector, out: npt.NDArray[np.float64] | None = None
                 ) -> npt.NDArray[np.float64]:
    """The network agent's inputs (:data:`MLP_FEATURES`) from an observation vector."""
    v = np.empty(len(MLP_FEATURES)) if out is None else out
    waits = x[f.collection] > 0
    mine = waits and x[f.collection + 1] > 0
    since = float(x[f.since])
    v[0] = float(x[f.pattern].any())
    v[1] = float(since <= FRESH)
    v[2] = since
    v[3] = float(x[f.turn] > 0)
    v[4] = float(x[f.turn + (f.hands.stop - f.hands.start)] > 0)
    v[5] = float(x[f.hand]) * 4.0
    v[6] = float(x[f.hands].sum() - x[f.hand]) * 4.0
    v[7] = float(mine)
    v[8] = float(waits and not mine)
    v[9] = float(x[f.collection + 2])
    v[10] = float(x[f.collection + 3])
    v[11] = float(x[f.challenge])
    v[12] = float(x[f.challenge + 1])
    v[13] = float(x[f.challenge + 2])
    v[14] = float(x[f.challenge + 3])
    v[15] = float(x[f.counts]) * 4.0
    v[16] = float(x[f.counts + 1]) * 4.0
    v[17] = float(x[f.counts + 2]) * 4.0
    v[18] = float(x[f.tie])
    v[19] = float(x[f.flight])
    v[20] = float(x[f.flight + 1])
    v[21] = float(any(x[slot] > 0 for slot in _FACE_SLOTS))
    v[22] = 1.0
    return v


DECISION_TICKS = 8
"""The network agent decides when what it sees changes (the clocks aside), or after this many
ticks without a change (200 ms); between its decisions it waits. (Acting every 25 ms tick
over a whole game gave a learner thousands of near-identical choices per game to credit: it
learned nothing in the runs tried; see docs/bench.md.)"""


class DecisionGate:
    """When a network agent decides: see :data:`DECISION_TICKS`."""

    def __init__(self, f: Fields) -> None:
        self.f = f
        self.last = b""
        self.waited = 0

    def due(self, x: Vector, mask: Mask) -> bool:
        """Whether this tick is a decision (else the agent waits)."""
        f = self.f
        since, collected = x[f.since], x[f.collection + 3]
        x[f.since] = x[f.collection + 3] = 0.0
        key = x.tobytes() + mask.tobytes()
        x[f.since], x[f.collection + 3] = since, collected
        if key != self.last or self.waited >= DECISION_TICKS:
            self.last = key
            self.waited = 0
            return True
        self.waited += 1
        return False


def mlp_logits(weights: Mapping[str, npt.NDArray[Any]], features: npt.NDArray[np.float64]
               ) -> npt.NDArray[np.float64]:
    """The network's action logits: one tanh hidden layer, then a linear layer."""
    hidden = np.tanh(features @ weights["w1"] + weights["b1"])
    return hidden @ weights["w2"] + weights["b2"]  # type: ignore[no-any-return]


def masked_argmax(logits: npt.NDArray[np.float64], mask: Mask) -> int:
    """The best action the mask allows (ties: the lowest, so ``wait`` first)."""
    best, best_value = WAIT, -np.inf
    for action in (WAIT, PLAY, SLAP):
        if mask[action] and logits[action] > best_value:
            best, best_value = action, float(logits[action])
    return best


def masked_sample(logits: npt.NDArray[np.float64], mask: Mask, u: float) -> int:
    """An action drawn from the softmax of ``logits`` over the mask, by a uniform ``u``."""
    allowed = [a for a in (WAIT, PLAY, SLAP) if mask[a]]
    values = np.array([logits[a] for a in allowed])
    weights = np.exp(values - values.max())
    cumulative = np.cumsum(weights / weights.sum())
    return allowed[min(int(np.searchsorted(cumulative, u * 0.999999)), len(allowed) - 1)]


def make_policy(kind: str, weights: Mapping[str, npt.NDArray[Any]], encoder: ObservationEncoder,
                rules: Ruleset, seed: int, sample: bool = False) -> Policy:
    """The tick policy of a ``kind`` of :data:`POLICY_KINDS` (see the module docstring);
    ``sample``: a network draws its actions from its policy (seeded by ``seed``) rather than
    taking the likeliest."""
    f = Fields.of(encoder, rules)
    if kind == "random":
        rng = random.Random(seed)

        def random_policy(x: Vector, mask: Mask) -> int:
            allowed = [a for a in (WAIT, PLAY, SLAP) if mask[a]]
            return allowed[rng.randrange(len(allowed))]
        return random_policy
    if kind == "never-slap":
        return with_thresholds(lambda x, mask: PLAY if mask[PLAY] else WAIT, ())
    if kind == "always-slap":
        def flincher(x: Vector, mask: Mask) -> int:
            if mask[PLAY] and not x[f.flight]:
                return PLAY  # it must play to keep the game going; slaps again next tick
            return SLAP if mask[SLAP] else WAIT
        return with_thresholds(flincher, ())
    if kind == "sure-hand":
        def sure_hand(x: Vector, mask: Mask) -> int:
            c = f.collection
            claim = x[c] > 0 and (x[c + 1] > 0 or x[c + 2] > 0) and f.collect_by_slap
            if (x[f.pattern].any() and x[f.since] <= STALE) or claim:
                return SLAP if mask[SLAP] else WAIT  # never cover a pile worth slapping
            return PLAY if mask[PLAY] else WAIT
        return with_thresholds(sure_hand, (STALE,))
    if kind == "tabular":
        theta = np.asarray(weights["theta"], dtype=np.float64)

        def tabular(x: Vector, mask: Mask) -> int:
            return masked_argmax(theta[tabular_state(f, x)], mask)
        return with_thresholds(tabular, (FRESH,))
    if kind == "mlp":
        buffer = np.empty(len(MLP_FEATURES))
        gate = DecisionGate(f)
        draws = random.Random(seed)

        def network(x: Vector, mask: Mask) -> int:
            if not gate.due(x, mask):
                return WAIT
            logits = mlp_logits(weights, mlp_features(f, x, buffer))
            if not sample:
                return masked_argmax(logits, mask)
            return masked_sample(logits, mask, draws.random())
        return network
    raise ValueError(f"unknown policy {kind!r}; one of {', '.join(POLICY_KINDS)}")


# ---------------------------------------------------------------------- the built-ins

def _policy(name: str, description: str) -> Agent:
    return Agent(AgentSpec(name=name, kind="policy", policy=name, description=description))


def _bot(name: str, profile: str, description: str) -> Agent:
    return Agent(AgentSpec(name=name, kind="bot", profile=profile, description=description))


COUNTING_PROFILE = "casual:miss=0,flinch=0,memory=54"
ATTENTIVE_PROFILE = "casual:miss=0,flinch=0"

BUILTIN: dict[str, Agent] = {
    "random": _policy("random", "uniform over the actions the mask allows, every tick"),
    "never-slap": _policy("never-slap", "plays at once, never slaps"),
    "always-slap": _policy("always-slap", "slaps at every tick it may (a flincher); plays at once"),
    "sure-hand": _policy("sure-hand", "scripted: slaps exactly the patterns and its own won "
                         "piles, never covers a slappable pile for its first second, "
                         "otherwise plays at once"),
    **{name: _bot(name, name, f"the {name} bot level (bots.md)") for name in LEVELS},
    "attentive": _bot("attentive", ATTENTIVE_PROFILE, "a casual bot that never misses a pattern "
                      "and never flinches, without memory (counting's control)"),
    "counting": _bot("counting", COUNTING_PROFILE, "attentive, and remembers every collected "
                     "card: it slaps a pattern it saw coming 80 ms after the card shows"),
}
"""The agents defined by their spec alone (no weights)."""

TRAINED = ("tabular", "ppo")
"""The trained agents shipped as files in ``ratscrew/rl/zoo``."""


def zoo_path(name: str) -> Path:
    """Where the shipped agent ``name`` lives in the package."""
    return Path(str(resources.files("ratscrew.rl").joinpath(ZOO, f"{name}.npz")))


def names() -> list[str]:
    """Every agent :func:`load` knows by name: the built-ins, then the shipped files."""
    shipped = [name for name in TRAINED if zoo_path(name).is_file()]
    return [*BUILTIN, *shipped]


def seat_names() -> list[str]:
    """The seat specs of every agent known by name (``agent:sure-hand`` ...): what an online
    room may seat (a room never loads a file by path)."""
    return [f"{AGENT_PREFIX}{name}" for name in names()]


@cache
def seat_listing() -> list[dict[str, Any]]:
    """What ``GET /api/bots`` lists of the agents a room may seat: the seat spec, what the
    agent is, and the human reaction profile it is held to online (read once: the shipped
    files do not change while the server runs; do not modify the list)."""
    listing = []
    for seat in seat_names():
        agent = load(seat[len(AGENT_PREFIX):])
        listing.append({"name": seat, "description": agent.spec.description,
                        "reaction": agent.reaction,
                        "mean_reaction_ms": round(agent.reaction_profile().mean_reaction_ms)})
    return listing


def load(name_or_path: str | Path) -> Agent:
    """An agent by name (a built-in or a shipped file: :func:`names`) or from a file's path.
    Anything else is an `AgentFileError` naming what was wrong."""
    text = str(name_or_path)
    if text in BUILTIN:
        base = BUILTIN[text]
        return Agent(AgentSpec(**{**base.spec.__dict__, "info": dict(base.spec.info)}))
    path = Path(text)
    if not path.suffix and text in TRAINED and zoo_path(text).is_file():
        path = zoo_path(text)
    if not path.is_file():
        raise AgentFileError(f"unknown agent {text!r}: give one of {', '.join(names())} "
                             "or the path of an agent file (.npz)")
    return load_file(path)


def load_file(path: Path) -> Agent:
    """The agent saved in ``path`` (NumPy alone, no pickles)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {key: np.array(data[key]) for key in data.files}
    except (OSError, ValueError) as error:
        raise AgentFileError(f"{path}: not an agent file ({error})") from None
    if "spec" not in arrays:
        raise AgentFileError(f"{path}: not an agent file (it has no spec)")
    spec = AgentSpec.from_json(arrays.pop("spec").tobytes().decode("utf-8", "replace"), str(path))
    weights = {key[2:]: value for key, value in arrays.items() if key.startswith("w_")}
    needed = {"tabular": ("theta",), "mlp": ("w1", "b1", "w2", "b2")}.get(spec.policy, ())
    missing = [name for name in needed if name not in weights]
    if spec.kind == "policy" and missing:
        raise AgentFileError(f"{path}: a {spec.policy} agent needs weights {', '.join(missing)}")
    return Agent(spec, weights)


# ---------------------------------------------------------------------- at a real table

class PolicySeat:
    """A policy agent seated at a `ratscrew.runtime.Table` (the terminal game, ``ratscrew
    sim``, an online room): a runtime agent that asks its tick policy what to do whenever the
    table changes, looking ahead tick by tick (``tick_ms``) over the next ``horizon_ms`` with
    only the clocks moving, as the learning environments would have asked it; the first play
    or slap it chooses is sent, landing a reaction time (drawn from its reaction profile)
    after that tick. Like a learning seat, it holds back a slap aimed at a pile that changed
    and a play whose turn has passed, and it has at most one of each on its way."""

    def __init__(self, agent: Agent, rules: Ruleset, players: int, seed: int = 0,
                 tick_ms: int = 25, horizon_ms: int = int(TURN_CLOCK * CLOCK_SCALE_MS) + 25
                 ) -> None:
        self.agent = agent
        self.rules = rules
        self.encoder = ObservationEncoder(rules, players)
        self.policy = agent.policy(self.encoder, rules, seed)
        self.profile = agent.reaction_profile()
        self.rng = random.Random(seed)
        self.tick_ms = tick_ms
        self.horizon_ms = horizon_ms
        self.seat = -1
        self.total_cards = 0
        self.card_at = 0
        self._play: Intent | None = None
        self._slap: Intent | None = None
        self._vector: Vector = np.zeros(self.encoder.size, dtype=np.float32)

    def __repr__(self) -> str:
        return f"PolicySeat({self.agent.name!r}, seat={self.seat})"

    def on_start(self, seat: int, rules: Ruleset, observation: Observation) -> Answer:
        """Sit down and decide from the opening view."""
        self.seat = seat
        self.total_cards = sum(observation["hand_sizes"]) + len(observation["pile"]) + len(
            observation["burned"]) + observation["penalty_pile"]
        self.card_at = int(observation["now"])
        return self._decide(observation)

    def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
        """Forget what no longer makes sense, then decide again."""
        before = (self._play, self._slap)
        seat = self.seat
        for event in events:
            if isinstance(event, (CardPlayed, PileWon)):
                self.card_at = event.at
                self._slap = None  # the pile it aimed at is gone
            played = isinstance(event, CardPlayed) or (
                isinstance(event, CardsBurned) and event.reason == "out_of_turn")
            if played and event.seat == seat:
                self._play = None  # its card (or its out-of-turn burn) has landed
            elif (isinstance(event, (SlapWon, Misslap, SlapIgnored)) and event.seat == seat) or (
                    isinstance(event, SlapTie) and seat in event.seats):
                self._slap = None  # its slap has landed
        if observation["turn"] != seat:
            self._play = None
        return self._decide(observation, before)

    def on_rejected(self, intent: Intent, error: IllegalActionError,
                    observation: Observation) -> Answer:
        """A refused action is dropped; decide again."""
        before = (self._play, self._slap)
        if intent.kind == "play":
            self._play = None
        else:
            self._slap = None
        return self._decide(observation, before)

    def _decide(self, view: Observation, before: tuple[Intent | None, Intent | None] | None = None
                ) -> Answer:
        """Plan from ``view``; the answer replaces the table's plan for the seat if it differs
        from ``before`` (the plan the table holds), else ``None`` (keep it)."""
        before = (self._play, self._slap) if before is None else before
        now = int(view["now"])
        seat = self.seat
        may = view["may"]
        mask = np.array((1, int(may["play"][seat]), int(may["slap"][seat])), dtype=np.int8)
        if mask[PLAY] or mask[SLAP]:
            live = [Card.parse(card) for card in view["pile"]]
            pattern = find_slap(live, self.rules.slaps, self.rules.pattern_options)
            flight = [kind for kind, intent in (("play", self._play), ("slap", self._slap))
                      if intent is not None]
            vector = self.encoder.encode(view, seat, now, self.card_at, pattern, flight,
                                         self.total_cards, out=self._vector)
            for tick in range(0, self.horizon_ms + 1, self.tick_ms):
                if tick:
                    self.encoder.update_clocks(vector, view, now + tick, self.card_at)
                action = self.policy(vector, mask)
                if action == PLAY and self._play is None:
                    self._play = Intent("play", now + tick + self._reaction(), "agent")
                    break
                if action == SLAP and self._slap is None:
                    self._slap = Intent("slap", now + tick + self._reaction(), "agent")
                    break
        if (self._play, self._slap) == before:
            return None
        return [intent for intent in (self._slap, self._play) if intent is not None]

    def _reaction(self) -> float:
        return draw_reaction_ms(self.profile, self.rng)


def table_agent(agent: Agent, rules: Ruleset, players: int, seed: int
                ) -> BotAgent | PolicySeat:
    """The runtime agent that seats ``agent`` at a real table, held to the human-limited
    track (its reactions drawn from its reaction profile)."""
    if agent.kind == "bot":
        return BotAgent(agent.bot_profile("human"), seed=seed)
    return PolicySeat(agent, rules, players, seed=seed)


def agent_from_spec(spec: str) -> Agent:
    """The agent an ``agent:NAME_OR_PATH`` spec names; a bad one is an `AgentFileError`."""
    name = spec.strip()[len(AGENT_PREFIX):].strip()
    if not name:
        raise AgentFileError(f"{spec!r}: name an agent after 'agent:', one of {', '.join(names())}")
    return load(name)


def seat_profile(spec: str) -> BotProfile:
    """The profile for a seat spec: a bot spec's own, or for ``agent:NAME`` the agent's
    stand-in (:func:`profile_stand_in`, named ``agent:NAME``, which :func:`seat_agent`
    turns back into the agent). Bad specs are a `ValueError` naming what is wrong."""
    if is_agent_spec(spec):
        return profile_stand_in(agent_from_spec(spec), spec.strip())
    return parse_bot_spec(spec)


def seat_agent(profile: BotProfile, rules: Ruleset, players: int, seed: int
               ) -> BotAgent | PolicySeat:
    """The runtime agent for a seat's profile: the saved agent a stand-in names, else a
    `BotAgent` of the profile."""
    if is_agent_spec(profile.name):
        return table_agent(agent_from_spec(profile.name), rules, players, seed)
    return BotAgent(profile, seed=seed)


def profile_stand_in(agent: Agent, name: str | None = None) -> BotProfile:
    """A bot profile that stands for ``agent`` where only a profile fits (names, pace): the
    agent's own for a bot agent, else its reaction profile renamed ``agent:NAME``."""
    label = name or f"{AGENT_PREFIX}{agent.name}"
    if agent.kind == "bot":
        return agent.bot_profile("human").with_changes(name=label)
    return agent.reaction_profile().with_changes(name=label)
