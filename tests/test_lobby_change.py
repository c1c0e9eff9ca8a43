"""A crowded lobby is sent changes, not the whole room (issue 47 item 3): a join that waits,
a watcher and someone who stops waiting cost each member one small ``lobby_change``; a
newcomer (and anyone whose own part changed) gets the whole ``room`` message; and a client that
applies the changes (``ratscrew join``'s session here, the page's ``js/lobby.js`` in
tests/js/lobby.test.mjs, from the same recorded messages) ends with the room's own list."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, cast

from online import FakeConnection, FakeWall, make_room, pong_after

from ratscrew.client.session import RoomSession
from ratscrew.protocol.client_messages import Configure, Stand, Watch
from ratscrew.protocol.server_messages import ServerMessage
from ratscrew.server.room.lobby import PEOPLE_GAP_MS
from ratscrew.server.room.room import Room

RECORDED = Path(__file__).resolve().parent / "transcripts" / "crowded_lobby.json"
"""What the host of `crowded_room` was sent, and the room's own list at the end (the page's
test replays it). ``RATSCREW_RECORD=1`` writes it again after a deliberate change."""


def later(wall: FakeWall) -> None:
    """The wall clock after the gap between two rounds of changes (`PEOPLE_GAP_MS`)."""
    wall.t += PEOPLE_GAP_MS / 1000.0


def people(room: Room, conn: FakeConnection) -> dict[str, Any]:
    """The waiting list and spectators the room would send ``conn`` in a whole message now."""
    summary = room.summary(room.connections[conn])
    return {"waiting": summary["waiting"], "spectators": summary["spectators"]}


def test_a_join_that_waits_sends_each_member_one_small_change_not_the_room() -> None:
    room, wall = make_room(seats=2)
    ann, bob = FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    bob.join("Bob")
    eve = FakeConnection(room)
    room.handle(eve, Watch())
    later(wall)
    before = {conn: len(conn.sent) for conn in (ann, bob, eve)}
    cat = FakeConnection(room)
    assert cat.join("Cat")["status"] == "waiting"
    for member in (ann, bob, eve):
        got = member.sent[before[member]:]
        assert got == [{"type": "lobby_change", "left": [], "joined": [{"name": "Cat", "you": False}],
                        "spectators": 1}]
        assert len(json.dumps(got[0])) < 120  # the room message it replaces is kilobytes
    assert [m["type"] for m in cat.sent] == ["welcome", "room"]  # the newcomer: the whole room
    assert cat.last("room")["waiting"] == [{"name": "Cat", "you": True}]


def test_someone_who_stops_waiting_is_sent_the_room_and_the_others_a_change() -> None:
    room, wall = make_room(seats=2)
    ann, bob = FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    bob.join("Bob")
    cat, dan = FakeConnection(room), FakeConnection(room)
    cat.join("Cat")
    later(wall)
    dan.join("Dan")
    later(wall)
    cat.do(Stand())  # Cat would rather watch: their own status changed
    assert cat.sent[-1]["type"] == "room" and cat.last("room")["you"]["status"] == "watching"
    assert ann.sent[-1] == {"type": "lobby_change", "left": [0], "joined": [], "spectators": 1}
    assert dan.room_now()["waiting"] == [{"name": "Dan", "you": True}]  # marked as before


def test_people_who_come_faster_than_the_gap_are_told_of_together_after_it() -> None:
    room, wall = make_room(seats=2)
    ann, bob = FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    bob.join("Bob")
    FakeConnection(room).join("Cat")  # the first change goes out at once
    assert [m["type"] for m in ann.sent[-1:]] == ["lobby_change"]
    before = len(ann.sent)
    for name in ("Dan", "Eve"):
        FakeConnection(room).join(name)  # within the gap: held back
    for _ in range(3):
        room.handle(FakeConnection(room), Watch())
    pong_after(bob, 10)  # a pong before the gap is over: still held back
    assert len(ann.sent) == before
    later(wall)
    pong_after(bob, 10)  # after it: one change for the five of them
    assert ann.sent[before:] == [{"type": "lobby_change", "left": [], "joined": [
        {"name": "Dan", "you": False}, {"name": "Eve", "you": False}], "spectators": 3}]
    assert ann.room_now()["waiting"] == people(room, ann)["waiting"]


def test_a_change_beyond_the_people_sends_the_whole_room() -> None:
    room, _ = make_room(seats=2)
    ann, bob, cat = FakeConnection(room), FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    bob.join("Bob")
    cat.join("Cat")
    ann.do(Configure(seats=3))  # a new seat: Cat, who waited, sits in it
    for member in (ann, bob, cat):
        assert member.sent[-1]["type"] == "room"
        assert member.last("room")["waiting"] == []
        assert [s["name"] for s in member.last("room")["seats"]] == ["Ann", "Bob", "Cat"]


def crowded_room() -> tuple[Room, FakeConnection, list[FakeConnection]]:
    """A two-seat room: Ann (host) and Bob seated, then people joining, watching, standing up,
    a seat added and more joining, in an order that moves the waiting list every way; the
    watchers come together (held back, then told of after a pong), the rest one by one."""
    room, wall = make_room(seats=2)
    ann, bob = FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    bob.join("Bob")
    others: list[FakeConnection] = []
    for n in range(8):
        later(wall)
        others.append(FakeConnection(room))
        others[-1].join(f"P{n}")
    for _ in range(3):
        room.handle(FakeConnection(room), Watch())
    for n in (1, 4, 7):
        later(wall)
        others[n].do(Stand())
    ann.do(Configure(seats=3))  # the first still waiting takes the new seat
    for n in range(8, 11):
        later(wall)
        others.append(FakeConnection(room))
        others[-1].join(f"P{n}")
    later(wall)
    others[5].do(Stand())
    room.handle(FakeConnection(room), Watch())  # at once after the one before: held back
    later(wall)
    pong_after(bob, 10)
    return room, ann, [bob, *others]


def test_applied_changes_end_with_the_rooms_own_list_for_everyone() -> None:
    room, ann, others = crowded_room()
    for member in (ann, *others):
        shown = member.room_now()
        assert {"waiting": shown["waiting"], "spectators": shown["spectators"]} == people(room, member)
    sent = [m | {"code": "CODE"} if m["type"] == "room" else m  # a new room code each run
            for m in ann.sent if m["type"] in ("room", "lobby_change")]
    assert sum(1 for m in sent if m["type"] == "lobby_change") >= 12
    session = RoomSession(room.code)
    session.connected()
    for message in ann.sent:
        session.receive(cast(ServerMessage, message), 0.0)
    assert session.room is not None
    # P0 took the new seat; P1, P4, P7 and later P5 stood up to watch; P8-P10 came last
    assert [w["name"] for w in session.room["waiting"]] == ["P2", "P3", "P6", "P8", "P9", "P10"]
    assert session.room["spectators"] == 3 + 3 + 1 + 1
    assert {"waiting": session.room["waiting"], "spectators": session.room["spectators"]} == \
        people(room, ann)
    recorded = {"messages": sent, "final": people(room, ann)}
    if os.environ.get("RATSCREW_RECORD"):
        RECORDED.write_text(json.dumps(recorded, indent=1) + "\n", encoding="utf-8")
    assert json.loads(RECORDED.read_text(encoding="utf-8")) == recorded, (
        "tests/transcripts/crowded_lobby.json is not what the room sends now: after a deliberate "
        "change, RATSCREW_RECORD=1 .venv/bin/pytest tests/test_lobby_change.py")


def test_a_connection_that_leaves_is_forgotten_at_once() -> None:
    room, _ = make_room(seats=2)
    ann, eve = FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    room.handle(eve, Watch())
    assert eve in room.lobby.shown.seen
    room.disconnect(eve)  # a watcher leaving sends nothing, so no round would forget it
    assert eve not in room.lobby.shown.seen and ann in room.lobby.shown.seen
