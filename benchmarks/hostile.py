"""Hostile floods against a real ``ratscrew serve`` (issue 29): what one address can do, and what
it costs the server and a bystander.

Starts a server on loopback with its default limits (and, as in the issue, at most 1,024 open
files: ``--server-files``), seats a bystander (a normal client in a
separate process, from 127.0.0.1) who measures round trips all along (``ready`` → ``room``), and
runs one flood after another from other loopback addresses (127.0.0.2 and up: Linux routes all of
127.0.0.0/8 to loopback, so each is another "client address"):

1. **ping flood**: one websocket writes ping frames (125-byte payloads) as fast as it can and
   never reads;
2. **websockets**: 1,500 websockets from one address;
3. **slow connections**: 1,000 connections with half-sent request headers and 200 that send
   nothing (spread over six addresses, so that the cap on open connections does not end them
   first), held until the server closes them;
4. **unknown codes**: 300 lookups of random room codes and 300 websockets to them;
5. **history**: 40 watchers asking for the whole history 15 times a second for 10 s;
6. **toml** (issue 47): rulesets nested 4,000 deep to ``/api/rooms``, ``/api/lab`` and ``configure``;
7. **headers**: requests with a 100 KB header or 2,000 headers;
8. **lobby**: 520 joins from 20 addresses to one two-seat room, then 300 watchers;
9. **lab**: a maximal lab job, a host configuring 30 different rules, then a 100-game job from
   another address (how long it waits and what it says meanwhile).

For each it prints the server's memory (RSS from /proc: before, peak, after), the bystander's
round trips (median and worst) during the flood and its median in the 2 s after, and what the
server closed or refused. Every flood is bounded in count and time, stays on loopback and stops by itself.

With ``--profile DIR`` each flood is sampled by py-spy (``pip install py-spy``; 100 samples a
second on the server process, with idle samples left out) into ``DIR/NAME.txt``, one collapsed
stack a line with its count, and the functions where the samples were (own time and with the
functions they call) are printed after the flood.

Usage: ``.venv/bin/python benchmarks/hostile.py [--only NAME ...] [--json] [--profile DIR]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import re
import resource
import select
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx

TESTS = Path(__file__).resolve().parent.parent / "tests"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
from raw_clients import (  # noqa: E402
    BIG_PING,
    close_code,
    closed_within,
    open_raw,
    raw_websocket,
    read_frames,
    rss_mb,
    text_frame,
)

ADDRESS = re.compile(r"open (http://127\.0\.0\.1:(\d+)/)")


@dataclass
class Server:
    """The server under attack."""

    url: str
    port: int
    pid: int
    log: Path

    def log_count(self, text: str) -> int:
        """How many log lines hold ``text``."""
        return sum(1 for line in self.log.read_text(errors="replace").splitlines() if text in line)


@contextlib.contextmanager
def running_server(folder: Path) -> Iterator[Server]:
    """``ratscrew serve`` with its default limits on a free loopback port."""
    log = folder / "server.log"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "ratscrew", "serve", "--port", "0", "--db", str(folder / "h.db"),
             "--log-level", "info"], stdout=subprocess.PIPE, stderr=stderr, text=True)
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], 0.5)
            if ready and (found := ADDRESS.search(process.stdout.readline())):
                yield Server(found.group(1).rstrip("/"), int(found.group(2)), process.pid, log)
                return
            if process.poll() is not None:
                break
        raise RuntimeError(f"the server did not start: {log.read_text()[-2000:]}")
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


# ---------------------------------------------------------------------- the bystander


def bystander(url: str, code: str, pipe: Connection) -> None:
    """A normal client in its own process: joins ``code`` and measures ``ready`` → ``room``
    round trips every 100 ms until told to stop; sends back ``(time, ms)`` pairs (``ms`` is
    ``None`` for a round trip that failed)."""
    from websockets.sync.client import connect

    samples: list[tuple[float, float | None]] = []
    with connect(url.replace("http://", "ws://") + f"/ws/{code}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "join", "name": "Bystander"}))
        ready = False
        while not pipe.poll():
            ready = not ready
            sent = time.monotonic()
            ws.send(json.dumps({"type": "ready", "ready": ready}))
            got: float | None = None
            deadline = sent + 10
            while time.monotonic() < deadline:
                try:
                    message = json.loads(ws.recv(timeout=deadline - time.monotonic()))
                except TimeoutError:
                    break
                if message["type"] == "ping":
                    ws.send(json.dumps({"type": "pong", "id": message["id"]}))
                elif message["type"] == "room":
                    seats = message.get("seats", [])
                    if seats and seats[0].get("ready") == ready:
                        got = (time.monotonic() - sent) * 1000.0
                        break
            samples.append((time.time(), got))
            time.sleep(0.1)
    pipe.send(samples)


@dataclass
class Report:
    """One flood's figures."""

    name: str
    what: str
    rss_before_mb: float = 0.0
    rss_peak_mb: float = 0.0
    rss_after_mb: float = 0.0
    bystander_p50_ms: float | None = None
    bystander_max_ms: float | None = None
    bystander_failed: int = 0
    bystander_after_p50_ms: float | None = None
    """The median in the 2 s after the flood ended."""
    seconds: float = 0.0
    outcome: dict[str, Any] = field(default_factory=dict)


class MemoryWatch:
    """Samples a process's RSS every 50 ms in a thread; the peak."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, rss_mb(pid), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            with contextlib.suppress(OSError):
                self.peak = max(self.peak, rss_mb(self.pid))

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return float(self.peak)


# ---------------------------------------------------------------------- the floods


async def ping_flood(server: Server, code: str) -> dict[str, Any]:
    """One websocket writing ping frames (125-byte payloads) for at most 8 s (or 1.6M pings),
    never reading."""
    status, reader, writer = await raw_websocket(server.port, f"/ws/{code}", source="127.0.0.2")
    sent, chunk, started = 0, BIG_PING * 10_000, time.monotonic()
    try:
        while sent < 1_600_000 and time.monotonic() - started < 8.0:
            writer.write(chunk)
            await asyncio.wait_for(writer.drain(), 3)
            sent += 10_000
    except (ConnectionError, TimeoutError):
        pass
    closed = await closed_within(reader, 10)
    writer.close()
    return {"handshake": status, "pings_written": sent, "closed_by_server": closed,
            "closed_1008_logged": server.log_count("too many ping frames")}


async def websocket_flood(server: Server, code: str) -> dict[str, Any]:
    """1,500 websockets from one address, opened 50 at a time and held for 2 s."""
    held: list[asyncio.StreamWriter] = []
    refused = 0

    async def one() -> None:
        nonlocal refused
        try:
            _, _, writer = await raw_websocket(server.port, f"/ws/{code}", source="127.0.0.3")
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            refused += 1
            return
        held.append(writer)

    for _ in range(30):
        await asyncio.gather(*(one() for _ in range(50)))
    await asyncio.sleep(2.0)
    for writer in held:
        writer.close()
    return {"opened": 1500, "accepted": len(held), "refused_at_once": refused}


async def slow_connections(server: Server, code: str) -> dict[str, Any]:
    """1,000 connections with half-sent headers and 200 silent ones (six addresses), until the
    server closes them (at most 20 s)."""
    sources = [f"127.0.0.{n}" for n in range(10, 16)]
    half, silent = [], []
    for i in range(1000):
        reader, writer = await open_raw(server.port, sources[i % 5])
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slo")
        half.append((reader, writer))
    for _ in range(200):
        silent.append(await open_raw(server.port, sources[5]))
    started = time.monotonic()
    closed = await asyncio.gather(*(closed_within(r, 40.0) for r, _ in half + silent))
    took = time.monotonic() - started
    for _, writer in half + silent:
        writer.close()
    return {"half_sent": 1000, "silent": 200, "closed_by_server": sum(closed),
            "all_closed_after_s": round(took, 1)}


async def unknown_codes(server: Server, code: str) -> dict[str, Any]:
    """300 lookups of random codes and 300 websockets to them, from one address."""
    statuses: dict[int, int] = {}
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.20")
    async with httpx.AsyncClient(transport=transport, timeout=10) as client:
        for _ in range(300):
            random_code = "".join(random.choice("ABCDEFGHJKMNPQRSTVWXYZ23456789") for _ in range(6))
            response = await client.get(f"{server.url}/api/rooms/{random_code}")
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
    closes: dict[str, int] = {}
    for _ in range(300):
        random_code = "".join(random.choice("ABCDEFGHJKMNPQRSTVWXYZ23456789") for _ in range(6))
        status, reader, writer = await raw_websocket(server.port, f"/ws/{random_code}", source="127.0.0.21")
        key = f"http {status}" if status != 101 else f"close {close_code(await read_frames(reader, 5))}"
        closes[key] = closes.get(key, 0) + 1
        writer.close()
    return {"lookups": statuses, "websockets": closes}


async def history_flood(server: Server, code: str) -> dict[str, Any]:
    """40 watchers each asking for the whole history 15 times a second for 10 s."""
    asked = 0
    received = 0
    answers = 0
    limited = 0

    async def watcher(n: int) -> None:
        nonlocal asked, received, answers, limited
        _, reader, writer = await raw_websocket(server.port, f"/ws/{code}", source=f"127.0.1.{n}")
        writer.write(text_frame(json.dumps({"type": "watch"})))
        request = text_frame(json.dumps({"type": "history", "since": None}))
        stop = time.monotonic() + 10.0

        async def read() -> None:
            nonlocal received, answers, limited
            while True:
                frames = await read_frames(reader, 1.0)
                for opcode, payload in frames:
                    received += len(payload)
                    if opcode == 0x1 and b'"type":"history"' in payload:
                        answers += 1
                    elif b'"rate_limited"' in payload:
                        limited += 1
                if close_code(frames) is not None or time.monotonic() > stop + 1:
                    return

        reading = asyncio.create_task(read())
        while time.monotonic() < stop:
            writer.write(request)
            asked += len(request)
            await asyncio.sleep(1 / 15)
        await reading
        writer.close()

    await asyncio.gather(*(watcher(n) for n in range(1, 41)))
    return {"request_bytes": asked, "reply_bytes": received, "history_answers": answers,
            "rate_limited": limited}


NESTED_RULES = "a = " + "[" * 4000 + "]" * 4000
"""Issue 47 item 2: rules nested 4,000 deep, under the 8 KiB cap."""


def from_address(address: str) -> httpx.AsyncClient:
    """An HTTP client whose connections come from ``address`` (a loopback address)."""
    return httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(local_address=address), timeout=30)


async def toml_flood(server: Server, code: str) -> dict[str, Any]:
    """Issue 47 item 2: 100 nested rulesets to ``/api/rooms``, 100 to ``/api/lab`` and 50 as a
    host's ``configure``."""
    log_before = server.log.stat().st_size
    statuses: dict[str, int] = {}
    async with from_address("127.0.0.40") as client:
        for path, body in (("/api/rooms", {"rules": NESTED_RULES, "seats": 2}),
                           ("/api/lab", {"rules": NESTED_RULES})):
            for _ in range(100):
                answer = await client.post(server.url + path, json=body)
                statuses[f"{path} {answer.status_code}"] = statuses.get(
                    f"{path} {answer.status_code}", 0) + 1
        room = (await client.post(server.url + "/api/rooms",
                                  json={"rules": "classic", "seats": 2})).json()["code"]
    _status, reader, writer = await raw_websocket(server.port, f"/ws/{room}", source="127.0.0.40")
    writer.write(text_frame(json.dumps({"type": "join", "name": "Host"})))
    for _ in range(50):
        writer.write(text_frame(json.dumps({"type": "configure", "rules": NESTED_RULES})))
    await writer.drain()
    frames = await read_frames(reader, 3.0)
    writer.close()
    return {"answers": statuses,
            "configure_bad_rules": sum(1 for _, f in frames if b'"bad_rules"' in f),
            "websocket_closed": close_code(frames), "log_bytes": server.log.stat().st_size - log_before,
            "tracebacks": server.log_count("Traceback")}


async def header_flood(server: Server, code: str) -> dict[str, Any]:
    """Issue 47 item 6: 50 requests with a 100 KB header and 50 with 2,000 headers."""
    request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    big = request + b"X-Big: " + b"a" * 100_000 + b"\r\n\r\n"
    many = request + b"".join(b"X-%d: 1\r\n" % n for n in range(2000)) + b"\r\n"
    answers: dict[str, int] = {}

    async def send(head: bytes) -> None:
        reader, writer = await open_raw(server.port, "127.0.0.41")
        writer.write(head)
        await writer.drain()
        status = (await asyncio.wait_for(reader.read(100), 10)).split(b" ")[1:2]
        key = status[0].decode() if status else "closed"
        answers[key] = answers.get(key, 0) + 1
        writer.close()

    for head in [big] * 50 + [many] * 50:
        await send(head)
    return {"statuses": answers}


async def lobby_flood(server: Server, code: str) -> dict[str, Any]:
    """Issue 47 item 3: 520 joins from 20 addresses to one two-seat room, then 300 watchers
    from 10 more; what they all received."""
    async with from_address("127.0.0.42") as client:
        room = (await client.post(server.url + "/api/rooms",
                                  json={"rules": "classic", "seats": 2})).json()["code"]
    open_sockets: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    received, outcome = 0, {"welcome": 0, "room_full": 0, "other_refusal": 0, "room": 0,
                            "lobby_change": 0}

    def count(payload: bytes) -> None:
        nonlocal received
        received += len(payload)
        for kind in ("welcome", "room", "lobby_change"):
            if payload.startswith(b'{"type":"%s"' % kind.encode()):
                outcome[kind] += 1
        if b'"room_full"' in payload:
            outcome["room_full"] += 1

    async def member(n: int, message: dict[str, Any], source: str) -> None:
        try:
            _status, reader, writer = await raw_websocket(server.port, f"/ws/{room}", source=source)
        except (OSError, TimeoutError, IndexError, ValueError):
            outcome["other_refusal"] += 1
            return
        writer.write(text_frame(json.dumps(message)))
        await writer.drain()
        open_sockets.append((reader, writer))
        for _, payload in await read_frames(reader, 2.0):
            count(payload)

    await asyncio.gather(*(member(n, {"type": "join", "name": f"P{n}"}, f"127.0.1.{n % 20 + 1}")
                           for n in range(520)))
    await asyncio.gather(*(member(n, {"type": "watch"}, f"127.0.2.{n % 10 + 1}")
                           for n in range(300)))
    for reader, _ in open_sockets:  # what arrived since
        for _, payload in await read_frames(reader, 0.01):
            count(payload)
    for _, writer in open_sockets:
        writer.close()
    return {**outcome, "bytes_to_members": received}


async def lab_flood(server: Server, code: str) -> dict[str, Any]:
    """Issue 47 items 1 and 4: a maximal lab job from one address, a host configuring 30
    different rules (each an expected-length estimate), then a normal 100-game job from another
    address: how long it waits, and what it says meanwhile."""
    async with from_address("127.0.0.43") as client:
        room = (await client.post(server.url + "/api/rooms",
                                  json={"rules": "classic", "seats": 3,
                                        "bots": ["casual", "casual"]})).json()["code"]
    _status, reader, writer = await raw_websocket(server.port, f"/ws/{room}", source="127.0.0.43")
    writer.write(text_frame(json.dumps({"type": "join", "name": "Host"})))
    async with from_address("127.0.0.44") as heavy:
        big = (await heavy.post(server.url + "/api/lab",
                                json={"rules": "classic", "players": 8, "games": 5000})).json()
    for grace in range(30):
        writer.write(text_frame(json.dumps({"type": "configure",
                                            "rules": f"grace_ms = {1000 + grace}\n"})))
    await writer.drain()
    started = time.monotonic()
    async with from_address("127.0.0.45") as client:
        job = (await client.post(server.url + "/api/lab",
                                 json={"rules": "pagat", "players": 2, "games": 100})).json()
        states: list[str] = []
        while True:
            answer = (await client.get(server.url + job["url"])).json()
            if not states or states[-1] != answer["state"]:
                states.append(answer["state"])
            if answer["state"] in ("done", "failed"):
                break
            await read_frames(reader, 0.5)  # the host reads its room messages meanwhile
        big_state = (await client.get(server.url + big["url"])).json()
    writer.close()
    return {"normal_job_seconds": round(time.monotonic() - started, 1), "normal_job_states": states,
            "maximal_job": big_state["state"], "maximal_job_error": big_state.get("error")}


FLOODS: dict[str, tuple[str, Callable[[Server, str], Coroutine[Any, Any, dict[str, Any]]]]] = {
    "ping": ("one websocket, 125-byte pings never read (1.6M or 8 s)", ping_flood),
    "websockets": ("1,500 websockets from one address", websocket_flood),
    "slow": ("1,000 half-sent request headers + 200 silent connections", slow_connections),
    "codes": ("300 lookups + 300 websockets to random room codes", unknown_codes),
    "history": ("40 watchers asking for the history 15 times a second for 10 s", history_flood),
    "toml": ("100 + 100 + 50 rulesets nested 4,000 deep (rooms, lab, configure)", toml_flood),
    "headers": ("50 requests with a 100 KB header, 50 with 2,000 headers", header_flood),
    "lobby": ("520 joins from 20 addresses to one room, then 300 watchers", lobby_flood),
    "lab": ("a maximal lab job, 30 configures, then a 100-game job from another address",
            lab_flood),
}


def game_room(server: Server) -> str:
    """A room with a game going (a host started it against a bot and left: their turns time
    out), so there is a history to ask for."""
    from websockets.sync.client import connect

    code = str(httpx.post(server.url + "/api/rooms", json={"rules": "classic", "seats": 2,
                                                           "bots": ["casual"], "pace": "fast",
                                                           "turn_timeout_ms": 1000},
                          timeout=10).json()["code"])
    with connect(server.url.replace("http://", "ws://") + f"/ws/{code}", open_timeout=10) as host:
        host.send(json.dumps({"type": "join", "name": "Host"}))
        host.send(json.dumps({"type": "start"}))
        while json.loads(host.recv(timeout=10))["type"] != "state":
            pass
    time.sleep(2.0)  # a few steps into the game
    return code


ENTRY_FRAMES = ("ratscrew/__main__.py", "ratscrew/cli.py", "ratscrew/commands/serve.py")
"""Frames under which every sample of the server is: left out of the table with callees."""


def _frame_name(frame: str) -> str:
    """``function (path/file.py:line)`` as ``function file.py`` (a function's lines together)."""
    name, _, where = frame.partition(" (")
    return f"{name} {where.rstrip(')').rsplit('/', 1)[-1].split(':')[0]}"


class Profiler:
    """py-spy sampling the server for one flood (``--profile``): collapsed stacks in a file."""

    def __init__(self, pid: int, path: Path) -> None:
        self.path = path
        self.process = subprocess.Popen(
            ["py-spy", "record", "--pid", str(pid), "--rate", "100", "--format", "raw",
             "--output", str(path), "--nonblocking"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})
        time.sleep(0.5)  # attached

    def stop(self) -> str:
        """Stop sampling; the heaviest functions, by own samples and by samples under them."""
        self.process.send_signal(2)  # SIGINT: py-spy writes its file and exits
        self.process.wait(timeout=30)
        own: dict[str, int] = {}
        under: dict[str, int] = {}
        total = 0
        for line in self.path.read_text().splitlines():
            stack, _, count_text = line.rpartition(" ")
            if not count_text.isdigit():
                continue
            count = int(count_text)
            total += count
            frames = stack.split(";")
            own[_frame_name(frames[-1])] = own.get(_frame_name(frames[-1]), 0) + count
            for frame in {_frame_name(f) for f in frames if "ratscrew/" in f
                          and not any(start in f for start in ENTRY_FRAMES)}:
                under[frame] = under.get(frame, 0) + count
        if not total:
            return "  profile: no samples"
        lines = [f"  profile: {total} samples ({self.path})"]
        for title, table in (("own", own), ("ratscrew's, with their callees", under)):
            lines.append(f"  heaviest ({title}):")
            lines += [f"    {100 * n / total:5.1f}%  {name}"
                      for name, n in sorted(table.items(), key=lambda item: -item[1])[:12]]
        return "\n".join(lines)


def run(names: list[str], server_files: int, profile: Path | None = None) -> list[Report]:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this process holds 1,500 sockets
    reports = []
    with tempfile.TemporaryDirectory() as folder, running_server(Path(folder)) as server:
        resource.prlimit(server.pid, resource.RLIMIT_NOFILE, (server_files, server_files))
        lobby = str(httpx.post(server.url + "/api/rooms", json={"rules": "classic", "seats": 2},
                               timeout=10).json()["code"])
        parent, child = multiprocessing.Pipe()
        watcher = multiprocessing.get_context("fork").Process(target=bystander,
                                                              args=(server.url, lobby, child))
        watcher.start()
        time.sleep(1.0)
        spans: list[tuple[Report, float, float]] = []
        for name in names:
            what, flood = FLOODS[name]
            report = Report(name, what, rss_before_mb=rss_mb(server.pid))
            code = game_room(server)
            profiler = Profiler(server.pid, profile / f"{name}.txt") if profile else None
            memory = MemoryWatch(server.pid)
            started = time.time()
            report.outcome = asyncio.run(flood(server, code))
            ended = time.time()
            report.rss_peak_mb = memory.stop()
            if profiler is not None:
                print(f"{name}:\n{profiler.stop()}", file=sys.stderr)
            report.seconds = round(ended - started, 1)
            time.sleep(2.0)  # the bystander's round trips after it (issue 47)
            report.rss_after_mb = rss_mb(server.pid)
            spans.append((report, started, ended))
            reports.append(report)
        parent.send("stop")
        samples: list[tuple[float, float | None]] = parent.recv()
        watcher.join(timeout=15)
        for report, started, ended in spans:
            during = [ms for at, ms in samples if started <= at <= ended]
            times = [ms for ms in during if ms is not None]
            report.bystander_failed = len(during) - len(times)
            if times:
                report.bystander_p50_ms = round(statistics.median(times), 1)
                report.bystander_max_ms = round(max(times), 1)
            after = [ms for at, ms in samples if ended < at <= ended + 2.0 and ms is not None]
            if after:
                report.bystander_after_p50_ms = round(statistics.median(after), 1)
        quiet = [ms for at, ms in samples if ms is not None and at < spans[0][1]] if spans else []
        print(f"bystander before any flood: median {statistics.median(quiet):.1f} ms"
              if quiet else "bystander: no quiet samples", file=sys.stderr)
        print(f"server log: {server.log_count('out of system resource')} 'out of system resource' "
              f"lines, {server.log.stat().st_size} bytes in all", file=sys.stderr)
    return reports


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--only", nargs="+", choices=list(FLOODS), default=list(FLOODS),
                        help="run only these floods (default: all, in this order)")
    parser.add_argument("--server-files", type=int, default=1024, metavar="N",
                        help="the server's limit on open files, as in the issue (default: 1024)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per flood")
    parser.add_argument("--profile", type=Path, metavar="DIR",
                        help="sample the server with py-spy during each flood, into DIR/NAME.txt")
    args = parser.parse_args()
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
    for report in run(args.only, args.server_files, args.profile):
        if args.json:
            print(json.dumps(report.__dict__))
            continue
        print(f"{report.name}: {report.what} ({report.seconds} s)")
        print(f"  server RSS {report.rss_before_mb:.0f} MB before, {report.rss_peak_mb:.0f} MB peak, "
              f"{report.rss_after_mb:.0f} MB after")
        print(f"  bystander round trip during it: median {report.bystander_p50_ms} ms, "
              f"worst {report.bystander_max_ms} ms, failed {report.bystander_failed}; "
              f"median {report.bystander_after_p50_ms} ms in the 2 s after")
        print(f"  outcome: {json.dumps(report.outcome)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
