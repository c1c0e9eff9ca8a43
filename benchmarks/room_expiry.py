"""Rooms end (a soak): thousands of rooms that go idle, and the server's memory coming back.

Starts a real ``ratscrew serve`` on loopback (a SQLite file in a temporary folder, the room limit
lifted), creates ``--rooms`` rooms over HTTP (bounded: one request at a time, loopback only) and
reads the server's resident memory from its own ``/metrics`` (``process_resident_memory_bytes``,
with ``ratscrew_rooms`` and ``ratscrew_rooms_closed_total``) before any room and at the peak.
Then a server with ``--idle-room-hours`` of a few seconds loads them all, and its memory is read
again once every room has closed; a last restart on the same database prints how many rooms it
loaded (none: a closed room is never reloaded). Nothing is asserted.

Usage: ``.venv/bin/python benchmarks/room_expiry.py [--rooms N] [--idle-seconds S]`` (default
3,000 rooms, closed once idle for 10 s).
"""

from __future__ import annotations

import argparse
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scripted import metric_samples

ADDRESS = re.compile(r"open (http://127\.0\.0\.1:\d+)/")


def start(database: Path, idle_s: float) -> tuple[subprocess.Popen[str], str]:
    """A ``ratscrew serve`` on a free loopback port; the process and its address."""
    process = subprocess.Popen(
        [sys.executable, "-m", "ratscrew", "serve", "--port", "0", "--db", str(database),
         "--rooms-per-hour", "1000000", "--idle-room-hours", repr(idle_s / 3600), "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if select.select([process.stdout], [], [], 0.5)[0]:
            found = ADDRESS.search(process.stdout.readline())
            if found:
                return process, found.group(1)
    process.kill()
    raise SystemExit("the server did not start")


def stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)


def scrape(url: str) -> dict[str, float]:
    """The unlabelled (or summed) samples of ``/metrics``."""
    values: dict[str, float] = {}
    for sample in metric_samples(url):
        values[sample.name] = values.get(sample.name, 0.0) + sample.value
    return values


def mib(value: float) -> str:
    return f"{value / 2**20:,.1f} MiB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=3000, help="rooms to create (default 3,000)")
    parser.add_argument("--idle-seconds", type=float, default=10.0,
                        help="--idle-room-hours, in seconds (default 10)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ratscrew-expiry-") as folder:
        database = Path(folder) / "ratscrew.db"
        process, url = start(database, 24 * 3600.0)  # the default: nothing closes while we create
        try:
            time.sleep(1.0)
            before = scrape(url)
            began = time.monotonic()
            with httpx.Client(timeout=30) as client:
                for n in range(args.rooms):
                    client.post(url + "/api/rooms", json={"rules": "classic", "seats": 4,
                                                          "bots": ["casual"] * 3}).raise_for_status()
                    if n % 500 == 499:
                        print(f"  {n + 1:,} rooms created", flush=True)
            created_s = time.monotonic() - began
            peak = scrape(url)
        finally:
            stop(process)
        # the same rooms, loaded by a server that closes them once idle for --idle-seconds
        process, url = start(database, args.idle_seconds)
        try:
            loaded = scrape(url)
            while scrape(url)["ratscrew_rooms"] > 0:
                time.sleep(1.0)
            time.sleep(2.0)
            after = scrape(url)
        finally:
            stop(process)
        process, url = start(database, args.idle_seconds)
        try:
            reloaded = scrape(url)["ratscrew_rooms"]
        finally:
            stop(process)
    print(f"{args.rooms:,} rooms created in {created_s:.1f} s; closed once idle for {args.idle_seconds:g} s")
    print(f"  resident memory before any room: {mib(before['process_resident_memory_bytes'])}")
    grown = peak["process_resident_memory_bytes"] - before["process_resident_memory_bytes"]
    print(f"  at the peak ({peak['ratscrew_rooms']:,.0f} rooms in memory): "
          f"{mib(peak['process_resident_memory_bytes'])} (+{grown / args.rooms / 1024:,.1f} KiB a room)")
    print(f"  a restart loading them ({loaded['ratscrew_rooms']:,.0f} rooms): "
          f"{mib(loaded['process_resident_memory_bytes'])}")
    print(f"  after they closed ({after['ratscrew_rooms_closed_total']:,.0f} closed, "
          f"{after['ratscrew_rooms']:,.0f} in memory): {mib(after['process_resident_memory_bytes'])}")
    print(f"  rooms loaded by a restart on the same database: {reloaded:,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
