"""A matched room (quick play's table, issue 50, on issue 49's one way in): each seat reserved
for one player, no host and no lobby; the game starts once every reserved player has joined;
a player who does not come in time closes the room without a game.

Room scenarios run on the fake clock (`online.FakeWall`); the last test opens a matched room
through the server's state object, as quick play does."""

from __future__ import annotations

import asyncio

import pytest
from online import FakeConnection, FakeWall, run_until

from ratscrew.protocol.client_messages import Join, Start, Watch
from ratscrew.protocol.codec import ProtocolError
from ratscrew.server.app import create_app
from ratscrew.server.ladder.players import hash_key
from ratscrew.server.room.admission import Reservation
from ratscrew.server.room.room import Room
from ratscrew.server.state import Server
from ratscrew.storage.sqlite import SqliteStore

ANN_KEY = "ann-key-7Qw2Zp9Lx4Rt8Vb1"
BOB_KEY = "bob-key-3Hk8Nc5Jd2Mf6Gs0"
EVE_KEY = "eve-key-9Tb4Wq1Yp7Ue3Ra5"


Heard = list[tuple[list[str], list[str]]]


async def matched_room(show_up_s: float = 20.0) -> tuple[Room, FakeWall, dict[str, str], Heard]:
    """A two-seat classic room matched for Bob (seat 0) and Ann (seat 1), whose keys the store
    knows (quick play entered them when they sought); and what its no-show callback heard."""
    store = SqliteStore(":memory:")
    ids = {name: store.enter_player(hash_key(key), name, f"{name}Public1234"[:12]).player_id
           for name, key in (("Bob", BOB_KEY), ("Ann", ANN_KEY), ("Eve", EVE_KEY))}
    heard: Heard = []
    wall = FakeWall()
    room = await Room.matched("classic", 2, [Reservation(ids["Bob"], "Bob"), Reservation(ids["Ann"], "Ann")],
                              store, "MATCH1", show_up_s=show_up_s,
                              on_no_show=lambda missing, present: heard.append((missing, present)),
                              wall=wall, drive=False)
    return room, wall, ids, heard


async def test_a_reserved_seat_is_taken_by_its_players_key_whatever_the_order_of_arrival() -> None:
    room, _, ids, _ = await matched_room()
    ann = FakeConnection(room)
    ann.do(Join("Ann", player_key=ANN_KEY))
    welcome = ann.last("welcome")
    assert welcome["seat"] == 1 and welcome["player_id"] == ids["Ann"]
    assert welcome["host"] is False  # a matched room has no host
    assert room.phase == "lobby"  # Bob has not come yet


async def test_a_join_without_a_name_sits_under_the_reservations_name() -> None:
    room, _, _, _ = await matched_room()
    bob = FakeConnection(room)
    bob.do(Join("", player_key=BOB_KEY))
    assert bob.last("welcome")["name"] == "Bob" and room.seats[0].name == "Bob"


@pytest.mark.parametrize("key", [None, EVE_KEY, "never-seen-key-5Lp2Qx8Zr1"],
                         ids=["guest", "other player", "new key"])
async def test_a_stranger_is_refused_a_seat_but_may_watch(key: str | None) -> None:
    room, _, _, _ = await matched_room()
    eve = FakeConnection(room)
    with pytest.raises(ProtocolError) as refused:
        eve.do(Join("Eve", player_key=key))
    assert refused.value.code == "room_full" and "kept for the players matched" in str(refused.value)
    assert all(seat.kind == "open" for seat in room.seats)
    eve.do(Watch())
    assert eve.last("welcome")["status"] == "watching"


async def test_the_game_starts_by_itself_once_every_reserved_player_joined_and_nobody_hosts() -> None:
    room, _, ids, heard = await matched_room()
    bob, ann = FakeConnection(room), FakeConnection(room)
    bob.do(Join("Bob", player_key=BOB_KEY))
    assert room.phase == "lobby"
    with pytest.raises(ProtocolError) as refused:
        bob.do(Start())
    assert refused.value.code == "not_host"
    ann.do(Join("Annie", player_key=ANN_KEY))  # another valid name than the reservation's
    assert room.phase == "playing" and room.game is not None
    assert [seat.player_id for seat in room.seats] == [ids["Bob"], ids["Ann"]]
    assert [seat.name for seat in room.seats] == ["Bob", "Annie"]
    assert ann.last("state")["observation"] and heard == []


async def test_players_who_do_not_come_in_time_close_the_room_without_a_game_and_are_told_of() -> None:
    room, wall, ids, heard = await matched_room(show_up_s=20.0)
    ann = FakeConnection(room)
    ann.do(Join("Ann", player_key=ANN_KEY))
    run_until(room, wall, room.clock.now() + 19_000)
    assert heard == [] and ann.closed is None
    run_until(room, wall, room.clock.now() + 2_000)
    assert heard == [([ids["Bob"]], [ids["Ann"]])]
    assert ann.closed is not None and ann.closed[0] == 4410
    assert "did not all come" in ann.last("error")["message"]
    assert room.game is None and room.games_played == 0
    run_until(room, wall, room.clock.now() + 60_000)
    assert len(heard) == 1  # told once


async def test_the_server_opens_a_matched_room_and_closes_it_when_its_players_do_not_come() -> None:
    store = SqliteStore(":memory:")
    app = create_app(store)
    server: Server = app.state.server
    ann_id = store.enter_player(hash_key(ANN_KEY), "Ann", "AnnPublic123").player_id
    told: asyncio.Queue[tuple[list[str], list[str]]] = asyncio.Queue()

    async def no_show(missing: list[str], present: list[str]) -> None:
        await told.put((missing, present))

    reservations = [Reservation(ann_id, "Ann"), Reservation("BobPublic123", "Bob")]
    code = await server.open_matched_room("classic", 2, reservations, show_up_s=0.05, on_no_show=no_show)
    room = server.rooms[code]
    assert room.show_up_wait() is not None and store.room_exists(code)
    assert await asyncio.wait_for(told.get(), 10) == ([ann_id, "BobPublic123"], [])
    assert code not in server.rooms and code in await store.closed_among_async([code])
