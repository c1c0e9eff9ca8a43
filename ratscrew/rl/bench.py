"""ERS-Bench: every agent played from every seat over fixed evaluation deals, in two tracks.

**Deals.** Deal ``i`` of a preset and table size is seeded by :func:`deal_seed` (a hash of
``preset``, ``players`` and ``i``): the same deals for every agent, on every machine. The seed
fixes the deal and every other seat's bot (their reaction draws, misses, flinches), as
:meth:`ratscrew.rl.core.TickTable.reset` derives them; the agent is played from **every seat**
of each deal (seat rotation), so ``deals`` deals make ``deals * players`` games per cell.

**The field.** The other seats are ``casual`` bots (docs/bots.md), in both tracks.

**Tracks.** ``human`` (human-limited): the agent's reactions are drawn from the human
reaction profile it names (``casual`` for every baseline), so only decisions differ; a bot
agent keeps its decisions (misses, flinches, pace, memory) with that profile's reaction times.
``unlimited``: a policy agent's actions land the moment it chooses them (the environment's
``reaction=None``); a bot agent reacts as its own profile does.

**Figures.** Win share with a 95% Wilson interval (a game the agent did not win, an
unfinished one included, is not a win), the cards it won per game (piles and penalty piles it
collected) and its misslaps per game. Everything follows from the seeds: a cell is the same bit
for bit on every run (:func:`evaluate`).

>>> deal_seed("classic", 2, 0) == deal_seed("classic", 2, 0) != deal_seed("classic", 4, 0)
True
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ratscrew.bots.agent import BotAgent
from ratscrew.bots.profile import level
from ratscrew.engine import Game
from ratscrew.events import Event, Misslap, PileWon
from ratscrew.rl.agents import Agent
from ratscrew.rl.core import DEFAULT_MAX_TICKS, DEFAULT_TICK_MS, TickTable
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import Table
from ratscrew.sim.intervals import wilson_interval

PRESETS = ("classic", "pagat", "northwest", "ratscrew", "paranoid", "bmn")
QUICK_PRESETS = ("classic", "pagat")
TRACKS = ("human", "unlimited")
FIELD = "casual"
"""The bot level in every seat the agent does not hold."""
MAX_MS = DEFAULT_MAX_TICKS * DEFAULT_TICK_MS
"""A game still going after this much table time is stopped (not a win)."""


def deal_seed(preset: str, players: int, index: int) -> int:
    """The seed of evaluation deal ``index`` for ``preset`` at ``players`` seats."""
    digest = hashlib.blake2b(f"ers-bench:{preset}:{players}:{index}".encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "little") >> 1


@dataclass(frozen=True)
class GameResult:
    """One game of the agent: did it win, the cards it won, its misslaps."""

    won: bool
    cards: int
    misslaps: int
    finished: bool


@dataclass
class Cell:
    """One agent's figures for one preset, table size and track."""

    agent: str
    preset: str
    players: int
    track: str
    reaction: str
    games: int = 0
    wins: int = 0
    cards: int = 0
    misslaps: int = 0
    unfinished: int = 0

    def add(self, result: GameResult) -> None:
        """Count one game."""
        self.games += 1
        self.wins += result.won
        self.cards += result.cards
        self.misslaps += result.misslaps
        self.unfinished += not result.finished

    @property
    def win_share(self) -> float:
        """Games won / games played."""
        return self.wins / self.games if self.games else 0.0

    def row(self) -> dict[str, Any]:
        """The JSON row of the public contract (plus counts)."""
        low, high = wilson_interval(self.wins, self.games)
        games = max(1, self.games)
        return {"agent": self.agent, "preset": self.preset, "players": self.players,
                "track": self.track, "reaction": self.reaction if self.track == "human" else None,
                "win_share": round(self.win_share, 4), "low": round(low, 4),
                "high": round(high, 4), "cards_per_game": round(self.cards / games, 3),
                "misslaps_per_game": round(self.misslaps / games, 3), "games": self.games,
                "wins": self.wins, "unfinished": self.unfinished}


class _Counter:
    """Counts one seat's collected cards and misslaps from the table's events."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.cards = 0
        self.misslaps = 0

    def __call__(self, events: Sequence[Event]) -> None:
        seat = self.seat
        for event in events:
            if isinstance(event, PileWon) and event.seat == seat:
                self.cards += event.cards + event.penalty_cards
            elif isinstance(event, Misslap) and event.seat == seat:
                self.misslaps += 1


def play_game(agent: Agent, rules: Ruleset, players: int, seat: int, seed: int,
              track: str, tick_by_tick: bool = False) -> GameResult:
    """One game: ``agent`` in ``seat``, casual bots elsewhere, dealt from ``seed``. A policy
    agent's game runs by `TickTable.play_out`; ``tick_by_tick`` steps it one `step_seat` a
    tick instead (the same game, slower: benchmarks/bench_speed.py compares the two)."""
    if track not in TRACKS:
        raise ValueError(f"unknown track {track!r}; choose one of {', '.join(TRACKS)}")
    if agent.kind == "bot":
        return _play_bot_game(agent, rules, players, seat, seed, track)
    reaction = agent.reaction if track == "human" else None
    others = {other: FIELD for other in range(players) if other != seat}
    table = TickTable(rules, players, learners=[seat], bots=others, reaction=reaction)
    table.reset(seed)
    policy = agent.policy(table.encoder, table.rules, seed=seed)
    counter = _Counter(seat)
    assert table.table is not None
    table.table.add_listener(counter)
    if tick_by_tick:
        places = table.places
        vector, mask, step = table.vector, table.mask, table.step_seat
        while seat not in places:
            step(seat, policy(vector(seat), mask(seat)))
    else:
        table.play_out(seat, policy)
    game = table.game
    assert game is not None
    return GameResult(won=game.winner == seat, cards=counter.cards, misslaps=counter.misslaps,
                      finished=not table.truncated)


def _play_bot_game(agent: Agent, rules: Ruleset, players: int, seat: int, seed: int,
                   track: str) -> GameResult:
    """A bot agent's game, on the event-driven table, with the same deal and the same field
    bots (seeded in the same order) as `TickTable.reset` gives a policy agent."""
    seeds = random.Random(seed)
    game = Game.deal(rules, players=players, seed=seeds.getrandbits(32))
    field = level(FIELD)
    agents = []
    for other in range(players):
        bot_seed = seeds.getrandbits(32)
        profile = agent.bot_profile(track) if other == seat else field
        agents.append(BotAgent(profile, seed=bot_seed))
    table = Table(game, agents, max_ms=MAX_MS, keep_events=False)
    counter = _Counter(seat)
    table.add_listener(counter)
    table.run_virtual()
    return GameResult(won=game.winner == seat, cards=counter.cards, misslaps=counter.misslaps,
                      finished=game.over)


def evaluate(agent: Agent, preset: str, players: int, track: str, deals: int,
             progress: Callable[[int], object] = lambda games: None) -> Cell:
    """The cell of ``agent`` for ``preset`` x ``players`` x ``track`` over the first ``deals``
    evaluation deals, each played from every seat."""
    rules = Ruleset.load(preset)
    if players > rules.max_players:
        raise ValueError(f"{players} players is more than {preset} allows ({rules.max_players})")
    cell = Cell(agent.name, preset, players, track, agent.reaction)
    for index in range(deals):
        seed = deal_seed(preset, players, index)
        for seat in range(players):
            cell.add(play_game(agent, rules, players, seat, seed, track))
            progress(1)
    return cell


@dataclass(frozen=True)
class Job:
    """One cell to compute (what a worker process is given)."""

    agent: str
    preset: str
    players: int
    track: str
    deals: int


def run_job(job: Job) -> dict[str, Any]:
    """Compute one cell in a worker; the agent is loaded there by name or path."""
    from ratscrew.rl.agents import load

    return evaluate(load(job.agent), job.preset, job.players, job.track, job.deals).row()


def job_cost(job: Job) -> float:
    """A rough relative cost, for scheduling the longest jobs first."""
    return job.deals * job.players * (3.0 if job.players > 2 else 1.0)


__all__ = ["PRESETS", "QUICK_PRESETS", "TRACKS", "Cell", "GameResult", "Job", "asdict",
           "deal_seed", "evaluate", "play_game", "run_job"]
