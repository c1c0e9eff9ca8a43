"""A group of friends at one room, on a fake clock: who sits where, who waits for the next game,
what the host can arrange before the start, a slap that loses a race, and the numbered history
that lets a reloaded page draw the same log."""

from __future__ import annotations

import pytest
from online import FakeConnection, act, make_room, run_until
from test_server_room import double_on_the_table

from ratscrew.protocol.client_messages import (
    Act,
    HistoryRequest,
    MoveSeat,
    Rematch,
    SetSeat,
    Stand,
    Start,
    parse_room_request,
)
from ratscrew.protocol.codec import ProtocolError
from ratscrew.server.room.history import History

# ---------------------------------------------------------------------------------- seats


def test_a_room_made_with_the_defaults_waits_for_friends_and_seats_them() -> None:
    assert parse_room_request({}).bots == ()  # the default room has no bots: its seats are open
    room, _ = make_room(seats=3)
    host, friend = FakeConnection(room), FakeConnection(room)
    host.join("Ann")
    welcome = friend.join("Bob")
    assert (welcome["seat"], welcome["status"]) == (1, "player")
    seats = host.last("room")["seats"]
    assert [(s["kind"], s["name"]) for s in seats] == [("human", "Ann"), ("human", "Bob"), ("open", None)]
    assert host.last("room")["open_seats"] == 1


def test_a_friend_who_comes_when_bots_fill_the_table_replaces_the_last_bot() -> None:
    room, _ = make_room(seats=3, bots=["casual", "expert"])
    host, friend = FakeConnection(room), FakeConnection(room)
    host.join("Ann")
    assert friend.join("Bob")["seat"] == 2  # the expert bot in the last seat gives it up
    assert [(s.kind, s.bot) for s in room.seats] == [("human", None), ("bot", "casual"), ("human", None)]
    assert host.last("room")["seats"][1]["name"] == "Casual bot"


def test_someone_who_comes_during_a_game_waits_and_is_dealt_into_the_rematch() -> None:
    room, wall = make_room(seats=2, bots=["expert"], turn_timeout_ms=1000)
    host = FakeConnection(room)
    host.join("Ann")
    host.do(Start())
    late = FakeConnection(room)
    welcome = late.join("Cat")
    assert (welcome["seat"], welcome["status"]) == (None, "waiting")
    assert late.last("room")["you"]["status"] == "waiting"
    assert host.room_now()["waiting"] == [{"name": "Cat", "you": False}]
    assert late.last("state")["observation"]["seat"] is None  # Cat sees the game as it goes on
    with pytest.raises(ProtocolError, match="only a seated player"):
        late.do(Act("slap"))  # nobody waiting can act in the game
    run_until(room, wall, 3_600_000)
    assert room.phase == "over"
    # the game is over: Cat takes the bot's seat at once, ready for the rematch
    assert late.last("room")["you"] == {"seat": 1, "host": False, "status": "player", "name": "Cat"}
    assert host.last("room")["waiting"] == []
    host.do(Rematch())
    assert room.phase == "playing" and [s.kind for s in room.seats] == ["human", "human"]
    assert late.last("state")["observation"]["seat"] == 1


def test_nobody_waits_silently_when_no_seat_can_be_had() -> None:
    room, _ = make_room(seats=2)
    for name in ("Ann", "Bob"):
        FakeConnection(room).join(name)
    third = FakeConnection(room)
    assert third.join("Cat")["status"] == "waiting"
    third.do(Stand())  # Cat would rather watch
    assert third.last("room")["you"]["status"] == "watching" and room.waiting == []
    assert third.last("room")["spectators"] == 1


def test_the_host_opens_a_seat_for_whoever_waits_and_moves_people_between_seats() -> None:
    room, _ = make_room(seats=2, bots=["casual"])
    host, bob, cat = FakeConnection(room), FakeConnection(room), FakeConnection(room)
    host.join("Ann")
    bob.join("Bob")  # replaces the bot
    assert cat.join("Cat")["status"] == "waiting"
    host.do(MoveSeat(0, 1))
    assert [s.name for s in room.seats] == ["Bob", "Ann"]
    assert host.last("room")["you"]["seat"] == 1 and bob.last("room")["you"]["seat"] == 0
    assert host.last("room")["seats"][1]["you"]
    with pytest.raises(ProtocolError, match="kick them first"):
        host.do(SetSeat(0, None))
    with pytest.raises(ProtocolError, match="numbered 0 to 1"):
        host.do(MoveSeat(0, 5))
    with pytest.raises(ProtocolError, match="only the host"):
        bob.do(MoveSeat(0, 1))


def test_starting_with_open_seats_fills_them_with_the_chosen_bots_or_plays_with_fewer() -> None:
    room, _ = make_room(seats=4)
    host, friend = FakeConnection(room), FakeConnection(room)
    host.join("Ann")
    friend.join("Bob")
    host.do(Start(open_seats="bots", bot="expert"))
    assert [(s.kind, s.bot) for s in room.seats][2:] == [("bot", "expert"), ("bot", "expert")]

    room, _ = make_room(seats=4)
    host, friend = FakeConnection(room), FakeConnection(room)
    host.join("Ann")
    friend.join("Bob")
    host.do(Start(open_seats="remove"))
    assert len(room.seats) == 2 and room.game is not None and room.game.players == 2


def test_playing_with_fewer_seats_needs_two_players() -> None:
    room, _ = make_room(seats=3)
    host = FakeConnection(room)
    host.join("Ann")
    with pytest.raises(ProtocolError, match="at least two players"):
        host.do(Start(open_seats="remove"))
    assert room.phase == "lobby" and len(room.seats) == 3


# ---------------------------------------------------------------------------------- slap races


def test_the_slower_correct_slapper_keeps_its_cards_and_is_told_by_how_much() -> None:
    room, wall, ann, bob, sent = double_on_the_table("fair")
    act(ann, wall, "slap", sent + 260, reaction_ms=250)  # Ann is nearer but slower...
    act(bob, wall, "slap", sent + 400, reaction_ms=200)  # ...than Bob over his slow link
    run_until(room, wall, sent + 2000)
    assert room.game is not None
    assert room.game.hand_size(0) == 2 and room.game.burned == []  # Ann paid nothing
    judgement = ann.last("judgement")
    assert [(s["name"], s["result"]) for s in judgement["slaps"]] == [("Bob", "won"), ("Ann", "late")]
    margin = judgement["slaps"][1]["reaction_ms"] - judgement["slaps"][0]["reaction_ms"]
    told = (f"Ann slapped too, but Bob was {margin} ms quicker: no penalty, since being slower is "
            "not a mistake")
    assert margin > 0 and judgement["text"] == (
        f"Bob was {margin} ms quicker than Ann and takes the double: no penalty for Ann, since being "
        "slower is not a mistake")
    lines = [line for state in ann.of("state") for line in state["lines"]]
    assert told in lines
    assert not any("misslap" in line or "burns" in line for line in lines)


# ---------------------------------------------------------------------------------- history


def test_a_reloaded_page_gets_the_same_log_and_judgements_as_a_connected_one() -> None:
    room, wall, ann, bob, sent = double_on_the_table("fair")
    act(ann, wall, "slap", sent + 260, reaction_ms=250)
    act(bob, wall, "slap", sent + 400, reaction_ms=300)
    run_until(room, wall, sent + 3000)
    connected = [line for state in bob.of("state") for line in state["lines"]]
    judged = bob.last("judgement")
    assert judged["version"] <= bob.version and judged["game"] == 1
    reloaded = FakeConnection(room)
    token = bob.last("welcome")["token"]
    reloaded.join("Bob", token=token)
    history = reloaded.last("history")
    assert history["complete"] and history["game"] == 1
    assert [line for e in history["entries"] if "lines" in e for line in e["lines"]] == connected
    assert [e["judgement"] for e in history["entries"] if "judgement" in e] == [judged]
    versions = [e["version"] for e in history["entries"] if "lines" in e]
    assert versions == sorted(set(versions))  # numbered, no duplicate, no gap:
    assert versions == list(range(versions[0], versions[-1] + 1))
    # the history comes before the latest state, so the page draws the log, then the table
    types = [m["type"] for m in reloaded.sent]
    assert types.index("history") < types.index("state")


def test_a_client_that_missed_states_asks_for_them_by_version() -> None:
    room, wall, ann, _bob, sent = double_on_the_table("fair")
    seen = ann.version
    act(ann, wall, "slap", sent + 260, reaction_ms=250)
    run_until(room, wall, sent + 3000)
    ann.do(HistoryRequest(since=seen))
    entries = ann.last("history")["entries"]
    missed = [m for m in ann.of("state") if m["version"] > seen]
    assert [e["version"] for e in entries if "lines" in e] == [m["version"] for m in missed]
    assert [e["lines"] for e in entries if "lines" in e] == [m["lines"] for m in missed]


def test_the_history_keeps_the_game_before_and_is_bounded() -> None:
    history = History(limit=3)
    history.start_game(1)
    for version in range(1, 6):
        history.add_state(1, version, [], [f"line {version}"])
    whole = history.message(since=None)
    assert [e["version"] for e in whole["entries"]] == [3, 4, 5] and not whole["complete"]
    assert not history.message(since=1)["complete"]  # versions 2 is gone
    assert history.message(since=3)["complete"]
    history.start_game(2)
    history.add_state(2, 6, [], ["next game"])
    history.start_game(3)
    assert {e["game"] for e in history.message(since=None)["entries"]} == {2}
