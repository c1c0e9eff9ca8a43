"""Cards, ranks, suits, decks and the compact card notation used everywhere in ratscrew.

Notation: a rank (``2``-``9``, ``T`` or ``10``, ``J``, ``Q``, ``K``, ``A``) followed by a suit
(``C``, ``D``, ``H``, ``S``); ``JK`` is a joker. ``str(card)`` gives the canonical form back.

>>> Card.parse("7H")
Card(rank=<Rank.SEVEN: 7>, suit=<Suit.HEARTS: 'H'>)
>>> str(Card.parse("10d"))
'TD'
>>> [str(c) for c in parse_cards("7H 3C JK")]
['7H', '3C', 'JK']
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum, IntEnum


class CardNotationError(ValueError):
    """A token is not valid card notation; the message names the bad token."""


class Rank(IntEnum):
    """Card ranks. Aces are high (14); the joker ranks above them."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14
    JOKER = 15

    @property
    def symbol(self) -> str:
        """The one- or two-letter notation of the rank (``T`` for ten, ``JK`` for the joker)."""
        return _RANK_SYMBOLS[self]

    @property
    def is_face(self) -> bool:
        """Jacks, queens, kings, aces and jokers: the cards that can start a challenge."""
        return self >= Rank.JACK

    @property
    def number_value(self) -> int | None:
        """The value of a number card for sums (ace counts 1); ``None`` for J, Q, K and jokers.

        >>> Rank.ACE.number_value, Rank.SEVEN.number_value, Rank.KING.number_value
        (1, 7, None)
        """
        if self == Rank.ACE:
            return 1
        if self <= Rank.TEN:
            return int(self)
        return None


class Suit(Enum):
    """The four suits, by their notation letter."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def symbol(self) -> str:
        """The unicode suit symbol."""
        return _SUIT_SYMBOLS[self]

    @property
    def is_red(self) -> bool:
        """Hearts and diamonds are red."""
        return self in (Suit.HEARTS, Suit.DIAMONDS)


_JOKER = Rank.JOKER
"""`Card.is_joker` compares with this rather than look up ``Rank.JOKER`` on every call: in
Python 3.11 an enum member's lookup costs as much as the rest of the property."""

_RANK_SYMBOLS = {r: (str(int(r)) if r <= Rank.NINE else "") for r in Rank}
_RANK_SYMBOLS.update({Rank.TEN: "T", Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K",
                      Rank.ACE: "A", Rank.JOKER: "JK"})
_RANKS_BY_SYMBOL = {symbol: rank for rank, symbol in _RANK_SYMBOLS.items() if rank != Rank.JOKER}
_RANKS_BY_SYMBOL["10"] = Rank.TEN
_SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card. A joker has ``suit is None``.

    >>> Card(Rank.QUEEN, Suit.SPADES).is_face
    True
    >>> Card.joker().is_joker
    True
    """

    rank: Rank
    suit: Suit | None
    _notation: str = field(init=False, repr=False, compare=False, hash=False)
    """``str(card)``, worked out once: views, bots and the server write cards all the time."""

    def __post_init__(self) -> None:
        notation = "JK" if self.suit is None else self.rank.symbol + self.suit.value
        object.__setattr__(self, "_notation", notation)

    @classmethod
    def parse(cls, token: str) -> Card:
        """Read one card from notation such as ``"7H"``, ``"10D"``, ``"td"`` or ``"JK"``.

        >>> Card.parse("qs").rank
        <Rank.QUEEN: 12>
        >>> try:
        ...     Card.parse("1X")
        ... except CardNotationError as error:
        ...     print(str(error).split(":")[0])
        bad card '1X'
        """
        text = token.strip().upper()
        if text == "JK":
            return cls(Rank.JOKER, None)
        rank = _RANKS_BY_SYMBOL.get(text[:-1])
        suit = next((s for s in Suit if s.value == text[-1:]), None) if text else None
        if rank is None or suit is None:
            raise CardNotationError(
                f"bad card {token!r}: expected a rank 2-9, T (or 10), J, Q, K, A followed by "
                "a suit C, D, H, S, or JK for a joker"
            )
        return cls(rank, suit)

    @classmethod
    def joker(cls) -> Card:
        """A joker."""
        return cls(Rank.JOKER, None)

    @property
    def is_joker(self) -> bool:
        """True for a joker."""
        return self.rank == _JOKER

    @property
    def is_face(self) -> bool:
        """True for J, Q, K, A and jokers."""
        return self.rank.is_face

    @property
    def is_red(self) -> bool:
        """True for hearts and diamonds (jokers count as black)."""
        return self.suit is not None and self.suit.is_red

    def __str__(self) -> str:
        return self._notation

    def __hash__(self) -> int:
        """The notation's hash: equal cards have equal notation, and hashing one string is
        several times cheaper than the rank and suit enums (decks are counted all the time).

        >>> len({Card.parse("7H"), Card.parse("7h"), Card.parse("JK"), Card.joker()})
        2
        """
        return hash(self._notation)

    def pretty(self) -> str:
        """A human label with the suit symbol: ``"7♥"``, ``"10♠"``, ``"🃏"``.

        >>> Card.parse("TH").pretty()
        '10♥'
        """
        if self.suit is None:
            return "🃏"
        rank = "10" if self.rank == Rank.TEN else self.rank.symbol
        return rank + self.suit.symbol

    def coloured(self) -> str:
        """The :meth:`pretty` label wrapped in ANSI colour (red suits red) for terminals."""
        colour = "\033[31m" if self.is_red else "\033[1m"
        return f"{colour}{self.pretty()}\033[0m"


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Read cards written as space- or comma-separated notation, in the order given.

    >>> [str(c) for c in parse_cards("7h, 10C qs")]
    ['7H', 'TC', 'QS']
    >>> parse_cards("")
    []
    """
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [Card.parse(token) for token in tokens]


def format_cards(cards: Iterable[Card]) -> str:
    """Write cards back as space-separated notation.

    >>> format_cards(parse_cards("7H 3C"))
    '7H 3C'
    """
    return " ".join(map(str, cards))


def standard_deck(jokers: bool = False) -> list[Card]:
    """A new deck in a fixed order: 52 cards, plus two jokers when ``jokers`` is true.

    >>> len(standard_deck()), len(standard_deck(jokers=True))
    (52, 54)
    """
    return list(_DECK_WITH_JOKERS if jokers else _DECK)


# Cards are immutable values, so every deck can hold the same card objects: a game's deal no
# longer builds its 52 cards anew (a fifth of the time Game.deal took).
_DECK = tuple(Card(rank, suit) for suit in Suit for rank in Rank if rank != Rank.JOKER)
_DECK_WITH_JOKERS = (*_DECK, Card.joker(), Card.joker())


def shuffled_deck(seed: int, jokers: bool = False) -> list[Card]:
    """A deck shuffled by ``random.Random(seed)``: the same seed always gives the same order."""
    deck = standard_deck(jokers)
    random.Random(seed).shuffle(deck)
    return deck
