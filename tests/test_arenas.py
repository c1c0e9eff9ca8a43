"""Arenas through the app (issue 50 item 4): ``POST /api/arenas`` and its errors and limit,
``GET /api/arenas`` and ``GET /api/arenas/ID`` with live standings that equal the points of the
stored games, the arena's state by the clock, the pools' hooks (entry, tables made), the final
standings stored once the last game is over, and on the players' pages."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from ratscrew.server.app import create_app
from ratscrew.server.http.arenas import ARENAS_PER_HOUR, ArenaService
from ratscrew.server.ladder.players import hash_key
from ratscrew.server.quickplay.pools import ArenaEntry
from ratscrew.storage.records import SeatResult
from ratscrew.storage.sqlite import SqliteStore

ANN_KEY = "annKey_0123456789abcdefXYZ"
BOB_KEY = "bobKey_9876543210zyxwvuQRS"
class Clock:
    """The arenas' wall clock, moved by the test. It starts at the real time when the test
    begins (``start``), since games are stamped by the store's real clock: a clock taken when
    the module was imported would lag by however long the suite ran before this test."""

    def __init__(self) -> None:
        self.start = float(int(time.time()))
        self.t = self.start

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def store() -> SqliteStore:
    return SqliteStore(":memory:")


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(store: SqliteStore, clock: Clock) -> Iterator[TestClient]:
    with TestClient(create_app(store)) as test_client:
        test_client.app.state.arenas.now = clock  # type: ignore[attr-defined]
        yield test_client


def service(client: TestClient) -> ArenaService:
    found: ArenaService = client.app.state.arenas  # type: ignore[attr-defined]
    return found


def body(**changes: Any) -> dict[str, Any]:
    return {"rules": "classic", "players": 2, "minutes": 30, "starts_in_s": 0, "player_key": ANN_KEY,
            "name": "Ann", **changes}


def new_arena(client: TestClient, **changes: Any) -> str:
    response = client.post("/api/arenas", json=body(**changes))
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["url"] == f"/arenas/{created['id']}"
    arena_id: str = created["id"]
    return arena_id


def a_game(store: SqliteStore, code: str, *order: str, ids: dict[str, str]) -> int:
    """A finished game in room ``code``, the named players in finishing order (the first won)."""
    if not store.room_exists(code):
        store.save_room(code, {}, None, "playing", 0, None, ())
    game_id = store.start_game(code, 1, "classic", {}, 0.0)
    seats = [SeatResult(seat, "human", name, None, seat == 0, 0, 0, (), ids[name])
             for seat, name in enumerate(order)]
    store.finish_game(game_id, {}, 0, "won", seats)
    return game_id


def players(store: SqliteStore, *names: str) -> dict[str, str]:
    return {name: store.enter_player(hash_key(f"{name}Key_0123456789abcdefXYZ"), name,
                                     f"{name}Public1234"[:12]).player_id for name in names}


def test_a_keyed_player_creates_an_arena_and_everyone_sees_it_running(client: TestClient,
                                                                       clock: Clock) -> None:
    arena_id = new_arena(client, rules="pagat", players=4, minutes=5)
    shown = client.get(f"/api/arenas/{arena_id}").json()
    assert shown == {"id": arena_id, "url": f"/arenas/{arena_id}", "rules": "pagat", "players": 4,
                     "state": "running", "starts_at": clock.start, "ends_at": clock.start + 300,
                     "now": clock.start,
                     "final": False, "standings": []}
    assert [a["id"] for a in client.get("/api/arenas").json()["arenas"]] == [arena_id]
    page = client.get(f"/arenas/{arena_id}")
    assert page.status_code == 200 and "<title>" in page.text and "arena.js" in page.text


def test_an_arena_is_upcoming_then_running_then_finished_by_the_clock(client: TestClient,
                                                                      clock: Clock) -> None:
    arena_id = new_arena(client, starts_in_s=600, minutes=5)
    states = []
    for t in (0, 599, 600, 899, 900):
        clock.t = clock.start + t
        states.append(client.get(f"/api/arenas/{arena_id}").json()["state"])
    assert states == ["upcoming", "upcoming", "running", "running", "finished"]
    clock.t = clock.start + 900 + 86_400 + 1  # long finished: no longer listed, still there by its id
    assert client.get("/api/arenas").json()["arenas"] == []
    assert client.get(f"/api/arenas/{arena_id}").json()["final"] is True


@pytest.mark.parametrize(("changes", "code", "says"), [
    ({"rules": "bmn"}, "bad_request", "rules must be one of classic, northwest, pagat, ratscrew, paranoid"),
    ({"rules": "[slaps]\ndoubles = true"}, "bad_request", "rules must be one of"),
    ({"players": 3}, "bad_request", "players must be 2 or 4"),
    ({"players": True}, "bad_request", "players must be 2 or 4"),
    ({"minutes": 4}, "bad_request", "minutes must be a whole number from 5 to 120"),
    ({"minutes": 121}, "bad_request", "minutes must be a whole number from 5 to 120"),
    ({"minutes": 30.5}, "bad_request", "minutes must be a whole number"),
    ({"starts_in_s": -1}, "bad_request", "starts_in_s must be a whole number from 0 to 86400"),
    ({"starts_in_s": 86_401}, "bad_request", "starts_in_s must be a whole number from 0 to 86400"),
    ({"player_key": None}, "bad_key", "an arena is made by a player"),
    ({"player_key": "short"}, "bad_key", "an arena is made by a player"),
    ({"name": None, "player_key": BOB_KEY}, "unknown_player", "send your name with it"),
    ({"colour": "red"}, "bad_request", "unknown field 'colour'"),
])
def test_a_bad_arena_request_gets_a_clear_error(client: TestClient, changes: dict[str, Any], code: str,
                                                says: str) -> None:
    wanted = {k: v for k, v in body(**changes).items() if v is not None}
    response = client.post("/api/arenas", json=wanted)
    assert response.status_code == 400, response.text
    assert response.json()["error"] == code and says in response.json()["message"]
    assert client.get("/api/arenas").json()["arenas"] == []


def test_not_json_is_refused_clearly(client: TestClient) -> None:
    response = client.post("/api/arenas", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 400 and response.json()["error"] == "bad_json"


def test_arena_creations_are_limited_per_address(client: TestClient) -> None:
    for _ in range(ARENAS_PER_HOUR):
        new_arena(client)
    refused = client.post("/api/arenas", json=body())
    assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
    assert f"at most {ARENAS_PER_HOUR} arenas an hour" in refused.json()["message"]
    assert len(client.get("/api/arenas").json()["arenas"]) == ARENAS_PER_HOUR


def test_an_unknown_arena_is_not_found(client: TestClient) -> None:
    assert client.get("/api/arenas/NoSuchAr").json()["error"] == "unknown_arena"
    assert client.get("/api/arenas/../../etc").status_code == 404
    assert client.get("/arenas/NoSuchAr").status_code == 404


def test_live_standings_are_the_points_of_the_stored_games(client: TestClient, store: SqliteStore) -> None:
    arena_id = new_arena(client)
    ids = players(store, "Cy", "Dee", "Eve")
    arenas = service(client)
    for code in ("AAAAAA", "BBBBBB", "CCCCCC", "DDDDDD"):
        assert arenas.matched("classic", 2, arena_id, code)
    assert not arenas.matched("pagat", 2, arena_id, "EEEEEE")  # not the arena's pool: never counted
    assert not arenas.matched("classic", 2, None, "FFFFFF")  # quick play
    a_game(store, "AAAAAA", "Cy", "Dee", ids=ids)
    a_game(store, "BBBBBB", "Cy", "Eve", ids=ids)
    a_game(store, "CCCCCC", "Cy", "Dee", ids=ids)  # a third win in a row: 4
    a_game(store, "EEEEEE", "Eve", "Cy", ids=ids)
    a_game(store, "DDDDDD", "Eve", "Cy", ids=ids)
    standings = client.get(f"/api/arenas/{arena_id}").json()["standings"]
    assert [(s["rank"], s["name"], s["score"], s["games"], s["wins"], s["streak"]) for s in standings] == [
        (1, "Cy", 8, 4, 3, 0), (2, "Eve", 2, 2, 1, 1), (3, "Dee", 0, 2, 0, 0)]
    assert standings[0]["player_id"] == ids["Cy"]


def test_the_pools_hear_who_may_enter_and_with_what_standing(client: TestClient, store: SqliteStore,
                                                              clock: Clock) -> None:
    arena_id = new_arena(client, starts_in_s=60)
    ids = players(store, "Cy", "Dee")
    arenas = service(client)
    assert arenas.entry(arena_id, ids["Cy"]) == "arena_closed"
    assert arenas.entry("NoSuchAr", ids["Cy"]) == "unknown_arena"
    clock.t = clock.start + 60
    assert arenas.entry(arena_id, ids["Cy"]) == ArenaEntry(0.0, frozenset())
    arenas.matched("classic", 2, arena_id, "AAAAAA")
    a_game(store, "AAAAAA", "Cy", "Dee", ids=ids)
    assert arenas.entry(arena_id, ids["Cy"]) == ArenaEntry(2.0, frozenset({ids["Dee"]}))
    store.flag_player(ids["Dee"], "classic", 1, ["flat"], 20)
    assert arenas.entry(arena_id, ids["Dee"]) == "flagged"
    clock.t = clock.start + 60 + 1800
    assert arenas.entry(arena_id, ids["Cy"]) == "arena_closed"
    assert store.cancel_arena(arena_id)
    assert arenas.entry(arena_id, ids["Cy"]) == "unknown_arena"


def test_a_game_running_at_the_end_finishes_and_counts_then_the_standings_are_final(
        client: TestClient, store: SqliteStore, clock: Clock) -> None:
    arena_id = new_arena(client, minutes=5)
    ids = players(store, "Cy", "Dee")
    arenas = service(client)
    arenas.matched("classic", 2, arena_id, "AAAAAA")
    a_game(store, "AAAAAA", "Cy", "Dee", ids=ids)
    running = store.start_game("AAAAAA", 2, "classic", {}, 0.0)
    clock.t = clock.start + 300
    assert arenas.finish_due() == 0  # its last game is still being played
    shown = client.get(f"/api/arenas/{arena_id}").json()
    assert shown["state"] == "finished" and shown["final"] is False
    store.finish_game(running, {}, 1, "won", [
        SeatResult(0, "human", "Cy", None, False, 0, 0, (), ids["Cy"]),
        SeatResult(1, "human", "Dee", None, True, 0, 0, (), ids["Dee"])])
    assert arenas.finish_due() == 1 and arenas.finish_due() == 0
    final = client.get(f"/api/arenas/{arena_id}").json()
    assert final["final"] is True
    assert [(s["name"], s["score"], s["games"]) for s in final["standings"]] == [("Cy", 2, 2), ("Dee", 2, 2)]
    assert final["standings"][0]["rank"] == final["standings"][1]["rank"] == 1
    page = client.get(f"/api/players/{ids['Dee']}").json()
    assert page["arenas"] == [{"arena_id": arena_id, "rules": "classic", "players": 2,
                               "starts_at": clock.start, "ends_at": clock.start + 300, "rank": 1,
                               "entrants": 2,
                               "score": 2, "games": 2, "wins": 1}]
