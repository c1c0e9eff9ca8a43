"""Quick play on one process through Starlette's test client (issue 50): ``/ws/seek`` pairs
seekers by rating and by wave, at once when a close table waits; cancel and a closed socket
leave the pool; a bad seek is refused with its code; ``GET /api/pools`` counts; the limits of
a hostile seeker. The room is made by a small stand-in of the server's ``open_matched_room``
(`FakeRooms`) that records what it was asked and the no-show callback it was given."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from ratscrew.server.app import create_app
from ratscrew.server.http.limits import Limits
from ratscrew.server.quickplay.pools import QuickPlay
from ratscrew.server.ws import seek as seek_socket
from ratscrew.storage.sqlite import SqliteStore

Socket = Any
KEYS = {name: f"{name.lower()}-key-Qm3xT9vLp2Zr7WbK4sYd8Hc{index}"
        for index, name in enumerate(["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"])}


class FakeRooms:
    """``open_matched_room`` as the room side provides it, recorded."""

    def __init__(self) -> None:
        self.opened: list[tuple[str, int, list[str]]] = []
        self.no_show: list[Callable[[list[str], list[str]], object]] = []

    async def __call__(self, rules: str, players: int, reservations: Sequence[Any], *,
                      show_up_s: float = 20.0,
                      on_no_show: Callable[[list[str], list[str]], object] | None = None) -> str:
        self.opened.append((rules, players, [r.name for r in reservations]))
        assert on_no_show is not None and show_up_s == 20.0
        self.no_show.append(on_no_show)
        return f"Q{len(self.opened):05d}"


@pytest.fixture
def rooms() -> FakeRooms:
    return FakeRooms()


@pytest.fixture
def ratings(monkeypatch: pytest.MonkeyPatch) -> dict[str, float]:
    """Ratings by name (the pools read them from the store: 0 for a new player)."""
    given: dict[str, float] = {}
    ids: dict[str, str] = {}
    original = seek_socket._seek_player

    def seek_player(store: Any, seek: Any, *args: Any) -> tuple[str, float]:
        player_id, rating = original(store, seek, *args)
        ids[player_id] = seek.name
        return player_id, given.get(seek.name, rating)

    monkeypatch.setattr(seek_socket, "_seek_player", seek_player)
    return given


@pytest.fixture
def client(rooms: FakeRooms, ratings: dict[str, float]) -> Iterator[TestClient]:
    app = create_app(SqliteStore(":memory:"), limits=Limits(connections_per_address=20))
    service(app).open_room = rooms
    with TestClient(app) as test_client:
        yield test_client


def service(app: Any) -> QuickPlay:
    found: QuickPlay = app.state.seeking.service
    return found


def receive(ws: Socket, kind: str, where: Callable[[dict[str, Any]], bool] = lambda m: True,
            limit: int = 50) -> dict[str, Any]:
    for _ in range(limit):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == kind and where(message):
            return message
    raise AssertionError(f"no {kind} message in {limit}")


def seek(ws: Socket, name: str, rules: str = "classic", players: int = 2, **extra: Any) -> None:
    ws.send_json({"type": "seek", "rules": rules, "players": players, "name": name,
                  "player_key": KEYS[name], **extra})


def test_two_seekers_of_close_ratings_meet_at_once(client: TestClient, rooms: FakeRooms) -> None:
    with client.websocket_connect("/ws/seek") as ann, client.websocket_connect("/ws/seek") as bob:
        seek(ann, "Ann")
        assert receive(ann, "seeking") == {"type": "seeking", "rules": "classic", "players": 2,
                                           "waiting": 1}
        seek(bob, "Bob")
        to_ann, to_bob = receive(ann, "matched"), receive(bob, "matched")
    assert to_ann["room"] == to_bob["room"] == "Q00001" and to_ann["url"] == "/r/Q00001"
    assert {to_ann["seat"], to_bob["seat"]} == {0, 1}
    assert [p["name"] for p in to_ann["players"]] == [p["name"] for p in to_bob["players"]]
    assert {p["name"] for p in to_ann["players"]} == {"Ann", "Bob"}
    assert all(set(p) == {"name", "player_id", "rating"} for p in to_ann["players"])
    assert rooms.opened == [("classic", 2, [p["name"] for p in to_ann["players"]])]


def test_seekers_are_paired_by_rating(client: TestClient, ratings: dict[str, float],
                                      rooms: FakeRooms) -> None:
    ratings.update({"Ann": 0.0, "Bob": 30.0, "Cid": 31.0, "Dee": 1.0})
    sockets = {name: client.websocket_connect("/ws/seek").__enter__() for name in ratings}
    try:
        for name, ws in sockets.items():
            seek(ws, name)
            receive(ws, "seeking")
        rooms_of = {name: receive(ws, "matched")["room"] for name, ws in sockets.items()}
    finally:
        for ws in sockets.values():
            ws.__exit__(None, None, None)
    assert rooms_of["Ann"] == rooms_of["Dee"] != rooms_of["Bob"] == rooms_of["Cid"]


def test_a_gap_too_wide_at_first_is_paired_after_waves(client: TestClient, ratings: dict[str, float],
                                                       rooms: FakeRooms) -> None:
    ratings.update({"Ann": 0.0, "Bob": 12.0})  # 5 points at the first wave, 5 more each wave
    service(client.app).wave_s = 0.05
    with client.websocket_connect("/ws/seek") as ann, client.websocket_connect("/ws/seek") as bob:
        seek(ann, "Ann")
        seek(bob, "Bob")
        assert receive(bob, "seeking")["waiting"] == 2  # not paired at once
        assert rooms.opened == []
        assert receive(ann, "matched")["room"] == receive(bob, "matched")["room"]


def test_four_player_pools_wait_for_four(client: TestClient, rooms: FakeRooms) -> None:
    names = ["Ann", "Bob", "Cid", "Dee"]
    sockets = [client.websocket_connect("/ws/seek").__enter__() for _ in names]
    try:
        for count, (name, ws) in enumerate(zip(names, sockets, strict=True), start=1):
            seek(ws, name, rules="pagat", players=4)
            if count < 4:
                assert receive(ws, "seeking")["waiting"] == count
        matched = [receive(ws, "matched") for ws in sockets]
    finally:
        for ws in sockets:
            ws.__exit__(None, None, None)
    assert {m["seat"] for m in matched} == {0, 1, 2, 3}
    assert rooms.opened[0][:2] == ("pagat", 4)
    # the 2-player pool of the same rules is another pool
    assert len({m["room"] for m in matched}) == 1


def test_cancel_and_a_closed_socket_leave_the_pool(client: TestClient, rooms: FakeRooms) -> None:
    with client.websocket_connect("/ws/seek") as ann:
        seek(ann, "Ann")
        receive(ann, "seeking")
        with client.websocket_connect("/ws/seek") as bob:
            seek(bob, "Bob", rules="pagat")
            receive(bob, "seeking")
            assert pool(client, "pagat", 2)["waiting"] == 1
        assert pool(client, "pagat", 2)["waiting"] == 0  # closed: gone
        ann.send_json({"type": "cancel"})
        with client.websocket_connect("/ws/seek") as cid:
            seek(cid, "Cid")
            assert receive(cid, "seeking")["waiting"] == 1  # Ann cancelled: nobody to meet
        seek(ann, "Ann")  # and may seek again on the same socket
        assert receive(ann, "seeking")["waiting"] == 1
    assert rooms.opened == []


def pool(client: TestClient, rules: str, players: int) -> dict[str, Any]:
    listing = client.get("/api/pools").json()["pools"]
    return next(p for p in listing if p["rules"] == rules and p["players"] == players)


def test_the_pools_are_listed_with_their_counts(client: TestClient) -> None:
    listing = client.get("/api/pools").json()["pools"]
    assert {(p["rules"], p["players"]) for p in listing} == {
        (rules, players) for rules in ("classic", "northwest", "pagat", "ratscrew", "paranoid")
        for players in (2, 4)}
    assert all(p["waiting"] == 0 and p["playing"] == 0 for p in listing)


@pytest.mark.parametrize(("seek_message", "code"), [
    ({"rules": "nonesuch"}, "bad_rules"),
    ({"rules": "slaps = ['double']"}, "no_pool"),
    ({"rules": "bmn"}, "no_pool"),
    ({"players": 3}, "no_pool"),
    ({"player_key": None}, "bad_key"),
    ({"player_key": "short"}, "bad_key"),
    ({"arena": "ARENA1"}, "unknown_arena"),
    ({"type": "join"}, "bad_message"),
])
def test_a_bad_seek_is_refused_with_its_code(client: TestClient, seek_message: dict[str, Any],
                                             code: str) -> None:
    message = {"type": "seek", "rules": "classic", "players": 2, "name": "Ann",
               "player_key": KEYS["Ann"], **seek_message}
    with client.websocket_connect("/ws/seek") as ws:
        ws.send_json({k: v for k, v in message.items() if v is not None})
        assert receive(ws, "error")["code"] == code
        assert client.get("/api/pools").json()["pools"][0]["waiting"] == 0


def test_one_key_seeks_once_at_a_time(client: TestClient) -> None:
    with client.websocket_connect("/ws/seek") as tab1, client.websocket_connect("/ws/seek") as tab2:
        seek(tab1, "Ann")
        receive(tab1, "seeking")
        seek(tab2, "Ann", rules="pagat")  # the same key, in another pool
        error = receive(tab2, "error")
        assert error["code"] == "already_seeking" and "already seeking" in error["message"]
        seek(tab1, "Ann")  # nor twice on one socket
        assert receive(tab1, "error")["code"] == "already_seeking"


def test_a_flagged_player_may_not_seek(client: TestClient) -> None:
    with client.websocket_connect("/ws/seek") as ws:
        seek(ws, "Ann")
        player_id = receive(ws, "seeking") and client.post(
            "/api/players/export", json={"player_key": KEYS["Ann"]}).json()["player_id"]
    store = client.app.state.server.store  # type: ignore[attr-defined]
    store.flag_player(player_id, "classic", 1, ["flat reactions"], 40)
    with client.websocket_connect("/ws/seek") as ws:
        seek(ws, "Ann")
        assert receive(ws, "error")["code"] == "flagged"


def test_an_arena_seek_goes_to_the_arena_hook_and_its_pool(client: TestClient, rooms: FakeRooms) -> None:
    from ratscrew.server.quickplay.pools import ArenaEntry

    asked: list[tuple[str, str]] = []
    made: list[tuple[Any, str, list[str]]] = []

    async def entry(arena: str, player_id: str) -> ArenaEntry | str:
        asked.append((arena, player_id))
        return ArenaEntry(standing=4.0) if arena == "SPRING" else "arena_closed"

    quick = service(client.app)
    quick.arena_entry = entry
    quick.on_matched = lambda key, code, seekers: made.append((key, code, [s.name for s in seekers]))
    with client.websocket_connect("/ws/seek") as ann, client.websocket_connect("/ws/seek") as bob:
        seek(ann, "Ann", arena="OVER")
        assert receive(ann, "error")["code"] == "arena_closed"
        seek(ann, "Ann", arena="SPRING")
        assert receive(ann, "seeking")["arena"] == "SPRING"
        seek(bob, "Bob", arena="SPRING")
        assert receive(bob, "matched")["arena"] == "SPRING"
    assert [arena for arena, _ in asked] == ["OVER", "SPRING", "SPRING"]
    assert made[0][0] == ("classic", 2, "SPRING") and sorted(made[0][2]) == ["Ann", "Bob"]


def test_a_no_show_puts_the_others_at_the_front_of_their_pool(client: TestClient, ratings: dict[str, float],
                                                              rooms: FakeRooms) -> None:
    with client.websocket_connect("/ws/seek") as ann, client.websocket_connect("/ws/seek") as bob:
        seek(ann, "Ann")
        seek(bob, "Bob")
        matched = receive(ann, "matched")
    ids = {p["name"]: p["player_id"] for p in matched["players"]}
    # Bob never came; Ann did. Cid and Dee wait (Cid longer), then Ann seeks again: she is first
    ratings.update({"Cid": 0.0, "Dee": 0.0, "Eve": 40.0})
    with client.websocket_connect("/ws/seek") as eve:
        seek(eve, "Eve")  # far from everyone: she waits
        receive(eve, "seeking")
        client.portal.call(_call, rooms.no_show[0], [ids["Bob"]], [ids["Ann"]])  # type: ignore[union-attr]
        with client.websocket_connect("/ws/seek") as ann, client.websocket_connect("/ws/seek") as cid:
            ratings["Ann"] = 40.0
            seek(ann, "Ann")  # at the front: paired with Eve although Eve is far
            assert receive(ann, "matched")["room"] == receive(eve, "matched")["room"]
            seek(cid, "Cid")
            assert receive(cid, "seeking")["waiting"] == 1


async def _call(function: Callable[..., object], *args: Any) -> None:
    function(*args)


def test_a_seek_flood_is_closed_and_seeks_per_address_are_limited(client: TestClient) -> None:
    with client.websocket_connect("/ws/seek") as ws:
        for _ in range(40):
            ws.send_text("{}")
        codes = []
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                codes.append(ws.receive_json()["code"])
    assert codes[-1] == "flood" and "rate_limited" in codes and closed.value.code == 1008
    answers = []
    for _ in range(seek_socket.SEEKS_PER_MINUTE + 1):
        with client.websocket_connect("/ws/seek") as ws:
            seek(ws, "Ann")
            answers.append(ws.receive_json())
    assert [a["type"] for a in answers[:-1]] == ["seeking"] * seek_socket.SEEKS_PER_MINUTE
    assert answers[-1]["type"] == "error" and answers[-1]["code"] == "rate_limited"
    assert "seeks a minute" in answers[-1]["message"]


def test_seek_sockets_count_against_the_connections_of_an_address(client: TestClient) -> None:
    sockets = [client.websocket_connect("/ws/seek").__enter__() for _ in range(20)]
    try:
        with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect("/ws/seek") as ws:
            ws.receive_json()
        assert refused.value.code == 1008 and "too many connections" in refused.value.reason
    finally:
        for ws in sockets:
            ws.__exit__(None, None, None)


# ---------------------------------------------------------------------------------- the matched room


@pytest.fixture
def matched_client(ratings: dict[str, float]) -> Iterator[TestClient]:
    """The app with the server's own matched rooms (seats reserved, started once all came)."""
    app = create_app(SqliteStore(":memory:"), limits=Limits(connections_per_address=20))
    with TestClient(app) as test_client:
        yield test_client


def matched_pair(client: TestClient, names: tuple[str, str] = ("Ann", "Bob")) -> dict[str, dict[str, Any]]:
    """Two seekers of the classic pool matched at once: their ``matched`` messages."""
    with client.websocket_connect("/ws/seek") as first, client.websocket_connect("/ws/seek") as second:
        seek(first, names[0])
        receive(first, "seeking")
        seek(second, names[1])
        return {names[0]: receive(first, "matched"), names[1]: receive(second, "matched")}


def sit(client: TestClient, code: str, name: str) -> Socket:
    ws = client.websocket_connect(f"/ws/{code}").__enter__()
    ws.send_json({"type": "join", "name": name, "player_key": KEYS[name]})
    return ws


def answer_pings(ws: Socket, kind: str) -> dict[str, Any]:
    for _ in range(300):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == "ping":
            ws.send_json({"type": "pong", "id": message["id"]})
        elif message["type"] == kind:
            return message
    raise AssertionError(f"no {kind}")


def test_the_matched_game_starts_by_itself_once_both_have_joined(matched_client: TestClient) -> None:
    matched = matched_pair(matched_client)
    code = matched["Ann"]["room"]
    ann, bob = sit(matched_client, code, "Ann"), sit(matched_client, code, "Bob")
    try:
        welcomes = {"Ann": answer_pings(ann, "welcome"), "Bob": answer_pings(bob, "welcome")}
        assert {name: w["seat"] for name, w in welcomes.items()} == {
            name: m["seat"] for name, m in matched.items()}  # each in the seat the pool told it
        assert not any(w["host"] for w in welcomes.values())  # no host: nobody starts it
        state = answer_pings(ann, "state")
        assert state["observation"]["players"] == 2
        answer_pings(bob, "state")
        # a stranger with another key may watch, not sit
        cid = sit(matched_client, code, "Cid")
        assert answer_pings(cid, "error")["code"] in ("room_full", "not_seated", "bad_key", "wrong_phase")
        cid.__exit__(None, None, None)
    finally:
        ann.__exit__(None, None, None)
        bob.__exit__(None, None, None)


def test_a_no_show_puts_the_one_who_came_at_the_front_of_the_pool(
        matched_client: TestClient, ratings: dict[str, float]) -> None:
    quick = service(matched_client.app)
    quick.show_up_s = 0.3
    matched = matched_pair(matched_client)
    ann = sit(matched_client, matched["Ann"]["room"], "Ann")  # Bob never comes
    try:
        answer_pings(ann, "welcome")
        with pytest.raises(WebSocketDisconnect) as closed:
            answer_pings(ann, "the close")
        assert closed.value.code == 4410 and "did not all come" in closed.value.reason
    finally:
        with contextlib.suppress(Exception):
            ann.__exit__(None, None, None)
    ann_id = matched["Ann"]["players"][matched["Ann"]["seat"]]["player_id"]
    until(lambda: quick.backend.players[ann_id].front_until > 0)  # type: ignore[attr-defined]
    ratings.update({"Eve": 40.0, "Cid": 0.0})
    with matched_client.websocket_connect("/ws/seek") as eve, \
            matched_client.websocket_connect("/ws/seek") as cid:
        seek(eve, "Eve")  # far from everyone: she waits
        receive(eve, "seeking")
        with matched_client.websocket_connect("/ws/seek") as again:
            seek(again, "Ann")  # at the front: her first wave takes Eve, however far
            quick.wave_s = 0.05
            assert receive(again, "matched")["room"] == receive(eve, "matched")["room"]
        seek(cid, "Cid")
        assert receive(cid, "seeking")["waiting"] == 1


def until(condition: Callable[[], bool], limit_s: float = 10.0) -> None:
    """Wait for ``condition`` (a state the test cannot be sent a message about)."""
    import time

    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.01)


def test_play_again_seeks_the_same_pool_and_two_who_just_played_wait_a_few_waves(
        matched_client: TestClient) -> None:
    quick = service(matched_client.app)
    matched = matched_pair(matched_client)
    code = matched["Ann"]["room"]
    ann, bob = sit(matched_client, code, "Ann"), sit(matched_client, code, "Bob")
    try:
        answer_pings(ann, "state")
        ann.send_json({"type": "resign"})
        answer_pings(bob, "state")
        bob.send_json({"type": "resign"})
        over = answer_pings(ann, "game_over")
        assert over["game_id"] and answer_pings(bob, "game_over")["game_id"] == over["game_id"]
    finally:
        ann.__exit__(None, None, None)
        bob.__exit__(None, None, None)
    # "Play again": both seek the same pool; not paired at once (they just played each other)
    with matched_client.websocket_connect("/ws/seek") as ann_again, \
            matched_client.websocket_connect("/ws/seek") as bob_again:
        seek(ann_again, "Ann")
        receive(ann_again, "seeking")
        seek(bob_again, "Bob")
        assert receive(bob_again, "seeking")["waiting"] == 2
        quick.wave_s = 0.05  # after rematch_after_waves waves they may meet again
        again = receive(ann_again, "matched")
        assert again["room"] != code and receive(bob_again, "matched")["room"] == again["room"]


async def test_the_memory_pools_forget_players_gone_quiet_but_never_a_waiting_one() -> None:
    from ratscrew.matchmaking.pairing import Seeker
    from ratscrew.server.quickplay.pools import FORGET_AFTER_S, MemoryPools

    pools = MemoryPools()
    key = ("classic", 2, None)
    for n in range(1000):
        await pools.add(key, Seeker(f"s{n}", f"p{n}"))
        await pools.remove(f"s{n}")
    await pools.add(key, Seeker("still", "waiting-one"))
    for player in pools.players.values():
        player.seen -= FORGET_AFTER_S + 1
    await pools.add(key, Seeker("new", "newcomer"))
    assert set(pools.players) == {"waiting-one", "newcomer"}
    assert await pools.waiting() == {key: 2}


def test_nginx_sends_seek_sockets_to_any_shard_even_with_a_shard_lettered_s() -> None:
    import re

    from ratscrew.server.ops.nginx import render_routing

    routing = render_routing([("R", "127.0.0.1:8001"), ("S", "127.0.0.1:8002")])
    shard_s = re.search(r"~\*(\S+S) ratscrew_S;", routing)
    assert shard_s is not None
    assert re.match(shard_s.group(1), "/ws/seek", re.I) is None  # quick play: any shard
    assert re.match(shard_s.group(1), "/ws/SQXT7P", re.I) and re.match(shard_s.group(1), "/r/sqxt7p", re.I)
