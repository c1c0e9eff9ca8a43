"""What an operator watches, through Starlette's test client on a real PostgreSQL: ``/healthz``
(liveness) answers whatever the database does; ``/readyz`` (readiness) is 503 while the database
is away and rooms are paused, and 200 again once it is back."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from postgres import PostgresCluster
from starlette.testclient import TestClient

from ratscrew.server.app import create_app
from ratscrew.server.pgstore import PostgresStore


def receive(ws: Any, kind: str, where: Callable[[dict[str, Any]], bool] = lambda m: True,
            limit: int = 300) -> dict[str, Any]:
    """The next message of type ``kind`` (that passes ``where``), answering pings on the way."""
    for _ in range(limit):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == "ping" and kind != "ping":
            ws.send_json({"type": "pong", "id": message["id"]})
        if message["type"] == kind and where(message):
            return message
    raise AssertionError(f"no {kind} message in {limit}")


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
