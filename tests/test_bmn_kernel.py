"""The compiled Beggar-my-neighbour kernel agrees with the real engine (`ratscrew.bmn.play_bmn`)
on the record deals and on thousands of random deals, and finds cycles exactly."""

import random

import numpy as np
import pytest

from ratscrew.bmn import BmnDealError, play_bmn
from ratscrew.sim.bmn_kernel import (
    BASE_DECK,
    DealResult,
    deal_strings,
    deck_from_strings,
    play_deal,
    play_deck,
    play_random_deals,
    random_deals,
    result_of_row,
)

PAULHUS = ("------------KAQ----J------", "-JQQK---K----JK--QA-A-JA--")
NESSLER = ("---AJ--Q---------QAKQJJ-QK", "-----A----KJ-K--------A---")
CASELLA = ("---K---Q-KQAJ-----AAJ--J--", "----------Q----KQ-J-----KA")
KLEBER = ("---JQ---K-A----A-J-K---QK-", "-J-----------AJQA----K---Q")


def engine_result(hand1: str, hand2: str) -> tuple[int, int, int | None, bool]:
    result = play_bmn(hand1, hand2)
    return result.cards, result.tricks, result.winner, result.cycle


def kernel_result(result: DealResult) -> tuple[int, int, int | None, bool]:
    return result.cards, result.tricks, result.winner, result.cycle


def test_paulhus_1999_plays_4791_cards_and_670_tricks() -> None:
    assert play_deal(*PAULHUS) == DealResult(cards=4791, tricks=670, winner=1, cycle=False)


def test_nessler_2022_plays_8344_cards_and_1164_tricks() -> None:
    assert play_deal(*NESSLER) == DealResult(cards=8344, tricks=1164, winner=2, cycle=False)


def test_kleber_1999_plays_5790_cards_and_805_tricks() -> None:
    # Hand 2 runs out on a number card; hand 1 plays once more before taking the last pile.
    assert play_deal(*KLEBER) == DealResult(cards=5790, tricks=805, winner=1, cycle=False)


def test_casella_2024_cycles_62_tricks_440_cards_first_repeat_after_66_tricks_474_cards() -> None:
    result = play_deal(*CASELLA)
    assert result.cycle and result.winner is None
    assert (result.cards, result.tricks) == (474, 66)
    assert (result.cycle_tricks, result.cycle_cards) == (62, 440)


@pytest.mark.parametrize("deal", [PAULHUS, NESSLER, KLEBER, CASELLA],
                         ids=["paulhus", "nessler", "kleber", "casella"])
def test_record_deals_match_the_engine(deal: tuple[str, str]) -> None:
    assert kernel_result(play_deal(*deal)) == engine_result(*deal)


def shuffled_deals(count: int, seed: int) -> list[tuple[str, str]]:
    """Random deals drawn independently of the kernel's own generator."""
    rng = random.Random(seed)
    deals = []
    for _ in range(count):
        cards = list("-" * 36 + "JJJJQQQQKKKKAAAA")
        rng.shuffle(cards)
        text = "".join(cards)
        deals.append((text[:26], text[26:]))
    return deals


def lopsided_deals(count: int, seed: int) -> list[tuple[str, str]]:
    """Deals where hand 1 holds most of the face cards: short games with every kind of end
    (the loser failing to pay, running out on a number card or on a face card)."""
    rng = random.Random(seed)
    deals = []
    for _ in range(count):
        faces = list("JJJJQQQQKKKKAAAA")
        rng.shuffle(faces)
        k = rng.randint(10, 16)
        hand1 = faces[:k] + ["-"] * (26 - k)
        hand2 = faces[k:] + ["-"] * (10 + k)
        rng.shuffle(hand1)
        rng.shuffle(hand2)
        deals.append(("".join(hand1), "".join(hand2)))
    return deals


def test_thousands_of_random_deals_match_the_engine() -> None:
    deals = shuffled_deals(1500, seed=2024) + lopsided_deals(500, seed=7)
    mismatches = [deal for deal in deals
                  if kernel_result(play_deal(*deal)) != engine_result(*deal)]
    assert mismatches == []


def test_search_deals_match_the_engine() -> None:
    decks = random_deals(seed=99, start=1000, count=800)
    rows = play_random_deals(seed=99, start=1000, count=800)
    for deck, row in zip(decks, rows, strict=True):
        assert kernel_result(result_of_row(row)) == engine_result(*deal_strings(deck))


def test_a_deal_depends_only_on_the_seed_and_its_index() -> None:
    whole = play_random_deals(seed=5, start=0, count=300)
    parts = np.concatenate([play_random_deals(seed=5, start=s, count=100) for s in (0, 100, 200)])
    assert (whole == parts).all()
    assert (random_deals(5, 150, 1) == random_deals(5, 0, 300)[150]).all()
    assert not (random_deals(5, 0, 1) == random_deals(6, 0, 1)).all()


def test_every_random_deal_uses_the_whole_deck() -> None:
    for deck in random_deals(seed=3, start=0, count=200):
        assert sorted(deck.tolist()) == sorted(BASE_DECK.tolist())


def test_random_deals_are_about_as_long_as_the_literature_says() -> None:
    # Mean about 255 cards and 35 tricks over random deals (GUIDE, section 7).
    rows = play_random_deals(seed=11, start=0, count=20_000)
    assert 235 < rows[:, 0].mean() < 275
    assert 31 < rows[:, 1].mean() < 39
    hand1_wins = (rows[:, 2] == 1).mean()
    assert 0.4 < hand1_wins < 0.6


def test_record_notation_round_trip() -> None:
    deck = deck_from_strings(*NESSLER)
    assert deal_strings(deck) == NESSLER
    assert play_deck(deck) == play_deal(*NESSLER)


@pytest.mark.parametrize("hands, message", [
    (("-" * 25, "-" * 26), "hand 1 has 25 cards"),
    (("X" + "-" * 25, "-" * 26), "'X' is not"),
    (("A" * 5 + "-" * 21, "-" * 26), "too many 'A' cards"),
])
def test_bad_deals_are_refused_with_the_reason(hands: tuple[str, str], message: str) -> None:
    with pytest.raises(BmnDealError, match=message):
        play_deal(*hands)


def test_a_deck_of_the_wrong_length_is_refused() -> None:
    with pytest.raises(BmnDealError, match="52 cards"):
        play_deck(np.zeros(51, dtype=np.uint8))
