"""The two derived presets: ``classic`` (what every seed shares) and ``bmn`` (no slaps at all).

``classic`` is the widely played default: doubles and sandwiches, one card burned for a misslap,
and a one-second grace window after a lost challenge in which a valid slap still beats the
challenger. ``bmn`` is Beggar-my-neighbour, checked against the published record deals (deal
strings from the design guide, section 7).
"""

from __future__ import annotations

import dataclasses

import pytest
from scenario import kinds, play_seats, the

from ratscrew.bmn import play_bmn
from ratscrew.cards import format_cards, parse_cards
from ratscrew.engine import Game
from ratscrew.events import (
    ChallengeLost,
    Event,
    GameOver,
    Misslap,
    PileWon,
    SlapIgnored,
    SlapWon,
)
from ratscrew.ruleset import Ruleset

CLASSIC = Ruleset.preset("classic")
BMN = Ruleset.preset("bmn")
GRACE = CLASSIC.grace_ms
TOO_SLOW = CLASSIC.too_slow_ms
TIE = CLASSIC.tie_window_ms




# --- classic ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("pile", "pattern"), [("7H 7S", "double"), ("7H 3C 7S", "sandwich")])
def test_classic_doubles_and_sandwiches_win_the_pile(pile: str, pattern: str) -> None:
    played = pile.split()
    hands = [" ".join([*played[0::2], "TC"]), " ".join([*played[1::2], "TD"])]
    game = Game(CLASSIC, hands=hands, leader=0)
    play_seats(game, "01" * (len(played) // 2) + "0" * (len(played) % 2))
    assert the(SlapWon, game.slap(1, at=1000)).pattern == pattern
    assert game.hand_size(1) == 1 + len(played)


def test_classic_a_misslap_burns_one_card() -> None:
    game = Game(CLASSIC, hands=["2C 5C", "3D 6D 8D"], leader=0)
    game.play(0, at=0)
    misslap = the(Misslap, game.slap(1, at=100))
    assert misslap.penalty == "burn" and format_cards(misslap.cards) == "3D"
    assert game.burned == parse_cards("3D") and game.hand_size(1) == 2


@pytest.mark.parametrize(("slap_at", "slapper_wins"), [
    (300 + GRACE - 1, True),  # the last moment of the grace window
    (300 + GRACE, False),  # exactly at its end the challenger has collected: simply late
    (300 + GRACE + TOO_SLOW - 1, False),  # still within the too-slow window: no penalty
    (300 + GRACE + TOO_SLOW, False),  # after it, slapping the empty table is a misslap
])
def test_classic_grace_window_a_valid_slap_beats_the_challenger(slap_at: int, slapper_wins: bool) -> None:
    game = Game(CLASSIC, hands=["5C JC 9C", "2H 2D 3D 4D"], leader=0)
    events: list[Event] = []
    for n, seat in enumerate("0101"):  # 5C 2H JC 2D: seat 1 fails the jack with a sandwich
        events += game.play(int(seat), at=100 * n)
    assert the(ChallengeLost, events).collect_at == 300 + GRACE
    assert game.slap_pattern() == "sandwich"
    events = game.slap(1, at=slap_at)
    if slapper_wins:
        assert kinds(events) == ["slap_won", "pile_won"] and the(PileWon, events).seat == 1
        assert game.hand_size(1) == 6
    else:
        won = the(PileWon, events)
        assert (won.seat, won.reason, won.at) == (0, "challenge", 300 + GRACE)
        assert game.hand_size(0) == 5
        if slap_at < 300 + GRACE + TOO_SLOW:
            assert the(SlapIgnored, events).reason == "late"
        else:
            assert the(Misslap, events).seat == 1


@pytest.mark.parametrize(("late_at", "verdict"), [
    (300 + TIE - 1, "slap_ignored"),  # too close behind the winner to tell apart: simply late
    (300 + TIE, "slap_ignored"),  # the slower hand on the quicker one: too slow, not wrong
    (300 + TOO_SLOW - 1, "slap_ignored"),
    (300 + TOO_SLOW, "misslap"),  # the pile is long gone; slapping the empty table is a misslap
])
def test_classic_the_first_slap_wins_and_a_slap_just_behind_it_is_late(late_at: int, verdict: str) -> None:
    game = Game(CLASSIC, hands=["7H 2C 8C", "7S 3D", "4H 5H"], leader=0)
    play_seats(game, "01")
    assert the(SlapWon, game.slap(2, at=300)).seat == 2
    events = game.slap(0, at=late_at)
    assert kinds(events) == [verdict]
    if verdict == "slap_ignored":
        assert the(SlapIgnored, events).reason == "late" and game.hand_size(0) == 2


# --- bmn --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("hand1", "hand2", "cards", "tricks", "cycle"), [
    pytest.param("------------KAQ----J------", "-JQQK---K----JK--QA-A-JA--", 4791, 670, False,
                 id="paulhus-1999"),
    pytest.param("---AJ--Q---------QAKQJJ-QK", "-----A----KJ-K--------A---", 8344, 1164, False,
                 id="nessler-2022"),
    # Ends with hand 2 running out on a number card: hand 1 plays once more, then takes the pile.
    pytest.param("---JQ---K-A----A-J-K---QK-", "-J-----------AJQA----K---Q", 5790, 805, False,
                 id="kleber-1999"),
    pytest.param("---K---Q-KQAJ-----AAJ--J--", "----------Q----KQ-J-----KA", 474, 66, True,
                 id="casella-2024-cycle"),
])
def test_bmn_record_deals_play_out_as_published(
        hand1: str, hand2: str, cards: int, tricks: int, cycle: bool) -> None:
    result = play_bmn(hand1, hand2)
    assert (result.cards, result.tricks, result.cycle) == (cards, tricks, cycle)
    assert (result.winner is None) == cycle  # a finished deal has a winner, a cycle none


def test_bmn_a_slap_does_nothing() -> None:
    game = Game(BMN, hands=["7H 2C", "7S 3D"], leader=0)
    play_seats(game, "01")
    before = game.zones()
    misslap = the(Misslap, game.slap(0, at=200))
    assert (misslap.penalty, misslap.cards) == ("none", ())
    assert game.zones() == before and game.turn == 0


def test_bmn_a_lost_challenge_pays_the_challenger_at_once() -> None:
    game = Game(BMN, hands=["QC 9C", "2D 3D 4D"], leader=0)
    play_seats(game, "01")
    events = game.play(1, at=200)
    assert kinds(events)[-2:] == ["challenge_lost", "pile_won"]
    assert format_cards(game.hand(0)) == "9C QC 2D 3D" and game.turn == 0


def test_bmn_a_player_who_cannot_pay_loses_and_the_last_holder_wins() -> None:
    game = Game(BMN, hands=["KC 9C", "2D"], leader=0)
    game.play(0, at=0)
    over = the(GameOver, game.play(1, at=1))  # seat 1 runs out paying the king
    assert (over.seat, over.reason) == (0, "all_cards") and game.hand_size(0) == 3


@pytest.mark.parametrize("extra", ["3C", "KC"])
def test_bmn_a_player_who_runs_out_on_a_number_card_is_beaten_when_play_comes_back(extra: str) -> None:
    game = Game(BMN, hands=[f"2C {extra} 5C", "4D"], leader=0)
    play_seats(game, "01")  # seat 1 plays its last card, a number card: not beaten yet
    assert not game.over and game.turn == 0 and game.hand_size(1) == 0
    # Seat 0 plays its turn (a number card, or a king seat 1 cannot pay); seat 1, called on to
    # play or pay, has nothing: seat 0 takes the pile, and the card and the trick both count.
    over = the(GameOver, game.play(0, at=200))
    assert (over.seat, over.reason) == (0, "all_cards")
    assert (game.cards_played, game.tricks) == (3, 1)
    assert format_cards(game.hand(0)) == f"5C 2C 4D {extra}"


def test_bmn_the_last_holder_whose_own_last_card_is_played_still_wins() -> None:
    game = Game(BMN, hands=["2C 3C", "4D"], leader=0)
    play_seats(game, "01")
    over = the(GameOver, game.play(0, at=200))  # nobody holds a card now; seat 1 is called first
    assert (over.seat, game.cards_played, game.tricks) == (0, 3, 1)
    assert game.hand_size(0) == 3


def test_bmn_without_last_holder_plays_turn_the_last_holder_takes_the_pile_at_once() -> None:
    game = Game(dataclasses.replace(BMN, last_holder_plays_turn=False), hands=["2C 3C 5C", "4D"], leader=0)
    game.play(0, at=0)
    over = the(GameOver, game.play(1, at=100))
    assert (over.seat, game.cards_played, game.tricks) == (0, 2, 1)
