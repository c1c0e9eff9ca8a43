"""Arenas end to end on one process (issue 50): scripted players seek with ``"arena": ID`` on
``/ws/seek``, sit at the matched table, play to the end, seek the arena again as the page does,
and the arena's standings (``GET /api/arenas/ID``) equal the points counted by hand from who won
each game, which the stored games say too. Through Starlette's test client; the pools' waves
are made short so that a test waits for messages, not for seconds."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import online
import pytest
from starlette.testclient import TestClient

from ratscrew.server.app import create_app
from ratscrew.server.http.limits import Limits
from ratscrew.storage.sqlite import SqliteStore

Socket = Any
KEYS = {name: f"{name.lower()}-key-Qm3xT9vLp2Zr7WbK4sYd8Hc{index}"
        for index, name in enumerate(["Ann", "Bob", "Cid", "Dee"])}


@pytest.fixture
def store() -> SqliteStore:
    return SqliteStore(":memory:")


@pytest.fixture
def client(store: SqliteStore) -> Iterator[TestClient]:
    app = create_app(store, limits=Limits(connections_per_address=40))
    app.state.seeking.service.wave_s = 0.02  # waves (and the memory of a last opponent) pass quickly
    with TestClient(app) as test_client:
        yield test_client


def receive(ws: Socket, kind: str,
            where: Callable[[dict[str, Any]], bool] = lambda m: True) -> dict[str, Any]:
    """`online.receive` with this module's patience (limit=500, errors_fail=True)."""
    return online.receive(ws, kind, where, limit=500, errors_fail=True)


def new_arena(client: TestClient, players: int = 2) -> dict[str, Any]:
    made = client.post("/api/arenas", json={"rules": "classic", "players": players, "minutes": 30,
                                            "starts_in_s": 0, "player_key": KEYS["Ann"], "name": "Ann"})
    assert made.status_code == 201, made.text
    arena: dict[str, Any] = client.get(f"/api/arenas/{made.json()['id']}").json()
    return arena


def seek_arena(client: TestClient, arena: dict[str, Any], names: list[str]) -> dict[str, dict[str, Any]]:
    """Each named player seeks the arena; the ``matched`` message each was sent."""
    sockets = {name: client.websocket_connect("/ws/seek").__enter__() for name in names}
    try:
        for name, ws in sockets.items():
            ws.send_json({"type": "seek", "rules": arena["rules"], "players": arena["players"],
                          "name": name, "player_key": KEYS[name], "arena": arena["id"]})
        return {name: receive(ws, "matched") for name, ws in sockets.items()}
    finally:
        for ws in sockets.values():
            ws.__exit__(None, None, None)


def play(client: TestClient, matched: dict[str, dict[str, Any]], resign_in_order: list[str]) -> None:
    """The matched players sit at their table and play until the game is over, the players in
    ``resign_in_order`` resigning one after another (the one left wins)."""
    (code,) = {m["room"] for m in matched.values()}
    sockets = {name: client.websocket_connect(f"/ws/{code}").__enter__() for name in matched}
    try:
        welcomes = {}
        for name, ws in sockets.items():
            ws.send_json({"type": "join", "name": name, "player_key": KEYS[name]})
            welcomes[name] = receive(ws, "welcome")
        host = next((name for name, w in welcomes.items() if w["host"]), None)
        if host is not None:  # a room with a host starts when it says so; a matched one by itself
            room = receive(sockets[host], "room", lambda m: m["open_seats"] == 0)
            if room["phase"] == "lobby":
                sockets[host].send_json({"type": "start"})
        for ws in sockets.values():
            receive(ws, "state")
        for name in resign_in_order:  # each resignation seen before the next is sent
            sockets[name].send_json({"type": "resign"})
            receive(sockets[name], "state", resigned(welcomes[name]["seat"]))
        (last,) = set(sockets) - set(resign_in_order)
        online.play_to_the_end(sockets[last], welcomes[last]["seat"])
        for name in resign_in_order:
            receive(sockets[name], "game_over")
    finally:
        for ws in sockets.values():
            ws.__exit__(None, None, None)


def resigned(seat: int) -> Callable[[dict[str, Any]], bool]:
    """A state that shows ``seat`` out of the game."""
    return lambda message: bool(message["observation"]["status"][seat] != "in")


def standings(client: TestClient, arena: dict[str, Any]) -> list[tuple[int, str, int, int, int, int]]:
    shown = client.get(f"/api/arenas/{arena['id']}").json()["standings"]
    return [(s["rank"], s["name"], s["score"], s["games"], s["wins"], s["streak"]) for s in shown]


def test_two_players_are_paired_again_after_each_game_and_the_standings_are_the_games_points(
        client: TestClient, store: SqliteStore) -> None:
    arena = new_arena(client)
    losers = ["Bob", "Ann", "Ann"]  # Bob wins, then Ann twice: Bob's streak ends, Ann's begins
    rooms = []
    for loser in losers:
        matched = seek_arena(client, arena, ["Ann", "Bob"])
        assert all(m["arena"] == arena["id"] for m in matched.values())
        rooms.append(matched["Ann"]["room"])
        play(client, matched, [loser])
    assert len(set(rooms)) == len(losers)  # a new table for every game
    assert standings(client, arena) == [(1, "Bob", 4, 3, 2, 2), (2, "Ann", 2, 3, 1, 0)]
    # the stored games say the same: three finished games in the arena's rooms, won as played
    winners = [r["name"] for r in store.arena_results(arena["id"], arena["ends_at"]) if r["won"]]
    assert winners == ["Ann", "Bob", "Bob"]


def test_four_players_score_four_two_one_nothing_by_place(client: TestClient) -> None:
    arena = new_arena(client, players=4)
    matched = seek_arena(client, arena, ["Ann", "Bob", "Cid", "Dee"])
    play(client, matched, ["Dee", "Cid", "Bob"])  # out in that order: Ann wins
    assert [(name, score) for _, name, score, *_ in standings(client, arena)] == [
        ("Ann", 4), ("Bob", 2), ("Cid", 1), ("Dee", 0)]


def test_a_seek_for_an_unknown_or_cancelled_arena_is_refused(client: TestClient, store: SqliteStore) -> None:
    arena = new_arena(client)
    store.cancel_arena(arena["id"])
    for arena_id in (arena["id"], "NoSuchAr"):
        with client.websocket_connect("/ws/seek") as ws:
            ws.send_json({"type": "seek", "rules": "classic", "players": 2, "name": "Ann",
                          "player_key": KEYS["Ann"], "arena": arena_id})
            refused = ws.receive_json()
            assert refused["type"] == "error" and refused["code"] == "unknown_arena"


def test_a_seek_still_waiting_when_the_arena_ends_is_told_and_taken_out(client: TestClient) -> None:
    arena = new_arena(client)
    service = client.app.state.arenas  # type: ignore[attr-defined]
    with client.websocket_connect("/ws/seek") as ws:
        ws.send_json({"type": "seek", "rules": "classic", "players": 2, "name": "Ann",
                      "player_key": KEYS["Ann"], "arena": arena["id"]})
        assert receive(ws, "seeking")["waiting"] == 1
        assert client.portal.call(service.close_ended_seeks) == 0  # type: ignore[union-attr]  # running
        service.now = lambda: arena["ends_at"]
        assert client.portal.call(service.close_ended_seeks) == 1  # type: ignore[union-attr]
        closed = receive(ws, "error")
        assert closed["code"] == "arena_closed" and f"/arenas/{arena['id']}" in closed["message"]
    assert client.app.state.seeking.service.pool_of == {}  # type: ignore[attr-defined]  # out of the pool
