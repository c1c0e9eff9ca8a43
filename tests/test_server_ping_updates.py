"""A pong tells the room something new only when a shown ping moves enough to notice: then, at
most once per `ROOM_UPDATE_GAP_MS`, everyone is sent a ``room`` message with the new figures."""

from __future__ import annotations

from online import FakeConnection, FakeWall, make_room, pong_after

from ratscrew.server.room.publisher import ROOM_UPDATE_GAP_MS


def gap_passes(wall: FakeWall) -> None:
    wall.t += ROOM_UPDATE_GAP_MS / 1000.0 + 0.1


def room_of_ann_and_bob() -> tuple[FakeWall, FakeConnection, FakeConnection]:
    room, wall = make_room(seats=2)
    ann, bob = FakeConnection(room, rtt_ms=40.0), FakeConnection(room, rtt_ms=40.0)
    ann.join("Ann")
    bob.join("Bob")
    return wall, ann, bob


def test_a_steady_link_sends_no_room_message_however_long_it_pongs() -> None:
    wall, ann, bob = room_of_ann_and_bob()
    before = len(ann.of("room"))
    for _ in range(5):
        gap_passes(wall)
        pong_after(bob, 42.0)  # 2 ms off what the room last showed: not news
    assert len(ann.of("room")) == before
    assert [seat["ping_ms"] for seat in ann.last("room")["seats"]] == [40, 40]


def test_a_ping_that_moves_enough_is_shown_to_everyone_once_the_gap_has_passed() -> None:
    wall, ann, bob = room_of_ann_and_bob()
    before = len(ann.of("room"))
    for _ in range(10):
        bob.pinger.link.add(120.0)  # Bob's link got slow
    pong_after(bob, 120.0)
    assert len(ann.of("room")) == before, "sent within the gap of the join's room message"
    gap_passes(wall)
    pong_after(bob, 120.0)
    assert len(ann.of("room")) == before + 1
    assert [seat["ping_ms"] for seat in ann.last("room")["seats"]] == [40, 120]
    assert bob.last("room")["seats"][1]["ping_ms"] == 120
    gap_passes(wall)
    pong_after(bob, 121.0)  # the new figure is what counts from now on
    assert len(ann.of("room")) == before + 1
