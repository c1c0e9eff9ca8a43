# mypy: disable-error-code="no-any-return, return-value"
# (numba code: array items are Any to mypy, and comparisons of NumPy scalars give NumPy bools)
"""Everything the simulation kernel compiles, in one module: random numbers, rules, bots.

Why one file of some 2,400 lines rather than one per role. Numba caches each compiled function
on disk, keyed by the source file that defines it, and checks only that file's time stamp: a
function compiled from ``kernel_rules.py`` that calls (and, as here, inlines) one from
``kernel_random.py`` keeps its stale cached code when only ``kernel_random.py`` changes, and the
kernel silently goes on playing the old rules (numba issue 1833; numba's documentation of
``cache=True`` warns of it). With everything in one file, editing any part recompiles all of
it. The file is split by role instead into three numbered parts, in calling order: **1. random
numbers**, **2. the rules**, **3. bots and the clock** (the driver); each compiled rule names
the engine method it mirrors. The Python API is :mod:`ratscrew.sim.kernel`.

**1. Random numbers.** CPython's ``random.Random`` in compiled code: the kernel must deal
exactly as ``random.Random(seed).shuffle`` does and draw exactly the bot numbers that
``random.Random(bot_seed)`` gives (``random()``, ``gauss()`` with its cached second value,
``expovariate()``), so this is a line-by-line port of CPython's ``_random`` module (MT19937
with ``init_by_array`` seeding) and of the ``random.py`` methods the bots use. Several
generators live side by side as rows of one state array.

>>> import random
>>> words, index, cached = new_generators(1)
>>> key = seed_words(2024)
>>> seed_by_array(words, index, 0, key, len(key))
>>> python = random.Random(2024)
>>> [next_random(words, index, 0) for _ in range(3)] == [python.random() for _ in range(3)]
True
>>> next_gauss(words, index, cached, 0, 400.0, 50.0) == python.gauss(400.0, 50.0)
True

**2. The rules.** A port of :class:`ratscrew.engine.Game` that mirrors the engine method by
method (``_play``, ``_lose_challenge``, ``_after_cards_left``, ``_mark_players_out``,
``_slap``, ``_win_slap``, ``_misslap``, ``_collect``, ``_state_key``, the timers) for the rule
settings :func:`ratscrew.sim.kernel.kernel_supports` accepts. It is not a second source of
truth: the engine decides the rules, and ``tests/test_kernel_differential.py`` holds this port
to it game by game. When the engine changes, this part must follow. Representation:

- cards are ranks ``2``-``14`` and ``15`` for a joker (suits never matter to the rules);
- each hand is an append-only log (``hand_log[seat, head:tail]``, top card at ``head``): a hand
  only ever loses its top card and gains cards at the bottom, so every earlier pile boundary
  is still readable in the log and cycle detection compares states exactly without copying;
- each hand keeps a polynomial hash of its card kinds, updated per card, so the state at a
  pile boundary is hashed in O(players) and compared card by card only when hashes agree;
- ``game`` holds the scalar state (indices ``G_*``; ``E_*`` say what the current action's
  events were), ``seats`` the per-seat flags (``S_*``), ``conf`` the settings (``R_*``) and
  rule tables (``C_*``);
- the engine's calls from ``_after_cards_left`` into ``_lose_challenge`` and ``_collect``
  (which end in ``_after_cards_left`` again) run as rounds of one loop in :func:`settle`;
- an open tie window (``Game._tie``) is ``G_TIE*`` in ``game``: slaps into it make no event,
  its timer closes it (:func:`close_tie`), and a card played closes it early; should that
  play then be refused, :func:`_save` and :func:`_restore` undo the closing, as the engine's
  snapshot does (the only action a bot takes that can be refused after changing something);
- every action logs its hand moves (cards off the top of a hand, piles onto its bottom) in
  event order, for the counting bots.

**3. Bots and the clock.** The plans of each seat and the virtual-clock loop of
:func:`ratscrew.sim.reference.run_reference_game`, step for step. A counting bot's
:class:`~ratscrew.bots.agent.CardMemory` lies along the hand logs (``known[bot, seat,
position]``: when it learned that card), followed move by move in :func:`_follow_moves`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import njit

from ratscrew.patterns import PATTERN_FACTS
from ratscrew.sim.numba_cache import CACHE

_F = TypeVar("_F", bound=Callable[..., Any])
Int = int | np.integer[Any]
"""An integer argument: a Python int, or a NumPy one (passing ``np.int64(1)`` rather than ``1``
keeps numba from compiling a separate copy of the callee for the constant)."""


def compiled(*, inline: bool = False, allocates: bool = False) -> Callable[[_F], _F]:
    """Compile with numba, cached on disk (where: `ratscrew.sim.numba_cache`). Only functions
    that ``allocate`` arrays get numba's reference counting (passing arrays to a function that
    counts references costs two atomic operations per array per call, which dominated the run
    time); ``inline`` functions are merged into their callers before compiling."""
    options: dict[str, Any] = {"cache": CACHE, "_nrt": allocates}
    if inline:
        options["inline"] = "always"
    return cast(Callable[[_F], _F], njit(**options))


# ============================================================================ 1. random numbers

_N = 624
_M = 397
_MATRIX_A = np.uint64(0x9908B0DF)
_UPPER = np.uint64(0x80000000)
_LOWER = np.uint64(0x7FFFFFFF)
_M32 = np.uint64(0xFFFFFFFF)
TWOPI = 2.0 * math.pi


def _init_genrand(seed: int) -> npt.NDArray[np.uint32]:
    state = [0] * _N
    state[0] = seed
    for i in range(1, _N):
        state[i] = (1812433253 * (state[i - 1] ^ (state[i - 1] >> 30)) + i) & 0xFFFFFFFF
    return np.array(state, dtype=np.uint32)


_INIT_19650218 = _init_genrand(19650218)
"""Every ``init_by_array`` starts from this state."""

# Layout of one generator's row in the float/int side arrays.
_INDEX = 0  # next word of the state to temper (624: twist first)
_HAS_GAUSS = 1  # 1 when a cached second normal value is waiting


def new_generators(
    rows: Int,
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """State arrays for ``rows`` generators (unseeded): the 624-word MT states, the
    (``index``, has-cached-normal) pairs, and the cached normals of ``gauss``."""
    return (
        np.zeros((rows, _N), dtype=np.uint32),
        np.zeros((rows, 2), dtype=np.int64),
        np.zeros(rows, dtype=np.float64),
    )


def seed_words(seed: int) -> npt.NDArray[np.uint64]:
    """The 32-bit key words CPython seeds with for an integer seed (its absolute value, least
    significant word first, at least one word).

    >>> seed_words(0).tolist(), seed_words(2**32 + 5).tolist()
    ([0], [5, 1])
    """
    n = abs(seed)
    words = []
    while True:
        words.append(n & 0xFFFFFFFF)
        n >>= 32
        if n == 0:
            break
    return np.array(words, dtype=np.uint64)


@compiled()
def seed_by_array(
    words: npt.NDArray[np.uint32],
    index: npt.NDArray[np.int64],
    row: Int,
    key: npt.NDArray[np.uint64],
    key_length: Int,
) -> None:
    """CPython's ``init_by_array``: seed generator ``row`` with ``key[:key_length]``."""
    state = words[row]
    for i in range(_N):
        state[i] = _INIT_19650218[i]
    i = 1
    j = 0
    k = _N if key_length < _N else key_length
    for _ in range(k):
        prev = np.uint64(state[i - 1])
        mixed = (prev ^ (prev >> np.uint64(30))) * np.uint64(1664525)
        value = (np.uint64(state[i]) ^ (mixed & _M32)) + key[j] + np.uint64(j)
        state[i] = np.uint32(value & _M32)
        i += 1
        j += 1
        if i >= _N:
            state[0] = state[_N - 1]
            i = 1
        if j >= key_length:
            j = 0
    for _ in range(_N - 1):
        prev = np.uint64(state[i - 1])
        mixed = (prev ^ (prev >> np.uint64(30))) * np.uint64(1566083941)
        value = (np.uint64(state[i]) ^ (mixed & _M32)) - np.uint64(i)
        state[i] = np.uint32(value & _M32)
        i += 1
        if i >= _N:
            state[0] = state[_N - 1]
            i = 1
    state[0] = np.uint32(0x80000000)
    index[row, _INDEX] = _N
    index[row, _HAS_GAUSS] = 0


@compiled(inline=True)
def seed_uint64(
    words: npt.NDArray[np.uint32],
    index: npt.NDArray[np.int64],
    row: Int,
    low: np.uint64,
    high: np.uint64,
    key: npt.NDArray[np.uint64],
) -> None:
    """Seed generator ``row`` with the integer ``high * 2**64 + low`` (``key`` is scratch of
    at least four words), as ``random.Random(that integer)`` does."""
    key[0] = low & _M32
    key[1] = low >> np.uint64(32)
    key[2] = high & _M32
    key[3] = high >> np.uint64(32)
    length = 4
    while length > 1 and key[length - 1] == 0:
        length -= 1
    seed_by_array(words, index, row, key, length)


@compiled()
def _twist(state: npt.NDArray[np.uint32]) -> None:
    for kk in range(_N - _M):
        y = (np.uint64(state[kk]) & _UPPER) | (np.uint64(state[kk + 1]) & _LOWER)
        mag = _MATRIX_A if (y & np.uint64(1)) else np.uint64(0)
        state[kk] = np.uint32(np.uint64(state[kk + _M]) ^ (y >> np.uint64(1)) ^ mag)
    for kk in range(_N - _M, _N - 1):
        y = (np.uint64(state[kk]) & _UPPER) | (np.uint64(state[kk + 1]) & _LOWER)
        mag = _MATRIX_A if (y & np.uint64(1)) else np.uint64(0)
        state[kk] = np.uint32(np.uint64(state[kk + (_M - _N)]) ^ (y >> np.uint64(1)) ^ mag)
    y = (np.uint64(state[_N - 1]) & _UPPER) | (np.uint64(state[0]) & _LOWER)
    mag = _MATRIX_A if (y & np.uint64(1)) else np.uint64(0)
    state[_N - 1] = np.uint32(np.uint64(state[_M - 1]) ^ (y >> np.uint64(1)) ^ mag)


@compiled(inline=True)
def next_word(words: npt.NDArray[np.uint32], index: npt.NDArray[np.int64], row: Int) -> np.uint64:
    """CPython's ``genrand_uint32``: the next 32-bit output of generator ``row``."""
    position = index[row, _INDEX]
    if position >= _N:
        _twist(words[row])
        position = 0
    y = np.uint64(words[row, position])
    index[row, _INDEX] = position + 1
    y ^= y >> np.uint64(11)
    y ^= (y << np.uint64(7)) & np.uint64(0x9D2C5680)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    y ^= y >> np.uint64(18)
    return y


@compiled(inline=True)
def next_random(words: npt.NDArray[np.uint32], index: npt.NDArray[np.int64], row: Int) -> float:
    """``random.Random.random()``: a float in [0, 1) with 53 random bits."""
    a = next_word(words, index, row) >> np.uint64(5)
    b = next_word(words, index, row) >> np.uint64(6)
    return (float(a) * 67108864.0 + float(b)) * (1.0 / 9007199254740992.0)


@compiled(inline=True)
def next_below(words: npt.NDArray[np.uint32], index: npt.NDArray[np.int64], row: Int, n: Int) -> Int:
    """``random.Random._randbelow(n)`` for ``2 <= n < 2**32`` (rejection on ``getrandbits``)."""
    k = 0
    m = n
    while m > 0:
        k += 1
        m >>= 1
    shift = np.uint64(32 - k)
    r = np.int64(next_word(words, index, row) >> shift)
    while r >= n:
        r = np.int64(next_word(words, index, row) >> shift)
    return r


@compiled()
def next_gauss(
    words: npt.NDArray[np.uint32],
    index: npt.NDArray[np.int64],
    cached: npt.NDArray[np.float64],
    row: Int,
    mu: float,
    sigma: float,
) -> float:
    """``random.Random.gauss(mu, sigma)``, with its cached second value."""
    if index[row, _HAS_GAUSS]:
        index[row, _HAS_GAUSS] = 0
        z = cached[row]
    else:
        x2pi = next_random(words, index, row) * TWOPI
        g2rad = math.sqrt(-2.0 * math.log(1.0 - next_random(words, index, row)))
        z = math.cos(x2pi) * g2rad
        cached[row] = math.sin(x2pi) * g2rad
        index[row, _HAS_GAUSS] = 1
    return mu + z * sigma


@compiled(inline=True)
def next_exponential(
    words: npt.NDArray[np.uint32], index: npt.NDArray[np.int64], row: Int, lambd: float
) -> float:
    """``random.Random.expovariate(lambd)``."""
    return -math.log(1.0 - next_random(words, index, row)) / lambd


@compiled()
def shuffle_ranks(
    words: npt.NDArray[np.uint32],
    index: npt.NDArray[np.int64],
    row: Int,
    cards: npt.NDArray[np.uint8],
    count: Int,
) -> None:
    """``random.Random.shuffle`` of ``cards[:count]`` in place."""
    for i in range(count - 1, 0, -1):
        j = next_below(words, index, row, i + 1)
        swap = cards[i]
        cards[i] = cards[j]
        cards[j] = swap


# ============================================================================ 2. the rules

Ints = npt.NDArray[np.int64]
Cards = npt.NDArray[np.uint8]
Words = npt.NDArray[np.uint64]

JOKER = 15
NONE = -1

# ---------------------------------------------------------------------------- rules (R_*)
R_PLAYERS = 0
R_COLLECT_SLAP = 1
R_GRACE = 2
R_CLAIM_WINDOW = 3
R_NEXT_PAYS = 4
R_PENALTY = 5
R_MISSLAP_CARDS = 6
R_OUT_AFTER = 7
R_BAR_AFTER = 8
R_FAILURE = 9
R_TIE_WINDOW = 10
R_SLAP_IN = 11
R_FINISHING_OUT = 12
R_TRIPLE_WINS = 13
R_TRIPLE_SIXES = 14
R_TRIBUTE = 15
R_HAS_TRIPLE = 16
R_PATTERNS = 17
R_RUN_LENGTH = 18
R_RUN_WRAPS = 19
R_TOTAL = 20
R_HIGHEST_BOTTOM_LEADS = 21
R_LAST_HOLDER_PLAYS = 22
R_TIE_VOID = 23  # tie_policy void (with R_TIE_WINDOW > 0)
R_TIE_RANDOM = 24  # tie_policy random (with R_TIE_WINDOW > 0)
R_OUT_OF_TURN_BURN = 25
R_DOUBLE_BURN = 26
R_COUNTING = 27  # some bot remembers cards: log the hand moves of each action
R_LATE_WINDOW = 28  # a slap this soon after the pile was taken is too slow: max(tie_window, too_slow)
R_SIZE = 29
# The ruleset array ``conf`` holds the settings (``R_*``) and then three tables:
C_PATTERNS = R_SIZE  # the slap pattern codes in the ruleset's order (R_PATTERNS of them)
C_CHANCES = C_PATTERNS + 10  # chances by rank (0 for number cards)
C_KINDS = C_CHANCES + 16  # what the cycle check compares, by rank
C_SIZE = C_KINDS + 16

PENALTY_NONE = 0
PENALTY_BURN = 1
PENALTY_PILE = 2
PENALTY_GIVE_PILE = 3
PENALTY_LOCKOUT = 4
PENALTY_CODES = {
    "none": PENALTY_NONE,
    "burn": PENALTY_BURN,
    "penalty_pile": PENALTY_PILE,
    "give_pile": PENALTY_GIVE_PILE,
    "lockout": PENALTY_LOCKOUT,
}

PATTERN_CODES = {name: facts.kernel_code for name, facts in PATTERN_FACTS.items()}
"""The slap patterns the kernel implements, by the names :mod:`ratscrew.patterns` uses: each
one's ``kernel_code`` in the registry (:data:`ratscrew.patterns.PATTERN_FACTS`)."""
P_DOUBLE = PATTERN_CODES["double"]
P_SANDWICH = PATTERN_CODES["sandwich"]
P_TRIPLE = PATTERN_CODES["triple"]
P_TOP_BOTTOM = PATTERN_CODES["top_bottom"]
P_ADD_TO_TEN = PATTERN_CODES["add_to_ten"]
P_MARRIAGE = PATTERN_CODES["marriage"]
P_DIVORCE = PATTERN_CODES["divorce"]
P_RUN = PATTERN_CODES["run"]
P_JOKER = PATTERN_CODES["joker"]
P_SIXTY_NINE = PATTERN_CODES["sixty_nine"]

# ---------------------------------------------------------------------------- game (G_*)
G_TURN = 0
G_CHALLENGE = 1
G_CH_CHALLENGER = 2
G_CH_TARGET = 3
G_CH_LEFT = 4
G_CH_CARD = 5
G_AWARD = 6
G_AW_WINNER = 7
G_AW_COLLECT_AT = 8
G_AW_EXCLUSIVE_UNTIL = 9
G_AW_OPENED = 10
G_LAST_WIN_AT = 11
G_LAST_WIN_CARDS = 12
G_LAST_CHANCE = 13
G_NOW = 14
G_OVER = 15
G_WINNER = 16
G_REASON = 17
G_CARDS = 18
G_TRICKS = 19
G_LIVE = 20
G_BURN_START = 21
G_BURN_END = 22
G_PENALTY = 23
G_STATES = 24  # boundary states stored
G_TABLE_USED = 25
G_GENERATION = 26  # stamp that marks this game's entries in the hash table
# What the events of the current action say (reset before each action).
E_COUNT = 27
E_SHOWN = 28  # a card was played and no pile was won after it
E_SHOWN_AT = 29
E_PLAYER = 30  # seat that played a card, or NONE
E_PILE_WON = 31
E_CLAIMER = 32  # winner of a challenge lost under slap collection, or NONE
E_CLAIMER_AT = 33
E_OPENED = 34  # the claim window opened to everyone
E_OPENED_AT = 35
E_SLAPPERS = 36  # bit mask of the seats whose slap produced an event (won, misslap, ignored, tied)
G_PATTERN = 37  # the pattern the live pile shows (Game.slap_pattern()), or NONE
# The driver's own state between actions (part 3).
D_UPDATE_FIRST = 38  # seats update_first .. update_last - 1 update their plans next
D_UPDATE_LAST = 39
D_WITH_EVENTS = 40  # ... after events (1) or after a refusal (0)
D_REJECTIONS = 41  # refused actions in a row
# The open tie window (Game._tie), and the voided top (Game._void_top).
G_TIE = 42  # 1 while a tie window is open
G_TIE_CLOSES = 43
G_TIE_PATTERN = 44  # the pattern the slaps in the window saw (the pile cannot change under it)
G_TIE_COUNT = 45  # seats that slapped into the window, in order, from G_TIE_SEATS
G_VOID_TOP = 46  # cards_played when a tie was voided, or NONE
E_SHOWN_POS = 47  # hand-log position of the card played (what a counting bot foresaw)
G_UNDO_COUNT = 48  # hash-table slots filled since the last snapshot (undone by a restore)
M_COUNT = 49  # hand moves logged by the current action (for counting bots)
G_TIE_SEATS = 50
MAX_SEATS = 16
G_UNDO_SLOTS = G_TIE_SEATS + MAX_SEATS
# One action fills a hash-table slot per pile boundary it reaches and logs a hand move per card
# played, burn, penalty payment or collection: a few of each, some 40 at most at 16 seats (a
# joker tribute burning from every seat, eliminations). Both limits are far above that and are
# checked: going past one stops the kernel with an error instead of playing a different game.
MAX_UNDO = 16
M_LOG = G_UNDO_SLOTS + MAX_UNDO  # then MAX_MOVES rows of (seat, collected, start, count)
MAX_MOVES = 96
G_SIZE = M_LOG + 4 * MAX_MOVES

REASONS = ("unfinished", "all_cards", "triple", "triple_sixes", "nobody_wins", "cycle")
END_ALL_CARDS = 1
END_TRIPLE = 2
END_TRIPLE_SIXES = 3
END_NOBODY_WINS = 4
END_CYCLE = 5

# ---------------------------------------------------------------------------- seats (S_*)
S_MISSLAP_RUN = 0
S_LOCKED = 1
S_BARRED = 2
S_ELIMINATED = 3
S_RAN_OUT = 4
S_SLAPS_WON = 5
S_MISSLAPS = 6
S_HEAD = 7
S_TAIL = 8
S_SIZE = 9

# Per-seat hash words.
H_SUM = 0
H_HEAD_POWER = 1
H_HEAD_INVERSE = 2
H_TAIL_POWER = 3

HASH_BASE = np.uint64(0x9E3779B97F4A7C15 | 1)
HASH_INVERSE = np.uint64(pow(int(HASH_BASE), -1, 1 << 64))

# Stored boundary states: turn, three seat masks, then (head, tail) per seat.
ST_TURN = 0
ST_ELIMINATED = 1
ST_BARRED = 2
ST_LOCKED = 3
ST_SEATS = 4


# ---------------------------------------------------------------------------- patterns


@compiled(inline=True)
def _number_value(rank: Int) -> Int:
    if rank == 14:
        return 1
    if rank <= 10:
        return rank
    return -1


@compiled(inline=True)
def _royal_pair(a: Int, b: Int) -> bool:
    return (a == 13 and b == 12) or (a == 12 and b == 13)


@compiled()
def _is_run(live: Cards, n: Int, length: Int, wraps: Int) -> bool:
    if n < length or length < 2:
        return False
    for i in range(n - length, n):
        if live[i] == JOKER:
            return False
    for ace_low in range(2):
        up = True
        down = True
        for i in range(n - length, n - 1):
            a: Int = np.int64(live[i])
            b: Int = np.int64(live[i + 1])
            if ace_low:
                a = 1 if a == 14 else a
                b = 1 if b == 14 else b
            step = b - a
            if step != 1:
                up = False
            if step != -1:
                down = False
        if up or down:
            return True
    if wraps:
        up = True
        down = True
        for i in range(n - length, n - 1):
            step = (np.int64(live[i + 1]) - np.int64(live[i])) % 13
            if step != 1:
                up = False
            if step != 12:
                down = False
        return up or down
    return False


@compiled()
def pattern_shown(code: Int, live: Cards, n: Int, conf: Ints) -> bool:
    """Whether the live pile (``live[:n]``, bottom to top) shows pattern ``code``; each case
    is the predicate of the same name in :mod:`ratscrew.patterns`."""
    if code == P_DOUBLE:
        return n >= 2 and live[n - 1] == live[n - 2]
    if code == P_SANDWICH:
        return n >= 3 and live[n - 1] == live[n - 3]
    if code == P_TRIPLE:
        return n >= 3 and live[n - 1] == live[n - 2] and live[n - 2] == live[n - 3]
    if code == P_TOP_BOTTOM:
        return n >= 2 and live[n - 1] == live[0]
    if code == P_ADD_TO_TEN:
        if n < 2:
            return False
        first = _number_value(np.int64(live[n - 1]))
        second = _number_value(np.int64(live[n - 2]))
        return first > 0 and second > 0 and first + second == 10
    if code == P_MARRIAGE:
        return n >= 2 and _royal_pair(np.int64(live[n - 1]), np.int64(live[n - 2]))
    if code == P_DIVORCE:
        return n >= 3 and _royal_pair(np.int64(live[n - 1]), np.int64(live[n - 3]))
    if code == P_RUN:
        return _is_run(live, n, conf[R_RUN_LENGTH], conf[R_RUN_WRAPS])
    if code == P_JOKER:
        return n >= 1 and live[n - 1] == JOKER
    if code == P_SIXTY_NINE:
        if n < 2:
            return False
        a = np.int64(live[n - 1])
        b = np.int64(live[n - 2])
        return (a == 6 and b == 9) or (a == 9 and b == 6)
    return False


@compiled()
def find_pattern(game: Ints, piles: Cards, conf: Ints) -> Int:
    """``Game.slap_pattern()``: the first of the ruleset's patterns the live pile shows, as a
    code, or ``NONE``. The live pile changes only when a card is played (then this is stored
    in ``game[G_PATTERN]``) or the pile is won (then ``NONE`` is)."""
    n = game[G_LIVE]
    live = piles[0]
    for i in range(conf[R_PATTERNS]):
        if pattern_shown(conf[C_PATTERNS + i], live, n, conf):
            return conf[C_PATTERNS + i]
    return NONE


@compiled(inline=True)
def near_pattern(game: Ints, piles: Cards) -> bool:
    """:func:`ratscrew.bots.perception.is_near_pattern` on the live pile."""
    n = game[G_LIVE]
    live = piles[0]
    if n < 2 or live[n - 1] == JOKER:
        return False
    top = np.int64(live[n - 1])
    below = np.int64(live[n - 2])
    if below != JOKER and abs(below - top) == 1:
        return True
    if n >= 3:
        below = np.int64(live[n - 3])
        if below != JOKER and abs(below - top) == 1:
            return True
    return False


# ---------------------------------------------------------------------------- hands


@compiled(inline=True)
def hand_size(seats: Ints, seat: Int) -> Int:
    """``Game.hand_size``."""
    return seats[seat, S_TAIL] - seats[seat, S_HEAD]


@compiled(inline=True)
def _pop_top(seats: Ints, hand_log: Cards, hashes: Words, conf: Ints, seat: Int) -> Int:
    """``hand.popleft()`` in the engine: the seat's top card leaves its hand."""
    head = seats[seat, S_HEAD]
    card = np.int64(hand_log[seat, head])
    seats[seat, S_HEAD] = head + 1
    hashes[seat, H_SUM] -= np.uint64(conf[C_KINDS + card] + 1) * hashes[seat, H_HEAD_POWER]
    hashes[seat, H_HEAD_POWER] *= HASH_BASE
    hashes[seat, H_HEAD_INVERSE] *= HASH_INVERSE
    return card


@compiled(inline=True)
def push_bottom(seats: Ints, hand_log: Cards, hashes: Words, conf: Ints, seat: Int, card: Int) -> None:
    """``hand.append(card)`` in the engine: a card goes to the bottom of the seat's hand."""
    tail = seats[seat, S_TAIL]
    hand_log[seat, tail] = card
    seats[seat, S_TAIL] = tail + 1
    hashes[seat, H_SUM] += np.uint64(conf[C_KINDS + card] + 1) * hashes[seat, H_TAIL_POWER]
    hashes[seat, H_TAIL_POWER] *= HASH_BASE


@compiled(inline=True)
def log_move(game: Ints, conf: Ints, seat: Int, collected: Int, start: Int, count: Int) -> None:
    """Note that ``count`` cards left the top of ``seat``'s hand (from log position ``start``)
    or, when ``collected``, went to its bottom: the event order a counting bot follows."""
    if not conf[R_COUNTING] or count <= 0:
        return
    row = game[M_COUNT]
    if row >= MAX_MOVES:
        raise RuntimeError("kernel: one action moved more hands than MAX_MOVES")
    game[M_COUNT] = row + 1
    base = M_LOG + 4 * row
    game[base] = seat
    game[base + 1] = collected
    game[base + 2] = start
    game[base + 3] = count


@compiled()
def _next_holder(seats: Ints, players: Int, seat: Int, include_self: Int) -> Int:
    """``Game._next_holder``: the next seat clockwise holding cards (``seat`` itself last,
    if ``include_self``), or ``NONE``."""
    steps = players if include_self else players - 1
    for step in range(1, steps + 1):
        candidate = (seat + step) % players
        if hand_size(seats, candidate) > 0:
            return candidate
    return NONE


@compiled()
def _burn(
    game: Ints, seats: Ints, hand_log: Cards, hashes: Words, piles: Cards, conf: Ints, seat: Int, count: Int
) -> None:
    """``Game._burn``: up to ``count`` top cards go face up under the pile, in their order."""
    taken = min(count, hand_size(seats, seat))
    log_move(game, conf, seat, np.int64(0), seats[seat, S_HEAD], taken)
    start = game[G_BURN_START] - taken
    for i in range(taken):
        piles[1, start + i] = _pop_top(seats, hand_log, hashes, conf, seat)
    game[G_BURN_START] = start


# ---------------------------------------------------------------------------- who may slap


@compiled(inline=True)
def may_slap_in(seats: Ints, conf: Ints, seat: Int) -> bool:
    """``Game._may_slap_in`` (no outsiders or resignations in the kernel)."""
    if seats[seat, S_ELIMINATED] or seats[seat, S_BARRED]:
        return False
    return conf[R_SLAP_IN] == 1


@compiled(inline=True)
def _owed(game: Ints, seat: Int) -> bool:
    return (game[G_AWARD] == 1 and game[G_AW_WINNER] == seat) or (
        game[G_CHALLENGE] == 1 and game[G_CH_CHALLENGER] == seat
    )


@compiled(inline=True)
def status_may_slap(game: Ints, seats: Ints, conf: Ints, seat: Int) -> bool:
    """``Game.status(seat) in ("in", "out")``: what a bot checks before deciding to slap."""
    if seats[seat, S_ELIMINATED]:
        return False
    if hand_size(seats, seat) > 0 or _owed(game, seat):
        return seats[seat, S_LOCKED] == 0
    if seats[seat, S_BARRED]:
        return False
    return may_slap_in(seats, conf, seat)


@compiled(inline=True)
def slap_allowed(game: Ints, seats: Ints, conf: Ints, seat: Int) -> bool:
    """``Game._check_may_slap`` does not raise."""
    if game[G_AWARD] == 1 and game[G_AW_WINNER] == seat:
        return True
    if seats[seat, S_ELIMINATED] or seats[seat, S_LOCKED]:
        return False
    challenger = game[G_CHALLENGE] == 1 and game[G_CH_CHALLENGER] == seat
    return hand_size(seats, seat) > 0 or challenger or may_slap_in(seats, conf, seat)


# ---------------------------------------------------------------------------- state key


@compiled()
def state_hash(game: Ints, seats: Ints, hashes: Words, players: Int) -> np.uint64:
    """A hash of ``Game._state_key()`` at a pile boundary (the penalty pile is empty there)."""
    h = np.uint64(game[G_TURN] + 2) * np.uint64(0xD6E8FEB86659FD93)
    for seat in range(players):
        flags = seats[seat, S_ELIMINATED] | (seats[seat, S_BARRED] << 1) | (seats[seat, S_LOCKED] << 2)
        size = hand_size(seats, seat)
        normal = hashes[seat, H_SUM] * hashes[seat, H_HEAD_INVERSE]
        h = (h ^ normal ^ np.uint64(size * 8 + flags)) * np.uint64(0x9FB21C651E98DF25)
        h ^= h >> np.uint64(29)
    return h


@compiled()
def _store_state(game: Ints, seats: Ints, states: Ints, players: Int) -> Int:
    row = game[G_STATES]
    game[G_STATES] = row + 1
    states[row, ST_TURN] = game[G_TURN]
    eliminated = 0
    barred = 0
    locked = 0
    for seat in range(players):
        eliminated |= seats[seat, S_ELIMINATED] << seat
        barred |= seats[seat, S_BARRED] << seat
        locked |= seats[seat, S_LOCKED] << seat
        states[row, ST_SEATS + 2 * seat] = seats[seat, S_HEAD]
        states[row, ST_SEATS + 2 * seat + 1] = seats[seat, S_TAIL]
    states[row, ST_ELIMINATED] = eliminated
    states[row, ST_BARRED] = barred
    states[row, ST_LOCKED] = locked
    return row


@compiled()
def _same_state(states: Ints, a: Int, b: Int, hand_log: Cards, conf: Ints, players: Int) -> bool:
    for i in range(ST_SEATS):
        if states[a, i] != states[b, i]:
            return False
    for seat in range(players):
        head_a = states[a, ST_SEATS + 2 * seat]
        head_b = states[b, ST_SEATS + 2 * seat]
        size = states[a, ST_SEATS + 2 * seat + 1] - head_a
        if size != states[b, ST_SEATS + 2 * seat + 1] - head_b:
            return False
        for i in range(size):
            if conf[C_KINDS + hand_log[seat, head_a + i]] != conf[C_KINDS + hand_log[seat, head_b + i]]:
                return False
    return True


@compiled()
def remember_state(
    game: Ints,
    seats: Ints,
    hand_log: Cards,
    hashes: Words,
    conf: Ints,
    states: Ints,
    table_keys: Words,
    table_values: Ints,
    table_stamps: Ints,
    players: Int,
) -> bool:
    """Add the current boundary state to the seen states; True if it was seen before
    (``key in self._seen_states``), compared exactly."""
    h = state_hash(game, seats, hashes, players)
    row = _store_state(game, seats, states, players)
    mask = table_keys.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    stamp = game[G_GENERATION]
    while table_stamps[slot] == stamp:
        if table_keys[slot] == h and _same_state(states, table_values[slot], row, hand_log, conf, players):
            game[G_STATES] = row  # not stored twice
            return True
        slot = (slot + 1) & mask
    table_stamps[slot] = stamp
    table_keys[slot] = h
    table_values[slot] = row
    game[G_TABLE_USED] += 1
    undo = game[G_UNDO_COUNT]
    if undo < MAX_UNDO:
        game[G_UNDO_SLOTS + undo] = slot
    game[G_UNDO_COUNT] = undo + 1  # past MAX_UNDO only a restore (which refuses) would care
    return False


# ---------------------------------------------------------------------------- game flow


@compiled(inline=True)
def _end(game: Ints, winner: Int, reason: Int) -> None:
    """``Game._end``: the game is over, won by ``winner`` (or ``NONE``) for ``reason``."""
    game[G_OVER] = 1
    game[G_WINNER] = winner
    game[G_REASON] = reason
    game[G_TURN] = NONE
    game[G_TIE] = 0


@compiled()
def _mark_players_out(game: Ints, seats: Ints, conf: Ints, players: Int) -> None:
    """``Game._mark_players_out``: a seat left without cards (and owed nothing) is out, and
    eliminated unless it may slap in."""
    for seat in range(players):
        if hand_size(seats, seat) > 0 or seats[seat, S_RAN_OUT]:
            continue
        if seats[seat, S_ELIMINATED]:
            continue
        if _owed(game, seat):
            continue
        seats[seat, S_RAN_OUT] = 1
        seats[seat, S_MISSLAP_RUN] = 0
        if not may_slap_in(seats, conf, seat):
            seats[seat, S_ELIMINATED] = 1


@compiled()
def _collect_core(
    game: Ints,
    seats: Ints,
    hand_log: Cards,
    hashes: Words,
    piles: Cards,
    conf: Ints,
    states: Ints,
    table_keys: Words,
    table_values: Ints,
    table_stamps: Ints,
    seat: Int,
    at: Int,
    check_end: Int,
) -> bool:
    """``Game._collect`` up to its final ``_after_cards_left``: ``seat`` takes burned cards,
    the pile and the penalty pile onto the bottom of their hand and leads, at time ``at``.
    True when the caller must settle next (the game goes on and ``check_end`` was asked)."""
    was_out = hand_size(seats, seat) == 0
    log_move(game, conf, seat, np.int64(1), seats[seat, S_TAIL],
             game[G_BURN_END] - game[G_BURN_START] + game[G_LIVE] + game[G_PENALTY])
    for i in range(game[G_BURN_START], game[G_BURN_END]):
        push_bottom(seats, hand_log, hashes, conf, seat, np.int64(piles[1, i]))
    for i in range(game[G_LIVE]):
        push_bottom(seats, hand_log, hashes, conf, seat, np.int64(piles[0, i]))
    for i in range(game[G_PENALTY]):
        push_bottom(seats, hand_log, hashes, conf, seat, np.int64(piles[2, i]))
    game[G_BURN_START] = 64
    game[G_BURN_END] = 64
    game[G_LIVE] = 0
    game[G_PATTERN] = NONE
    game[G_PENALTY] = 0
    game[G_CHALLENGE] = 0
    game[G_AWARD] = 0
    game[G_TIE] = 0
    game[G_LAST_CHANCE] = NONE
    game[G_TURN] = seat
    game[G_TRICKS] += 1
    players = conf[R_PLAYERS]
    for other in range(players):
        if other != seat:
            seats[other, S_LOCKED] = 0
    game[E_PILE_WON] = 1
    game[E_SHOWN] = 0
    game[E_COUNT] += 1
    game[G_LAST_WIN_AT] = at
    game[G_LAST_WIN_CARDS] = game[G_CARDS]
    if was_out and seats[seat, S_RAN_OUT]:
        # Back in the game with cards: running out again makes them out again.
        seats[seat, S_RAN_OUT] = 0
        seats[seat, S_MISSLAP_RUN] = 0
    if not check_end:
        return False
    if hand_size(seats, seat) == conf[R_TOTAL]:
        _end(game, seat, END_ALL_CARDS)
        return False
    if remember_state(
        game, seats, hand_log, hashes, conf, states, table_keys, table_values, table_stamps, players
    ):
        _end(game, NONE, END_CYCLE)
        return False
    return True


@compiled()
def _lose_core(
    game: Ints, seats: Ints, hand_log: Cards, hashes: Words, piles: Cards, conf: Ints, loser: Int, at: Int
) -> bool:
    """``Game._lose_challenge`` up to its last step: True when the pile is to be collected at
    once (automatic collection with no grace), False when the caller settles instead."""
    winner = game[G_CH_CHALLENGER]
    if (
        conf[R_FAILURE]
        and game[G_CH_CARD] == JOKER
        and loser != winner
        and game[G_PATTERN] == NONE
        and hand_size(seats, loser) > 0
    ):
        _burn(game, seats, hand_log, hashes, piles, conf, loser, np.int64(1))
    game[G_CHALLENGE] = 0
    game[G_TURN] = NONE
    game[G_AWARD] = 1
    game[G_AW_WINNER] = winner
    game[G_AW_OPENED] = 0
    game[E_COUNT] += 1
    ends_game = True
    for seat in range(conf[R_PLAYERS]):
        if seat != winner and hand_size(seats, seat) > 0:
            ends_game = False
            break
    if conf[R_COLLECT_SLAP] and not ends_game:
        game[G_AW_COLLECT_AT] = NONE
        game[G_AW_EXCLUSIVE_UNTIL] = at + conf[R_CLAIM_WINDOW]
        game[E_CLAIMER] = winner
        game[E_CLAIMER_AT] = at
        return False
    # A pile that gives its winner every card ends the game: nobody needs to claim it.
    game[G_AW_COLLECT_AT] = at + (0 if conf[R_COLLECT_SLAP] else conf[R_GRACE])
    game[G_AW_EXCLUSIVE_UNTIL] = NONE
    return game[G_AW_COLLECT_AT] <= at


@compiled()
def settle(
    game: Ints,
    seats: Ints,
    hand_log: Cards,
    hashes: Words,
    piles: Cards,
    conf: Ints,
    states: Ints,
    table_keys: Words,
    table_values: Ints,
    table_stamps: Ints,
    at: Int,
) -> None:
    """``Game._after_cards_left``: settle the turn, who is out, and whether the game ended.

    The engine's calls from here into ``_lose_challenge`` and ``_collect`` end with another
    ``_after_cards_left``; this loop runs those as its next round instead of recursing."""
    players = conf[R_PLAYERS]
    while not game[G_OVER]:
        if game[G_CHALLENGE] == 1 and hand_size(seats, game[G_CH_TARGET]) == 0:
            loser = game[G_CH_TARGET]
            if conf[R_NEXT_PAYS]:
                following = _next_holder(seats, players, loser, np.int64(0))
                if following != NONE and following != game[G_CH_CHALLENGER]:
                    game[G_CH_TARGET] = following
                    game[G_TURN] = following
                    loser = NONE
            if loser != NONE:
                winner = game[G_CH_CHALLENGER]
                collect_now = _lose_core(game, seats, hand_log, hashes, piles, conf, loser, at)
                if collect_now and not _collect_core(
                    game,
                    seats,
                    hand_log,
                    hashes,
                    piles,
                    conf,
                    states,
                    table_keys,
                    table_values,
                    table_stamps,
                    winner,
                    at,
                    np.int64(1),
                ):
                    return
                continue
        turn = game[G_TURN]
        if turn != NONE and hand_size(seats, turn) == 0 and game[G_AWARD] == 0:
            game[G_TURN] = _next_holder(seats, players, turn, np.int64(0))
        _mark_players_out(game, seats, conf, players)
        holders = 0
        holder: Int = np.int64(NONE)
        for seat in range(players):
            if hand_size(seats, seat) > 0:
                holders += 1
                holder = seat
        pending = game[G_CHALLENGE] == 1 or game[G_AWARD] == 1
        plays_turn = conf[R_LAST_HOLDER_PLAYS] != 0 and conf[R_FINISHING_OUT] == 0
        if holders == 0 and not pending and plays_turn and game[E_PLAYER] != NONE and game[G_PATTERN] == NONE:
            # The last holder played their own last card: the pile is theirs, as below.
            holders = 1
            holder = game[E_PLAYER]
        if holders == 0 and not pending:
            if game[G_LAST_CHANCE] == NONE:
                chance = False
                if game[G_PATTERN] != NONE:
                    for seat in range(players):
                        if may_slap_in(seats, conf, seat):
                            chance = True
                            break
                if chance:
                    game[G_LAST_CHANCE] = at + max(conf[R_GRACE], conf[R_TIE_WINDOW], 1)
                else:
                    game[E_COUNT] += 1
                    _end(game, NONE, END_NOBODY_WINS)
        elif holders == 1 and not pending and not conf[R_FINISHING_OUT] and game[G_PATTERN] == NONE:
            if game[G_LIVE] > 0 or game[G_BURN_END] > game[G_BURN_START] or game[G_PENALTY] > 0:
                # With last_holder_plays_turn, only right after a card of their own.
                if (not plays_turn or game[E_PLAYER] == holder) and _collect_core(
                    game,
                    seats,
                    hand_log,
                    hashes,
                    piles,
                    conf,
                    states,
                    table_keys,
                    table_values,
                    table_stamps,
                    holder,
                    at,
                    np.int64(1),
                ):
                    continue
            else:
                game[E_COUNT] += 1
                _end(game, holder, END_ALL_CARDS)
        return


@compiled()
def collect(
    game: Ints,
    seats: Ints,
    hand_log: Cards,
    hashes: Words,
    piles: Cards,
    conf: Ints,
    states: Ints,
    table_keys: Words,
    table_values: Ints,
    table_stamps: Ints,
    seat: Int,
    at: Int,
    check_end: Int,
) -> None:
    """``Game._collect`` (see :func:`_collect_core`), then settling."""
    if _collect_core(
        game,
        seats,
        hand_log,
        hashes,
        piles,
        conf,
        states,
        table_keys,
        table_values,
        table_stamps,
        seat,
        at,
        check_end,
    ):
        settle(game, seats, hand_log, hashes, piles, conf, states, table_keys, table_values, table_stamps, at)


@compiled()
def lose_challenge(
    game: Ints,
    seats: Ints,
    hand_log: Cards,
    hashes: Words,
    piles: Cards,
    conf: Ints,
    states: Ints,
    table_keys: Words,
    table_values: Ints,
    table_stamps: Ints,
    loser: Int,
    at: Int,
) -> None:
    """``Game._lose_challenge``."""
    winner = game[G_CH_CHALLENGER]
    if _lose_core(game, seats, hand_log, hashes, piles, conf, loser, at):
        collect(
            game,
            seats,
            hand_log,
            hashes,
            piles,
            conf,
            states,
            table_keys,
            table_values,
            table_stamps,
            winner,
            at,
            np.int64(1),
        )
    else:
        settle(game, seats, hand_log, hashes, piles, conf, states, table_keys, table_values, table_stamps, at)


@compiled()
def _play_card(
    game: Ints,
    seats: Ints,
    hand_log: Cards,
    hashes: Words,
    piles: Cards,
    played_by: Ints,
    conf: Ints,
    states: Ints,
    table_keys: Words,
    table_values: Ints,
    table_stamps: Ints,
    seat: Int,
    at: Int,
) -> bool:
    """``Game._play(seat, at)`` (timers already fired); False (nothing changes) when the engine
    would refuse it."""
    if game[G_TURN] != seat:
        if conf[R_OUT_OF_TURN_BURN] and hand_size(seats, seat) > 0:
            game[G_NOW] = at
            game[E_COUNT] += 1
            burned = np.int64(2 if conf[R_DOUBLE_BURN] else 1)
            _burn(game, seats, hand_log, hashes, piles, conf, seat, burned)
            settle(game, seats, hand_log, hashes, piles, conf, states, table_keys, table_values,
                   table_stamps, at)
            return True
        return False
    if hand_size(seats, seat) == 0:
        return False
    game[G_NOW] = at
    game[E_SHOWN_POS] = seats[seat, S_HEAD]
    log_move(game, conf, seat, np.int64(0), seats[seat, S_HEAD], np.int64(1))
    card = _pop_top(seats, hand_log, hashes, conf, seat)
    n = game[G_LIVE]
    piles[0, n] = card
    played_by[n] = seat
    game[G_LIVE] = n + 1
    game[G_PATTERN] = find_pattern(game, piles, conf)
    game[G_CARDS] += 1
    game[E_COUNT] += 1
    game[E_SHOWN] = 1
    game[E_SHOWN_AT] = at
    game[E_PLAYER] = seat
    players = conf[R_PLAYERS]
    given = conf[C_CHANCES + card]
    if given > 0:
        target = _next_holder(seats, players, seat, np.int64(0))
        if target == NONE:
            game[G_CHALLENGE] = 1
            game[G_CH_CHALLENGER] = seat
            game[G_CH_TARGET] = seat
            game[G_CH_LEFT] = 0
            game[G_CH_CARD] = card
            lose_challenge(
                game,
                seats,
                hand_log,
                hashes,
                piles,
                conf,
                states,
                table_keys,
                table_values,
                table_stamps,
                seat,
                at,
            )
            return True
        game[G_CHALLENGE] = 1
        game[G_CH_CHALLENGER] = seat
        game[G_CH_TARGET] = target
        game[G_CH_LEFT] = given
        game[G_CH_CARD] = card
        game[G_TURN] = target
    elif game[G_CHALLENGE] == 1:
        game[G_CH_LEFT] -= 1
        if game[G_CH_LEFT] == 0:
            lose_challenge(
                game,
                seats,
                hand_log,
                hashes,
                piles,
                conf,
                states,
                table_keys,
                table_values,
                table_stamps,
                seat,
                at,
            )
            return True
    else:
        game[G_TURN] = _next_holder(seats, players, seat, np.int64(1))
    settle(game, seats, hand_log, hashes, piles, conf, states, table_keys, table_values, table_stamps, at)
    return True


@compiled()
def _eliminate(
    game: Ints, seats: Ints, hand_log: Cards, hashes: Words, piles: Cards, conf: Ints, seat: Int
) -> None:
    """``Game._eliminate``: the seat's hand is burned and it is out for good."""
    if hand_size(seats, seat) > 0:
        _burn(game, seats, hand_log, hashes, piles, conf, seat, hand_size(seats, seat))
    seats[seat, S_ELIMINATED] = 1
    seats[seat, S_RAN_OUT] = 1


@compiled()
def _misslap(
    game: Ints,
    seats: Ints,
    hand_log: Cards,
    hashes: Words,
    piles: Cards,
    played_by: Ints,
    conf: Ints,
    states: Ints,
    table_keys: Words,
    table_values: Ints,
    table_stamps: Ints,
    seat: Int,
    at: Int,
) -> None:
    """``Game._misslap``: the penalty of the rules, then a bar or an elimination if earned."""
    seats[seat, S_MISSLAP_RUN] += 1
    seats[seat, S_MISSLAPS] += 1
    had_cards = hand_size(seats, seat) > 0
    penalty = conf[R_PENALTY]
    if not had_cards and penalty != PENALTY_LOCKOUT:
        penalty = PENALTY_NONE
    pile_to = NONE
    if penalty == PENALTY_BURN:
        _burn(game, seats, hand_log, hashes, piles, conf, seat, conf[R_MISSLAP_CARDS])
    elif penalty == PENALTY_PILE:
        taken = min(conf[R_MISSLAP_CARDS], hand_size(seats, seat))
        log_move(game, conf, seat, np.int64(0), seats[seat, S_HEAD], taken)
        for _ in range(taken):
            piles[2, game[G_PENALTY]] = _pop_top(seats, hand_log, hashes, conf, seat)
            game[G_PENALTY] += 1
    elif penalty == PENALTY_GIVE_PILE:
        for i in range(game[G_LIVE] - 1, -1, -1):
            if played_by[i] != seat and not seats[played_by[i], S_ELIMINATED]:
                pile_to = played_by[i]
                break
    if penalty == PENALTY_LOCKOUT:
        seats[seat, S_LOCKED] = 1
    if pile_to != NONE:
        collect(
            game,
            seats,
            hand_log,
            hashes,
            piles,
            conf,
            states,
            table_keys,
            table_values,
            table_stamps,
            pile_to,
            at,
            np.int64(1),
        )
        if game[G_OVER]:
            return
    if (
        not had_cards
        and not seats[seat, S_BARRED]
        and conf[R_BAR_AFTER]
        and seats[seat, S_MISSLAP_RUN] >= conf[R_BAR_AFTER]
    ):
        seats[seat, S_BARRED] = 1
    if had_cards and conf[R_OUT_AFTER] and seats[seat, S_MISSLAP_RUN] > conf[R_OUT_AFTER]:
        _eliminate(game, seats, hand_log, hashes, piles, conf, seat)
    settle(game, seats, hand_log, hashes, piles, conf, states, table_keys, table_values, table_stamps, at)


@compiled()
def _win_slap(
    game: Ints,
    seats: Ints,
    hand_log: Cards,
    hashes: Words,
    piles: Cards,
    conf: Ints,
    states: Ints,
    table_keys: Words,
    table_values: Ints,
    table_stamps: Ints,
    seat: Int,
    pattern: Int,
    at: Int,
) -> None:
    """``Game._win_slap``: the slapper collects the pile (a triple may end the game; a joker
    sandwich may take a tribute card from every other holder)."""
    seats[seat, S_SLAPS_WON] += 1
    seats[seat, S_MISSLAP_RUN] = 0
    n = game[G_LIVE]
    live = piles[0]
    if conf[R_TRIPLE_WINS] and conf[R_HAS_TRIPLE] and pattern_shown(np.int64(P_TRIPLE), live, n, conf):
        sixes = live[n - 1] == 6
        collect(
            game,
            seats,
            hand_log,
            hashes,
            piles,
            conf,
            states,
            table_keys,
            table_values,
            table_stamps,
            seat,
            at,
            np.int64(0),
        )
        if sixes and conf[R_TRIPLE_SIXES]:
            _end(game, NONE, END_TRIPLE_SIXES)
        else:
            _end(game, seat, END_TRIPLE)
        return
    joker_sandwich = pattern == P_SANDWICH and n >= 3 and live[n - 1] == JOKER and live[n - 3] == JOKER
    collect(
        game,
        seats,
        hand_log,
        hashes,
        piles,
        conf,
        states,
        table_keys,
        table_values,
        table_stamps,
        seat,
        at,
        np.int64(1),
    )
    if conf[R_TRIBUTE] and joker_sandwich and not game[G_OVER]:
        for other in range(conf[R_PLAYERS]):
            if other != seat and hand_size(seats, other) > 0:
                _burn(game, seats, hand_log, hashes, piles, conf, other, np.int64(1))
        settle(game, seats, hand_log, hashes, piles, conf, states, table_keys, table_values, table_stamps, at)


@compiled(inline=True)
def slap(
    game: Ints,
    seats: Ints,
    hand_log: Cards,
    hashes: Words,
    piles: Cards,
    played_by: Ints,
    conf: Ints,
    states: Ints,
    table_keys: Words,
    table_values: Ints,
    table_stamps: Ints,
    seat: Int,
    at: Int,
) -> bool:
    """``Game.slap(seat, at)``; False (nothing changes) when the engine would refuse it."""
    if not slap_allowed(game, seats, conf, seat):
        return False
    game[G_NOW] = at
    pattern = game[G_PATTERN]
    # The winner of a challenge claims whatever else happened; anyone may once the window opened.
    claim = game[G_AWARD] == 1 and game[G_AW_WINNER] == seat
    if not claim:
        late = game[G_LAST_WIN_CARDS] == game[G_CARDS] and (
            at - game[G_LAST_WIN_AT] < conf[R_LATE_WINDOW])
        if late or game[G_VOID_TOP] == game[G_CARDS] or _in_tie(game, seat):
            game[E_COUNT] += 1  # ignored: late, voided or a repeat
            game[E_SLAPPERS] |= np.int64(1) << seat
            return True
        claim = game[G_AWARD] == 1 and game[G_AW_OPENED] == 1 and pattern == NONE
    windowed = conf[R_TIE_WINDOW] > 0 and (conf[R_TIE_VOID] or conf[R_TIE_RANDOM])
    if claim or pattern == NONE or not windowed:
        game[E_COUNT] += 1
        game[E_SLAPPERS] |= np.int64(1) << seat
    if claim:
        seats[seat, S_MISSLAP_RUN] = 0
        collect(game, seats, hand_log, hashes, piles, conf, states, table_keys, table_values, table_stamps,
                seat, at, np.int64(1))
        return True
    if pattern == NONE:
        _misslap(game, seats, hand_log, hashes, piles, played_by, conf, states, table_keys, table_values,
                 table_stamps, seat, at)
        return True
    if not windowed:
        _win_slap(game, seats, hand_log, hashes, piles, conf, states, table_keys, table_values, table_stamps,
                  seat, pattern, at)
        return True
    # Into the tie window (opened by the first such slap): no event until it closes.
    if game[G_TIE] == 0:
        game[G_TIE] = 1
        game[G_TIE_CLOSES] = at + conf[R_TIE_WINDOW]
        game[G_TIE_COUNT] = 0
        game[G_TIE_PATTERN] = pattern
    game[G_TIE_SEATS + game[G_TIE_COUNT]] = seat
    game[G_TIE_COUNT] += 1
    return True


@compiled(inline=True)
def _in_tie(game: Ints, seat: Int) -> bool:
    """Whether ``seat`` already slapped into the open tie window, as ``Game._slap`` looks
    through ``self._tie.slaps``: a second slap there is ignored."""
    found = False
    if game[G_TIE] == 1:
        for i in range(game[G_TIE_COUNT]):
            found = found or game[G_TIE_SEATS + i] == seat
    return found


@compiled()
def close_tie(
    game: Ints,
    seats: Ints,
    hand_log: Cards,
    hashes: Words,
    piles: Cards,
    conf: Ints,
    states: Ints,
    table_keys: Words,
    table_values: Ints,
    table_stamps: Ints,
    words: npt.NDArray[np.uint32],
    index: Ints,
) -> None:
    """``Game._close_tie`` at ``game[G_NOW]``: a lone slapper wins; several void the top card
    or one of them, drawn by the game's own generator (row 0), wins."""
    game[G_TIE] = 0
    count = game[G_TIE_COUNT]
    game[E_COUNT] += 1
    for i in range(count):
        game[E_SLAPPERS] |= np.int64(1) << game[G_TIE_SEATS + i]
    winner = game[G_TIE_SEATS]
    if count > 1:
        if conf[R_TIE_VOID]:
            game[G_VOID_TOP] = game[G_CARDS]
            return
        winner = game[G_TIE_SEATS + next_below(words, index, np.int64(0), count)]
    _win_slap(game, seats, hand_log, hashes, piles, conf, states, table_keys, table_values, table_stamps,
              winner, game[G_TIE_PATTERN], game[G_NOW])


@compiled(inline=True)
def next_timer(game: Ints) -> Int:
    """``Game._next_timer()``, or ``NONE``: an open tie window closes before anything else."""
    if game[G_TIE] == 1:
        return game[G_TIE_CLOSES]
    due = game[G_LAST_CHANCE]
    if game[G_AWARD] == 1:
        award_due = game[G_AW_COLLECT_AT]
        if award_due == NONE and not game[G_AW_OPENED]:
            award_due = game[G_AW_EXCLUSIVE_UNTIL]
        if award_due != NONE and (due == NONE or award_due < due):
            due = award_due
    return due


@compiled()
def fire_timers(
    game: Ints,
    seats: Ints,
    hand_log: Cards,
    hashes: Words,
    piles: Cards,
    conf: Ints,
    states: Ints,
    table_keys: Words,
    table_values: Ints,
    table_stamps: Ints,
    words: npt.NDArray[np.uint32],
    index: Ints,
    at: Int,
) -> None:
    """``Game._fire_timers`` (without closing a tie early): every timer due by ``at``, in order."""
    while not game[G_OVER]:
        due = next_timer(game)
        if due == NONE or due > at:
            break
        game[G_NOW] = due
        if game[G_TIE] == 1:
            close_tie(game, seats, hand_log, hashes, piles, conf, states, table_keys, table_values,
                      table_stamps, words, index)
        elif game[G_LAST_CHANCE] == due:
            game[E_COUNT] += 1
            _end(game, NONE, END_NOBODY_WINS)
        elif game[G_AWARD] == 1 and game[G_AW_COLLECT_AT] == due:
            collect(game, seats, hand_log, hashes, piles, conf, states, table_keys, table_values,
                    table_stamps, game[G_AW_WINNER], due, np.int64(1))
        else:
            game[G_AW_OPENED] = 1
            game[E_COUNT] += 1
            game[E_OPENED] = 1
            game[E_OPENED_AT] = due


@compiled(inline=True)
def advance(
    game: Ints,
    seats: Ints,
    hand_log: Cards,
    hashes: Words,
    piles: Cards,
    conf: Ints,
    states: Ints,
    table_keys: Words,
    table_values: Ints,
    table_stamps: Ints,
    words: npt.NDArray[np.uint32],
    index: Ints,
    at: Int,
) -> None:
    """``Game.advance(at)``: fire every timer due by ``at``, in order."""
    fire_timers(game, seats, hand_log, hashes, piles, conf, states, table_keys, table_values, table_stamps,
                words, index, at)
    game[G_NOW] = at


@compiled()
def _save(
    game: Ints,
    seats: Ints,
    hashes: Words,
    piles: Cards,
    played_by: Ints,
    words: npt.NDArray[np.uint32],
    index: Ints,
    saved: Ints,
    saved_hashes: Words,
    saved_piles: Cards,
    saved_words: npt.NDArray[np.uint32],
) -> None:
    """``Game._snapshot``: what an action that may still be refused can change. The hand logs
    need no copy (cards are only appended past the saved tails); hash-table slots filled from
    here on are listed in ``game[G_UNDO_SLOTS:]``."""
    game[G_UNDO_COUNT] = 0
    players = seats.shape[0]
    for i in range(G_SIZE):
        saved[i] = game[i]
    position = G_SIZE
    for seat in range(players):
        for i in range(S_SIZE):
            saved[position] = seats[seat, i]
            position += 1
        for i in range(4):
            saved_hashes[seat, i] = hashes[seat, i]
    for i in range(played_by.shape[0]):
        saved[position + i] = played_by[i]
    position += played_by.shape[0]
    saved[position] = index[0, 0]
    saved[position + 1] = index[0, 1]
    for pile in range(3):
        for i in range(piles.shape[1]):
            saved_piles[pile, i] = piles[pile, i]
    for i in range(saved_words.shape[0]):
        saved_words[i] = words[0, i]


@compiled()
def _restore(
    game: Ints,
    seats: Ints,
    hashes: Words,
    piles: Cards,
    played_by: Ints,
    words: npt.NDArray[np.uint32],
    index: Ints,
    table_stamps: Ints,
    saved: Ints,
    saved_hashes: Words,
    saved_piles: Cards,
    saved_words: npt.NDArray[np.uint32],
) -> None:
    """``Game._restore`` of what :func:`_save` kept, and the hash-table slots filled since."""
    if game[G_UNDO_COUNT] > MAX_UNDO:
        raise RuntimeError("kernel: an undone action filled more hash-table slots than MAX_UNDO")
    for i in range(game[G_UNDO_COUNT]):
        table_stamps[game[G_UNDO_SLOTS + i]] = 0
    players = seats.shape[0]
    for i in range(G_SIZE):
        game[i] = saved[i]
    position = G_SIZE
    for seat in range(players):
        for i in range(S_SIZE):
            seats[seat, i] = saved[position]
            position += 1
        for i in range(4):
            hashes[seat, i] = saved_hashes[seat, i]
    for i in range(played_by.shape[0]):
        played_by[i] = saved[position + i]
    position += played_by.shape[0]
    index[0, 0] = saved[position]
    index[0, 1] = saved[position + 1]
    for pile in range(3):
        for i in range(piles.shape[1]):
            piles[pile, i] = saved_piles[pile, i]
    for i in range(saved_words.shape[0]):
        words[0, i] = saved_words[i]


@compiled(inline=True)
def play(
    game: Ints,
    seats: Ints,
    hand_log: Cards,
    hashes: Words,
    piles: Cards,
    played_by: Ints,
    conf: Ints,
    states: Ints,
    table_keys: Words,
    table_values: Ints,
    table_stamps: Ints,
    words: npt.NDArray[np.uint32],
    index: Ints,
    saved: Ints,
    saved_hashes: Words,
    saved_piles: Cards,
    saved_words: npt.NDArray[np.uint32],
    seat: Int,
    at: Int,
) -> bool:
    """``Game.play(seat, at)``; False (nothing changes) when the engine would refuse it. A
    card played closes an open tie window first (and any timer due by then fires); if the
    play is then refused, all of that is undone, as ``Game._act`` restores its snapshot."""
    if game[G_TIE] == 0:
        return _play_card(game, seats, hand_log, hashes, piles, played_by, conf, states, table_keys,
                          table_values, table_stamps, seat, at)
    _save(game, seats, hashes, piles, played_by, words, index, saved, saved_hashes, saved_piles, saved_words)
    game[G_NOW] = at
    close_tie(game, seats, hand_log, hashes, piles, conf, states, table_keys, table_values, table_stamps,
              words, index)
    fire_timers(game, seats, hand_log, hashes, piles, conf, states, table_keys, table_values, table_stamps,
                words, index, at)
    game[G_NOW] = at
    if not game[G_OVER] and _play_card(game, seats, hand_log, hashes, piles, played_by, conf, states,
                                       table_keys, table_values, table_stamps, seat, at):
        return True
    _restore(game, seats, hashes, piles, played_by, words, index, table_stamps, saved, saved_hashes,
             saved_piles, saved_words)
    return False


# ============================================================================ 3. bots and the clock

MAX_KERNEL_PLAYERS = 16
_INF = math.inf

# Columns of the per-seat profile array.
P_MU = 0
P_SIGMA = 1
P_TAU = 2
P_FLINCH = 3
P_PACE_MEAN = 4
P_PACE_SD = 5
P_MEMORY = 6  # cards remembered (0: the bot does not count)
P_ANTICIPATION = 7
P_SPAM = 8
P_SIZE = 9

# Columns of a counting bot's row in ``mem`` (then, per seat, a cursor and the hand's tail).
MEM_KNOWN = 0  # cards remembered now (CardMemory.known)
MEM_ORDER = 1  # cards learned so far: the order stamp of the next one
MEM_EXPECT_SEAT = 2  # the seat whose top card it remembers as the next card played, or NONE
MEM_EXPECT_POS = 3  # ... and that card's hand-log position
MEM_CURSOR = 4  # per seat: no card of that hand before this log position is remembered

MIN_ANTICIPATION = 20.0  # ratscrew.bots.decision.MIN_ANTICIPATION_MS, checked in kernel_limits
RECOGNITION_COST = 170.0  # ratscrew.bots.decision.RECOGNITION_COST_MS, checked in kernel_limits

# Columns of a game's result row (then slaps won per seat, then misslaps per seat).
O_WINNER = 0
O_REASON = 1
O_CARDS = 2
O_TRICKS = 3
O_DURATION = 4
O_SEATS = 5

REACTION_FLOOR = 100.0  # ratscrew.bots.profile.ANTICIPATION_FLOOR_MS, checked in kernel_limits
PACE_FLOOR = 150.0  # ratscrew.bots.profile.MIN_PACE_MS


# ----------------------------------------------------------------------------- compiled driver


@compiled(inline=True)
def _reaction(
    words: npt.NDArray[np.uint32],
    index: npt.NDArray[np.int64],
    cached: npt.NDArray[np.float64],
    row: Int,
    numbers: npt.NDArray[np.float64],
    seat: Int,
) -> float:
    """``reference.draw_reaction``."""
    sigma = numbers[seat, P_SIGMA]
    tau = numbers[seat, P_TAU]
    if sigma > 0:
        value = next_gauss(words, index, cached, row, numbers[seat, P_MU], sigma)
    else:
        value = numbers[seat, P_MU]
    if tau > 0:
        value += next_exponential(words, index, row, 1.0 / tau)
    return max(REACTION_FLOOR, value)


@compiled()
def _follow_moves(
    game: npt.NDArray[np.int64],
    numbers: npt.NDArray[np.float64],
    mem: npt.NDArray[np.int64],
    known: npt.NDArray[np.int64],
    bot: Int,
    players: Int,
) -> None:
    """``CardMemory.take`` and ``CardMemory.collect`` for the hand moves of the last action,
    in their order. What the bot remembers of a hand lies along that hand's log: ``known[bot,
    seat, position]`` is the order in which it learned the card there (0: not known). A card
    leaving a hand is forgotten; a collected pile is learned card by card, and past the
    capacity the card learned longest ago that is still in a hand is forgotten (per hand that
    is the first remembered position, as positions are learned in order, so a cursor per hand
    finds it). Hands change only through these moves, so the memory never goes out of step
    (``CardMemory.resync`` never fires) and what it remembers is always right."""
    capacity = np.int64(numbers[bot, P_MEMORY])
    tails = MEM_CURSOR + players
    for row in range(game[M_COUNT]):
        base = M_LOG + 4 * row
        seat = game[base]
        start = game[base + 2]
        count = game[base + 3]
        if game[base + 1] == 0:
            for position in range(start, start + count):
                if known[bot, seat, position] != 0:
                    known[bot, seat, position] = 0
                    mem[bot, MEM_KNOWN] -= 1
            continue
        for position in range(start, start + count):
            mem[bot, MEM_ORDER] += 1
            known[bot, seat, position] = mem[bot, MEM_ORDER]
            mem[bot, MEM_KNOWN] += 1
        mem[bot, tails + seat] = start + count
        while mem[bot, MEM_KNOWN] > capacity:
            oldest_seat: Int = np.int64(NONE)
            oldest_order: Int = np.int64(0)
            for other in range(players):
                position = mem[bot, MEM_CURSOR + other]
                tail = mem[bot, tails + other]
                while position < tail and known[bot, other, position] == 0:
                    position += 1
                mem[bot, MEM_CURSOR + other] = position
                if position < tail and (oldest_seat == NONE or known[bot, other, position] < oldest_order):
                    oldest_seat = other
                    oldest_order = known[bot, other, position]
            position = mem[bot, MEM_CURSOR + oldest_seat]
            known[bot, oldest_seat, position] = 0
            mem[bot, MEM_CURSOR + oldest_seat] = position + 1
            mem[bot, MEM_KNOWN] -= 1


@compiled(inline=True)
def _update_plans(
    game: npt.NDArray[np.int64],
    seats: npt.NDArray[np.int64],
    piles: npt.NDArray[np.uint8],
    conf: npt.NDArray[np.int64],
    numbers: npt.NDArray[np.float64],
    misses: npt.NDArray[np.float64],
    words: npt.NDArray[np.uint32],
    index: npt.NDArray[np.int64],
    cached: npt.NDArray[np.float64],
    slap_at: npt.NDArray[np.float64],
    slap_claims: npt.NDArray[np.int64],
    play_at: npt.NDArray[np.float64],
    mem: npt.NDArray[np.int64],
    known: npt.NDArray[np.int64],
    seat: Int,
    with_events: Int,
) -> None:
    """``reference._update_plans`` for one seat (steps 1-6 of its docstring)."""
    row = seat + 1
    pile_changed = False
    pile_won = False
    shown = False
    counting = numbers[seat, P_MEMORY] > 0
    if with_events:
        if game[E_PLAYER] == seat:
            play_at[seat] = _INF
        if (game[E_SLAPPERS] >> seat) & 1:
            slap_at[seat] = _INF
        pile_won = game[E_PILE_WON] == 1
        pile_changed = pile_won or game[E_PLAYER] != NONE
        shown = game[E_SHOWN] == 1
        if counting:
            _follow_moves(game, numbers, mem, known, seat, conf[R_PLAYERS])
    may_slap = status_may_slap(game, seats, conf, seat)
    if pile_changed:
        slap_at[seat] = _INF
    # Up to two slaps are decided here, each with its own random draws, in this order: one for
    # the card shown (REACT: a reaction; BLIND: a simple reaction; FORESEEN: an anticipation),
    # then a claim (which replaces it).
    card_base = -1
    card_kind = _REACT
    claim_base = -1
    claim_is_own = 0
    if shown and may_slap:
        pattern = game[G_PATTERN]
        foreseen = counting and mem[seat, MEM_EXPECT_SEAT] == game[E_PLAYER] and (
            mem[seat, MEM_EXPECT_POS] == game[E_SHOWN_POS])
        spam = numbers[seat, P_SPAM]
        if spam > 0 and not foreseen and next_random(words, index, row) < spam:
            card_base = game[E_SHOWN_AT]
            card_kind = _BLIND
        elif foreseen and pattern != NONE:
            card_base = game[E_SHOWN_AT]
            card_kind = _FORESEEN
        elif pattern != NONE:
            if next_random(words, index, row) >= misses[seat, pattern]:
                card_base = game[E_SHOWN_AT]
        elif not foreseen and near_pattern(game, piles):
            flinch = numbers[seat, P_FLINCH]
            if flinch > 0 and next_random(words, index, row) < flinch:
                card_base = game[E_SHOWN_AT]
    if with_events:
        if game[E_CLAIMER] == seat:
            claim_base = game[E_CLAIMER_AT]
            claim_is_own = 1
        elif game[E_OPENED] == 1 and slap_at[seat] == _INF and card_base < 0 and may_slap:
            claim_base = game[E_OPENED_AT]
    if card_base >= 0:
        if card_kind == _FORESEEN:
            anticipation = numbers[seat, P_ANTICIPATION]
            drawn = next_gauss(words, index, cached, row, anticipation, anticipation / 4)
            delay = max(MIN_ANTICIPATION, drawn)
        elif card_kind == _BLIND:
            reaction = _reaction(words, index, cached, row, numbers, seat)
            delay = max(REACTION_FLOOR, reaction - RECOGNITION_COST)
        else:
            delay = _reaction(words, index, cached, row, numbers, seat)
        slap_at[seat] = card_base + delay
        slap_claims[seat] = 0
    if claim_base >= 0:
        slap_at[seat] = claim_base + _reaction(words, index, cached, row, numbers, seat)
        slap_claims[seat] = claim_is_own
    if not may_slap and not (slap_at[seat] != _INF and slap_claims[seat] == 1):
        slap_at[seat] = _INF
    turn = game[G_TURN]
    if turn != seat:
        play_at[seat] = _INF
    elif play_at[seat] == _INF or pile_won:
        sd = numbers[seat, P_PACE_SD]
        if sd > 0:
            pace = next_gauss(words, index, cached, row, numbers[seat, P_PACE_MEAN], sd)
        else:
            pace = numbers[seat, P_PACE_MEAN]
        play_at[seat] = game[G_NOW] + max(PACE_FLOOR, pace)
    if counting:
        mem[seat, MEM_EXPECT_SEAT] = NONE
        if turn != NONE and mem[seat, MEM_KNOWN] > 0 and hand_size(seats, turn) > 0:
            top = seats[turn, S_HEAD]
            if known[seat, turn, top] != 0:
                mem[seat, MEM_EXPECT_SEAT] = turn
                mem[seat, MEM_EXPECT_POS] = top


_REACT = 0
_BLIND = 1
_FORESEEN = 2


@compiled(inline=True)
def _clamp(
    slap_at: npt.NDArray[np.float64], play_at: npt.NDArray[np.float64], seat: Int, floor: float
) -> None:
    if slap_at[seat] < floor:
        slap_at[seat] = floor
    if play_at[seat] < floor:
        play_at[seat] = floor


@compiled(inline=True)
def _reset_events(game: npt.NDArray[np.int64]) -> None:
    game[E_COUNT] = 0
    game[E_SHOWN] = 0
    game[E_PLAYER] = NONE
    game[E_PILE_WON] = 0
    game[E_CLAIMER] = NONE
    game[E_OPENED] = 0
    game[E_SLAPPERS] = 0
    game[M_COUNT] = 0


@compiled()
def _choose_leader(
    seats: npt.NDArray[np.int64], hand_log: npt.NDArray[np.uint8], players: Int, tied: npt.NDArray[np.int64]
) -> Int:
    """``engine.choose_leader`` for the highest-bottom-card rule (every seat holds cards);
    ``tied`` is scratch space for one flag per seat."""
    for seat in range(players):
        tied[seat] = 1
    count = players
    depth = 1
    while count > 1:
        best: Int = -1
        for seat in range(players):
            if tied[seat] and hand_size(seats, seat) >= depth:
                best = max(best, np.int64(hand_log[seat, seats[seat, S_TAIL] - depth]))
        if best < 0:
            break
        count = 0
        for seat in range(players):
            if tied[seat]:
                if hand_size(seats, seat) >= depth and hand_log[seat, seats[seat, S_TAIL] - depth] == best:
                    count += 1
                else:
                    tied[seat] = 0
        depth += 1
    for seat in range(players):
        if tied[seat]:
            return seat
    return 0


@compiled()
def _start_game(
    seed: np.uint64,
    generation: Int,
    players: Int,
    conf: npt.NDArray[np.int64],
    game: npt.NDArray[np.int64],
    seats: npt.NDArray[np.int64],
    hand_log: npt.NDArray[np.uint8],
    hashes: npt.NDArray[np.uint64],
    states: npt.NDArray[np.int64],
    table_keys: npt.NDArray[np.uint64],
    table_values: npt.NDArray[np.int64],
    table_stamps: npt.NDArray[np.int64],
    words: npt.NDArray[np.uint32],
    index: npt.NDArray[np.int64],
    key: npt.NDArray[np.uint64],
    deck: npt.NDArray[np.uint8],
    scratch: npt.NDArray[np.int64],
    slap_at: npt.NDArray[np.float64],
    slap_claims: npt.NDArray[np.int64],
    play_at: npt.NDArray[np.float64],
    clock: npt.NDArray[np.float64],
    dealt: npt.NDArray[np.uint8],
    dealt_sizes: npt.NDArray[np.int64],
    numbers: npt.NDArray[np.float64],
    mem: npt.NDArray[np.int64],
    known: npt.NDArray[np.int64],
) -> None:
    """Deal as ``Game.deal(rules, players, seed)`` (or, when ``dealt_sizes[0] >= 0``, the
    hands ``dealt[seat, :dealt_sizes[seat]]``), seed every bot's generator and reset the
    engine and driver state for a new game."""
    deck_size = conf[R_TOTAL]
    if dealt_sizes[0] < 0:
        position = 0
        for _suit in range(4):
            for rank in range(2, 15):
                deck[position] = rank
                position += 1
        if deck_size == 54:
            deck[52] = 15
            deck[53] = 15
        seed_uint64(words, index, np.int64(0), seed, np.uint64(0), key)
        shuffle_ranks(words, index, np.int64(0), deck, deck_size)
    for i in range(G_SIZE):
        game[i] = 0
    for seat in range(players):
        for i in range(S_SIZE):
            seats[seat, i] = 0
        hashes[seat, H_SUM] = 0
        hashes[seat, H_HEAD_POWER] = 1
        hashes[seat, H_HEAD_INVERSE] = 1
        hashes[seat, H_TAIL_POWER] = 1
    if dealt_sizes[0] < 0:
        for i in range(deck_size):
            push_bottom(seats, hand_log, hashes, conf, i % players, np.int64(deck[i]))
    else:
        for seat in range(players):
            for i in range(dealt_sizes[seat]):
                push_bottom(seats, hand_log, hashes, conf, seat, np.int64(dealt[seat, i]))
    leader: Int = 0
    if conf[R_HIGHEST_BOTTOM_LEADS]:
        leader = _choose_leader(seats, hand_log, players, scratch)
    game[G_TURN] = leader
    game[G_PATTERN] = NONE
    game[G_LAST_WIN_CARDS] = NONE
    game[G_LAST_CHANCE] = NONE
    game[G_BURN_START] = 64
    game[G_BURN_END] = 64
    game[G_GENERATION] = generation
    game[G_VOID_TOP] = NONE
    # The game's own generator (random ties) is random.Random(seed), as Game.deal seeds it.
    seed_uint64(words, index, np.int64(0), seed, np.uint64(0), key)
    remember_state(
        game, seats, hand_log, hashes, conf, states, table_keys, table_values, table_stamps, players
    )
    # The bots: random.Random(seed * 16 + seat + 1) each.
    for seat in range(players):
        seed_uint64(
            words, index, seat + 1, (seed << np.uint64(4)) + np.uint64(seat + 1), seed >> np.uint64(60), key
        )
        slap_at[seat] = _INF
        slap_claims[seat] = 0
        play_at[seat] = _INF
        if numbers[seat, P_MEMORY] > 0:  # a new CardMemory: nothing known of the dealt hands
            for i in range(mem.shape[1]):
                mem[seat, i] = 0
            mem[seat, MEM_EXPECT_SEAT] = NONE
            for other in range(players):
                mem[seat, MEM_CURSOR + players + other] = seats[other, S_TAIL]
                for position in range(seats[other, S_TAIL]):
                    known[seat, other, position] = 0
    clock[0] = 0.0
    game[D_UPDATE_FIRST] = 0
    game[D_UPDATE_LAST] = players
    game[D_WITH_EVENTS] = 0
    game[D_REJECTIONS] = 0
    _reset_events(game)


@compiled(inline=True)
def _needs_room(
    game: npt.NDArray[np.int64],
    seats: npt.NDArray[np.int64],
    hand_log: npt.NDArray[np.uint8],
    states: npt.NDArray[np.int64],
    table_keys: npt.NDArray[np.uint64],
    players: Int,
    deck_size: Int,
) -> bool:
    """Whether :func:`_make_room` must grow something before the next action."""
    for seat in range(players):
        if seats[seat, S_TAIL] + 2 * deck_size + 8 > hand_log.shape[1]:
            return True
    return game[G_STATES] + 8 > states.shape[0] or 2 * (game[G_TABLE_USED] + 8) > table_keys.shape[0]


NEEDS_ROOM = 1
GAME_DONE = 0


@compiled()
def _play_game(
    players: Int,
    conf: npt.NDArray[np.int64],
    numbers: npt.NDArray[np.float64],
    misses: npt.NDArray[np.float64],
    game: npt.NDArray[np.int64],
    seats: npt.NDArray[np.int64],
    hand_log: npt.NDArray[np.uint8],
    hashes: npt.NDArray[np.uint64],
    piles: npt.NDArray[np.uint8],
    played_by: npt.NDArray[np.int64],
    states: npt.NDArray[np.int64],
    table_keys: npt.NDArray[np.uint64],
    table_values: npt.NDArray[np.int64],
    table_stamps: npt.NDArray[np.int64],
    words: npt.NDArray[np.uint32],
    index: npt.NDArray[np.int64],
    cached: npt.NDArray[np.float64],
    slap_at: npt.NDArray[np.float64],
    slap_claims: npt.NDArray[np.int64],
    play_at: npt.NDArray[np.float64],
    clock: npt.NDArray[np.float64],
    max_cards: Int,
    max_rejections: Int,
    traced: bool,
    trace: npt.NDArray[np.int64],
    mem: npt.NDArray[np.int64],
    known: npt.NDArray[np.int64],
    saved: npt.NDArray[np.int64],
    saved_hashes: npt.NDArray[np.uint64],
    saved_piles: npt.NDArray[np.uint8],
    saved_words: npt.NDArray[np.uint32],
) -> Int:
    """The virtual-clock loop of ``run_reference_game`` from wherever the game stands, until
    it stops (``GAME_DONE``) or an action might not fit the arrays (``NEEDS_ROOM``: grow them
    with :func:`_make_room` and call again to go on)."""
    deck_size = conf[R_TOTAL]
    while True:
        if _needs_room(game, seats, hand_log, states, table_keys, players, deck_size):
            return NEEDS_ROOM
        # Every seat (or the one refused) updates its plans after what just happened.
        floor = max(float(game[G_NOW]), clock[0])
        for seat in range(game[D_UPDATE_FIRST], game[D_UPDATE_LAST]):
            _update_plans(
                game,
                seats,
                piles,
                conf,
                numbers,
                misses,
                words,
                index,
                cached,
                slap_at,
                slap_claims,
                play_at,
                mem,
                known,
                seat,
                game[D_WITH_EVENTS],
            )
            _clamp(slap_at, play_at, seat, floor)
        game[D_UPDATE_LAST] = 0
        if game[G_OVER]:
            return GAME_DONE
        best_at = 0.0
        best_seat: Int = np.int64(-1)
        best_is_slap = False
        for seat in range(players):
            if slap_at[seat] != _INF and slap_at[seat] <= play_at[seat]:
                at_f = slap_at[seat]
                is_slap = True
            elif play_at[seat] != _INF:
                at_f = play_at[seat]
                is_slap = False
            else:
                continue
            if best_seat < 0 or at_f < best_at:
                best_at = at_f
                best_seat = seat
                best_is_slap = is_slap
        deadline = next_timer(game)
        if deadline == NONE and best_seat < 0:
            return GAME_DONE
        if game[G_CARDS] >= max_cards:
            return GAME_DONE
        _reset_events(game)
        game[D_UPDATE_FIRST] = 0
        game[D_UPDATE_LAST] = players
        game[D_WITH_EVENTS] = 1
        row = trace[0, 0] + 1
        if deadline != NONE and (best_seat < 0 or deadline <= best_at):
            if traced and row < trace.shape[0]:
                trace[row, 0] = 2
                trace[row, 1] = NONE
                trace[row, 2] = deadline
                trace[0, 0] = row
            clock[0] = max(clock[0], float(deadline))
            advance(
                game,
                seats,
                hand_log,
                hashes,
                piles,
                conf,
                states,
                table_keys,
                table_values,
                table_stamps,
                words,
                index,
                deadline,
            )
        else:
            clock[0] = max(clock[0], best_at)
            if best_is_slap:
                slap_at[best_seat] = _INF
            else:
                play_at[best_seat] = _INF
            at = max(np.int64(best_at), game[G_NOW])
            if best_is_slap:
                done = slap(
                    game,
                    seats,
                    hand_log,
                    hashes,
                    piles,
                    played_by,
                    conf,
                    states,
                    table_keys,
                    table_values,
                    table_stamps,
                    best_seat,
                    at,
                )
            else:
                done = play(
                    game,
                    seats,
                    hand_log,
                    hashes,
                    piles,
                    played_by,
                    conf,
                    states,
                    table_keys,
                    table_values,
                    table_stamps,
                    words,
                    index,
                    saved,
                    saved_hashes,
                    saved_piles,
                    saved_words,
                    best_seat,
                    at,
                )
            if not done:
                # Refused: only this seat re-plans, as if told of no events.
                game[D_REJECTIONS] += 1
                game[D_UPDATE_FIRST] = best_seat
                game[D_UPDATE_LAST] = best_seat + 1
                game[D_WITH_EVENTS] = 0
                if game[D_REJECTIONS] >= max_rejections:
                    return GAME_DONE
                continue
            game[D_REJECTIONS] = 0
            if traced and row < trace.shape[0]:
                trace[row, 0] = 1 if best_is_slap else 0
                trace[row, 1] = best_seat
                trace[row, 2] = at
                trace[0, 0] = row
        if game[E_COUNT] == 0:
            game[D_UPDATE_LAST] = 0


@compiled(allocates=True)
def _make_room(
    game: npt.NDArray[np.int64],
    seats: npt.NDArray[np.int64],
    hand_log: npt.NDArray[np.uint8],
    states: npt.NDArray[np.int64],
    table_keys: npt.NDArray[np.uint64],
    table_values: npt.NDArray[np.int64],
    table_stamps: npt.NDArray[np.int64],
    players: Int,
    deck_size: Int,
) -> tuple[
    npt.NDArray[np.uint8],
    npt.NDArray[np.int64],
    npt.NDArray[np.uint64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
]:
    """Grow the hand logs, the stored states and the hash table (rehashing this game's
    entries) so that one more action fits."""
    capacity = hand_log.shape[1]
    longest = 0
    for seat in range(players):
        longest = max(longest, seats[seat, S_TAIL])
    if longest + 2 * deck_size + 8 > capacity:
        grown = np.zeros((players, 2 * capacity), dtype=np.uint8)
        for seat in range(players):
            for i in range(capacity):
                grown[seat, i] = hand_log[seat, i]
        hand_log = grown
    rows = states.shape[0]
    if game[G_STATES] + 8 > rows:
        more = np.zeros((2 * rows, states.shape[1]), dtype=np.int64)
        for row in range(rows):
            for column in range(states.shape[1]):
                more[row, column] = states[row, column]
        states = more
    if 2 * (game[G_TABLE_USED] + 8) > table_keys.shape[0]:
        generation = game[G_GENERATION]
        size = 2 * table_keys.shape[0]
        new_keys = np.zeros(size, dtype=np.uint64)
        new_values = np.zeros(size, dtype=np.int64)
        new_stamps = np.zeros(size, dtype=np.int64)
        mask = size - 1
        for slot in range(table_keys.shape[0]):
            if table_stamps[slot] == generation:
                target = np.int64(table_keys[slot] & np.uint64(mask))
                while new_stamps[target] == generation:
                    target = (target + 1) & mask
                new_stamps[target] = generation
                new_keys[target] = table_keys[slot]
                new_values[target] = table_values[slot]
        table_keys = new_keys
        table_values = new_values
        table_stamps = new_stamps
    return hand_log, states, table_keys, table_values, table_stamps


@compiled(allocates=True)
def _grow_memory(known: npt.NDArray[np.int64], width: Int) -> npt.NDArray[np.int64]:
    """The counting bots' memory, as long as the grown hand logs."""
    grown = np.zeros((known.shape[0], known.shape[1], width), dtype=np.int64)
    grown[:, :, : known.shape[2]] = known
    return grown


@compiled(allocates=True)
def run_games(
    seeds: npt.NDArray[np.uint64],
    players: Int,
    conf: npt.NDArray[np.int64],
    numbers: npt.NDArray[np.float64],
    misses: npt.NDArray[np.float64],
    max_cards: Int,
    max_rejections: Int,
    out: npt.NDArray[np.int64],
    trace_game: Int,
    trace: npt.NDArray[np.int64],
    dealt: npt.NDArray[np.uint8],
    dealt_sizes: npt.NDArray[np.int64],
) -> None:
    """Play every seed (each dealt as ``Game.deal`` does, or all with the hands ``dealt``: see
    :func:`_start_game`); ``out[g]`` gets game ``g``'s result row. The accepted actions of game
    ``trace_game`` (kind 0 play, 1 slap, 2 advance; seat; time) go to ``trace[1:]``, their
    count to ``trace[0, 0]``, as far as ``trace`` has room. This function allocates; the
    game itself runs in :func:`_play_game`, which never does (so it needs no reference
    counting)."""
    deck_size = conf[R_TOTAL]
    game = np.zeros(G_SIZE, dtype=np.int64)
    seats = np.zeros((players, S_SIZE), dtype=np.int64)
    hand_log = np.zeros((players, 1024), dtype=np.uint8)
    hashes = np.zeros((players, 4), dtype=np.uint64)
    piles = np.zeros((3, 128), dtype=np.uint8)
    played_by = np.zeros(64, dtype=np.int64)
    states = np.zeros((512, ST_SEATS + 2 * players), dtype=np.int64)
    table_keys = np.zeros(1024, dtype=np.uint64)
    table_values = np.zeros(1024, dtype=np.int64)
    table_stamps = np.zeros(1024, dtype=np.int64)
    words = np.zeros((players + 1, 624), dtype=np.uint32)
    index = np.zeros((players + 1, 2), dtype=np.int64)
    cached = np.zeros(players + 1, dtype=np.float64)
    key = np.zeros(4, dtype=np.uint64)
    deck = np.zeros(64, dtype=np.uint8)
    scratch = np.zeros(players, dtype=np.int64)
    slap_at = np.empty(players, dtype=np.float64)
    slap_claims = np.zeros(players, dtype=np.int64)
    play_at = np.empty(players, dtype=np.float64)
    clock = np.zeros(1, dtype=np.float64)
    counting = conf[R_COUNTING] != 0
    mem = np.zeros((players, MEM_CURSOR + 2 * players), dtype=np.int64)
    known = np.zeros((players, players, hand_log.shape[1] if counting else 1), dtype=np.int64)
    saved = np.zeros(G_SIZE + players * S_SIZE + played_by.shape[0] + 2, dtype=np.int64)
    saved_hashes = np.zeros((players, 4), dtype=np.uint64)
    saved_piles = np.zeros((3, 128), dtype=np.uint8)
    saved_words = np.zeros(624, dtype=np.uint32)
    for g in range(seeds.shape[0]):
        _start_game(
            seeds[g],
            g + 1,
            players,
            conf,
            game,
            seats,
            hand_log,
            hashes,
            states,
            table_keys,
            table_values,
            table_stamps,
            words,
            index,
            key,
            deck,
            scratch,
            slap_at,
            slap_claims,
            play_at,
            clock,
            dealt,
            dealt_sizes,
            numbers,
            mem,
            known,
        )
        while (
            _play_game(
                players,
                conf,
                numbers,
                misses,
                game,
                seats,
                hand_log,
                hashes,
                piles,
                played_by,
                states,
                table_keys,
                table_values,
                table_stamps,
                words,
                index,
                cached,
                slap_at,
                slap_claims,
                play_at,
                clock,
                max_cards,
                max_rejections,
                g == trace_game,
                trace,
                mem,
                known,
                saved,
                saved_hashes,
                saved_piles,
                saved_words,
            )
            == NEEDS_ROOM
        ):
            hand_log, states, table_keys, table_values, table_stamps = _make_room(
                game, seats, hand_log, states, table_keys, table_values, table_stamps, players, deck_size
            )
            if counting and known.shape[2] < hand_log.shape[1]:
                known = _grow_memory(known, hand_log.shape[1])
        out[g, O_WINNER] = game[G_WINNER] if game[G_OVER] else NONE
        out[g, O_REASON] = game[G_REASON] if game[G_OVER] else 0
        out[g, O_CARDS] = game[G_CARDS]
        out[g, O_TRICKS] = game[G_TRICKS]
        out[g, O_DURATION] = game[G_NOW]
        for seat in range(players):
            out[g, O_SEATS + seat] = seats[seat, S_SLAPS_WON]
            out[g, O_SEATS + players + seat] = seats[seat, S_MISSLAPS]
