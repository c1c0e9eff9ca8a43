"""The room's dispatch table: every client message has one route (who may send it, when), each
kind of precondition refuses with the protocol's error code and changes nothing, and a message
type the table does not know is refused instead of reaching the host's commands. And the room's
lifecycle: the hooks that hear people arrive and leave (the idle-room sweep among them), a room
disposed of and freed, a room reloaded in place from its store after an outage."""

from __future__ import annotations

import gc
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import pytest
from online import FakeConnection, make_room, move_to, run_until

from ratscrew.protocol.client_messages import (
    Act,
    ClientMessage,
    Configure,
    HistoryRequest,
    Join,
    Kick,
    MoveSeat,
    Pong,
    Ready,
    Rematch,
    SetSeat,
    Stand,
    Start,
    Watch,
)
from ratscrew.protocol.codec import ProtocolError
from ratscrew.server.ops.expiry import IdleRooms
from ratscrew.server.room.dispatch import PHASES, Who, routes_table
from ratscrew.server.room.lifecycle import Presence, RoomHooks
from ratscrew.server.room.room import ROUTES, Room

ONE_OF_EACH: dict[type[Any], Any] = {
    Join: Join("Zed"), Watch: Watch(), Ready: Ready(True), Configure: Configure(pace="fast"),
    SetSeat: SetSeat(2, "casual"), MoveSeat: MoveSeat(0, 2), Kick: Kick(1), Start: Start(),
    Stand: Stand(), Rematch: Rematch(), Act: Act("slap"), Pong: Pong(1),
    HistoryRequest: HistoryRequest(None)}
"""A message of every client type."""


def stored(room: Room) -> Any:
    """Everything the store keeps of the room."""
    return room.store.load_room(room.code)


def test_every_client_message_type_has_exactly_one_route_and_the_table_nothing_else() -> None:
    message_types = set(get_args(ClientMessage))
    assert set(ROUTES) == message_types
    assert len(ROUTES) == len(message_types) == len(ONE_OF_EACH)


def test_the_table_in_docs_online_md_is_the_rooms_table() -> None:
    page = (Path(__file__).parent.parent / "docs" / "online.md").read_text()
    inside = page[page.index("### Inside a room"):page.index("## Past one process")]
    assert routes_table(ROUTES) in inside


@dataclass(frozen=True)
class Reaction:
    """A message type the room has no route for (say, a spectator's reaction, not built yet)."""

    emoji: str


def test_a_message_type_the_table_does_not_know_is_refused_and_never_reaches_the_host_commands() -> None:
    room, _ = make_room(seats=3)
    ann = FakeConnection(room)
    ann.join("Ann")  # the host, outside a game: a host command would save and broadcast
    before, sent = stored(room), len(ann.sent)
    with pytest.raises(ProtocolError) as refused:
        room.handle(ann, Reaction("🐀"))  # type: ignore[arg-type]
    assert refused.value.code == "bad_message" and "Reaction" in str(refused.value)
    assert stored(room) == before and len(ann.sent) == sent


def _room_with_host_player_and_watcher() -> tuple[Room, FakeConnection, FakeConnection, FakeConnection]:
    room, _ = make_room(seats=3)
    ann, bob, eve = FakeConnection(room), FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    bob.join("Bob")
    eve.join("Eve")
    eve.do(Stand())  # Eve watches
    return room, ann, bob, eve


@pytest.mark.parametrize("kind", [kind for kind, route in ROUTES.items() if route.who is Who.HOST],
                         ids=lambda kind: ROUTES[kind].name)
def test_a_player_who_is_not_the_host_sending_a_host_command_is_refused_not_host(kind: type[Any]) -> None:
    room, _, bob, _ = _room_with_host_player_and_watcher()
    before = stored(room)
    with pytest.raises(ProtocolError) as refused:
        bob.do(ONE_OF_EACH[kind])
    assert refused.value.code == "not_host" and stored(room) == before


@pytest.mark.parametrize("kind", [kind for kind, route in ROUTES.items() if route.who is Who.SEATED],
                         ids=lambda kind: ROUTES[kind].name)
def test_a_watcher_sending_what_only_a_seated_player_may_is_refused_not_seated(kind: type[Any]) -> None:
    room, ann, _, eve = _room_with_host_player_and_watcher()
    ann.do(Start())
    with pytest.raises(ProtocolError) as refused:
        eve.do(ONE_OF_EACH[kind])
    assert refused.value.code == "not_seated" and "only a seated player" in str(refused.value)
    assert room.game is not None and room.game.action_count == 0


@pytest.mark.parametrize("kind", [kind for kind, route in ROUTES.items() if route.who is not Who.ANYONE],
                         ids=lambda kind: ROUTES[kind].name)
def test_a_connection_that_neither_joined_nor_watches_may_only_join_watch_or_pong(kind: type[Any]) -> None:
    room, _, _, _ = _room_with_host_player_and_watcher()
    stranger = FakeConnection(room)
    room.connect(stranger)
    before = stored(room)
    with pytest.raises(ProtocolError, match="send join or watch first") as refused:
        stranger.do(ONE_OF_EACH[kind])
    assert refused.value.code == "not_seated" and stored(room) == before and stranger.sent == []


@pytest.mark.parametrize("kind", [kind for kind, route in ROUTES.items() if route.phases != PHASES],
                         ids=lambda kind: ROUTES[kind].name)
def test_a_message_outside_its_phases_is_refused_wrong_phase(kind: type[Any]) -> None:
    room, ann, bob, _ = _room_with_host_player_and_watcher()
    route = ROUTES[kind]
    if "lobby" in route.phases:
        ann.do(Start())  # now playing
    # otherwise the room is in the lobby, a phase none of the others has
    assert room.phase not in route.phases
    sender = ann if route.who is Who.HOST else bob
    before = stored(room)
    with pytest.raises(ProtocolError) as refused:
        sender.do(ONE_OF_EACH[kind])
    assert refused.value.code == "wrong_phase" and stored(room) == before


def test_a_paused_room_refuses_everything_but_pong_as_unavailable() -> None:
    room, ann, _, _ = _room_with_host_player_and_watcher()
    room.paused = "the database is away"
    for message in ONE_OF_EACH.values():
        if isinstance(message, Pong):
            ann.do(message)  # a pong is only the link's measure: still taken
            continue
        with pytest.raises(ProtocolError) as refused:
            ann.do(message)
        assert refused.value.code == "unavailable"


def test_a_kicked_token_cannot_rejoin_and_its_holder_only_watches() -> None:
    room, ann, bob, _ = _room_with_host_player_and_watcher()
    token = bob.last("welcome")["token"]
    ann.do(Kick(1))
    assert bob.last("kicked") and bob.last("room")["you"]["status"] == "watching"
    again = FakeConnection(room)
    with pytest.raises(ProtocolError, match="the host removed this player") as refused:
        again.join("Bob", token=token)
    assert refused.value.code == "bad_token" and room.seats[1].kind == "open"
    with pytest.raises(ProtocolError) as acting:
        bob.do(Ready(True))  # the kicked connection stays, as a watcher
    assert acting.value.code == "not_seated"


class FixedLengths:
    """The lab's expected game length, already computed (`ratscrew.server.lab.jobs.LabService`)."""

    def expected_length(self, rules: object, bots: object, on_ready: object,
                        address: object = None) -> dict[str, float]:
        return {"median_minutes": 6.0, "p90_minutes": 11.0}


def test_a_room_reloaded_after_an_outage_is_the_same_object_with_its_people_and_plays_on() -> None:
    room, wall = make_room(seats=3, bots=["expert"], seed=8, turn_timeout_ms=1000)
    ann, bob, eve = FakeConnection(room), FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    bob.join("Bob")
    room.handle(eve, Watch())
    ann.do(Start())
    run_until(room, wall, 20_000)
    assert room.game is not None and room.game.cards_played > 5 and not room.game.over
    stored_state = room.game.observe(None)
    lab, publisher, clock = FixedLengths(), room.publisher, room.clock
    room.expected_lengths = lab  # type: ignore[assignment]  # what the server wired stays wired
    room.pause_for_store()
    room.reload()
    assert room.paused is None and room.game is not None
    assert room.game.observe(None) == stored_state
    assert room.publisher is publisher and room.clock is clock
    assert room.summary()["expected_length"] == {"median_minutes": 6.0, "p90_minutes": 11.0}
    assert [(m.seat, m.name) for m in room.connections.values()] == [(0, "Ann"), (1, "Bob"), (None, None)]
    assert room.seats[0].conn is ann and room.seats[1].conn is bob
    for person in (ann, bob, eve):
        assert person.last("notice")["code"] == "resumed"
    cards = room.game.cards_played
    move_to(room, wall, room.clock.now())
    run_until(room, wall, room.clock.now() + 20_000)
    assert room.game.cards_played > cards


class Diary(RoomHooks):
    """Writes down every hook the room calls."""

    def __init__(self) -> None:
        self.lines: list[tuple[Any, ...]] = []

    def on_auth(self, code: str, token_hash: str) -> None:
        self.lines.append(("auth",))

    def on_join(self, presence: Presence) -> None:
        self.lines.append(("join", presence.member.name, presence.present, presence.seat_in_game))

    def on_leave(self, presence: Presence) -> None:
        self.lines.append(("leave", presence.member.name, presence.present, presence.seat_in_game))

    def on_dispose(self, code: str) -> None:
        self.lines.append(("dispose",))


async def test_the_hooks_hear_people_join_leave_come_back_and_the_room_disposed_of() -> None:
    room, _ = make_room(seats=2)
    diary = Diary()
    room.add_hooks(diary)
    ann, bob, eve = FakeConnection(room), FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    token = bob.join("Bob")["token"]
    room.handle(eve, Watch())
    ann.do(Start())
    room.disconnect(bob)  # Bob's page closes during the game
    back = FakeConnection(room)
    back.join("Bob", token=token)
    newer = FakeConnection(room)
    newer.join("Bob", token=token)  # a second page with Bob's token takes over the seat
    await room.dispose(4410, "closed")
    assert diary.lines == [
        ("join", "Ann", 1, None), ("join", "Bob", 2, None), ("join", None, 3, None),
        ("leave", "Bob", 2, 1),  # he left his seat of the game being played
        ("auth",), ("join", "Bob", 3, 1),
        ("auth",), ("leave", "Bob", 2, None), ("join", "Bob", 3, 1),  # the seat never left
        ("dispose",)]
    assert back.closed == (4001, "replaced")
    assert all(conn.closed == (4410, "closed") for conn in (ann, eve, newer))


def test_the_idle_room_sweep_hears_through_the_hooks_when_the_last_person_left() -> None:
    room, wall = make_room(seats=2)
    idle = IdleRooms(idle_s=60.0, wall=wall)
    room.add_hooks(idle)
    assert idle.due([room.code], wall()) == []  # just created: its idle time starts now
    ann, eve = FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    room.handle(eve, Watch())
    wall.t += 120
    room.disconnect(ann)
    assert idle.due([room.code], wall()) == []  # Eve still watches
    wall.t += 120
    room.disconnect(eve)
    wall.t += 59
    assert idle.due([room.code], wall()) == []
    wall.t += 1
    assert idle.due([room.code], wall()) == [room.code]


async def test_a_disposed_room_lets_go_of_its_game_and_people_and_nothing_else_holds_it() -> None:
    room, wall = make_room(seats=3, bots=["expert"], seed=8)
    ann = FakeConnection(room)
    ann.join("Ann")
    ann.do(Start())
    run_until(room, wall, 20_000)
    game = room.game
    assert game is not None and game.cards_played > 0
    gone = weakref.ref(room)
    await room.dispose(4410, "closed")
    assert room.connections == {} and room.game is None and room.seats[0].conn is None
    del room
    ann.room = None  # type: ignore[assignment]  # the page let go of it too
    gc.collect()
    assert gone() is None
