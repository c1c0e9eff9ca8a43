"""Quick play across shards on a real PostgreSQL (issue 50, item 3), through Starlette's test
client: one pool for every shard (a seeker on shard A meets one on shard B, the room made on
the shard that ran the wave), one seek per key across shards, counts every shard sees, the
front of the pool after a no-show, and a game of the matched room stored once."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import online
import pytest
from starlette.testclient import TestClient

from ratscrew.server.app import create_app
from ratscrew.server.quickplay.pools import QuickPlay
from ratscrew.storage.postgres import PostgresStore

KEYS = {name: f"{name.lower()}-key-Qm3xT9vLp2Zr7WbK4sYd8Hc{index}"
        for index, name in enumerate(["Ann", "Bob", "Cid", "Dee"])}
Socket = Any


@pytest.fixture
def shards(fresh_database: str) -> Iterator[Callable[[str], TestClient]]:
    with ExitStack() as stack:
        def open_shard(letter: str) -> TestClient:
            app = create_app(PostgresStore(fresh_database), shard=letter, close_store=True)
            return stack.enter_context(TestClient(app))

        yield open_shard


def service(client: TestClient) -> QuickPlay:
    found: QuickPlay = client.app.state.seeking.service  # type: ignore[attr-defined]
    return found


def receive(ws: Socket, kind: str,
            where: Callable[[dict[str, Any]], bool] = lambda m: True) -> dict[str, Any]:
    """`online.receive` with this module's patience (limit=300)."""
    return online.receive(ws, kind, where, limit=300)


def seek(ws: Socket, name: str, rules: str = "classic", players: int = 2) -> None:
    ws.send_json({"type": "seek", "rules": rules, "players": players, "name": name,
                  "player_key": KEYS[name]})


def pool(client: TestClient, rules: str = "classic", players: int = 2) -> dict[str, Any]:
    listing = client.get("/api/pools").json()["pools"]
    return next(p for p in listing if p["rules"] == rules and p["players"] == players)


def test_a_seeker_on_each_shard_meets_the_other_at_one_table(
        shards: Callable[[str], TestClient]) -> None:
    a, b = shards("A"), shards("B")
    with a.websocket_connect("/ws/seek") as ann, b.websocket_connect("/ws/seek") as bob:
        seek(ann, "Ann")
        assert receive(ann, "seeking")["waiting"] == 1
        assert pool(b)["waiting"] == 1  # shard B counts shard A's seeker
        seek(bob, "Bob")
        to_ann, to_bob = receive(ann, "matched"), receive(bob, "matched")
    assert to_ann["room"] == to_bob["room"] and to_ann["room"][0] == "B"  # made where the wave ran
    assert sorted((to_ann["seat"], to_bob["seat"])) == [0, 1]
    assert pool(a)["waiting"] == 0 and pool(a)["playing"] == 2 == pool(b)["playing"]
    # the room is shard B's, and its game is stored once: any shard reads it
    code = to_ann["room"]
    with b.websocket_connect(f"/ws/{code}") as ann_seat, b.websocket_connect(f"/ws/{code}") as bob_seat:
        for ws, name in ((ann_seat, "Ann"), (bob_seat, "Bob")):
            ws.send_json({"type": "join", "name": name, "player_key": KEYS[name]})
            receive(ws, "welcome")
        receive(ann_seat, "state")  # no host: it starts once both have joined
        receive(bob_seat, "state")
        bob_seat.send_json({"type": "resign"})
        over = online.play_to_the_end(ann_seat, to_ann["seat"])
    assert a.get(over["record_url"]).json() == b.get(over["record_url"]).json()
    store = b.app.state.server.store  # type: ignore[attr-defined]
    assert store.game_count() == 1


def test_one_key_seeks_once_across_shards(shards: Callable[[str], TestClient]) -> None:
    a, b = shards("A"), shards("B")
    with a.websocket_connect("/ws/seek") as tab1, b.websocket_connect("/ws/seek") as tab2:
        seek(tab1, "Ann")
        receive(tab1, "seeking")
        seek(tab2, "Ann", rules="pagat")
        assert receive(tab2, "error")["code"] == "already_seeking"
        tab1.send_json({"type": "cancel"})
        tab1.send_json({"type": "nonesuch"})  # answered after the cancel is done
        assert receive(tab1, "error")["code"] == "bad_message"
        assert pool(b)["waiting"] == 0
        seek(tab2, "Ann", rules="pagat")  # cancelled on A: B takes it
        assert receive(tab2, "seeking")["rules"] == "pagat"


def test_four_seekers_on_two_shards_fill_a_four_player_table(shards: Callable[[str], TestClient]) -> None:
    a, b = shards("A"), shards("B")
    names = ["Ann", "Bob", "Cid", "Dee"]
    clients = [a, b, a, b]
    sockets = [client.websocket_connect("/ws/seek").__enter__() for client in clients]
    try:
        for name, ws in zip(names, sockets, strict=True):
            seek(ws, name, rules="pagat", players=4)
        matched = [receive(ws, "matched") for ws in sockets]
    finally:
        for ws in sockets:
            ws.__exit__(None, None, None)
    assert len({m["room"] for m in matched}) == 1 and sorted(m["seat"] for m in matched) == [0, 1, 2, 3]
    assert service(a).links == {} and service(b).links == {}


def test_a_seek_left_by_a_dead_shard_neither_counts_nor_blocks_its_player(
        shards: Callable[[str], TestClient], fresh_database: str) -> None:
    import psycopg

    a = shards("A")
    with a.websocket_connect("/ws/seek") as ann:  # Ann is a player of this server now
        seek(ann, "Ann")
        receive(ann, "seeking")
    ann_id = a.post("/api/players/export", json={"player_key": KEYS["Ann"]}).json()["player_id"]
    with psycopg.connect(fresh_database, autocommit=True) as conn:  # shard Z died holding her seek
        conn.execute("UPDATE seeks SET state = 'waiting', shard = 'Z', seek_id = 'lost', "
                     "alive_at = 0 WHERE player_id = %s", (ann_id,))
    assert pool(a)["waiting"] == 0
    with a.websocket_connect("/ws/seek") as ann:
        seek(ann, "Ann")
        assert receive(ann, "seeking")["waiting"] == 1
