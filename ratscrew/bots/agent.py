"""`BotAgent`: a human-like bot that sits at a `ratscrew.runtime.Table`.

It follows the decision model of :mod:`ratscrew.bots.decision` (reaction times drawn from an
ex-Gaussian, misses that grow with a pattern's difficulty, flinches on near patterns, a
card-playing pace, the order of the random draws: written there once, for this bot and the
simulation kernel's reference alike) and adds what only a bot that keeps state can do:
**counting**.

What the bot sees and remembers. It gets nothing but its seat's observation and the events of
each action. Every card it ever sees was face up (played, burned, paid as a penalty); when a
seat collects the pile, the bot knows the collected cards went to the bottom of that seat's
hand in pile order, so it can follow them down the hand as the seat plays. It keeps at most
``profile.memory`` such cards in mind (when it learns more, it forgets the ones it learned
first). Cards dealt at the start are never known.

Anticipation. When the seat whose turn it is has a top card the bot remembers, the bot knows
what the pile will show once that card is played. If that makes a slap, it slaps
``anticipation`` ms after the card is *shown* (drawn around ``profile.anticipation_ms``), which
may be quicker than :data:`~ratscrew.bots.profile.ANTICIPATION_FLOOR_MS` - the one legitimate
way to beat the floor. A card it knew in advance also never makes it flinch, and it never
misses a pattern it saw coming. ``profile.spam`` (0 for every level) is the chance to slap a card
without looking at it at all, as players who slap at everything do: such a slap skips the
recognition step, so it lands after a *simple* reaction (the drawn reaction minus
:data:`RECOGNITION_COST_MS`, never under the floor) and wins the pile only if the pile happens
to be slappable.

Honest timing. Every intent is computed when the bot is told of an event, and is timed from
that event: a slap is never earlier than the card it answers (plus the reaction floor, unless
anticipated), a play never earlier than the moment the turn came.

What happens to a planned slap when the pile changes. A new card on the pile or a pile won by
anyone cancels the slap the bot planned for the old pile (it re-decides on the new pile), as a
player who sees the pile covered or taken holds back. A planned slap survives everything else
(a challenge lost, a timer, someone else's misslap).

>>> from ratscrew.engine import Game
>>> from ratscrew.ruleset import Ruleset
>>> from ratscrew.runtime import Table
>>> game = Game.deal(Ruleset.preset("classic"), players=2, seed=1)
>>> table = Table(game, [BotAgent(LEVELS["expert"], seed=1), BotAgent(LEVELS["casual"], seed=2)])
>>> _ = table.run_virtual()
>>> game.over
True
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence

from ratscrew.bots.decision import (
    MIN_ANTICIPATION_MS,
    RECOGNITION_COST_MS,
    Plans,
    draw_reaction_ms,
    replan,
)
from ratscrew.bots.perception import is_near_pattern
from ratscrew.bots.profile import LEVELS, BotProfile
from ratscrew.cards import Card
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
from ratscrew.observation import SLAPPING_STATUSES
from ratscrew.patterns import find_slap
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import Answer, Intent, Observation

__all__ = ["MIN_ANTICIPATION_MS", "RECOGNITION_COST_MS", "BotAgent", "CardMemory", "draw_reaction_ms"]

class CardMemory:
    """What a counting bot knows of each hand: ``None`` for an unknown card, else the card and
    the order in which it was learned. Holds at most ``capacity`` known cards: learning one
    more forgets the one learned longest ago that is still in a hand. (The simulation's
    reference driver, :mod:`ratscrew.sim.reference`, uses this same class.)"""

    def __init__(self, capacity: int, hand_sizes: Sequence[int]) -> None:
        self.capacity = capacity
        self.hands: list[deque[tuple[Card, int] | None]] = [deque([None] * n) for n in hand_sizes]
        self._learned: deque[tuple[int, int]] = deque()  # (seat, order), oldest first
        self._order = 0
        self.known = 0

    def top(self, seat: int) -> Card | None:
        """The seat's top card if remembered."""
        hand = self.hands[seat]
        return hand[0][0] if hand and hand[0] is not None else None

    def take(self, seat: int, cards: Sequence[Card]) -> None:
        """``cards`` left the top of the seat's hand (played, burned or paid) and were seen."""
        hand = self.hands[seat]
        for card in cards:
            if not hand:
                return
            entry = hand.popleft()
            if entry is not None:
                self.known -= 1
                if entry[0] != card:  # memory proved wrong: trust nothing about this hand
                    self.forget_hand(seat)
                    return

    def collect(self, seat: int, cards: Sequence[Card]) -> None:
        """The seat put ``cards`` (seen face up) at the bottom of its hand, in this order."""
        hand = self.hands[seat]
        if self.capacity <= 0:
            hand.extend([None] * len(cards))
            return
        for card in cards:
            self._order += 1
            hand.append((card, self._order))
            self._learned.append((seat, self._order))
            self.known += 1
        while self.known > self.capacity and self._learned:
            self._forget(*self._learned.popleft())

    def _forget(self, seat: int, order: int) -> None:
        hand = self.hands[seat]
        for index, entry in enumerate(hand):
            if entry is not None and entry[1] == order:
                hand[index] = None
                self.known -= 1
                return

    def forget_hand(self, seat: int) -> None:
        hand = self.hands[seat]
        self.known -= sum(entry is not None for entry in hand)
        self.hands[seat] = deque([None] * len(hand))

    def resync(self, hand_sizes: Sequence[int]) -> None:
        """Forget any hand whose size is not what the table shows (a safety net: events tell
        the bot everything, so this only matters if an event was missed)."""
        for seat, size in enumerate(hand_sizes):
            if len(self.hands[seat]) != size:
                self.forget_hand(seat)
                self.hands[seat] = deque([None] * size)


class BotAgent:
    """A bot with a `BotProfile`, seeded by ``seed`` (or a ``random.Random`` given as ``rng``).

    Only observations and events reach it; see the module docstring for the model.
    """

    def __init__(self, profile: BotProfile, seed: int | None = None,
                 rng: random.Random | None = None) -> None:
        self.profile = profile
        self.rng = rng if rng is not None else random.Random(seed)
        self.seat = -1
        self.rules: Ruleset | None = None
        self.slaps = 0
        self.misslaps = 0
        self.anticipations = 0
        self._live: list[Card] = []
        self._burned: list[Card] = []
        self._penalty: list[Card] = []
        self._memory: CardMemory | None = None
        self._plans = Plans()
        self._expected: tuple[int, Card] | None = None  # (seat, card) about to be played

    def __repr__(self) -> str:
        return f"BotAgent({self.profile.name!r}, seat={self.seat})"

    # ------------------------------------------------------------------ Agent protocol

    def on_start(self, seat: int, rules: Ruleset, observation: Observation) -> Answer:
        """Sit down: nothing is known of the dealt hands."""
        self.seat = seat
        self.rules = rules
        self._memory = CardMemory(self.profile.memory, observation["hand_sizes"])
        self._live = [Card.parse(c) for c in observation["pile"]]
        self._burned = [Card.parse(c) for c in observation["burned"]]
        return self._decide([], observation)

    def on_events(self, events: Sequence[Event], observation: Observation) -> Answer:
        """Remember what the events showed, then re-plan."""
        return self._decide(events, observation)

    def on_rejected(self, intent: Intent, error: IllegalActionError,
                    observation: Observation) -> Answer:
        """A refused play or slap is dropped; the bot re-plans from what it sees."""
        if intent.kind == "play":
            self._plans.play_at = None
        else:
            self._plans.slap_at = None
        return self._decide([], observation)

    # ------------------------------------------------------------------ model

    def _decide(self, events: Sequence[Event], observation: Observation) -> Answer:
        seat = self.seat
        rules = self.rules
        assert rules is not None
        plans = self._plans
        pile_changed = pile_won = False
        shown: CardPlayed | None = None
        claim_at: int | None = None
        opened_at: int | None = None
        for event in events:
            self._remember(event)
            if isinstance(event, CardPlayed):
                shown = event
                pile_changed = True
                if event.seat == seat:
                    plans.play_at = None
            elif isinstance(event, PileWon):
                shown = None
                pile_changed = pile_won = True
            elif (isinstance(event, (SlapWon, Misslap, SlapIgnored)) and event.seat == seat) or (
                    isinstance(event, SlapTie) and seat in event.seats):
                plans.slap_at = None  # our planned slap has happened
            elif isinstance(event, CardsBurned) and event.seat == seat and event.reason == "out_of_turn":
                plans.play_at = None
            elif isinstance(event, ChallengeLost) and event.winner == seat and event.collect_at is None:
                claim_at = event.at if claim_at is None else claim_at
            elif isinstance(event, ClaimOpened):
                opened_at = event.at if opened_at is None else opened_at
        self._check_view(observation)
        if pile_changed:
            plans.slap_at = None
        turn = observation["turn"]
        live = self._live
        why = replan(
            self.profile, self.rng, plans,
            may_slap=observation["status"][seat] in SLAPPING_STATUSES,  # its own claim aside
            my_turn=turn == seat, now=observation["now"],
            shown_at=None if shown is None else shown.at,
            pattern=None if shown is None else find_slap(live, rules.slaps, rules.pattern_options),
            foreseen=shown is not None and self._expected == (shown.seat, shown.card),
            near=lambda: is_near_pattern(live), claim_at=claim_at, opened_at=opened_at,
            pile_won=pile_won)
        if why is not None and why.startswith("anticipate"):
            self.anticipations += 1
        self._expect_next(turn)
        answer = []
        if plans.slap_at is not None:
            answer.append(Intent("slap", plans.slap_at, plans.slap_why))
        if plans.play_at is not None:
            answer.append(Intent("play", plans.play_at, "turn"))
        return answer

    def _expect_next(self, turn: int | None) -> None:
        """Look up the top card of whoever plays next, if it is remembered."""
        memory = self._memory
        if turn is None or memory is None or memory.known == 0:
            self._expected = None
            return
        card = memory.top(turn)
        self._expected = None if card is None else (turn, card)

    # ------------------------------------------------------------------ memory

    def _remember(self, event: Event) -> None:
        memory = self._memory
        assert memory is not None
        if isinstance(event, CardPlayed):
            assert event.seat is not None
            self._live.append(event.card)
            memory.take(event.seat, (event.card,))
        elif isinstance(event, CardsBurned):
            assert event.seat is not None
            self._burned[:0] = event.cards
            memory.take(event.seat, event.cards)
        elif isinstance(event, Misslap):
            assert event.seat is not None
            if event.seat == self.seat:
                self.misslaps += 1
            if event.penalty == "burn":
                self._burned[:0] = event.cards
            elif event.penalty == "penalty_pile":
                self._penalty.extend(event.cards)
            memory.take(event.seat, event.cards)
        elif isinstance(event, PileWon):
            assert event.seat is not None
            memory.collect(event.seat, self._burned + self._live + self._penalty)
            self._live, self._burned, self._penalty = [], [], []
        elif isinstance(event, SlapWon) and event.seat == self.seat and event.pattern != "claim":
            self.slaps += 1

    def _check_view(self, observation: Observation) -> None:
        """Make sure the remembered pile matches what is on the table (it always should)."""
        pile = observation["pile"]
        if len(pile) != len(self._live) or (pile and pile[-1] != str(self._live[-1])) or (
                len(observation["burned"]) != len(self._burned)):
            self._live = [Card.parse(c) for c in pile]
            self._burned = [Card.parse(c) for c in observation["burned"]]
        memory = self._memory
        if memory is not None and memory.capacity > 0:
            memory.resync(observation["hand_sizes"])


def bot_for_level(name: str, seed: int) -> BotAgent:
    """A bot of a named level (see :data:`ratscrew.bots.profile.LEVELS`)."""
    if name not in LEVELS:
        raise ValueError(f"unknown bot level {name!r}; choose one of {', '.join(LEVELS)}")
    return BotAgent(LEVELS[name], seed=seed)
