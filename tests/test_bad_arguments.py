"""Bad arguments change nothing: the engine is fed from the network, so every action checks its
seat and its time before anything happens (no timer fires, the clock stays put) and refuses
with a narrow `IllegalActionError`, and a game or a record built from bad input is a
`ValueError` saying what is wrong, never another exception.

A seat is an ``int`` seat number at the table (not a bool, not ``1.0``, not ``"1"``); a time is
an ``int`` number of ms from 0 to `MAX_TIME_MS` (a float is refused even when whole).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scenario import play_seats

from ratscrew.engine import MAX_TIME_MS, Game
from ratscrew.errors import IllegalActionError, InvalidTimeError, NoSuchSeatError
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import Table

CLASSIC = Ruleset.preset("classic")
HUGE = 10**5000  # an int too long for Python to write out: error messages must still work


# --- games with a timer open ------------------------------------------------------------------

def grace_window() -> Game:
    """Seat 1 failed a king at 300 ms: the pile goes to seat 0 at 1300, a valid slap first."""
    game = Game(CLASSIC, hands=["KC 9C", "2D 3D 4D 5D"], leader=0)
    game.play(0, at=0)
    play_seats(game, "111", start=100)
    assert game.award is not None and game.next_deadline == 1300
    return game


def claim_window() -> Game:
    """Paranoid: seat 1 failed a jack at 0 ms; seat 0 alone may claim until 3000."""
    game = Game(Ruleset.preset("paranoid"), hands=["JC 9C", "2D 3D", "4H 6H 7H"], leader=0)
    game.play(0, at=0)
    game.play(1, at=0)
    assert game.award is not None and game.next_deadline == 3000
    return game


def tie_window() -> Game:
    """Northwest (void ties): seat 2 slapped a double at 300 ms; the tie window shuts at 330."""
    game = Game(Ruleset.preset("northwest"), hands=["7H 2C", "7S 3D", "4H 5H"], leader=0)
    play_seats(game, "01")
    game.slap(2, at=300)
    assert game.observe(None)["tie_window_until"] == 330
    return game


def last_chance() -> Game:
    """Every hand is empty with a double on the pile: a last chance to slap until 1100."""
    game = Game(CLASSIC, hands=["7H", "7S"], leader=0)
    play_seats(game, "01")
    assert game.next_deadline == 1100
    return game


def mid_game() -> Game:
    """A dealt game some way in, no timer open."""
    game = Game.deal(CLASSIC, players=3, seed=5)
    while game.cards_played < 20:
        if (deadline := game.next_deadline) is not None:
            game.advance(at=deadline)
        turn = game.turn
        assert turn is not None and not game.over
        game.play(turn, at=game.now + 450)
    return game


def finished() -> Game:
    game = Game(Ruleset.preset("bmn"), hands=["KC 9C", "2D"], leader=0)
    play_seats(game, "01")
    assert game.over
    return game


SITUATIONS: dict[str, Callable[[], Game]] = {
    "grace window": grace_window, "claim window": claim_window, "tie window": tie_window,
    "last chance": last_chance, "mid-game": mid_game, "game over": finished,
}


# --- bad values -------------------------------------------------------------------------------

NOT_INTS = st.one_of(
    st.none(), st.booleans(), st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=0, max_value=10).map(float),  # whole floats: 1.0, 500.0
    st.sampled_from([math.nan, math.inf, -math.inf]),
    st.text(max_size=5), st.integers(min_value=0, max_value=10).map(str),
    st.builds(Decimal, st.integers(0, 10)), st.builds(Fraction, st.integers(0, 10)),
    st.lists(st.integers(0, 3), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)
BAD_TIMES = st.one_of(NOT_INTS, st.integers(max_value=-1),
                      st.integers(min_value=MAX_TIME_MS + 1), st.just(HUGE))


def bad_seats(players: int) -> st.SearchStrategy[Any]:
    return st.one_of(NOT_INTS, st.integers(max_value=-1), st.integers(min_value=players),
                     st.just(HUGE))


def full_state(game: Game) -> Any:
    return (game.zones(), game.observe(None), [game.observe(s) for s in range(game.players)],
            game.now, game.next_deadline, game.to_record())


ACTIONS = ("play", "slap", "resign", "advance")


def act(game: Game, kind: str, seat: Any, at: Any) -> None:
    if kind == "advance":
        game.advance(at=at)
    else:
        getattr(game, kind)(seat, at=at)


@settings(max_examples=300, deadline=None)
@given(situation=st.sampled_from(sorted(SITUATIONS)), kind=st.sampled_from(ACTIONS),
       data=st.data())
def test_a_bad_seat_or_time_is_refused_and_changes_nothing(situation: str, kind: str,
                                                           data: st.DataObject) -> None:
    game = SITUATIONS[situation]()
    twin = SITUATIONS[situation]()
    before = full_state(game)
    # A valid time may lie past the open timer, so that acting at it would fire the timer.
    good_time = st.integers(min_value=game.now, max_value=game.now + 5000)
    good_seat = st.integers(min_value=0, max_value=game.players - 1)
    bad_time = kind == "advance" or data.draw(st.booleans(), label="bad time")
    at = data.draw(BAD_TIMES if bad_time else good_time, label="at")
    seat = None if kind == "advance" else data.draw(
        st.one_of(good_seat, bad_seats(game.players)) if bad_time else bad_seats(game.players),
        label="seat")
    expected = InvalidTimeError if bad_time else NoSuchSeatError
    with pytest.raises(expected):
        act(game, kind, seat, at)
    assert full_state(game) == before
    # Nothing hidden changed either: from here the game goes on exactly as its twin does.
    later = max(game.now, 10_000)
    assert game.advance(at=later) == twin.advance(at=later)
    assert full_state(game) == full_state(twin)


def test_a_seat_that_is_not_a_seat_number_during_the_grace_window_fires_no_timer() -> None:
    # The bug this file was written for: play(None) fired the due timer, then failed an assert.
    for kind in ("play", "slap", "resign"):
        for seat in (None, True, 1.0, "1"):
            game = grace_window()
            with pytest.raises(NoSuchSeatError):
                act(game, kind, seat, 5000)
            assert game.award is not None and game.now == 300 and game.hand_size(0) == 1


@pytest.mark.parametrize("at", [math.nan, math.inf, -math.inf, 500.0, True, "500", None, -1, MAX_TIME_MS + 1])
def test_advance_to_a_time_that_is_not_a_time_is_refused(at: Any) -> None:
    game = grace_window()
    with pytest.raises(InvalidTimeError):
        game.advance(at=at)
    assert game.now == 300 and game.award is not None
    assert [e.kind for e in game.advance(at=MAX_TIME_MS)] == ["pile_won"]  # the last valid ms


def test_the_narrow_errors_are_illegal_actions_so_a_table_keeps_going() -> None:
    assert issubclass(InvalidTimeError, IllegalActionError)
    assert issubclass(NoSuchSeatError, IllegalActionError)


@pytest.mark.parametrize("seat", [None, True, 1.0, "1", -1, 2, pytest.param(HUGE, id="huge")])
def test_seat_queries_refuse_a_seat_that_is_not_a_seat_number(seat: Any) -> None:
    game = grace_window()
    queries: list[Callable[[Any], object]] = [game.hand, game.hand_size, game.status]
    if seat is not None:  # observe(None) is what a spectator sees
        queries.append(game.observe)
    for query in queries:
        with pytest.raises(NoSuchSeatError):
            query(seat)


# --- constructors ---------------------------------------------------------------------------

@pytest.mark.parametrize(("make", "message"), [
    (lambda: Game("classic", hands=["7H", "2C"]), "rules must be a Ruleset"),  # type: ignore[arg-type]
    (lambda: Game(CLASSIC, hands="7H 2C"), "list of hands"),
    (lambda: Game(CLASSIC, hands=5), "list of hands"),  # type: ignore[arg-type]
    (lambda: Game(CLASSIC, hands=["7H", 5]), "hand 1 must be card notation"),  # type: ignore[list-item]
    (lambda: Game(CLASSIC, hands=["7H", [None]]), "hand 1: None is not a card"),  # type: ignore[list-item]
    (lambda: Game(CLASSIC, hands=["7H", ["2C", "XX"]]), "bad card 'XX'"),
    (lambda: Game(CLASSIC, hands=[["7H"]] * 9), "9 seats is more than the 8"),
    (lambda: Game(CLASSIC, hands=["7H", "2C"], leader="0"), "leader must be a seat"),  # type: ignore[arg-type]
    (lambda: Game(CLASSIC, hands=["7H", "2C"], leader=True), "leader must be a seat"),
    (lambda: Game(CLASSIC, hands=["7H", "2C"], leader=HUGE), "leader must be a seat"),
    (lambda: Game(CLASSIC, hands=["7H", "2C"], seed=None), "seed must be an int"),  # type: ignore[arg-type]
    (lambda: Game(CLASSIC, hands=["7H", "2C"], seed=1.5), "seed must be an int"),  # type: ignore[arg-type]
    (lambda: Game.deal(CLASSIC, players="3", seed=1), "at least two players"),  # type: ignore[arg-type]
    (lambda: Game.deal(CLASSIC, players=True, seed=1), "at least two players"),
    (lambda: Game.deal(CLASSIC, players=10**9, seed=1), "more than the 8"),
    (lambda: Game.deal(CLASSIC, players=2, seed=1, outsiders=-1), "outsiders must be"),
    (lambda: Game.deal(CLASSIC, players=2, seed="1"), "seed must be an int"),  # type: ignore[arg-type]
])
def test_a_game_from_bad_input_is_a_value_error_that_says_why(make: Callable[[], Game], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


# --- records ------------------------------------------------------------------------------------

def a_record() -> dict[str, Any]:
    game = grace_window()
    game.slap(1, at=400)
    game.advance(at=2000)
    return json.loads(json.dumps(game.to_record()))  # type: ignore[no-any-return]


RECORD = a_record()
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6)


def places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value, as a path of keys and indices (the root is ``()``)."""
    found = [path]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += places(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += places(inner, (*path, index))
    return found


def replaced(record: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    record = copy.deepcopy(record)
    parent = record
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = new
    return record


@settings(max_examples=400, deadline=None)
@given(path=st.sampled_from(places(RECORD)), new=JSON)
def test_a_damaged_record_is_refused_with_a_value_error_or_replays(path: tuple[Any, ...], new: Any) -> None:
    record = replaced(RECORD, path, new)
    try:
        game = Game.from_record(record)
    except ValueError:
        return
    # It replayed: then it is a game like any other, and writes itself out again.
    assert Game.from_record(json.loads(json.dumps(game.to_record()))).to_record() == game.to_record()


@pytest.mark.parametrize(("change", "message"), [
    ({"version": 2}, "record version 2"),
    ({"rules": ["classic"]}, "rules must be a table"),
    ({"actions": {"0": ["play", 0, 0]}}, "actions must be a list"),
    ({"actions": [["play", 0]]}, r"action 0: expected \[kind, seat, at\]"),
    ({"actions": [7]}, r"action 0: expected \[kind, seat, at\]"),
    ({"actions": [[["play"], 0, 0]]}, "action 0: unknown kind"),
    ({"actions": [["advance", 0, 0]]}, "action 0: advance takes no seat"),
    ({"actions": [["play", None, 0]]}, r"action 0 \(play by None at 0\) failed: no seat None"),
    ({"actions": [["play", 0, 0.0]]}, r"action 0 .* failed: a time is a whole number of ms"),
    ({"actions": [["play", 0, HUGE]]}, r"at an int too long to write\) failed"),
    ({"hands": "KC 9C 2D"}, "list of hands"),
    ({"leader": None, "seed": None}, "seed must be an int"),
    ({"rules": {"tie_policy": 3}}, "tie_policy"),
    ({"rules": {1: "one", "two": 2}}, "unknown setting"),
])
def test_a_bad_record_says_what_is_wrong(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Game.from_record({**RECORD, **change})


@pytest.mark.parametrize("key", ["rules", "hands", "leader", "actions"])
def test_a_record_without_a_part_says_which(key: str) -> None:
    with pytest.raises(ValueError, match=f"the record has no '{key}'"):
        Game.from_record({k: v for k, v in RECORD.items() if k != key})


def test_the_record_used_above_replays() -> None:
    game = Game.from_record(RECORD)
    assert [kind for kind, _, _ in game.actions_since(0)] == ["play"] * 4 + ["slap", "advance"]
    assert dataclasses.asdict(game.rules) == dataclasses.asdict(CLASSIC)


# --- the runtime table, which the server feeds -----------------------------------------------

TABLE_BAD_TIMES = st.one_of(  # floats are times here (the server judges in fractions of ms); None is now
    st.booleans(), st.sampled_from([math.nan, math.inf, -math.inf]),
    st.floats(max_value=-0.001), st.floats(min_value=MAX_TIME_MS + 1.0), st.text(max_size=5),
    st.builds(Decimal, st.integers(0, 10)), st.lists(st.integers(0, 3), max_size=2),
    st.integers(max_value=-1), st.integers(min_value=MAX_TIME_MS + 1), st.just(HUGE))


@settings(max_examples=80, deadline=None)
@given(seat=bad_seats(2), at=TABLE_BAD_TIMES)
def test_a_table_refuses_a_bad_seat_or_time_before_anything_happens(seat: Any, at: Any) -> None:
    game = grace_window()
    table = Table(game, [None, None])
    before = game.to_record()
    with pytest.raises(NoSuchSeatError):
        table.submit(seat, "slap", at=1400)
    with pytest.raises(InvalidTimeError):
        table.submit(0, "slap", at=at)
    assert game.to_record() == before and game.award is not None
