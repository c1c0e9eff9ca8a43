"""A room made with a password (docs/architecture.md's worked walk): optional when the room is
created, required of a newcomer's join, checked in the room's one way in
(`ratscrew.server.room.admission`); a token's holder coming back needs it no more."""

from __future__ import annotations

from typing import Any

import pytest
from online import FakeConnection
from starlette.testclient import TestClient

from ratscrew.protocol.client_messages import Join, Watch, parse_client_message, parse_room_request
from ratscrew.protocol.codec import ProtocolError
from ratscrew.server.app import create_app
from ratscrew.server.room.room import Room
from ratscrew.storage.sqlite import SqliteStore


def answer(ws: Any) -> dict[str, Any]:
    """The next message on ``ws`` that answers a join (pings skipped)."""
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] in ("welcome", "error"):
            return message


def password_room(password: str | None = "open sesame") -> Room:
    request = parse_room_request({"rules": "classic", "seats": 3, "password": password})
    return Room.create(request, SqliteStore(":memory:"), drive=False)


@pytest.mark.parametrize("given", [None, "open sesamE", ""], ids=["none", "wrong", "empty"])
def test_a_newcomer_without_the_password_is_refused_and_nothing_changes(given: str | None) -> None:
    room = password_room()
    ann = FakeConnection(room)
    with pytest.raises(ProtocolError) as refused:
        ann.do(Join("Ann", password=given))
    assert refused.value.code == "bad_password" and "password" in str(refused.value)
    assert room.known_members == {} and all(seat.kind == "open" for seat in room.seats)


def test_the_password_lets_a_newcomer_in_and_a_token_comes_back_without_it() -> None:
    room = password_room()
    ann = FakeConnection(room)
    ann.do(Join("Ann", password="open sesame"))
    token = ann.last("welcome")["token"]
    assert ann.last("welcome")["seat"] == 0 and ann.last("welcome")["host"] is True
    again = FakeConnection(room)
    again.do(Join("Ann", token=token))
    assert again.last("welcome")["seat"] == 0


def test_a_room_without_a_password_takes_joins_with_or_without_one() -> None:
    room = password_room(None)
    FakeConnection(room).do(Join("Ann"))
    FakeConnection(room).do(Join("Bob", password="anything"))
    assert [seat.name for seat in room.seats[:2]] == ["Ann", "Bob"]


def test_watching_needs_no_password() -> None:
    room = password_room()
    eve = FakeConnection(room)
    eve.do(Watch())
    assert eve.last("welcome")["status"] == "watching"


def test_the_password_is_kept_as_a_hash_and_outlives_a_restart() -> None:
    store = SqliteStore(":memory:")
    request = parse_room_request({"rules": "classic", "seats": 2, "password": "open sesame"})
    room = Room.create(request, store, drive=False)
    row = store.load_room(room.code)
    assert row is not None and "open sesame" not in str(row.settings)
    restored = Room.restore(row, store, drive=False)
    with pytest.raises(ProtocolError) as refused:
        FakeConnection(restored).do(Join("Ann"))
    assert refused.value.code == "bad_password"
    FakeConnection(restored).do(Join("Ann", password="open sesame"))
    assert restored.seats[0].name == "Ann"


def test_the_protocol_takes_a_password_and_refuses_a_bad_one() -> None:
    assert parse_client_message('{"type": "join", "name": "Ann", "password": "pw"}') == Join(
        "Ann", password="pw")
    with pytest.raises(ProtocolError, match="password"):
        parse_client_message('{"type": "join", "name": "Ann", "password": 7}')
    with pytest.raises(ProtocolError, match="password"):
        parse_room_request({"rules": "classic", "password": "x" * 200})


def test_a_room_made_over_http_with_a_password_asks_for_it() -> None:
    with TestClient(create_app(SqliteStore(":memory:"))) as client:
        made = client.post("/api/rooms", json={"rules": "classic", "seats": 2, "password": "pw"})
        assert made.status_code == 201
        with client.websocket_connect(f"/ws/{made.json()['code']}") as ws:
            ws.send_json({"type": "join", "name": "Ann"})
            assert answer(ws)["code"] == "bad_password"
            ws.send_json({"type": "join", "name": "Ann", "password": "pw"})
            assert answer(ws)["type"] == "welcome"
