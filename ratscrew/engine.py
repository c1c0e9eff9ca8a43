"""The deterministic ERS engine: game state plus timed actions, producing events.

The engine has no clock. Every action carries its time in milliseconds (``at=``) and actions
come in non-decreasing time order. A time is an ``int`` from 0 to `MAX_TIME_MS`; a float is
refused even when it is whole (``500.0``), so a caller holding float times converts them first,
as the runtime `Table` does with ``int(at)``. Arguments are checked before anything changes: a
seat that is not a seat number at the table is a `NoSuchSeatError`, a time that is not a time
an `InvalidTimeError`, and the game stays exactly as it was.

Timed rules (the grace window after a lost challenge, the exclusive claim window, the tie window
for simultaneous slaps) are resolved when the engine is told the time, by the next action or by
:meth:`Game.advance`.

>>> from ratscrew.cards import format_cards
>>> from ratscrew.ruleset import Ruleset
>>> game = Game(Ruleset.preset("classic"), hands=["7H 2C", "7S 3D"], leader=0)
>>> [e.kind for e in game.play(0, at=0)]
['card_played']
>>> [e.kind for e in game.play(1, at=500)]
['card_played']
>>> [e.kind for e in game.slap(0, at=800)]
['slap_won', 'pile_won']
>>> format_cards(game.hand(0))
'2C 7H 7S'
"""

from __future__ import annotations

import copy
import operator
import random
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from ratscrew.cards import Card, Rank, format_cards, parse_cards, standard_deck
from ratscrew.errors import (
    GameOverError,
    IllegalActionError,
    InvalidTimeError,
    NoCardsError,
    NoSuchSeatError,
    NotYourTurnError,
    SlapNotAllowedError,
    TimeOrderError,
)
from ratscrew.events import (
    CardPlayed,
    CardsBurned,
    ChallengeLost,
    ChallengePassed,
    ChallengeStarted,
    ClaimOpened,
    Event,
    GameOver,
    LockedOut,
    Misslap,
    PileWon,
    PlayerBarred,
    PlayerOut,
    SlapIgnored,
    SlappedIn,
    SlapTie,
    SlapWon,
)
from ratscrew.observation import ACT_KINDS, ActKind, MayView, Observation, SeatStatus
from ratscrew.patterns import PATTERNS, is_triple
from ratscrew.ruleset import Ruleset

RECORD_FORMAT = "ratscrew-record"
ACTION_KINDS = ("play", "slap", "resign", "advance", "time_up")
"""The kinds of action a record lists, as ``[kind, seat, at]`` (``seat`` is ``None`` for
``advance`` and ``time_up``)."""
_SEATLESS = ("advance", "time_up")
"""The actions no seat takes: the clock's."""
MAX_TIME_MS = 2**53 - 1
"""The latest time an action may carry, in ms: the largest whole number that every JSON reader
(JavaScript's included) keeps exactly, and well inside SQLite's 64-bit integers."""
_SHARED_STATE = frozenset({"rules", "initial_hands", "_rank_kind", "_actions", "_chances",
                           "_pattern_options", "_slap_checks", "_code_of",
                           "_rank_repeats"})
"""Attributes that an action never changes in place, so a snapshot need not copy them."""
RECORD_VERSION = 1
_RANK = operator.attrgetter("rank")
_NOTATION = operator.attrgetter("_notation")
"""``str(card)`` without the call to ``__str__``: an observation writes every card of the pile."""
_VIEW_TEMPLATE: dict[str, Any] = {
    "seat": None, "now": 0, "rules": "", "players": 0, "turn": None, "pile": None,
    "pile_played_by": None, "burned": None, "penalty_pile": 0, "hand_sizes": None, "status": None,
    "challenge": None, "collection": None, "tie_window_until": None, "cards_played": 0,
    "tricks": 0, "over": False, "winner": None, "end_reason": None, "may": None}
"""`Game.observe`'s keys in their order (`ratscrew.observation.Observation`), with the values of
a game under way and no challenge, collection or tie window: each observation starts as a copy
of it."""
_NOBODY: frozenset[int] = frozenset()
_HAND_BREAK = b"\xff"
"""Between two hands in the cycle key: a byte that is no card's code."""
_REPEATS = {"double": 2, "sandwich": 3}
"""Patterns that are the top card's rank again so many cards from the top (counting it)."""


@dataclass(slots=True)
class Challenge:
    """A face-card challenge in progress: ``target`` owes ``chances_left`` more cards."""

    challenger: int
    target: int
    chances_left: int
    card: Card


@dataclass(slots=True)
class Award:
    """A lost challenge: ``winner`` is owed the pile.

    With automatic collection the pile moves at ``collect_at``; with slap collection the winner
    slaps to claim and ``exclusive_until`` ends their own window.
    """

    winner: int
    loser: int
    collect_at: int | None
    exclusive_until: int | None
    claim_opened: bool = False


@dataclass(slots=True)
class TieWindow:
    """Valid slaps gathered while the tie window is open (void and random tie policies)."""

    closes_at: int
    slaps: list[tuple[int, int, str]] = field(default_factory=list)  # (at, seat, pattern)


class Game:
    """One game of ERS under a `Ruleset`, from an explicit deal.

    ``hands`` are given top card first, as card lists or notation strings; a seat with an empty
    hand is an outsider who may slap in if the rules allow. ``leader`` is the seat that plays
    first; ``None`` lets the ruleset choose (left of dealer is seat 0, or highest bottom card).
    ``seed`` drives the only chance the engine has: the random tie policy.
    """

    def __init__(
        self,
        rules: Ruleset,
        hands: Sequence[Sequence[Card | str] | str],
        leader: int | None = None,
        seed: int = 0,
    ) -> None:
        _check_rules(rules)
        if isinstance(hands, str) or not isinstance(hands, Sequence):
            raise ValueError(f"hands must be a list of hands, one per seat, got {_brief(hands)}")
        _check_seat_count(rules, len(hands))
        dealt = [_read_hand(seat, hand) for seat, hand in enumerate(hands)]
        _check_no_duplicates(dealt)
        _check_seed(seed)
        if leader is None:
            leader = choose_leader(rules, dealt)
        if type(leader) is not int or not 0 <= leader < len(dealt) or not dealt[leader]:
            raise ValueError(f"the leader must be a seat holding cards, got {_brief(leader)}")
        self.rules = rules
        self.seed = seed
        self.initial_hands: tuple[tuple[Card, ...], ...] = tuple(tuple(h) for h in dealt)
        self.leader = leader
        self._hands: list[deque[Card]] = [deque(h) for h in dealt]
        self._n = len(dealt)
        self._live: list[Card] = []
        self._played_by: list[int] = []
        self._burned: list[Card] = []
        self._penalty: list[Card] = []
        self._turn: int | None = leader
        self._challenge: Challenge | None = None
        self._award: Award | None = None
        self._tie: TieWindow | None = None
        # (time, cards_played, slapper) when a pile was last taken, and who slapped for it
        self._last_win: tuple[int, int, int | None] | None = None
        self._void_top = -1  # cards_played value at which a tie was voided
        self._last_chance: int | None = None  # all hands empty, pile slappable: until then
        self._misslap_run = [0] * self._n
        self._locked: set[int] = set()
        self._barred: set[int] = set()
        self._eliminated: set[int] = set()
        self._resigned: set[int] = set()
        self._ran_out: set[int] = set()
        # Known: every seat holding no cards is in _ran_out. Set by _after_cards_left, cleared
        # wherever a hand may empty or a seat leave _ran_out; lets a card play skip it.
        self._outs_marked = False
        self._outsiders = {seat for seat, hand in enumerate(dealt) if not hand}
        self._rng = random.Random(seed)
        self._now = 0
        self._over = False
        self._winner: int | None = None
        self._end_reason: str | None = None
        self.cards_played = 0
        self.tricks = 0
        self._actions: list[tuple[str, int | None, int]] = []
        self._total_cards = sum(len(h) for h in dealt)
        self._chances = {rank: rules.chances(rank) for rank in Rank}
        self._pattern_options = rules.pattern_options
        # The ruleset's patterns in its order, looked up once (what `find_slap` does each time).
        self._slap_checks = tuple((name, PATTERNS[name]) for name in rules.slaps)
        # When the patterns are only doubles and sandwiches (most rulesets), each is the top
        # card's rank found again so many cards down: checked inline, without a call each.
        self._rank_repeats: tuple[tuple[str, int], ...] | None = (
            tuple((name, _REPEATS[name]) for name in rules.slaps)
            if set(rules.slaps) <= _REPEATS.keys() else None)
        self._rank_kind: dict[Rank, int] = {  # rank -> what the rules can tell apart
            rank: int(rank) if rules.slaps else self._chances[rank] for rank in Rank}
        # Each hand also as bytes, one per card: the code of what the rules can tell apart
        # of it (the kinds above, numbered), kept in step with the hand, so that the state key
        # at every pile is a copy of a few bytes rather than a walk over all the cards.
        codes = {kind: code for code, kind in enumerate(sorted(set(self._rank_kind.values())))}
        self._code_of = {rank: codes[kind] for rank, kind in self._rank_kind.items()}.__getitem__
        self._codes = [bytearray(map(self._code_of, map(_RANK, hand))) for hand in dealt]
        self._seen_states: set[tuple[Any, ...]] = {self._state_key()}

    # ------------------------------------------------------------------ constructors

    @classmethod
    def deal(cls, rules: Ruleset, players: int, seed: int, outsiders: int = 0) -> Game:
        """Shuffle the ruleset's deck with ``seed`` and deal it round-robin to ``players`` seats,
        starting left of the dealer (seat 0). ``outsiders`` adds seats with no cards.

        >>> game = Game.deal(Ruleset.preset("classic"), players=3, seed=7)
        >>> [len(game.hand(s)) for s in range(3)]
        [18, 17, 17]
        """
        _check_rules(rules)
        if type(players) is not int or players < 2:
            raise ValueError(f"a game needs at least two players, got {_brief(players)}")
        if type(outsiders) is not int or outsiders < 0:
            raise ValueError(f"outsiders must be a whole number of seats, got {_brief(outsiders)}")
        _check_seat_count(rules, players + outsiders)
        _check_seed(seed)
        deck = standard_deck(rules.jokers)
        random.Random(seed).shuffle(deck)
        hands: list[list[Card]] = [[] for _ in range(players)]
        for i, card in enumerate(deck):
            hands[i % players].append(card)
        return cls(rules, hands + [[] for _ in range(outsiders)], leader=None, seed=seed)

    # ------------------------------------------------------------------ public state

    @property
    def players(self) -> int:
        """Number of seats, outsiders included."""
        return self._n

    @property
    def pile(self) -> list[Card]:
        """Every card in the centre, bottom to top: burned cards first, then the live ones."""
        return self._burned + self._live

    @property
    def live_pile(self) -> list[Card]:
        """The played (not burned) cards of the pile, bottom to top: what patterns look at."""
        return list(self._live)

    @property
    def burned(self) -> list[Card]:
        """Burned cards lying face up under the pile."""
        return list(self._burned)

    @property
    def penalty_pile(self) -> list[Card]:
        """The separate penalty pile (``penalty_pile`` misslap penalty)."""
        return list(self._penalty)

    def hand(self, seat: int) -> list[Card]:
        """The seat's hand, top card first (what a referee knows; never shown to players)."""
        self._check_seat(seat)
        return list(self._hands[seat])

    def hand_size(self, seat: int) -> int:
        """How many cards the seat holds."""
        self._check_seat(seat)
        return len(self._hands[seat])

    @property
    def turn(self) -> int | None:
        """Whose turn it is to play a card; ``None`` while a won pile waits to be collected or
        when the game is over."""
        return None if self._over else self._turn

    @property
    def challenge(self) -> Challenge | None:
        """The face-card challenge in progress, if any (a copy)."""
        challenge = self._challenge  # copied field by field: `copy.copy` of a slots class is slow
        return None if challenge is None else Challenge(
            challenge.challenger, challenge.target, challenge.chances_left, challenge.card)

    @property
    def award(self) -> Award | None:
        """The lost challenge whose pile is waiting to be collected, if any (a copy)."""
        award = self._award
        return None if award is None else Award(
            award.winner, award.loser, award.collect_at, award.exclusive_until, award.claim_opened)

    @property
    def over(self) -> bool:
        """True once the game has ended."""
        return self._over

    @property
    def winner(self) -> int | None:
        """The winning seat, or ``None`` (game not over, nobody won, or a cycle)."""
        return self._winner

    @property
    def end_reason(self) -> str | None:
        """Why the game ended (see `GameOver`), or ``None`` while it goes on."""
        return self._end_reason

    @property
    def now(self) -> int:
        """The time of the latest action, in ms."""
        return self._now

    @property
    def next_deadline(self) -> int | None:
        """When the engine's next timer falls due (tie window, grace or claim window), in ms;
        a driver calls :meth:`advance` then, if no action comes first."""
        if self._over or (self._tie is None and self._last_chance is None and self._award is None):
            return None  # no timer at all: what `_next_timer` finds, without the call
        return self._next_timer()

    def slap_pattern(self) -> str | None:
        """The pattern the live pile shows under these rules, or ``None``: the one place views
        and bots ask whether the pile could be slapped right now."""
        # `find_slap(self._live, self.rules.slaps, self._pattern_options)`, without looking
        # the patterns up by name on every call: the engine and the players ask on every card.
        live = self._live
        repeats = self._rank_repeats
        if repeats is not None:
            size = len(live)
            if size >= 2:
                top = live[-1].rank
                for name, down in repeats:
                    if size >= down and live[-down].rank == top:
                        return name
            return None
        options = self._pattern_options
        for name, shows in self._slap_checks:
            if shows(live, options):
                return name
        return None

    def status(self, seat: int) -> SeatStatus:
        """``in`` (holding cards or owed a pile), ``locked`` (holding cards but may not slap),
        ``out`` (no cards, may slap in), ``barred`` (may no longer slap in), ``eliminated``
        (out for good) or ``watching`` (an outsider who may not slap in)."""
        if type(seat) is not int or not 0 <= seat < self._n:  # `_check_seat`, inline
            self._check_seat(seat)
        return self._status(seat)

    def may(self, seat: int, kind: ActKind) -> bool:
        """Whether ``seat`` may take action ``kind`` (``play`` or ``slap``) now: the one place
        players, bots, learning environments and clients learn who may act.

        ``play``: it is the seat's turn (and it holds a card); a play out of turn is refused, or
        burns cards as a penalty where ``out_of_turn = "burn"``. ``slap``: the engine would
        judge the seat's slap rather than refuse it: it is owed the pile of a lost challenge
        (and may slap to claim it, whatever its status), or it is neither out of the game nor
        locked out, and holds cards, or is the challenger, or may slap in. A slap it may make
        can still be a misslap. Nobody may do anything once the game is over.

        >>> game = Game(Ruleset.preset("classic"), hands=["7H 2C", "7S 3D"], leader=0)
        >>> game.may(0, "play"), game.may(1, "play"), game.may(1, "slap")
        (True, False, True)
        """
        if type(seat) is not int or not 0 <= seat < self._n:
            self._check_seat(seat)
        if kind == "play":
            return not self._over and self._turn == seat and bool(self._hands[seat])
        if kind == "slap":
            return not self._over and self._may_slap(seat)
        raise ValueError(f"unknown action {kind!r}; choose one of {', '.join(ACT_KINDS)}")

    def _may_view(self) -> MayView:
        """`may` for every seat."""
        players = self._n
        play = [False] * players
        if self._over:
            return {"play": play, "slap": [False] * players}
        turn = self._turn
        if turn is not None and self._hands[turn]:
            play[turn] = True
        if not self._locked and not self._eliminated and all(self._hands):
            return {"play": play, "slap": [True] * players}  # everyone holds cards and may slap
        return {"play": play, "slap": [self._may_slap(seat) for seat in range(players)]}

    def statuses(self) -> list[SeatStatus]:
        """Every seat's `status`, in seat order, as `_status` gives it, without its call for
        a seat that is eliminated or holds cards (most seats, most of the time)."""
        hands, locked, eliminated = self._hands, self._locked, self._eliminated
        if not locked and not eliminated and all(hands):
            return ["in"] * self._n
        statuses: list[SeatStatus] = []
        for seat, hand in enumerate(hands):
            if seat in eliminated:
                statuses.append("eliminated")
            elif hand:
                statuses.append("locked" if seat in locked else "in")
            else:
                statuses.append(self._status_without_cards(seat))
        return statuses

    def _status(self, seat: int) -> SeatStatus:
        if seat in self._eliminated:
            return "eliminated"
        if self._hands[seat]:
            return "locked" if seat in self._locked else "in"
        return self._status_without_cards(seat)

    def _status_without_cards(self, seat: int) -> SeatStatus:
        """`_status` of a seat holding no cards that is not eliminated."""
        award, challenge = self._award, self._challenge
        if (award is not None and award.winner == seat) or (
                challenge is not None and challenge.challenger == seat):
            return "locked" if seat in self._locked else "in"
        if seat in self._barred:
            return "barred"
        if not self._may_slap_in(seat):
            return "watching" if seat in self._outsiders else "eliminated"
        return "out"

    def zones(self) -> dict[str, list[Card]]:
        """Every place a card can be, by name. Together they hold each card exactly once.

        >>> game = Game(Ruleset.preset("classic"), hands=["7H", "2C"], leader=0)
        >>> {name: len(cards) for name, cards in game.zones().items()}
        {'hand 0': 1, 'hand 1': 1, 'pile': 0, 'burned': 0, 'penalty pile': 0}
        """
        zones = {f"hand {seat}": list(hand) for seat, hand in enumerate(self._hands)}
        zones["pile"] = list(self._live)
        zones["burned"] = list(self._burned)
        zones["penalty pile"] = list(self._penalty)
        return zones

    # ------------------------------------------------------------------ actions

    def play(self, seat: int, at: int) -> list[Event]:
        """``seat`` plays the top card of their hand onto the pile at time ``at``.

        Out of turn, the ruleset either refuses (`NotYourTurnError`) or burns the card.
        """
        # Most calls are a card played in turn with no timer pending: then this is the whole
        # of `_act` (the same checks, passed; nothing to fire, nothing to undo). Anything else,
        # a refused argument included, goes through `_act`, which checks in its own order.
        # (An int equal to the turn is a seat at the table: the turn is only ever one.)
        if (type(at) is int and type(seat) is int and self._turn == seat
                and self._now <= at <= MAX_TIME_MS and not self._over
                and self._tie is None and self._last_chance is None and self._award is None):
            hand = self._hands[seat]
            if hand:
                events: list[Event] = []
                self._now = at
                self._play_card(seat, hand, at, events)
                self._actions.append(("play", seat, at))
                return events
        return self._act("play", seat, at)

    def slap(self, seat: int, at: int) -> list[Event]:
        """``seat`` slaps the pile at time ``at``: a valid slap wins it, a misslap is penalised,
        and a slap that claims a won challenge collects it."""
        # With no timer pending, `_act` comes down to this (see `play`).
        if (type(at) is int and type(seat) is int and self._now <= at <= MAX_TIME_MS
                and 0 <= seat < self._n and not self._over
                and self._tie is None and self._last_chance is None and self._award is None):
            events: list[Event] = []
            now_before = self._now
            self._now = at
            try:
                self._slap(seat, at, events)
            except IllegalActionError:
                self._now = now_before
                raise
            self._actions.append(("slap", seat, at))
            return events
        return self._act("slap", seat, at)

    def resign(self, seat: int, at: int) -> list[Event]:
        """``seat`` resigns: their whole hand is burned under the pile."""
        return self._act("resign", seat, at)

    def advance(self, at: int) -> list[Event]:
        """Tell the engine the time is ``at``: fire every timer due by then, in order."""
        # `_act` for an advance, less its dispatching (see `play`).
        if type(at) is int and self._now <= at <= MAX_TIME_MS and not self._over:
            events: list[Event] = []
            now_before = self._now
            try:
                if self._tie is not None or self._last_chance is not None or self._award is not None:
                    due = self._next_timer()
                    if due is not None and due <= at:
                        self._fire_timers(at, events, closing=False)
                self._now = at
            except IllegalActionError:
                self._now = now_before
                raise
            self._actions.append(("advance", None, at))
            return events
        return self._act("advance", None, at)

    def end_on_time(self, at: int) -> list[Event]:
        """The game's time limit ran out at ``at`` (a house rule of online rooms, see
        docs/rules.md): timers due by then fire first, then the player holding the most cards
        wins; among players holding as many, the next to play wins (the one whose turn it is,
        then on round the table). The game ends with reason ``time_limit``; recorded as a
        ``time_up`` action, so a record replays it.

        >>> game = Game(Ruleset.preset("classic"), hands=["7H 2C", "7S 3D 4D"], leader=0)
        >>> [(e.kind, e.seat, e.reason) for e in game.end_on_time(at=600_000)]
        [('game_over', 1, 'time_limit')]
        """
        return self._act("time_up", None, at)

    def _time_up(self, at: int, events: list[Event]) -> None:
        sizes = [len(hand) for hand in self._hands]
        most = max(sizes)
        first = self._turn
        if first is None:  # the pile is being won: its winner leads next
            first = self._award.winner if self._award is not None else self.leader
        winner = next(seat for seat in ((first + step) % self._n for step in range(self._n))
                      if sizes[seat] == most)
        self._end(winner, "time_limit", at, events)

    def _act(self, kind: str, seat: int | None, at: int) -> list[Event]:
        # The arguments first, before anything can change (no timer fired, the clock untouched).
        # They may come from the network; the checks run on every action, so they stay cheap.
        if type(at) is not int or not 0 <= at <= MAX_TIME_MS:
            raise InvalidTimeError(
                f"a time is a whole number of ms, an int from 0 to {MAX_TIME_MS}; got {_brief(at)}")
        if kind not in _SEATLESS:
            self._check_seat(seat)
        if self._over:
            if kind == "advance":
                return []
            raise GameOverError("the game is over")
        if at < self._now:
            raise TimeOrderError(f"time {at} ms is before the last action at {self._now} ms")
        events: list[Event] = []
        now_before = self._now
        # Most actions find no timer due: then there is nothing to fire and nothing to undo.
        # (With no tie window, last chance or award there is no timer at all.)
        timers_due = (self._tie is not None or self._last_chance is not None
                      or self._award is not None) and self._has_timer_due(at, kind)
        snapshot = self._snapshot() if timers_due and kind != "advance" else None
        try:
            if timers_due:
                self._fire_timers(at, events, closing=kind == "play")
            self._now = at
            if not self._over:
                if kind == "play":
                    assert seat is not None
                    self._play(seat, at, events)
                elif kind == "slap":
                    assert seat is not None
                    self._slap(seat, at, events)
                elif kind == "resign":
                    assert seat is not None
                    self._resign(seat, at, events)
                elif kind == "time_up":
                    self._time_up(at, events)
            elif kind not in _SEATLESS:  # the clock's action finds a game its timers ended
                raise GameOverError("the game is over")
        except IllegalActionError:
            if snapshot is not None:
                self._restore(snapshot)
            self._now = now_before
            raise
        self._actions.append((kind, seat, at))
        return events

    # ------------------------------------------------------------------ timers

    def _next_timer(self) -> int | None:
        """When the next timer is due. An open tie window resolves before anything else."""
        if self._tie is not None:
            return self._tie.closes_at
        due = self._last_chance
        award = self._award
        if award is not None:
            collect = award.collect_at
            if collect is None and not award.claim_opened:
                collect = award.exclusive_until
            if collect is not None and (due is None or collect < due):
                due = collect
        return due

    def _has_timer_due(self, at: int, kind: str) -> bool:
        next_due = self._next_timer()
        return (next_due is not None and next_due <= at) or (kind == "play" and self._tie is not None)

    def _fire_timers(self, at: int, events: list[Event], closing: bool) -> None:
        """Fire timers due by ``at``; a card played closes an open tie window early."""
        while not self._over:
            due = self._next_timer()
            if due is None or due > at:
                if closing and self._tie is not None:
                    self._now = at
                    self._close_tie(events)
                    continue
                return
            self._now = due
            if self._tie is not None:
                self._close_tie(events)
            elif self._last_chance == due:
                self._end(None, "nobody_wins", due, events)
            elif self._award is not None and self._award.collect_at == due:
                self._collect(self._award.winner, "challenge", due, events)
            elif self._award is not None:
                self._award.claim_opened = True
                events.append(ClaimOpened(at=due, seat=self._award.winner))

    def _close_tie(self, events: list[Event]) -> None:
        tie = self._tie
        assert tie is not None
        self._tie = None
        seats = tuple(dict.fromkeys(seat for _, seat, _ in tie.slaps))
        if len(seats) == 1:
            _at, seat, pattern = tie.slaps[0]
            self._win_slap(seat, pattern, self._now, events)
            return
        if self.rules.tie_policy == "void":
            self._void_top = self.cards_played
            events.append(SlapTie(at=self._now, seat=None, seats=seats, outcome="void", winner=None))
            return
        winner = self._rng.choice(seats)
        events.append(SlapTie(at=self._now, seat=winner, seats=seats, outcome="random",
                              winner=winner))
        pattern = next(p for _, s, p in tie.slaps if s == winner)
        self._win_slap(winner, pattern, self._now, events)

    # ------------------------------------------------------------------ playing cards

    def _play(self, seat: int, at: int, events: list[Event]) -> None:
        if self._turn != seat:
            if self.rules.out_of_turn == "burn" and self._hands[seat]:
                count = 2 if self.rules.double_burn else 1
                self._burn(seat, count, "out_of_turn", at, events)
                self._after_cards_left(at, events)
                return
            if self._turn is None:
                raise NotYourTurnError(
                    f"seat {seat} cannot play: the pile is waiting to be collected"
                )
            raise NotYourTurnError(f"seat {seat} cannot play: it is seat {self._turn}'s turn")
        hand = self._hands[seat]
        if not hand:
            raise NoCardsError(f"seat {seat} has no card to play")
        self._play_card(seat, hand, at, events)

    def _play_card(self, seat: int, hand: deque[Card], at: int, events: list[Event]) -> None:
        """``seat``, whose turn it is, plays the top card of ``hand`` (their hand, not empty)."""
        card = hand.popleft()
        del self._codes[seat][0]
        if not hand:
            self._outs_marked = False
        self._live.append(card)
        self._played_by.append(seat)
        self.cards_played += 1
        events.append(CardPlayed(at, seat, card))  # positional: the hottest event, keywords cost
        chances = self._chances[card.rank]
        challenge = self._challenge
        hands = self._hands
        # The next seat round the table, which usually holds cards: `_next_holder` otherwise.
        nxt = seat + 1
        if nxt == self._n:
            nxt = 0
        if chances > 0:
            target = nxt if hands[nxt] else self._next_holder(seat)
            if target is None:  # finishing out: nobody can answer, the face card wins
                self._challenge = Challenge(seat, seat, 0, card)
                self._lose_challenge(seat, at, events)
                return
            self._challenge = Challenge(seat, target, chances, card)
            self._turn = target
            started = ChallengeStarted if challenge is None else ChallengePassed
            events.append(started(at, seat, target, chances, card))
        elif challenge is not None:
            challenge.chances_left -= 1
            if challenge.chances_left == 0:
                self._lose_challenge(seat, at, events)
                return
        else:
            self._turn = nxt if hands[nxt] else self._next_holder(seat, include_self=True)
        if all(hands):
            return  # every hand holds cards: `_after_cards_left` would have nothing to do
        # Nor has it when the player still holds cards, every seat without cards is already
        # out, and the turn (and any challenge) is with a holder: another one than the player
        # unless a challenge is pending, so no ending can apply either.
        challenge, turn = self._challenge, self._turn
        if not (hand and self._outs_marked and turn is not None and hands[turn] and (
                hands[challenge.target] if challenge is not None else turn != seat)):
            self._after_cards_left(at, events, player=seat)

    def _lose_challenge(self, loser: int, at: int, events: list[Event]) -> None:
        challenge = self._challenge
        assert challenge is not None
        winner = challenge.challenger
        if (self.rules.failure_rule and challenge.card.is_joker and loser != winner
                and self.slap_pattern() is None and self._hands[loser]):
            self._burn(loser, 1, "failure", at, events)
        self._challenge = None
        self._turn = None
        if self.rules.collect == "auto" or all(
                not hand for seat, hand in enumerate(self._hands) if seat != winner):
            # A pile that gives its winner every card ends the game: nobody needs to claim it.
            grace = self.rules.grace_ms if self.rules.collect == "auto" else 0
            award = Award(winner, loser, collect_at=at + grace, exclusive_until=None)
        else:
            award = Award(winner, loser, collect_at=None,
                          exclusive_until=at + self.rules.claim_window_ms)
        self._award = award
        events.append(ChallengeLost(at, loser, winner, award.collect_at, award.exclusive_until))
        if award.collect_at is not None and award.collect_at <= at:
            self._collect(winner, "challenge", at, events)
        else:
            self._after_cards_left(at, events)

    def _next_holder(self, seat: int, include_self: bool = False) -> int | None:
        """The next seat clockwise after ``seat`` that holds cards (``seat`` itself last, if
        ``include_self``)."""
        for step in range(1, self._n + (1 if include_self else 0)):
            candidate = (seat + step) % self._n
            if self._hands[candidate]:
                return candidate
        return None

    def _after_cards_left(self, at: int, events: list[Event], player: int | None = None) -> None:
        """Settle whose turn it is, who is out, and whether the game ended, after any change
        in who holds cards. ``player`` is the seat whose card was just played, if that is
        what changed."""
        if self._over:
            return
        hands = self._hands
        if all(hands):  # everyone holds cards: nobody is out and no ending below applies
            self._outs_marked = True
            return
        challenge = self._challenge
        if challenge is not None and not hands[challenge.target]:
            if self.rules.challenge_out_of_cards == "next_player_pays":
                nxt = self._next_holder(challenge.target)
                if nxt is not None and nxt != challenge.challenger:
                    challenge.target = nxt
                    self._turn = nxt
                else:
                    self._lose_challenge(challenge.target, at, events)
                    return
            else:
                self._lose_challenge(challenge.target, at, events)
                return
        if self._turn is not None and not hands[self._turn] and self._award is None:
            self._turn = self._next_holder(self._turn)
        empty = [seat for seat, hand in enumerate(hands) if not hand]
        if self._ran_out.issuperset(empty):  # every seat with no cards is already out
            self._outs_marked = True
        else:
            self._mark_players_out(at, events)
            self._outs_marked = self._ran_out.issuperset(empty)
        if len(empty) < self._n - 1:
            return  # the endings below need at most one player holding cards
        holders = [seat for seat, hand in enumerate(hands) if hand]
        pending = self._challenge is not None or self._award is not None
        plays_turn = self.rules.last_holder_plays_turn and not self.rules.finishing_out
        if not holders and not pending:
            # The last cards ran out with the pile unfinished: nobody wins, unless the pile
            # shows a slap, which anyone still allowed to slap may take during a last chance.
            # When the last holder plays their turn, their own last card leaves the others
            # unable to play: the pile is theirs.
            if plays_turn and player is not None and self.slap_pattern() is None:
                self._collect(player, "last_holder", at, events)
            elif self._last_chance is None and self.slap_pattern() is not None and any(
                    self._may_slap_in(seat) for seat in range(self._n)):
                self._last_chance = at + max(self.rules.grace_ms, self.rules.tie_window_ms, 1)
            elif self._last_chance is None:
                self._end(None, "nobody_wins", at, events)
        elif (len(holders) == 1 and not pending and not self.rules.finishing_out
              and self.slap_pattern() is None and self._tie is None):
            # Without finishing out, the last player holding cards takes what is left and wins;
            # with last_holder_plays_turn, once they have played a card of their own, so that
            # whoever ran out is beaten when play comes back to them.
            if not (self._live or self._burned or self._penalty):
                self._end(holders[0], "all_cards", at, events)
            elif player == holders[0] or not plays_turn:
                self._collect(holders[0], "last_holder", at, events)

    def _mark_players_out(self, at: int, events: list[Event]) -> None:
        ran_out, outsiders, eliminated = self._ran_out, self._outsiders, self._eliminated
        for seat, hand in enumerate(self._hands):
            if hand or seat in ran_out or seat in outsiders or seat in eliminated:
                continue
            owed = (self._award is not None and self._award.winner == seat) or (
                self._challenge is not None and self._challenge.challenger == seat)
            if owed:
                continue
            self._ran_out.add(seat)
            self._misslap_run[seat] = 0
            may = self._may_slap_in(seat)
            if not may:
                self._eliminated.add(seat)
            events.append(PlayerOut(at=at, seat=seat, reason="no_cards", may_slap_in=may))

    # ------------------------------------------------------------------ slapping

    def _may_slap_in(self, seat: int) -> bool:
        if seat in self._eliminated or seat in self._barred:
            return False
        if seat in self._resigned and self.rules.resign_bars_slap_in:
            return False
        if seat in self._outsiders and seat not in self._ran_out:
            return self.rules.outsiders_slap_in
        return self.rules.out_of_cards == "slap_in"

    def _may_slap(self, seat: int) -> bool:
        """Whether `_check_may_slap` lets the seat's slap through (the game not over)."""
        award = self._award
        if award is not None and award.winner == seat:
            return True
        if seat in self._eliminated or seat in self._locked:
            return False
        challenger = self._challenge is not None and self._challenge.challenger == seat
        return bool(self._hands[seat]) or challenger or self._may_slap_in(seat)

    def _check_may_slap(self, seat: int) -> None:
        """Refuse the slap of a seat that may not slap (`_may_slap`), saying why."""
        if self._may_slap(seat):
            return
        if seat in self._eliminated:
            raise SlapNotAllowedError(f"seat {seat} is out of the game")
        if seat in self._locked:
            raise SlapNotAllowedError(f"seat {seat} is locked out until someone else wins a pile")
        why = "barred from slapping in" if seat in self._barred else "out and may not slap in"
        raise SlapNotAllowedError(f"seat {seat} is {why}")

    def _slap(self, seat: int, at: int, events: list[Event]) -> None:
        self._check_may_slap(seat)
        award = self._award
        if award is not None and award.winner == seat:  # the winner claims whatever else happened
            self._claim(seat, at, events)
            return
        last_win = self._last_win
        if last_win is not None and last_win[1] == self.cards_played and (
                at - last_win[0] < max(self.rules.tie_window_ms, self.rules.too_slow_ms)):
            # too slow, not wrong: the slower hand lands on the quicker one and pays nothing
            events.append(SlapIgnored(at=at, seat=seat, reason="late", margin_ms=at - last_win[0],
                                      beaten_by=last_win[2]))
            return
        if self._void_top == self.cards_played:
            events.append(SlapIgnored(at=at, seat=seat, reason="void"))
            return
        if self._tie is not None and any(s == seat for _, s, _ in self._tie.slaps):
            events.append(SlapIgnored(at=at, seat=seat, reason="repeat"))
            return
        pattern = self.slap_pattern()
        if award is not None and award.claim_opened and pattern is None:
            self._claim(seat, at, events)
            return
        if pattern is None:
            self._misslap(seat, at, events)
            return
        if self.rules.tie_policy == "earliest" or self.rules.tie_window_ms == 0:
            self._win_slap(seat, pattern, at, events)
            return
        if self._tie is None:
            self._tie = TieWindow(closes_at=at + self.rules.tie_window_ms)
        self._tie.slaps.append((at, seat, pattern))

    def _claim(self, seat: int, at: int, events: list[Event]) -> None:
        self._misslap_run[seat] = 0
        events.append(SlapWon(at=at, seat=seat, pattern="claim"))
        self._collect(seat, "claim", at, events)

    def _win_slap(self, seat: int, pattern: str, at: int, events: list[Event]) -> None:
        events.append(SlapWon(at, seat, pattern, tuple(self._live[-4:])))
        self._misslap_run[seat] = 0
        rules = self.rules
        triple = "triple" in rules.slaps and is_triple(self._live, self._pattern_options)
        if rules.triple_wins_game and triple:
            sixes = self._live[-1].rank == Rank.SIX
            self._collect(seat, "slap", at, events, check_end=False)
            if sixes and rules.triple_sixes_lose:
                self._end(None, "triple_sixes", at, events)
            else:
                self._end(seat, "triple", at, events)
            return
        joker_sandwich = (pattern == "sandwich" and len(self._live) >= 3
                          and self._live[-1].is_joker and self._live[-3].is_joker)
        self._collect(seat, "slap", at, events)
        if rules.joker_slap_tribute and joker_sandwich and not self._over:
            for other in range(self._n):
                if other != seat and self._hands[other]:
                    self._burn(other, 1, "tribute", at, events)
            self._after_cards_left(at, events)

    def _misslap(self, seat: int, at: int, events: list[Event]) -> None:
        rules = self.rules
        self._misslap_run[seat] += 1
        why = "the pile is empty" if not self._live else f"no pattern on {format_cards(self._live[-3:])}"
        had_cards = bool(self._hands[seat])
        paid: tuple[Card, ...] = ()
        pile_to: int | None = None
        penalty = rules.misslap_penalty if had_cards or rules.misslap_penalty == "lockout" else "none"
        if penalty == "burn":
            paid = self._take(seat, rules.misslap_cards)
            self._burned[:0] = paid
        elif penalty == "penalty_pile":
            paid = self._take(seat, rules.misslap_cards)
            self._penalty.extend(paid)
        elif penalty == "give_pile":
            pile_to = self._give_pile_receiver(seat)
        events.append(Misslap(at, seat, penalty, paid, pile_to, why, tuple(self._live[-3:])))
        if penalty == "lockout":
            self._locked.add(seat)
            events.append(LockedOut(at=at, seat=seat))
        if pile_to is not None:
            self._collect(pile_to, "misslap", at, events)
            if self._over:
                return
        if not had_cards and seat not in self._barred and rules.slap_in_bar_after and (
                self._misslap_run[seat] >= rules.slap_in_bar_after):
            self._barred.add(seat)
            events.append(PlayerBarred(at=at, seat=seat))
        if had_cards and rules.misslap_out_after and self._misslap_run[seat] > rules.misslap_out_after:
            self._eliminate(seat, "misslaps", at, events)
        self._after_cards_left(at, events)

    def _give_pile_receiver(self, slapper: int) -> int | None:
        """Under ``give_pile``: whoever played the top card, or if that was the slapper, the
        latest card played by someone else."""
        for player in reversed(self._played_by):
            if player != slapper and player not in self._eliminated:
                return player
        return None

    def _eliminate(self, seat: int, reason: str, at: int, events: list[Event]) -> None:
        if self._hands[seat]:
            self._burn(seat, len(self._hands[seat]), reason, at, events)
        self._eliminated.add(seat)
        self._ran_out.add(seat)
        events.append(PlayerOut(at=at, seat=seat, reason=reason, may_slap_in=False))

    def _resign(self, seat: int, at: int, events: list[Event]) -> None:
        if seat in self._eliminated or (not self._hands[seat] and seat in self._ran_out):
            raise SlapNotAllowedError(f"seat {seat} is not in the game")
        if not self._hands[seat]:
            raise NoCardsError(f"seat {seat} holds no cards to resign with")
        self._resigned.add(seat)
        told = len(events)
        self._burn(seat, len(self._hands[seat]), "resigned", at, events)
        self._ran_out.add(seat)
        may = self._may_slap_in(seat)
        if not may:
            self._eliminated.add(seat)
        # the player resigns, then their cards are burned: said in that order
        events.insert(told, PlayerOut(at=at, seat=seat, reason="resigned", may_slap_in=may))
        self._after_cards_left(at, events)

    # ------------------------------------------------------------------ moving cards

    def _take(self, seat: int, count: int) -> tuple[Card, ...]:
        hand = self._hands[seat]
        count = min(count, len(hand))
        del self._codes[seat][:count]
        if count and count == len(hand):
            self._outs_marked = False
        return tuple(hand.popleft() for _ in range(count))

    def _burn(self, seat: int, count: int, reason: str, at: int, events: list[Event]) -> None:
        cards = self._take(seat, count)
        if cards:
            self._burned[:0] = cards
            events.append(CardsBurned(at=at, seat=seat, cards=cards, reason=reason))

    def _collect(self, seat: int, reason: str, at: int, events: list[Event],
                 check_end: bool = True) -> None:
        """``seat`` takes the pile (burned cards first, as they lie at the bottom) and the
        penalty pile onto the bottom of their hand, then leads the next pile."""
        burned, live, penalty = self._burned, self._live, self._penalty
        hand = self._hands[seat]
        was_out = not hand
        codes, code_of = self._codes[seat], self._code_of
        if burned:
            hand.extend(burned)
            codes.extend(map(code_of, map(_RANK, burned)))
        hand.extend(live)
        codes.extend(map(code_of, map(_RANK, live)))
        if penalty:
            hand.extend(penalty)
            codes.extend(map(code_of, map(_RANK, penalty)))
        self._burned, self._live, self._played_by, self._penalty = [], [], [], []
        self._challenge = None
        self._award = None
        self._tie = None
        self._last_chance = None
        self._turn = seat
        self.tricks += 1
        if self._locked:  # only the winner stays locked out
            self._locked = {seat} if seat in self._locked else set()
        events.append(PileWon(at, seat, reason, len(burned) + len(live), len(penalty)))
        self._last_win = (at, self.cards_played, seat if reason in ("slap", "claim") else None)
        if was_out and (seat in self._ran_out or seat in self._outsiders):
            # Back in the game with cards: running out again makes them out again.
            self._outs_marked = False  # (no cards yet, if the pile was empty, and not out)
            self._ran_out.discard(seat)
            self._outsiders.discard(seat)
            self._misslap_run[seat] = 0
            if reason in ("slap", "claim"):
                events.append(SlappedIn(at=at, seat=seat))
        if not check_end:
            return
        if len(hand) == self._total_cards:
            self._end(seat, "all_cards", at, events)
            return
        key = self._state_key()
        if key in self._seen_states:
            self._end(None, "cycle", at, events)
            return
        self._seen_states.add(key)
        self._after_cards_left(at, events)

    def _state_key(self) -> tuple[Any, ...]:
        """The state at a pile boundary, with cards reduced to what the rules can tell apart
        (ranks; without slap patterns only the chances a card gives), so that a repeat means
        the game loops forever. The hands are their bytes from ``_codes`` (one code per card,
        kept in step with the hand; two hands have the same bytes exactly when they have the
        same kinds of card in the same order), joined by a byte no code can be (there are
        fewer than 255 kinds): one bytes object, which caches its hash, rather than a tuple
        of one per hand, which hashes them again at every look."""
        penalty, out, barred, locked = self._penalty, self._eliminated, self._barred, self._locked
        return (self._turn, _HAND_BREAK.join(self._codes),
                bytes(map(self._code_of, map(_RANK, penalty))) if penalty else b"",
                frozenset(out) if out else _NOBODY, frozenset(barred) if barred else _NOBODY,
                frozenset(locked) if locked else _NOBODY)

    def _end(self, winner: int | None, reason: str, at: int, events: list[Event]) -> None:
        self._over = True
        self._winner = winner
        self._end_reason = reason
        self._turn = None
        self._tie = None
        events.append(GameOver(at=at, seat=winner, reason=reason))

    # ------------------------------------------------------------------ helpers

    def _check_seat(self, seat: int | None) -> None:
        if type(seat) is not int or not 0 <= seat < self._n:  # not a bool, nor a float
            raise NoSuchSeatError(f"no seat {_brief(seat)} at this table of {self._n}")

    def copy(self) -> Game:
        """An independent copy to try actions on without changing this game (a check, a
        search): what an action changes is copied, as `_snapshot` does before every action;
        the cards (immutable) and what no action changes are shared. Many times cheaper than
        ``copy.deepcopy``, whose cost grows with the game's whole list of actions.

        >>> game = Game(Ruleset.preset("classic"), hands=["7H 2C", "7S 3D"], leader=0)
        >>> trial = game.copy()
        >>> _ = trial.play(0, at=100)
        >>> (trial.cards_played, trial.action_count, game.cards_played, game.action_count)
        (1, 1, 0, 0)
        """
        twin = Game.__new__(Game)
        twin.__dict__.update(self.__dict__)
        twin.__dict__.update(self._snapshot())
        twin._rng = random.Random()
        twin._rng.setstate(self._rng.getstate())
        twin._actions = list(self._actions)  # shared by snapshots, appended to by actions
        return twin

    def _snapshot(self) -> dict[str, Any]:
        """A copy of every mutable part of the state (cards themselves are immutable)."""
        snap: dict[str, Any] = {}
        for key, value in self.__dict__.items():
            if key in _SHARED_STATE:
                continue
            if isinstance(value, (list, set, deque)):
                snap[key] = (type(value)(copy.copy(v) for v in value) if key in ("_hands", "_codes")
                             else copy.copy(value))
            elif isinstance(value, (Challenge, Award)):
                snap[key] = copy.copy(value)
            elif isinstance(value, TieWindow):
                snap[key] = TieWindow(value.closes_at, list(value.slaps))
            elif isinstance(value, random.Random):
                snap[key] = value.getstate()
            else:
                snap[key] = value
        return snap

    def _restore(self, snapshot: dict[str, Any]) -> None:
        for key, value in snapshot.items():
            if key == "_rng":
                self._rng.setstate(value)
            else:
                self.__dict__[key] = value

    # ------------------------------------------------------------------ observation

    def observe(self, seat: int | None) -> Observation:
        """What ``seat`` (or a spectator, ``None``) can see: face-up cards, hand sizes, turn,
        challenge, windows and timers, and who may act (`may`, for every seat). No face-down
        card is ever included, not even the seat's own. The result is JSON-serialisable; its
        type, `ratscrew.observation.Observation`, names every key.
        """
        if seat is not None and (type(seat) is not int or not 0 <= seat < self._n):
            self._check_seat(seat)
        # Drivers, bots and the server ask for this after nearly every action, so it is built
        # with as few steps as it can be: a copy of a template holding every key in order (a
        # copy is cheaper than a dict display of twenty keys), then only the entries that are
        # not the template's; cards by their notation attribute; no call per seat for the
        # status of one holding cards.
        view = cast(Observation, _VIEW_TEMPLATE.copy())
        view["seat"] = seat
        view["now"] = self._now
        view["rules"] = self.rules.name
        view["players"] = self._n
        view["turn"] = None if self._over else self._turn
        live, burned = self._live, self._burned
        view["pile"] = list(map(_NOTATION, live)) if live else []
        view["pile_played_by"] = self._played_by.copy()
        view["burned"] = list(map(_NOTATION, burned)) if burned else []
        view["penalty_pile"] = len(self._penalty)
        view["hand_sizes"] = list(map(len, self._hands))
        view["status"] = self.statuses()
        if (challenge := self._challenge) is not None:
            view["challenge"] = {
                "challenger": challenge.challenger, "target": challenge.target,
                "chances_left": challenge.chances_left, "card": challenge.card._notation}
        if (award := self._award) is not None:
            view["collection"] = {
                "winner": award.winner, "collect_at": award.collect_at,
                "exclusive_until": award.exclusive_until, "open_to_all": award.claim_opened}
        if (tie := self._tie) is not None:
            view["tie_window_until"] = tie.closes_at
        view["cards_played"] = self.cards_played
        view["tricks"] = self.tricks
        if self._over:
            view["over"] = True
            view["winner"] = self._winner
            view["end_reason"] = self._end_reason
        view["may"] = self._may_view()
        return view

    # ------------------------------------------------------------------ records

    @property
    def action_count(self) -> int:
        """How many actions the engine has accepted (``advance`` calls included)."""
        return len(self._actions)

    def actions_since(self, start: int) -> list[tuple[str, int | None, int]]:
        """The accepted actions from number ``start`` on, as ``(kind, seat, at)``: what a
        server appends to its log after each step, without copying the whole history.

        >>> game = Game(Ruleset.preset("classic"), hands=["7H 2C", "7S 3D"], leader=0)
        >>> _ = game.play(0, at=0); _ = game.play(1, at=450)
        >>> game.actions_since(1)
        [('play', 1, 450)]
        """
        return list(self._actions[start:])

    def to_record(self) -> dict[str, Any]:
        """A JSON-able record of the game: ruleset, deal, seed and every accepted action.
        :meth:`from_record` replays it to the identical state."""
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "rules": self.rules.to_dict(),
            "hands": [format_cards(h) for h in self.initial_hands],
            "leader": self.leader,
            "seed": self.seed,
            "actions": [[kind, seat, at] for kind, seat, at in self._actions],
            "result": {"over": self._over, "winner": self._winner, "reason": self._end_reason,
                       "cards_played": self.cards_played, "tricks": self.tricks},
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Game:
        """Replay a record from :meth:`to_record`. Any record that is not one, or does not
        replay, is a `ValueError` saying what is wrong (naming the action that failed), since a
        record may come from anywhere.

        >>> Game.from_record({"format": "ratscrew-record", "version": 1, "rules": {},
        ...                   "hands": ["7H", "2C"], "leader": 0, "actions": [["play", "0", 5]]})
        Traceback (most recent call last):
        ...
        ValueError: action 0 (play by '0' at 5) failed: no seat '0' at this table of 2
        """
        if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
            raise ValueError("not a ratscrew game record")
        version = record.get("version")
        if type(version) is not int or version != RECORD_VERSION:
            raise ValueError(f"record version {_brief(version)} is not the version {RECORD_VERSION} "
                             "this program reads")
        missing = [key for key in ("rules", "hands", "leader", "actions") if key not in record]
        if missing:
            raise ValueError(f"the record has no {missing[0]!r}")
        if not isinstance(record["rules"], dict):
            raise ValueError(f"the record's rules must be a table of settings, got "
                             f"{_brief(record['rules'])}")
        if not isinstance(record["actions"], list):
            raise ValueError(f"the record's actions must be a list, got {_brief(record['actions'])}")
        rules = Ruleset.from_dict(record["rules"])
        game = cls(rules, record["hands"], leader=record["leader"], seed=record.get("seed", 0))
        for number, action in enumerate(record["actions"]):
            game.replay_action(number, action)
        return game

    def replay_action(self, number: int, action: object) -> list[Event]:
        """Take action ``number`` of a record, ``[kind, seat, at]``, as :meth:`from_record`
        does, and return its events. An action that is not of that shape, or that the engine
        refuses, is a `ValueError` naming it.

        >>> game = Game(Ruleset.preset("classic"), hands=["KC 9C", "2D 3D"], leader=0)
        >>> [e.kind for e in game.replay_action(0, ["play", 0, 0])]
        ['card_played', 'challenge_started']
        >>> game.replay_action(1, ["advance", 1, 500])
        Traceback (most recent call last):
        ...
        ValueError: action 1: advance takes no seat, got 1
        """
        kind, seat, at = _record_action(number, action)
        try:
            return self._act(kind, seat, at)
        except IllegalActionError as error:
            raise ValueError(f"action {number} ({kind} by {_brief(seat)} at {_brief(at)}) "
                             f"failed: {error}") from None


def _record_action(number: int, action: object) -> tuple[str, Any, Any]:
    """Action ``number`` of a record as ``(kind, seat, at)``, or a `ValueError` if it does not
    have that shape. (The seat and the time are the engine's to check when it acts.)"""
    if not isinstance(action, (list, tuple)) or len(action) != 3:
        raise ValueError(f"action {number}: expected [kind, seat, at], got {_brief(action)}")
    kind, seat, at = action
    if not isinstance(kind, str) or kind not in ACTION_KINDS:
        raise ValueError(f"action {number}: unknown kind {_brief(kind)}; choose one of "
                         f"{', '.join(ACTION_KINDS)}")
    if kind in _SEATLESS and seat is not None:
        raise ValueError(f"action {number}: {kind} takes no seat, got {_brief(seat)}")
    return kind, seat, at


def choose_leader(rules: Ruleset, hands: Sequence[Sequence[Card]]) -> int:
    """Who plays first: seat 0 (left of the dealer), or the highest bottom card, looking further
    up the hands while tied (aces high, jokers above aces); a tie to the end goes to the
    lowest seat.

    >>> from ratscrew.cards import parse_cards as cards
    >>> choose_leader(Ruleset.preset("northwest"), [cards("2C 9H"), cards("3D 9S"), cards("KC 4C")])
    1
    """
    holders = [seat for seat, hand in enumerate(hands) if hand]
    if rules.first_player == "left_of_dealer":
        return holders[0]
    tied = holders
    depth = 1
    while len(tied) > 1:
        ranks = {seat: hands[seat][-depth].rank for seat in tied if len(hands[seat]) >= depth}
        if not ranks:
            break
        best = max(ranks.values())
        tied = [seat for seat in tied if ranks.get(seat) == best]
        depth += 1
    return tied[0]


def _brief(value: object) -> str:
    """``repr(value)`` cut to a readable length, for error messages about values that may come
    from the network (Python refuses to write out ints of more than 4,300 digits at all)."""
    try:
        text = repr(value)
    except ValueError:
        return f"an {type(value).__name__} too long to write"
    return text if len(text) <= 60 else text[:57] + "..."


def _check_rules(rules: object) -> None:
    if not isinstance(rules, Ruleset):
        raise ValueError(f"rules must be a Ruleset, got {_brief(rules)}")


def _check_seat_count(rules: Ruleset, seats: int) -> None:
    if seats < 2:
        raise ValueError("a game needs at least two seats")
    if seats > rules.max_players:
        raise ValueError(f"{seats} seats is more than the {rules.max_players} these rules allow")


def _check_seed(seed: object) -> None:
    if type(seed) is not int:  # not a bool, a float or None (which would seed from the clock)
        raise ValueError(f"the seed must be an int, got {_brief(seed)}")


def _read_hand(seat: int, hand: object) -> list[Card]:
    """One dealt hand, top card first: notation, or a list of cards or card notations."""
    if isinstance(hand, str):
        return parse_cards(hand)
    if not isinstance(hand, Sequence):
        raise ValueError(f"hand {seat} must be card notation or a list of cards, got {_brief(hand)}")
    cards: list[Card] = []
    for card in hand:
        if isinstance(card, Card):
            cards.append(card)
        elif isinstance(card, str):
            cards.append(Card.parse(card))
        else:
            raise ValueError(f"hand {seat}: {_brief(card)} is not a card")
    return cards


def _check_no_duplicates(hands: Sequence[Sequence[Card]]) -> None:
    counts = Counter(card for hand in hands for card in hand)
    for card, count in counts.items():
        if count > (2 if card.is_joker else 1):
            raise ValueError(f"card {card} is dealt {count} times")
