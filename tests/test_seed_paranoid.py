"""The "Paranoid Game" README (seed 004, preset ``paranoid``), one scenario per rule.

No jokers; doubles and sandwiches; an erroneous slap puts five cards in a penalty pile that the
next legitimate claimer takes; after a won face-card challenge the winner must slap to claim the
pile and has it alone for three seconds. Hands are written top card first; docs/rules.md maps
every rule of the README to its test here.
"""

from __future__ import annotations

import json

import pytest
from scenario import cards, kinds, play_seats, the

from ratscrew.cards import Card, format_cards
from ratscrew.engine import Game
from ratscrew.errors import NotYourTurnError, SlapNotAllowedError
from ratscrew.events import (
    CardPlayed,
    ChallengeLost,
    ChallengeStarted,
    ClaimOpened,
    GameOver,
    Misslap,
    PileWon,
    PlayerOut,
    SlapWon,
)
from ratscrew.ruleset import Ruleset

PARANOID = Ruleset.preset("paranoid")
WINDOW = PARANOID.claim_window_ms





def won_jack(third_hand: str = "4H 6H 7H 8H 9H TH") -> Game:
    """Seat 0 leads a jack at 0 ms and seat 1 fails it at 0 ms: seat 0 is owed the pile and
    has it alone until the claim window ends."""
    game = Game(PARANOID, hands=["JC 9C", "2D 3D", third_hand], leader=0)
    game.play(0, at=0)
    lost = the(ChallengeLost, game.play(1, at=0))
    assert (lost.winner, lost.collect_at, lost.exclusive_until) == (0, None, WINDOW)
    return game


# --- Objective and gameplay -------------------------------------------------------------------

def test_the_game_ends_when_one_player_holds_all_the_cards() -> None:
    game = Game(PARANOID, hands=["7H 2C", "7S"], leader=0)
    play_seats(game, "01")
    over = the(GameOver, game.slap(0, at=200))
    assert (over.seat, over.reason) == (0, "all_cards") and game.hand_size(0) == 3


def test_a_standard_deck_without_jokers_is_dealt_to_all_players() -> None:
    game = Game.deal(PARANOID, players=3, seed=8)
    dealt = [card for seat in range(3) for card in game.hand(seat)]
    assert [game.hand_size(seat) for seat in range(3)] == [18, 17, 17]
    assert len({str(card) for card in dealt}) == 52 and not any(card.is_joker for card in dealt)


def test_players_never_see_their_own_cards() -> None:
    game = Game(PARANOID, hands=["2C 5H 9S", "3D 6C TD"], leader=0)
    for seat in (0, 1):
        seen = json.dumps(game.observe(seat))
        assert not [card for card in game.hand(seat) if str(card) in seen]
        assert game.observe(seat)["hand_sizes"] == [3, 3]


def test_one_player_at_a_time_plays_their_top_card() -> None:
    game = Game(PARANOID, hands=["2C 5H", "3D 6C"], leader=0)
    with pytest.raises(NotYourTurnError):
        game.play(1, at=0)
    assert the(CardPlayed, game.play(0, at=0)).card == Card.parse("2C")
    assert game.pile == cards("2C") and game.turn == 1


def test_the_turn_goes_clockwise_to_the_next_player_with_cards() -> None:
    game = Game(PARANOID, hands=["2C 5C 8C", "3D", "4H 6H 9H"], leader=0)
    play_seats(game, "01")  # seat 1 plays its last card
    assert game.turn == 2
    game.play(2, at=200)
    assert game.turn == 0  # seat 1 is skipped
    game.play(0, at=300)
    assert game.turn == 2


def test_the_first_slap_takes_the_pile_and_starts_the_next_turn() -> None:
    game = Game(PARANOID, hands=["7H 2C", "7S 3D", "4H 5H"], leader=0)
    play_seats(game, "01")
    events = game.slap(2, at=300)
    assert kinds(events) == ["slap_won", "pile_won"]
    assert format_cards(game.hand(2)) == "4H 5H 7H 7S" and game.turn == 2


# --- Doubles and sandwiches -------------------------------------------------------------------

def test_a_double_is_the_same_value_back_to_back_regardless_of_suit() -> None:
    game = Game(PARANOID, hands=["QH 2C", "QS 3D"], leader=0)
    play_seats(game, "01")
    assert the(SlapWon, game.slap(0, at=200)).pattern == "double"


def test_a_sandwich_is_a_pair_split_by_one_card() -> None:
    game = Game(PARANOID, hands=["7H 2C", "3C 4D", "7S 5D"], leader=0)
    play_seats(game, "012")
    assert the(SlapWon, game.slap(1, at=300)).pattern == "sandwich"


@pytest.mark.parametrize("pile", ["7H 7S 9C", "7H 3C 7S 9D"])
def test_a_covered_double_or_sandwich_may_not_be_slapped(pile: str) -> None:
    played = pile.split()
    hands = [" ".join([*played[0::2], "TC"]), " ".join([*played[1::2], "2D 4D 5D 6D 8D"])]
    game = Game(PARANOID, hands=hands, leader=0)
    play_seats(game, "01" * (len(played) // 2) + "0" * (len(played) % 2))
    assert game.slap_pattern() is None
    assert the(Misslap, game.slap(1, at=1000)).penalty == "penalty_pile"


# --- Face cards and the claim -----------------------------------------------------------------

@pytest.mark.parametrize(("face", "chances"), [("AC", 4), ("KC", 3), ("QC", 2), ("JC", 1)])
def test_a_face_card_gives_the_next_player_chances(face: str, chances: int) -> None:
    game = Game(PARANOID, hands=[f"{face} 9C", "2D 3D 4D 5D 6D"], leader=0)
    started = the(ChallengeStarted, game.play(0, at=0))
    assert (started.target, started.chances) == (1, chances)
    at = play_seats(game, "1" * (chances - 1), start=100)
    assert game.challenge is not None
    assert the(ChallengeLost, game.play(1, at=at)).winner == 0


def test_the_face_card_player_slaps_to_take_the_pile() -> None:
    game = won_jack()
    events = game.advance(at=60_000)
    assert not [event for event in events if isinstance(event, PileWon)]  # never by itself
    assert game.award is not None and game.turn is None
    won = the(PileWon, game.slap(0, at=60_100))
    assert (won.seat, won.reason) == (0, "claim")
    assert format_cards(game.hand(0)) == "9C JC 2D" and game.turn == 0


@pytest.mark.parametrize("at", [1, WINDOW - 1, WINDOW, WINDOW + 1])
def test_the_owner_may_claim_at_any_time(at: int) -> None:
    game = won_jack()
    assert the(PileWon, game.slap(0, at=at)).seat == 0


@pytest.mark.parametrize(("at", "claimed"), [
    (WINDOW - 1, False),  # still the owner's own three seconds: a misslap
    (WINDOW, True),  # exactly three seconds: open to everyone
    (WINDOW + 1, True),
])
def test_after_three_seconds_anyone_may_claim_the_pile(at: int, claimed: bool) -> None:
    game = won_jack()
    events = game.slap(2, at=at)
    if claimed:
        assert kinds(events) == ["claim_opened", "slap_won", "pile_won"]
        assert the(ClaimOpened, events).at == WINDOW
        assert the(PileWon, events).seat == 2 and game.turn == 2
    else:
        assert the(Misslap, events).penalty == "penalty_pile"
        assert game.award is not None and game.award.winner == 0


def test_a_sandwich_made_by_the_failing_card_is_anyones_slap() -> None:
    game = Game(PARANOID, hands=["JC 9C", "5C 5D 3D"], leader=1)
    play_seats(game, "101")  # 5C JC 5D: the failing card makes a sandwich
    assert game.award is not None and game.award.winner == 0
    won = the(SlapWon, game.slap(1, at=300))  # inside the owner's three seconds
    assert (won.seat, won.pattern) == (1, "sandwich")
    assert format_cards(game.hand(1)) == "3D 5C JC 5D" and game.award is None


# --- Penalty for erroneous slapping ------------------------------------------------------------

def test_an_erroneous_slap_puts_five_cards_in_the_penalty_pile() -> None:
    game = Game(PARANOID, hands=["2C 5C", "3D 6D 8D 9D TD 4D"], leader=0)
    game.play(0, at=0)
    misslap = the(Misslap, game.slap(1, at=100))
    assert misslap.penalty == "penalty_pile" and format_cards(misslap.cards) == "3D 6D 8D 9D TD"
    assert format_cards(game.penalty_pile) == "3D 6D 8D 9D TD"
    assert game.pile == cards("2C") and game.hand(1) == cards("4D")


def test_the_next_slap_winner_takes_the_penalty_pile() -> None:
    game = Game(PARANOID, hands=["7H 2C", "3D 6D 8D 9D TD 7S"], leader=0)
    game.play(0, at=0)
    game.slap(1, at=100)  # five cards to the penalty pile
    game.play(1, at=200)  # 7S on 7H
    won = the(PileWon, game.slap(0, at=300))
    assert (won.cards, won.penalty_cards) == (2, 5)
    assert format_cards(game.hand(0)) == "2C 7H 7S 3D 6D 8D 9D TD"
    assert game.penalty_pile == []


@pytest.mark.parametrize(("claimer", "at"), [(0, 2000), (2, WINDOW)])
def test_the_claimer_of_a_won_challenge_takes_the_penalty_pile(claimer: int, at: int) -> None:
    game = won_jack(third_hand="4H 6H 7H 8H 9H TH")
    game.slap(2, at=1000)  # a misslap inside the owner's window: five cards to the penalty pile
    assert len(game.penalty_pile) == 5
    won = the(PileWon, game.slap(claimer, at=at))
    assert (won.seat, won.cards, won.penalty_cards) == (claimer, 2, 5)
    assert game.penalty_pile == []


def test_an_erroneous_slap_with_fewer_than_five_cards_pays_them_all() -> None:
    game = Game(PARANOID, hands=["2C 5C", "3D 6D", "4H 8H"], leader=0)
    game.play(0, at=0)
    events = game.slap(1, at=100)
    assert format_cards(the(Misslap, events).cards) == "3D 6D"
    assert the(PlayerOut, events).seat == 1


def test_players_with_no_cards_are_out() -> None:
    game = Game(PARANOID, hands=["7H 2C 9C", "7S", "4H 5H"], leader=0)
    play_seats(game, "01")
    assert game.status(1) == "eliminated"
    with pytest.raises(SlapNotAllowedError):
        game.slap(1, at=200)


def test_the_last_player_with_cards_takes_what_is_left_and_wins() -> None:
    game = Game(PARANOID, hands=["2C", "3D 4D"], leader=0)
    events = game.play(0, at=0)  # seat 0 plays its last card and is out for good
    won = the(PileWon, events)
    assert (won.seat, won.reason) == (1, "last_holder")
    assert game.winner == 1 and game.end_reason == "all_cards" and game.hand_size(1) == 3
