"""A compiled (numba) Beggar-my-neighbour kernel: whole deals in microseconds, cycles exactly.

It plays two-hand deals under the same conventions as :func:`ratscrew.bmn.play_bmn` on the
real engine (hand 1 leads; cards are counted until one hand holds all 52; every pile won is a
trick, including the pile taken when the loser cannot pay; a hand that runs out on a number card
is beaten when play comes back to it, after the other hand has played one more card), so both
always agree on cards, tricks, winner and cycles. The differential tests in
``tests/test_bmn_kernel.py`` hold it to that.

Cards are reduced to what the game can tell apart: ``0`` for a number card and ``1``-``4`` for
J, Q, K, A (the chances each gives). Hands are ring buffers of 64 preallocated per call.

Cycle detection is exact. The state at every trick boundary (after a pile is won: both hands'
card sequences and whose turn it is, as in the engine's state key) is a function of the state
at the previous boundary, so Brent's algorithm finds the cycle length ``lam`` by comparing each
boundary with one saved state (a cheap size check first, the full sequences only when sizes
agree). A second pass from the deal then finds the first boundary that repeats an earlier one,
which is where the engine stops: ``cards`` and ``tricks`` of a cycling deal are counted to that
first repeat, and ``cycle_tricks`` / ``cycle_cards`` give the length of the loop.

>>> result = play_deal("---K---Q-KQAJ-----AAJ--J--", "----------Q----KQ-J-----KA")
>>> result.cycle, result.cards, result.tricks, result.cycle_tricks, result.cycle_cards
(True, 474, 66, 62, 440)
>>> play_deal("------------KAQ----J------", "-JQQK---K----JK--QA-A-JA--").cards
4791
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit

from ratscrew.bmn import BmnDealError, parse_deal
from ratscrew.cards import Rank
from ratscrew.sim.numba_cache import CACHE

FACE_SYMBOLS = "-JQKA"
"""Record notation of each card kind: ``-`` number card, then J, Q, K, A (1-4 chances)."""

BASE_DECK = np.array([0] * 36 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4, dtype=np.uint8)
"""The 52 cards as kinds, in a fixed order (shuffled per deal by the search)."""

_RING = 64  # ring buffer size per hand: a power of two above 52
_MASK = _RING - 1

# Outcome codes of the compiled functions.
_ENDED = 1
_GOING_ON = 0

KindArray = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class DealResult:
    """One deal played by the kernel.

    ``winner`` is 1 or 2 (``None`` for a cycle). For a cycle, ``cards`` and ``tricks`` count up
    to the first repeated state, and ``cycle_tricks``/``cycle_cards`` measure the loop itself
    (both 0 when the deal ends).
    """

    cards: int
    tricks: int
    winner: int | None
    cycle: bool
    cycle_tricks: int = 0
    cycle_cards: int = 0


# ----------------------------------------------------------------------------- compiled core


@njit(cache=CACHE, inline="always")
def _collect(hands: KindArray, head: npt.NDArray[np.int64], size: npt.NDArray[np.int64],
             pile: KindArray, pile_size: int, seat: int) -> None:
    """``seat`` puts the pile (bottom card first) under their hand."""
    tail = head[seat] + size[seat]
    for i in range(pile_size):
        hands[seat, (tail + i) & _MASK] = pile[i]
    size[seat] += pile_size


@njit(cache=CACHE)
def _play_trick(hands: KindArray, head: npt.NDArray[np.int64], size: npt.NDArray[np.int64],
                pile: KindArray, state: npt.NDArray[np.int64]) -> int:
    """Play from a trick boundary until a pile is won. ``state[0]`` is whose turn it is and
    becomes the pile's winner; ``state[1]`` gets the cards played in the trick. Returns
    ``_ENDED`` when that pile gave the winner every card (or the loser could not pay),
    ``_GOING_ON`` otherwise."""
    turn = state[0]
    pile_size = 0
    owed = 0
    challenger = -1
    cards = 0
    while True:
        other = 1 - turn
        card = hands[turn, head[turn]]
        head[turn] = (head[turn] + 1) & _MASK
        size[turn] -= 1
        pile[pile_size] = card
        pile_size += 1
        cards += 1
        if card != 0:
            if size[other] == 0:
                # The other hand is the challenger and holds nothing: nobody can answer.
                _collect(hands, head, size, pile, pile_size, turn)
                state[0] = turn
                state[1] = cards
                return _ENDED
            owed = card
            challenger = turn
            turn = other
        elif owed != 0:
            owed -= 1
            if owed == 0 or size[turn] == 0:
                _collect(hands, head, size, pile, pile_size, challenger)
                state[0] = challenger
                state[1] = cards
                return _ENDED if size[1 - challenger] == 0 else _GOING_ON
        else:
            if size[other] == 0:
                # The other hand ran out on its last card and now cannot play: this hand, having
                # played its turn, takes the pile.
                _collect(hands, head, size, pile, pile_size, turn)
                state[0] = turn
                state[1] = cards
                return _ENDED
            turn = other


@njit(cache=CACHE, inline="always")
def _states_equal(hands_a: KindArray, head_a: npt.NDArray[np.int64],
                  size_a: npt.NDArray[np.int64], turn_a: int, hands_b: KindArray,
                  head_b: npt.NDArray[np.int64], size_b: npt.NDArray[np.int64],
                  turn_b: int) -> bool:
    if turn_a != turn_b or size_a[0] != size_b[0]:
        return False
    for seat in range(2):
        for i in range(size_a[seat]):
            if hands_a[seat, (head_a[seat] + i) & _MASK] != hands_b[seat, (head_b[seat] + i) & _MASK]:
                return False
    return True


@njit(cache=CACHE, inline="always")
def _deal_into(deck: KindArray, hands: KindArray, head: npt.NDArray[np.int64],
               size: npt.NDArray[np.int64]) -> None:
    for i in range(26):
        hands[0, i] = deck[i]
        hands[1, i] = deck[26 + i]
    head[0] = 0
    head[1] = 0
    size[0] = 26
    size[1] = 26


@njit(cache=CACHE)
def _first_repeat(deck: KindArray, lam: int, out: npt.NDArray[np.int64]) -> None:
    """Given a cycle of ``lam`` tricks, replay the deal with a second copy ``lam`` tricks ahead
    until both meet: the leading copy then stands at the first repeated state."""
    hands_t = np.empty((2, _RING), dtype=np.uint8)
    hands_h = np.empty((2, _RING), dtype=np.uint8)
    head_t = np.zeros(2, dtype=np.int64)
    head_h = np.zeros(2, dtype=np.int64)
    size_t = np.zeros(2, dtype=np.int64)
    size_h = np.zeros(2, dtype=np.int64)
    pile = np.empty(52, dtype=np.uint8)
    state_t = np.zeros(2, dtype=np.int64)
    state_h = np.zeros(2, dtype=np.int64)
    _deal_into(deck, hands_t, head_t, size_t)
    _deal_into(deck, hands_h, head_h, size_h)
    cards_t = 0
    cards_h = 0
    for _ in range(lam):
        _play_trick(hands_h, head_h, size_h, pile, state_h)
        cards_h += state_h[1]
    tricks_h = lam
    while not _states_equal(hands_t, head_t, size_t, state_t[0],
                            hands_h, head_h, size_h, state_h[0]):
        _play_trick(hands_t, head_t, size_t, pile, state_t)
        cards_t += state_t[1]
        _play_trick(hands_h, head_h, size_h, pile, state_h)
        cards_h += state_h[1]
        tricks_h += 1
    out[0] = cards_h
    out[1] = tricks_h
    out[2] = 0
    out[3] = lam
    out[4] = cards_h - cards_t


@njit(cache=CACHE)
def _play_deal(deck: KindArray, ring: KindArray, pile: KindArray, saved: KindArray,
               out: npt.NDArray[np.int64]) -> None:
    """Play one deal (52 kinds, hand 1 then hand 2, top card first). Writes ``out`` =
    (cards, tricks, winner 1/2 or 0 for a cycle, cycle tricks, cycle cards).

    The hot loop keeps the hand whose turn it is ("cur") and the other hand ("oth") in
    scalars and swaps them when the turn passes; ``ring`` holds hand 1 in ``[0, 64)`` and
    hand 2 in ``[64, 128)``.
    """
    cur_ring = ring[:_RING]
    oth_ring = ring[_RING:]
    for i in range(26):
        cur_ring[i] = deck[i]
        oth_ring[i] = deck[26 + i]
    turn = 0
    cur_head, cur_size = 0, 26
    oth_head, oth_size = 0, 26
    # Brent: the saved boundary state (turn, size of the hand to play, both sequences).
    saved_turn, saved_size = 0, 26
    for i in range(52):
        saved[i] = deck[i]
    power = 1
    lam = 0
    cards = 0
    tricks = 0
    pile_size = 0
    owed = 0
    while True:
        card = cur_ring[cur_head]
        cur_head = (cur_head + 1) & _MASK
        cur_size -= 1
        pile[pile_size] = card
        pile_size += 1
        cards += 1
        if card != 0:
            if oth_size == 0:
                # The other hand is the challenger and holds nothing: nobody can answer.
                out[0] = cards
                out[1] = tricks + 1
                out[2] = turn + 1
                out[3] = 0
                out[4] = 0
                return
            owed = card
        elif owed != 0:
            owed -= 1
            if owed != 0 and cur_size != 0:
                continue
            # The challenger (the other hand) wins the pile.
            tail = oth_head + oth_size
            for i in range(pile_size):
                oth_ring[(tail + i) & _MASK] = pile[i]
            oth_size += pile_size
            pile_size = 0
            owed = 0
            tricks += 1
            if cur_size == 0:
                out[0] = cards
                out[1] = tricks
                out[2] = 2 - turn
                out[3] = 0
                out[4] = 0
                return
            # A trick boundary: the challenger leads. Compare with the saved state.
            turn = 1 - turn
            cur_ring, oth_ring = oth_ring, cur_ring
            cur_head, oth_head = oth_head, cur_head
            cur_size, oth_size = oth_size, cur_size
            lam += 1
            if turn == saved_turn and cur_size == saved_size:
                same = True
                for i in range(cur_size):
                    if saved[i] != cur_ring[(cur_head + i) & _MASK]:
                        same = False
                        break
                if same:
                    for i in range(oth_size):
                        if saved[cur_size + i] != oth_ring[(oth_head + i) & _MASK]:
                            same = False
                            break
                if same:
                    _first_repeat(deck, lam, out)
                    return
            if lam == power:
                saved_turn, saved_size = turn, cur_size
                for i in range(cur_size):
                    saved[i] = cur_ring[(cur_head + i) & _MASK]
                for i in range(oth_size):
                    saved[cur_size + i] = oth_ring[(oth_head + i) & _MASK]
                power *= 2
                lam = 0
            continue
        elif oth_size == 0:
            # The other hand ran out on its last card and now cannot play: this hand, having
            # played its turn, takes the pile.
            out[0] = cards
            out[1] = tricks + 1
            out[2] = turn + 1
            out[3] = 0
            out[4] = 0
            return
        turn = 1 - turn
        cur_ring, oth_ring = oth_ring, cur_ring
        cur_head, oth_head = oth_head, cur_head
        cur_size, oth_size = oth_size, cur_size


@njit(cache=CACHE, inline="always")
def _splitmix64(x: np.uint64) -> np.uint64:
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=CACHE, inline="always")
def _shuffle_deal(seed_key: np.uint64, index: np.int64, deck: KindArray) -> None:
    """Deal ``index`` of a search: the base deck shuffled by a stream that depends only on
    the search seed and the index (so any split across workers deals the same cards)."""
    for i in range(52):
        deck[i] = BASE_DECK[i]
    state = _splitmix64(seed_key ^ _splitmix64(np.uint64(index)))
    for i in range(51, 0, -1):
        state = state + np.uint64(0x9E3779B97F4A7C15)
        z = _splitmix64(state)
        j = np.int64(((z >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
        swap = deck[i]
        deck[i] = deck[j]
        deck[j] = swap


@njit(cache=CACHE)
def _play_range(seed_key: np.uint64, start: np.int64, count: np.int64,
                results: npt.NDArray[np.int64]) -> None:
    """Deal and play ``count`` deals from index ``start``; ``results[i]`` gets the ``out`` row
    of deal ``start + i``."""
    deck = np.empty(52, dtype=np.uint8)
    ring = np.empty(2 * _RING, dtype=np.uint8)
    pile = np.empty(52, dtype=np.uint8)
    saved = np.empty(52, dtype=np.uint8)
    for k in range(count):
        _shuffle_deal(seed_key, start + k, deck)
        _play_deal(deck, ring, pile, saved, results[k])


@njit(cache=CACHE)
def _deals_range(seed_key: np.uint64, start: np.int64, count: np.int64,
                 decks: KindArray) -> None:
    deck = np.empty(52, dtype=np.uint8)
    for k in range(count):
        _shuffle_deal(seed_key, start + k, deck)
        decks[k, :] = deck


# ----------------------------------------------------------------------------- Python API


def deck_from_strings(hand1: str, hand2: str) -> KindArray:
    """The 52 card kinds of a deal in record notation, validated like :func:`ratscrew.bmn.play_bmn`.

    >>> deck_from_strings("-" * 25 + "J", "-" * 11 + "JJJQQQQKKKKAAAA").tolist()[24:27]
    [0, 1, 0]
    """
    hands = parse_deal(hand1, hand2)
    kinds = [int(card.rank) - int(Rank.TEN) if card.rank > Rank.TEN else 0
             for hand in hands for card in hand]
    return np.array(kinds, dtype=np.uint8)


def deal_strings(deck: KindArray) -> tuple[str, str]:
    """Record notation of a deal given as 52 kinds (hand 1 first).

    >>> deal_strings(BASE_DECK)
    ('--------------------------', '----------JJJJQQQQKKKKAAAA')
    """
    if len(deck) != 52:
        raise BmnDealError(f"a deal has 52 cards, got {len(deck)}")
    text = "".join(FACE_SYMBOLS[int(kind)] for kind in deck)
    return text[:26], text[26:]


def play_deck(deck: KindArray) -> DealResult:
    """Play a deal given as 52 kinds (hand 1's 26 cards top first, then hand 2's)."""
    if deck.shape != (52,):
        raise BmnDealError(f"a deal has 52 cards, got {deck.shape}")
    out = np.zeros(5, dtype=np.int64)
    _play_deal(np.ascontiguousarray(deck, dtype=np.uint8), np.empty(2 * _RING, dtype=np.uint8),
               np.empty(52, dtype=np.uint8), np.empty(52, dtype=np.uint8), out)
    return _result(out)


def play_deal(hand1: str, hand2: str) -> DealResult:
    """Play a deal in record notation with the compiled kernel.

    >>> play_deal("---AJ--Q---------QAKQJJ-QK", "-----A----KJ-K--------A---")
    DealResult(cards=8344, tricks=1164, winner=2, cycle=False, cycle_tricks=0, cycle_cards=0)
    """
    return play_deck(deck_from_strings(hand1, hand2))


def _result(row: npt.NDArray[np.int64]) -> DealResult:
    winner = int(row[2])
    return DealResult(cards=int(row[0]), tricks=int(row[1]), winner=winner or None,
                      cycle=winner == 0, cycle_tricks=int(row[3]), cycle_cards=int(row[4]))


def seed_key(seed: int) -> np.uint64:
    """The 64-bit key a search seed becomes (any integer is accepted)."""
    return np.uint64(seed % (1 << 64))


def play_random_deals(seed: int, start: int, count: int) -> npt.NDArray[np.int64]:
    """Play deals ``start`` .. ``start + count - 1`` of the search seeded ``seed``.

    Returns an array of shape ``(count, 5)``: cards, tricks, winner (1, 2, or 0 for a cycle),
    cycle tricks, cycle cards. Deal ``i`` is the same whatever range it is played in.

    >>> rows = play_random_deals(seed=1, start=0, count=3)
    >>> (rows[1] == play_random_deals(seed=1, start=1, count=1)[0]).all()
    np.True_
    """
    if count < 0 or start < 0:
        raise ValueError("start and count must not be negative")
    results = np.zeros((count, 5), dtype=np.int64)
    _play_range(seed_key(seed), np.int64(start), np.int64(count), results)
    return results


def random_deals(seed: int, start: int, count: int) -> KindArray:
    """The decks (kinds, shape ``(count, 52)``) of deals ``start`` .. of the search ``seed``."""
    decks = np.zeros((count, 52), dtype=np.uint8)
    _deals_range(seed_key(seed), np.int64(start), np.int64(count), decks)
    return decks


def result_of_row(row: npt.NDArray[np.int64]) -> DealResult:
    """A `DealResult` from one row of :func:`play_random_deals`."""
    return _result(row)
