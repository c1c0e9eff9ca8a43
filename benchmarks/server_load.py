"""Server load: how many rooms one ``ratscrew serve`` process keeps going at human pace.

Starts the server on loopback, then drives N rooms of four scripted websocket players each from
separate processes (so the load generator does not share the server's core): every player
answers pings at once, plays its card 300-800 ms after its turn comes, and slaps a double half
the time, 250-600 ms after it shows. After a ramp-up, it measures for T seconds and prints rooms,
sockets, messages per second each way, the latency from the server sending a state to the
client receiving it (p50/p95/p99, from the state's ``server_time_ms``: same machine, same
clock; this leaves out the wait before the state goes out, storing its step included), the
time from a player sending its play to the state that shows it reaching that player ("play
shown" p50/p95: the settling window, storing the step and sending it, all in), the server's
CPU (share of one core) and memory per room, the load generator's own CPU (when it nears the
cores left, the latencies measure the generator, not the server), and any connection lost.
With ``--json`` it also prints the store's share of "play shown": how long what the rooms sent
waited for its step to be stored (``publish_wait_p50_ms``/``_p99_ms``, read from the servers'
``ratscrew_publish_wait_seconds`` histogram before and after the measuring window and
interpolated within its buckets; null when a server's ``/metrics`` cannot be read, as through
nginx with ``--url``).

Usage: ``.venv/bin/python benchmarks/server_load.py [--rooms N | --sweep 50,100,200]
[--seconds T] [--processes P] [--json] [--keyed] [--shards S | --nginx | --url URL [--pids PID,...]]``.
``--keyed``: every player joins with a player key of its own, as the browser page does (each a
new player); by default they join as guests.

Past one process: ``--shards S`` starts a throwaway PostgreSQL, S shard processes and nginx with
the shipped routing (as the deployment tests do; needs Debian's postgresql and nginx) and drives
the rooms through nginx; the server figures are then the shards' together, and
``proxy_db_cpu_pct`` is what nginx and PostgreSQL (with their worker processes) used.
``--nginx`` puts the one SQLite process behind the same nginx, so that ``--shards 1`` can be
compared with it like for like (nginx's CPU is then ``proxy_db_cpu_pct``). ``--url``
drives a deployment that is already running (its limits on rooms and joins per address must be
raised, as every client comes from one address); give ``--pids`` (the shard processes) to get
the server's CPU figures. It prints figures (a table, or with ``--json`` one JSON
object per row); nothing is asserted. Every run is bounded and stops by itself.

``server_cpu_us_per_msg_out`` is the server's CPU time over the measuring window divided by the
messages its clients received in it: what one outgoing message costs the server, all its work
(the game, judging, storing, encoding, sending) included. ``benchmarks/ws_floor.py`` sets it
beside the same stack sending pre-encoded messages.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import socket
import statistics
import string
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from rich.progress import Progress
from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scripted import metric_samples, running_deployment, running_server, running_server_behind_nginx

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
KEY_LETTERS = string.ascii_letters + string.digits + "-_"
"""What a player key is made of (``--keyed``)."""


@dataclass
class WorkerReport:
    """What one load process saw while measuring."""

    latencies_ms: list[float] = field(default_factory=list)
    received: int = 0
    received_bytes: int = 0
    sent: int = 0
    sent_bytes: int = 0
    lost: int = 0
    rooms: int = 0
    sockets: int = 0
    failed_to_start: int = 0
    cpu_s: float = 0.0
    """CPU time this load process used while measuring."""
    stalled_room_latencies_ms: list[float] = field(default_factory=list)
    """Latencies seen by the players who kept reading in rooms with a stalled player."""
    stalled: int = 0
    stalled_closed: int = 0
    """Stalled connections (see ``--stalled``) and how many of them the server closed."""
    late_rooms: int = 0
    """Rooms still starting when the measuring began (their players are measured from when
    they start)."""
    deflated: int = 0
    """Connections on which the server agreed to per-message deflate (`negotiated_deflate`)."""
    play_shown_ms: list[float] = field(default_factory=list)
    """From a player sending its play to the state that shows it reaching it: the settling
    window, storing the step (persist before publish) and the sending, all in."""


class LoadPlayer:
    """One scripted player of a room (see the module docstring)."""

    def __init__(self, ws: ClientConnection, report: WorkerReport, rng: random.Random,
                 measuring: asyncio.Event, *, stalls: bool = False, room_stalled: bool = False) -> None:
        self.ws, self.report, self.rng, self.measuring = ws, report, rng, measuring
        self.stalls = stalls
        """This player stops reading (and answering) when the measuring starts: a dead client."""
        self.room_stalled = room_stalled
        """Someone else in this player's room stalls."""
        self.seat: int | None = None
        self.acted_version = -1
        self.slapped_version = -1
        self.play_sent: float | None = None
        """When this player's last play went out (ms), until a state shows it."""

    async def send(self, message: dict[str, Any]) -> None:
        text = json.dumps(message)
        await self.ws.send(text)
        if self.measuring.is_set():
            self.report.sent += 1
            self.report.sent_bytes += len(text)

    async def later(self, delay_ms: float, message: dict[str, Any]) -> None:
        await asyncio.sleep(delay_ms / 1000.0)
        # a connection that went away meanwhile is counted where it is read
        with contextlib.suppress(Exception):
            await self.send(message)
            if message["type"] == "play":
                self.play_sent = time.time() * 1000.0

    async def run(self, stop_at: float, tasks: set[asyncio.Task[None]]) -> None:
        try:
            async for raw in self.ws:
                received = time.time() * 1000.0
                message = json.loads(raw)
                kind = message["type"]
                if self.measuring.is_set() and self.stalls:
                    await self.stall(stop_at)
                    return
                if self.measuring.is_set():
                    self.report.received += 1
                    self.report.received_bytes += len(raw)
                if kind == "ping":
                    await self.send({"type": "pong", "id": message["id"]})
                elif kind == "welcome":
                    self.seat = message["seat"]
                elif kind == "state":
                    if self.measuring.is_set() and "server_time_ms" in message:
                        latency = received - message["server_time_ms"]
                        self.report.latencies_ms.append(latency)
                        if self.room_stalled:
                            self.report.stalled_room_latencies_ms.append(latency)
                    if self.play_sent is not None and any(
                            event["kind"] == "card_played" and event.get("seat") == self.seat
                            for event in message["events"]):
                        if self.measuring.is_set():
                            self.report.play_shown_ms.append(received - self.play_sent)
                        self.play_sent = None
                    self.react(message, tasks)
                elif kind == "game_over" and self.seat == 0:
                    tasks.add(asyncio.create_task(self.later(2000, {"type": "rematch"})))
                if time.monotonic() >= stop_at:
                    return
        except Exception:
            if time.monotonic() < stop_at:
                self.report.lost += 1

    async def stall(self, stop_at: float) -> None:
        """Read nothing until the end (the socket's small receive buffer fills, the server's
        sends to it block), then see whether the server closed the connection meanwhile."""
        self.report.stalled += 1
        await asyncio.sleep(max(0.0, stop_at - time.monotonic()))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(2.0):
                try:
                    async for _ in self.ws:
                        pass
                except Exception:
                    pass
                self.report.stalled_closed += 1  # the server ended it: nothing more to read

    def react(self, state: dict[str, Any], tasks: set[asyncio.Task[None]]) -> None:
        observation, version = state["observation"], int(state["version"])
        pile = observation["pile"]
        if observation["over"] or self.seat is None:
            return
        if len(pile) >= 2 and pile[-1][0] == pile[-2][0] and self.slapped_version < version \
                and self.rng.random() < 0.5:
            self.slapped_version = version
            reaction = self.rng.uniform(250, 600)
            task = asyncio.create_task(self.later(reaction, {"type": "slap", "reaction_ms": reaction,
                                                             "version": version}))
        elif observation["turn"] == self.seat and self.acted_version < version:
            self.acted_version = version
            pace = self.rng.uniform(300, 800)
            task = asyncio.create_task(self.later(pace, {"type": "play", "reaction_ms": pace,
                                                         "version": version}))
        else:
            return
        tasks.add(task)
        task.add_done_callback(tasks.discard)


def negotiated_deflate(ws: ClientConnection) -> bool:
    """Whether the server agreed to compress this connection's messages (the client offers
    per-message deflate; ``ratscrew serve`` declines it)."""
    response = ws.response
    return response is not None and "permessage-deflate" in response.headers.get(
        "Sec-WebSocket-Extensions", "")


async def open_socket(url: str, small_buffer: bool) -> ClientConnection:
    """A websocket to ``url``; with ``small_buffer`` its TCP receive buffer is 4 KiB and it
    queues one frame, so a client that stops reading pushes back on the server at once."""
    if not small_buffer:
        return await connect(url, open_timeout=30, max_size=2**20)
    host, port = url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
    return await connect(url, sock=sock, open_timeout=30, max_size=2**20, max_queue=1)


async def drive(url: str, rooms: int, ramp_s: float, seconds: float, seed: int,
                stalled: int = 0, keyed: bool = False, patience_s: float = 0.0) -> WorkerReport:
    """This process's share of the rooms: create, join, start, play, then measure (``keyed``:
    every player joins with a player key of its own, as the browser page does). The measuring
    starts at the ramp's end; ``patience_s`` waits up to that much longer for rooms still
    starting (a test that checks every room, on a machine busy enough to start them late)."""
    report = WorkerReport()
    rng = random.Random(seed)
    measuring = asyncio.Event()
    tasks: set[asyncio.Task[None]] = set()
    started = time.monotonic()
    stop_at = started + ramp_s + seconds
    runners: list[asyncio.Task[None]] = []
    sockets: list[ClientConnection] = []
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:

        async def start_room(index: int) -> None:
            # the rooms start spread over the first 70% of the ramp, each on its own
            await asyncio.sleep(ramp_s * 0.7 * index / max(1, rooms))
            try:
                response = await http.post("/api/rooms", json={"rules": "classic", "seats": 4,
                                                               "turn_timeout_ms": 10_000})
                if response.status_code != 201 and response.status_code != 200:
                    raise RuntimeError(f"POST /api/rooms answered {response.status_code}: "
                                       f"{response.text[:200]}")
                code = response.json()["code"]
                players = []
                room_stalls = index < stalled
                for seat in range(4):
                    stalls = room_stalls and seat == 3
                    ws = await open_socket(f"{url.replace('http', 'ws')}/ws/{code}", stalls)
                    sockets.append(ws)
                    report.deflated += negotiated_deflate(ws)
                    player = LoadPlayer(ws, report, rng, measuring, stalls=stalls,
                                        room_stalled=room_stalls and not stalls)
                    players.append(player)
                    runners.append(asyncio.create_task(player.run(stop_at, tasks)))
                    if keyed:  # a new player each, so a name of its own across the server
                        await player.send({"type": "join", "name": f"P{seed}-{index}-{seat}",
                                           "player_key": "".join(rng.choices(KEY_LETTERS, k=32))})
                    else:
                        await player.send({"type": "join", "name": f"P{seat}"})
                await asyncio.sleep(0.5)  # the four joins are in before the host starts
                await players[0].send({"type": "start"})
                report.rooms += 1
                report.sockets += 4
            except Exception as error:  # counted and reported, never fatal to the run
                report.failed_to_start += 1
                if report.failed_to_start <= 3:  # the first few say why; the count says the rest
                    print(f"a room failed to start: {error}", file=sys.stderr)

        # The measuring starts when the ramp ends even if some rooms are still starting (on a
        # busy machine they can take longer than the ramp): waiting for them used to start it
        # after its end, and a run measured nothing. Rooms late are counted (``late_rooms``).
        starting = asyncio.gather(*(start_room(i) for i in range(rooms)))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(starting),
                                   max(0.0, started + ramp_s + patience_s - time.monotonic()))
        await asyncio.sleep(max(0.0, started + ramp_s - time.monotonic()))
        measuring.set()
        report.late_rooms = rooms - report.rooms - report.failed_to_start
        cpu_start = time.process_time()
        await asyncio.sleep(max(0.0, stop_at - time.monotonic()))
        report.cpu_s = time.process_time() - cpu_start
        starting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await starting
    for ws in sockets:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(), 2)
    for runner in runners:
        runner.cancel()
    return report


def worker(url: str, rooms: int, ramp_s: float, seconds: float, seed: int, stalled: int,
           keyed: bool, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    out.put(asyncio.run(drive(url, rooms, ramp_s, seconds, seed, stalled, keyed)))


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of a process and its children (nginx's workers, PostgreSQL's backends)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(stat.parent.name) == pid or int(fields[1]) == pid:
                total += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return total


@dataclass(frozen=True)
class Target:
    """What the load is sent to: a URL, the server processes whose CPU and memory are measured
    (none: not measured), and helper processes (proxy, database) measured with their children."""

    url: str
    server_pids: tuple[int, ...] = ()
    helper_pids: tuple[int, ...] = ()
    metrics_urls: tuple[str, ...] = ()
    """The server processes' own URLs, whose ``/metrics`` are read."""


@contextlib.contextmanager
def target_of(shards: int, url: str | None, pids: tuple[int, ...],
              nginx: bool = False) -> Iterator[Target]:
    """A fresh single server (``shards`` 0; behind nginx with ``nginx``), a fresh deployment of
    ``shards`` shards behind nginx, or the running deployment at ``url``."""
    if url is not None:
        yield Target(url.rstrip("/"), pids, (), (url.rstrip("/"),))
    elif shards == 0 and nginx:
        with running_server_behind_nginx() as proxied:
            yield Target(proxied.url, proxied.shard_pids, (proxied.proxy_pid,), proxied.shard_urls)
    elif shards == 0:
        with running_server() as server:
            yield Target(server.url, (server.pid,), (), (server.url,))
    else:
        with running_deployment(shards) as deployment:
            yield Target(deployment.url, deployment.shard_pids,
                         (deployment.proxy_pid, deployment.database_pid), deployment.shard_urls)


Buckets = list[tuple[float, float]]
"""A histogram's buckets: each upper bound (seconds, the last ``inf``) with the count at or
below it."""


def publish_wait_buckets(urls: Sequence[str]) -> Buckets | None:
    """The ``ratscrew_publish_wait_seconds`` buckets of the servers at ``urls``, added up;
    ``None`` if one cannot be read (not a server, or a proxy that keeps ``/metrics`` to itself)."""
    totals: dict[float, float] = {}
    for url in urls:
        try:
            samples = metric_samples(url, timeout_s=5)
        except httpx.HTTPError:
            return None
        buckets = [s for s in samples if s.name == "ratscrew_publish_wait_seconds_bucket"]
        if not buckets:
            return None
        for sample in buckets:
            bound = float(sample.labels["le"])
            totals[bound] = totals.get(bound, 0.0) + sample.value
    return sorted(totals.items()) or None


def bucket_quantile(before: Buckets, after: Buckets, share: float) -> float:
    """The ``share`` quantile (in ms) of what went into the buckets between two readings,
    interpolated within its bucket as Prometheus's ``histogram_quantile`` does; NaN if nothing
    did. Past the last finite bound, that bound is all it can say.

    >>> before = [(0.001, 0), (0.003, 0), (float("inf"), 0)]
    >>> after = [(0.001, 50), (0.003, 100), (float("inf"), 100)]
    >>> bucket_quantile(before, after, 0.5), bucket_quantile(before, after, 0.99)
    (1.0, 2.96)
    >>> bucket_quantile(after, after, 0.5)
    nan
    """
    counts = [(bound, later - earlier) for (bound, later), (_, earlier) in zip(after, before, strict=True)]
    total = counts[-1][1] if counts else 0.0
    if total <= 0:
        return float("nan")
    rank = share * total
    lower_bound, lower_count = 0.0, 0.0
    for bound, count in counts:
        if count >= rank:
            if bound == float("inf"):
                return 1000 * lower_bound
            inside = (rank - lower_count) / (count - lower_count) if count > lower_count else 1.0
            return round(1000 * (lower_bound + (bound - lower_bound) * inside), 6)
        lower_bound, lower_count = bound, count
    return 1000 * lower_bound


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def run_once(rooms: int, seconds: float, processes: int, ramp_s: float, shards: int = 0,
             url: str | None = None, pids: tuple[int, ...] = (), stalled: int = 0,
             nginx: bool = False, keyed: bool = False) -> dict[str, float]:
    """One measurement: a fresh server (or deployment, see `target_of`), ``rooms`` rooms of four,
    ``ramp_s`` to start them, then ``seconds`` measured. The figures are keyed as in ``--json``
    (see :data:`JSON_KEYS`)."""
    with target_of(shards, url, pids, nginx) as server:
        def server_cpu() -> float:
            return sum(cpu_seconds(pid) for pid in server.server_pids)

        def helper_cpu() -> float:
            return sum(tree_cpu_seconds(pid) for pid in server.helper_pids)

        def server_rss() -> float:
            return sum(rss_mb(pid) for pid in server.server_pids) if server.server_pids else float("nan")

        base_rss = server_rss()
        out: multiprocessing.Queue[WorkerReport] = multiprocessing.Queue()
        shares = [rooms // processes + (1 if i < rooms % processes else 0) for i in range(processes)]
        stalled_shares = [stalled // processes + (1 if i < stalled % processes else 0)
                          for i in range(processes)]
        workers = [multiprocessing.Process(target=worker, args=(server.url, share, ramp_s, seconds, i,
                                                                stalled_shares[i], keyed, out))
                   for i, share in enumerate(shares) if share]
        for process in workers:
            process.start()
        with Progress(transient=True) as progress:
            task = progress.add_task(f"{rooms} rooms: ramp-up", total=ramp_s + seconds)
            begin = time.monotonic()
            while time.monotonic() - begin < ramp_s:
                time.sleep(0.5)
                progress.update(task, completed=time.monotonic() - begin)
            cpu_before, helpers_before, wall_before = server_cpu(), helper_cpu(), time.monotonic()
            waits_before = publish_wait_buckets(server.metrics_urls)
            progress.update(task, description=f"{rooms} rooms: measuring")
            while time.monotonic() - begin < ramp_s + seconds:
                time.sleep(0.5)
                progress.update(task, completed=time.monotonic() - begin)
            wall = time.monotonic() - wall_before
            cpu = (server_cpu() - cpu_before) / wall if server.server_pids else float("nan")
            helpers = (helper_cpu() - helpers_before) / wall if server.helper_pids else float("nan")
            rss = server_rss()
            waits_after = publish_wait_buckets(server.metrics_urls)
        reports = [out.get(timeout=60 + ramp_s + seconds) for _ in workers]
        for process in workers:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
    latencies = [x for r in reports for x in r.latencies_ms]
    shown = [x for r in reports for x in r.play_shown_ms]
    started = sum(r.rooms for r in reports)
    received = sum(r.received for r in reports)
    sent, sent_bytes = sum(r.sent for r in reports), sum(r.sent_bytes for r in reports)
    return {
        "rooms": started, "sockets": sum(r.sockets for r in reports),
        "lost": sum(r.lost for r in reports) + sum(r.failed_to_start for r in reports),
        "msgs_out_per_s": received / seconds,
        "msgs_in_per_s": sent / seconds,
        "p50_ms": percentile(latencies, .5), "p95_ms": percentile(latencies, .95),
        "p99_ms": percentile(latencies, .99),
        "mean_ms": statistics.fmean(latencies) if latencies else float("nan"),
        "server_cpu_pct": 100 * cpu, "load_cpu_pct": 100 * sum(r.cpu_s for r in reports) / seconds,
        "rss_mb": rss, "rss_mb_per_room": (rss - base_rss) / max(1, started),
        "server_cpu_us_per_msg_out": cpu * seconds / received * 1e6 if received else float("nan"),
        "bytes_per_msg_out": sum(r.received_bytes for r in reports) / received if received else float("nan"),
        "bytes_per_msg_in": sent_bytes / sent if sent else float("nan"),
        "shards": float(shards), "proxy_db_cpu_pct": 100 * helpers,
        "stalled": sum(r.stalled for r in reports),
        "stalled_closed": sum(r.stalled_closed for r in reports),
        "stalled_rooms_p99_ms": percentile([x for r in reports for x in r.stalled_room_latencies_ms], .99),
        "deflated_sockets": sum(r.deflated for r in reports),
        "late_rooms": sum(r.late_rooms for r in reports),
        "play_shown_p50_ms": percentile(shown, .5), "play_shown_p95_ms": percentile(shown, .95),
        "play_shown_p99_ms": percentile(shown, .99),
        **publish_wait_figures(waits_before, waits_after),
    }


def publish_wait_figures(before: Buckets | None, after: Buckets | None) -> dict[str, float]:
    """``publish_wait_p50_ms`` and ``publish_wait_p99_ms`` between two readings (NaN if either
    is missing or the servers' buckets changed between them)."""
    if before is None or after is None or [b for b, _ in before] != [b for b, _ in after]:
        return {"publish_wait_p50_ms": float("nan"), "publish_wait_p99_ms": float("nan")}
    return {"publish_wait_p50_ms": bucket_quantile(before, after, .5),
            "publish_wait_p99_ms": bucket_quantile(before, after, .99)}


JSON_KEYS = ("rooms", "sockets", "lost", "msgs_out_per_s", "msgs_in_per_s", "p50_ms", "p95_ms",
             "p99_ms", "server_cpu_pct", "rss_mb", "load_cpu_pct", "server_cpu_us_per_msg_out",
             "mean_ms", "rss_mb_per_room", "bytes_per_msg_out", "shards", "proxy_db_cpu_pct",
             "stalled", "stalled_closed", "stalled_rooms_p99_ms", "bytes_per_msg_in",
             "play_shown_p50_ms", "play_shown_p95_ms", "play_shown_p99_ms", "publish_wait_p50_ms",
             "publish_wait_p99_ms")
"""The fields of a ``--json`` row, in order (the first twelve are the benchmark's contract)."""


def json_row(figures: dict[str, float]) -> str:
    """One ``--json`` line: the figures rounded to what they can tell, NaN as null.

    >>> json_row({key: 1.23456 for key in JSON_KEYS})[:38]
    '{"rooms": 1, "sockets": 1, "lost": 1, '
    """
    whole = {"rooms", "sockets", "lost", "shards", "stalled", "stalled_closed"}
    row: dict[str, float | int | None] = {}
    for key in JSON_KEYS:
        value = figures[key]
        row[key] = None if value != value else (round(value) if key in whole else round(value, 2))
    return json.dumps(row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=50, help="rooms of four players (default 50)")
    parser.add_argument("--sweep", default=None, help="comma-separated room counts, each on a fresh server")
    parser.add_argument("--seconds", type=float, default=20.0, help="measuring time per run (default 20)")
    parser.add_argument("--ramp", type=float, default=None,
                        help="seconds to start the rooms before measuring (default: 5 + rooms/25)")
    parser.add_argument("--processes", type=int, default=2, help="load-generating processes (default 2)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object per row instead of a table (fields: "
                        + ", ".join(JSON_KEYS) + ")")
    parser.add_argument("--shards", type=int, default=0,
                        help="0 (default): one server process on SQLite; S: a throwaway PostgreSQL, "
                             "S shard processes and nginx in front, driven through nginx")
    parser.add_argument("--nginx", action="store_true",
                        help="with --shards 0: the one SQLite process behind nginx with the shipped "
                             "routing, driven through nginx (to compare with --shards 1 like for like)")
    parser.add_argument("--url", default=None,
                        help="drive a deployment that is already running at this URL instead")
    parser.add_argument("--pids", default="",
                        help="with --url: the shard processes' ids (comma-separated), to measure their CPU")
    parser.add_argument("--stalled", type=int, default=0, metavar="N",
                        help="in N of the rooms one player stops reading when the measuring starts "
                             "(a dead client with a 4 KiB receive buffer); the server should close it "
                             "and its room should not slow down (stalled / stalled_closed / "
                             "stalled_rooms_p99_ms)")
    parser.add_argument("--keyed", action="store_true",
                        help="every player joins with a player key of its own, as the browser page "
                             "does (each a new player: a server at --url must allow that many new "
                             "players an hour from one address)")
    args = parser.parse_args()
    try:
        pids = tuple(int(p) for p in args.pids.split(",") if p.strip())
    except ValueError:
        parser.error(f"--pids takes process ids separated by commas, not {args.pids!r}")
    gone = [pid for pid in pids if not Path(f"/proc/{pid}").exists()]
    if gone:
        parser.error(f"--pids: no process {', '.join(map(str, gone))} runs on this machine "
                     "(give the ids of the server processes behind --url)")
    if args.shards < 0 or (args.url is not None and args.shards):
        parser.error("--shards is a count (0 or more) and does not go with --url")
    if args.nginx and (args.shards or args.url is not None):
        parser.error("--nginx puts the one SQLite process behind nginx: it goes with neither "
                     "--shards (shards are behind nginx already) nor --url")
    try:
        counts = [int(c) for c in args.sweep.split(",")] if args.sweep else [args.rooms]
    except ValueError:
        parser.error(f"--sweep takes whole numbers separated by commas, not {args.sweep!r}")
    if any(count < 1 for count in counts) or args.seconds <= 0 or args.processes < 1:
        parser.error("rooms, --seconds and --processes must be positive")
    if not args.json:
        where = (args.url or ("one process (SQLite) behind nginx" if args.nginx
                              else "one process (SQLite)" if not args.shards
                              else f"{args.shards} shards behind nginx on PostgreSQL"))
        print(f"machine: {os.cpu_count()} cores; server and load generator share them; target: {where}")
        print(f"{'rooms':>6}{'sockets':>8}{'lost':>6}{'msg/s out':>11}{'msg/s in':>10}"
              f"{'p50 ms':>8}{'p95 ms':>8}{'p99 ms':>8}{'CPU %':>7}{'us/msg':>8}{'RSS MB':>8}"
              f"{'MB/room':>9}{'load CPU %':>11}{'nginx+PG CPU %':>15}"
              f"{'play shown p50':>15}{'p95 ms':>8}{'store wait p99':>15}")
    for rooms in counts:
        ramp = args.ramp if args.ramp is not None else 5 + rooms / 25
        try:
            figures = run_once(rooms, args.seconds, args.processes, ramp, args.shards, args.url, pids,
                               min(args.stalled, rooms), args.nginx, args.keyed)
        except RuntimeError as error:  # PostgreSQL or nginx missing or unable to start
            sys.exit(f"server_load: {error}")
        except FileNotFoundError as error:  # a --pids process ended while it was measured
            sys.exit(f"server_load: a server process ended during the run ({error.filename})")
        if args.json:
            print(json_row(figures), flush=True)
            continue
        print(f"{figures['rooms']:>6.0f}{figures['sockets']:>8.0f}{figures['lost']:>6.0f}"
              f"{figures['msgs_out_per_s']:>11.0f}{figures['msgs_in_per_s']:>10.0f}"
              f"{figures['p50_ms']:>8.1f}{figures['p95_ms']:>8.1f}{figures['p99_ms']:>8.1f}"
              f"{figures['server_cpu_pct']:>7.0f}{figures['server_cpu_us_per_msg_out']:>8.0f}"
              f"{figures['rss_mb']:>8.0f}{figures['rss_mb_per_room']:>9.2f}"
              f"{figures['load_cpu_pct']:>11.0f}{figures['proxy_db_cpu_pct']:>15.0f}"
              f"{figures['play_shown_p50_ms']:>15.1f}{figures['play_shown_p95_ms']:>8.1f}"
              f"{figures['publish_wait_p99_ms']:>15.1f}", flush=True)
        if figures["late_rooms"]:
            print(f"  {figures['late_rooms']:.0f} rooms were still starting when the measuring began "
                  "(a longer --ramp measures them all)", flush=True)
        if args.stalled:
            print(f"  stalled clients: {figures['stalled']:.0f}, closed by the server: "
                  f"{figures['stalled_closed']:.0f}; p99 of the others in their rooms: "
                  f"{figures['stalled_rooms_p99_ms']:.1f} ms", flush=True)


if __name__ == "__main__":
    main()
