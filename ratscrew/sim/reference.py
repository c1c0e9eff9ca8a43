"""The reference driver: seeded games between bots on the real engine, in pure Python.

Every simulation that does not run on the compiled kernel plays here (``ratscrew sim --engine
reference``, the lab without a kernel, the learning benchmarks' baselines), and the compiled
kernel (:mod:`ratscrew.sim.kernel`) is a faster implementation of exactly this: the same bots,
the same scheduling and the same random numbers, with every rule decided by the real engine
(:class:`ratscrew.engine.Game`). The differential test (``tests/test_kernel_differential.py``)
plays both on tens of thousands of seeds and requires identical `GameSummary` records. This
module is the one home of the defaults (:data:`DEFAULT_MAX_CARDS`) and of the bots' seeds
(:func:`bot_seed`).

**The deal** is ``Game.deal(rules, players, seed)``: ``random.Random(seed)`` shuffles the
ruleset's deck, dealt round-robin from seat 0.

**Random numbers.** The bot at ``seat`` draws from its own ``random.Random(bot_seed(seed,
seat))`` (:func:`bot_rng`), with the standard library's ``random()``, ``gauss()`` and
``expovariate()``. Each bot consumes its stream in the order below; bots never share one.

**The bots** follow the decision model of :mod:`ratscrew.bots.decision` (what a bot plans, and
the order of its random draws, written there once) as the table bots of
:mod:`ratscrew.bots.agent` do, counting included. Each seat holds at most one planned slap and
one planned play, as float times in ms. After every action or timer that produced events,
every seat, in seat order, updates its plans:

1. A card played forgets the seat's own planned play if it played it; a card played or a pile
   won forgets its planned slap; its own slap (won, missed, ignored or tied) forgets that slap.
   A counting seat (``memory > 0``) follows the cards that left each hand (played, burned,
   paid) and the piles collected, in event order, in a `~ratscrew.bots.agent.CardMemory`.
   The events show every card that enters or leaves a hand, so the memory never goes out of
   step with the hands (the table bot's safety net, ``CardMemory.resync``, is not needed).
2. to 5. :func:`ratscrew.bots.decision.replan`, told: whether the seat may slap now (its status
   is one of `~ratscrew.observation.SLAPPING_STATUSES`), whether it is its turn, the card shown
   if the last pile change was a card played (its time, the engine's
   :meth:`~ratscrew.engine.Game.slap_pattern`, whether it was *foreseen*: before these events
   the seat remembered it as the top card of the seat whose turn it was, and whether the pile
   shows a near pattern, :func:`ratscrew.bots.perception.is_near_pattern`), the time of a
   challenge it won under slap collection (the first such event), the time the claim window
   opened to everyone, and whether a pile was won.
6. A counting seat notes the top card of the seat whose turn it now is, if it remembers it
   (what step 2 compares the next card with).

**Scheduling** (a virtual clock, as :meth:`ratscrew.runtime.Table.run_virtual`): the next
thing to happen is the earliest planned action (a tie goes to the lower seat, and within a
seat to the slap), unless an engine timer (:attr:`~ratscrew.engine.Game.next_deadline`) is due
no later, which fires first. An action is sent at its time rounded down (never before the last
action). A plan is never earlier than the present. A refused action (e.g. a slap by a seat that
just ran out of cards under rules without slapping in) is forgotten and only that seat
re-plans. The run stops when the game is over, when ``max_cards`` cards have been played
(``end_reason`` ``unfinished``), when nothing is planned and no timer is due, or after
``MAX_REJECTIONS_IN_A_ROW`` refusals in a row.

This is the same game as the table bots play: :func:`play_table_game` seats the same bots
(:class:`ratscrew.bots.agent.BotAgent`) at a runtime `~ratscrew.runtime.Table`, and
``tests/test_sim.py`` and ``tests/test_kernel.py`` check that it gives the same games for every
preset and bot level. A saved agent (``agent:NAME``, :mod:`ratscrew.rl.agents`) is not a bot
model this loop can follow, so a game with one plays at the Table (:func:`run_reference_game`
sends it there). A slap into an
open tie window (``void`` and ``random`` ties) produces no event, so nobody re-plans until the
window closes, with an event naming every tied seat.

**Counting.** ``slaps_won`` counts slaps that won a pile on a pattern (claims excluded);
``misslaps`` counts misslaps; ``duration_ms`` is the time of the last action.

>>> from ratscrew.bots.profile import LEVELS
>>> from ratscrew.ruleset import Ruleset
>>> summary = run_reference_game(Ruleset.preset("classic"), [LEVELS["casual"]] * 2, seed=3)
>>> summary.winner in (0, 1), summary.end_reason
(True, 'all_cards')
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ratscrew.bots.agent import BotAgent, CardMemory
from ratscrew.bots.decision import Plans, draw_pace_ms, draw_reaction_ms, replan
from ratscrew.bots.perception import is_near_pattern
from ratscrew.bots.profile import BotProfile
from ratscrew.bots.spec import is_agent_spec
from ratscrew.cards import Card
from ratscrew.engine import Game
from ratscrew.errors import IllegalActionError
from ratscrew.events import (
    CardPlayed,
    CardsBurned,
    ChallengeLost,
    ClaimOpened,
    Event,
    Misslap,
    PileWon,
    SlapIgnored,
    SlapTie,
    SlapWon,
)
from ratscrew.observation import SLAPPING_STATUSES, SeatStatus
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import MAX_CONSECUTIVE_REJECTIONS, Agent, Table
from ratscrew.sim.summary import GameSummary

DEFAULT_MAX_CARDS = 20_000
"""A game still going after this many cards is stopped and reported ``unfinished``."""

MAX_REJECTIONS_IN_A_ROW = MAX_CONSECUTIVE_REJECTIONS
"""A run stops (``unfinished``) after this many refused actions in a row (what a runtime
`~ratscrew.runtime.Table` allows)."""


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the random generator of the bot at ``seat`` in the game dealt with ``seed``.

    >>> bot_seed(5, 0), bot_seed(5, 3)
    (81, 84)
    """
    return seed * 16 + seat + 1


def bot_rng(seed: int, seat: int) -> random.Random:
    """The random generator of the bot at ``seat`` in the game dealt with ``seed``."""
    return random.Random(bot_seed(seed, seat))


draw_reaction = draw_reaction_ms
"""One reaction time in ms (:func:`ratscrew.bots.decision.draw_reaction_ms`)."""
draw_pace = draw_pace_ms
"""The delay in ms before a card is played (:func:`ratscrew.bots.decision.draw_pace_ms`)."""


@dataclass
class _Seat:
    """One bot: its plans (a slap and a play, in ms, :class:`~ratscrew.bots.decision.Plans`);
    for a counting bot, what it remembers and the card it expects next."""

    profile: BotProfile
    rng: random.Random
    memory: CardMemory
    plans: Plans = field(default_factory=Plans)
    expected: tuple[int, Card] | None = None  # (seat, card) about to be played, if remembered


HandMove = tuple[int, tuple[Card, ...], bool]
"""Cards that left the top of a seat's hand (``False``) or went to its bottom (``True``)."""


@dataclass
class _PileView:
    """The face-up cards in the centre as every bot sees them, followed event by event: what
    a collected pile puts under the winner's hand, in order."""

    live: list[Card]
    burned: list[Card]
    penalty: list[Card]

    def follow(self, events: Sequence[Event]) -> list[HandMove]:
        """The hand moves the events show, in order (this view follows them)."""
        moves: list[HandMove] = []
        for event in events:
            if isinstance(event, CardPlayed) and event.seat is not None:
                self.live.append(event.card)
                moves.append((event.seat, (event.card,), False))
            elif isinstance(event, CardsBurned) and event.seat is not None:
                self.burned[:0] = event.cards
                moves.append((event.seat, event.cards, False))
            elif isinstance(event, Misslap) and event.seat is not None:
                if event.penalty == "burn":
                    self.burned[:0] = event.cards
                elif event.penalty == "penalty_pile":
                    self.penalty.extend(event.cards)
                moves.append((event.seat, event.cards, False))
            elif isinstance(event, PileWon) and event.seat is not None:
                moves.append((event.seat, tuple(self.burned + self.live + self.penalty), True))
                self.live, self.burned, self.penalty = [], [], []
        return moves


def _never_near() -> bool:
    return False


@dataclass(slots=True)
class _Batch:
    """What the events of one action (or timer) tell every seat, and the table they leave
    (whose turn it is, the time, every seat's status), read once for all of them."""

    shown_at: int | None = None  # time of the card played, unless a pile was won after it
    shown: tuple[int, Card] | None = None  # (seat, card) of that card
    played_by: int | None = None  # seat that played a card
    pile_changed: bool = False
    pile_won: bool = False
    slappers: frozenset[int] = frozenset()  # seats whose own slap made an event
    claimer: int | None = None  # winner of a challenge lost under slap collection
    claimer_at: int = 0
    opened_at: int | None = None  # the claim window opened to everyone
    pattern: str | None = None  # the engine's slap pattern, when a card is shown
    near: Callable[[], bool] = _never_near  # whether the pile shows a near pattern
    moves: tuple[HandMove, ...] = ()  # for counting bots
    turn: int | None = None  # the table after the events
    now: int = 0
    statuses: Sequence[SeatStatus] = ()

    @classmethod
    def of(cls, game: Game, events: Sequence[Event], view: _PileView) -> _Batch:
        batch = cls(turn=game.turn, now=game.now, statuses=game.statuses())
        slappers: set[int] = set()
        shown: CardPlayed | None = None
        for event in events:
            if isinstance(event, CardPlayed):
                shown = event
                batch.played_by = event.seat
                batch.pile_changed = True
            elif isinstance(event, PileWon):
                shown = None
                batch.pile_changed = batch.pile_won = True
            elif isinstance(event, (SlapWon, Misslap, SlapIgnored)) and event.seat is not None:
                slappers.add(event.seat)
            elif isinstance(event, SlapTie):
                slappers.update(event.seats)
            elif isinstance(event, ChallengeLost) and event.collect_at is None:
                if batch.claimer is None:
                    batch.claimer, batch.claimer_at = event.winner, event.at
            elif isinstance(event, ClaimOpened) and batch.opened_at is None:
                batch.opened_at = event.at
        batch.slappers = frozenset(slappers)
        batch.moves = tuple(view.follow(events))
        if shown is not None and shown.seat is not None:
            batch.shown_at = shown.at
            batch.shown = (shown.seat, shown.card)
            batch.pattern = game.slap_pattern()
            near = batch.pattern is None and is_near_pattern(game.live_pile)
            batch.near = lambda: near  # what `replan` asks, built once for every seat
        return batch


def _update_plans(seat: int, bot: _Seat, batch: _Batch, floor: float) -> None:
    """Steps 1-6 of the module docstring for one seat (2 to 5 are
    :func:`ratscrew.bots.decision.replan`); then no plan is earlier than ``floor``, the
    present."""
    plans = bot.plans
    if batch.played_by == seat:
        plans.play_at = None
    if seat in batch.slappers or batch.pile_changed:
        plans.slap_at = None
    memory = bot.memory
    if memory.capacity > 0:
        for mover, cards, collected in batch.moves:
            if collected:
                memory.collect(mover, cards)
            else:
                memory.take(mover, cards)
    turn = batch.turn
    replan(bot.profile, bot.rng, plans,
           may_slap=batch.statuses[seat] in SLAPPING_STATUSES,  # its own claim aside
           my_turn=turn == seat, now=batch.now, shown_at=batch.shown_at, pattern=batch.pattern,
           foreseen=bot.expected is not None and bot.expected == batch.shown,
           near=batch.near, claim_at=batch.claimer_at if batch.claimer == seat else None,
           opened_at=batch.opened_at, pile_won=batch.pile_won)
    top = None if turn is None or memory.known == 0 else memory.top(turn)
    bot.expected = None if top is None or turn is None else (turn, top)
    if plans.slap_at is not None and plans.slap_at < floor:
        plans.slap_at = floor
    if plans.play_at is not None and plans.play_at < floor:
        plans.play_at = floor


def run_reference_game(rules: Ruleset, profiles: Sequence[BotProfile], seed: int,
                       max_cards: int = DEFAULT_MAX_CARDS) -> GameSummary:
    """Deal with ``seed`` and play one game between bots on the real engine, exactly as the
    module docstring says (the compiled kernel's specification); a game with a saved agent
    (``agent:NAME``) plays at a runtime Table (:func:`play_table_game`)."""
    if any(is_agent_spec(profile.name) for profile in profiles):
        return play_table_game(rules, profiles, seed, max_cards)
    return play_reference_game(rules, profiles, seed, max_cards)[1]


def _seat_agent(rules: Ruleset, profile: BotProfile, seed: int, seat: int,
                players: int) -> Agent:
    """The table bot of ``profile``, or the saved agent an ``agent:NAME`` stand-in names
    (:mod:`ratscrew.rl.agents`: a tick policy or a bot profile, held to its human reaction
    profile), drawing from the seat's generator (:func:`bot_rng`)."""
    if is_agent_spec(profile.name):
        from ratscrew.rl.agents import seat_agent

        return seat_agent(profile, rules, players, bot_rng(seed, seat).getrandbits(32))
    return BotAgent(profile, rng=bot_rng(seed, seat))


def play_table_game(rules: Ruleset, profiles: Sequence[BotProfile], seed: int,
                    max_cards: int = DEFAULT_MAX_CARDS) -> GameSummary:
    """The game of :func:`run_reference_game` with each seat's agent at a runtime
    `~ratscrew.runtime.Table` under the virtual clock: what the table bots of a room or the
    terminal do, and how a saved agent plays. For bots it is the same game as the loop of
    :func:`play_reference_game` (the tests check it), only slower."""
    players = len(profiles)
    game = Game.deal(rules, players=players, seed=seed)
    agents = [_seat_agent(rules, profile, seed, seat, players)
              for seat, profile in enumerate(profiles)]
    slaps_won = [0] * players
    misslaps = [0] * players
    table = Table(game, agents, max_cards=max_cards, keep_events=False)
    table.add_listener(lambda events: _count(events, slaps_won, misslaps))
    table.run_virtual()
    return _summary(game, seed, slaps_won, misslaps)


def _count(events: Sequence[Event], slaps_won: list[int], misslaps: list[int]) -> None:
    """Count the slaps that won a pile on a pattern (claims excluded) and the misslaps."""
    for event in events:
        if isinstance(event, SlapWon) and event.pattern != "claim" and event.seat is not None:
            slaps_won[event.seat] += 1
        elif isinstance(event, Misslap) and event.seat is not None:
            misslaps[event.seat] += 1


def _summary(game: Game, seed: int, slaps_won: Sequence[int], misslaps: Sequence[int]) -> GameSummary:
    """What a game played with ``seed`` produced, stopped or over."""
    return GameSummary(
        seed=seed, players=game.players, winner=game.winner,
        end_reason=game.end_reason if game.over and game.end_reason else "unfinished",
        cards_played=game.cards_played, tricks=game.tricks, duration_ms=game.now,
        slaps_won=tuple(slaps_won), misslaps=tuple(misslaps))


def play_reference_game(rules: Ruleset, profiles: Sequence[BotProfile], seed: int,
                        max_cards: int = DEFAULT_MAX_CARDS,
                        hands: Sequence[Sequence[Card]] | None = None) -> tuple[Game, GameSummary]:
    """:func:`run_reference_game`, also returning the `Game` (its record lists every action).
    ``hands`` replaces the seeded deal with an explicit one (the leader is chosen by the
    rules); the bots still draw from generators seeded by ``seed``."""
    players = len(profiles)
    if hands is None:
        game = Game.deal(rules, players=players, seed=seed)
    else:
        if len(hands) != players:
            raise ValueError(f"{len(hands)} hands for {players} players")
        game = Game(rules, [list(hand) for hand in hands], leader=None, seed=seed)
    sizes = [game.hand_size(seat) for seat in range(players)]
    bots = [_Seat(profile, bot_rng(seed, seat), CardMemory(profile.memory, sizes))
            for seat, profile in enumerate(profiles)]
    view = _PileView(game.live_pile, game.burned, game.penalty_pile)
    slaps_won = [0] * players
    misslaps = [0] * players
    clock = 0.0
    start = _Batch.of(game, (), view)
    for seat, bot in enumerate(bots):
        _update_plans(seat, bot, start, max(float(game.now), clock))
    rejections = 0
    seat_plans = [bot.plans for bot in bots]
    while not game.over:
        best_at = 0.0
        best_seat = -1
        best_is_slap = False
        for seat, plans in enumerate(seat_plans):
            slap_at, play_at = plans.slap_at, plans.play_at
            if slap_at is not None and (play_at is None or slap_at <= play_at):
                at, is_slap = slap_at, True
            elif play_at is not None:
                at, is_slap = play_at, False
            else:
                continue
            if best_seat < 0 or at < best_at:
                best_at, best_seat, best_is_slap = at, seat, is_slap
        deadline = game.next_deadline
        if deadline is None and best_seat < 0:
            break
        if game.cards_played >= max_cards:
            break
        if deadline is not None and (best_seat < 0 or deadline <= best_at):
            clock = max(clock, float(deadline))
            events = game.advance(deadline)
        else:
            clock = max(clock, best_at)
            bot = bots[best_seat]
            if best_is_slap:
                bot.plans.slap_at = None
            else:
                bot.plans.play_at = None
            at = max(int(best_at), game.now)
            try:
                events = game.slap(best_seat, at) if best_is_slap else game.play(best_seat, at)
            except IllegalActionError:
                rejections += 1
                _update_plans(best_seat, bot, _Batch.of(game, (), view), max(float(game.now), clock))
                if rejections >= MAX_REJECTIONS_IN_A_ROW:
                    break
                continue
            rejections = 0
        if not events:
            continue
        _count(events, slaps_won, misslaps)
        floor = max(float(game.now), clock)
        batch = _Batch.of(game, events, view)
        for seat, bot in enumerate(bots):
            _update_plans(seat, bot, batch, floor)
    return game, _summary(game, seed, slaps_won, misslaps)
