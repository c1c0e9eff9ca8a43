"""The Northwest house rules (seed 000, preset ``northwest``), one scenario per rule.

Each test is one rule of the seed text, played out on the engine from an explicit deal in card
notation (hands are written top card first). docs/rules.md maps every rule sentence of the seed
to the test here that proves it, or says why it cannot apply to a digital game.

Northwest voids simultaneous slaps, so every valid slap waits out the 30 ms tie window before
it is settled: the tests slap, then ``advance`` to 30 ms later to see who won.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from typing import Any

import pytest
from scenario import all_of, cards, kinds, play_seats, slap_and_settle, sorted_notation, the

from ratscrew.cards import Card, format_cards
from ratscrew.engine import Game
from ratscrew.errors import GameOverError, SlapNotAllowedError
from ratscrew.events import (
    CardPlayed,
    CardsBurned,
    ChallengeLost,
    ChallengePassed,
    ChallengeStarted,
    GameOver,
    Misslap,
    PileWon,
    PlayerOut,
    SlapIgnored,
    SlapTie,
    SlapWon,
)
from ratscrew.ruleset import Ruleset

NORTHWEST = Ruleset.preset("northwest")
TIE = NORTHWEST.tie_window_ms
GRACE = NORTHWEST.grace_ms

def northwest(**changes: Any) -> Ruleset:
    """The Northwest preset with some settings changed (the obsolete rules, the 5-second rule)."""
    return dataclasses.replace(NORTHWEST, **changes)








def game_with_pile(pile: str, spares: tuple[str, str] = ("TC TS", "TD TH")) -> Game:
    """Two seats take turns to play ``pile`` (bottom card first), each keeping its spare cards."""
    played = pile.split()
    hands = [" ".join([*played[0::2], spares[0]]), " ".join([*played[1::2], spares[1]])]
    game = Game(NORTHWEST, hands=hands, leader=0)
    for n in range(len(played)):
        game.play(n % 2, at=100 * n)
    return game



# --- Starting the game ------------------------------------------------------------------------

def test_the_deck_is_a_standard_deck_plus_two_jokers() -> None:
    game = Game.deal(NORTHWEST, players=3, seed=5)
    dealt = [card for seat in range(3) for card in game.hand(seat)]
    assert len(dealt) == 54
    assert sum(card.is_joker for card in dealt) == 2
    assert len({str(card) for card in dealt if not card.is_joker}) == 52


def test_the_dealer_deals_every_card_round_the_table() -> None:
    game = Game.deal(NORTHWEST, players=4, seed=9)
    assert [game.hand_size(seat) for seat in range(4)] == [14, 14, 13, 13]
    assert game.pile == [] and game.burned == []


def test_nobody_sees_a_face_down_card_not_even_their_own() -> None:
    game = Game(NORTHWEST, hands=["2C 5H 9S", "3D 6C TD"], leader=0)
    game.play(0, at=0)
    face_down = [str(card) for seat in range(2) for card in game.hand(seat)]
    for seat in (0, 1, None):
        seen = json.dumps(game.observe(seat))
        assert "2C" in seen  # the played card is face up for everyone
        assert not [card for card in face_down if card in seen]


@pytest.mark.parametrize(("hands", "leader"), [
    (["9C 5H", "2D KS", "3H 7C"], 1),  # the king is the highest bottom card
    (["9C AH", "2D KS", "3H 7C"], 0),  # aces are high
])
def test_the_highest_bottom_card_leads_aces_high(hands: list[str], leader: int) -> None:
    game = Game(NORTHWEST, hands=hands)
    assert game.leader == leader and game.turn == leader


@pytest.mark.parametrize(("hands", "leader"), [
    (["2C 9H", "3D 9S", "KC 4C"], 1),  # nines tie; the next cards up are 2 and 3
    (["5C 8H 9H", "4D 8S 9S", "AC 2C"], 0),  # tied twice; the third card up decides
    (["2C 3C", "4C 8H 9H", "4D 8S 9S"], 1),  # tied all the way: the first tied seat clockwise
])
def test_tied_bottom_cards_look_at_the_next_cards_up(hands: list[str], leader: int) -> None:
    assert Game(NORTHWEST, hands=hands).leader == leader


def test_a_joker_is_the_highest_bottom_card() -> None:
    assert Game(NORTHWEST, hands=["3D AS", "2C JK"]).leader == 1


def test_play_goes_clockwise() -> None:
    game = Game(NORTHWEST, hands=["2C 5C", "3D 6D", "4H 8H"], leader=0)
    turns = []
    for at in range(0, 400, 100):
        turns.append(game.turn)
        game.play(game.turn if game.turn is not None else -1, at=at)
    assert turns == [0, 1, 2, 0]


def test_a_play_puts_the_top_card_face_up_on_the_pile() -> None:
    game = Game(NORTHWEST, hands=["2C 5C", "3D 6D"], leader=0)
    event = the(CardPlayed, game.play(0, at=0))
    assert event.card == Card.parse("2C")
    assert game.pile == cards("2C") and game.hand(0) == cards("5C")


# --- Slaps ------------------------------------------------------------------------------------

def test_the_first_slap_on_a_double_wins_the_whole_pile() -> None:
    game = Game(NORTHWEST, hands=["7H 2C", "7S 3D", "4H 5H"], leader=0)
    play_seats(game, "01")
    assert game.slap(2, at=300) == []  # the tie window is open until 330
    events = game.slap(0, at=340)  # 40 ms later: not a tie, just too late
    assert kinds(events) == ["slap_won", "pile_won", "slap_ignored"]
    assert the(SlapWon, events).seat == 2 and the(SlapWon, events).pattern == "double"
    assert the(SlapIgnored, events).seat == 0
    assert format_cards(game.hand(2)) == "4H 5H 7H 7S" and game.pile == []


def test_the_winner_puts_the_pile_unrearranged_under_their_hand_and_leads() -> None:
    game = Game(NORTHWEST, hands=["4C 7H 2C", "9D 7S 3D"], leader=0)
    play_seats(game, "0101")  # 4C 9D 7H 7S
    events = slap_and_settle(game, 0, 400)
    assert the(PileWon, events).cards == 4
    assert format_cards(game.hand(0)) == "2C 4C 9D 7H 7S"
    assert game.turn == 0


def test_a_double_is_two_cards_of_the_same_rank() -> None:
    game = Game(NORTHWEST, hands=["QH 2C", "QS 3D"], leader=0)
    play_seats(game, "01")
    assert game.slap_pattern() == "double"
    assert the(SlapWon, slap_and_settle(game, 1, 200)).pattern == "double"


def test_two_cards_of_the_same_suit_are_not_a_double() -> None:
    game = Game(NORTHWEST, hands=["7C 2H", "3C 4D 5D 6D"], leader=0)
    play_seats(game, "01")
    assert game.slap_pattern() is None
    assert the(Misslap, game.slap(1, at=200)).penalty == "burn"


def test_a_sandwich_can_be_slapped() -> None:
    game = Game(NORTHWEST, hands=["7H 2C", "3C 4D", "7S 5D"], leader=0)
    play_seats(game, "012")  # 7H 3C 7S
    assert the(SlapWon, slap_and_settle(game, 1, 300)).pattern == "sandwich"
    assert format_cards(game.hand(1)) == "4D 7H 3C 7S"


@pytest.mark.parametrize("pile", [
    "4H 5C 6D 7S",  # a run
    "3C 7H",  # adds to ten
    "6H 9C",  # sixty-nine
    "8H 2C 5D 8S",  # top and bottom match
    "KH QS",  # a marriage
    "5C JK",  # a joker on top
])
def test_doubles_and_sandwiches_are_the_only_slaps(pile: str) -> None:
    game = game_with_pile(pile)
    assert format_cards(game.pile) == pile
    assert game.slap_pattern() is None
    assert kinds(game.slap(1, at=1000))[0] == "misslap"


@pytest.mark.parametrize(("pile", "pattern"), [
    ("7H 7S 9C", None),  # the double is covered
    ("7H 3C 7S 9D", None),  # the sandwich is covered
    ("7H 7S 7C", "double"),  # the covering card makes another double
    ("7H 7S 3C 7D", "sandwich"),  # the covering cards make a sandwich
])
def test_a_covered_double_or_sandwich_is_dead_unless_it_makes_another(
        pile: str, pattern: str | None) -> None:
    game = game_with_pile(pile)
    assert game.slap_pattern() == pattern
    events = slap_and_settle(game, 1, 1000)
    assert kinds(events)[0] == ("misslap" if pattern is None else "slap_won")


def test_a_misslap_burns_three_cards_face_up_under_the_pile() -> None:
    game = Game(NORTHWEST, hands=["2C 5H", "3S 9D 8D 4C"], leader=0)
    game.play(0, at=0)
    misslap = the(Misslap, game.slap(1, at=100))
    assert misslap.penalty == "burn" and sorted_notation(list(misslap.cards)) == ["3S", "8D", "9D"]
    assert sorted_notation(game.burned) == ["3S", "8D", "9D"]
    assert game.pile[-1] == Card.parse("2C")  # the burned cards lie under the played card
    assert game.hand(1) == cards("4C") and game.turn == 1


def test_a_misslap_with_fewer_than_three_cards_burns_what_is_left() -> None:
    game = Game(NORTHWEST, hands=["2C 5H 6H", "3S 9D"], leader=0)
    game.play(0, at=0)
    events = game.slap(1, at=100)
    assert sorted_notation(list(the(Misslap, events).cards)) == ["3S", "9D"]
    assert the(PlayerOut, events).seat == 1 and game.status(1) == "out"


def test_a_misslap_with_no_cards_in_hand_burns_nothing() -> None:
    game = Game(NORTHWEST, hands=["2C 5H 6H", "3S"], leader=0)
    play_seats(game, "01")  # seat 1 played its last card and is out
    misslap = the(Misslap, game.slap(1, at=200))
    assert misslap.penalty == "none" and misslap.cards == ()
    assert game.burned == []


def test_burned_cards_are_dead_for_patterns() -> None:
    game = Game(NORTHWEST, hands=["8H 2C", "8C 8D 8S 9D"], leader=0)
    game.play(0, at=0)
    game.slap(1, at=100)  # burns 8C 8D 8S under the 8H
    assert sorted_notation(game.pile) == ["8C", "8D", "8H", "8S"]
    assert game.slap_pattern() is None
    assert kinds(game.slap(0, at=200))[0] == "misslap"


def test_burned_cards_go_to_the_next_winner_of_the_pile() -> None:
    game = Game(NORTHWEST, hands=["7H 2C 4C", "9D 8D 3S 7S 5D"], leader=0)
    game.play(0, at=0)
    game.slap(1, at=100)  # burns 9D 8D 3S
    game.play(1, at=200)  # 7S on 7H
    events = slap_and_settle(game, 0, 300)
    assert the(PileWon, events).cards == 5
    hand = game.hand(0)
    assert format_cards(hand[:2]) == "2C 4C" and format_cards(hand[-2:]) == "7H 7S"
    assert sorted_notation(hand[2:5]) == ["3S", "8D", "9D"]
    assert game.burned == [] and game.pile == []


# --- Face cards -------------------------------------------------------------------------------

@pytest.mark.parametrize(("face", "chances"), [("JC", 1), ("QC", 2), ("KC", 3), ("AC", 4), ("JK", 5)])
def test_a_face_card_gives_the_next_player_chances(face: str, chances: int) -> None:
    game = Game(NORTHWEST, hands=[f"{face} 9C", "2D 3D 4D 5D 6D 7D"], leader=0)
    started = the(ChallengeStarted, game.play(0, at=0))
    assert (started.target, started.chances) == (1, chances)
    at = play_seats(game, "1" * (chances - 1), start=100)
    assert game.challenge is not None and game.challenge.chances_left == 1 and game.turn == 1
    lost = the(ChallengeLost, game.play(1, at=at))
    assert (lost.seat, lost.winner) == (1, 0)


def test_answering_with_a_face_card_passes_the_challenge_on() -> None:
    game = Game(NORTHWEST, hands=["KC 2C", "3D QD", "4H 5H 6H"], leader=0)
    play_seats(game, "01")
    passed = the(ChallengePassed, game.play(1, at=200))
    assert (passed.seat, passed.target, passed.chances) == (1, 2, 2)
    assert game.turn == 2


def test_a_slap_on_a_double_stops_the_challenge() -> None:
    game = Game(NORTHWEST, hands=["KC 9C", "5D 5S 4D"], leader=0)
    play_seats(game, "011")  # KC, then 5D 5S: a double during the challenge
    events = slap_and_settle(game, 0, 300)
    assert kinds(events) == ["slap_won", "pile_won"]
    assert game.challenge is None and game.turn == 0
    assert format_cards(game.hand(0)) == "9C KC 5D 5S"


def test_a_double_nobody_slaps_does_not_stop_the_challenge() -> None:
    game = Game(NORTHWEST, hands=["KC 9C", "5D 5S 4D"], leader=0)
    play_seats(game, "011")
    assert game.challenge is not None and game.challenge.chances_left == 1
    lost = the(ChallengeLost, game.play(1, at=300))
    assert lost.winner == 0


@pytest.mark.parametrize(("at", "collected"), [
    (200 + GRACE - 1, False),  # just before the grace window ends
    (200 + GRACE, True),  # exactly at the deadline
    (200 + GRACE + 1, True),  # just after
])
def test_the_last_face_card_wins_the_pile_when_the_grace_window_ends(at: int, collected: bool) -> None:
    game = Game(NORTHWEST, hands=["QC 9C", "2D 3D 4D"], leader=0)
    game.play(0, at=0)
    lost = the(ChallengeLost, game.play(1, at=100) + game.play(1, at=200))
    assert lost.collect_at == 200 + GRACE
    events = game.advance(at=at)
    if not collected:
        assert events == [] and game.award is not None
        return
    won = the(PileWon, events)
    assert (won.seat, won.reason, won.at) == (0, "challenge", 200 + GRACE)
    assert format_cards(game.hand(0)) == "9C QC 2D 3D" and game.turn == 0


# --- The course and end of the game -----------------------------------------------------------

def test_only_a_slap_or_a_won_challenge_moves_the_pile() -> None:
    game = Game(NORTHWEST, hands=["2C 5C", "3D 6D 7D 8D 9D", "4H TH"], leader=0)
    events = game.play(0, at=0)
    events += game.play(2, at=100)  # out of turn: burned
    events += game.slap(1, at=200)  # misslap: burned
    assert all_of(PileWon, events) == []
    assert game.live_pile == cards("2C") and len(game.burned) == 4
    assert [game.hand_size(seat) for seat in range(3)] == [1, 2, 1]


def test_a_card_played_out_of_turn_is_burned() -> None:
    game = Game(NORTHWEST, hands=["2C 5C", "3D 6D"], leader=0)
    burned = the(CardsBurned, game.play(1, at=0))
    assert (burned.seat, burned.reason, burned.cards) == (1, "out_of_turn", tuple(cards("3D")))
    assert game.burned == cards("3D") and game.live_pile == []
    assert game.hand(1) == cards("6D") and game.turn == 0


def test_a_card_played_while_a_won_pile_waits_is_out_of_turn_and_burned() -> None:
    game = Game(NORTHWEST, hands=["JC 9C 8C", "2D 3D"], leader=0)
    play_seats(game, "01")  # seat 1 fails the jack: the pile waits for seat 0
    assert game.turn is None
    burned = the(CardsBurned, game.play(0, at=500))  # the "triumphant" card never reaches the pile
    assert burned.reason == "out_of_turn" and game.live_pile == cards("JC 2D")
    won = the(PileWon, game.advance(at=100 + GRACE))
    assert won.seat == 0 and won.cards == 3


def test_a_player_who_loses_all_their_cards_is_out() -> None:
    game = Game(NORTHWEST, hands=["7H 2C", "3D", "4H 5H"], leader=0)
    game.play(0, at=0)
    out = the(PlayerOut, game.play(1, at=100))
    assert (out.seat, out.reason) == (1, "no_cards")
    assert game.status(1) == "out"
    game.play(2, at=200)
    assert game.turn == 0  # seat 1 is skipped


def test_resigning_burns_the_whole_hand() -> None:
    game = Game(NORTHWEST, hands=["2C 5C", "3D 6D 8D", "4H 9H"], leader=0)
    events = game.resign(1, at=0)
    burned = the(CardsBurned, events)
    assert burned.reason == "resigned" and format_cards(burned.cards) == "3D 6D 8D"
    assert the(PlayerOut, events).reason == "resigned"
    assert game.hand_size(1) == 0 and sorted_notation(game.burned) == ["3D", "6D", "8D"]
    assert [game.hand_size(0), game.hand_size(2)] == [2, 2]  # nothing is gifted


def test_holding_every_card_when_a_pile_is_finished_wins() -> None:
    game = Game(NORTHWEST, hands=["7H 2C", "7S"], leader=0)
    play_seats(game, "01")
    assert not game.over  # seat 0 holds every card in hand, but the pile is not finished
    events = slap_and_settle(game, 0, 200)
    over = the(GameOver, events)
    assert (over.seat, over.reason) == (0, "all_cards")
    assert game.winner == 0 and game.hand_size(0) == 3


# --- Finishing out ----------------------------------------------------------------------------

def test_finishing_out_the_last_player_keeps_playing_the_pile() -> None:
    game = Game(NORTHWEST, hands=["2C", "3D 4D 5D"], leader=0)
    game.play(0, at=0)  # seat 0 is out; the pile is not finished
    for at in (100, 200):
        assert game.turn == 1
        game.play(1, at=at)
    assert not game.over and game.live_pile == cards("2C 3D 4D")


def test_finishing_out_a_slap_by_someone_else_lets_the_game_go_on() -> None:
    game = Game(NORTHWEST, hands=["7C", "3D 7D 5D 6D"], leader=0)
    play_seats(game, "011")  # 7C 3D 7D: a sandwich while seat 1 finishes out
    events = slap_and_settle(game, 0, 300)
    assert kinds(events) == ["slap_won", "pile_won", "slapped_in"]
    assert not game.over and game.turn == 0 and game.status(0) == "in"


def test_finishing_out_with_a_face_card_wins_the_game() -> None:
    game = Game(NORTHWEST, hands=["2C", "3D QD"], leader=0)
    events = game.play(0, at=0) + game.play(1, at=100) + game.play(1, at=200)
    assert the(ChallengeLost, events).winner == 1  # nobody is left to answer the queen
    events = game.advance(at=200 + GRACE)
    assert kinds(events) == ["pile_won", "game_over"]
    assert game.winner == 1 and game.end_reason == "all_cards"


def test_finishing_out_when_the_last_cards_run_out_nobody_wins() -> None:
    game = Game(NORTHWEST, hands=["2C", "3D 4D"], leader=0)
    over = the(GameOver, game.play(0, at=0) + game.play(1, at=100) + game.play(1, at=200))
    assert over.seat is None and over.reason == "nobody_wins"
    assert game.winner is None and game.end_reason == "nobody_wins"


@pytest.mark.parametrize(("slap_at", "winner"), [
    (200 + GRACE - 1, 0),  # a slap just before the last chance ends takes the pile
    (200 + GRACE, None),  # exactly at the deadline nobody has won
    (200 + GRACE + 1, None),
])
def test_a_slappable_last_card_leaves_a_last_chance_to_slap(slap_at: int, winner: int | None) -> None:
    game = Game(NORTHWEST, hands=["7H", "2C 7S"], leader=0)
    play_seats(game, "011")  # 7H 2C 7S: the last card makes a sandwich
    assert not game.over and game.next_deadline == 200 + GRACE
    if winner is None:
        over = the(GameOver, game.advance(at=slap_at))
        assert (over.reason, over.at) == ("nobody_wins", 200 + GRACE)
        with pytest.raises(GameOverError):
            game.slap(0, at=slap_at)
    else:
        events = slap_and_settle(game, 0, slap_at)
        assert the(GameOver, events).seat == winner and game.end_reason == "all_cards"


# --- Slapping in ------------------------------------------------------------------------------

def test_a_player_who_is_out_may_slap_back_in() -> None:
    game = Game(NORTHWEST, hands=["7H 2C 9C", "7S", "4H 5H"], leader=0)
    play_seats(game, "01")
    assert game.status(1) == "out"
    events = slap_and_settle(game, 1, 200)
    assert kinds(events) == ["slap_won", "pile_won", "slapped_in"]
    assert game.status(1) == "in" and game.turn == 1


def test_three_misslaps_in_a_row_while_out_bar_slapping_in() -> None:
    game = Game(NORTHWEST, hands=["2C 5C 8C TC", "3D", "4H 6H 9H"], leader=0)
    play_seats(game, "01")  # seat 1 is out
    assert the(Misslap, game.slap(1, at=200)).penalty == "none"
    game.play(2, at=300)
    game.slap(1, at=400)
    assert game.status(1) == "out"  # two misslaps: still allowed
    game.play(0, at=500)
    events = game.slap(1, at=600)
    assert kinds(events) == ["misslap", "player_barred"]
    assert game.status(1) == "barred"
    with pytest.raises(SlapNotAllowedError, match="barred"):
        game.slap(1, at=700)


def test_the_misslap_limit_resets_after_slapping_in_and_running_out_again() -> None:
    game = Game(NORTHWEST, hands=["2C 7C 5C 9C", "3D", "4H 7H 6H 2H"], leader=0)
    play_seats(game, "01")  # seat 1 is out
    game.slap(1, at=150)
    game.play(2, at=200)
    game.slap(1, at=250)  # two misslaps while out
    play_seats(game, "02", start=300)  # 7C 7H
    assert kinds(slap_and_settle(game, 1, 450))[-1] == "slapped_in"
    assert game.hand_size(1) == 5
    # (each misslap comes after the too-slow window of the pile just won: 500 ms)
    game.slap(1, at=1000)  # burns three of five
    assert the(PlayerOut, game.slap(1, at=1100)).seat == 1  # burns the last two: out again
    game.slap(1, at=1200)
    game.slap(1, at=1300)
    assert game.status(1) == "out"  # the count started again
    assert kinds(game.slap(1, at=1400)) == ["misslap", "player_barred"]


def test_people_who_were_not_dealt_in_may_slap_in() -> None:
    game = Game(NORTHWEST, hands=["7H 2C", "7S 3D", ""], leader=0)
    assert game.status(2) == "out"
    play_seats(game, "01")
    events = slap_and_settle(game, 2, 200)
    assert kinds(events) == ["slap_won", "pile_won", "slapped_in"]
    assert game.turn == 2 and format_cards(game.hand(2)) == "7H 7S"


def test_slapping_in_can_be_switched_off() -> None:
    rules = northwest(out_of_cards="out", outsiders_slap_in=False)
    game = Game(rules, hands=["7H 2C", "7S", ""], leader=0)
    assert game.status(2) == "watching"
    play_seats(game, "01")
    assert game.status(1) == "eliminated"
    for seat in (1, 2):
        with pytest.raises(SlapNotAllowedError):
            game.slap(seat, at=300)


# --- Ties -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("second_at", "tie"), [
    (300 + TIE - 1, True),  # inside the tie window
    (300 + TIE, False),  # exactly when it closes: seat 2 has won, seat 0 is late
    (300 + TIE + 1, False),
])
def test_slaps_inside_the_tie_window_are_void_and_nobody_pays(second_at: int, tie: bool) -> None:
    game = Game(NORTHWEST, hands=["7H 2C", "7S 3D", "4H 5H"], leader=0)
    play_seats(game, "01")
    assert game.slap(2, at=300) == []
    events = game.slap(0, at=second_at) + game.advance(at=400)
    if tie:
        verdict = the(SlapTie, events)
        assert verdict.outcome == "void" and set(verdict.seats) == {0, 2} and verdict.winner is None
        assert game.live_pile == cards("7H 7S") and game.burned == []
        assert [game.hand_size(seat) for seat in range(3)] == [1, 1, 2]
        assert game.turn == 2  # play goes on as if nobody slapped
        assert the(SlapIgnored, game.slap(1, at=500)).reason == "void"
    else:
        assert the(SlapWon, events).seat == 2 and all_of(Misslap, events) == []
        assert the(SlapIgnored, events).seat == 0 and game.hand_size(0) == 1


# --- The Failure rule -------------------------------------------------------------------------

@pytest.mark.parametrize(("face", "chances", "extra_burn"), [("JK", 5, True), ("KC", 3, False)])
def test_failing_a_joker_burns_one_more_card(face: str, chances: int, extra_burn: bool) -> None:
    game = Game(NORTHWEST, hands=[f"{face} 2C", "4D 5D 6D 7D 8D 9D TD"], leader=0)
    game.play(0, at=0)
    events = []
    for n in range(chances):
        events += game.play(1, at=100 * (n + 1))
    failure = [event for event in all_of(CardsBurned, events) if event.reason == "failure"]
    if extra_burn:
        assert len(failure) == 1 and failure[0].seat == 1 and failure[0].cards == tuple(cards("9D"))
        assert game.hand(1) == cards("TD")
    else:
        assert failure == [] and game.hand_size(1) == 7 - chances
    won = the(PileWon, game.advance(at=100 * chances + GRACE))
    assert won.seat == 0 and won.cards == chances + 1 + extra_burn


@pytest.mark.parametrize("slapper", [None, 0, 1])
def test_no_failure_burn_when_the_last_card_makes_a_slap(slapper: int | None) -> None:
    game = Game(NORTHWEST, hands=["JK 2C", "4D 5D 6D 7D 7S 9D"], leader=0)
    game.play(0, at=0)
    events = []
    for n in range(5):
        events += game.play(1, at=100 * (n + 1))  # the fifth card, 7S, makes a double
    assert the(ChallengeLost, events).winner == 0
    assert all_of(CardsBurned, events) == [] and game.hand(1) == cards("9D")
    if slapper is not None:  # whoever takes the slap, there is still no extra burn
        assert the(SlapWon, slap_and_settle(game, slapper, 600)).seat == slapper
    else:
        assert the(PileWon, game.advance(at=500 + GRACE)).seat == 0
    assert game.burned == []


# --- The Five-Second rule (off in the preset) -------------------------------------------------

@pytest.mark.parametrize(("at", "outcome"), [(4999, "misslap"), (5000, "claim"), (5001, "claim")])
def test_five_second_rule_anyone_may_take_a_won_pile_after_five_seconds(at: int, outcome: str) -> None:
    rules = northwest(collect="slap", claim_window_ms=5000)
    game = Game(rules, hands=["JC 9C", "2D 3D", "4H 6H 7H 8H 9H TH"], leader=0)
    game.play(0, at=0)
    lost = the(ChallengeLost, game.play(1, at=0))
    assert lost.collect_at is None and lost.exclusive_until == 5000
    events = game.slap(2, at=at)
    if outcome == "misslap":
        assert kinds(events) == ["misslap"] and game.award is not None
    else:
        assert kinds(events) == ["claim_opened", "slap_won", "pile_won"]
        assert the(PileWon, events).seat == 2 and the(PileWon, events).reason == "claim"


def test_five_second_rule_the_winner_picks_up_their_pile_in_time() -> None:
    rules = northwest(collect="slap", claim_window_ms=5000)
    game = Game(rules, hands=["JC 9C", "2D 3D", "4H 6H"], leader=0)
    play_seats(game, "01")
    assert game.advance(at=4000) == []  # nothing happens by itself
    won = the(PileWon, game.slap(0, at=4100))
    assert (won.seat, won.reason) == (0, "claim")


def test_five_second_rule_a_voided_tie_does_not_stop_the_winner_picking_up() -> None:
    rules = northwest(collect="slap", claim_window_ms=5000)
    game = Game(rules, hands=["JC 9C", "5C 5D 3D", ""], leader=1)
    play_seats(game, "101")  # 5C JC 5D: seat 1 fails the jack with a sandwich
    assert game.award is not None and game.award.winner == 0
    game.slap(1, at=300)
    verdict = the(SlapTie, game.slap(2, at=310) + game.advance(at=400))
    assert verdict.outcome == "void"  # the sandwich is void; the pile is still seat 0's
    won = the(PileWon, game.slap(0, at=500))
    assert (won.seat, won.reason) == (0, "claim") and game.turn == 0


def test_five_second_rule_does_not_apply_to_a_pile_that_ends_the_game() -> None:
    rules = northwest(collect="slap", claim_window_ms=5000)
    game = Game(rules, hands=["KC", "2D 3D 4D"], leader=0)
    play_seats(game, "0111")  # seat 1 fails the king with its last card
    game.advance(at=6000)  # long after the claim window would have closed
    with contextlib.suppress(SlapNotAllowedError, GameOverError):
        game.slap(1, at=6100)  # seat 1 is out; the pile would give seat 0 every card
    assert game.hand_size(1) == 0
    if not game.over:  # if the engine waits for a claim, only the winner's slap takes it
        game.slap(0, at=6200)
    assert game.winner == 0 and game.end_reason == "all_cards"


# --- Obsolete rules (switches, off in the preset) ---------------------------------------------

def test_joker_slap_rule_others_burn_a_card_in_tribute() -> None:
    rules = northwest(joker_slap_tribute=True)
    game = Game(rules, hands=["JK 2C 3C", "7H JK 4D", "5S 6S 8S"], leader=0)
    play_seats(game, "011")  # JK 7H JK: a joker sandwich
    events = slap_and_settle(game, 2, 300)
    assert the(SlapWon, events).pattern == "sandwich"
    tributes = [event for event in all_of(CardsBurned, events) if event.reason == "tribute"]
    assert sorted((event.seat, format_cards(event.cards)) for event in tributes) == [(0, "2C"), (1, "4D")]
    assert sorted_notation(game.burned) == ["2C", "4D"]  # under the next pile


def test_joker_slap_rule_is_off_in_the_preset() -> None:
    game = Game(NORTHWEST, hands=["JK 2C 3C", "7H JK 4D", "5S 6S 8S"], leader=0)
    play_seats(game, "011")
    events = slap_and_settle(game, 2, 300)
    assert the(SlapWon, events).pattern == "sandwich" and all_of(CardsBurned, events) == []


def test_joker_slap_rule_ends_once_the_joker_sandwich_is_covered() -> None:
    rules = northwest(joker_slap_tribute=True)
    game = Game(rules, hands=["JK 2C", "4C JK 3D", "4D 5S 6S"], leader=0)
    play_seats(game, "0112")  # JK 4C JK 4D: a sandwich of fours on the joker sandwich
    events = slap_and_settle(game, 0, 400)
    assert the(SlapWon, events).pattern == "sandwich" and all_of(CardsBurned, events) == []


def test_a_resigned_player_may_slap_back_in_under_the_current_rules() -> None:
    game = Game(NORTHWEST, hands=["7H 2C", "3D 9D", "7S 4H"], leader=0)
    assert the(PlayerOut, game.resign(1, at=0)).may_slap_in
    play_seats(game, "02", start=100)  # 7H 7S
    assert kinds(slap_and_settle(game, 1, 300))[-1] == "slapped_in"


def test_resignation_rule_a_resigned_player_may_not_slap_back_in() -> None:
    game = Game(northwest(resign_bars_slap_in=True), hands=["7H 2C", "3D 9D", "7S 4H"], leader=0)
    assert not the(PlayerOut, game.resign(1, at=0)).may_slap_in
    play_seats(game, "02", start=100)
    assert game.status(1) == "eliminated"
    with pytest.raises(SlapNotAllowedError):
        game.slap(1, at=300)


def test_double_burn_rule_out_of_turn_burns_the_card_and_one_more() -> None:
    game = Game(northwest(double_burn=True), hands=["2C 5C", "3D 6D 8D"], leader=0)
    burned = the(CardsBurned, game.play(1, at=0))
    assert burned.reason == "out_of_turn" and format_cards(burned.cards) == "3D 6D"
    assert game.hand(1) == cards("8D")


# --- Terminology that touches the rules -------------------------------------------------------

def test_counting_every_seat_sees_the_face_up_pile_in_order() -> None:
    game = Game(NORTHWEST, hands=["4C 7H 2C", "9D 3S 3D"], leader=0)
    play_seats(game, "0101")
    for seat in (0, 1):
        seen = game.observe(seat)
        assert seen["pile"] == ["4C", "9D", "7H", "3S"]
        assert seen["pile_played_by"] == [0, 1, 0, 1]


def test_burning_out_by_misslapping_is_allowed() -> None:
    game = Game(NORTHWEST, hands=["2C 5C", "3D 4D 6D 8D 9D"], leader=0)
    game.play(0, at=0)
    game.slap(1, at=100)
    events = game.slap(1, at=200)
    assert the(PlayerOut, events).reason == "no_cards" and game.hand_size(1) == 0
    assert len(game.burned) == 5
