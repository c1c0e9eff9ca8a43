"""The server's public contract through Starlette's test client: the HTTP routes, the websocket
messages both ways, the errors for bad input and the per-client limits (docs/protocol.md)."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator
from typing import Any

import online
import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from ratscrew.engine import Game
from ratscrew.protocol.client_messages import PROTOCOL_VERSION
from ratscrew.ruleset import Ruleset
from ratscrew.server.app import create_app
from ratscrew.server.http.limits import Limits
from ratscrew.server.ops.collector import GC_THRESHOLDS
from ratscrew.storage.sqlite import SqliteStore

Socket = Any  # starlette.testclient.WebSocketTestSession


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(SqliteStore(":memory:"))) as test_client:
        yield test_client


def new_room(client: TestClient, **body: Any) -> str:
    response = client.post("/api/rooms", json={"rules": "classic", "seats": 2, **body})
    assert response.status_code == 201, response.text
    code: str = response.json()["code"]
    return code


def receive(ws: Socket, kind: str,
            where: Callable[[dict[str, Any]], bool] = lambda m: True) -> dict[str, Any]:
    """`online.receive` with this module's patience (limit=200)."""
    return online.receive(ws, kind, where, limit=200)


# ---------------------------------------------------------------------------------- HTTP


def test_health_and_every_response_carries_the_security_headers(client: TestClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    policy = response.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"


def test_creating_a_room_gives_a_code_and_its_url(client: TestClient) -> None:
    response = client.post("/api/rooms", json={"rules": "classic", "seats": 4,
                                               "bots": ["casual", "expert"], "seed": 42})
    assert response.status_code == 201
    body = response.json()
    assert body["url"] == f"/r/{body['code']}" and len(body["code"]) >= 5
    info = client.get(f"/api/rooms/{body['code']}").json()
    assert [s["kind"] for s in info["seats"]] == ["open", "open", "bot", "bot"]
    assert [s["bot"] for s in info["seats"][2:]] == ["casual", "expert"]


def test_a_seeded_room_deals_exactly_game_deal(client: TestClient) -> None:
    code = new_room(client, seats=2, bots=["casual"], seed=42)
    with client.websocket_connect(f"/ws/{code}") as ws:
        ws.send_json({"type": "join", "name": "Ann"})
        receive(ws, "welcome")
        ws.send_json({"type": "start"})
        receive(ws, "state")
        ws.send_json({"type": "resign"})
        over = receive(ws, "game_over")
    record = client.get(over["record_url"]).json()
    expected = Game.deal(Ruleset.preset("classic"), players=2, seed=42).to_record()
    assert record["hands"] == expected["hands"] and record["seed"] == expected["seed"]


@pytest.mark.parametrize(("body", "names"), [
    ({"rules": "no-such-preset", "seats": 2}, "rules"),
    ({"rules": "classic", "seats": 1}, "seats"),
    ({"rules": "classic", "seats": 9}, "seats"),
    ({"rules": "classic", "seats": "4"}, "seats"),
    ({"rules": "classic", "seats": 2, "bots": ["psychic"]}, "psychic"),
    ({"rules": "classic", "seats": 2, "bots": ["casual", "casual", "casual"]}, "bots"),
    ({"rules": "classic", "seats": 2, "seed": -1}, "seed"),
    ({"rules": "classic", "seats": 2, "seed": 2**70}, "seed"),
    ({"rules": "classic", "seats": 2, "judging": "loudest"}, "judging"),
    ({"rules": "classic", "seats": 2, "colour": "red"}, "colour"),
    ({"rules": "name = 'mine'\nslaps = ['double'\n", "seats": 2}, "TOML"),
    ({"rules": "name = 'mine'\nslaps = ['triple-lutz']\n", "seats": 2}, "triple-lutz"),
    ({"rules": 7, "seats": 2}, "rules"),
    ([1, 2, 3], "object"),
])
def test_a_bad_room_request_is_a_4xx_naming_what_is_wrong(client: TestClient, body: Any,
                                                           names: str) -> None:
    response = client.post("/api/rooms", json=body)
    assert 400 <= response.status_code < 500
    assert names in response.json()["error"]


@pytest.mark.parametrize("raw", [b"not json", b'{"rules": "classic", "seats": NaN}', b"\xff\xfe",
                                 b'{"rules": "classic", "seats": 2e400}'])
def test_a_body_that_is_not_plain_json_is_refused(client: TestClient, raw: bytes) -> None:
    response = client.post("/api/rooms", content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 400 and response.json()["error"]


def test_a_huge_body_is_refused(client: TestClient) -> None:
    response = client.post("/api/rooms", content=b'{"rules": "' + b"x" * 100_000 + b'"}',
                           headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_a_pasted_toml_ruleset_makes_a_room(client: TestClient) -> None:
    text = Ruleset.preset("pagat").to_toml()
    code = new_room(client, rules=text)
    assert client.get(f"/api/rooms/{code}").json()["rules"]["name"] == "pagat"


def test_unknown_rooms_and_games_are_404(client: TestClient) -> None:
    assert client.get("/r/NOSUCH").status_code == 404
    assert client.get("/api/rooms/NOSUCH").json() == {"error": "no room with that code"}
    assert client.get("/api/games/99/record").status_code == 404
    assert client.get("/api/nothing-here").json()["error"]


def test_presets_and_bot_levels_are_listed(client: TestClient) -> None:
    presets = client.get("/api/presets").json()["presets"]
    assert {"classic", "northwest", "pagat", "paranoid", "ratscrew"} <= {p["name"] for p in presets}
    assert all(Ruleset.from_toml(p["toml"]).name == p["name"] for p in presets)
    levels = [level["name"] for level in client.get("/api/bots").json()["levels"]]
    assert {"casual", "expert"} <= set(levels)


def test_rooms_per_address_are_limited() -> None:
    with TestClient(create_app(SqliteStore(":memory:"), limits=Limits(rooms_per_hour=3))) as client:
        codes = [client.post("/api/rooms", json={"rules": "classic", "seats": 2}) for _ in range(4)]
    assert [r.status_code for r in codes] == [201, 201, 201, 429]
    assert "rooms an hour" in codes[-1].json()["error"]


# ---------------------------------------------------------------------------------- websocket


def test_a_connection_is_pinged_and_the_pong_is_taken(client: TestClient) -> None:
    code = new_room(client)
    with client.websocket_connect(f"/ws/{code}") as ws:
        ping = ws.receive_json()
        assert ping["type"] == "ping" and isinstance(ping["id"], int)
        ws.send_json({"type": "pong", "id": ping["id"]})
        ws.send_json({"type": "watch"})
        room = receive(ws, "room")
        assert room["code"] == code


def test_joining_welcomes_with_a_seat_a_token_and_the_protocol_version(client: TestClient) -> None:
    code = new_room(client)
    with client.websocket_connect(f"/ws/{code}") as ws:
        ws.send_json({"type": "join", "name": "Ann"})
        welcome = receive(ws, "welcome")
    assert welcome["seat"] == 0 and welcome["protocol"] == PROTOCOL_VERSION
    assert len(welcome["token"]) >= 32


def test_each_player_gets_their_own_observation_and_a_spectator_the_public_one(
        client: TestClient) -> None:
    code = new_room(client, seed=7)
    with client.websocket_connect(f"/ws/{code}") as ann, \
            client.websocket_connect(f"/ws/{code}") as bob, \
            client.websocket_connect(f"/ws/{code}") as eve:
        ann.send_json({"type": "join", "name": "Ann"})
        receive(ann, "welcome")
        bob.send_json({"type": "join", "name": "Bob"})
        receive(bob, "welcome")
        eve.send_json({"type": "join", "name": "Eve"})
        assert receive(eve, "welcome")["seat"] is None  # the seats are full: Eve watches
        ann.send_json({"type": "start"})
        seen = {name: receive(ws, "state", lambda m: m["observation"]["hand_sizes"] == [26, 26])
                for name, ws in (("ann", ann), ("bob", bob), ("eve", eve))}
        assert [seen[n]["observation"]["seat"] for n in ("ann", "bob", "eve")] == [0, 1, None]
        eve.send_json({"type": "play"})
        assert receive(eve, "error")["code"] == "not_seated"
        ann.send_json({"type": "play"})
        after = receive(bob, "state", lambda m: m["observation"]["cards_played"] == 1)
    game = Game.deal(Ruleset.preset("classic"), players=2, seed=7)
    game.play(0, at=after["observation"]["now"])
    assert after["observation"] == game.observe(1)


@pytest.mark.parametrize(("frame", "code"), [
    ("not json", "bad_json"),
    ("[1, 2]", "bad_json"),
    ('{"type": "teleport"}', "bad_message"),
    ('{"name": "Ann"}', "bad_message"),
    ('{"type": "join"}', "bad_message"),
    ('{"type": "join", "name": 7}', "bad_message"),
    ('{"type": "slap", "reaction_ms": NaN}', "bad_json"),
    ('{"type": "slap", "reaction_ms": 1e999}', "bad_json"),  # too big for a float: not JSON we read
    ('{"type": "slap", "reaction_ms": -5}', "bad_message"),
    ('{"type": "slap", "version": 1.5}', "bad_message"),
    ('{"type": "pong", "id": 99999999999999999999999}', "bad_message"),
    ('{"type": "play", "extra": true}', "bad_message"),
])
def test_a_bad_message_gets_an_error_and_the_connection_stays_open(client: TestClient, frame: str,
                                                                   code: str) -> None:
    room = new_room(client)
    with client.websocket_connect(f"/ws/{room}") as ws:
        ws.send_text(frame)
        error = receive(ws, "error")
        assert error["code"] == code and error["message"]
        ws.send_json({"type": "join", "name": "Ann"})
        assert receive(ws, "welcome")["seat"] == 0


def test_a_binary_frame_gets_an_error(client: TestClient) -> None:
    room = new_room(client)
    with client.websocket_connect(f"/ws/{room}") as ws:
        ws.send_bytes(b"\x00\x01binary")
        assert receive(ws, "error")["message"]


def test_an_unknown_room_or_a_foreign_origin_is_refused(client: TestClient) -> None:
    with pytest.raises(WebSocketDisconnect) as unknown, client.websocket_connect("/ws/NOSUCH") as ws:
        ws.receive_json()
    assert unknown.value.code == 4404
    code = new_room(client)
    with pytest.raises(WebSocketDisconnect) as foreign, client.websocket_connect(
            f"/ws/{code}", headers={"origin": "https://evil.example"}) as ws:
        ws.receive_json()
    assert foreign.value.code == 1008


def test_names_are_cleaned_and_limited(client: TestClient) -> None:
    code = new_room(client)
    with client.websocket_connect(f"/ws/{code}") as ws:
        ws.send_json({"type": "join", "name": "x" * 200})
        assert "at most 24 characters" in receive(ws, "error")["message"]
        ws.send_json({"type": "join", "name": "Ann\u202e"})  # would reverse the text after it
        assert "control or formatting" in receive(ws, "error")["message"]
        ws.send_json({"type": "join", "name": "  <b>Ann</b>   the  great "})
        # kept as typed (the page shows names as text, never as markup), spaces tidied
        assert receive(ws, "welcome")["name"] == "<b>Ann</b> the great"


def test_a_flood_of_messages_is_throttled_then_closed() -> None:
    limits = Limits(messages_per_second=5, message_burst=5, flood_drops=20, flood_window_s=60)
    with TestClient(create_app(SqliteStore(":memory:"), limits=limits)) as client:
        code = new_room(client)
        with client.websocket_connect(f"/ws/{code}") as ws:
            for _ in range(40):
                ws.send_json({"type": "watch"})
            codes: list[str] = []
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    message = ws.receive_json()
                    if message["type"] == "error":
                        codes.append(message["code"])
    assert "rate_limited" in codes and codes[-1] == "flood"
    assert closed.value.code == 1008


def test_joins_per_address_are_limited() -> None:
    with TestClient(create_app(SqliteStore(":memory:"), limits=Limits(joins_per_minute=3))) as client:
        code = new_room(client)
        with client.websocket_connect(f"/ws/{code}") as ws:
            for _ in range(4):
                ws.send_json({"type": "watch"})
            error = receive(ws, "error", lambda m: m["code"] == "rate_limited")
    assert "joins" in error["message"]


def test_a_resigned_game_ends_is_stored_and_its_record_replays(client: TestClient) -> None:
    code = new_room(client, bots=["casual"])
    with client.websocket_connect(f"/ws/{code}") as ws:
        ws.send_json({"type": "join", "name": "Ann", "player_key": "ann-key-Qm3xT9vLp2Zr7WbK4sYd8Hc"})
        player_id = receive(ws, "welcome")["player_id"]
        ws.send_json({"type": "start"})
        receive(ws, "state")
        ws.send_json({"type": "resign"})
        over = receive(ws, "game_over")
    assert over["winner"] == 1 and over["record_url"].startswith("/api/games/")
    record = client.get(over["record_url"]).json()
    assert record["names"] == ["Ann", "Casual bot"]
    replayed = Game.from_record(json.loads(json.dumps(record)))
    assert replayed.over and replayed.winner == 1
    frames = client.get(f"/api/games/{over['game_id']}/replay").json()["frames"]
    assert frames[-1]["observation"]["winner"] == 1
    board = client.get("/api/leaderboard", params={"rules": "classic"}).json()
    # rated, but one opponent is not enough to be ranked (issue 30: three different ones)
    assert board["rules"] == "classic" and board["players"] == []
    assert client.get("/api/players/" + player_id).json()["ratings"][0]["games"] == 1


def test_a_served_app_settles_the_garbage_collector_once_started_and_a_tests_app_does_not() -> None:
    before = gc.get_threshold()
    try:
        with TestClient(create_app(SqliteStore(":memory:"))) as client:
            assert client.get("/healthz").status_code == 200
            assert gc.get_threshold() == before  # a test's app leaves the collector alone
        with TestClient(create_app(SqliteStore(":memory:"), settle_gc=True)) as client:
            assert client.get("/healthz").status_code == 200
            assert gc.get_threshold() == GC_THRESHOLDS and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
