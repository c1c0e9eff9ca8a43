"""A group of friends playing on through an evening, on a fake clock: a seat added in the lobby
after a game, a time limit on a game, and people who go away and come back (issue 26)."""

from __future__ import annotations

from online import FakeConnection, make_room, run_until

from ratscrew.server.protocol import Configure, Rematch, Start, Watch

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
