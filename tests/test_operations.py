"""What an operator watches, through Starlette's test client on a real PostgreSQL: ``/healthz``
(liveness) answers whatever the database does; ``/readyz`` (readiness) is 503 while the database
is away and rooms are paused, and 200 again once it is back; ``/metrics`` parses as Prometheus
text, counts what happened, and is readable from loopback and the trusted proxy only."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from postgres import PostgresCluster
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient
from test_server_app import receive

from ratscrew.server.app import create_app
from ratscrew.server.ops.metrics import parse_trusted
from ratscrew.storage.postgres import PostgresStore
from ratscrew.storage.sqlite import SqliteStore


def readiness_becomes(client: TestClient, status: int, timeout: float = 30.0) -> dict[str, Any]:
    """Poll ``/readyz`` until it answers ``status``; its body."""
    deadline = time.monotonic() + timeout
    while True:
        response = client.get("/readyz")
        if response.status_code == status:
            body: dict[str, Any] = response.json()
            return body
        assert time.monotonic() < deadline, f"/readyz stayed {response.status_code}: {response.text}"
        time.sleep(0.3)


def test_readiness_follows_a_postgresql_outage_while_liveness_holds(private_cluster: PostgresCluster) -> None:
    store = PostgresStore(private_cluster.create_database())
    store.claim("A")
    with TestClient(create_app(store, shard="A", close_store=True)) as client:
        assert readiness_becomes(client, 200) == {"ready": True, "shard": "A", "rooms": 0}
        response = client.post("/api/rooms", json={"rules": "classic", "seats": 2, "seed": 8,
                                                   "turn_timeout_ms": 60_000})
        code = response.json()["code"]
        with client.websocket_connect(f"/ws/{code}") as ann, client.websocket_connect(f"/ws/{code}") as bob:
            ann.send_json({"type": "join", "name": "Ann"})
            receive(ann, "welcome")
            bob.send_json({"type": "join", "name": "Bob"})
            receive(bob, "welcome")
            ann.send_json({"type": "start"})
            seats = {0: ann, 1: bob}
            turn = receive(ann, "state")["observation"]["turn"]

            private_cluster.stop()
            seats[turn].send_json({"type": "play"})  # cannot be stored: the room pauses
            assert receive(seats[turn], "error")["code"] == "unavailable"
            down = readiness_becomes(client, 503)
            assert down["ready"] is False
            assert "the database cannot be reached" in down["reasons"]
            assert "1 room is paused for the database" in down["reasons"]
            assert client.get("/healthz").status_code == 200  # alive all along: no restart wanted

            private_cluster.start()
            assert receive(ann, "notice")["code"] == "resumed"
            assert readiness_becomes(client, 200)["rooms"] == 1


def test_a_full_disk_on_sqlite_pauses_the_rooms_and_they_resume_when_there_is_room(tmp_path: Path) -> None:
    """SQLite's own "database or disk is full" (the file's page limit reached, a real SQLITE_FULL
    from a real file): the room pauses as for a database outage and /readyz says why, instead of
    every game ending with "the server hit an error"; once there is room the room plays on."""
    store = SqliteStore(tmp_path / "ratscrew.db")
    with TestClient(create_app(store, close_store=True)) as client:
        code = client.post("/api/rooms", json={"rules": "classic", "seats": 2, "seed": 8,
                                               "turn_timeout_ms": 60_000}).json()["code"]
        with client.websocket_connect(f"/ws/{code}") as ann, client.websocket_connect(f"/ws/{code}") as bob:
            ann.send_json({"type": "join", "name": "Ann"})
            receive(ann, "welcome")
            bob.send_json({"type": "join", "name": "Bob"})
            receive(bob, "welcome")
            ann.send_json({"type": "start"})
            seats = {0: ann, 1: bob}
            observation = receive(ann, "state")["observation"]
            db = store._sqlite.conn  # the disk fills up: not one more page for this file
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            limit = db.execute("PRAGMA max_page_count").fetchone()[0]
            db.execute(f"PRAGMA max_page_count = {pages}")
            refused = None
            while refused is None:  # cards until one needs a page the file cannot have
                if observation["turn"] is not None:
                    seats[observation["turn"]].send_json({"type": "play"})
                message = ann.receive_json()
                while message["type"] not in ("state", "error"):
                    if message["type"] == "ping":
                        ann.send_json({"type": "pong", "id": message["id"]})
                    message = ann.receive_json()
                if message["type"] == "error":
                    refused = message
                else:
                    observation = message["observation"]
                    assert not observation["over"], "the game ended before the file was full"
            assert refused["code"] == "unavailable" and "database" in refused["message"]
            assert store.failing_fast
            down = readiness_becomes(client, 503)
            assert any("disk of the database" in r and "is full" in r for r in down["reasons"])
            db.execute(f"PRAGMA max_page_count = {limit}")  # room again
            assert receive(ann, "notice")["code"] == "resumed"
            assert readiness_becomes(client, 200)["rooms"] == 1


def scrape(client: TestClient) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """``/metrics`` parsed with prometheus_client's parser: sample name -> labels -> value."""
    response = client.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    samples: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def test_metrics_count_rooms_connections_messages_actions_store_calls_and_waits(fresh_database: str) -> None:
    app = create_app(PostgresStore(fresh_database), shard="A", close_store=True)
    with TestClient(app, client=("127.0.0.1", 40000)) as client:
        before = scrape(client)
        code = client.post("/api/rooms", json={"rules": "classic", "seats": 2, "seed": 8,
                                               "turn_timeout_ms": 60_000}).json()["code"]
        with client.websocket_connect(f"/ws/{code}") as ann, client.websocket_connect(f"/ws/{code}") as bob:
            ann.send_json({"type": "join", "name": "Ann"})
            receive(ann, "welcome")
            bob.send_json({"type": "join", "name": "Bob"})
            receive(bob, "welcome")
            ann.send_json({"type": "start"})
            seats = {0: ann, 1: bob}
            state = receive(ann, "state")
            receive(bob, "state")
            for _ in range(3):
                seats[state["observation"]["turn"]].send_json({"type": "play"})
                state = receive(ann, "state", lambda m: bool(m["events"]))
                receive(bob, "state", lambda m: bool(m["events"]))
            during = scrape(client)
    shard = (("shard", "A"),)
    assert during["ratscrew_rooms"][(("phase", "playing"), ("shard", "A"))] == 1
    assert during["ratscrew_rooms"][(("phase", "lobby"), ("shard", "A"))] == 0
    assert during["ratscrew_connections"][shard] == 2

    def grew(name: str) -> float:
        return during[name][shard] - before.get(name, {}).get(shard, 0.0)

    assert grew("ratscrew_actions_total") == 3
    assert grew("ratscrew_messages_in_total") >= 3 + 2 + 1  # plays, joins, start (and pongs)
    assert grew("ratscrew_messages_out_total") >= 2 * 4  # a welcome and three states each, at least
    assert grew("ratscrew_store_seconds_count") >= 3  # a stored step per card at least
    assert during["ratscrew_store_seconds_bucket"][(("le", "+Inf"), ("shard", "A"))] == \
        during["ratscrew_store_seconds_count"][shard]
    assert grew("ratscrew_publish_wait_seconds_count") >= 3  # each step held its room back
    assert during["ratscrew_publish_wait_seconds_bucket"][(("le", "+Inf"), ("shard", "A"))] == \
        during["ratscrew_publish_wait_seconds_count"][shard]
    assert grew("ratscrew_publish_wait_seconds_sum") > 0
    for counter in ("ratscrew_room_pauses_total", "ratscrew_games_finished_total"):
        assert shard in during[counter]
    assert during["process_resident_memory_bytes"][shard] > 0  # the process's too carry the shard


def test_metrics_are_refused_to_anyone_but_loopback_and_the_trusted_proxy(fresh_database: str) -> None:
    store = PostgresStore(fresh_database)
    app = create_app(store)  # the store outlives each client's lifespan
    app.state.trusted_proxies = parse_trusted("10.0.0.7")
    try:
        with TestClient(app, client=("203.0.113.9", 40000)) as stranger:
            refused = stranger.get("/metrics")
            assert refused.status_code == 403 and "trusted proxy" in refused.json()["error"]
        with TestClient(app, client=("10.0.0.7", 40000)) as proxy:
            assert "ratscrew_rooms" in scrape(proxy)
        app.state.trusted_proxies = parse_trusted("*")  # trusting every proxy lets no one more in
        with TestClient(app, client=("203.0.113.9", 40000)) as stranger:
            assert stranger.get("/metrics").status_code == 403
    finally:
        store.close()


def test_a_states_version_goes_on_growing_after_a_restart(tmp_path: Path) -> None:
    """docs/protocol.md: ``version`` never starts again, a server restart included."""
    database = tmp_path / "ratscrew.db"
    with TestClient(create_app(database)) as client:
        code = client.post("/api/rooms", json={"rules": "classic", "seats": 2, "seed": 8,
                                               "turn_timeout_ms": 60_000}).json()["code"]
        with client.websocket_connect(f"/ws/{code}") as ann, client.websocket_connect(f"/ws/{code}") as bob:
            ann.send_json({"type": "join", "name": "Ann"})
            receive(ann, "welcome")
            bob.send_json({"type": "join", "name": "Bob"})
            receive(bob, "welcome")
            ann.send_json({"type": "start"})
            seats = {0: ann, 1: bob}
            state = receive(ann, "state")
            receive(bob, "state")
            for _ in range(3):
                seats[state["observation"]["turn"]].send_json({"type": "play"})
                state = receive(ann, "state", lambda m: bool(m["events"]))
                receive(bob, "state", lambda m: bool(m["events"]))
    before = state["version"]
    with TestClient(create_app(database)) as client, client.websocket_connect(f"/ws/{code}") as watcher:
        watcher.send_json({"type": "watch"})
        after = receive(watcher, "state")
    assert after["observation"]["cards_played"] == 3  # the same game, rebuilt
    assert after["version"] > before


def test_a_shard_behind_a_proxy_prints_the_proxys_address_not_its_own_port(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "ratscrew", "serve", "--port", "0", "--db", str(tmp_path / "r.db"),
               "--public-url", "https://ers.example.org/"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        first, second = process.stdout.readline(), process.stdout.readline()
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    assert "players open https://ers.example.org/ in a browser" in first
    assert "ratscrew join CODE --server https://ers.example.org " in second
