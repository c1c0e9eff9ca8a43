"""What ``benchmarks/server_load.py`` reads from the servers it drives: the store's share of a
play's delay, from their ``ratscrew_publish_wait_seconds`` histogram before and after the
measuring window (the load itself is a benchmark, run by hand, never timed here)."""

from __future__ import annotations

import asyncio
import doctest
import json
import sys
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import server_load
from scripted import running_server

from ratscrew.storage.sqlite import SqliteStore


def test_the_benchmarks_examples_hold() -> None:
    assert doctest.testmod(server_load).failed == 0


def next_state(ws: ClientConnection, with_events: bool = True) -> dict[str, Any]:
    """The next state (with events: one that shows something happen), answering pings."""
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=10))
        if message["type"] == "ping":
            ws.send(json.dumps({"type": "pong", "id": message["id"]}))
        elif message["type"] == "state" and (message["events"] or not with_events):
            return message


def test_the_wait_of_a_real_servers_steps_is_read_between_two_readings() -> None:
    with running_server() as server:
        assert server_load.publish_wait_buckets([f"{server.url}/no-such-page"]) is None
        before = server_load.publish_wait_buckets([server.url])
        assert before is not None and before[-1] == (float("inf"), 0.0)
        code = httpx.post(f"{server.url}/api/rooms", json={
            "rules": "classic", "seats": 2, "seed": 8, "turn_timeout_ms": 60_000}).json()["code"]
        ws_url = server.url.replace("http", "ws") + f"/ws/{code}"
        with connect(ws_url) as ann, connect(ws_url) as bob:
            for ws, name in ((ann, "Ann"), (bob, "Bob")):
                ws.send(json.dumps({"type": "join", "name": name}))
            ann.send(json.dumps({"type": "start"}))
            seats = {0: ann, 1: bob}
            state = next_state(ann, with_events=False)
            for _ in range(3):
                seats[state["observation"]["turn"]].send(json.dumps({"type": "play"}))
                state = next_state(ann)
        after = server_load.publish_wait_buckets([server.url])
    assert after is not None and [bound for bound, _ in after] == [bound for bound, _ in before]
    assert after[-1][1] >= 4  # the start's step and three plays, each stored before it was shown
    figures = server_load.publish_wait_figures(before, after)
    assert 0 < figures["publish_wait_p50_ms"] <= figures["publish_wait_p99_ms"] < 5_000
    assert server_load.publish_wait_figures(None, after)["publish_wait_p99_ms"] != \
        server_load.publish_wait_figures(None, after)["publish_wait_p99_ms"]  # NaN: not read


def test_keyed_players_each_join_as_a_new_player_of_their_own(tmp_path: Path) -> None:
    """``--keyed``: every player sends a player key of its own, as the browser page does, under a
    name no other key holds, so every join is welcomed and makes a player."""
    database = tmp_path / "load.db"
    with running_server(db=database) as server:
        report = asyncio.run(server_load.drive(
            server.url, rooms=2, ramp_s=1.0, seconds=0.5, seed=3, keyed=True, patience_s=60.0))
    assert (report.rooms, report.failed_to_start, report.lost) == (2, 0, 0)
    store = SqliteStore(database)
    try:
        names = [row["name"] for row in store._db.execute("SELECT name FROM players")]
    finally:
        store.close()
    assert sorted(names) == sorted(f"P3-{room}-{seat}" for room in range(2) for seat in range(4))
