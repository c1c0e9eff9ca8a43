"""The floor under the room server: what the same websocket stack costs to carry its messages.

Runs ``benchmarks/server_load.py``'s measurement of ``ratscrew serve`` (rooms of four scripted
players), then starts a bare Starlette websocket app on the very uvicorn configuration
``ratscrew serve`` runs (``ratscrew.commands.serve.uvicorn_config``: the same sans-I/O websocket
protocol reading in batches, the same guarded HTTP protocol, no per-message deflate, and once
started the same garbage collector settings, ``ratscrew.server.ops.collector``) that does
nothing but send one pre-encoded text message of the same average size to the same number of
sockets, grouped in rooms of four: each room wakes at Poisson times, at the same rate of
messages per socket as the server run, and sends the same text to its four members, as a room
publishes one state to its audience; its clients send nothing. Both runs measure the server
process's CPU over the same window and divide it by the messages the clients received: the CPU
microseconds one outgoing message costs. It prints both figures, their ratio (the room server's
cost as a multiple of the floor), and how many connections of each server negotiated
per-message deflate (none on either: the client offers it, both decline).

``--two-way-floor`` also measures the floor carrying what the players sent the server: its
clients send text messages of the players' average size at Poisson times, at the same rate per
socket (plays, slaps and pongs, about two for every five messages out), and the bare app reads
each and drops it. What the room server costs above that floor is its own work (parsing and
judging what the players send, the game, storing, encoding), not the stack's; it is printed as
a second ratio. The table's ratio column stays the one against the send-only floor (the
floor of docs/online.md's ≤ 3× goal).

Usage: ``.venv/bin/python benchmarks/ws_floor.py [--rooms N] [--seconds T] [--repeat R]
[--compare DIR] [--two-way-floor] [--json]``. ``--compare DIR`` also measures the room server
of another checkout (the code before a change), alternating with this one in every round, so
before and after share the machine's load.
``--serve`` (internal) runs the bare app itself. It prints figures; nothing is asserted. Every
run is bounded and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import select
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import cpu_seconds, negotiated_deflate, rss_mb, run_once
from websockets.asyncio.client import ClientConnection, connect

ROOM_SIZE = 4
"""Sockets per room: the load benchmark's rooms seat four players."""


# ---------------------------------------------------------------------- the bare server


def serve(port: int, size: int, per_socket_rate: float) -> None:
    """Run the bare app: every group of four sockets is sent ``payload`` at random intervals
    averaging ``per_socket_rate`` messages a second per socket (Poisson arrivals, as states
    come at human pace)."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    from ratscrew.commands.serve import uvicorn_config
    from ratscrew.server.ops.collector import settle_collector
    from ratscrew.server.ws.transport import ConnectionLimits
    from ratscrew.server.ws.wsprotocol import SEND_NOW_EXTENSION

    payload = json.dumps({"type": "state", "pad": "x" * max(0, size - 27)})
    groups: list[list[WebSocket]] = [[]]

    async def room_loop(members: list[WebSocket]) -> None:
        rng = random.Random(id(members))
        while True:
            await asyncio.sleep(rng.expovariate(per_socket_rate))
            # the same bytes to every member, as a room publishes one state to its audience;
            # one after the other, the cheapest way this stack sends (no task per send; the
            # protocol's own write when the socket takes it now, as the room server does)
            for ws in list(members):
                send_now = ws.scope["extensions"].get(SEND_NOW_EXTENSION, {}).get("send")
                try:
                    if send_now is None or not send_now(payload):
                        await ws.send_text(payload)
                except Exception:
                    members.remove(ws)

    async def endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        group = groups[-1]
        group.append(websocket)
        if len(group) == ROOM_SIZE:
            asyncio.get_running_loop().create_task(room_loop(group))
            groups.append([])
        try:
            while True:
                await websocket.receive_text()
        except WebSocketDisconnect:
            with contextlib.suppress(ValueError):
                group.remove(websocket)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        settle_collector()  # as `ratscrew serve` does once started: the same collector settings
        yield

    app = Starlette(routes=[WebSocketRoute("/ws", endpoint)], lifespan=lifespan)
    listener = socket.socket()
    listener.bind(("127.0.0.1", port))
    print(f"listening on http://127.0.0.1:{listener.getsockname()[1]}", flush=True)
    # the server's own configuration; every client comes from 127.0.0.1, as in server_load.py
    limits = ConnectionLimits(connections_per_address=1_000_000)
    uvicorn.Server(uvicorn_config(app, limits, None)).run(sockets=[listener])


@dataclass
class FloorServer:
    url: str
    pid: int


@contextlib.contextmanager
def floor_server(size: int, per_socket_rate: float) -> Iterator[FloorServer]:
    """The bare app as a subprocess on a free loopback port."""
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--serve", "--size", str(size),
         "--rate", str(per_socket_rate)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        deadline, url = time.monotonic() + 30, None
        while url is None and time.monotonic() < deadline and process.poll() is None:
            ready, _, _ = select.select([process.stdout], [], [], 0.5)
            if ready:
                line = process.stdout.readline()
                if line.startswith("listening on "):
                    url = line.split()[-1]
        if url is None:
            raise RuntimeError("the bare websocket server did not start")
        yield FloorServer(url, process.pid)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


# ---------------------------------------------------------------------- its clients


@dataclass(frozen=True)
class Inbound:
    """What each client sends the floor: ``rate`` messages a second (Poisson times) of ``size``
    bytes each; a rate of 0 sends nothing."""

    size: int = 0
    rate: float = 0.0

    def text(self) -> str:
        """A client message of ``size`` bytes (at least its type).

        >>> len(Inbound(60, 1.0).text())
        60
        """
        return json.dumps({"type": "slap", "pad": "x" * max(0, self.size - 27)})


async def receive(url: str, sockets: int, ramp_s: float, seconds: float,
                  inbound: Inbound) -> tuple[int, int, float, int, int]:
    """Open ``sockets`` connections over ``ramp_s``, each sending ``inbound``, then count what
    arrives for ``seconds``: (messages, lost connections, this process's CPU seconds while
    measuring, connections that negotiated per-message deflate, messages sent)."""
    counted = 0
    sent = 0
    lost = 0
    deflated = 0
    measuring = False
    text = inbound.text()

    async def send_inbound(ws: ClientConnection, rng: random.Random) -> None:
        nonlocal sent
        while True:
            await asyncio.sleep(rng.expovariate(inbound.rate))
            await ws.send(text)
            if measuring:
                sent += 1

    async def one(index: int) -> None:
        nonlocal counted, lost, deflated
        await asyncio.sleep(ramp_s * 0.7 * index / max(1, sockets))
        sender: asyncio.Task[None] | None = None
        try:
            async with connect(url.replace("http", "ws") + "/ws", open_timeout=30, max_size=2**20) as ws:
                deflated += negotiated_deflate(ws)
                if inbound.rate > 0:
                    sender = asyncio.create_task(send_inbound(ws, random.Random(index)))
                async for _raw in ws:
                    if measuring:
                        counted += 1
        except Exception:
            if measuring:
                lost += 1
        finally:
            if sender is not None:
                sender.cancel()

    tasks = [asyncio.create_task(one(i)) for i in range(sockets)]
    await asyncio.sleep(ramp_s)
    measuring = True
    cpu = time.process_time()
    await asyncio.sleep(seconds)
    measuring = False
    cpu = time.process_time() - cpu
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return counted, lost, cpu, deflated, sent


def client_worker(url: str, sockets: int, ramp_s: float, seconds: float, inbound: Inbound,
                  out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    out.put(asyncio.run(receive(url, sockets, ramp_s, seconds, inbound)))


def run_floor(sockets: int, size: int, per_socket_rate: float, seconds: float, ramp_s: float,
              processes: int = 2, inbound: Inbound = Inbound()) -> dict[str, float]:
    """Measure the bare app, its clients sending ``inbound``: CPU per message sent, messages
    per second each way, memory."""
    with floor_server(size, per_socket_rate) as server:
        out: multiprocessing.Queue[tuple[int, int, float, int, int]] = multiprocessing.Queue()
        # whole rooms per process, so every group of four is filled
        rooms = sockets // ROOM_SIZE
        shares = [ROOM_SIZE * (rooms // processes + (1 if i < rooms % processes else 0))
                  for i in range(processes)]
        workers = [multiprocessing.Process(target=client_worker,
                                           args=(server.url, share, ramp_s, seconds, inbound, out))
                   for share in shares if share]
        for process in workers:
            process.start()
        time.sleep(ramp_s)
        cpu_before, wall_before = cpu_seconds(server.pid), time.monotonic()
        time.sleep(seconds)
        cpu = (cpu_seconds(server.pid) - cpu_before) / (time.monotonic() - wall_before)
        rss = rss_mb(server.pid)
        results = [out.get(timeout=60 + ramp_s + seconds) for _ in workers]
        for process in workers:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
    received = sum(r[0] for r in results)
    return {"sockets": sum(shares), "lost": sum(r[1] for r in results),
            "msgs_out_per_s": received / seconds, "server_cpu_pct": 100 * cpu, "rss_mb": rss,
            "msgs_in_per_s": sum(r[4] for r in results) / seconds,
            "load_cpu_pct": 100 * sum(r[2] for r in results) / seconds,
            "server_cpu_us_per_msg_out": cpu * seconds / received * 1e6 if received else float("nan"),
            "deflated_sockets": sum(r[3] for r in results)}


def floor_by_size(sockets: int, sizes_text: str, rate: float, seconds: float, ramp: float,
                  processes: int, parser: argparse.ArgumentParser) -> None:
    """Print the bare floor's CPU per message for each message size in ``sizes_text``."""
    try:
        sizes = [int(size) for size in sizes_text.split(",")]
    except ValueError:
        parser.error(f"--floor-sizes: whole numbers of bytes separated by commas, not {sizes_text!r}")
    if any(size < 2 for size in sizes) or rate <= 0:
        parser.error("--floor-sizes must be at least 2 bytes each and --rate positive")
    print(f"bare websocket floor, {sockets} sockets, {rate:g} messages a second per socket")
    print(f"{'bytes':>7}{'msg/s out':>10}{'lost':>6}{'CPU %':>7}{'us/msg':>8}")
    for size in sizes:
        figures = run_floor(sockets, size, rate, seconds, ramp, processes)
        print(f"{size:>7}{figures['msgs_out_per_s']:>10.0f}{figures['lost']:>6.0f}"
              f"{figures['server_cpu_pct']:>7.0f}{figures['server_cpu_us_per_msg_out']:>8.1f}",
              flush=True)


THIS_TREE = Path(__file__).resolve().parent.parent
"""The checkout this script belongs to."""


@contextlib.contextmanager
def source_tree(path: Path | None) -> Iterator[None]:
    """Servers started meanwhile run the code in ``path`` (a checkout of this repository, e.g.
    ``git worktree add /tmp/before main``); ``None``: this script's own checkout. Both the
    import path and the working directory are set: ``python -m ratscrew serve`` imports from
    its working directory before ``PYTHONPATH``."""
    tree = (path or THIS_TREE).resolve()
    saved, saved_cwd = os.environ.get("PYTHONPATH"), os.getcwd()
    os.environ["PYTHONPATH"] = str(tree)
    os.chdir(tree)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


ROW_KEYS = ("msgs_out_per_s", "lost", "server_cpu_pct", "server_cpu_us_per_msg_out", "rss_mb",
            "load_cpu_pct", "deflated_sockets", "msgs_in_per_s")
"""The figures printed for every server measured (and in every ``--json`` row)."""


def print_row(name: str, figures: dict[str, float], floor_us: float | None, as_json: bool) -> None:
    """One measured server: its figures and, for a room server, its ratio to the floor and p99."""
    ratio = figures["server_cpu_us_per_msg_out"] / floor_us if floor_us else float("nan")
    p99 = figures.get("p99_ms", float("nan"))
    if as_json:
        row = {"server": name, **{k: round(figures[k], 2) for k in ROW_KEYS}}
        if floor_us:
            row |= {"ratio": round(ratio, 2), "p99_ms": round(p99, 1)}
        print(json.dumps(row), flush=True)
        return
    print(f"{name:<32}{figures['msgs_out_per_s']:>10.0f}{figures['msgs_in_per_s']:>9.0f}"
          f"{figures['lost']:>6.0f}"
          f"{figures['server_cpu_pct']:>7.0f}{figures['server_cpu_us_per_msg_out']:>8.1f}"
          f"{figures['rss_mb']:>8.0f}{figures['load_cpu_pct']:>11.0f}"
          f"{figures['deflated_sockets']:>9.0f}{p99:>9.1f}"
          + (f"{ratio:>7.2f}x" if floor_us else ""), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=100, help="rooms of four players (default 100)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measuring time per run (default 20)")
    parser.add_argument("--processes", type=int, default=2, help="load-generating processes (default 2)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per server measured")
    parser.add_argument("--ramp", type=float, default=None,
                        help="seconds to start the rooms before measuring (default: 5 + rooms/25; "
                        "longer on a busy machine, so that every room plays while measured)")
    parser.add_argument("--compare", type=Path, metavar="DIR",
                        help="also measure the room server of another checkout (e.g. made with "
                        "'git worktree add /tmp/before main'), alternating with this one in every "
                        "round, so before and after share the machine's load")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of measurements (default 1); each: the room server(s), then "
                        "the floor at the message size and rate this round's room server had")
    parser.add_argument("--two-way-floor", action="store_true",
                        help="in every round, also measure the floor whose clients send what the "
                        "players sent the room server (as many messages per socket, as large), "
                        "and print the room server's cost over it")
    parser.add_argument("--floor-sizes", metavar="BYTES,...",
                        help="only the bare floor, once per message size (e.g. 150,700,2000), at "
                        "--rate messages a second per socket: does a smaller message cost less?")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=1000, help=argparse.SUPPRESS)
    parser.add_argument("--rate", type=float, default=2.0,
                        help="messages a second per socket for --floor-sizes (default 2)")
    args = parser.parse_args()
    if args.serve:
        serve(0, args.size, args.rate)
        return
    if args.rooms < 1 or args.seconds <= 0 or args.processes < 1 or args.repeat < 1:
        parser.error("--rooms, --seconds, --processes and --repeat must be positive")
    if args.compare is not None and not (args.compare / "ratscrew" / "__init__.py").is_file():
        parser.error(f"--compare: {args.compare} is not a checkout of ratscrew (no ratscrew/__init__.py)")
    ramp = args.ramp if args.ramp is not None else 5 + args.rooms / 25
    if ramp <= 0:
        parser.error("--ramp must be positive")
    if args.floor_sizes:
        floor_by_size(args.rooms * ROOM_SIZE, args.floor_sizes, args.rate, args.seconds, ramp,
                      args.processes, parser)
        return
    servers: list[tuple[str, Path | None]] = [("ratscrew serve (this tree)", None)]
    if args.compare is not None:
        servers.insert(0, (f"ratscrew serve ({args.compare.name})", args.compare))
    if not args.json:
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start; "
              f"servers and load generator share them")
        print(f"{args.rooms} rooms of {ROOM_SIZE}; deflate: connections that negotiated "
              "per-message deflate; ratio: CPU per message out over the round's floor")
    for round_number in range(1, args.repeat + 1):
        rooms = []
        for name, tree in servers:
            with source_tree(tree):
                rooms.append((name, run_once(args.rooms, args.seconds, args.processes, ramp)))
        last = rooms[-1][1]  # the floor sends what this tree's server sent
        size = round(last["bytes_per_msg_out"])
        sockets = max(1, last["sockets"])
        per_socket = last["msgs_out_per_s"] / sockets
        # and what the players sent it: the two-way floor's clients send as much, as often
        # (nothing, if the players sent nothing while measured)
        in_rate = last["msgs_in_per_s"] / sockets
        inbound = Inbound(round(last["bytes_per_msg_in"]), in_rate) if in_rate > 0 else Inbound()
        with source_tree(None):  # the floor runs this checkout's server configuration
            floor = run_floor(int(last["sockets"]), size, per_socket, args.seconds, ramp,
                              args.processes)
            two_way = (run_floor(int(last["sockets"]), size, per_socket, args.seconds, ramp,
                                 args.processes, inbound) if args.two_way_floor else None)
        floor_us = floor["server_cpu_us_per_msg_out"]
        if not args.json:
            print(f"round {round_number}: out {size} bytes a message, {per_socket:.2f} messages a "
                  f"second per socket; in {inbound.size} bytes, {inbound.rate:.2f} a second per "
                  f"socket; load average {os.getloadavg()[0]:.2f}")
            print(f"{'server':<32}{'msg/s out':>10}{'msg/s in':>9}{'lost':>6}{'CPU %':>7}"
                  f"{'us/msg':>8}{'RSS MB':>8}{'load CPU %':>11}{'deflate':>9}{'p99 ms':>9}"
                  f"{'ratio':>8}")
        for name, figures in rooms:
            print_row(name, figures, floor_us, args.json)
            if figures["late_rooms"] and not args.json:
                print(f"  ({figures['late_rooms']:.0f} rooms were still starting when the measuring "
                      "began: a longer --ramp measures them all)")
        print_row("bare websocket floor", floor, None, args.json)
        if two_way is not None:
            print_row("floor, players' messages too", two_way, None, args.json)
            if not args.json:
                this_name, this = rooms[-1]
                ratio = this["server_cpu_us_per_msg_out"] / two_way["server_cpu_us_per_msg_out"]
                print(f"  ({this_name} over the floor carrying the players' messages too: "
                      f"{ratio:.2f}x)")


if __name__ == "__main__":
    main()
