"""The engine's mechanics, scenario by scenario: turns, challenges, slaps, penalties, windows."""

import dataclasses
from typing import Any

import pytest
from scenario import kinds, play_seats, the

from ratscrew.cards import format_cards, parse_cards
from ratscrew.engine import Game
from ratscrew.errors import (
    GameOverError,
    NoSuchSeatError,
    NotYourTurnError,
    SlapNotAllowedError,
    TimeOrderError,
)
from ratscrew.events import GameOver, SlapIgnored
from ratscrew.ruleset import Ruleset

CLASSIC = Ruleset.preset("classic")



def classic(**changes: object) -> Ruleset:
    return dataclasses.replace(CLASSIC, **changes)  # type: ignore[arg-type]



# --- turns -------------------------------------------------------------------------------

def test_play_goes_clockwise_and_skips_players_without_cards() -> None:
    game = Game(CLASSIC, hands=["2C 3C", "", "4D 5D", "6H"], leader=0)
    assert game.turn == 0
    game.play(0, at=0)
    assert game.turn == 2
    game.play(2, at=100)
    assert game.turn == 3
    game.play(3, at=200)
    assert game.turn == 0


def test_playing_out_of_turn_is_refused_and_changes_nothing() -> None:
    game = Game(CLASSIC, hands=["2C 3C", "4D 5D"], leader=0)
    before = game.zones()
    with pytest.raises(NotYourTurnError, match="seat 0's turn"):
        game.play(1, at=0)
    assert game.zones() == before and game.turn == 0


def test_actions_must_come_in_time_order() -> None:
    game = Game(CLASSIC, hands=["2C 3C", "4D 5D"], leader=0)
    game.play(0, at=500)
    with pytest.raises(TimeOrderError):
        game.play(1, at=499)
    game.play(1, at=500)  # equal times are fine


def test_unknown_seat_is_refused() -> None:
    game = Game(CLASSIC, hands=["2C", "4D"], leader=0)
    with pytest.raises(NoSuchSeatError):
        game.slap(5, at=0)


def test_hands_may_be_notation_strings_token_lists_or_cards() -> None:
    as_text = Game(CLASSIC, hands=["7H 2C", "7S"], leader=0)
    as_tokens = Game(CLASSIC, hands=[["7H", "2C"], ["7S"]], leader=0)
    as_cards = Game(CLASSIC, hands=[parse_cards("7H 2C"), parse_cards("7S")], leader=0)
    assert as_text.zones() == as_tokens.zones() == as_cards.zones()


def test_a_deal_needs_distinct_cards_and_a_leader_with_cards() -> None:
    with pytest.raises(ValueError, match="dealt 2 times"):
        Game(CLASSIC, hands=["2C 2C", "4D"])
    with pytest.raises(ValueError, match="leader"):
        Game(CLASSIC, hands=["", "4D"], leader=0)


def test_seeded_deal_is_reproducible_and_round_robin() -> None:
    a = Game.deal(CLASSIC, players=4, seed=11)
    b = Game.deal(CLASSIC, players=4, seed=11)
    assert [a.hand(s) for s in range(4)] == [b.hand(s) for s in range(4)]
    assert [a.hand_size(s) for s in range(4)] == [13, 13, 13, 13]
    assert Game.deal(CLASSIC, players=3, seed=1, outsiders=1).hand_size(3) == 0


# --- face-card challenges ----------------------------------------------------------------

def test_challenge_lost_collects_after_the_grace_window() -> None:
    game = Game(CLASSIC, hands=["KC 9C", "2D 3D 4D 5D"], leader=0)
    events = game.play(0, at=0)
    assert kinds(events) == ["card_played", "challenge_started"]
    assert game.turn == 1 and game.challenge is not None and game.challenge.chances_left == 3
    play_seats(game, "11", start=100)
    events = game.play(1, at=300)
    assert kinds(events) == ["card_played", "challenge_lost"]
    assert game.turn is None and game.award is not None
    assert game.advance(at=1299) == []  # grace is 1000 ms: not yet
    events = game.advance(at=1300)
    assert kinds(events) == ["pile_won"]
    assert events[0].to_dict()["reason"] == "challenge"
    assert format_cards(game.hand(0)) == "9C KC 2D 3D 4D"
    assert game.turn == 0


def test_a_face_card_passes_the_challenge_on() -> None:
    game = Game(CLASSIC, hands=["AC 2C 3C", "4D JD 5D"], leader=0)
    game.play(0, at=0)
    game.play(1, at=100)
    events = game.play(1, at=200)
    assert kinds(events) == ["card_played", "challenge_passed"]
    assert game.challenge is not None and game.challenge.challenger == 1
    assert game.challenge.target == 0 and game.challenge.chances_left == 1
    events = game.play(0, at=300)
    assert kinds(events) == ["card_played", "challenge_lost"]
    assert events[1].to_dict()["winner"] == 1


def test_a_valid_slap_during_the_grace_window_takes_the_pile() -> None:
    game = Game(CLASSIC, hands=["JC 5C", "5D 8D", "9H"], leader=0)
    game.play(0, at=0)
    game.play(1, at=100)  # 5D fails the jack
    game.advance(at=500)
    # nothing slappable yet (JC 5D); the pile goes to seat 0 at 1100
    assert game.slap_pattern() is None
    assert kinds(game.advance(at=1100)) == ["pile_won"]


@pytest.mark.parametrize(("slap_at", "expected"), [
    (1299, ["slap_won", "pile_won"]),
    (1300, ["pile_won", "slap_ignored"]),  # just too late: the pile was taken, no penalty
    (1799, ["pile_won", "slap_ignored"]),  # still too slow, not wrong (too_slow_ms = 500)
    (1800, ["pile_won", "misslap"]),       # outside the too-slow window: slapping an empty table
])
def test_slap_in_grace_on_a_pattern_wins_over_the_challenger(slap_at: int, expected: list[str]) -> None:
    game = Game(CLASSIC, hands=["5C JC 9C", "2H 2D 3D 4D"], leader=0)
    play_seats(game, "0101")  # 5C 2H JC 2D: seat 1 fails the jack with a sandwich on the pile
    assert game.award is not None and game.award.collect_at == 1300
    assert game.slap_pattern() == "sandwich"
    events = game.slap(1, at=slap_at)
    assert kinds(events) == expected
    assert game.hand_size(1 if slap_at < 1300 else 0) >= 4


def test_challenger_may_slap_to_collect_early() -> None:
    game = Game(CLASSIC, hands=["QC 9C", "2D 3D 4D"], leader=0)
    game.play(0, at=0)
    play_seats(game, "11", start=100)
    events = game.slap(0, at=350)
    assert kinds(events) == ["slap_won", "pile_won"]
    assert events[1].to_dict()["reason"] == "claim"


def test_challenged_player_running_out_loses_the_challenge() -> None:
    game = Game(CLASSIC, hands=["KC 9C", "2D", "3H 4H"], leader=0)
    game.play(0, at=0)
    events = game.play(1, at=100)
    assert kinds(events) == ["card_played", "challenge_lost", "player_out"]
    assert events[1].seat == 1


def test_next_player_pays_when_the_challenged_player_runs_out() -> None:
    rules = classic(challenge_out_of_cards="next_player_pays")
    game = Game(rules, hands=["KC 9C", "2D", "3H 4H 5H"], leader=0)
    game.play(0, at=0)
    events = game.play(1, at=100)
    assert kinds(events) == ["card_played", "player_out"]
    assert game.turn == 2 and game.challenge is not None and game.challenge.chances_left == 2


# --- slaps and misslaps ------------------------------------------------------------------

def test_slap_on_a_double_wins_the_pile_with_its_pattern() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S 3D"], leader=0)
    play_seats(game, "01")
    events = game.slap(1, at=400)
    assert kinds(events) == ["slap_won", "pile_won"]
    assert events[0].to_dict()["pattern"] == "double"
    assert format_cards(game.hand(1)) == "3D 7H 7S"
    assert game.turn == 1


def test_misslap_burns_under_the_pile_and_burned_cards_are_dead() -> None:
    game = Game(CLASSIC, hands=["7H 2C 4C", "3S 9D 8D"], leader=0)
    game.play(0, at=0)
    events = game.slap(1, at=100)
    assert kinds(events) == ["misslap"]
    assert format_cards(game.burned) == "3S" and format_cards(game.pile) == "3S 7H"
    game.play(1, at=200)  # 9D on 7H
    assert game.slap_pattern() is None


def test_penalty_pile_goes_to_the_next_legitimate_winner() -> None:
    rules = classic(misslap_penalty="penalty_pile", misslap_cards=2)
    game = Game(rules, hands=["7H 2C 4C", "3S 9D 7D 8D"], leader=0)
    game.play(0, at=0)
    game.slap(1, at=50)
    assert format_cards(game.penalty_pile) == "3S 9D"
    game.play(1, at=100)  # 7D on 7H
    events = game.slap(0, at=300)
    assert events[1].to_dict()["penalty_cards"] == 2
    assert format_cards(game.hand(0)) == "2C 4C 7H 7D 3S 9D"


def test_give_pile_hands_the_pile_to_whoever_played_the_top_card() -> None:
    rules = classic(misslap_penalty="give_pile")
    game = Game(rules, hands=["2H 5C", "3S 9D", "4C 6C"], leader=0)
    play_seats(game, "01")
    events = game.slap(2, at=300)
    assert events[0].to_dict()["pile_to"] == 1
    assert game.turn == 1 and format_cards(game.hand(1)) == "9D 2H 3S"
    # slapping your own card gives it to the player before
    game2 = Game(rules, hands=["2H 5C", "3S 9D", "4C 6C"], leader=0)
    play_seats(game2, "01")
    assert game2.slap(1, at=300)[0].to_dict()["pile_to"] == 0


def test_lockout_bars_slapping_until_someone_else_wins_a_pile() -> None:
    rules = classic(misslap_penalty="lockout")
    game = Game(rules, hands=["2H 7C 5C", "3S 7D 9D"], leader=0)
    game.play(0, at=0)
    assert kinds(game.slap(1, at=50)) == ["misslap", "locked_out"]
    with pytest.raises(SlapNotAllowedError, match="locked out"):
        game.slap(1, at=60)
    assert game.status(1) == "locked"
    play_seats(game, "10", start=100)  # 3S 7C? seat 1 plays 3S, seat 0 plays 7C
    game.play(1, at=300)  # 7D on 7C
    game.slap(0, at=400)  # seat 0 wins a pile
    assert game.status(1) == "in"


def test_out_of_turn_burn_setting_burns_instead_of_refusing() -> None:
    rules = classic(out_of_turn="burn")
    game = Game(rules, hands=["2H 7C", "3S 9D"], leader=0)
    events = game.play(1, at=0)
    assert kinds(events) == ["cards_burned"] and format_cards(game.burned) == "3S"
    assert game.turn == 0


def test_resigning_burns_the_whole_hand() -> None:
    game = Game(CLASSIC, hands=["2H 7C", "3S 9D", "4H"], leader=0)
    events = game.resign(1, at=0)
    assert kinds(events) == ["player_out", "cards_burned"]  # "Bob resigns", then the burn
    assert format_cards(game.burned) == "3S 9D" and game.hand_size(1) == 0


# --- ties ----------------------------------------------------------------------------------

def test_earliest_slap_wins_and_a_slap_within_the_tie_window_is_just_late() -> None:
    # Windows are half-open: with no too-slow allowance a 30 ms window opened at 300 covers 300..329.
    game = Game(classic(too_slow_ms=0), hands=["7H 2C 8C", "7S 3D", "4H 5H"], leader=0)
    play_seats(game, "01")
    assert kinds(game.slap(2, at=300)) == ["slap_won", "pile_won"]
    late = game.slap(0, at=329)
    assert kinds(late) == ["slap_ignored"] and late[0].to_dict()["reason"] == "late"
    assert kinds(game.slap(0, at=330)) == ["misslap"]


# --- too slow, not wrong -------------------------------------------------------------------

def test_the_slower_hand_on_a_won_double_is_too_slow_and_keeps_its_cards() -> None:
    game = Game(CLASSIC, hands=["7H 2C 8C", "7S 3D", "4H 5H"], leader=0)
    play_seats(game, "01")  # 7H 7S: a double
    assert kinds(game.slap(2, at=300)) == ["slap_won", "pile_won"]
    slower = the(SlapIgnored, game.slap(0, at=338))
    assert (slower.reason, slower.margin_ms, slower.beaten_by) == ("late", 38, 2)
    assert game.hand_size(0) == 2 and game.burned == []  # nothing paid


def test_a_slap_after_the_too_slow_window_on_the_empty_table_is_a_misslap() -> None:
    game = Game(CLASSIC, hands=["7H 2C 8C", "7S 3D", "4H 5H"], leader=0)
    play_seats(game, "01")
    game.slap(2, at=300)
    assert kinds(game.slap(0, at=799)) == ["slap_ignored"]
    assert kinds(game.slap(1, at=800))[0] == "misslap"  # 500 ms later: slapping an empty table
    assert game.hand_size(1) == 0 and format_cards(game.burned) == "3D"


def test_once_a_card_covers_the_won_pile_a_slap_answers_the_new_pile() -> None:
    game = Game(CLASSIC, hands=["7H 2C 8C", "7S 3D", "4H 5H"], leader=0)
    play_seats(game, "01")
    game.slap(2, at=300)
    game.play(2, at=350)  # the winner leads 4H
    assert kinds(game.slap(0, at=400)) == ["misslap"]


def test_too_slow_names_no_winner_when_the_pile_was_taken_without_a_slap() -> None:
    game = Game(CLASSIC, hands=["JC 5C", "5D 8D", "9H"], leader=0)
    game.play(0, at=0)
    game.play(1, at=100)  # 5D fails the jack: seat 0 takes the pile at 1100
    game.advance(at=1100)
    slower = the(SlapIgnored, game.slap(2, at=1250))
    assert (slower.margin_ms, slower.beaten_by) == (150, None)


def test_too_slow_window_is_a_setting_that_round_trips_through_toml() -> None:
    rules = classic(too_slow_ms=250)
    assert Ruleset.from_toml(rules.to_toml()).too_slow_ms == 250
    with pytest.raises(ValueError, match="too_slow_ms"):
        classic(too_slow_ms=-1)


def test_void_tie_plays_on_as_if_nobody_slapped() -> None:
    rules = classic(tie_policy="void", tie_window_ms=30)
    game = Game(rules, hands=["7H 2C", "7S 3D", "4H 5H"], leader=0)
    play_seats(game, "01")
    assert game.slap(2, at=300) == []
    assert game.slap(0, at=329) == []
    events = game.advance(at=330)
    assert kinds(events) == ["slap_tie"] and events[0].to_dict()["outcome"] == "void"
    assert kinds(game.slap(0, at=400)) == ["slap_ignored"]
    assert len(game.pile) == 2 and game.turn == 2


def test_slaps_just_outside_the_tie_window_are_not_a_tie() -> None:
    rules = classic(tie_policy="void", tie_window_ms=30)
    game = Game(rules, hands=["7H 2C", "7S 3D", "4H 5H"], leader=0)
    play_seats(game, "01")
    game.slap(2, at=300)
    events = game.slap(0, at=330)  # the window closed at 330: seat 2 won, seat 0 is late
    assert kinds(events) == ["slap_won", "pile_won", "slap_ignored"]
    assert events[0].seat == 2


def test_random_tie_is_seeded() -> None:
    rules = classic(tie_policy="random", tie_window_ms=30)
    winners = set()
    for seed in range(12):
        game = Game(rules, hands=["7H 2C", "7S 3D", "4H 5H"], leader=0, seed=seed)
        play_seats(game, "01")
        game.slap(2, at=300)
        game.slap(0, at=310)
        events = game.advance(at=400)
        assert kinds(events)[:2] == ["slap_tie", "slap_won"]
        winners.add(events[1].seat)
        again = Game(rules, hands=["7H 2C", "7S 3D", "4H 5H"], leader=0, seed=seed)
        play_seats(again, "01")
        again.slap(2, at=300)
        again.slap(0, at=310)
        assert again.advance(at=400)[1].seat == events[1].seat
    assert winners == {0, 2}


# --- claim window (slap collection) ------------------------------------------------------

@pytest.mark.parametrize(("at", "outcome"), [(2999, "misslap"), (3000, "claim")])
def test_exclusive_claim_window_boundary(at: int, outcome: str) -> None:
    game = Game(Ruleset.preset("paranoid"), hands=["JC 9C", "2D 3D", "4H 6H 7H 8H 9H TH"], leader=0)
    game.play(0, at=0)
    game.play(1, at=0)  # fails the jack at t=0: exclusive until 3000
    events = game.slap(2, at=at)
    if outcome == "misslap":
        assert kinds(events) == ["misslap"]
    else:
        assert kinds(events) == ["claim_opened", "slap_won", "pile_won"]
        assert events[2].seat == 2


# --- out of cards, slap in, the end ------------------------------------------------------

def test_a_player_out_of_cards_can_slap_back_in() -> None:
    game = Game(CLASSIC, hands=["7H 2C 9C", "7S", "4H 5H"], leader=0)
    game.play(0, at=0)
    events = game.play(1, at=100)
    assert "player_out" in kinds(events)
    assert game.status(1) == "out"
    events = game.slap(1, at=300)
    assert kinds(events) == ["slap_won", "pile_won", "slapped_in"]
    assert game.status(1) == "in"


def test_a_challenger_who_played_their_last_card_is_still_in_and_may_slap() -> None:
    game = Game(Ruleset.preset("paranoid"), hands=["KH", "2C 3C 2D 4C"], leader=0)
    game.play(0, at=0)
    assert game.status(0) == "in"
    game.play(1, at=100)
    game.play(1, at=200)  # KH 2C 3C: nothing to slap, so a slap costs seat 0 nothing
    assert game.slap(0, at=250)[0].kind == "misslap"
    game.play(1, at=300)  # 2D: a sandwich (2C 3C 2D)
    events = game.slap(0, at=400)
    assert [e.kind for e in events][:2] == ["slap_won", "pile_won"] and game.hand_size(0) == 4


def test_when_out_means_out_slapping_is_refused() -> None:
    rules = classic(out_of_cards="out")
    game = Game(rules, hands=["7H 2C 9C", "7S", "4H 5H"], leader=0)
    game.play(0, at=0)
    game.play(1, at=100)
    with pytest.raises(SlapNotAllowedError, match="out"):
        game.slap(1, at=300)
    assert game.status(1) == "eliminated"


def test_game_ends_when_one_player_holds_every_card() -> None:
    game = Game(CLASSIC, hands=["7H 2C", "7S"], leader=0)
    play_seats(game, "01")
    events = game.slap(0, at=300)
    assert kinds(events)[-1] == "game_over"
    assert game.over and game.winner == 0 and game.end_reason == "all_cards"
    with pytest.raises(GameOverError):
        game.play(0, at=400)
    assert game.advance(at=500) == []


def test_finishing_out_and_nobody_wins() -> None:
    game = Game(CLASSIC, hands=["2C", "3D 4D"], leader=0)
    game.play(0, at=0)
    game.play(1, at=100)  # seat 0 is out; seat 1 finishes the pile out
    assert game.turn == 1
    events = game.play(1, at=200)
    assert kinds(events)[-1] == "game_over"
    assert game.winner is None and game.end_reason == "nobody_wins"


@pytest.mark.parametrize(("slap_at", "winner"), [(1099, 0), (1100, None)])
def test_a_slappable_pile_left_when_all_cards_ran_out_gets_a_last_chance(
        slap_at: int, winner: int | None) -> None:
    game = Game(CLASSIC, hands=["7H", "7S"], leader=0)
    play_seats(game, "01")  # both hands empty, a double on the pile: last chance until 1100
    assert not game.over
    if winner is None:
        events = game.advance(at=slap_at)
        assert kinds(events) == ["game_over"] and game.end_reason == "nobody_wins"
    else:
        events = game.slap(0, at=slap_at)
        assert kinds(events)[-1] == "game_over" and game.winner == 0


def test_last_face_card_of_the_last_player_wins_the_pile() -> None:
    game = Game(CLASSIC, hands=["2C", "3D QD"], leader=0)
    play_seats(game, "011")
    assert game.award is not None and game.award.winner == 1
    events = game.advance(at=5000)
    assert kinds(events) == ["pile_won", "game_over"] and game.winner == 1


def test_cycle_is_detected_and_reported() -> None:
    from ratscrew.bmn import play_bmn

    result = play_bmn("---K---Q-KQAJ-----AAJ--J--", "----------Q----KQ-J-----KA")
    assert (result.cards, result.tricks, result.cycle, result.winner) == (474, 66, True, None)


# --- failed actions leave the state untouched -------------------------------------------

def test_an_illegal_action_after_a_due_timer_rolls_the_timer_back() -> None:
    game = Game(CLASSIC, hands=["KC 9C", "2D 3D 4D 5D"], leader=0)
    game.play(0, at=0)
    play_seats(game, "111", start=100)
    before = (game.zones(), game.turn, game.award, game.now, game.to_record()["actions"])
    with pytest.raises(NotYourTurnError):
        game.play(1, at=5000)  # the pile went to seat 0 at 1300, so seat 1 cannot play
    assert (game.zones(), game.turn, game.award, game.now, game.to_record()["actions"]) == before
    assert kinds(game.advance(at=5000)) == ["pile_won"]


def test_zones_hold_each_card_exactly_once() -> None:
    game = Game.deal(Ruleset.preset("northwest"), players=3, seed=2)
    cards = [c for zone in game.zones().values() for c in zone]
    assert len(cards) == 54
    assert sorted(map(str, cards)) == sorted(map(str, parse_cards(" ".join(
        format_cards(game.hand(s)) for s in range(3)))))


# --- the engine's shortcuts agree with the plain definitions ------------------------------

@pytest.mark.parametrize("slaps", [(), ("double",), ("sandwich",), ("double", "sandwich"),
                                   ("sandwich", "double"), ("triple", "double", "run", "joker")])
def test_slap_pattern_is_find_slap(slaps: tuple[str, ...]) -> None:
    """The engine checks doubles and sandwiches inline; it must say what `find_slap` says."""
    import random

    from ratscrew.cards import standard_deck
    from ratscrew.patterns import find_slap

    rules = dataclasses.replace(Ruleset.preset("northwest"), slaps=slaps)
    rng = random.Random(len(slaps))
    deck = standard_deck(jokers=True)
    for _ in range(300):
        pile = rng.sample(deck, rng.randint(0, 5))
        game = Game(rules, hands=[deck[:1], deck[1:2]], leader=0)
        game._live = pile  # any pile at all, not only one that play could reach
        assert game.slap_pattern() == find_slap(pile, slaps, rules.pattern_options)


@pytest.mark.parametrize("bounds", [(350, 900), (180, 650), (5, 5), (0, 1), (0, 2**40), (-3, 7)])
def test_simple_players_draw_what_randint_draws(bounds: tuple[int, int]) -> None:
    """The simple players' draws are written out for speed; games replay only if they are
    exactly `randint`'s, number for number, interleaved with other draws."""
    import random

    from ratscrew.playout import _drawer

    ours, theirs = random.Random(7), random.Random(7)
    draw = _drawer(ours, bounds)
    for _ in range(2000):
        assert draw() == theirs.randint(*bounds)
        assert ours.random() == theirs.random()


@pytest.mark.parametrize("preset", ["classic", "ratscrew", "paranoid", "bmn"])
def test_play_shortcuts_skip_only_what_does_nothing(preset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A card play skips `_after_cards_left` when it would change nothing, trusting
    `_outs_marked`; and the hands' byte codes (the cycle key) follow the hands. Check both
    on whole games: run the skipped call anyway and compare the state."""
    from ratscrew.playout import SimplePlayers, play_simple_game

    after_cards_left, play_card = Game._after_cards_left, Game._play_card
    skipped = 0

    def checked_play_card(self: Game, seat: int, hand: object, at: int, events: list) -> None:  # type: ignore[type-arg]
        nonlocal skipped
        calls: list[int] = []

        def counted(game: Game, *args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            return after_cards_left(game, *args, **kwargs)

        monkeypatch.setattr(Game, "_after_cards_left", counted)
        play_card(self, seat, hand, at, events)  # type: ignore[arg-type]
        monkeypatch.setattr(Game, "_after_cards_left", after_cards_left)
        if self._outs_marked:
            assert self._ran_out.issuperset(s for s, h in enumerate(self._hands) if not h)
        for codes, cards in zip(self._codes, self._hands, strict=True):
            assert bytes(codes) == bytes(self._code_of(card.rank) for card in cards)
        if calls or self._over:
            return
        skipped += 1
        before, count = self._snapshot(), len(events)
        after_cards_left(self, at, events, player=seat)
        after = self._snapshot()
        assert len(events) == count
        assert {k: v for k, v in before.items() if k not in ("_rng", "_outs_marked")} == {
            k: v for k, v in after.items() if k not in ("_rng", "_outs_marked")}

    monkeypatch.setattr(Game, "_play_card", checked_play_card)
    clumsy = SimplePlayers(misslap_chance=0.15, max_cards=4000)
    for seed in range(4):
        play_simple_game(Ruleset.preset(preset), players=2 + seed, seed=seed,
                         style=clumsy if seed % 2 else None)
    assert skipped > 100


# --- the time limit (an online room's house rule) ------------------------------------------

def test_when_time_is_up_the_player_holding_the_most_cards_wins() -> None:
    game = Game(CLASSIC, hands=["2H 7C", "3S 9D 4C 5C", "4H 6D 8S"], leader=0)
    play_seats(game, "0")  # seat 0 holds 1, seat 1 holds 4, seat 2 holds 3
    over = the(GameOver, game.end_on_time(at=600_000))
    assert (over.seat, over.reason) == (1, "time_limit")
    assert game.over and game.winner == 1 and game.end_reason == "time_limit"
    with pytest.raises(GameOverError):
        game.end_on_time(at=600_001)


def test_on_a_tie_for_the_most_cards_the_next_to_play_among_them_wins() -> None:
    # seats 0 and 2 both hold two cards; seat 1 is to play, so seat 2 comes before seat 0
    game = Game(CLASSIC, hands=["2H 7C 5S", "3S", "4H 6D"], leader=0)
    play_seats(game, "0")
    assert game.turn == 1
    assert the(GameOver, game.end_on_time(at=1_000)).seat == 2
    # the tied player whose turn it is wins
    game = Game(CLASSIC, hands=["2H 7C", "3S 9D"], leader=1)
    assert the(GameOver, game.end_on_time(at=1_000)).seat == 1


def test_timers_due_by_the_time_limit_happen_first_and_a_record_replays_the_end() -> None:
    # Bob's king beats Ann's three cards: the pile is his at 1200 + grace 1000, before time is up
    game = Game(CLASSIC, hands=["2H 3C 4C 5C", "KS 9D"], leader=1)
    play_seats(game, "1000", start=900)
    assert (game.hand_size(0), game.hand_size(1)) == (1, 1)
    events = game.end_on_time(at=5_000)
    assert kinds(events) == ["pile_won", "game_over"]
    assert the(GameOver, events).seat == 1  # five cards to one, after taking the pile
    replayed = Game.from_record(game.to_record())
    assert (replayed.winner, replayed.end_reason) == (1, "time_limit")
    assert game.to_record()["actions"][-1] == ["time_up", None, 5_000]
