"""A group of friends playing on through an evening, on a fake clock: a seat added in the lobby
after a game, a time limit on a game, and people who go away and come back (issue 26)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from online import FakeConnection, make_room, run_until
from starlette.testclient import TestClient

from ratscrew.server.app import create_app
from ratscrew.server.protocol import (
    Configure,
    ProtocolError,
    Rematch,
    Start,
    Watch,
    parse_client_message,
    parse_room_request,
)

# ---------------------------------------------------------------------- a seat added after a game


def test_a_seat_added_after_a_game_seats_a_friend_and_applies_to_the_next_game() -> None:
    room, wall = make_room(seats=2, bots=["expert"], turn_timeout_ms=1000)
    host = FakeConnection(room)
    host.join("Ann")
    host.do(Start())
    run_until(room, wall, 3_600_000)
    assert room.phase == "over" and room.game is not None and room.game.players == 2
    host.do(Configure(seats=3))  # "Back to lobby", Seats 2 -> 3
    friend = FakeConnection(room)
    welcome = friend.join("Bob")  # "Sit down": this was NoSuchSeatError: no seat 2 at this table of 2
    assert (welcome["seat"], welcome["status"]) == (2, "player")
    # the finished game is shown as it was: Bob had no seat in it, so he sees it as a spectator
    state = friend.last("state")
    assert state["observation"]["players"] == 2 and state["observation"]["seat"] is None
    assert friend.last("game_over")["winner"] in (0, 1)
    assert [s["name"] for s in host.last("room")["seats"]] == ["Ann", "Expert bot", "Bob"]
    # a page joining now sees the same; the host still sees the game from the seat she had in it
    late = FakeConnection(room)
    late.room.connect(late)
    late.do(Watch())
    assert late.last("state")["observation"]["seat"] is None
    reloaded = FakeConnection(room)  # Ann reloads her page
    reloaded.join("Ann", token=host.last("welcome")["token"])
    assert reloaded.last("state")["observation"]["seat"] == 0
    reloaded.do(Rematch())  # the lobby's change applies to the next game
    assert room.game is not None and room.game.players == 3
    assert friend.last("state")["observation"]["seat"] == 2
    assert len(friend.last("state")["observation"]["hand_sizes"]) == 3


# ---------------------------------------------------------------------- a time limit


def test_a_game_with_a_time_limit_ends_and_the_player_holding_the_most_cards_wins() -> None:
    # nobody acts: every card is played on the 20 s turn time-out, so when the minute is up
    # Ann (9 cards dealt) and Bob (8) have each played one card and a third comes too late
    room, wall = make_room(seats=2, hands=["2C 3C 4C 5C 6C 7C 8C 9C 2H", "2D 3D 4D 5D 6D 7D 8D 9D"],
                           turn_timeout_ms=20_000)
    ann, bob = FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    bob.join("Bob")
    ann.do(Configure(time_limit_ms=60_000))
    assert ann.last("room")["settings"]["time_limit_ms"] == 60_000
    ann.do(Start())
    run_until(room, wall, 59_000)
    assert room.phase == "playing"
    run_until(room, wall, 61_000)
    over = bob.last("game_over")
    assert (over["winner"], over["reason"]) == (0, "time_limit")
    assert bob.last("state")["observation"]["hand_sizes"] == [8, 7]
    assert "Ann holds the most cards when time is up and wins" in bob.last("state")["lines"]
    stored = room.store.game_record(over["game_id"])
    assert stored is not None and stored["actions"][-1] == ["time_up", None, 60_000]
    assert stored["room"]["time_limit_ms"] == 60_000


@pytest.mark.parametrize(("value", "why"), [
    (-1, "from 0 to 14400000, not -1"), (90.5, "must be a whole number"),
    (10**12, "not 1000000000000"), (5_000, "a minute"), ("10 min", "must be a whole number")])
def test_a_time_limit_that_is_not_one_is_refused_with_the_reason(value: object, why: str) -> None:
    with pytest.raises(ProtocolError, match=why):
        parse_room_request({"time_limit_ms": value})
    with pytest.raises(ProtocolError, match=why):
        parse_client_message(json.dumps({"type": "configure", "time_limit_ms": value}))
    assert parse_room_request({}).time_limit_ms == 0  # no limit by default


def test_the_api_answers_a_bad_time_limit_with_a_400_and_keeps_a_good_one(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "rooms.db")) as client:
        refused = client.post("/api/rooms", json={"time_limit_ms": -5})
        assert refused.status_code == 400 and "time_limit_ms" in refused.text
        made = client.post("/api/rooms", json={"time_limit_ms": 600_000})
        assert made.status_code < 300
        room = client.get(f"/api/rooms/{made.json()['code']}").json()
        assert room["settings"]["time_limit_ms"] == 600_000
