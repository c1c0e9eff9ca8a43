"""The ticking table under every learning environment: a `Table` on a virtual clock, cut into
ticks, with learning seats held to a human reaction time and the other seats played by bots.

At each tick every learning seat chooses :data:`WAIT`, :data:`PLAY` or :data:`SLAP`. A play or
a slap does not land at once: it lands a reaction delay (drawn from a reaction profile, see
:func:`reaction_from`) after what it answers, as a `ratscrew.runtime.Intent` of that seat on the
table, exactly as a bot's would. A bot's reaction is timed from the card it answers; a seat's is
timed the same way: from the latest change it was shown, plus however long it waited after
seeing it, so cutting time into ticks neither slows it down nor speeds it up. As with a bot, a
seat has at most one play and one slap on their way at a time: asking again for one that is
already on its way changes nothing. As the bots do, a seat holds back a slap aimed at a pile
that changed before it landed (a card covered it, or someone took it), and a play when its
turn passed. Then the table runs every intent and engine timer due until the next tick
(:meth:`ratscrew.runtime.Table.fire_due`), bots included.

Places and rewards. A seat that can never play again (``eliminated``, ``barred`` or
``watching``) is placed last among the seats still in; when the game ends, the seats still in
are ranked: the winner first, then by cards held, then by who ran out of cards last. When the
tick limit cuts a game, the seats still in share the places left (an undecided game: with two
seats, 0 each), so stalling a game one leads never pays. A place is scored
``1 - 2 (place - 1) / (players - 1)`` (+1 first, -1 last); seats tied share the mean of their
places' scores, so the scores of a game sum to zero. With ``shaping`` set, each tick also pays
``shaping * (cards won - cards paid) / cards in play``: cards won are the piles (and penalty
piles) the seat collects, cards paid the ones it loses from its hand as a penalty (a misslap's,
a burn). Playing a card costs nothing: the pile it goes to is won or lost later.

>>> table = TickTable("classic", players=2, learners=[0], bots={1: "casual"}, reaction="casual")
>>> table.reset(seed=3)
>>> table.mask(0).tolist()  # seat 0 leads: wait, play or slap
[1, 1, 1]
>>> _ = table.step({0: PLAY})
>>> table.in_flight(0)  # the card is on its way, a reaction time after the decision
['play']
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ratscrew.bots.agent import BotAgent, draw_reaction_ms
from ratscrew.bots.profile import BotProfile
from ratscrew.bots.spec import parse_bot_spec
from ratscrew.engine import Game
from ratscrew.errors import IllegalActionError
from ratscrew.events import CardPlayed, CardsBurned, Event, Misslap, PileWon
from ratscrew.observation import SeatStatus
from ratscrew.rl.encoding import CLOCK_SCALE_MS, ObservationEncoder
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import Answer, Intent, Observation, Table

WAIT, PLAY, SLAP = 0, 1, 2
ACTIONS = ("wait", "play", "slap")
"""The action space: index -> meaning."""
_KINDS = {PLAY: "play", SLAP: "slap"}
_STILL_IN: frozenset[SeatStatus] = frozenset({"in", "locked"})
_FINISHED: frozenset[SeatStatus] = frozenset({"eliminated", "barred", "watching"})
DEFAULT_TICK_MS = 25
DEFAULT_MAX_TICKS = 200_000
"""About 83 minutes of table time at 25 ms: past the longest 4-seat classic games between
casual bots (a mean near 19 minutes)."""

RulesSpec = str | Ruleset
ReactionSpec = str | BotProfile | int | float | None
BotSpec = str | BotProfile
Reaction = Callable[[random.Random], float]


class RawObservation(Mapping[str, Any]):
    """A read-only view of one seat's `Game.observe` dict, as the environments put it in
    ``info["raw_observation"]``: no copy is made at each step, it cannot be changed by
    mistake, it pickles (for ``gymnasium.vector`` across processes), and Gymnasium's vector
    environments keep it whole rather than splitting it field by field. ``dict(view)`` copies it.

    >>> view = RawObservation({"turn": 0})
    >>> view["turn"], dict(view)
    (0, {'turn': 0})
    """

    __slots__ = ("_data",)

    def __init__(self, data: Observation) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        data: Mapping[str, Any] = self._data  # any key, as a mapping: a missing one is a KeyError
        return data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"RawObservation({self._data!r})"

    @property
    def data(self) -> Observation:
        """The dict it shows (not a copy: do not change it)."""
        return self._data


class EnvStateError(RuntimeError):
    """The environment was asked to step when it cannot (before a reset, after the end)."""


def rules_from(rules: RulesSpec) -> Ruleset:
    """A ruleset from a preset name, a TOML file's path or a `Ruleset`; anything else is a
    `ValueError` naming it."""
    if isinstance(rules, Ruleset):
        return rules
    if not isinstance(rules, str):
        raise ValueError(f"rules must be a preset name, a TOML file or a Ruleset, got {rules!r}")
    return Ruleset.load(rules)


def profile_from(spec: BotSpec) -> BotProfile:
    """A bot profile from a level name or spec (``"casual"``, ``"expert:mu_ms=250"``) or a
    `BotProfile`; an unknown level is a `ValueError` listing the levels."""
    if isinstance(spec, BotProfile):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"a bot is a level name or a BotProfile, got {spec!r}")
    return parse_bot_spec(spec)


def reaction_from(spec: ReactionSpec) -> Reaction:
    """How long a learning seat's action takes to land, in ms, as a draw from a generator:
    a bot level's (or profile's) reaction time (ex-Gaussian, never under 100 ms), a fixed
    number of ms, or ``None``: no delay at all (experiments only: an agent without a reaction
    limit learns to be faster than any person, not to play better).

    >>> rng = random.Random(0)
    >>> reaction_from(250)(rng), reaction_from(None)(rng)
    (250.0, 0.0)
    >>> 100 <= reaction_from("casual")(rng) < 2000
    True
    """
    if spec is None:
        return lambda rng: 0.0
    if isinstance(spec, bool) or not isinstance(spec, (str, BotProfile, int, float)):
        raise ValueError(f"reaction must be a bot level, a BotProfile, a number of ms or None, "
                         f"got {spec!r}")
    if isinstance(spec, (int, float)):
        if not 0 <= spec <= 60_000:
            raise ValueError(f"a fixed reaction is a number of ms from 0 to 60000, got {spec!r}")
        fixed = float(spec)
        return lambda rng: fixed
    profile = profile_from(spec)
    return lambda rng: draw_reaction_ms(profile, rng)


def place_scores(ranking: Sequence[Sequence[int]], first_place: int, players: int) -> dict[int, float]:
    """Scores of groups of tied seats taking the places from ``first_place`` on, best group
    first: +1 for first, -1 for last, linear between; a tied group shares its places' mean.

    >>> place_scores([[2], [0, 1]], first_place=1, players=3)
    {2: 1.0, 0: -0.5, 1: -0.5}
    """
    scores: dict[int, float] = {}
    place = first_place
    for group in ranking:
        if not group:
            continue
        shared = [1.0 - 2.0 * (p - 1) / (players - 1) for p in range(place, place + len(group))]
        for seat in group:
            scores[seat] = sum(shared) / len(shared)
        place += len(group)
    return scores


class _Learner:
    """The table's agent for a learning seat: it plans nothing itself (the environment plans
    for it with :meth:`Table.plan`); it keeps the seat's latest view and holds back an action
    that no longer makes sense, as a bot would."""

    def __init__(self) -> None:
        self.table: Table | None = None
        self.seat = -1
        self.view: Observation = cast(Observation, {})  # until `on_start`
        self.rejections = 0

    def attach(self, table: Table, seat: int) -> None:
        self.table = table
        self.seat = seat

    def on_start(self, seat: int, rules: Ruleset, observation: Observation) -> Answer:
        self.view = observation
        return None

    def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
        self.view = observation
        table = self.table
        assert table is not None
        if not table.has_pending(self.seat):
            return None
        pending = table.pending(self.seat)
        pile_changed = any(isinstance(event, (CardPlayed, PileWon)) for event in events)
        not_my_turn = observation["turn"] != self.seat
        kept = [intent for intent in pending
                if not (pile_changed and intent.kind == "slap")  # the pile it aimed at is gone
                and not (not_my_turn and intent.kind == "play")]
        return None if len(kept) == len(pending) else kept

    def on_rejected(self, intent: Intent, error: IllegalActionError,
                    observation: Observation) -> Answer:
        self.view = observation
        self.rejections += 1
        return None


class TickTable:
    """A game of ERS cut into ticks, with ``learners`` (seat numbers) choosing an action at
    every tick and ``bots`` (seat -> level name, spec or profile) filling the other seats.
    See the module docstring; bad arguments are a `ValueError` naming what is wrong."""

    def __init__(
        self,
        rules: RulesSpec = "classic",
        players: int = 4,
        *,
        learners: Sequence[int] | None = None,
        bots: Mapping[int, BotSpec] | None = None,
        reaction: ReactionSpec = "casual",
        tick_ms: int = DEFAULT_TICK_MS,
        max_ticks: int = DEFAULT_MAX_TICKS,
        shaping: float = 0.0,
        pattern_hint: bool = True,
    ) -> None:
        self.rules = rules_from(rules)
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 8:
            raise ValueError(f"players must be a whole number from 2 to 8, got {players!r}")
        if players > self.rules.max_players:
            raise ValueError(f"{players} players is more than the {self.rules.max_players} "
                             f"that {self.rules.name} allows")
        bots = dict(bots or {})
        for seat in bots:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
                raise ValueError(f"bots: {seat!r} is not a seat of this table of {players}")
        self.bot_profiles = {seat: profile_from(spec) for seat, spec in sorted(bots.items())}
        if learners is None:
            learners = [seat for seat in range(players) if seat not in bots]
        self.learners = tuple(learners)
        if not self.learners:
            raise ValueError("at least one seat must be a learning seat (not a bot)")
        for seat in self.learners:
            if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
                raise ValueError(f"learners: {seat!r} is not a seat of this table of {players}")
            if seat in bots:
                raise ValueError(f"seat {seat} cannot be both a learner and a bot")
        if len(set(self.learners)) != len(self.learners):
            raise ValueError(f"learners lists a seat twice: {list(self.learners)}")
        if set(self.learners) | set(bots) != set(range(players)):
            missing = sorted(set(range(players)) - set(self.learners) - set(bots))
            raise ValueError(f"seats {missing} have neither a learner nor a bot")
        if isinstance(tick_ms, bool) or not isinstance(tick_ms, int) or not 1 <= tick_ms <= 10_000:
            raise ValueError(f"tick_ms must be a whole number of ms from 1 to 10000, got {tick_ms!r}")
        if isinstance(max_ticks, bool) or not isinstance(max_ticks, int) or max_ticks < 1:
            raise ValueError(f"max_ticks must be a positive whole number, got {max_ticks!r}")
        if isinstance(shaping, bool) or not isinstance(shaping, (int, float)) or not (
                0.0 <= shaping <= 100.0):
            raise ValueError(f"shaping must be a number from 0 to 100, got {shaping!r}")
        self.players = players
        self.reaction_spec = reaction
        self.reaction = reaction_from(reaction)
        self.tick_ms = tick_ms
        self.max_ticks = max_ticks
        self.shaping = float(shaping)
        self.encoder = ObservationEncoder(self.rules, players, pattern_hint=pattern_hint)
        self.game: Game | None = None
        self.table: Table | None = None
        self.now = 0
        self.ticks = 0
        self.done = True
        self.truncated = False
        self.places: dict[int, int] = {}
        """Seat -> finishing place (1 is first), for every seat placed so far."""
        self.scores: dict[int, float] = {}
        """Seat -> place score, for every seat placed so far."""
        self._learner_agents: dict[int, _Learner] = {}
        self._in_flight: list[int] = []
        self._ran_out: list[int] = []
        self._hands: list[int] = []
        self._card_at = 0
        self._last_change_at = 0
        self._lag = 0
        self._net_cards: list[int] = []  # cards won minus cards paid since the last tick, by seat
        self._changed = True
        self._refreshed_actions = -1  # the game's action count at the latest `_refresh`
        self._reaction_rng = random.Random(0)
        self._total_cards = 0
        self._vectors: dict[int, npt.NDArray[np.float32]] = {}
        self._raw_views: dict[int, RawObservation] = {}
        self._masks: dict[int, npt.NDArray[np.int8]] = {
            seat: np.array((1, 0, 0), dtype=np.int8) for seat in self.learners}

    # ------------------------------------------------------------------ episode

    def reset(self, seed: int) -> None:
        """Deal a new game from ``seed``: the deal, the bots' and the reaction draws all follow
        from it, so the same seed and the same actions replay the same episode exactly."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"the seed must be an int, got {seed!r}")
        seeds = random.Random(seed)
        game = Game.deal(self.rules, players=self.players, seed=seeds.getrandbits(32))
        agents: list[BotAgent | _Learner] = []
        self._learner_agents = {}
        for seat in range(self.players):
            bot_seed = seeds.getrandbits(32)
            if seat in self.bot_profiles:
                agents.append(BotAgent(self.bot_profiles[seat], seed=bot_seed))
            else:
                learner = _Learner()
                self._learner_agents[seat] = learner
                agents.append(learner)
        self._reaction_rng = random.Random(seeds.getrandbits(32))
        table = Table(game, agents, keep_events=False)
        table.add_listener(self._on_events)
        self.game, self.table = game, table
        self.now = 0
        self.ticks = 0
        self.done = False
        self.truncated = False
        self.places, self.scores = {}, {}
        self._ran_out = []
        self._total_cards = sum(game.hand_size(s) for s in range(self.players))
        self._hands = [game.hand_size(s) for s in range(self.players)]
        self._card_at = 0
        self._last_change_at = -1
        self._lag = 0
        self._net_cards = [0] * self.players
        table.start()
        self._changed = True
        self._refresh()

    def _on_events(self, events: Sequence[Event]) -> None:
        self._changed = True
        self._last_change_at = events[-1].at
        net = self._net_cards
        for event in events:
            if isinstance(event, CardPlayed):
                self._card_at = event.at
            elif isinstance(event, PileWon):
                self._card_at = event.at
                net[event.seat or 0] += event.cards + event.penalty_cards
            elif isinstance(event, (Misslap, CardsBurned)):
                net[event.seat or 0] -= len(event.cards)

    # ------------------------------------------------------------------ acting

    def is_active(self, seat: int) -> bool:
        """True while ``seat`` is a learning seat that may still act (not placed, not ended)."""
        return not self.done and seat in self._learner_agents and seat not in self.places

    def mask(self, seat: int) -> npt.NDArray[np.int8]:
        """Which actions ``seat`` may take now, as 0/1 for wait, play, slap (the environment's
        own array: copy it to keep it)."""
        return self._masks[seat]

    def vector(self, seat: int) -> npt.NDArray[np.float32]:
        """The seat's encoded observation (the environment's own array: copy it to keep it)."""
        return self._vectors[seat]

    def view(self, seat: int) -> Observation:
        """What the seat sees, as :meth:`ratscrew.engine.Game.observe` shows it."""
        return self._learner_agents[seat].view

    def raw_view(self, seat: int) -> RawObservation:
        """:meth:`view` as a read-only `RawObservation`, made again only when the table
        replaces the seat's view (after events): being read-only, it is shared by the ticks
        between (the environments' ``info["raw_observation"]``)."""
        view = self._learner_agents[seat].view
        raw = self._raw_views.get(seat)
        if raw is None or raw.data is not view:
            self._raw_views[seat] = raw = RawObservation(view)
        return raw

    def check_actions(self, actions: Mapping[int, Any]) -> dict[int, int]:
        """The actions as ints, after checking every one; an action that is not one, for a
        seat that may not act, or that its mask forbids, is a `ValueError` naming it (and
        nothing has changed)."""
        if self.done:
            raise EnvStateError("the episode is over (or was never started): call reset() first")
        return {seat: self._check(seat, action) for seat, action in actions.items()}

    def _check(self, seat: int, action: Any) -> int:
        """One seat's action as an int, checked (see `check_actions`; the episode is on)."""
        if type(action) is int and 0 <= action <= SLAP and seat in self._masks and (
                seat not in self.places and self._masks[seat][action]):
            return action  # the common case, checked in one go
        if not self.is_active(seat):
            why = ("not a learning seat" if seat not in self._learner_agents
                   else f"out of the game (place {self.places[seat]})")
            raise ValueError(f"an action for seat {seat!r}, which is {why}")
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) or (
                not 0 <= action < len(ACTIONS)):
            raise ValueError(f"seat {seat}: an action is 0 (wait), 1 (play) or 2 (slap), "
                             f"got {action!r}")
        index = int(action)
        if not self._masks[seat][index]:
            raise ValueError(f"seat {seat} may not {ACTIONS[index]} now ({self._why_not(seat, index)});"
                             f" allowed: {self.allowed(seat)}")
        return index

    def allowed(self, seat: int) -> list[str]:
        """The names of the actions the seat's mask allows."""
        return [name for name, ok in zip(ACTIONS, self._masks[seat], strict=True) if ok]

    def in_flight(self, seat: int) -> list[str]:
        """The seat's actions on their way (``"play"``, ``"slap"``), earliest first."""
        table = self.table
        return [] if table is None else [intent.kind for intent in table.pending(seat)]

    def _why_not(self, seat: int, action: int) -> str:
        view = self.view(seat)
        if action == PLAY:
            return "it is not its turn" if view["turn"] != seat else "it holds no cards"
        return f"its status is {view['status'][seat]}"

    def step(self, actions: Mapping[int, Any]) -> dict[int, float]:
        """One tick: check ``actions`` (seat -> action; a learning seat left out waits), send
        the plays and slaps on their way, run the table to the next tick. Returns each active
        learning seat's reward for the tick; :attr:`places` and :attr:`done` tell who finished."""
        checked = self.check_actions(actions)
        planned = False
        for seat, action in checked.items():
            if action and self._send(seat, action):
                planned = True
        places = self.places
        active = [seat for seat in self.learners if seat not in places]
        rewards = dict.fromkeys(active, 0.0)
        if self._tick(planned):
            net = self._net_cards
            if self.shaping and any(net):
                scale = self.shaping / self._total_cards
                for seat in active:
                    rewards[seat] = net[seat] * scale
                self._net_cards = [0] * self.players
        if self.ticks >= self.max_ticks and not self.done:
            self.truncated = True
            self._finish()
        for seat in active:
            if seat in places:
                rewards[seat] += self.scores[seat]
        return rewards

    def step_seat(self, seat: int, action: Any) -> float:
        """:meth:`step` with an action for ``seat`` alone (every other learning seat waits),
        returning only ``seat``'s reward: ``step({seat: action})[seat]``, without the dicts
        (the Gymnasium environment's step, whose table has one learning seat)."""
        if self.done:
            raise EnvStateError("the episode is over (or was never started): call reset() first")
        action = self._check(seat, action)
        reward = 0.0  # the seat passed the check, so it is active
        if self._tick(bool(action) and self._send(seat, action)):
            net = self._net_cards
            if self.shaping and any(net):
                reward = net[seat] * (self.shaping / self._total_cards)
                self._net_cards = [0] * self.players
        if self.ticks >= self.max_ticks and not self.done:
            self.truncated = True
            self._finish()
        if seat in self.places:
            reward += self.scores[seat]
        return reward

    def play_out(self, seat: int, policy: Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], int]
                 ) -> None:
        """Play ``seat`` by ``policy`` (``policy(vector, mask) -> action``, asked at every tick)
        until the seat is placed (the episode may go on for others): the same episode as
        ``while seat not in places: step_seat(seat, policy(vector(seat), mask(seat)))``, only
        faster. Most ticks are idle: nothing is due on the table before the next tick and the
        policy sends nothing new (it waits, or repeats an action already on its way); such a
        tick moves only the clocks in the observations, which is all :meth:`step_seat` would
        do, without its checks and the table's look for what is due (ERS-Bench plays its
        policy agents this way).

        A policy with a ``since_thresholds`` attribute (a tuple of ``since_card`` values)
        declares that, the table unchanged, its answer depends on the clocks only through
        how ``since_card`` compares with those values (and on nothing it remembers): while
        those comparisons stay as they were, the idle ticks are skipped together, with no
        call to it at each (the built-in policies of :mod:`ratscrew.rl.agents` do)."""
        if self.done:
            raise EnvStateError("the episode is over (or was never started): call reset() first")
        table = self.table
        assert table is not None
        places, vectors, masks = self.places, self._vectors, self._masks
        learners = list(self._learner_agents.items())
        update_clocks = self.encoder.update_clocks
        tick_ms = self.tick_ms
        thresholds: tuple[float, ...] | None = getattr(policy, "since_thresholds", None)
        since_at = dict(self.encoder.fields)["since_card"].start
        scratch = np.zeros(1, dtype=np.float32)
        quiet_until: float | None = None  # when the table next has something due (None: look)
        while seat not in places:
            mask = masks[seat]
            vector = vectors[seat]
            action = policy(vector, mask)
            after = self.now + tick_ms
            if quiet_until is None:
                due = table.next_due()
                quiet_until = math.inf if due is None else due[0]
            idle = after < quiet_until and self.ticks + 1 < self.max_ticks and (
                action == WAIT or (type(action) is int and 0 < action <= SLAP and mask[action]
                                   and any(i.kind == _KINDS[action] for i in table.pending(seat))))
            if not idle:
                self.step_seat(seat, action)
                quiet_until = None
                continue
            ticks = 1
            if thresholds is not None:  # the ticks after this one that answer the same, idle
                card_at = self._card_at
                since = vector[since_at]
                sides = [(since < t, since > t) for t in thresholds]
                while after + tick_ms < quiet_until and self.ticks + ticks + 1 < self.max_ticks:
                    moved = (after - card_at) / CLOCK_SCALE_MS
                    scratch[0] = moved if moved < 1.0 else 1.0  # as the encoder writes it
                    later = scratch[0]
                    if any((later < t, later > t) != side
                           for t, side in zip(thresholds, sides, strict=True)):
                        break
                    after += tick_ms
                    ticks += 1
            self.now = after
            self.ticks += ticks
            card_at = self._card_at
            for other, learner in learners:
                update_clocks(vectors[other], learner.view, after, card_at)

    def _send(self, seat: int, action: int) -> bool:
        """Send ``seat``'s play or slap on its way; False if one is on its way already."""
        table = self.table
        assert table is not None
        kind = _KINDS[action]
        pending = table.pending(seat)
        if any(intent.kind == kind for intent in pending):
            return False  # already on its way
        # Timed from what the seat reacts to: the latest change, shown _lag ms after it
        # happened (at the first tick after it), so the ticks cost no reaction time.
        at = self.now - self._lag + self.reaction(self._reaction_rng)
        table.plan(seat, [*pending, Intent(kind, at, "learner")])  # type: ignore[arg-type]
        return True

    def _tick(self, planned: bool) -> bool:
        """Move the table to the next tick and bring the masks and vectors up to date
        (``planned``: a seat sent an action on its way, which its observation shows). True
        when they were refreshed after events or plans (the ticks that pay shaping)."""
        table = self.table
        assert table is not None
        self.now = now = self.now + self.tick_ms
        self.ticks += 1
        table.fire_due(float(now))  # the runtime returns at once when nothing is due by now
        if self._last_change_at > now - self.tick_ms:  # something changed during this tick
            self._lag = now - self._last_change_at
        if self._changed:
            self._refresh()
            return True
        if planned:
            self._refresh_plans()
            return True
        self._tick_timers()
        return False

    # ------------------------------------------------------------------ bookkeeping

    def _refresh(self) -> None:
        """After events: statuses, who ran out and who is out for good, then every learning
        seat's mask and encoded observation."""
        game, table = self.game, self.table
        assert game is not None and table is not None
        self._changed = False
        self._refreshed_actions = game.action_count
        statuses = [game.status(seat) for seat in range(self.players)]
        self._hands = [game.hand_size(seat) for seat in range(self.players)]
        ran_out = self._ran_out
        finished = []
        for seat, status in enumerate(statuses):
            if status in _STILL_IN:
                if seat in ran_out:
                    ran_out.remove(seat)
            elif seat not in ran_out:
                ran_out.append(seat)
            if status in _FINISHED and seat not in self.places:
                finished.append(seat)
        if finished:
            self._place([finished], first=self.players - len(self.places) - len(finished) + 1)
        if game.over:
            self._finish()
        self._in_flight = []
        pattern = game.slap_pattern() if self.encoder.pattern_hint else None
        for seat, learner in self._learner_agents.items():
            mask = self._masks[seat]
            pending = table.pending(seat)
            if self.done or seat in self.places:
                mask[:] = (1, 0, 0)
            else:
                view = learner.view
                if pending:
                    self._in_flight.append(seat)
                may = view["may"]  # `Game.may`, as the seat's observation carries it
                mask[PLAY] = may["play"][seat]
                mask[SLAP] = may["slap"][seat]
            self._vectors[seat] = self.encoder.encode(
                learner.view, seat, self.now, self._card_at, pattern,
                [intent.kind for intent in pending], self._total_cards, out=self._vectors.get(seat))

    def _refresh_plans(self) -> None:
        """What :meth:`_refresh` does when only the seats' plans may have changed since it last
        ran: if the game accepted no action since, everything it computes from the game and
        the views is as it left it, and only who has actions in flight, their slots in the
        vectors and the clocks move (the views were not replaced, or by equal ones: a refused
        action changes nothing in the game). Otherwise the whole :meth:`_refresh`."""
        game, table = self.game, self.table
        assert game is not None and table is not None
        if game.action_count != self._refreshed_actions:
            self._refresh()
            return
        self._in_flight = in_flight = []
        stopped = self.done
        places = self.places
        encoder = self.encoder
        for seat, learner in self._learner_agents.items():
            pending = table.pending(seat)
            if pending and not (stopped or seat in places):
                in_flight.append(seat)
            vector = self._vectors[seat]
            encoder.update_in_flight(vector, [intent.kind for intent in pending])
            encoder.update_clocks(vector, learner.view, self.now, self._card_at)

    def _tick_timers(self) -> None:
        """No event this tick: only the clocks in the observations move, and a landed action
        frees its seat's hands."""
        table = self.table
        assert table is not None
        for seat in self._in_flight:
            if not table.has_pending(seat):  # landed without events (refused): its hands are free
                self._refresh_plans()
                return
        for seat, learner in self._learner_agents.items():
            self.encoder.update_clocks(self._vectors[seat], learner.view, self.now, self._card_at)

    def _finish(self) -> None:
        """The game ended or was cut: rank the seats not yet placed."""
        game = self.game
        assert game is not None
        self.done = True
        left = [seat for seat in range(self.players) if seat not in self.places]
        if not left:
            return
        if self.truncated:  # undecided: everyone still in shares the places left
            self._place([left], first=1)
            return
        winner = game.winner
        recency = {seat: index for index, seat in enumerate(self._ran_out)}
        never = len(self._ran_out)

        def key(seat: int) -> tuple[int, int, int]:
            return (seat == winner, self._hands[seat], recency.get(seat, never))

        groups: dict[tuple[int, int, int], list[int]] = {}
        for seat in sorted(left, key=key, reverse=True):
            groups.setdefault(key(seat), []).append(seat)
        self._place(list(groups.values()), first=1)

    def _place(self, ranking: list[list[int]], first: int) -> None:
        place = first
        for group in ranking:
            for seat in group:
                self.places[seat] = place
            place += len(group)
        self.scores.update(place_scores(ranking, first, self.players))

    @property
    def total_cards(self) -> int:
        """Cards in play (the deck, jokers included)."""
        return self._total_cards
