"""The long "Ratscrew" page (seeds 002 and 003, preset ``ratscrew``), one scenario per rule.

Pairs, triples that win the game (triple sixes: everyone loses), runs of four that may go around
the corner, jokers always slappable, a misslap hands the pile to the last player, more than five
misslaps in a row and you are out, outsiders slap in for free. Hands are written top card
first; docs/rules.md maps every sentence of the page to its test here or to the reason it cannot
apply.

Ties are voided on this page ("play should continue as though the pair did not occur"), so a
valid slap is settled when the 30 ms tie window closes: tests slap, then ``advance``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from scenario import cards, kinds, play_seats, slap_and_settle, the

from ratscrew.cards import format_cards
from ratscrew.engine import Game
from ratscrew.errors import NotYourTurnError, SlapNotAllowedError
from ratscrew.events import (
    CardsBurned,
    ChallengeLost,
    ChallengePassed,
    ChallengeStarted,
    Event,
    GameOver,
    Misslap,
    PileWon,
    PlayerOut,
    SlapIgnored,
    SlapTie,
    SlapWon,
)
from ratscrew.ruleset import Ruleset

RATSCREW = Ruleset.preset("ratscrew")
TIE = RATSCREW.tie_window_ms
GRACE = RATSCREW.grace_ms

def ratscrew(**changes: Any) -> Ruleset:
    """The ratscrew preset with some settings changed (jokers in the deck, runs that stop at A)."""
    return dataclasses.replace(RATSCREW, **changes)






def game_with_pile(pile: str, seats: str, rules: Ruleset = RATSCREW) -> Game:
    """A two-seat game in which ``seats`` (one digit per card) play ``pile``, bottom card first;
    each seat keeps two spare tens."""
    played = pile.split()
    hands = [[card for card, seat in zip(played, seats, strict=True) if seat == str(n)] for n in (0, 1)]
    game = Game(rules, hands=[" ".join([*hands[0], "TC TS"]), " ".join([*hands[1], "TD TH"])],
                leader=0)
    play_seats(game, seats)
    return game



# --- Introduction, equipment and the deal -----------------------------------------------------

def test_two_or_more_players() -> None:
    assert Game(RATSCREW, hands=["2C", "3D"], leader=0).players == 2
    with pytest.raises(ValueError, match="two"):
        Game(RATSCREW, hands=["2C 3D"], leader=0)


def test_a_standard_deck_of_52_cards() -> None:
    game = Game.deal(RATSCREW, players=2, seed=4)
    dealt = [card for seat in range(2) for card in game.hand(seat)]
    assert len({str(card) for card in dealt}) == 52 and not any(card.is_joker for card in dealt)


def test_the_deck_is_divided_into_nearly_equal_stacks() -> None:
    game = Game.deal(RATSCREW, players=3, seed=4)
    assert [game.hand_size(seat) for seat in range(3)] == [18, 17, 17]


def test_the_goal_is_to_get_all_the_cards() -> None:
    game = Game(RATSCREW, hands=["7H 2C", "7S"], leader=0)
    play_seats(game, "01")
    over = the(GameOver, slap_and_settle(game, 0, 200))
    assert (over.seat, over.reason) == (0, "all_cards") and game.hand_size(0) == 3


# --- Basic play -------------------------------------------------------------------------------

def test_the_player_left_of_the_dealer_plays_first() -> None:
    assert Game(RATSCREW, hands=["2C 3C", "4D AD", "5H KH"]).leader == 0


def test_number_cards_pass_play_clockwise() -> None:
    game = Game(RATSCREW, hands=["2C 9C", "5D QD", "8H 3H"], leader=0)
    turns = []
    for at in range(0, 400, 100):
        assert game.turn is not None
        turns.append(game.turn)
        game.play(game.turn, at=at)
    assert turns == [0, 1, 2, 0]


@pytest.mark.parametrize(("letter", "chances"), [("AC", 4), ("KC", 3), ("QC", 2), ("JC", 1)])
def test_a_letter_card_gives_the_next_player_chances(letter: str, chances: int) -> None:
    game = Game(RATSCREW, hands=[f"{letter} 9C", "2D 4D 6D 8D TD"], leader=0)
    started = the(ChallengeStarted, game.play(0, at=0))
    assert (started.target, started.chances) == (1, chances)
    at = play_seats(game, "1" * (chances - 1), start=100)
    assert game.challenge is not None and game.turn == 1
    assert the(ChallengeLost, game.play(1, at=at)).winner == 0


def test_failing_gives_the_pile_to_the_letter_card_player_who_plays_next() -> None:
    game = Game(RATSCREW, hands=["QC 9C", "2D 5D 7D", "3H 8H"], leader=0)
    play_seats(game, "011")  # QC 2D 5D: seat 1 fails the queen
    won = the(PileWon, game.advance(at=200 + GRACE))
    assert (won.seat, won.reason) == (0, "challenge")
    assert format_cards(game.hand(0)) == "9C QC 2D 5D" and game.turn == 0


def test_answering_with_a_letter_card_moves_play_to_the_next_player() -> None:
    game = Game(RATSCREW, hands=["KC 2C", "3D JD", "4H 5H 6H"], leader=0)
    play_seats(game, "01")
    passed = the(ChallengePassed, game.play(1, at=200))
    assert (passed.target, passed.chances) == (2, 1) and game.turn == 2


def test_the_worked_example_of_challenges() -> None:
    game = Game(RATSCREW, hands=["QC KC 6C 9C", "2D 3D 4H 7D AD 8D", "5S JS TS"], leader=0)
    play_seats(game, "011")  # a queen: two chances, both number cards
    assert the(PileWon, game.advance(at=200 + GRACE)).seat == 0  # the queen's player takes it
    at = 300 + GRACE
    assert the(ChallengeStarted, game.play(0, at=at)).chances == 3  # she leads a king
    play_seats(game, "11", start=at + 100)
    assert the(ChallengePassed, game.play(1, at=at + 300)).chances == 4  # an ace on the third try
    game.play(2, at=at + 400)
    assert the(ChallengePassed, game.play(2, at=at + 500)).chances == 1  # then a jack
    lost = the(ChallengeLost, game.play(0, at=at + 600))  # one chance, and a six fails
    assert lost.winner == 2
    assert the(PileWon, game.advance(at=at + 600 + GRACE)).seat == 2
    assert game.turn == 2  # the player of the jack continues play


# --- Slapping ---------------------------------------------------------------------------------

def test_the_first_to_slap_a_pair_picks_it_up_and_restarts_play() -> None:
    game = Game(RATSCREW, hands=["7H 2C", "7S 3D", "4H 5H"], leader=0)
    play_seats(game, "01")
    game.slap(2, at=300)
    events = game.slap(0, at=300 + TIE + 10)
    assert the(SlapWon, events).seat == 2 and the(SlapWon, events).pattern == "double"
    assert the(SlapIgnored, events).seat == 0
    assert format_cards(game.hand(2)) == "4H 5H 7H 7S" and game.turn == 2


def test_people_who_were_not_playing_may_slap_and_enter_at_their_seat() -> None:
    game = Game(RATSCREW, hands=["7H 2C", "7S 3D", ""], leader=0)
    play_seats(game, "01")
    assert kinds(slap_and_settle(game, 2, 200)) == ["slap_won", "pile_won", "slapped_in"]
    assert game.turn == 2
    game.play(2, at=300)
    assert game.turn == 0  # the newcomer now takes turns from their seat


@pytest.mark.parametrize(("second_at", "tie"), [
    (300 + TIE - 1, True),
    (300 + TIE, False),
    (300 + TIE + 1, False),
])
def test_a_tie_nobody_can_judge_plays_on_as_if_the_pair_did_not_occur(second_at: int, tie: bool) -> None:
    game = Game(RATSCREW, hands=["7H 2C", "7S 3D", "4H 5H"], leader=0)
    play_seats(game, "01")
    game.slap(2, at=300)
    events = game.slap(0, at=second_at) + game.advance(at=400)
    if tie:
        assert the(SlapTie, events).outcome == "void"
        assert game.live_pile == cards("7H 7S") and game.turn == 2
        assert the(SlapIgnored, game.slap(1, at=450)).reason == "void"  # the pair is gone
    else:
        assert the(SlapWon, events).seat == 2 and game.hand_size(2) == 4


def test_a_triple_wins_the_game() -> None:
    game = Game(RATSCREW, hands=["7H 2C", "7C 3D", "7D 4H"], leader=0)
    play_seats(game, "012")  # nobody slapped the pair, and a third seven came
    assert game.slap_pattern() == "triple"
    events = slap_and_settle(game, 1, 300)
    assert the(SlapWon, events).pattern == "triple"
    over = the(GameOver, events)
    assert (over.seat, over.reason) == (1, "triple") and game.winner == 1


def test_slapping_triple_sixes_means_everyone_loses() -> None:
    game = Game(RATSCREW, hands=["6H 2C", "6C 3D", "6D 4H"], leader=0)
    play_seats(game, "012")
    over = the(GameOver, slap_and_settle(game, 1, 300))
    assert over.seat is None and over.reason == "triple_sixes"
    assert game.winner is None and game.end_reason == "triple_sixes"


def test_a_sandwich_is_not_on_the_list() -> None:
    game = game_with_pile("7H 3C 7S", "010")
    assert game.slap_pattern() is None
    assert kinds(game.slap(1, at=1000))[0] == "misslap"


@pytest.mark.parametrize(("pile", "seats"), [
    ("4H 5C 6D 7S", "0101"),  # going up
    ("9S 8H 7C 6D", "0101"),  # going down
    ("AS 2C 3D 4H", "0111"),  # an ace below a two
    ("JH QC KD AS", "0101"),  # an ace above a king
])
def test_four_in_a_row_can_be_slapped(pile: str, seats: str) -> None:
    game = game_with_pile(pile, seats)
    assert format_cards(game.live_pile) == pile
    won = the(SlapWon, slap_and_settle(game, 1, 1000))
    assert won.pattern == "run" and game.hand_size(1) >= 4


def test_three_in_a_row_is_not_a_run() -> None:
    game = game_with_pile("4H 5C 6D", "010")
    assert game.slap_pattern() is None


@pytest.mark.parametrize(("pile", "seats"), [
    ("QH KC AD 2S", "0101"),
    ("KC AD 2S 3H", "0100"),
    ("3H 2S AD KC", "0101"),
])
def test_runs_may_go_around_the_corner(pile: str, seats: str) -> None:
    game = game_with_pile(pile, seats)
    assert the(SlapWon, slap_and_settle(game, 1, 1000)).pattern == "run"
    straight = game_with_pile(pile, seats, rules=ratscrew(run_wraps=False))
    assert straight.slap_pattern() is None  # a house that stops runs at the ace


def test_the_preset_deck_has_no_jokers_but_a_joker_can_always_be_slapped() -> None:
    rules = ratscrew(jokers=True)
    assert Game.deal(rules, players=2, seed=1).hand_size(0) == 27
    game = Game(rules, hands=["5C JK 9C", "8D 2D"], leader=0)
    game.play(0, at=0)
    events = game.play(1, at=100) + game.play(0, at=200)  # 8D, then the joker
    assert not [event for event in events if isinstance(event, ChallengeStarted)]  # not a face card
    assert game.slap_pattern() == "joker" and game.turn == 1
    assert the(SlapWon, slap_and_settle(game, 1, 300)).pattern == "joker"


# --- Misslaps ---------------------------------------------------------------------------------

def test_a_misslap_gives_the_pile_to_whoever_played_last() -> None:
    game = Game(RATSCREW, hands=["2H 5C", "3S 9D", "4C 6C"], leader=0)
    play_seats(game, "01")
    events = game.slap(2, at=200)
    assert the(Misslap, events).pile_to == 1
    assert the(PileWon, events).reason == "misslap"
    assert format_cards(game.hand(1)) == "9D 2H 3S" and game.turn == 1  # who plays on
    assert game.hand(2) == cards("4C 6C")  # the slapper pays nothing else


def test_a_player_handed_the_pile_after_running_out_is_out_again_when_it_runs_dry() -> None:
    game = Game(RATSCREW, hands=["2C 9C 8C", "3D", "4H 6H 5S"], leader=0)
    game.play(0, at=0)
    assert the(PlayerOut, game.play(1, at=100)).seat == 1
    assert the(Misslap, game.slap(2, at=200)).pile_to == 1  # seat 1 played last: back in with 2C 3D
    assert game.status(1) == "in"
    play_seats(game, "120", start=300)
    out = the(PlayerOut, game.play(1, at=600))  # seat 1 plays its last card again
    assert (out.seat, out.reason) == (1, "no_cards") and game.status(1) == "out"


def test_slapping_your_own_card_gives_the_pile_to_the_player_before() -> None:
    game = Game(RATSCREW, hands=["2H 5C", "3S 9D", "4C 6C"], leader=0)
    play_seats(game, "01")
    assert the(Misslap, game.slap(1, at=200)).pile_to == 0
    assert format_cards(game.hand(0)) == "5C 2H 3S" and game.turn == 0


def test_a_misslap_on_a_covered_pair_goes_to_the_player_of_the_covering_card() -> None:
    game = Game(RATSCREW, hands=["5C 2H", "5D 9D", "3H 6C"], leader=0)
    play_seats(game, "012")  # 5C 5D, then the pair is covered by 3H
    misslap = the(Misslap, game.slap(0, at=300))
    assert misslap.pile_to == 2 and game.hand(2) == cards("6C 5C 5D 3H")


def test_a_misslap_by_someone_not_in_the_game_is_ignored() -> None:
    game = Game(RATSCREW, hands=["2H 5C", "3S 9D", ""], leader=0)
    play_seats(game, "01")
    before = game.zones()
    misslap = the(Misslap, game.slap(2, at=200))
    assert (misslap.penalty, misslap.cards, misslap.pile_to) == ("none", (), None)
    assert game.zones() == before and game.turn == 0


def test_misslaps_by_someone_not_in_the_game_are_ignored_however_many() -> None:
    game = Game(RATSCREW, hands=["2C 6C TC 7C 8H", "9D 3D 5D 7D 4S", ""], leader=0)
    for n in range(6):  # 2C 9D 6C 3D TC 5D, each slapped by the outsider
        game.play(n % 2, at=100 * n)
        assert the(Misslap, game.slap(2, at=100 * n + 50)).penalty == "none"
    assert game.status(2) == "out"  # still free to slap in
    play_seats(game, "01", start=600)  # 7C 7D
    assert kinds(slap_and_settle(game, 2, 800))[-1] == "slapped_in"


@pytest.mark.parametrize(("misslaps", "out"), [(5, False), (6, True)])
def test_more_than_five_misslaps_in_a_row_and_you_are_out(misslaps: int, out: bool) -> None:
    game = Game(RATSCREW, hands=["2C 3C 4C 5C 6C 7C 8C 9C", "2D 3D 4D 5D 6D 7D 8D 9D",
                                 "2H 3H 4H 5H 6H 7H 8H 9H"], leader=0)
    events: list[Event] = []
    for n in range(misslaps):
        turn = game.turn
        assert turn is not None
        game.play(turn, at=200 * n)
        events += game.slap(2, at=200 * n + 100)  # every pile holds one card: never a slap
    assert len([event for event in events if isinstance(event, Misslap)]) == misslaps
    if out:
        assert the(PlayerOut, events).reason == "misslaps"
        assert [event.reason for event in events if isinstance(event, CardsBurned)] == ["misslaps"]
        assert game.status(2) == "eliminated" and game.hand_size(2) == 0
        with pytest.raises(SlapNotAllowedError):
            game.slap(2, at=200 * misslaps)
    else:
        assert not [event for event in events if isinstance(event, PlayerOut)]
        assert game.status(2) == "in"


def test_a_good_slap_starts_the_misslap_count_again() -> None:
    game = Game(RATSCREW, hands=["7C 2C", "7D 3D", "4H 5H 6H"], leader=0)
    for n in range(5):
        game.slap(2, at=10 * n)  # five misslaps on the empty pile
    play_seats(game, "01", start=100)  # 7C 7D
    assert the(SlapWon, slap_and_settle(game, 2, 300)).seat == 2
    for n in range(5):  # after the too-slow window of the pile just won (500 ms)
        game.slap(2, at=900 + 10 * n)
    assert game.status(2) == "in"  # ten misslaps, but never more than five in a row
    assert the(PlayerOut, game.slap(2, at=1000)).reason == "misslaps"


# --- Miscellaneous rules and notes ------------------------------------------------------------

def test_a_picked_up_pile_keeps_the_order_it_was_played_in() -> None:
    game = Game(RATSCREW, hands=["4C 9H 8S", "2D 9C"], leader=0)
    play_seats(game, "0101")  # 4C 2D 9H 9C
    slap_and_settle(game, 0, 400)
    assert format_cards(game.hand(0)) == "8S 4C 2D 9H 9C"


def test_a_card_shown_out_of_turn_never_reaches_the_pile() -> None:
    game = Game(RATSCREW, hands=["2C 5C", "3D 6D"], leader=0)
    before = game.zones()
    with pytest.raises(NotYourTurnError):
        game.play(1, at=0)
    assert game.zones() == before and game.turn == 0
