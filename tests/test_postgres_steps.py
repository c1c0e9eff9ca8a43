"""The step writer's PostgreSQL connection (`ratscrew.storage.postgres_steps.StepsConnection`),
against a real PostgreSQL: a statement's answer, awaited or called back, its failure as
psycopg's error, a connection PostgreSQL closes (idle or under a statement), a cancelled wait and
a parameter too big for one send; after each, the next statement runs on a new connection."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from ratscrew.storage.opening import open_store
from ratscrew.storage.postgres import PostgresStore
from ratscrew.storage.postgres_steps import StepsConnection
from ratscrew.storage.records import StepRows

SLEEP = "SELECT pg_sleep($1::float)"
"""A statement that takes as long as its parameter says."""

SEEN = "INSERT INTO seen VALUES (length($1))"
"""A statement that keeps its parameter's length."""


def terminate_others(url: str) -> int:
    """Close every other connection to ``url``'s database from PostgreSQL's side."""
    with psycopg.connect(url, autocommit=True) as admin:
        row = admin.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                            "WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchone()
    assert row is not None
    return int(row[0])


def test_a_statement_runs_and_one_that_fails_raises_psycopgs_error_and_the_next_reconnects(
        fresh_database: str) -> None:
    store = open_store(fresh_database)
    assert isinstance(store, PostgresStore)
    store.save_room("STEP", {}, None, "playing", 1, None, [])
    game_id = store.start_game("STEP", 1, "classic", {"rules": {}}, 0.0)

    async def write() -> None:
        await store.append_steps_async([StepRows(game_id, 0, [("play", 0, 100)], 0, [])])
        with pytest.raises(psycopg.errors.ForeignKeyViolation):  # psycopg's own class for it
            await store.steps_connection.execute(['[{"game_id":999999,"n":0,"kind":"play","seat":0,"at":1}]',
                                                  "[]"])
        await store.append_steps_async([StepRows(game_id, 1, [("slap", 1, 900)], 0, [{"seat": 1}])])
        await store.close_async()

    asyncio.run(write())
    stored = store.game_in_progress(game_id)
    assert stored is not None and [a[0] for a in stored.actions] == ["play", "slap"]
    assert store.steps_connection.connections == 2  # the failed one's connection was not reused
    store.close()


def test_a_connection_postgresql_closes_while_idle_is_noticed_and_replaced(fresh_database: str) -> None:
    steps = StepsConnection(fresh_database, SLEEP, 5)

    async def run() -> None:
        await steps.execute(["0"])
        assert terminate_others(fresh_database) >= 1
        for _ in range(100):  # the reader hears the close without a statement asking
            if steps._conn is None:
                break
            await asyncio.sleep(0.01)
        assert steps._conn is None
        await steps.execute(["0"])
        await steps.close()

    asyncio.run(run())
    assert steps.connections == 2


def test_a_connection_lost_under_a_statement_raises_operational_error(fresh_database: str) -> None:
    steps = StepsConnection(fresh_database, SLEEP, 5)

    async def run() -> None:
        await steps.execute(["0"])
        running = asyncio.create_task(steps.execute(["30"]))
        await asyncio.sleep(0.3)
        assert terminate_others(fresh_database) >= 1
        with pytest.raises(psycopg.OperationalError):
            await asyncio.wait_for(running, 10)
        await steps.execute(["0"])
        await steps.close()

    asyncio.run(run())
    assert steps.connections == 2


def test_a_cancelled_wait_drops_the_connection_and_the_next_statement_gets_a_new_one(
        fresh_database: str) -> None:
    steps = StepsConnection(fresh_database, SLEEP, 5)

    async def run() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(steps.execute(["30"]), 0.3)
        assert steps._conn is None
        await steps.execute(["0"])
        await steps.close()

    asyncio.run(run())
    assert steps.connections == 2


def test_a_parameter_bigger_than_the_socket_takes_at_once_is_sent_whole(fresh_database: str) -> None:
    steps = StepsConnection(fresh_database, SEEN, 5)
    big = "x" * 8_000_000

    async def run() -> None:
        await steps.execute([big])
        await steps.close()

    with psycopg.connect(fresh_database, autocommit=True) as admin:
        admin.execute("CREATE TABLE seen (n int)")
    asyncio.run(run())
    with psycopg.connect(fresh_database, autocommit=True) as admin:
        assert admin.execute("SELECT n FROM seen").fetchall() == [(8_000_000,)]


def test_a_started_statement_calls_back_from_the_reader_once_and_one_runs_at_a_time(
        fresh_database: str) -> None:
    steps = StepsConnection(fresh_database, SLEEP, 5)
    outcomes: list[Exception | None] = []

    async def run() -> None:
        assert not steps.ready  # no connection yet: `execute` makes it
        await steps.execute(["0"])
        assert steps.ready
        steps.start(["0.2"], outcomes.append)
        assert not steps.ready and outcomes == []  # sent; the answer comes later
        with pytest.raises(RuntimeError):
            steps.start(["0"], outcomes.append)
        for _ in range(300):
            if outcomes:
                break
            await asyncio.sleep(0.01)
        assert outcomes == [None] and steps.ready
        steps.start(["not a number"], outcomes.append)  # fails in PostgreSQL
        for _ in range(300):
            if len(outcomes) == 2:
                break
            await asyncio.sleep(0.01)
        await steps.execute(["0"])  # on a new connection
        await steps.close()

    asyncio.run(run())
    assert outcomes[0] is None and isinstance(outcomes[1], psycopg.errors.InvalidTextRepresentation)
    assert steps.connections == 2


def test_closing_the_connection_under_a_started_statement_tells_it(fresh_database: str) -> None:
    steps = StepsConnection(fresh_database, SLEEP, 5)
    outcomes: list[Exception | None] = []

    async def run() -> None:
        await steps.execute(["0"])
        steps.start(["2"], outcomes.append)
        await steps.close()

    asyncio.run(run())
    assert len(outcomes) == 1 and isinstance(outcomes[0], psycopg.OperationalError)
