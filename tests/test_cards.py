"""Card notation, rendering and decks."""

import pytest

from ratscrew.cards import (
    Card,
    CardNotationError,
    Rank,
    Suit,
    format_cards,
    parse_cards,
    shuffled_deck,
    standard_deck,
)


@pytest.mark.parametrize(
    ("token", "rank", "suit"),
    [("7H", Rank.SEVEN, Suit.HEARTS), ("TD", Rank.TEN, Suit.DIAMONDS), ("10d", Rank.TEN, Suit.DIAMONDS),
     ("qs", Rank.QUEEN, Suit.SPADES), ("AC", Rank.ACE, Suit.CLUBS), ("JK", Rank.JOKER, None)],
)
def test_notation_is_read(token: str, rank: Rank, suit: Suit | None) -> None:
    card = Card.parse(token)
    assert (card.rank, card.suit) == (rank, suit)


@pytest.mark.parametrize("token", ["7H", "TD", "QS", "JK", "2C", "AD"])
def test_notation_round_trips(token: str) -> None:
    assert str(Card.parse(token)) == token


@pytest.mark.parametrize("token", ["1H", "7X", "", "JKK", "H7", "11C", "T"])
def test_bad_notation_names_the_token(token: str) -> None:
    with pytest.raises(CardNotationError, match=f"bad card {token!r}"):
        Card.parse(token)


def test_a_list_names_the_bad_token_among_good_ones() -> None:
    with pytest.raises(CardNotationError, match="'ZZ'"):
        parse_cards("7H ZZ 3C")


def test_pretty_and_colour_rendering() -> None:
    assert Card.parse("TH").pretty() == "10♥"
    assert Card.parse("QS").pretty() == "Q♠"
    assert "\033[31m" in Card.parse("7D").coloured()
    assert "\033[31m" not in Card.parse("7C").coloured()


def test_face_cards_and_number_values() -> None:
    assert [c.is_face for c in parse_cards("JH QH KH AH JK TH")] == [True] * 5 + [False]
    assert Rank.ACE.number_value == 1 and Rank.KING.number_value is None


def test_decks() -> None:
    deck = standard_deck()
    assert len(deck) == len(set(deck)) == 52
    assert sum(c.is_joker for c in standard_deck(jokers=True)) == 2
    assert shuffled_deck(5) == shuffled_deck(5) != shuffled_deck(6)
    assert format_cards(parse_cards("7h 10c")) == "7H TC"
