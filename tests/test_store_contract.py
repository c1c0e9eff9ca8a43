"""The store contract: every test here runs against SQLite and against a real PostgreSQL (a
throwaway server, see ``postgres.py``), so the two `Store` implementations keep the same
behaviour: rooms and seats, games and their actions, records, statistics, leaderboards."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from postgres import PostgresCluster

from ratscrew.server.ladder.ranking import leaderboard, player_stats
from ratscrew.storage import schema
from ratscrew.storage.opening import open_store
from ratscrew.storage.postgres import PostgresStore, redact
from ratscrew.storage.records import (
    ArenaRow,
    FinishedGame,
    GameRating,
    NameTaken,
    PlayerRow,
    Rating,
    RatingChange,
    SeatResult,
    SeatRow,
    StepRows,
    StoreError,
)
from ratscrew.storage.roles import Store
from ratscrew.storage.schema import VERSION, statements_up_to
from ratscrew.storage.sqlite import SqliteStore

Opener = Callable[[], Store]


@pytest.fixture(params=["sqlite", "postgres"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """Opens the same database again each time it is called (closed at the end)."""
    opened: list[Store] = []
    if request.param == "sqlite":
        target: str = str(tmp_path / "ratscrew.db")
    else:
        cluster: PostgresCluster = request.getfixturevalue("postgres_cluster")
        target = cluster.create_database()

    def open_again() -> Store:
        store = open_store(target)
        opened.append(store)
        return store

    yield open_again
    for store in opened:
        store.close()


@pytest.fixture
def store(opener: Opener) -> Store:
    return opener()


@pytest.fixture(params=["sqlite", "postgres"])
def version_1(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Callable[[str], None]]]:
    """An empty database at schema version 1 (before players and ratings), and a way to run SQL
    in it (``?`` marks)."""
    if request.param == "sqlite":
        target = str(tmp_path / "old.db")
        conn: Any = sqlite3.connect(target, isolation_level=None)
        script = statements_up_to("sqlite", 1)
    else:
        import psycopg

        cluster: PostgresCluster = request.getfixturevalue("postgres_cluster")
        target = cluster.create_database()
        conn = psycopg.connect(target, autocommit=True)
        script = statements_up_to("postgresql", 1)

    def run(sql: str) -> None:
        conn.execute(sql)

    run("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    run("INSERT INTO schema_version VALUES (1)")
    for statement in script:
        run(statement)
    yield target, run
    conn.close()


SEATS = (SeatRow(0, "human", "Ann", None, "hash-ann", "ann-public-1"),
         SeatRow(1, "bot", "Casual bot", "casual", None))


def a_room(store: Store, code: str, phase: str = "lobby", **changes: Any) -> None:
    options: dict[str, Any] = {"settings": {"rules": "classic", "seed": 3}, "host_hash": "hash-ann",
                               "phase": phase, "games_played": 0, "game_id": None, "seats": SEATS}
    options.update(changes)
    store.save_room(code, **options)


def a_game(store: Store, code: str, rules: str = "classic") -> int:
    return store.start_game(code, 1, rules, {"hands": ["7H", "3C"], "leader": 0}, 0.0)


def result(seat: int, name: str, token: str | None, won: bool, reactions: tuple[int, ...] = (),
           kind: str = "human", player_id: str | None = None, bot: str | None = None) -> SeatResult:
    return SeatResult(seat, kind, name, token, won, len(reactions), 0, reactions, player_id, bot)


def test_a_new_database_has_every_migration(store: Store) -> None:
    assert store.schema_version == VERSION == 5


def test_reopening_keeps_everything_and_migrates_nothing(opener: Opener) -> None:
    first = opener()
    a_room(first, "ABCDEF")
    first.close()
    again = opener()
    assert again.schema_version == VERSION
    assert [row.code for row in again.load_rooms()] == ["ABCDEF"]


def test_a_room_comes_back_with_its_seats_members_and_kicked_tokens(store: Store) -> None:
    assert not store.room_exists("ABCDEF")
    a_room(store, "ABCDEF")
    store.add_member("ABCDEF", "hash-eve", "Eve")
    store.add_member("ABCDEF", "hash-eve", "Eve B")  # a new name replaces the old
    store.add_member("ABCDEF", "hash-bob", "Bob")
    store.add_kicked("ABCDEF", "hash-bob")
    store.add_kicked("ABCDEF", "hash-bob")  # twice is once
    assert store.room_exists("ABCDEF")
    row = store.load_room("ABCDEF")
    assert row is not None
    assert row.settings == {"rules": "classic", "seed": 3} and row.host_hash == "hash-ann"
    assert row.seats == SEATS and row.phase == "lobby" and row.game_id is None
    assert row.members == {"hash-eve": "Eve B"} and row.kicked == frozenset({"hash-bob"})
    assert store.load_rooms() == [row]
    assert store.load_room("ZZZZZZ") is None


def test_saving_a_room_again_replaces_its_settings_and_seats(store: Store) -> None:
    a_room(store, "ABCDEF")
    game_id = a_game(store, "ABCDEF")
    a_room(store, "ABCDEF", phase="playing", games_played=1, game_id=game_id,
           seats=(SeatRow(0, "open", None, None, None),))
    row = store.load_room("ABCDEF")
    assert row is not None and row.phase == "playing" and row.games_played == 1
    assert row.game_id == game_id and row.seats == (SeatRow(0, "open", None, None, None),)


def test_closed_rooms_are_not_loaded_and_a_shard_loads_only_its_own(store: Store) -> None:
    for code in ("ABCDEF", "AZZZZZ", "BCDEFG"):
        a_room(store, code)
    a_room(store, "CLOSED", phase="closed")
    assert sorted(r.code for r in store.load_rooms()) == ["ABCDEF", "AZZZZZ", "BCDEFG"]
    assert sorted(r.code for r in store.load_rooms("A")) == ["ABCDEF", "AZZZZZ"]
    assert [r.code for r in store.load_rooms("B")] == ["BCDEFG"]
    assert store.load_rooms("Q") == []


def test_a_game_in_progress_is_its_start_and_every_action_in_order(store: Store) -> None:
    a_room(store, "ABCDEF")
    game_id = a_game(store, "ABCDEF")
    other = a_game(store, "ABCDEF")
    assert other != game_id
    store.append_actions(game_id, 0, [("play", 0, 0), ("play", 1, 350)])
    store.append_actions(game_id, 2, [("slap", None, 900)])
    store.append_actions(game_id, 3, [])
    store.append_judged(game_id, 0, [{"seat": 0, "accepted": True}])
    stored = store.game_in_progress(game_id)
    assert stored is not None
    assert stored.start == {"hands": ["7H", "3C"], "leader": 0} and stored.clock_start == 0.0
    assert stored.actions == [("play", 0, 0), ("play", 1, 350), ("slap", None, 900)]
    assert stored.judged == [{"seat": 0, "accepted": True}]
    empty = store.game_in_progress(other)
    assert empty is not None and empty.actions == [] and empty.judged == []
    assert store.game_in_progress(99_999) is None


def test_a_game_started_with_an_id_taken_ahead_of_time_keeps_it(store: Store) -> None:
    """PostgreSQL takes ids from the games' sequence ahead of time (a start then waits for no
    round trip); SQLite takes none and starts each game at once. Either way ids never clash."""
    a_room(store, "ABCDEF")
    first = a_game(store, "ABCDEF")

    async def reserve() -> list[int]:
        ids = await store.reserve_game_ids_async(3)
        if ids:
            await store.start_game_async("ABCDEF", 2, "classic", {"leader": 1}, 0.0, ids[0])
        await store.close_async()
        return ids

    reserved = asyncio.run(reserve())
    if isinstance(store, SqliteStore):
        assert reserved == []
        return
    assert len(set(reserved)) == 3 and min(reserved) > first
    started = store.game_in_progress(reserved[0])
    assert started is not None and started.start == {"leader": 1}
    assert store.start_game("ABCDEF", 3, "classic", {}, 0.0, game_id=reserved[1]) == reserved[1]
    later = a_game(store, "ABCDEF")  # the sequence's own next id: past every reserved one
    assert later > max(reserved)


def test_a_batch_of_actions_is_all_or_nothing(store: Store) -> None:
    a_room(store, "ABCDEF")
    game_id = a_game(store, "ABCDEF")
    store.append_actions(game_id, 0, [("play", 0, 0)])
    with pytest.raises(Exception):  # noqa: B017  (each database names the clash its own way)
        store.append_actions(game_id, 0, [("play", 1, 300), ("play", 0, 600)])  # n=0 is taken
    half = store.game_in_progress(game_id)
    assert half is not None and half.actions == [("play", 0, 0)]  # n=1 was not written either
    store.append_actions(game_id, 1, [("play", 1, 300), ("play", 0, 600)])
    stored = store.game_in_progress(game_id)
    assert stored is not None
    assert stored.actions == [("play", 0, 0), ("play", 1, 300), ("play", 0, 600)]


def test_a_step_stores_its_actions_and_judgements_together_or_not_at_all(store: Store) -> None:
    a_room(store, "ABCDEF")
    game_id = a_game(store, "ABCDEF")
    store.append_step(game_id, 0, [("play", 0, 0)], 0, [{"seat": 0, "kind": "play"}])
    store.append_step(game_id, 1, [("play", 1, 300)], 1, [])  # a bot's step: nothing judged
    with pytest.raises(Exception):  # noqa: B017  (each database names the clash its own way)
        store.append_step(game_id, 2, [("slap", 0, 450)], 0, [{"seat": 0, "kind": "slap"}])
    stored = store.game_in_progress(game_id)
    assert stored is not None
    assert stored.actions == [("play", 0, 0), ("play", 1, 300)]  # the slap went with its clash
    assert stored.judged == [{"seat": 0, "kind": "play"}]


def test_a_batch_of_steps_of_several_games_reads_back_as_it_was_written(store: Store) -> None:
    """The step writer's batch (`append_steps_async`, one statement on PostgreSQL): every
    game's actions and judgements come back in order, exactly, a judgement's text included."""
    a_room(store, "ABCDEF")
    a_room(store, "GHIJKL")
    first, second = a_game(store, "ABCDEF"), a_game(store, "GHIJKL")
    late = 2**40  # a clock far past 32 bits
    entry = {"seat": 1, "kind": "slap", "name": "Zoë \"the\" ✋", "ms": [12.5, None]}

    async def write() -> None:  # in one event loop, as the step writer does
        await store.append_steps_async([
            StepRows(first, 0, [("play", 0, 0), ("burn", None, 5)], 0, []),
            StepRows(second, 0, [("slap", 1, late)], 0, [entry]),
            StepRows(first, 2, [("play", 1, 300)], 0, [{"seat": 1, "kind": "play"}]),
        ])
        await store.append_steps_async([])  # nothing to write: nothing written
        await store.close_async()

    asyncio.run(write())
    stored_first, stored_second = store.game_in_progress(first), store.game_in_progress(second)
    assert stored_first is not None and stored_second is not None
    assert stored_first.actions == [("play", 0, 0), ("burn", None, 5), ("play", 1, 300)]
    assert stored_first.judged == [{"seat": 1, "kind": "play"}]
    assert stored_second.actions == [("slap", 1, late)]
    assert stored_second.judged == [entry]


def test_a_finished_game_has_its_record_and_is_no_longer_in_progress(store: Store) -> None:
    a_room(store, "ABCDEF")
    game_id = a_game(store, "ABCDEF")
    assert store.game_record(game_id) is None and store.game_count() == 0
    record = {"format": "ratscrew-game", "actions": [["play", 0, 0]], "names": ["Ann", "Bot"]}
    store.finish_game(game_id, record, 0, "won", [result(0, "Ann", "hash-ann", True, (250,)),
                                                   result(1, "Bot", None, False, kind="bot")])
    assert store.game_record(game_id) == record
    assert store.game_in_progress(game_id) is None
    assert store.game_count() == 1
    assert store.game_record(game_id + 1000) is None


def test_statistics_count_people_not_bots_and_leave_out_anticipations(store: Store) -> None:
    a_room(store, "ABCDEF")
    for won, reactions in ((True, (250, 90, 300)), (False, (400,)), (True, ())):
        game_id = a_game(store, "ABCDEF")
        store.finish_game(game_id, {}, 0 if won else 1, "won",
                          [result(0, "Ann", "hash-ann", won, reactions),
                           result(1, "Casual bot", None, not won, (200,), kind="bot")])
    stats = player_stats(store, "hash-ann")
    assert stats == {"name": "Ann", "games": 3, "wins": 2, "win_rate": 0.667, "slaps": 4,
                     "misslaps": 0, "median_reaction_ms": 300, "best_reaction_ms": 250}
    assert player_stats(store, "hash-ann", "pagat")["games"] == 0
    assert player_stats(store, "nobody")["games"] == 0
    assert leaderboard(store, "classic") == []  # a guest (no player key) is never rated nor listed


def test_every_room_and_game_is_seen_by_a_second_store_on_the_same_database(opener: Opener,
                                                                            store: Store) -> None:
    if isinstance(store, SqliteStore):
        pytest.skip("one server process per SQLite file (its lock file refuses a second)")
    other = opener()
    a_room(store, "ABCDEF")
    game_id = a_game(store, "ABCDEF")
    store.finish_game(game_id, {"n": 1}, 0, "won", [result(0, "Ann", "a", True)])
    assert other.room_exists("ABCDEF") and other.game_record(game_id) == {"n": 1}
    assert player_stats(other, "a")["games"] == 1


def test_the_per_address_counters_are_shared_by_every_process_on_postgresql(opener: Opener,
                                                                            store: Store) -> None:
    counter = store.rate_counter("joins", 3, 60.0)
    if isinstance(store, SqliteStore):
        assert counter is None  # one process: the app counts in memory
        return
    other = opener().rate_counter("joins", 3, 60.0)
    assert counter is not None and other is not None
    assert [counter.allow("1.2.3.4", 0), other.allow("1.2.3.4", 0), counter.allow("1.2.3.4", 0)] \
        == [True, True, True]
    assert not other.allow("1.2.3.4", 0) and not counter.allow("1.2.3.4", 0)
    assert other.allow("5.6.7.8", 0)
    rooms = store.rate_counter("rooms", 3, 60.0)
    assert rooms is not None and rooms.allow("1.2.3.4", 0)  # another limit counts apart


def test_only_one_process_serves_a_shard(opener: Opener, store: Store) -> None:
    if isinstance(store, SqliteStore):
        store.claim("A")  # nothing to claim: the lock file keeps other servers off the file
        return
    store.claim("A")
    second = opener()
    with pytest.raises(StoreError, match="already serves shard A"):
        second.claim("A")
    second.claim("B")
    with pytest.raises(StoreError, match="already"):
        opener().claim(None)  # a server of every room cannot start beside shards
    store.close()
    opener().claim("A")  # released with its process


def test_an_unreachable_postgresql_is_a_clear_error_without_the_password() -> None:
    port = __import__("postgres").free_port()
    url = f"postgresql://ers:hunter2@127.0.0.1:{port}/ers"
    with pytest.raises(StoreError) as caught:
        PostgresStore(url)
    message = str(caught.value)
    assert f"postgresql://ers@127.0.0.1:{port}/ers" in message and "hunter2" not in message
    assert redact(url) == f"postgresql://ers@127.0.0.1:{port}/ers"


# ---------------------------------------------------------------------------------- players and ratings


def test_a_key_holds_its_latest_name_and_two_keys_never_hold_one_name(store: Store) -> None:
    ann = store.enter_player("key-ann", "Ann", "AnnPublic123")
    assert ann == PlayerRow("AnnPublic123", "Ann")
    again = store.enter_player("key-ann", "Annie", "UnusedId4567")  # a known key keeps its id
    assert again == PlayerRow("AnnPublic123", "Annie")
    bob = store.enter_player("key-bob", "Ann", "BobPublic123")  # Ann's old name is free again
    assert bob == PlayerRow("BobPublic123", "Ann")
    with pytest.raises(NameTaken):
        store.enter_player("key-eve", "ANNIE", "EvePublic123")  # another key holds it (any case)
    with pytest.raises(NameTaken):
        store.enter_player("key-bob", "annie", "UnusedId4567")
    assert store.player_by_key("key-eve") is None  # nothing changed
    assert store.player_by_key("key-bob") == PlayerRow("BobPublic123", "Ann")
    assert store.player("AnnPublic123") == PlayerRow("AnnPublic123", "Annie")
    assert store.player("nobody") is None
    for look_alike in ("\u0410nnie", "\u0391NNIE", "\uff21nnie"):  # Cyrillic А, Greek Α, full width
        with pytest.raises(NameTaken):  # issue 29: the same name by look (TR 39 skeleton)
            store.enter_player("key-eve", look_alike, "EvePublic123")
    assert store.player_by_key("key-eve") is None


def test_a_key_entered_while_the_event_loop_runs_holds_its_name_as_at_once(store: Store) -> None:
    """`enter_player_async` and `player_by_key_async` (a keyed join on PostgreSQL) read and
    write as the calls made at once: a new key, a rename, a clash that changes nothing."""

    async def in_a_loop() -> list[object]:
        seen: list[object] = [await store.player_by_key_async("key-ann")]
        seen.append(await store.enter_player_async("key-ann", "Ann", "AnnPublic123"))
        seen.append(await store.enter_player_async("key-ann", "Annie", "UnusedId4567"))
        for key, name in (("key-eve", "ANNIE"), ("key-eve", "\u0410nnie")):
            try:
                await store.enter_player_async(key, name, "EvePublic123")
            except NameTaken:
                seen.append("taken")
        seen.append(await store.player_by_key_async("key-ann"))
        seen.append(await store.player_by_key_async("key-eve"))
        await store.close_async()
        return seen

    assert asyncio.run(in_a_loop()) == [
        None, PlayerRow("AnnPublic123", "Ann"), PlayerRow("AnnPublic123", "Annie"), "taken",
        "taken", PlayerRow("AnnPublic123", "Annie"), None]
    assert store.player_by_key("key-eve") is None and store.player("AnnPublic123") == PlayerRow(
        "AnnPublic123", "Annie")


def test_the_server_id_is_made_once_and_kept(opener: Opener) -> None:
    first = opener()
    server_id = first.server_id()
    assert len(server_id) >= 16 and first.server_id() == server_id
    first.close()
    assert opener().server_id() == server_id


def a_rated_game(store: Store, seats: list[SeatResult], rules: str = "classic") -> int:
    game_id = a_game(store, "ABCDEF", rules)
    store.finish_game(game_id, {"n": game_id}, 0, "won", seats)
    return game_id


def fixed_rater(changes: dict[str, tuple[float, float]],
                seen: list[tuple[FinishedGame, dict[str, Rating]]] | None = None) -> Any:
    """A rater that moves each named participant to (mu, sigma) and puts seat 0 first."""
    def rate(game: FinishedGame, current: Any) -> GameRating:
        if seen is not None:
            seen.append((game, dict(current)))
        return GameRating(
            {r.seat: r.seat + 1 for r in game.results},
            {0: {"pair": [2, 0, 0], "none": [0, 0, 1]}},
            {name: RatingChange(current[name].mu if name in current else 25.0,
                                current[name].sigma if name in current else 8.0, mu, sigma)
             for name, (mu, sigma) in changes.items()})
    return rate


def test_a_game_is_rated_once_with_its_participants_current_ratings(store: Store) -> None:
    a_room(store, "ABCDEF")
    seats = [result(0, "Ann", "t-ann", True, (300,), player_id="AnnPublic123"),
             result(1, "Casual bot", None, False, (400, 420), kind="bot", bot="casual"),
             result(2, "Guest", "t-guest", False)]
    first = a_rated_game(store, seats)
    second = a_rated_game(store, seats)
    assert store.unrated_games() == [first, second]
    seen: list[tuple[FinishedGame, dict[str, Rating]]] = []
    moves = {"AnnPublic123": (28.0, 7.0), "bot:casual": (22.0, 7.5)}
    rating = store.rate_game(first, fixed_rater(moves, seen))
    assert rating is not None and set(rating.changes) == {"AnnPublic123", "bot:casual"}
    game, current = seen[0]
    assert game.game_id == first and game.rules_name == "classic" and game.record == {"n": first}
    assert [(r.player_id, r.bot) for r in game.results] == [("AnnPublic123", None), (None, "casual"),
                                                           (None, None)]
    assert current == {}  # nobody was rated before
    assert store.rate_game(first, fixed_rater({"AnnPublic123": (99.0, 1.0)})) is None  # never twice
    assert store.unrated_games() == [second]
    store.rate_game(second, fixed_rater({"AnnPublic123": (30.0, 6.0)}, seen))
    assert seen[1][1] == {"AnnPublic123": Rating(28.0, 7.0, 1), "bot:casual": Rating(22.0, 7.5, 1)}
    assert store.unrated_games() == []
    assert store.ratings_of("AnnPublic123") == [
        {"rules": "classic", "mu": 30.0, "sigma": 6.0, "games": 2, "rank": None}]  # not a player yet
    history = store.rating_history("AnnPublic123", "classic")
    assert [(h["game_id"], h["mu_before"], h["sigma_before"], h["mu_after"], h["sigma_after"])
            for h in history] == [(first, 25.0, 8.0, 28.0, 7.0), (second, 28.0, 7.0, 30.0, 6.0)]
    assert store.ratings_of("bot:casual")[0]["games"] == 1


def test_a_rating_that_fails_leaves_the_game_unrated_and_changes_nothing(store: Store) -> None:
    a_room(store, "ABCDEF")
    game_id = a_rated_game(store, [result(0, "Ann", "t", True, player_id="AnnPublic123")])

    def broken(game: FinishedGame, current: Any) -> GameRating:
        raise RuntimeError("the rater broke")

    with pytest.raises(RuntimeError):
        store.rate_game(game_id, broken)
    assert store.unrated_games() == [game_id] and store.ratings_of("AnnPublic123") == []
    assert store.rate_game(99_999, fixed_rater({})) is None  # no such game: nothing to rate


def test_the_leaderboard_ranks_rated_players_by_mu_minus_3_sigma_under_their_latest_name(
        store: Store) -> None:
    a_room(store, "ABCDEF")
    ids = {}
    for key, name in (("k-ann", "Ann"), ("k-bob", "Bob"), ("k-cy", "Cy")):
        ids[name] = store.enter_player(key, name, f"{name}Public12"[:12]).player_id
    seats = [result(0, "Ann", "t1", True, (300, 200), player_id=ids["Ann"]),
             result(1, "Bob", "t2", False, (250,), player_id=ids["Bob"]),
             result(2, "Cy", "t3", False, player_id=ids["Cy"]),
             result(3, "Guest", "t4", False), result(4, "Casual bot", None, False, kind="bot", bot="casual")]
    game_id = a_rated_game(store, seats)
    # Bob's mu is highest but his sigma is wide: mu - 3 sigma puts Cy (20 - 3) above him (30 - 18)
    store.rate_game(game_id, fixed_rater({ids["Ann"]: (40.0, 2.0), ids["Bob"]: (30.0, 6.0),
                                          ids["Cy"]: (20.0, 1.0), "bot:casual": (50.0, 1.0)}))
    store.enter_player("k-ann", "Ann B", "unused123456")
    board = leaderboard(store, "classic")
    assert [(p["rank"], p["name"], p["rating"], p["rating_sigma"], p["provisional"]) for p in board] == [
        (1, "Ann B", 34.0, 2.0, True), (2, "Cy", 17.0, 1.0, True), (3, "Bob", 12.0, 6.0, True)]
    ann = board[0]
    assert ann["player_id"] == ids["Ann"] and ann["games"] == 1 and ann["wins"] == 1
    assert ann["win_rate"] == 1.0 and ann["slaps"] == 2 and ann["median_reaction_ms"] == 250
    assert [p["name"] for p in leaderboard(store, "classic", limit=2)] == ["Ann B", "Cy"]
    assert leaderboard(store, "pagat") == []
    assert [r["rank"] for r in store.ratings_of(ids["Bob"])] == [3]


def test_a_ten_game_rating_is_no_longer_provisional(store: Store) -> None:
    a_room(store, "ABCDEF")
    player = store.enter_player("k-ann", "Ann", "AnnPublic123").player_id
    bots = {f"bot:{level}": (25.0, 5.0) for level in ("casual", "skilled", "expert")}
    for n in range(10):
        game_id = a_rated_game(store, [result(0, "Ann", "t", True, player_id=player),
                                       *(result(seat, "Bot", None, False, kind="bot", bot=level)
                                         for seat, level in enumerate(("casual", "skilled", "expert"), 1))])
        store.rate_game(game_id, fixed_rater({player: (25.0 + n, 5.0), **bots}))
        assert leaderboard(store, "classic")[0]["provisional"] == (n < 9)


def test_a_players_games_are_listed_newest_first_with_place_and_slaps_by_pattern(store: Store) -> None:
    a_room(store, "ABCDEF")
    player = store.enter_player("k-ann", "Ann", "AnnPublic123").player_id
    old = a_rated_game(store, [result(0, "Ann", "t", True, (310,), player_id=player),
                               result(1, "Bot", None, False, (280, 290), kind="bot", bot="casual")])
    store.rate_game(old, fixed_rater({player: (26.0, 8.0)}))
    new = a_rated_game(store, [result(0, "Ann", "t", False, (320, 330), player_id=player),
                               result(1, "Bot", None, True, kind="bot", bot="expert")], rules="pagat")
    games = store.player_games(player)
    assert [(g["id"], g["rules"], g["players"], g["won"], g["reactions"]) for g in games] == [
        (new, "pagat", 2, False, [320, 330]), (old, "classic", 2, True, [310])]
    assert games[0]["place"] is None and games[0]["patterns"] is None  # not rated yet
    assert games[1]["place"] == 1 and games[1]["patterns"] == {"pair": [2, 0, 0], "none": [0, 0, 1]}
    assert [g["id"] for g in store.player_games(player, limit=1)] == [new]
    assert store.player_games("nobody") == []
    assert store.bot_reactions() == {"casual": [280, 290]}  # the expert had no reactions
    assert store.bot_reactions(limit=1) == {"casual": [280]}


def test_a_result_stored_again_keeps_the_place_and_patterns_its_rating_found(store: Store) -> None:
    # a game's end may be stored twice (a restarted server finishing it again): the second write
    # updates the seat's figures and keeps what the rating added, on both databases
    a_room(store, "ABCDEF")
    player = store.enter_player("k-ann", "Ann", "AnnPublic123").player_id
    seats = [result(0, "Ann", "t", True, (310,), player_id=player),
             result(1, "Bot", None, False, (280,), kind="bot", bot="casual")]
    game_id = a_rated_game(store, seats)
    store.rate_game(game_id, fixed_rater({player: (26.0, 8.0)}))
    store.finish_game(game_id, {"n": game_id}, 0, "won",
                      [result(0, "Ann", "t", True, (310, 305), player_id=player), seats[1]])
    [game] = store.player_games(player)
    assert game["reactions"] == [310, 305]
    assert game["place"] == 1 and game["patterns"] == {"pair": [2, 0, 0], "none": [0, 0, 1]}


def test_a_stored_seat_names_its_keyed_player(store: Store) -> None:
    a_room(store, "ABCDEF")
    row = store.load_room("ABCDEF")
    assert row is not None and row.seats[0].player_id == "ann-public-1" and row.seats[1].player_id is None


def test_an_old_database_keeps_its_games_and_they_are_never_rated(
        version_1: tuple[str, Callable[[str], None]]) -> None:
    target, run = version_1
    run("INSERT INTO rooms VALUES ('ABCDEF', 0, 0, '{}', NULL, 'over', 1, 1)")
    run("INSERT INTO seats VALUES ('ABCDEF', 0, 'human', 'Ann', NULL, 'hash-ann')")
    run("INSERT INTO games (code, number, rules_name, start, clock_start, started_at, finished_at, "
        "status, winner, reason, record) VALUES ('ABCDEF', 1, 'classic', '{}', 0, 0, 1, 'over', 0, "
        "'won', '{}')")
    run("INSERT INTO results VALUES (1, 0, 'human', 'Ann', 'hash-ann', 1, 2, 0, '[300]')")
    store = open_store(target)
    try:
        assert store.schema_version == VERSION
        assert store.unrated_games() == []  # finished before ratings existed: never rated
        assert player_stats(store, "hash-ann")["games"] == 1 and leaderboard(store, "classic") == []
        row = store.load_room("ABCDEF")
        assert row is not None and row.seats == (SeatRow(0, "human", "Ann", None, "hash-ann", None),)
    finally:
        store.close()


SCHEMA_HISTORY = Path(__file__).parent / "schema_history"
"""The migrations as ratscrew shipped them, written by hand per database, before ratscrew/storage
derived them from one schema: old databases were made by these."""


@pytest.fixture(params=[(dialect, version) for dialect in ("sqlite", "postgresql") for version in (1, 2, 3)],
                ids=lambda p: f"{p[0]}-v{p[1]}")
def shipped(request: pytest.FixtureRequest,
            tmp_path: Path) -> Iterator[tuple[str, str, int, Callable[[str], list[tuple[Any, ...]]]]]:
    """A database made by the hand-written migrations up to a version, with a room and a
    finished game in it, and a way to query it."""
    dialect, version = request.param
    if dialect == "sqlite":
        target = str(tmp_path / "shipped.db")
        conn: Any = sqlite3.connect(target, isolation_level=None)
    else:
        import psycopg

        cluster: PostgresCluster = request.getfixturevalue("postgres_cluster")
        target = cluster.create_database()
        conn = psycopg.connect(target, autocommit=True)

    def query(sql: str) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in conn.execute(sql).fetchall()]

    conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    conn.execute(f"INSERT INTO schema_version VALUES ({version})")
    for number in range(1, version + 1):
        for statement in (SCHEMA_HISTORY / f"{dialect}-{number}.sql").read_text().split(";"):
            if statement.strip():
                conn.execute(statement)
    conn.execute("INSERT INTO rooms (code, created_at, updated_at, settings, host_hash, phase, "
                 "games_played, game_id) VALUES ('ABCDEF', 0, 0, '{}', NULL, 'over', 1, 1)")
    conn.execute("INSERT INTO games (code, number, rules_name, start, clock_start, started_at, "
                 "finished_at, status, winner, reason, record) VALUES ('ABCDEF', 1, 'classic', '{}', "
                 "0, 0, 1, 'over', 0, 'won', '{}')")
    conn.execute("INSERT INTO results (game_id, seat, kind, name, token_hash, won, slaps, misslaps, "
                 "reactions) VALUES (1, 0, 'human', 'Ann', 'hash-ann', 1, 2, 0, '[300]')")
    yield dialect, target, version, query
    conn.close()


def test_a_database_made_at_any_shipped_version_migrates_to_the_schema_written_once(
        shipped: tuple[str, str, int, Callable[[str], list[tuple[Any, ...]]]]) -> None:
    dialect, target, version, query = shipped
    store = open_store(target)
    try:
        assert store.schema_version == VERSION
        assert player_stats(store, "hash-ann")["games"] == 1 and store.game_record(1) == {}
        # a game finished before ratings existed (schema 1) is marked rated by migration 2
        assert store.unrated_games() == ([] if version == 1 else [1])
        store.finish_game(store.start_game("ABCDEF", 2, "classic", {}, 0.0), {}, 0, "won", [])
        assert store.game_count() == 2  # a new game's id follows the old ones
    finally:
        store.close()
    if dialect == "sqlite":
        tables = [r[0] for r in query("SELECT name FROM sqlite_master WHERE type = 'table' "
                                      "AND name NOT IN ('sqlite_sequence', 'schema_version')")]
        found = {t: [r[1] for r in query(f"PRAGMA table_info({t})")] for t in tables}
    else:
        found = {}
        for table, name in query("SELECT table_name, column_name FROM information_schema.columns "
                                 "WHERE table_schema = current_schema() AND table_name <> 'schema_version' "
                                 "ORDER BY table_name, ordinal_position"):
            found.setdefault(table, []).append(name)
    written = {t.name: [c.name for c in t.columns] for t in schema.metadata.sorted_tables
               if t.info.get("only") in (None, dialect)}
    assert found == written


def test_two_processes_rating_one_game_at_once_rate_it_once(opener: Opener, store: Store) -> None:
    if isinstance(store, SqliteStore):
        pytest.skip("one server process per SQLite file (its lock file refuses a second)")
    a_room(store, "ABCDEF")
    game_id = a_rated_game(store, [result(0, "Ann", "t", True, player_id="AnnPublic123"),
                                   result(1, "Bot", None, False, kind="bot", bot="casual")])
    stores = [store, opener(), opener(), opener()]
    answers: list[GameRating | None] = []
    start = threading.Barrier(len(stores))

    def rate(each: Store) -> None:
        start.wait()
        answers.append(each.rate_game(game_id, fixed_rater({"AnnPublic123": (27.0, 7.0),
                                                            "bot:casual": (23.0, 7.0)})))

    threads = [threading.Thread(target=rate, args=(each,)) for each in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(answers) == 4 and sum(answer is not None for answer in answers) == 1
    assert len(store.rating_history("AnnPublic123", "classic")) == 1
    assert store.ratings_of("bot:casual")[0]["games"] == 1


def test_a_closed_room_stays_closed_is_never_loaded_and_is_listed_only_when_asked(store: Store) -> None:
    a_room(store, "AAAAAA")
    a_room(store, "BBBBBB", phase="playing")
    assert store.close_room("AAAAAA") is True
    assert store.close_room("AAAAAA") is False  # already closed
    assert store.close_room("ZZZZZZ") is False  # no such room
    a_room(store, "AAAAAA", phase="over")  # a server that still held it saves it: it stays closed
    assert [row.code for row in store.load_rooms()] == ["BBBBBB"]
    assert store.closed_among(["AAAAAA", "BBBBBB", "ZZZZZZ"]) == {"AAAAAA"}
    assert [(r["code"], r["phase"]) for r in store.list_rooms()] == [("BBBBBB", "playing")]
    assert {(r["code"], r["phase"]) for r in store.list_rooms(include_closed=True)} == {
        ("AAAAAA", "closed"), ("BBBBBB", "playing")}


def test_the_rooms_asynchronous_calls_store_and_answer_as_the_others_do(store: Store) -> None:
    """What a server asks while its event loop runs (``…_async``: on PostgreSQL on a connection
    of the loop's own) reads and writes the same rows as the calls made at once."""

    async def in_a_loop() -> tuple[bool, bool, set[str], bool, bool]:
        await store.save_room_async("CCCCCC", {"rules": "classic"}, "hash-ann", "lobby", 0, None,
                                    SEATS)
        await store.add_member_async("CCCCCC", "hash-cat", "Cat")
        await store.add_kicked_async("CCCCCC", "hash-dan")
        answers = (await store.room_exists_async("CCCCCC"), await store.room_exists_async("ZZZZZZ"),
                   await store.closed_among_async(["CCCCCC", "ZZZZZZ"]),
                   await store.close_room_async("CCCCCC"), await store.close_room_async("CCCCCC"))
        await store.close_async()
        return answers

    exists, missing, closed_before, closed, again = asyncio.run(in_a_loop())
    assert (exists, missing, closed_before, closed, again) == (True, False, set(), True, False)
    row = store.load_room("CCCCCC")
    assert row is not None and row.phase == "closed" and row.host_hash == "hash-ann"
    assert [seat.name for seat in row.seats] == [seat.name for seat in SEATS]
    assert row.members.get("hash-cat") == "Cat"
    assert "hash-dan" in row.kicked
    assert store.closed_among(["CCCCCC"]) == {"CCCCCC"}


# ------------------------------------------------------------------ a ladder you can trust (issue 30)


def test_a_player_is_ranked_only_after_rated_games_against_three_different_opponents(
        store: Store) -> None:
    a_room(store, "ABCDEF")
    ann = store.enter_player("k-ann", "Ann", "AnnPublic123").player_id
    bob = store.enter_player("k-bob", "Bob", "BobPublic123").player_id
    for _ in range(3):  # three games against one other key: one opponent
        game_id = a_rated_game(store, [result(0, "Ann", "t1", True, player_id=ann),
                                       result(1, "Bob", "t2", False, player_id=bob)])
        store.rate_game(game_id, fixed_rater({ann: (30.0, 2.0), bob: (20.0, 2.0)}))
    assert leaderboard(store, "classic") == [] and store.ratings_of(ann)[0]["rank"] is None
    game_id = a_rated_game(store, [result(0, "Ann", "t1", True, player_id=ann),
                                   result(1, "Casual bot", None, False, kind="bot", bot="casual"),
                                   result(2, "Expert bot", None, False, kind="bot", bot="expert")])
    store.rate_game(game_id, fixed_rater({ann: (31.0, 2.0), "bot:casual": (20.0, 2.0),
                                          "bot:expert": (20.0, 2.0)}))
    # Bob has met only Ann, so he is not established: Ann's established opponents are the two bots
    assert leaderboard(store, "classic") == [] and store.ratings_of(ann)[0]["rank"] is None
    game_id = a_rated_game(store, [result(0, "Bob", "t2", True, player_id=bob),
                                   result(1, "Skilled bot", None, False, kind="bot", bot="skilled"),
                                   result(2, "Expert bot", None, False, kind="bot", bot="expert")])
    store.rate_game(game_id, fixed_rater({bob: (21.0, 2.0), "bot:skilled": (20.0, 2.0),
                                          "bot:expert": (20.0, 2.0)}))
    # now Bob has three opponents (Ann and two bot levels): both are ranked, Ann first
    assert [p["player_id"] for p in leaderboard(store, "classic")] == [ann, bob]
    assert store.ratings_of(ann)[0]["rank"] == 1 and store.ratings_of(bob)[0]["rank"] == 2


def test_a_flag_takes_the_player_off_the_board_and_takes_back_the_ratings_since_its_evidence(
        store: Store) -> None:
    a_room(store, "ABCDEF")
    ann = store.enter_player("k-ann", "Ann", "AnnPublic123").player_id
    bots = [result(seat, "Bot", None, False, kind="bot", bot=level)
            for seat, level in enumerate(("casual", "skilled", "expert"), 1)]
    moves = {"bot:casual": (20.0, 2.0), "bot:skilled": (20.0, 2.0), "bot:expert": (20.0, 2.0)}
    games = []
    for mu in (30.0, 31.0, 32.0):
        games.append(a_rated_game(store, [result(0, "Ann", "t1", True, player_id=ann), *bots]))
        store.rate_game(games[-1], fixed_rater({ann: (mu, 2.0), **moves}))
    assert [p["player_id"] for p in leaderboard(store, "classic")] == [ann]
    store.flag_player(ann, "classic", games[1], ["12 of 12 reactions were under 100 ms"], 12)
    assert store.integrity_flag(ann) == {"rules": "classic", "since_game": games[1],
                                         "flagged_at": store.integrity_flag(ann)["flagged_at"],  # type: ignore[index]
                                         "reasons": ["12 of 12 reactions were under 100 ms"],
                                         "checked_slaps": 12, "cleared_at": None}
    assert leaderboard(store, "classic") == []
    assert store.unrated_games() == games[1:]  # to be rated again, without her
    (classic,) = store.ratings_of(ann)
    assert (classic["mu"], classic["games"], classic["rank"]) == (30.0, 1, None)
    assert [h["game_id"] for h in store.rating_history(ann, "classic")] == games[:1]
    assert store.ratings_of("bot:casual")[0]["games"] == 1
    assert store.clear_flag(ann) and not store.clear_flag(ann)
    assert store.integrity_flag(ann)["cleared_at"] is not None  # type: ignore[index]
    for game_id in store.unrated_games():
        store.rate_game(game_id, fixed_rater({ann: (33.0, 2.0), **moves}))
    assert [p["player_id"] for p in leaderboard(store, "classic")] == [ann]
    assert store.clear_flag("NobodyPublic") is False


def test_quick_resignations_between_the_same_keys_are_counted_for_the_next_game(store: Store) -> None:
    a_room(store, "ABCDEF")
    ann = store.enter_player("k-ann", "Ann", "AnnPublic123").player_id
    bob = store.enter_player("k-bob", "Bob", "BobPublic123").player_id
    seats = [result(0, "Ann", "t1", True, player_id=ann), result(1, "Bob", "t2", False, player_id=bob)]
    seen: list[tuple[FinishedGame, dict[str, Rating]]] = []

    def quick(game: FinishedGame, current: Any) -> GameRating:
        seen.append((game, dict(current)))
        return GameRating({0: 1, 1: 2}, {}, {}, "farmed", quick_resign=True)

    for _ in range(3):
        store.rate_game(a_rated_game(store, seats), quick)
    assert [game.earlier_quick_resigns for game, _ in seen] == [0, 1, 2]
    assert [game.flagged for game, _ in seen] == [frozenset()] * 3
    assert [g["unrated"] for g in store.player_games(ann)] == ["farmed"] * 3
    store.flag_player(bob, "classic", 1, ["flat"], 20)
    store.rate_game(a_rated_game(store, seats), quick)
    assert seen[-1][0].flagged == frozenset({bob})


# ---------------------------------------------------------------------------------- arenas (issue 50)


def an_arena(store: Store, arena_id: str, starts_in: float = -60.0, minutes: float = 30.0,
             state: str = "open") -> ArenaRow:
    now = time.time()
    arena = ArenaRow(arena_id, "classic", 2, now + starts_in, now + starts_in + minutes * 60, now,
                     "AnnPublic123", state, None)
    store.create_arena(arena)
    return arena


def test_an_arena_is_stored_listed_until_long_after_its_end_and_cancelled_once(store: Store) -> None:
    running = an_arena(store, "arena-run")
    upcoming = an_arena(store, "arena-next", starts_in=3600)
    ended = an_arena(store, "arena-old", starts_in=-7200, minutes=30)
    assert store.arena("arena-run") == running and store.arena("nope") is None
    assert asyncio.run(store.arena_async("arena-next")) == upcoming
    assert [a.arena_id for a in store.list_arenas(ending_after=time.time() - 86400)] == [
        "arena-old", "arena-run", "arena-next"]
    assert [a.arena_id for a in store.list_arenas(ending_after=time.time())] == ["arena-run", "arena-next"]
    assert store.cancel_arena("arena-next") and not store.cancel_arena("arena-next")
    assert not store.cancel_arena("nope")
    assert [a.arena_id for a in store.list_arenas(ending_after=time.time())] == ["arena-run"]
    assert [a.arena_id for a in store.all_arenas()] == ["arena-next", "arena-run", "arena-old"]
    assert [a.arena_id for a in store.ended_arenas(time.time())] == ["arena-old"]
    assert ended.ends_at < time.time()


def test_an_arenas_results_are_its_rooms_games_that_started_before_its_end(store: Store) -> None:
    arena = an_arena(store, "arena-1")
    ann = store.enter_player("k-ann", "Ann", "AnnPublic123").player_id
    bob = store.enter_player("k-bob", "Bob", "BobPublic123").player_id
    a_room(store, "ARENA1")
    a_room(store, "OTHER1")
    store.add_arena_room("arena-1", "ARENA1")
    store.add_arena_room("arena-1", "ARENA1")  # recorded again: no change
    asyncio.run(store.add_arena_room_async("arena-1", "ARENA2"))
    assert store.arena_of_room("ARENA1") == "arena-1" and store.arena_of_room("OTHER1") is None
    seats = [result(0, "Ann", "t1", True, player_id=ann), result(1, "Bob", "t2", False, player_id=bob),
             result(2, "Bot", None, False, kind="bot", bot="casual")]
    first = a_game(store, "ARENA1")
    store.finish_game(first, {}, 0, "won", seats)
    store.finish_game(a_game(store, "OTHER1"), {}, 0, "won", seats)  # not the arena's room
    playing = a_game(store, "ARENA1")
    assert store.arena_games_playing("arena-1", arena.ends_at) == 1
    rows = store.arena_results("arena-1", arena.ends_at)
    assert [(r["game_id"], r["player_id"], r["name"], r["won"]) for r in rows] == [
        (first, ann, "Ann", True), (first, bob, "Bob", False)]  # keyed players only
    store.finish_game(playing, {}, 1, "won", [result(0, "Ann", "t1", False, player_id=ann),
                                              result(1, "Bob", "t2", True, player_id=bob)])
    assert store.arena_games_playing("arena-1", arena.ends_at) == 0
    counted = [r["game_id"] for r in store.arena_results("arena-1", arena.ends_at)]
    assert counted == [first, first, playing, playing]
    assert store.arena_results("arena-1", time.time() - 3600) == []  # started after such an end


def test_an_arena_is_finished_once_with_its_standings_and_they_show_for_its_players(store: Store) -> None:
    an_arena(store, "arena-1")
    an_arena(store, "arena-2")
    lines = [{"player_id": "AnnPublic123", "rank": 1, "name": "Ann", "score": 6, "games": 3, "wins": 3,
              "streak": 3},
             {"player_id": "BobPublic123", "rank": 2, "name": "Bob", "score": 0, "games": 3, "wins": 0,
              "streak": 0}]
    assert store.finish_arena("arena-1", lines)
    assert not store.finish_arena("arena-1", lines[:1])  # once: another process was first
    assert store.final_standings("arena-1") == lines
    finished = store.arena("arena-1")
    assert finished is not None and finished.state == "finished" and finished.finished_at is not None
    assert not store.cancel_arena("arena-1")
    assert store.player_arenas("BobPublic123") == [{
        "arena_id": "arena-1", "rules": "classic", "players": 2, "starts_at": finished.starts_at,
        "ends_at": finished.ends_at, "rank": 2, "entrants": 2, "score": 0, "games": 3, "wins": 0}]
    assert store.player_arenas("nobody") == []
