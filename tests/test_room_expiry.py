"""Rooms end: a room nobody has been in for ``--idle-room-hours`` is closed (out of memory,
closed in the store, never loaded again) and its link, API and websocket say so; a room
somebody is in stays. Through Starlette's test client on a SQLite file, with the idle time a
fraction of a second (the store side is in test_store_contract.py, on both databases)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from serving import ServerProcess
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from ratscrew.client.address import parse_room_address
from ratscrew.client.link import RoomUnavailable, fetch_room
from ratscrew.server.app import create_app
from ratscrew.storage.sqlite import SqliteStore

IDLE_S = 0.4


def new_room(client: TestClient) -> str:
    response = client.post("/api/rooms", json={"rules": "classic", "seats": 2})
    assert response.status_code == 201, response.text
    return str(response.json()["code"])


def test_an_idle_room_closes_and_says_so_while_a_room_with_somebody_in_it_stays(tmp_path: Path) -> None:
    database = tmp_path / "ratscrew.db"
    app = create_app(database, idle_room_hours=IDLE_S / 3600)
    with TestClient(app) as client:
        idle, watched = new_room(client), new_room(client)
        with client.websocket_connect(f"/ws/{watched}") as watcher:
            watcher.send_json({"type": "watch"})
            deadline = time.monotonic() + 10
            while client.get(f"/api/rooms/{idle}").status_code != 410:
                assert time.monotonic() < deadline, "the idle room did not close"
                time.sleep(0.1)
            time.sleep(3 * IDLE_S)
            assert client.get(f"/api/rooms/{watched}").status_code == 200  # somebody is in it
        gone = client.get(f"/api/rooms/{idle}")
        assert gone.json()["error"] == "room_closed" and "closed" in gone.json()["message"]
        page = client.get(f"/r/{idle}")
        assert page.status_code == 410 and "This room has closed" in page.text
        with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect(f"/ws/{idle}") as ws:
            ws.receive_json()
        assert closed.value.code == 4410 and "closed" in closed.value.reason
        assert idle not in app.state.server.rooms and watched in app.state.server.rooms
        unknown = client.get("/r/AAAAAA")
        assert unknown.status_code == 404  # a code that never was is still "not found"
    store = SqliteStore(database)
    try:
        assert [row.code for row in store.load_rooms()] == [watched]  # never loaded again
    finally:
        store.close()


def test_a_mistyped_code_of_a_letter_no_shard_owns_gets_the_not_found_page(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "ratscrew.db", shard="A")) as client:
        page = client.get("/r/ZZZZZZ")
        assert page.status_code == 404 and "There is no room with that code" in page.text
        assert client.get("/api/rooms/ZZZZZZ").status_code == 404


def test_a_room_an_operator_closes_leaves_the_running_server_and_its_watchers_are_told(
        tmp_path: Path) -> None:
    app = create_app(tmp_path / "ratscrew.db", idle_room_hours=IDLE_S / 3600)
    with TestClient(app) as client:
        code = new_room(client)
        with client.websocket_connect(f"/ws/{code}") as watcher:
            watcher.send_json({"type": "watch"})
            assert app.state.server.store.close_room(code)  # what `ratscrew admin rooms close` does
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(1000):
                    message = watcher.receive_json()
                    if message["type"] == "ping":
                        watcher.send_json({"type": "pong", "id": message["id"]})
            assert closed.value.code == 4410
            assert "or the site closed it" in closed.value.reason  # not only "nobody had been in it"
        assert code not in app.state.server.rooms
        assert client.get(f"/api/rooms/{code}").status_code == 410
        assert "the site's operator closed it" in client.get(f"/r/{code}").text


def test_ratscrew_join_says_a_closed_room_has_closed(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "ratscrew.db", "--idle-room-hours", repr(IDLE_S / 3600)) as server:
        code = server.new_room()
        deadline = time.monotonic() + 15
        while server.get(f"/api/rooms/{code}").status_code != 410:
            assert time.monotonic() < deadline, "the idle room did not close"
            time.sleep(0.1)
        with pytest.raises(RoomUnavailable, match="has closed"):
            fetch_room(parse_room_address(f"{server.url}/r/{code}"))


@pytest.mark.parametrize("hours", ["0", "-1", "nan"])
def test_an_idle_time_that_would_close_every_room_at_once_is_refused(tmp_path: Path, hours: str) -> None:
    database = tmp_path / "ratscrew.db"
    store = SqliteStore(database)
    store.save_room("AB23CD", {"rules": "classic"}, None, "lobby", 0, None, [])
    store.close()
    for workers in ([], ["--workers", "2"]):
        refused = subprocess.run([sys.executable, "-m", "ratscrew", "serve", "--port", "0", "--db",
                                  str(database), f"--idle-room-hours={hours}", *workers],
                                 capture_output=True, text=True, timeout=60)
        assert refused.returncode == 2
        assert refused.stderr.startswith("ratscrew: error: --idle-room-hours is a number of hours "
                                         "above 0"), refused.stderr
    store = SqliteStore(database)
    assert [room["code"] for room in store.list_rooms(include_closed=False)] == ["AB23CD"]
    store.close()
