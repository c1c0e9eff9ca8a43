"""On PostgreSQL, creating a room and joining it make no database round trip on the event loop
(issue 27, item 5): the counts of rooms and joins per address (rows every process shares), the
new room's code and first save, a joiner's token and seats, a game's start (with an id taken
ahead of time) all go through the store's
``…_async`` methods on a connection driven in the event loop
(`ratscrew.storage.postgres_async.LoopConnection`); the welcome waits for the token and seats
(persist before publish). Whatever the joiner sends meanwhile is taken after the join, in order,
except a pong. A join with a player key looks up, counts and enters its player off the loop
too, after the room's own refusals."""

from __future__ import annotations

import asyncio
import functools
import inspect
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from test_server_app import receive

from ratscrew.server.app import create_app
from ratscrew.server.http.limits import Limits, WindowCounter
from ratscrew.server.ladder.players import hash_key
from ratscrew.server.ops.expiry import CLOSED_WS_CODE
from ratscrew.server.room.lobby import new_code
from ratscrew.server.state import Server
from ratscrew.storage.postgres import PostgresRateCounter, PostgresStore
from ratscrew.storage.records import RateCounter


class LoopWatch:
    """Which calls of watched objects ran on a thread that runs an event loop."""

    def __init__(self) -> None:
        self.on_the_loop: list[str] = []
        self.awaited: list[str] = []

    def watch(self, target: Any, *names: str) -> None:
        """Wrap ``target``'s methods ``names`` (every public one without names), on the instance."""
        for name in names or [n for n in dir(type(target)) if not n.startswith("_")]:
            method = getattr(target, name)
            if callable(method):
                setattr(target, name, self._watched(f"{type(target).__name__}.{name}", method))

    def _watched(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.iscoroutinefunction(method):
            @functools.wraps(method)
            async def awaited(*args: Any, **kwargs: Any) -> Any:
                self.awaited.append(name)
                return await method(*args, **kwargs)

            return awaited

        @functools.wraps(method)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                pass
            else:
                self.on_the_loop.append(name)
            return method(*args, **kwargs)

        return call


def test_creating_a_room_joining_it_and_starting_a_game_make_no_round_trip_on_the_event_loop(
        fresh_database: str) -> None:
    store = PostgresStore(fresh_database)
    watch = LoopWatch()
    watch.watch(store)
    app = create_app(store, close_store=True)
    server: Server = app.state.server
    for counter in (server.room_counter, server.join_counter, server.player_counter):
        watch.watch(counter, "allow", "allow_async")
    with TestClient(app, client=("127.0.0.1", 40000)) as client:
        watch.on_the_loop.clear()  # (opening the app reads the store once, before any room)
        code = client.post("/api/rooms", json={"rules": "classic", "seats": 2, "seed": 8,
                                               "turn_timeout_ms": 60_000}).json()["code"]
        with client.websocket_connect(f"/ws/{code}") as ann, client.websocket_connect(f"/ws/{code}") as bob:
            ann.send_json({"type": "join", "name": "Ann"})
            ann.send_json({"type": "ready", "ready": True})  # sent before the welcome: taken after it
            receive(ann, "welcome")
            room = receive(ann, "room", lambda m: any(seat.get("ready") for seat in m["seats"]))
            bob.send_json({"type": "watch"})
            assert receive(bob, "welcome")["seat"] is None
            bob.send_json({"type": "join", "name": "Bob"})
            assert receive(bob, "welcome")["seat"] == 1
            ann.send_json({"type": "start"})  # the game's id was taken ahead of time
            state = receive(bob, "state")
    assert [name for name in watch.on_the_loop if name != "PostgresStore.close"] == []
    for awaited in ("room_exists_async", "save_room_async", "add_member_async",
                    "reserve_game_ids_async", "start_game_async"):
        assert f"PostgresStore.{awaited}" in watch.awaited, watch.awaited
    assert watch.awaited.count("PostgresRateCounter.allow_async") == 4  # a room, a watch, two joins
    assert room["seats"][0]["name"] == "Ann" and room["seats"][0]["ready"]
    stored = PostgresStore(fresh_database)
    try:
        row = stored.load_room(code)
        assert row is not None and [seat.name for seat in row.seats] == ["Ann", "Bob"]
        assert all(seat.token_hash for seat in row.seats)
        assert len(row.members) >= 2  # both tokens kept
        assert row.game_id is not None and stored.game_in_progress(row.game_id) is not None
        assert state["game"] == 1
    finally:
        stored.close()


@contextmanager
def joined_then_ready(fresh_database: str, join_counter: RateCounter) -> Iterator[tuple[Server, Any]]:
    """A PostgreSQL server whose joins ``join_counter`` counts, a room on it, and Ann's
    websocket after she sent a join and, straight after it, a ready."""
    app = create_app(PostgresStore(fresh_database), close_store=True)
    server: Server = app.state.server
    server.join_counter = join_counter
    with TestClient(app, client=("127.0.0.1", 40000)) as client:
        code = client.post("/api/rooms", json={"rules": "classic", "seats": 2}).json()["code"]
        with client.websocket_connect(f"/ws/{code}") as ann:
            ann.send_json({"type": "join", "name": "Ann"})
            ann.send_json({"type": "ready", "ready": True})
            yield server, ann


def test_a_join_refused_for_its_rate_is_answered_and_what_followed_it_taken(fresh_database: str) -> None:
    every_join_over = WindowCounter(limit=0, window_s=60)
    with joined_then_ready(fresh_database, every_join_over) as (_, ann):
        refused = receive(ann, "error")
        assert refused["code"] == "rate_limited" and "joins" in refused["message"]
        assert receive(ann, "error")["code"] == "not_seated"  # the ready, after the refusal


class HeldCounter:
    """A join counter that holds each join until the test lets it go."""

    def __init__(self) -> None:
        self.released = False

    def allow(self, key: str, now: float) -> bool:
        raise AssertionError("a join on PostgreSQL is counted with allow_async")

    async def allow_async(self, key: str, now: float) -> bool:
        deadline = time.monotonic() + 10
        while not self.released:
            assert time.monotonic() < deadline, "the test never let the join go"
            await asyncio.sleep(0.01)
        return True


def test_a_pong_sent_behind_a_join_being_counted_is_taken_at_once(fresh_database: str) -> None:
    """Held back with the rest, a pong would measure the join's round trips as the link's, and
    the room's settling window would keep that for a minute."""
    counter = HeldCounter()
    with joined_then_ready(fresh_database, counter) as (server, ann):
        ping = receive(ann, "ping")
        ann.send_json({"type": "pong", "id": ping["id"]})
        (conn,) = server.connections
        deadline = time.monotonic() + 5
        while conn.pinger.link.samples == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert conn.pinger.link.samples == 1  # the pong was taken
        assert conn.waiting is not None and len(conn.waiting) == 1  # the ready was not
        counter.released = True
        assert receive(ann, "welcome")["seat"] == 0
        receive(ann, "room", lambda m: bool(m["seats"][0].get("ready")))


def test_the_count_holds_its_limit_on_both_paths_and_across_processes(fresh_database: str) -> None:
    """One round trip a count (`rate_count_script`): the limit holds whichever path counts and
    whichever process (two stores on one database), and an address with a quote is only text."""
    first, second = PostgresStore(fresh_database), PostgresStore(fresh_database)
    try:
        counters = [PostgresRateCounter(store, "joins", 3, 60.0) for store in (first, second)]
        odd = "10.0.0.1'; DROP TABLE rooms; --"
        assert [counters[n % 2].allow(odd, 0.0) for n in range(5)] == [True, True, True, False, False]

        async def counted() -> list[bool]:
            other = "10.0.0.2"
            results = [await counters[0].allow_async(other, 0.0)]
            results += await asyncio.gather(*(c.allow_async(other, 0.0) for c in counters * 2))
            await first.close_async()
            await second.close_async()
            return results

        results = asyncio.run(counted())
        assert results.count(True) == 3 and len(results) == 5
        assert first.room_exists("NONE") is False  # the rooms table is still there
    finally:
        first.close()
        second.close()


def test_a_count_made_while_the_database_is_away_says_the_store_is_unavailable(
        fresh_database: str) -> None:
    store = PostgresStore(fresh_database)
    counter = PostgresRateCounter(store, "rooms", 10, 3600.0)

    async def twice() -> tuple[bool, str]:
        assert await counter.allow_async("10.0.0.3", 0.0)
        with psycopg.connect(fresh_database, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        try:
            await counter.allow_async("10.0.0.3", 0.0)
        except Exception as error:  # the test looks at which it is
            failure = type(error).__name__
        else:
            failure = "none"
        return store.reachable(), failure

    try:
        back, failure = asyncio.run(twice())
        assert failure == "StoreUnavailable" and back  # and once it is back, counting goes on
        assert asyncio.run(counter.allow_async("10.0.0.3", 0.0))
    finally:
        store.close()


def test_asking_for_a_room_this_server_does_not_hold_makes_no_round_trip_on_the_event_loop(
        fresh_database: str) -> None:
    """A closed room's link (410), an unknown code (404) and a closed room's websocket: the
    store is asked with ``closed_among_async`` while the loop runs on."""
    elsewhere = PostgresStore(fresh_database)  # as another process closed it
    closed = new_code()
    elsewhere.save_room(closed, {}, None, "lobby", 0, None, [])
    assert elsewhere.close_room(closed)
    elsewhere.close()
    store = PostgresStore(fresh_database)
    watch = LoopWatch()
    watch.watch(store)
    with TestClient(create_app(store, close_store=True)) as client:
        watch.on_the_loop.clear()
        assert client.get(f"/api/rooms/{closed}").status_code == 410
        assert client.get(f"/r/{closed}").status_code == 410
        unknown = next(code for code in iter(new_code, None) if code != closed)
        assert client.get(f"/api/rooms/{unknown}").status_code == 404
        with client.websocket_connect(f"/ws/{closed}") as gone, \
                pytest.raises(WebSocketDisconnect) as refused:
            gone.receive_json()
        assert refused.value.code == CLOSED_WS_CODE
    assert [name for name in watch.on_the_loop if name != "PostgresStore.close"] == []
    assert watch.awaited.count("PostgresStore.closed_among_async") == 4


def test_a_join_whose_connection_went_while_it_was_counted_takes_no_seat(fresh_database: str) -> None:
    """Ann sends a join and drops before it is counted (a phone losing its network): when the
    count comes back, nobody is seated on the connection that is gone."""
    counter = HeldCounter()
    with joined_then_ready(fresh_database, counter) as (server, ann):
        (room,) = server.rooms.values()
        room.outbox.hold_until(HELD)  # as behind a write in flight: the close waits its turn
        ann.close()
        deadline = time.monotonic() + 5
        while server.connections and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not server.connections
        counter.released = True
        while server.admissions and time.monotonic() < deadline + 5:
            time.sleep(0.01)
        assert not server.admissions
        assert [seat.name for seat in room.seats] == [None, None]
        assert not room.connections
        room.outbox.release(HELD)


HELD = 10**9
"""A ticket no write will reach: the room's outbox holds until the test releases it."""


# ------------------------------------------------------------------ joins with a player key

ANN_KEY = "ann-key-Qm3xT9vLp2Zr7WbK4sYd8Hc"
BOB_KEY = "bob-key-Jt6Nq1FgX5uPe0RzVa9LwMk"


def _welcome_or_error(ws: Any) -> dict[str, Any]:
    """The answer to a join: its ``welcome`` or its ``error`` (pings answered on the way)."""
    for _ in range(50):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == "ping":
            ws.send_json({"type": "pong", "id": message["id"]})
        if message["type"] in ("welcome", "error"):
            return message
    raise AssertionError("the join was not answered")


def keyed_join(client: TestClient, code: str, name: str, key: str | None, **more: Any) -> dict[str, Any]:
    """Join room ``code`` as ``name`` with player ``key`` (a guest without one): the answer."""
    with client.websocket_connect(f"/ws/{code}") as ws:
        ws.send_json({"type": "join", "name": name} | ({"player_key": key} if key else {}) | more)
        return _welcome_or_error(ws)


def test_a_join_with_a_player_key_makes_no_round_trip_on_the_event_loop(fresh_database: str) -> None:
    store = PostgresStore(fresh_database)
    watch = LoopWatch()
    watch.watch(store)
    app = create_app(store, close_store=True)
    server: Server = app.state.server
    for counter in (server.join_counter, server.player_counter):
        watch.watch(counter, "allow", "allow_async")
    with TestClient(app, client=("127.0.0.1", 40000)) as client:
        code = client.post("/api/rooms", json={"rules": "classic", "seats": 3}).json()["code"]
        watch.on_the_loop.clear()
        first = keyed_join(client, code, "Ann", ANN_KEY)  # a new player
        again = keyed_join(client, code, "Annie", ANN_KEY, token=first["token"])  # her, renamed
    assert first["type"] == "welcome" and again["type"] == "welcome"
    assert first["player_id"] == again["player_id"] and again["seat"] == first["seat"] == 0
    assert [name for name in watch.on_the_loop if name != "PostgresStore.close"] == []
    assert watch.awaited.count("PostgresStore.player_by_key_async") == 2
    assert watch.awaited.count("PostgresStore.enter_player_async") == 2
    assert watch.awaited.count("PostgresRateCounter.allow_async") == 3  # two joins, one new player
    stored = PostgresStore(fresh_database)
    try:
        player = stored.player(first["player_id"])
        assert player is not None and player.name == "Annie"
    finally:
        stored.close()


@contextmanager
def keyed_server(fresh_database: str, limits: Limits | None = None) -> Iterator[tuple[TestClient, Server]]:
    app = create_app(PostgresStore(fresh_database), close_store=True, limits=limits)
    with TestClient(app, client=("127.0.0.1", 40000)) as client:
        yield client, app.state.server


def new_room_code(client: TestClient, seats: int = 3) -> str:
    code: str = client.post("/api/rooms", json={"rules": "classic", "seats": seats}).json()["code"]
    return code


def test_a_keyed_join_the_room_refuses_leaves_the_key_as_it_was(fresh_database: str) -> None:
    """The room's refusals come before the key's player is entered: a name someone in the room
    goes by, a token the room never gave out; and a name another key holds is the store's."""
    with keyed_server(fresh_database) as (client, server):
        code = new_room_code(client)
        ann = keyed_join(client, code, "Ann", ANN_KEY)["player_id"]
        assert keyed_join(client, code, "Kim", None)["type"] == "welcome"  # a guest
        in_the_room = keyed_join(client, new_room_code(client), "Ann", ANN_KEY)  # elsewhere, fine
        assert in_the_room["player_id"] == ann
        refused = keyed_join(client, code, "KIM", ANN_KEY)
        assert refused["code"] == "name_taken" and "in this room" in refused["message"]
        refused = keyed_join(client, new_room_code(client), "Zed", ANN_KEY, token="t" * 32)
        assert refused["code"] == "bad_token"
        refused = keyed_join(client, new_room_code(client), "ann", BOB_KEY)  # Ann's key holds it
        assert refused["code"] == "name_taken" and "another player" in refused["message"]
        refused = keyed_join(client, new_room_code(client), "Bob", "a" * 30)  # not random-looking
        assert refused["code"] == "bad_key"
        store = server.store
        player = store.player(ann)
        assert player is not None and player.name == "Ann"
        assert store.player_by_key(hash_key(BOB_KEY)) is None
        assert store.player_by_key(hash_key("a" * 30)) is None


def test_new_players_past_the_hours_limit_are_refused_and_known_ones_are_not(fresh_database: str) -> None:
    with keyed_server(fresh_database, Limits(players_per_hour=1)) as (client, server):
        assert keyed_join(client, new_room_code(client), "Ann", ANN_KEY)["type"] == "welcome"
        refused = keyed_join(client, new_room_code(client), "Bob", BOB_KEY)
        assert refused["code"] == "rate_limited" and "new players" in refused["message"]
        assert server.store.player_by_key(hash_key(BOB_KEY)) is None
        assert keyed_join(client, new_room_code(client), "Ann", ANN_KEY)["type"] == "welcome"


def test_a_join_meanwhile_cannot_make_a_keyed_join_refused_after_its_key_was_entered(
        fresh_database: str) -> None:
    """While Ann's key is being entered, a guest asks for the same name in the same room: the
    guest waits for Ann's join (`Room.admitting`) and is refused; had the guest been seated in
    between, Ann's join would be refused with her key already renamed."""
    with keyed_server(fresh_database) as (client, server):
        code = new_room_code(client)
        entering, let_go = asyncio.Event(), {"now": False}
        enter = server.store.enter_player_async

        async def held_enter(*args: Any) -> Any:
            entering.set()
            deadline = time.monotonic() + 10
            while not let_go["now"]:
                assert time.monotonic() < deadline, "the test never let the entry go"
                await asyncio.sleep(0.01)
            return await enter(*args)

        server.store.enter_player_async = held_enter  # type: ignore[method-assign,assignment]
        with client.websocket_connect(f"/ws/{code}") as ann, client.websocket_connect(f"/ws/{code}") as guest:
            ann.send_json({"type": "join", "name": "Ann", "player_key": ANN_KEY})
            deadline = time.monotonic() + 5
            while not entering.is_set() and time.monotonic() < deadline:
                time.sleep(0.01)
            assert entering.is_set()
            guest.send_json({"type": "join", "name": "ann"})
            while len(server.admissions) < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.2)  # the guest's count is back: it waits for the room
            let_go["now"] = True
            assert _welcome_or_error(ann)["type"] == "welcome"
            refused = _welcome_or_error(guest)
        assert refused["type"] == "error" and refused["code"] == "name_taken"
        player = server.store.player_by_key(hash_key(ANN_KEY))
        assert player is not None and player.name == "Ann"


def test_the_pages_and_api_that_read_the_store_make_no_round_trip_on_the_event_loop(
        fresh_database: str) -> None:
    """A finished game's record, replay and page, the leaderboard, a player's page and record,
    a key's export and import: on PostgreSQL their store calls run in a worker thread, so a
    stranger asking for them over and over does not hold every room's event loop."""
    store = PostgresStore(fresh_database)
    watch = LoopWatch()
    watch.watch(store)
    app = create_app(store, close_store=True)
    server: Server = app.state.server
    watch.watch(server.key_code_counter, "allow", "allow_async")
    with TestClient(app, client=("127.0.0.1", 40000)) as client:
        code = client.post("/api/rooms", json={"rules": "classic", "seats": 2,
                                               "bots": ["casual"]}).json()["code"]
        with client.websocket_connect(f"/ws/{code}") as ann:
            ann.send_json({"type": "join", "name": "Ann", "player_key": ANN_KEY})
            player_id = receive(ann, "welcome")["player_id"]
            ann.send_json({"type": "start"})
            receive(ann, "state")
            ann.send_json({"type": "resign"})
            game_id = receive(ann, "game_over")["game_id"]
        watch.on_the_loop.clear()
        assert client.get(f"/api/games/{game_id}/record").status_code == 200
        assert client.get(f"/api/games/{game_id}/replay").status_code == 200
        assert client.get(f"/games/{game_id}").status_code == 200
        assert client.get("/api/games/999999/record").status_code == 404
        assert client.get("/api/leaderboard").json()["players"] == []  # ranked from 3 opponents
        assert client.get(f"/players/{player_id}").status_code == 200
        assert client.get(f"/api/players/{player_id}").json()["name"] == "Ann"
        import_code = client.post("/api/players/export", json={"player_key": ANN_KEY}).json()["code"]
        assert client.post("/api/players/import", json={"code": import_code}).json()["player_key"] == ANN_KEY
    assert [name for name in watch.on_the_loop if name != "PostgresStore.close"] == []
    assert watch.awaited.count("PostgresRateCounter.allow_async") == 2


class HeldPlayerReads:
    """``store.player`` made slow, as a database slow to answer: each read is noted in
    :attr:`started`, then waits until :attr:`released` is set (at most a minute)."""

    def __init__(self, store: PostgresStore) -> None:
        self.read_player = store.player
        self.released = threading.Event()
        self.started: list[str] = []

    def __call__(self, player_id: str) -> Any:
        self.started.append(player_id)
        self.released.wait(60)
        return self.read_player(player_id)


def test_page_reads_held_up_do_not_hold_up_a_games_end(fresh_database: str) -> None:
    """A stranger's page reads that the database is slow to answer wait in threads of their own
    (`REQUEST_READS`): the writer's threads, which store a game's end, are not among them, so
    ``game_over`` comes while a dozen reads still wait."""
    store = PostgresStore(fresh_database)
    slow_player = HeldPlayerReads(store)
    released, waiting = slow_player.released, slow_player.started
    app = create_app(store, close_store=True)
    with TestClient(app, client=("127.0.0.1", 40000)) as client:
        code = client.post("/api/rooms", json={"rules": "classic", "seats": 2,
                                               "bots": ["casual"]}).json()["code"]
        store.player = slow_player  # type: ignore[method-assign]
        readers = [threading.Thread(target=client.get, args=(f"/players/{'x' * 12}",))
                   for _ in range(12)]
        try:
            for reader in readers:
                reader.start()
            time.sleep(0.5)  # every read is waiting on the database
            with client.websocket_connect(f"/ws/{code}") as ann:
                ann.send_json({"type": "join", "name": "Ann"})
                receive(ann, "welcome")
                ann.send_json({"type": "start"})
                receive(ann, "state")
                resigned = time.monotonic()
                ann.send_json({"type": "resign"})
                over = receive(ann, "game_over")
            took = time.monotonic() - resigned
            assert over["game_id"] is not None and took < 10, f"game_over after {took:.1f} s"
            assert 0 < len(waiting) < len(readers)  # reads were held, the rest queued behind them
        finally:
            released.set()
            for reader in readers:
                reader.join(30)


def test_past_the_reads_a_process_lets_wait_a_page_read_is_refused_at_once_not_queued(
        fresh_database: str) -> None:
    """On PostgreSQL a request's store reads queue for two threads; a stranger's flood of them
    would grow that queue, and every reader's wait, without bound. Past
    ``max_request_reads_per_address`` from one address a read is answered ``429``, past
    ``max_request_reads`` from everyone ``503``, both with ``Retry-After`` and at once; once
    the reads drain, the same requests are answered again."""
    store = PostgresStore(fresh_database)
    slow_player = HeldPlayerReads(store)
    released, started = slow_player.released, slow_player.started
    app = create_app(store, close_store=True)
    server: Server = app.state.server
    server.max_request_reads, server.max_request_reads_per_address = 4, 2
    stranger = TestClient(app, client=("203.0.113.7", 50000))  # the same server, another address
    with TestClient(app, client=("127.0.0.1", 40000)) as client:
        store.player = slow_player  # type: ignore[method-assign]
        answers: list[int] = []

        def read(reader: TestClient) -> None:
            answers.append(reader.get(f"/api/players/{'x' * 12}").status_code)

        readers = [threading.Thread(target=read, args=(reader,))
                   for reader in (client, client, stranger, stranger)]
        try:
            for reader in readers[:2]:
                reader.start()
            deadline = time.monotonic() + 10
            while server.request_reads < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            asked = time.monotonic()
            own_share = client.get(f"/api/players/{'y' * 12}")  # a third from one address
            for reader in readers[2:]:
                reader.start()
            while server.request_reads < 4 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert server.request_reads == 4 and len(started) == 2  # two run, two wait
            newcomer = TestClient(app, client=("198.51.100.9", 1))  # with no read of its own
            everyone = newcomer.get(f"/api/players/{'y' * 12}")
            page = newcomer.get(f"/players/{'y' * 12}")
            assert time.monotonic() - asked < 5  # none queued behind the held reads
            assert own_share.status_code == 429 and own_share.headers["retry-after"] == "1"
            assert "your address" in own_share.json()["error"]
            assert everyone.status_code == 503 and everyone.headers["retry-after"] == "1"
            assert "busy" in everyone.json()["error"]
            assert page.status_code == 503 and "busy" in page.text and page.headers["retry-after"] == "1"
        finally:
            released.set()
            for reader in readers:
                reader.join(30)
        assert answers == [404] * 4 and server.request_reads == 0 and server.reads_by_address == {}
        store.player = slow_player.read_player  # type: ignore[method-assign]
        assert client.get(f"/api/players/{'y' * 12}").status_code == 404  # answered again
        assert stranger.get(f"/api/players/{'y' * 12}").status_code == 404
