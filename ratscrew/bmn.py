"""Beggar-my-neighbour deals in record notation, played on the real engine.

Record notation (used for the famous long deals): one string per hand, ``-`` for a number card
and ``J Q K A`` for face cards, top card first; hand 1 leads. Cards are counted as cards played
until one player holds every card; the loser's last failed payment counts as a trick.

>>> result = play_bmn("-J-------------------------", "--------------------------")
Traceback (most recent call last):
...
ratscrew.bmn.BmnDealError: hand 1 has 27 cards; each hand needs 26
"""

from __future__ import annotations

from dataclasses import dataclass

from ratscrew.cards import Card, Rank, Suit
from ratscrew.engine import Game
from ratscrew.ruleset import Ruleset


class BmnDealError(ValueError):
    """A deal string is not valid record notation."""


FACE_LETTERS = {"J": Rank.JACK, "Q": Rank.QUEEN, "K": Rank.KING, "A": Rank.ACE}


@dataclass(frozen=True)
class BmnResult:
    """How a deal ended: cards played, tricks (piles won), the winning hand (1 or 2, or
    ``None`` for a cycle) and whether it cycles."""

    cards: int
    tricks: int
    winner: int | None
    cycle: bool

    def to_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {"cards": self.cards, "tricks": self.tricks, "winner": self.winner,
                "cycle": self.cycle}


def parse_deal(hand1: str, hand2: str) -> list[list[Card]]:
    """Turn two record-notation strings into concrete hands: number cards become distinct
    cards 2-10, face cards get suits in turn (suits never matter without slaps).

    >>> [str(c) for c in parse_deal("J" + "-" * 25, "-" * 11 + "JJJQQQQKKKKAAAA")[0][:2]]
    ['JC', '2C']
    """
    numbers = iter(Card(rank, suit) for suit in Suit for rank in Rank if rank <= Rank.TEN)
    faces = {rank: iter([Card(rank, suit) for suit in Suit]) for rank in FACE_LETTERS.values()}
    hands: list[list[Card]] = []
    for number, text in enumerate((hand1, hand2), start=1):
        text = text.strip().upper()
        if len(text) != 26:
            raise BmnDealError(f"hand {number} has {len(text)} cards; each hand needs 26")
        hand: list[Card] = []
        for position, letter in enumerate(text, start=1):
            if letter == "-":
                card = next(numbers, None)
            elif letter in FACE_LETTERS:
                card = next(faces[FACE_LETTERS[letter]], None)
            else:
                raise BmnDealError(
                    f"hand {number}, card {position}: {letter!r} is not '-', J, Q, K or A")
            if card is None:
                raise BmnDealError(f"hand {number}, card {position}: too many {letter!r} cards "
                                   "in the deal (a deck has 36 number cards and 4 of each face)")
            hand.append(card)
        hands.append(hand)
    return hands


def play_bmn(hand1: str, hand2: str) -> BmnResult:
    """Play a deal to the end (or to its first repeated state) under the ``bmn`` preset.

    >>> play_bmn("---K---Q-KQAJ-----AAJ--J--", "----------Q----KQ-J-----KA")
    BmnResult(cards=474, tricks=66, winner=None, cycle=True)
    """
    game = Game(Ruleset.preset("bmn"), parse_deal(hand1, hand2), leader=0)
    at = 0
    while not game.over:
        turn = game.turn
        assert turn is not None
        game.play(turn, at=at)
        at += 1
    cycle = game.end_reason == "cycle"
    winner = None if game.winner is None else game.winner + 1
    return BmnResult(game.cards_played, game.tricks, winner, cycle)
