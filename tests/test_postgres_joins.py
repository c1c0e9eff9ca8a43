"""On PostgreSQL, creating a room and joining it make no database round trip on the event loop
(issue 27): the counts of rooms and joins per address (rows every process shares), the new room's
code and first save run in a worker thread, and a joiner's token and seat go through the step
writer's thread, the welcome waiting for them. Whatever the joiner sends meanwhile is taken
after the join, in order. (A join with a player key still looks its player up on the loop.)"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Callable
from typing import Any

from starlette.testclient import TestClient
from test_server_app import receive

from ratscrew.server.app import Server, WindowCounter, create_app
from ratscrew.server.pgstore import PostgresStore


class LoopWatch:
    """Which calls of watched objects ran on a thread that runs an event loop."""

    def __init__(self) -> None:
        self.on_the_loop: list[str] = []
        self.off_the_loop: list[str] = []

    def watch(self, target: Any, *names: str) -> None:
        """Wrap ``target``'s methods ``names`` (every public one without names), on the instance."""
        for name in names or [n for n in dir(type(target)) if not n.startswith("_")]:
            method = getattr(target, name)
            if callable(method) and not inspect.iscoroutinefunction(method):
                setattr(target, name, self._watched(f"{type(target).__name__}.{name}", method))

    def _watched(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                self.off_the_loop.append(name)
            else:
                self.on_the_loop.append(name)
            return method(*args, **kwargs)

        return call


def test_creating_a_room_and_joining_it_make_no_round_trip_on_the_event_loop(fresh_database: str) -> None:
    store = PostgresStore(fresh_database)
    watch = LoopWatch()
    watch.watch(store)
    app = create_app(store, close_store=True)
    server: Server = app.state.server
    for counter in (server.room_counter, server.join_counter, server.player_counter):
        watch.watch(counter, "allow")
    with TestClient(app, client=("127.0.0.1", 40000)) as client:
        watch.on_the_loop.clear()  # (opening the app reads the store once, before any room)
        code = client.post("/api/rooms", json={"rules": "classic", "seats": 2, "seed": 8,
                                               "turn_timeout_ms": 60_000}).json()["code"]
        with client.websocket_connect(f"/ws/{code}") as ann, client.websocket_connect(f"/ws/{code}") as bob:
            ann.send_json({"type": "join", "name": "Ann"})
            ann.send_json({"type": "ready", "ready": True})  # sent before the welcome: taken after it
            receive(ann, "welcome")
            room = receive(ann, "room", lambda m: any(seat.get("ready") for seat in m["seats"]))
            bob.send_json({"type": "watch"})
            assert receive(bob, "welcome")["seat"] is None
            bob.send_json({"type": "join", "name": "Bob"})
            assert receive(bob, "welcome")["seat"] == 1
    assert [name for name in watch.on_the_loop if name != "PostgresStore.close"] == []
    for done_off_the_loop in ("room_exists", "save_room", "add_member"):
        assert f"PostgresStore.{done_off_the_loop}" in watch.off_the_loop, watch.off_the_loop
    assert watch.off_the_loop.count("PostgresRateCounter.allow") == 4  # a room, a watch, two joins
    assert room["seats"][0]["name"] == "Ann" and room["seats"][0]["ready"]
    stored = PostgresStore(fresh_database)
    try:
        row = stored.load_room(code)
        assert row is not None and [seat.name for seat in row.seats] == ["Ann", "Bob"]
        assert all(seat.token_hash for seat in row.seats)
    finally:
        stored.close()


def test_a_join_refused_for_its_rate_is_answered_and_what_followed_it_taken(fresh_database: str) -> None:
    store = PostgresStore(fresh_database)
    app = create_app(store, close_store=True)
    server: Server = app.state.server
    server.join_counter = WindowCounter(limit=0, window_s=60)  # every join over the limit
    with TestClient(app, client=("127.0.0.1", 40000)) as client:
        code = client.post("/api/rooms", json={"rules": "classic", "seats": 2}).json()["code"]
        with client.websocket_connect(f"/ws/{code}") as ann:
            ann.send_json({"type": "join", "name": "Ann"})
            ann.send_json({"type": "ready", "ready": True})
            refused = receive(ann, "error")
            assert refused["code"] == "rate_limited" and "joins" in refused["message"]
            assert receive(ann, "error")["code"] == "not_seated"  # the ready, after the refusal
