"""Past one process, through Starlette's test client: shards own the rooms of their letter and
refuse the others' (never a second copy), share finished games and the per-address limits
through PostgreSQL, and a room survives PostgreSQL going away mid-game (it pauses, refuses
actions, and resumes from its last stored move). ``serve`` refuses an unreachable PostgreSQL in
one line that names the URL without its password."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import online
import pytest
from postgres import PostgresCluster, free_port
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from ratscrew.server.app import create_app
from ratscrew.server.http.limits import Limits
from ratscrew.storage.postgres import PostgresStore
from ratscrew.storage.roles import Store
from ratscrew.storage.sqlite import SqliteStore

Socket = Any  # starlette.testclient.WebSocketTestSession


def receive(ws: Socket, kind: str,
            where: Callable[[dict[str, Any]], bool] = lambda m: True) -> dict[str, Any]:
    """`online.receive` with this module's patience (limit=300)."""
    return online.receive(ws, kind, where, limit=300)


def new_room(client: TestClient, **body: Any) -> str:
    response = client.post("/api/rooms", json={"rules": "classic", "seats": 2, **body})
    assert response.status_code == 201, response.text
    code: str = response.json()["code"]
    return code


@pytest.fixture
def shards(fresh_database: str) -> Iterator[Callable[..., TestClient]]:
    """Opens shard processes (apps with their own store) on one PostgreSQL database."""
    with ExitStack() as stack:
        def open_shard(letter: str | None, **options: Any) -> TestClient:
            app = create_app(PostgresStore(fresh_database), shard=letter, close_store=True, **options)
            return stack.enter_context(TestClient(app))

        yield open_shard


def test_a_shard_makes_codes_of_its_letter_and_refuses_other_shards_rooms() -> None:
    store = SqliteStore(":memory:")
    store.save_room("BCDEFG", {"rules": "classic"}, None, "lobby", 0, None, [])  # shard B's room
    with TestClient(create_app(store, shard="K")) as client:
        codes = [new_room(client) for _ in range(5)]
        assert all(code[0] == "K" and len(code) == 6 for code in codes)
        assert client.get(f"/api/rooms/{codes[0].lower()}").status_code == 200
        response = client.get("/api/rooms/BCDEFG")
        assert response.status_code == 421
        assert response.json() == {"error": "room BCDEFG belongs to shard B, and this server is "
                                            "shard K: the proxy sent it to the wrong server"}
        page = client.get("/r/BCDEFG")  # a person's link: a page, not the API's JSON
        assert page.status_code == 421 and page.headers["content-type"].startswith("text/html")
        assert "This room is not available" in page.text and "Start a new room" in page.text
        with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect("/ws/BCDEFG") as ws:
            ws.receive_json()
        assert closed.value.code == 4421 and "belongs to shard B" in closed.value.reason
        assert client.get("/api/rooms/KZZZZZ").status_code == 404  # its own letter, no such room
        mistyped = client.get("/r/BZZZZZ")  # no such room anywhere: not a routing mistake
        assert mistyped.status_code == 404 and "There is no room with that code" in mistyped.text


def test_shards_share_finished_games_and_load_only_their_own_rooms(
        shards: Callable[..., TestClient]) -> None:
    a, b = shards("A"), shards("B")
    code = new_room(a, bots=["casual"])
    waiting = new_room(a)
    other = new_room(b)
    assert code[0] == waiting[0] == "A" and other[0] == "B"
    with a.websocket_connect(f"/ws/{code}") as ws:
        ws.send_json({"type": "join", "name": "Ann", "player_key": "ann-key-Qm3xT9vLp2Zr7WbK4sYd8Hc"})
        ann = receive(ws, "welcome")["player_id"]
        ws.send_json({"type": "start"})
        receive(ws, "state")
        ws.send_json({"type": "resign"})
        over = receive(ws, "game_over")
    # any shard answers what is in the database: the record, the replay, the ratings
    assert b.get(over["record_url"]).json() == a.get(over["record_url"]).json()
    assert b.get(f"/games/{over['game_id']}").status_code == 200
    assert b.get(f"/api/games/{over['game_id']}/replay").status_code == 200
    assert [r["games"] for r in b.get(f"/api/players/{ann}").json()["ratings"]] == [1]
    assert b.get(f"/api/rooms/{code}").status_code == 421  # but not A's room itself
    # a shard started later loads its own rooms, never another's
    again = shards("C")
    assert again.get("/api/rooms/" + other).status_code == 421
    server_b = b.app.state.server  # type: ignore[attr-defined]
    assert set(server_b.rooms) == {other}


def test_the_per_address_limits_hold_across_shards(shards: Callable[..., TestClient]) -> None:
    a, b = shards("A", limits=Limits(rooms_per_hour=3)), shards("B", limits=Limits(rooms_per_hour=3))
    assert [a.post("/api/rooms", json={}).status_code for _ in range(2)] == [201, 201]
    assert b.post("/api/rooms", json={}).status_code == 201
    refused = b.post("/api/rooms", json={})
    assert refused.status_code == 429 and "rooms an hour" in refused.json()["error"]
    assert a.post("/api/rooms", json={}).status_code == 429


def test_serve_refuses_an_unreachable_postgresql_naming_it_without_the_password() -> None:
    port = free_port()
    url = f"postgresql://ers:hunter2@127.0.0.1:{port}/ers"
    result = subprocess.run([sys.executable, "-m", "ratscrew", "serve", "--port", "0", "--db", url],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert f"postgresql://ers@127.0.0.1:{port}/ers" in result.stderr
    assert "hunter2" not in result.stderr + result.stdout and "Traceback" not in result.stderr


def test_a_second_server_for_the_same_shard_is_refused(fresh_database: str) -> None:
    first = PostgresStore(fresh_database)
    try:
        first.claim("A")
        result = subprocess.run([sys.executable, "-m", "ratscrew", "serve", "--port", "0", "--db",
                                 fresh_database, "--shard", "a"], capture_output=True, text=True,
                                timeout=60)
    finally:
        first.close()
    assert result.returncode == 2 and "already serves shard A" in result.stderr


def test_a_room_pauses_while_postgresql_is_away_and_resumes_when_it_is_back(
        private_cluster: PostgresCluster) -> None:
    url = private_cluster.create_database()
    store: Store = PostgresStore(url)
    with TestClient(create_app(store, close_store=True)) as client:
        code = new_room(client, seed=8, turn_timeout_ms=60_000)
        with client.websocket_connect(f"/ws/{code}") as ann, client.websocket_connect(f"/ws/{code}") as bob:
            ann.send_json({"type": "join", "name": "Ann"})
            receive(ann, "welcome")
            bob.send_json({"type": "join", "name": "Bob"})
            receive(bob, "welcome")
            ann.send_json({"type": "start"})
            seats = {0: ann, 1: bob}
            state = receive(ann, "state")
            receive(bob, "state")
            for _ in range(4):  # four cards, each shown only once stored
                turn = state["observation"]["turn"]
                seats[turn].send_json({"type": "play"})
                state = receive(ann, "state", lambda m: bool(m["events"]))
                receive(bob, "state", lambda m: bool(m["events"]))
            shown = state["observation"]
            assert shown["cards_played"] == 4

            private_cluster.stop()
            turn = shown["turn"]
            seats[turn].send_json({"type": "play"})  # taken by the engine, but cannot be stored
            paused = receive(seats[turn], "error")
            assert paused["code"] == "unavailable" and "database" in paused["message"]
            seats[turn].send_json({"type": "play"})
            assert receive(seats[turn], "error")["code"] == "unavailable"  # refused while away
            other = seats[1 - turn]
            assert receive(other, "error")["code"] == "unavailable"  # everyone is told

            private_cluster.start()
            assert receive(ann, "notice")["code"] == "resumed"
            again = receive(ann, "state")["observation"]
            assert again["cards_played"] == shown["cards_played"]  # nothing unstored was kept
            assert again["pile"] == shown["pile"] and again["turn"] == turn
            seats[turn].send_json({"type": "play"})
            after = receive(ann, "state", lambda m: bool(m["events"]))["observation"]
            assert after["cards_played"] == shown["cards_played"] + 1
            with client.websocket_connect(f"/ws/{code}") as cat:  # a page opened after it all
                cat.send_json({"type": "watch"})
                told = receive(cat, "history")["entries"]
                plays = [line for entry in told for line in entry.get("lines", []) if " plays " in line]
                assert len(plays) == after["cards_played"]  # not the play the store lost, too
        game_id = client.get(f"/api/rooms/{code}").json()["game_id"]
    check = PostgresStore(url)
    try:
        stored = check.game_in_progress(game_id)
        assert stored is not None and len(stored.actions) == shown["cards_played"] + 1
    finally:
        check.close()


def test_a_server_with_no_paused_room_comes_back_after_postgresql_was_away(
        private_cluster: PostgresCluster) -> None:
    """A new room asked for while PostgreSQL is away is refused (503) and the store fails fast;
    no room paused, so nothing else would look again: the outage watch probes anyway, and once
    PostgreSQL is back new rooms are made again, without a restart."""
    store = PostgresStore(private_cluster.create_database())
    with TestClient(create_app(store, close_store=True)) as client:
        assert client.post("/api/rooms", json={"rules": "classic", "seats": 2}).status_code == 201
        private_cluster.stop()
        refused = client.post("/api/rooms", json={"rules": "classic", "seats": 2})
        assert refused.status_code == 503 and "database" in refused.json()["error"]
        assert store.failing_fast
        private_cluster.start()
        deadline = time.monotonic() + 15
        while store.failing_fast and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not store.failing_fast  # found back within a probe or two
        assert client.post("/api/rooms", json={"rules": "classic", "seats": 2}).status_code == 201


def test_after_a_long_outage_the_store_answers_at_the_first_probe_and_the_pool_is_quiet(
        private_cluster: PostgresCluster, caplog: pytest.LogCaptureFixture) -> None:
    """psycopg's pool retries a lost connection with a back-off that grows with the outage (1,
    2, 4, 8, 16 s …): asked through it, the database was found back only at the pool's next
    try, 54 s late after a 3-minute outage. The store now asks the database itself while it is
    away and makes its connections anew once it answers; meanwhile the pool is closed, so it
    logs a warning once in the outage at most, not once for every try."""
    from ratscrew.storage.records import StoreUnavailable

    store = PostgresStore(private_cluster.create_database())
    try:
        store.claim("A")  # as a shard: its lock's own connection is lost with the restart too
        assert store.list_rooms() == []
        private_cluster.stop()
        with pytest.raises(StoreUnavailable):
            store.list_rooms()
        assert store.failing_fast
        caplog.clear()
        away_until = time.monotonic() + 20  # long enough for the pool's back-off to pass 10 s
        while time.monotonic() < away_until:  # the outage watch's probes, once a second
            assert not store.reachable()
            time.sleep(1.0)
        private_cluster.start()
        assert store.reachable()  # the first probe after the database answers
        assert not store.failing_fast and store.list_rooms() == [] and store.claim_held
        pool_warnings = [r for r in caplog.records if r.name.startswith("psycopg")]
        assert len(pool_warnings) <= 1  # a try already under way when the pool closed, at most
    finally:
        store.close()
