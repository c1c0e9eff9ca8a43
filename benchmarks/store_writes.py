"""What storing an accepted action costs: SQLite (the embedded default) beside PostgreSQL.

The room stores every step before it shows it (persist before publish), one
``Store.append_step`` call per step, usually one action (and, for a person's action, its
judgement). This times ``append_actions`` (one action) and ``append_step`` (one action and its
judgement) one call at a time, on a SQLite file (WAL, ``synchronous=NORMAL``) and on a
throwaway PostgreSQL on loopback (``tests/postgres.py``: Debian's ``initdb``/``pg_ctl``;
default durability, ``synchronous_commit = on``, but the cluster is made with ``fsync=off``
like the tests', so the figure is the round trip and the server's work, not the disk's flush).
It prints the wall time per call as the room sees it (p50/p99) and, for PostgreSQL, the
database's own CPU per call; and what compiling a statement with SQLAlchemy costs beside the
compiled text the store keeps and reuses (`ratscrew.storage.sql`). Then the step writer's batch
(``append_steps_async``, eight steps of random games a call, as a loaded server gathers them):
its wall time, the database's CPU, and this process's own CPU per batch, which a server spends
on its event loop. Nothing is asserted.

Usage: ``.venv/bin/python benchmarks/store_writes.py [--actions N] [--batches N]`` (defaults
3,000 and 1,500).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

from rich.progress import track

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from postgres import PostgresCluster
from server_load import percentile, tree_cpu_seconds

from ratscrew.storage import schema
from ratscrew.storage.records import SeatRow, StepRows
from ratscrew.storage.roles import Store
from ratscrew.storage.sql import Compiler, rows_insert
from ratscrew.storage.sqlite import SqliteStore


def a_fresh_game(store: Store, code: str) -> int:
    """A room ``code`` with one seat and a classic game started in it; the game's id."""
    store.save_room(code, {}, None, "playing", 0, None, [SeatRow(0, "human", "A", None, None)])
    return store.start_game(code, 1, "classic", {}, 0.0)


def time_appends(store: Store, actions: int, label: str, code: str = "BENCH1") -> list[float]:
    """Wall seconds of each one-action ``append_actions`` call on a fresh game."""
    game_id = a_fresh_game(store, code)
    times = []
    for n in track(range(actions), description=label, transient=True):
        begin = time.perf_counter()
        store.append_actions(game_id, n, [("play", n % 4, n * 10)])
        times.append(time.perf_counter() - begin)
    return times


JUDGED = {"seat": 1, "kind": "slap", "sent": 1200, "arrived": 1260, "at": 1230, "rtt": 60}
"""A typical judgement of a person's slap (docs/protocol.md, "judging")."""


def time_steps(store: Store, actions: int, label: str, code: str = "BENCH2") -> list[float]:
    """Wall seconds of each ``append_step`` call (one action and its judgement: a person's
    slap, the room's hot write) on a fresh game."""
    game_id = a_fresh_game(store, code)
    times = []
    for n in track(range(actions), description=label, transient=True):
        begin = time.perf_counter()
        store.append_step(game_id, n, [("slap", n % 4, n * 10)], n, [JUDGED])
        times.append(time.perf_counter() - begin)
    return times


BATCH_STEPS = 8
"""Steps per batch in `time_batches`: about what the step writer gathers per batch at 500 rooms
(``ratscrew_store_seconds_count`` against the steps stored)."""


def time_batches(store: Store, batches: int, label: str, games: int = 100) -> tuple[list[float], float]:
    """Wall seconds of each `append_steps_async` call (the step writer's batch: `BATCH_STEPS`
    steps of random games among ``games``, a card or a slap with its judgement each), and this
    process's CPU seconds per call."""
    game_ids = [a_fresh_game(store, f"BATCH{number:03d}") for number in range(games)]
    rng = random.Random(1)
    actions = dict.fromkeys(game_ids, 0)
    judged = dict.fromkeys(game_ids, 0)

    def batch() -> list[StepRows]:
        steps = []
        for _ in range(BATCH_STEPS):
            game_id = rng.choice(game_ids)
            slap = rng.random() < 0.4
            step = (StepRows(game_id, actions[game_id], [("slap", 1, 950)], judged[game_id], [JUDGED])
                    if slap else StepRows(game_id, actions[game_id], [("play", 0, 900)], judged[game_id], []))
            actions[game_id] += 1
            judged[game_id] += slap
            steps.append(step)
        return steps

    async def write_all() -> tuple[list[float], float]:
        times = []
        cpu = time.process_time()
        for _ in track(range(batches), description=label, transient=True):
            steps = batch()
            begin = time.perf_counter()
            await store.append_steps_async(steps)
            times.append(time.perf_counter() - begin)
        cpu = time.process_time() - cpu
        await store.close_async()
        return times, cpu / batches

    return asyncio.run(write_all())


def row(label: str, times: list[float], cpu_us: float | None = None) -> str:
    """One line of the table."""
    shown = "-" if cpu_us is None else f"{cpu_us:.0f}"
    return (f"{label:<40}{percentile(times, .5) * 1e6:>9.0f}{percentile(times, .99) * 1e6:>9.0f}"
            f"{sum(times) / len(times) * 1e6:>9.0f}{shown:>11}")


def compile_costs(calls: int = 20_000) -> tuple[float, float]:
    """Microseconds per SQLAlchemy compile of a step's insert for SQLite, and per lookup of the
    compiled text the store keeps instead (`ratscrew.storage.sql.Compiler`)."""
    table = schema.actions
    statement = rows_insert(table, ("game_id", "n", "kind", "seat", "at"), 1)
    compiler = Compiler("sqlite")
    params = {"actions_game_id_0": 1, "actions_n_0": 0, "actions_kind_0": "slap",
              "actions_seat_0": 1, "actions_at_0": 10}
    begin = time.perf_counter()
    for _ in range(calls // 20):
        statement.compile(dialect=schema.dialect("sqlite"))
    compiling = (time.perf_counter() - begin) / (calls // 20) * 1e6
    begin = time.perf_counter()
    for _ in range(calls):
        compiler.sql(statement, params)
    return compiling, (time.perf_counter() - begin) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=3000, help="actions to store (default 3000)")
    parser.add_argument("--batches", type=int, default=1500,
                        help=f"batches of {BATCH_STEPS} steps for append_steps_async (default 1500)")
    args = parser.parse_args()
    if args.actions < 10 or args.batches < 10:
        parser.error("--actions and --batches: at least 10")
    compiling, cached = compile_costs()
    print(f"SQLAlchemy: compiling a step's insert {compiling:.0f} µs; the compiled text the store "
          f"keeps {cached:.1f} µs a call")
    print(f"{'store and call':<40}{'p50 µs':>9}{'p99 µs':>9}{'mean µs':>9}{'DB CPU µs':>11}")
    with tempfile.TemporaryDirectory() as folder:
        sqlite = SqliteStore(Path(folder) / "bench.db")
        times = time_appends(sqlite, args.actions, "SQLite")
        steps = time_steps(sqlite, args.actions, "SQLite steps")
        batches, sqlite_batch_cpu = time_batches(sqlite, args.batches, "SQLite batches")
        sqlite.close()
    print(row("SQLite (WAL, NORMAL) append_actions", times))
    print(row("SQLite (WAL, NORMAL) append_step", steps))
    print(row(f"SQLite batch of {BATCH_STEPS} steps", batches))
    try:
        cluster = PostgresCluster()
        cluster.start()
    except RuntimeError as error:
        sys.exit(f"store_writes: PostgreSQL cannot start here: {error}")
    try:
        from ratscrew.storage.postgres import PostgresStore

        postgres = PostgresStore(cluster.create_database())
        assert cluster.pid is not None
        cpu_before = tree_cpu_seconds(cluster.pid)
        times = time_appends(postgres, args.actions, "PostgreSQL")
        cpu = tree_cpu_seconds(cluster.pid) - cpu_before
        steps = time_steps(postgres, args.actions, "PostgreSQL steps")
        step_cpu = tree_cpu_seconds(cluster.pid) - cpu_before - cpu
        cpu_before = tree_cpu_seconds(cluster.pid)
        pg_batches, pg_batch_cpu = time_batches(postgres, args.batches, "PostgreSQL batches")
        batch_db_cpu = tree_cpu_seconds(cluster.pid) - cpu_before
        postgres.close()
    finally:
        cluster.remove()
    print(row("PostgreSQL (loopback) append_actions", times, cpu / args.actions * 1e6))
    print(row("PostgreSQL (loopback) append_step", steps, step_cpu / args.actions * 1e6))
    print(row(f"PostgreSQL batch of {BATCH_STEPS} steps", pg_batches, batch_db_cpu / args.batches * 1e6))
    print(f"this process's CPU per batch of {BATCH_STEPS} steps (the server's, on its event loop): "
          f"SQLite {sqlite_batch_cpu * 1e6:.0f} µs, PostgreSQL {pg_batch_cpu * 1e6:.0f} µs")


if __name__ == "__main__":
    main()
