"""How soon a room plays again after PostgreSQL comes back (issue 47, item 8).

A real server process on a throwaway PostgreSQL (the tests' helpers, on loopback), one room of
two players in a game; the database is stopped for each ``--outages`` length in turn, a player's
card is refused (``unavailable``: the room pauses), the database is started again, and the
script prints the time from the database answering (a fresh connection succeeds, polled every
20 ms) to the players' ``resumed`` notice, and to the next card played being shown.

    python benchmarks/outage.py --outages 20,180,360

Before the fix the store asked through psycopg's pool, whose reconnect back-off grows with the
outage: the second public trial saw rooms resume 54–56 s after the database answered, after a
3-minute outage.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import psycopg

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))
from postgres import PostgresCluster  # noqa: E402
from serving import ServerProcess  # noqa: E402


def answering_at(url: str, started: float, until: float) -> float | None:
    """The first moment after ``started`` (monotonic) that a new connection to ``url`` works."""
    while time.monotonic() < until:
        try:
            with psycopg.connect(url, connect_timeout=2) as conn:
                conn.execute("SELECT 1")
            return time.monotonic()
        except psycopg.Error:
            time.sleep(0.02)
    return None


def one_outage(cluster: PostgresCluster, url: str, server: ServerProcess,
               seconds: float) -> tuple[float, float]:
    """Stop the database for ``seconds`` under a room in play; (to resumed, to a card shown)."""
    code = server.new_room(rules="classic", seats=2, turn_timeout_ms=60_000)
    ann, bob = server.player(code), server.player(code)
    ann.join("Ann")
    bob.join("Bob")
    ann.send({"type": "start"})
    turn = ann.wait_for("state")["observation"]["turn"]
    seats = {0: ann, 1: bob}
    cluster.stop()
    seats[turn].send({"type": "play"})
    seats[turn].wait_for("error", lambda m: m["code"] == "unavailable")
    back_at = time.monotonic() + seconds
    while time.monotonic() < back_at:  # the players stay, answering the server's pings
        for player in (ann, bob):
            player.poll(0.05)
    cluster.start()
    found: list[float | None] = []
    poller = threading.Thread(target=lambda: found.append(
        answering_at(url, time.monotonic(), time.monotonic() + 120)))
    poller.start()
    ann.wait_for("notice", lambda m: m["code"] == "resumed", timeout=600)
    resumed = time.monotonic()
    poller.join()
    answered = found[0]
    assert answered is not None, "the database never answered"
    seats[turn].send({"type": "play"})
    ann.wait_for("state", lambda m: m["observation"]["cards_played"] >= 1, timeout=60)
    shown = time.monotonic()
    ann.close()
    bob.close()
    return max(0.0, resumed - answered), shown - answered


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--outages", default="20,180", help="outage lengths in seconds (default 20,180)")
    parser.add_argument("--log", default="/tmp/ratscrew-outage.log", help="the server's log file")
    args = parser.parse_args()
    lengths = [float(x) for x in args.outages.split(",")]
    cluster = PostgresCluster()
    try:
        cluster.start()
        url = cluster.create_database()
        with ServerProcess(url, log=Path(args.log)) as server:
            print(f"{'outage':>8} {'resumed after':>14} {'card shown after':>17}"
                  "  (from the database answering)")
            for seconds in lengths:
                resumed, shown = one_outage(cluster, url, server, seconds)
                print(f"{seconds:>7.0f}s {resumed:>13.2f}s {shown:>16.2f}s", flush=True)
    finally:
        cluster.remove()
    return 0


if __name__ == "__main__":
    sys.exit(main())
