"""The store contract: every test here runs against SQLite and against a real PostgreSQL (a
throwaway server, see ``postgres.py``), so the two `Store` implementations keep the same
behaviour: rooms and seats, games and their actions, records, statistics, leaderboards."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from postgres import PostgresCluster

from ratscrew.server.pgstore import PG_MIGRATIONS, PostgresStore, redact
from ratscrew.server.store import (
    MIGRATIONS,
    SeatResult,
    SeatRow,
    SqliteStore,
    Store,
    StoreError,
    open_store,
)

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


SEATS = (SeatRow(0, "human", "Ann", None, "hash-ann"), SeatRow(1, "bot", "Casual bot", "casual", None))


def a_room(store: Store, code: str, phase: str = "lobby", **changes: Any) -> None:
    options: dict[str, Any] = {"settings": {"rules": "classic", "seed": 3}, "host_hash": "hash-ann",
                               "phase": phase, "games_played": 0, "game_id": None, "seats": SEATS}
    options.update(changes)
    store.save_room(code, **options)


def a_game(store: Store, code: str, rules: str = "classic") -> int:
    return store.start_game(code, 1, rules, {"hands": ["7H", "3C"], "leader": 0}, 0.0)


def result(seat: int, name: str, token: str | None, won: bool, reactions: tuple[int, ...] = (),
           kind: str = "human") -> SeatResult:
    return SeatResult(seat, kind, name, token, won, len(reactions), 0, reactions)


def test_a_new_database_has_every_migration_and_both_dialects_have_the_same_ones(store: Store) -> None:
    assert store.schema_version == len(MIGRATIONS) == len(PG_MIGRATIONS)


def test_reopening_keeps_everything_and_migrates_nothing(opener: Opener) -> None:
    first = opener()
    a_room(first, "ABCDEF")
    first.close()
    again = opener()
    assert again.schema_version == len(MIGRATIONS)
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
    stats = store.player_stats("hash-ann")
    assert stats == {"name": "Ann", "games": 3, "wins": 2, "win_rate": 0.667, "slaps": 4,
                     "misslaps": 0, "median_reaction_ms": 300, "best_reaction_ms": 250}
    assert store.player_stats("hash-ann", "pagat")["games"] == 0
    assert store.player_stats("nobody")["games"] == 0
    assert [p["name"] for p in store.leaderboard("classic")] == ["Ann"]


def test_the_leaderboard_ranks_wins_then_win_rate_then_reaction_under_the_latest_name(
        store: Store) -> None:
    a_room(store, "ABCDEF")
    games: list[tuple[int, list[tuple[str, str, tuple[int, ...]]]]] = [  # (winner, seats)
        (0, [("Ann", "a", (300,)), ("Bob", "b", (200,))]),
        (1, [("Ann", "a", (300,)), ("Bob", "b", (200,))]),
        (0, [("Cy", "c", (500,)), ("Bob", "b", ())]),
        (0, [("Ann B", "a", ()), ("Dee", "d", ())]),
    ]
    for winner, seats in games:
        game_id = a_game(store, "ABCDEF")
        store.finish_game(game_id, {}, winner, "won",
                          [result(i, name, token, i == winner, reactions)
                           for i, (name, token, reactions) in enumerate(seats)])
    other = a_game(store, "ABCDEF", rules="pagat")
    store.finish_game(other, {}, 0, "won", [result(0, "Eve", "e", True)])
    board = store.leaderboard("classic")
    assert [(p["name"], p["wins"], p["games"]) for p in board] == [
        ("Ann B", 2, 3), ("Cy", 1, 1), ("Bob", 1, 3), ("Dee", 0, 1)]
    assert [p["name"] for p in store.leaderboard("classic", limit=2)] == ["Ann B", "Cy"]
    assert [p["name"] for p in store.leaderboard("pagat")] == ["Eve"]


def test_every_room_and_game_is_seen_by_a_second_store_on_the_same_database(opener: Opener,
                                                                            store: Store) -> None:
    if isinstance(store, SqliteStore):
        pytest.skip("one server process per SQLite file (its lock file refuses a second)")
    other = opener()
    a_room(store, "ABCDEF")
    game_id = a_game(store, "ABCDEF")
    store.finish_game(game_id, {"n": 1}, 0, "won", [result(0, "Ann", "a", True)])
    assert other.room_exists("ABCDEF") and other.game_record(game_id) == {"n": 1}
    assert [p["name"] for p in other.leaderboard("classic")] == ["Ann"]


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
