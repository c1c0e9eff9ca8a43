"""The room's one way in (`ratscrew.server.room.admission`): lifecycle hooks that refuse a token,
the watching level of the dispatch table, and a hand-started admission finished as a task
would finish it."""

from __future__ import annotations

import asyncio

import pytest
from online import FakeConnection, make_room

from ratscrew.protocol.client_messages import HistoryRequest, Join, Stand
from ratscrew.protocol.codec import ProtocolError
from ratscrew.server.room.admission import resumed
from ratscrew.server.room.dispatch import Who
from ratscrew.server.room.lifecycle import RoomHooks
from ratscrew.server.room.room import ROUTES


class Banned(RoomHooks):
    """Refuses every token it is asked about (say, a ban list kept outside the room)."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def on_auth(self, code: str, token_hash: str) -> None:
        self.asked.append(token_hash)
        raise ProtocolError("bad_token", "this player may not come back here")


def test_a_lifecycle_hook_may_refuse_a_token_and_the_room_is_unchanged() -> None:
    room, _ = make_room(seats=3)
    ann = FakeConnection(room)
    token = ann.join("Ann")["token"]
    ann.do(Stand())
    hooks = Banned()
    room.add_hooks(hooks)
    before = room.store.load_room(room.code)
    again = FakeConnection(room)
    with pytest.raises(ProtocolError) as refused:
        again.do(Join("Ann", token=token))
    assert refused.value.code == "bad_token" and len(hooks.asked) == 1
    assert room.store.load_room(room.code) == before and again.sent == []


def test_a_watcher_may_ask_for_the_history_and_a_stranger_may_not() -> None:
    assert ROUTES[HistoryRequest].who is Who.WATCHER
    room, _ = make_room(seats=2)
    ann, eve, stranger = FakeConnection(room), FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    eve.join("Eve")
    eve.do(Stand())  # Eve only watches now
    eve.do(HistoryRequest(None))
    assert eve.last("history")["type"] == "history"
    with pytest.raises(ProtocolError, match="send join or watch first"):
        stranger.do(HistoryRequest(None))


async def test_a_hand_started_coroutine_is_finished_as_a_task_would_finish_it() -> None:
    async def two_waits() -> int:
        await asyncio.sleep(0.001)
        await asyncio.sleep(0)
        return 7

    async def fails() -> None:
        await asyncio.sleep(0.001)
        raise ValueError("refused")

    started = two_waits()
    assert await resumed(started, started.send(None)) == 7
    failing = fails()
    with pytest.raises(ValueError, match="refused"):
        await resumed(failing, failing.send(None))
