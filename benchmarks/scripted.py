"""Scripted websocket players for the benchmarks and the fairness tests: a real ``ratscrew
serve`` on loopback, and players whose links add a one-way delay and jitter in each direction.

A `DelayedLink` holds each message for ``one_way_ms`` ± ``jitter_ms`` (never reordering, as a
real connection delivers in order). A `ScriptedPlayer` sees a state when it comes out of the
link, as a browser shows it; it answers pings through the link, so the server measures the
link's round trip as it would a real one's; and it stamps its actions with the reaction and the
version it reacted to, as the page does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import re
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample
from websockets.asyncio.client import ClientConnection, connect

from ratscrew.engine import Game
from ratscrew.ruleset import Ruleset
from ratscrew.server.ws.link import FIRST_PINGS

ADDRESS = re.compile(r"open (http://127\.0\.0\.1:(\d+)/)")
TESTS = Path(__file__).resolve().parent.parent / "tests"


@dataclass(frozen=True)
class RunningServer:
    """A server started by `running_server`: its base URL and process id."""

    url: str
    pid: int


@dataclass(frozen=True)
class RunningDeployment:
    """Shards behind nginx on one PostgreSQL, started by `running_deployment`: the proxy's URL,
    the shards' process ids, the process ids of nginx's and PostgreSQL's main processes, and
    each shard's own URL (for its ``/metrics``, which nginx does not pass on)."""

    url: str
    shard_pids: tuple[int, ...]
    proxy_pid: int
    database_pid: int
    shard_urls: tuple[str, ...] = ()


def metric_samples(url: str, timeout_s: float = 30) -> list[Sample]:
    """Every sample of the server's ``/metrics`` at ``url`` (``httpx.HTTPStatusError`` if it
    does not answer 200, as a proxy that keeps ``/metrics`` to itself)."""
    response = httpx.get(f"{url}/metrics", timeout=timeout_s)
    response.raise_for_status()
    return [sample for family in text_string_to_metric_families(response.text) for sample in family.samples]


@contextlib.contextmanager
def running_deployment(shards: int) -> Iterator[RunningDeployment]:
    """A throwaway PostgreSQL, ``shards`` shard processes (letters A, B, …) and nginx in front
    with the shipped routing (the same helpers as the deployment tests: ``tests/postgres.py``,
    ``tests/nginx.py``), all on loopback and stopped at the end."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    from nginx import NginxProxy, rendered_routing
    from postgres import PostgresCluster

    from ratscrew.server.ops.shards import shard_letters

    cluster = PostgresCluster()
    try:
        cluster.start()
        url = cluster.create_database()
        with contextlib.ExitStack() as stack:
            servers = [stack.enter_context(running_server("--shard", letter, db=url))
                       for letter in shard_letters(shards)]
            ports = [int(server.url.rsplit(":", 1)[1]) for server in servers]
            proxy = NginxProxy(rendered_routing(ports), workers=1)
            stack.callback(proxy.remove)
            assert cluster.pid is not None
            yield RunningDeployment(proxy.url, tuple(s.pid for s in servers), proxy.pid, cluster.pid,
                                    tuple(s.url for s in servers))
    finally:
        cluster.remove()


@contextlib.contextmanager
def running_server_behind_nginx() -> Iterator[RunningDeployment]:
    """One ``ratscrew serve`` on SQLite (no shard) behind nginx with the shipped routing: the
    one-process default reached as the shards are, to compare them like for like. Its
    ``database_pid`` is 0 (SQLite is in the server's own process)."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    from nginx import NginxProxy, rendered_routing

    with running_server() as server:
        proxy = NginxProxy(rendered_routing([int(server.url.rsplit(":", 1)[1])]), workers=1)
        try:
            yield RunningDeployment(proxy.url, (server.pid,), proxy.pid, 0, (server.url,))
        finally:
            proxy.remove()


@contextlib.contextmanager
def running_server(*extra: str, db: Path | str | None = None) -> Iterator[RunningServer]:
    """A ``ratscrew serve`` subprocess on a free loopback port with no per-address limits to
    speak of (every scripted client comes from 127.0.0.1)."""
    with tempfile.TemporaryDirectory() as folder:
        path = db or Path(folder) / "bench.db"
        process = subprocess.Popen(
            [sys.executable, "-m", "ratscrew", "serve", "--port", "0", "--db", str(path),
             "--rooms-per-hour", "1000000", "--joins-per-minute", "1000000",
             "--players-per-hour", "1000000",
             "--connections-per-address", "1000000", "--unknown-codes-per-minute", "1000000",
             "--log-level", "warning", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert process.stdout is not None
            deadline = time.monotonic() + 30
            url = None
            while url is None and time.monotonic() < deadline and process.poll() is None:
                ready, _, _ = select.select([process.stdout], [], [], 0.5)
                if ready:
                    found = ADDRESS.search(process.stdout.readline())
                    url = found.group(1).rstrip("/") if found else None
            if url is None:
                raise RuntimeError("the server did not start")
            yield RunningServer(url, process.pid)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


class DelayedLink:
    """One direction of a link: each message is held ``one_way_ms`` ± ``jitter_ms`` (uniform),
    and never overtakes the one before it."""

    def __init__(self, one_way_ms: float, jitter_ms: float, rng: random.Random) -> None:
        self.one_way_ms, self.jitter_ms, self.rng = one_way_ms, jitter_ms, rng
        self._last = 0.0

    def release_at(self, now: float) -> float:
        """When a message that enters the link at ``now`` (s) comes out of it."""
        delay = self.one_way_ms + (self.rng.uniform(-self.jitter_ms, self.jitter_ms)
                                   if self.jitter_ms else 0.0)
        self._last = max(self._last, now + max(0.0, delay) / 1000.0)
        return self._last


@dataclass
class ScriptedPlayer:
    """One websocket client behind a delaying link (see the module docstring)."""

    name: str
    one_way_ms: float = 0.0
    jitter_ms: float = 0.0
    seed: int = 0
    on_state: Callable[[ScriptedPlayer, dict[str, Any]], Awaitable[None]] | None = None
    seat: int | None = None
    pong_delay_ms: float = 0.0
    """How long this client holds each pong before sending it (the lag cheat: its link looks
    slower to the server than it is)."""
    state: dict[str, Any] | None = None
    shown: dict[int, float] = field(default_factory=dict)
    """version -> loop time (s) at which this client showed that state."""
    messages: list[tuple[float, float, dict[str, Any]]] = field(default_factory=list)
    """(arrived on the wire, shown) loop times and the message, for everything but pings."""
    sent: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    """(loop time the message went on the wire, message)."""
    pongs: int = 0
    """Pongs this client has put on the wire."""

    def __post_init__(self) -> None:
        rng = random.Random(self.seed)
        self.down = DelayedLink(self.one_way_ms, self.jitter_ms, rng)
        self.up = DelayedLink(self.one_way_ms, self.jitter_ms, rng)
        self._ws: ClientConnection | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._inbox: asyncio.Queue[tuple[float, float, dict[str, Any]]] = asyncio.Queue()
        self._outbox: asyncio.Queue[tuple[float, dict[str, Any]]] = asyncio.Queue()
        self.events: dict[str, asyncio.Event] = {}

    @property
    def loop_time(self) -> float:
        return asyncio.get_running_loop().time()

    async def connect(self, url: str) -> None:
        self._ws = await connect(url.replace("http://", "ws://"), open_timeout=20, max_size=2**20)
        self._tasks = [asyncio.create_task(self._read()), asyncio.create_task(self._deliver()),
                       asyncio.create_task(self._write())]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()

    def send(self, message: dict[str, Any]) -> None:
        """Put a message into the link towards the server."""
        self._outbox.put_nowait((self.up.release_at(self.loop_time), message))

    def act(self, kind: str, reaction_ms: float, version: int) -> None:
        """Play or slap, stamped with the reaction claimed and the version it answers."""
        self.send({"type": kind, "reaction_ms": round(max(0.0, reaction_ms), 1), "version": version})

    def seen(self, kind: str) -> asyncio.Event:
        """An event set when a message of this type has been shown."""
        return self.events.setdefault(kind, asyncio.Event())

    def answered(self, pings: int) -> asyncio.Event:
        """An event set once this client has put ``pings`` pongs on the wire."""
        event = self.events.setdefault(f"pongs:{pings}", asyncio.Event())
        if self.pongs >= pings:
            event.set()
        return event

    async def _read(self) -> None:
        assert self._ws is not None
        with contextlib.suppress(Exception):
            async for raw in self._ws:
                now = self.loop_time
                self._inbox.put_nowait((now, self.down.release_at(now), json.loads(raw)))

    async def _deliver(self) -> None:
        while True:
            arrived, release, message = await self._inbox.get()
            wait = release - self.loop_time
            if wait > 0:
                await asyncio.sleep(wait)
            shown = self.loop_time
            kind = message["type"]
            if kind == "ping":
                pong = {"type": "pong", "id": message["id"]}
                if self.pong_delay_ms:
                    asyncio.get_running_loop().call_later(self.pong_delay_ms / 1000.0, self.send, pong)
                else:
                    self.send(pong)
                continue
            self.messages.append((arrived, shown, message))
            if kind == "welcome":
                self.seat = message["seat"]
            elif kind == "state":
                self.state = message
                self.shown[int(message["version"])] = shown
                if self.on_state is not None:
                    await self.on_state(self, message)
            self.seen(kind).set()

    async def _write(self) -> None:
        while True:
            release, message = await self._outbox.get()
            wait = release - self.loop_time
            if wait > 0:
                await asyncio.sleep(wait)
            assert self._ws is not None
            self.sent.append((self.loop_time, message))
            await self._ws.send(json.dumps(message))
            if message["type"] == "pong":
                self.pongs += 1
                self.answered(self.pongs)


# ---------------------------------------------------------------------------------- contests

DOUBLES_ONLY = Ruleset.preset("classic").to_toml().replace(
    'slaps = ["double", "sandwich"]', 'slaps = ["double"]').replace(
    'name = "classic"', 'name = "doubles-only"')
"""Classic rules in which only a double may be slapped, so each contest has one clear target."""


def seeds_with_an_early_double(count: int, max_cards: int = 6) -> list[tuple[int, int]]:
    """Deals (seed, cards until the double) for two players in which, played in turn, a double
    shows within ``max_cards`` cards with no face card before it."""
    rules = Ruleset.from_toml(DOUBLES_ONLY)
    found: list[tuple[int, int]] = []
    seed = 0
    while len(found) < count:
        game = Game.deal(rules, players=2, seed=seed)
        for played in range(1, max_cards + 1):
            turn = game.observe(None)["turn"]
            assert turn is not None, "the game goes on until a face card shows"
            game.play(turn, at=played * 100)
            pile = game.observe(None)["pile"]
            if pile[-1][0] in "JQKA":
                break
            if len(pile) >= 2 and pile[-1][0] == pile[-2][0]:
                found.append((seed, played))
                break
        seed += 1
    return found


@dataclass(frozen=True)
class Contender:
    """One side of a contest: its link, its physical reaction, and how much quicker than its
    real reaction it claims to be (a lying client)."""

    one_way_ms: float
    jitter_ms: float
    reaction_ms: float
    lie_ms: float = 0.0
    pong_delay_ms: float = 0.0
    """How long it holds each pong before answering (the lag cheat)."""
    claim_ms: float | None = None
    """The reaction it claims for its slap whatever the real one (``None``: the real one less
    ``lie_ms``)."""


@dataclass(frozen=True)
class ContestResult:
    """Who took the double (0 or 1, ``None`` if nobody) and each side's reaction as it happened:
    from the client showing the double to the slap leaving its hand (the drawn reaction plus
    any lag of the client's event loop, which a browser's event timestamps would include too)."""

    winner: int | None
    reactions: tuple[float, float]
    result_latency_ms: tuple[float, ...]
    """For each side that slapped: from its slap leaving the client to the state with the
    result arriving back (before the link's down delay), in ms."""
    text: str
    details: str = ""
    """The judgement's figures: each slap's time and the link compensation it was given."""


PLAY_DELAY_MS = 120.0
"""How long after seeing its turn a scripted player plays its card."""


async def run_contest(url: str, seed: int, cards_to_double: int, judging: str,
                      sides: tuple[Contender, Contender], timeout_s: float = 20.0) -> ContestResult:
    """One room, two scripted players: they play in turn to the double, both slap it after their
    reactions, and the server's judgement says who took it."""
    async with httpx.AsyncClient(base_url=url, timeout=20) as http:
        response = await http.post("/api/rooms", json={
            "rules": DOUBLES_ONLY, "seats": 2, "seed": seed, "judging": judging,
            "turn_timeout_ms": 60_000})
        response.raise_for_status()
        code = response.json()["code"]
    reacted: dict[int, float] = {}
    pending: set[asyncio.Task[None]] = set()

    async def on_state(player: ScriptedPlayer, state: dict[str, Any]) -> None:
        observation = state["observation"]
        side_index = 0 if player is players[0] else 1
        side = sides[side_index]
        version = int(state["version"])
        pile = observation["pile"]
        if observation["over"] or player.seat is None:
            return
        if len(pile) >= 2 and pile[-1][0] == pile[-2][0] and side_index not in reacted:
            reacted[side_index] = float("nan")

            async def slap() -> None:
                await asyncio.sleep(side.reaction_ms / 1000.0)
                elapsed = (player.loop_time - player.shown[version]) * 1000.0
                reacted[side_index] = elapsed
                player.act("slap", elapsed - side.lie_ms if side.claim_ms is None else side.claim_ms,
                           version)
            task = asyncio.create_task(slap())
        elif observation["turn"] == player.seat and observation["cards_played"] < cards_to_double:
            async def play() -> None:
                await asyncio.sleep(PLAY_DELAY_MS / 1000.0)
                player.act("play", (player.loop_time - player.shown[version]) * 1000.0, version)
            task = asyncio.create_task(play())
        else:
            return
        pending.add(task)
        task.add_done_callback(pending.discard)

    players = [ScriptedPlayer("A", sides[0].one_way_ms, sides[0].jitter_ms, seed * 2, on_state,
                              pong_delay_ms=sides[0].pong_delay_ms),
               ScriptedPlayer("B", sides[1].one_way_ms, sides[1].jitter_ms, seed * 2 + 1, on_state,
                              pong_delay_ms=sides[1].pong_delay_ms)]
    try:
        for player in players:
            await player.connect(f"{url}/ws/{code}")
            player.send({"type": "join", "name": player.name})
            await asyncio.wait_for(player.seen("welcome").wait(), timeout_s)
        for player in players:  # the server's first quick pings measure both links
            await asyncio.wait_for(player.answered(FIRST_PINGS).wait(), timeout_s)
        players[0].send({"type": "start"})
        await asyncio.wait_for(players[0].seen("judgement").wait(), timeout_s)
        judgement = next(m for _, _, m in players[0].messages if m["type"] == "judgement")
        won = [s for s in judgement["slaps"] if s["result"] == "won"]
        winner = None if not won else [p.name for p in players].index(won[0]["name"])
        latencies = []
        for mover in players:
            slaps = [t for t, m in mover.sent if m["type"] == "slap"]
            back = min((arrived for arrived, _, m in mover.messages if m["type"] == "state"
                        and any(e["kind"] == "slap_won" for e in m["events"])), default=None)
            if slaps and back is not None and back >= slaps[-1]:
                latencies.append((back - slaps[-1]) * 1000.0)
        return ContestResult(winner, (reacted.get(0, math.nan), reacted.get(1, math.nan)),
                             tuple(latencies), judgement["text"], judgement.get("details", ""))
    finally:
        for player in players:
            await player.close()
