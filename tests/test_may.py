"""Who may act: `Game.may(seat, kind)` against the rules, scenario by scenario, and the
observation's ``may``, which carries it to every reader (bots, learning environments, the
terminal and the browser)."""

import dataclasses
import json

import pytest
from scenario import kinds, play_seats

from ratscrew.engine import Game
from ratscrew.errors import NoSuchSeatError, SlapNotAllowedError
from ratscrew.observation import SLAPPING_STATUSES, ActKind, observed_may
from ratscrew.ruleset import Ruleset

CLASSIC = Ruleset.preset("classic")


def classic(**changes: object) -> Ruleset:
    return dataclasses.replace(CLASSIC, **changes)  # type: ignore[arg-type]


def who_may(game: Game, kind: ActKind) -> list[int]:
    """The seats that may ``kind`` now, by `Game.may`, checked against the observation's
    ``may`` (every seat's view and the spectator's carry the same lists)."""
    seats = [seat for seat in range(game.players) if game.may(seat, kind)]
    for viewer in (None, *range(game.players)):
        shown = game.observe(viewer)["may"][kind]
        assert [seat for seat, may in enumerate(shown) if may] == seats
    return seats


def test_only_the_seat_whose_turn_it_is_may_play_and_everyone_holding_cards_may_slap() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D", "4H 5H"], leader=0)
    assert who_may(game, "play") == [0]
    game.play(0, at=0)
    assert who_may(game, "play") == [1]
    assert who_may(game, "slap") == [0, 1, 2]


def test_a_double_on_the_pile_may_be_slapped_by_every_seat_that_is_in() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D", "4H 5H"], leader=0)
    play_seats(game, "01")  # 7H 7S: a double
    assert game.slap_pattern() == "double"
    assert who_may(game, "slap") == [0, 1, 2]
    assert kinds(game.slap(2, at=500)) == ["slap_won", "pile_won"]


def test_while_a_face_cards_challenge_is_pending_only_the_challenged_seat_may_play() -> None:
    game = Game(CLASSIC, hands=["KC 9C", "2D 3D 4D 5D", "6H 8H"], leader=0)
    game.play(0, at=0)  # a king: seat 1 owes three cards
    assert game.challenge is not None and game.challenge.target == 1
    assert who_may(game, "play") == [1]
    assert who_may(game, "slap") == [0, 1, 2]


def test_a_pile_waiting_for_collection_may_be_played_on_by_nobody_and_claimed_by_its_winner() -> None:
    game = Game(CLASSIC, hands=["QC 9C", "2D 3D 4D", "6H 8H"], leader=0)
    game.play(0, at=0)
    play_seats(game, "11", start=100)  # QC 2D 3D: the challenge is lost
    assert game.award is not None and game.award.winner == 0
    assert who_may(game, "play") == []
    assert 0 in who_may(game, "slap")
    assert kinds(game.slap(0, at=350)) == ["slap_won", "pile_won"]


def test_a_locked_out_seat_may_play_in_turn_but_may_not_slap() -> None:
    game = Game(classic(misslap_penalty="lockout"), hands=["2H 7C 5C", "3S 7D 9D"], leader=0)
    game.play(0, at=0)
    assert kinds(game.slap(1, at=50)) == ["misslap", "locked_out"]
    assert game.status(1) == "locked"
    assert who_may(game, "slap") == [0]
    assert who_may(game, "play") == [1]
    with pytest.raises(SlapNotAllowedError):
        game.slap(1, at=60)


def test_a_locked_out_seat_owed_a_pile_may_slap_to_claim_it() -> None:
    # Its status says "locked", yet under slap collection the pile it won is its to claim.
    rules = classic(misslap_penalty="lockout", collect="slap")
    game = Game(rules, hands=["2H KC 5C 6C", "3S 4D 8D 9D 7H"], leader=0)
    game.play(0, at=0)
    assert kinds(game.slap(0, at=50)) == ["misslap", "locked_out"]
    play_seats(game, "10111", start=100)  # 3S KC, then 4D 8D 9D: the challenge is lost
    assert game.award is not None and game.award.winner == 0
    assert game.status(0) == "locked" and game.status(0) not in SLAPPING_STATUSES
    assert 0 in who_may(game, "slap")
    assert kinds(game.slap(0, at=600)) == ["slap_won", "pile_won"]


def test_a_locked_out_seat_that_ran_out_of_cards_shows_out_yet_may_not_slap() -> None:
    game = Game(classic(misslap_penalty="lockout"), hands=["2H 5C 6C 8C", "3S 4D"], leader=0)
    game.play(0, at=0)
    assert kinds(game.slap(1, at=50)) == ["misslap", "locked_out"]
    play_seats(game, "101", start=100)  # 3S 5C 4D: seat 1 has played its last card
    assert game.hand_size(1) == 0 and game.status(1) == "out"
    assert who_may(game, "slap") == [0]
    with pytest.raises(SlapNotAllowedError, match="locked out"):
        game.slap(1, at=400)


def test_a_seat_out_of_cards_may_slap_in_only_where_the_rules_let_it() -> None:
    hands = ["7H 2C 9C", "7S", "4H 5H"]
    slap_in = Game(CLASSIC, hands=hands, leader=0)
    play_seats(slap_in, "01")
    assert slap_in.status(1) == "out"
    assert who_may(slap_in, "slap") == [0, 1, 2] and 1 not in who_may(slap_in, "play")
    out_means_out = Game(classic(out_of_cards="out"), hands=hands, leader=0)
    play_seats(out_means_out, "01")
    assert out_means_out.status(1) == "eliminated"
    assert who_may(out_means_out, "slap") == [0, 2]


def test_nobody_may_act_once_the_game_is_over() -> None:
    game = Game(CLASSIC, hands=["7H", "7S"], leader=0)
    play_seats(game, "01")
    game.slap(0, at=500)
    assert game.over
    assert who_may(game, "play") == [] and who_may(game, "slap") == []


def test_may_names_what_it_refuses() -> None:
    game = Game(CLASSIC, hands=["7H", "7S"], leader=0)
    with pytest.raises(ValueError, match="unknown action 'resign'; choose one of play, slap"):
        game.may(0, "resign")  # type: ignore[arg-type]
    with pytest.raises(NoSuchSeatError):
        game.may(2, "slap")


def test_a_client_reads_may_from_an_observation_that_came_over_the_network() -> None:
    game = Game(classic(misslap_penalty="lockout"), hands=["2H 7C 5C", "3S 7D 9D"], leader=0)
    game.play(0, at=0)
    game.slap(1, at=50)  # a misslap: seat 1 is locked out
    sent = json.loads(json.dumps(game.observe(1)))
    assert [observed_may(sent, 1, "play"), observed_may(sent, 1, "slap")] == [True, False]
    assert [observed_may(sent, 0, "play"), observed_may(sent, 0, "slap")] == [False, True]
    assert not observed_may(sent, None, "slap") and not observed_may({}, 0, "slap")
