"""The short classic description (seed 001, preset ``pagat``), one scenario per rule.

Doubles only, one card under the pile for a misslap (a "shelp"), slapping in, at most five
players, and the last player holding cards wins. Hands are written top card first; docs/rules.md
maps every sentence of the seed to its test here or to the reason it cannot apply.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from scenario import cards, kinds, play_seats, the

from ratscrew.cards import format_cards
from ratscrew.engine import Game
from ratscrew.errors import SlapNotAllowedError
from ratscrew.events import (
    ChallengeLost,
    ChallengePassed,
    ChallengeStarted,
    GameOver,
    Misslap,
    PileWon,
    SlapWon,
)
from ratscrew.ruleset import Ruleset

PAGAT = Ruleset.preset("pagat")
GRACE = PAGAT.grace_ms

def pagat(**changes: Any) -> Ruleset:
    """The pagat preset with some settings changed (the house-rule alternatives the seed names)."""
    return dataclasses.replace(PAGAT, **changes)






def test_all_cards_are_dealt_face_down_evenly() -> None:
    game = Game.deal(PAGAT, players=4, seed=3)
    dealt = [card for seat in range(4) for card in game.hand(seat)]
    assert [game.hand_size(seat) for seat in range(4)] == [13, 13, 13, 13]
    assert len({str(card) for card in dealt}) == 52 and not any(card.is_joker for card in dealt)
    seen = json.dumps(game.observe(0))
    assert not [card for card in dealt if str(card) in seen]  # face down, even to their owner


def test_the_player_left_of_the_dealer_begins() -> None:
    game = Game(PAGAT, hands=["2C 3C", "4D AD", "5H KH"])  # seat 0 sits left of the dealer
    assert game.leader == 0 and game.turn == 0


def test_number_cards_pass_play_to_the_left() -> None:
    game = Game(PAGAT, hands=["2C 5C", "3D 6D", "4H 8H"], leader=0)
    turns = []
    for at in range(0, 400, 100):
        assert game.turn is not None
        turns.append(game.turn)
        game.play(game.turn, at=at)
    assert turns == [0, 1, 2, 0]


@pytest.mark.parametrize(("face", "chances"), [("AC", 4), ("KC", 3), ("QC", 2), ("JC", 1)])
def test_a_face_card_gives_the_next_player_chances_to_answer(face: str, chances: int) -> None:
    game = Game(PAGAT, hands=[f"{face} 9C", "2D 3D 4D 5D 6D"], leader=0)
    started = the(ChallengeStarted, game.play(0, at=0))
    assert (started.target, started.chances) == (1, chances)
    at = play_seats(game, "1" * (chances - 1), start=100)
    assert game.challenge is not None and game.turn == 1
    assert the(ChallengeLost, game.play(1, at=at)).winner == 0


@pytest.mark.parametrize(("at", "collected"), [
    (100 + GRACE - 1, False),
    (100 + GRACE, True),
    (100 + GRACE + 1, True),
])
def test_failing_to_answer_gives_the_pile_to_the_face_card_player(at: int, collected: bool) -> None:
    game = Game(PAGAT, hands=["JC 9C", "2D 3D"], leader=0)
    play_seats(game, "01")  # 2D fails the jack
    events = game.advance(at=at)
    if not collected:
        assert events == [] and game.turn is None
        return
    won = the(PileWon, events)
    assert (won.seat, won.reason, won.at) == (0, "challenge", 100 + GRACE)
    assert format_cards(game.hand(0)) == "9C JC 2D"  # under the rest of his cards
    assert game.turn == 0


def test_answering_with_a_face_card_passes_the_challenge_on() -> None:
    game = Game(PAGAT, hands=["KC 2C", "3D QD", "4H 5H 6H"], leader=0)
    play_seats(game, "01")
    passed = the(ChallengePassed, game.play(1, at=200))
    assert (passed.target, passed.chances) == (2, 2) and game.turn == 2


def test_anyone_may_slap_a_double_at_any_point() -> None:
    game = Game(PAGAT, hands=["KC 9C", "5D 5S 4D", "2H 3H"], leader=0)
    play_seats(game, "011")  # KC 5D 5S: a double in the middle of a challenge
    events = game.slap(2, at=300)  # seat 2 is not even part of the challenge
    assert kinds(events) == ["slap_won", "pile_won"]
    assert format_cards(game.hand(2)) == "2H 3H KC 5D 5S"
    assert game.challenge is None and game.turn == 2


def test_a_misslap_puts_one_card_under_the_pile_a_shelp() -> None:
    game = Game(PAGAT, hands=["2C 5C", "3D 6D 8D"], leader=0)
    game.play(0, at=0)
    misslap = the(Misslap, game.slap(1, at=100))
    assert misslap.penalty == "burn" and misslap.cards == tuple(cards("3D"))  # the top card
    assert game.pile == cards("3D 2C") and game.burned == cards("3D")
    assert game.hand(1) == cards("6D 8D")


def test_a_double_is_slappable_whatever_the_suits() -> None:
    game = Game(PAGAT, hands=["9C 2C", "9H 3D"], leader=0)
    play_seats(game, "01")
    won = the(SlapWon, game.slap(0, at=200))
    assert won.pattern == "double"


def test_a_sandwich_is_not_slappable() -> None:
    game = Game(PAGAT, hands=["7H 2C", "3C 4D 6D", "7S 5D"], leader=0)
    play_seats(game, "012")
    assert game.slap_pattern() is None
    assert kinds(game.slap(1, at=300)) == ["misslap"]


def test_sandwiches_are_a_one_line_house_rule() -> None:
    game = Game(pagat(slaps=("double", "sandwich")), hands=["7H 2C", "3C 4D", "7S 5D"], leader=0)
    play_seats(game, "012")
    assert the(SlapWon, game.slap(1, at=300)).pattern == "sandwich"


def test_a_player_out_of_cards_may_slap_in() -> None:
    game = Game(PAGAT, hands=["7H 2C 9C", "7S", "4H 5H"], leader=0)
    play_seats(game, "01")
    assert game.status(1) == "out"
    assert kinds(game.slap(1, at=200)) == ["slap_won", "pile_won", "slapped_in"]
    assert game.turn == 1


def test_a_player_out_of_cards_loses_under_the_other_house_rule() -> None:
    game = Game(pagat(out_of_cards="out"), hands=["7H 2C 9C", "7S", "4H 5H"], leader=0)
    play_seats(game, "01")
    assert game.status(1) == "eliminated"
    with pytest.raises(SlapNotAllowedError):
        game.slap(1, at=200)


def test_newcomers_may_slap_in() -> None:
    game = Game(PAGAT, hands=["7H 2C", "7S 3D", ""], leader=0)
    play_seats(game, "01")
    assert kinds(game.slap(2, at=200)) == ["slap_won", "pile_won", "slapped_in"]
    assert format_cards(game.hand(2)) == "7H 7S" and game.turn == 2


def test_newcomers_may_be_refused() -> None:
    game = Game(pagat(outsiders_slap_in=False), hands=["7H 2C", "7S 3D", ""], leader=0)
    play_seats(game, "01")
    assert game.status(2) == "watching"
    with pytest.raises(SlapNotAllowedError):
        game.slap(2, at=200)


def test_the_only_player_with_cards_has_won() -> None:
    game = Game(PAGAT, hands=["2C 7H", "9S 3D 4D"], leader=0)
    play_seats(game, "01")
    events = game.play(0, at=200)  # seat 0 plays its last card
    over = the(GameOver, events)
    assert (over.seat, over.reason) == (1, "all_cards")
    assert game.winner == 1 and game.hand_size(1) == 5  # the cards on the table go to the winner


def test_a_slappable_pile_left_on_the_table_may_still_be_slapped() -> None:
    game = Game(PAGAT, hands=["2C 7H", "7S 3D 4D"], leader=0)
    play_seats(game, "010")  # 2C 7S 7H: seat 0 is out, but the pile shows a double
    assert not game.over and game.turn == 1
    assert kinds(game.slap(0, at=300)) == ["slap_won", "pile_won", "slapped_in"]
    assert not game.over and format_cards(game.hand(0)) == "2C 7S 7H"


def test_when_nobody_slaps_the_pile_left_on_the_table_the_last_holder_wins() -> None:
    game = Game(PAGAT, hands=["2C 7H", "7S 3D 4D"], leader=0)
    play_seats(game, "010")
    over = the(GameOver, game.play(1, at=300))  # 3D covers the double
    assert over.seat == 1 and game.hand_size(1) == 5


def test_at_most_five_players() -> None:
    five = ["2C", "3C", "4C", "5C", "6C"]
    assert Game(PAGAT, hands=five, leader=0).players == 5
    with pytest.raises(ValueError, match="5"):
        Game(PAGAT, hands=[*five, "7C"], leader=0)
    with pytest.raises(ValueError, match="5"):  # nobody more may slap in, either
        Game(PAGAT, hands=[*five, ""], leader=0)
    with pytest.raises(ValueError, match="5"):
        Game.deal(PAGAT, players=5, seed=1, outsiders=1)
