"""A page that joins a room after its game ended is sent the latest state and the results.

The browser table shows the end screen from ``game_over``, which the room used to send only to
those connected at the end: a reload, or someone opening the invite link later, saw a finished
table and no results.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from ratscrew.server.app import create_app


def _receive_until(ws: Any, kind: str, limit: int = 200) -> dict[str, Any]:
    for _ in range(limit):
        message: dict[str, Any] = json.loads(ws.receive_text())
        if message["type"] == "ping":
            ws.send_text(json.dumps({"type": "pong", "id": message["id"]}))
        elif message["type"] == kind:
            return message
    raise AssertionError(f"no {kind} message")


def test_a_late_joiner_gets_the_results(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "rooms.db")) as client:
        code = client.post("/api/rooms", json={"seats": 2, "seed": 3}).json()["code"]
        with client.websocket_connect(f"/ws/{code}") as ann, client.websocket_connect(f"/ws/{code}") as bob:
            ann.send_text(json.dumps({"type": "join", "name": "Ann"}))
            _receive_until(ann, "welcome")
            bob.send_text(json.dumps({"type": "join", "name": "Bob"}))
            _receive_until(bob, "welcome")
            ann.send_text(json.dumps({"type": "start"}))
            state = _receive_until(bob, "state")
            bob.send_text(json.dumps({"type": "resign"}))
            deadline = time.monotonic() + 10
            while not state["observation"]["over"]:
                assert time.monotonic() < deadline, "the game did not end"
                if state["observation"]["turn"] == 0:
                    ann.send_text(json.dumps({"type": "play"}))
                state = _receive_until(ann, "state")
            over = _receive_until(ann, "game_over")
            assert over["winner"] == 0

            with client.websocket_connect(f"/ws/{code}") as late:
                late.send_text(json.dumps({"type": "watch"}))
                assert _receive_until(late, "state")["observation"]["over"] is True
                assert _receive_until(late, "game_over", limit=6) == over
