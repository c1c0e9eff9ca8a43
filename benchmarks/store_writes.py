"""What storing an accepted action costs: SQLite (the embedded default) beside PostgreSQL.

The room stores every step's actions before it shows them (persist before publish), one
``Store.append_actions`` call per step, usually one action. This times that call, one action at
a time, on a SQLite file (WAL, ``synchronous=NORMAL``) and on a throwaway PostgreSQL on loopback
(``tests/postgres.py``: Debian's ``initdb``/``pg_ctl``; default durability, ``synchronous_commit
= on``, but the cluster is made with ``fsync=off`` like the tests', so the figure is the round
trip and the server's work, not the disk's flush). It prints the wall time per call as the room
sees it (p50/p99) and, for PostgreSQL, the database's own CPU per action. Nothing is asserted.

Usage: ``.venv/bin/python benchmarks/store_writes.py [--actions N]`` (default 3,000).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from rich.progress import track

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from postgres import PostgresCluster
from server_load import percentile, tree_cpu_seconds

from ratscrew.server.store import SeatRow, SqliteStore, Store


def time_appends(store: Store, actions: int, label: str) -> list[float]:
    """Wall seconds of each one-action ``append_actions`` call on a fresh game."""
    store.save_room("BENCH1", {}, None, "playing", 0, None, [SeatRow(0, "human", "A", None, None)])
    game_id = store.start_game("BENCH1", 1, "classic", {}, 0.0)
    times = []
    for n in track(range(actions), description=label, transient=True):
        begin = time.perf_counter()
        store.append_actions(game_id, n, [("play", n % 4, n * 10)])
        times.append(time.perf_counter() - begin)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=3000, help="actions to store (default 3000)")
    args = parser.parse_args()
    if args.actions < 10:
        parser.error("--actions: at least 10")
    print(f"{'store':<32}{'p50 µs':>9}{'p99 µs':>9}{'mean µs':>9}{'DB CPU µs':>11}")
    with tempfile.TemporaryDirectory() as folder:
        sqlite = SqliteStore(Path(folder) / "bench.db")
        times = time_appends(sqlite, args.actions, "SQLite")
        sqlite.close()
    print(f"{'SQLite file (WAL, NORMAL)':<32}{percentile(times, .5) * 1e6:>9.0f}"
          f"{percentile(times, .99) * 1e6:>9.0f}{sum(times) / len(times) * 1e6:>9.0f}{'-':>11}")
    try:
        cluster = PostgresCluster()
        cluster.start()
    except RuntimeError as error:
        sys.exit(f"store_writes: PostgreSQL cannot start here: {error}")
    try:
        from ratscrew.server.pgstore import PostgresStore

        postgres = PostgresStore(cluster.create_database())
        assert cluster.pid is not None
        cpu_before = tree_cpu_seconds(cluster.pid)
        times = time_appends(postgres, args.actions, "PostgreSQL")
        cpu = tree_cpu_seconds(cluster.pid) - cpu_before
        postgres.close()
    finally:
        cluster.remove()
    print(f"{'PostgreSQL on loopback':<32}{percentile(times, .5) * 1e6:>9.0f}"
          f"{percentile(times, .99) * 1e6:>9.0f}{sum(times) / len(times) * 1e6:>9.0f}"
          f"{cpu / args.actions * 1e6:>11.0f}")


if __name__ == "__main__":
    main()
