"""A room keeps its settling window between looks (a step looks several times) and works it out
again whenever what it comes from changes: a link's round trip, who sits where and is
connected, the judging. Whatever happens, the kept window is the one worked out afresh from the
seated, connected people's links (`ratscrew.server.room.judging.settle_window_ms`)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from online import FakeConnection, make_room, pong_after

from ratscrew.protocol.client_messages import Configure, Kick, MoveSeat, SetSeat, Stand
from ratscrew.protocol.codec import ProtocolError
from ratscrew.protocol.room_words import Judging
from ratscrew.server.room import room as room_module
from ratscrew.server.room.judging import settle_window_ms
from ratscrew.server.room.room import Room
from ratscrew.server.ws.link import LinkEstimate


def fresh_window(room: Room) -> float:
    """The window worked out from nothing kept: not the room's, not each link's."""
    links = room.lobby.links()
    for link in links:
        link.window_ms = None
    return settle_window_ms(room.settings.judging, links)


def test_a_link_that_moves_in_another_room_leaves_this_rooms_window_kept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    worked_out: list[Judging] = []

    def counting(judging: Judging, links: Sequence[LinkEstimate]) -> float:
        worked_out.append(judging)
        return settle_window_ms(judging, links)

    monkeypatch.setattr(room_module, "settle_window_ms", counting)
    here, _ = make_room(seats=2)
    there, _ = make_room(seats=2)
    ann, cat = FakeConnection(here, rtt_ms=40.0), FakeConnection(there, rtt_ms=40.0)
    ann.join("Ann")
    cat.join("Cat")
    window = here.settle_ms
    worked_out.clear()
    for rtt in (20.0, 90.0, 160.0):  # Cat's link moves: nothing of this room's does
        pong_after(cat, rtt)
    assert here.settle_ms == window and worked_out == []
    for _ in range(5):
        pong_after(ann, 160.0)  # Ann's own link gets slow: worked out again, once
    assert here.settle_ms == here.settle_ms == fresh_window(here) > window
    assert len(worked_out) == 1


def test_the_window_follows_a_slower_link_a_leaver_and_the_judging() -> None:
    room, _ = make_room(seats=3)
    ann, bob = FakeConnection(room, rtt_ms=40.0), FakeConnection(room, rtt_ms=40.0)
    ann.join("Ann")
    bob.join("Bob")
    settled = room.settle_ms
    assert settled == fresh_window(room) > 0

    for _ in range(30):
        pong_after(bob, 160.0)  # Bob's link got slow: the window waits longer for him
    assert room.settle_ms == fresh_window(room) > settled

    slow = room.settle_ms
    room.disconnect(bob)  # Bob's tab closes: only Ann's link counts
    assert room.settle_ms == fresh_window(room) < slow

    ann.do(Configure(judging="first-packet"))  # the host judges by arrival: nothing is held
    assert room.settle_ms == fresh_window(room) == 0


ACTIONS = st.lists(st.one_of(
    st.tuples(st.just("pong"), st.integers(0, 2), st.floats(1, 400)),
    st.tuples(st.just("join"), st.integers(0, 2), st.just(0.0)),
    st.tuples(st.just("leave"), st.integers(0, 2), st.just(0.0)),
    st.tuples(st.just("stand"), st.integers(0, 2), st.just(0.0)),
    st.tuples(st.just("bot"), st.integers(0, 3), st.just(0.0)),
    st.tuples(st.just("kick"), st.integers(0, 3), st.just(0.0)),
    st.tuples(st.just("move"), st.integers(0, 3), st.integers(0, 3).map(float)),
    st.tuples(st.just("judging"), st.sampled_from([0, 1]), st.just(0.0)),
    st.tuples(st.just("seats"), st.integers(2, 4), st.just(0.0)),
), max_size=25)


@settings(max_examples=60, deadline=None)
@given(ACTIONS)
def test_the_kept_window_is_always_the_one_worked_out_afresh(actions: list[tuple[str, int, float]]) -> None:
    room, _ = make_room(seats=4)
    host = FakeConnection(room, rtt_ms=30.0)
    host.join("Host")
    people = [FakeConnection(room, rtt_ms=None) for _ in range(3)]
    tokens: dict[int, str] = {}
    for kind, who, value in actions:
        person = people[who % 3]
        with contextlib.suppress(ProtocolError):  # refused (a kicked person, a seat out of range)
            if kind == "pong":
                pong_after(person, value)
            elif kind == "join":
                tokens[who % 3] = person.join(f"P{who}", tokens.get(who % 3))["token"]
            elif kind == "leave":
                room.disconnect(person)
            elif kind == "stand":
                person.do(Stand())
            elif kind == "bot":
                host.do(SetSeat(who, "casual"))
            elif kind == "kick":
                host.do(Kick(who))
            elif kind == "move":
                host.do(MoveSeat(who, int(value)))
            elif kind == "judging":
                host.do(Configure(judging="fair" if who else "first-packet"))
            elif kind == "seats":
                host.do(Configure(seats=who))
        assert room.settle_ms == fresh_window(room), (kind, who, value)
        assert room.settle_ms == room.driver.settle_ms  # the driver asks the same room
