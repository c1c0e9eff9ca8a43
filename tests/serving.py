"""Helpers for tests against a real ``ratscrew serve`` process: start it on a free loopback port,
talk to it over real websockets, kill it.

`ServerProcess` runs ``python -m ratscrew serve --port 0`` and reads the address it prints;
`Player` is one websocket client that answers pings and keeps the latest state it was sent;
`server_in_a_thread` runs the real stack in this process instead (a test that sets up its
sockets itself).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
import uvicorn
from websockets.sync.client import ClientConnection, connect

ADDRESS = re.compile(r"open (http://127\.0\.0\.1:(\d+)/)")
SHUTDOWN_GRACE_S = 5.0
"""How long `server_in_a_thread` gives its open connections to close when it stops."""


@contextlib.contextmanager
def server_in_a_thread(config: uvicorn.Config, listener: socket.socket) -> Iterator[uvicorn.Server]:
    """uvicorn with ``config`` in a thread of this process, serving on ``listener``; yielded
    once it serves, stopped on the way out, and it must stop: its open connections get
    `SHUTDOWN_GRACE_S` to close, then their tasks are cancelled and the app's lifespan ends
    (which closes its rooms); a thread still running after that is reported as a warning. (uvicorn
    waits for every connection to close unless given a grace: a server left running in a
    daemon thread goes on playing its rooms' games, and writing to sockets their clients have
    closed, long after its test.)"""
    if config.timeout_graceful_shutdown is None:
        config.timeout_graceful_shutdown = int(SHUTDOWN_GRACE_S)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True,
                              name="uvicorn-in-a-test")
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the server in a thread did not start"
    try:
        yield server
    finally:  # (a failure inside is not hidden by one here: the assertion comes after)
        server.should_exit = True
        thread.join(timeout=SHUTDOWN_GRACE_S + 15)
        if thread.is_alive():
            server.force_exit = True
            thread.join(timeout=5)
    if thread.is_alive():  # said, not failed: see docs/testing.md ("a server that did not stop")
        warnings.warn(f"the uvicorn server of this test was still running {SHUTDOWN_GRACE_S + 20:.0f} s "
                      "after it was told to stop (a connection or the app did not end)",
                      ResourceWarning, stacklevel=3)


class ServerProcess:
    """A ``ratscrew serve`` subprocess on a free loopback port (a context manager)."""

    def __init__(self, db: Path | str, *extra: str, log: Path | None = None) -> None:
        self.db = db
        self.extra = extra
        self.url = ""
        self.port = 0
        self.process: subprocess.Popen[str] | None = None
        if log is None:
            assert isinstance(db, Path), "a server on a database URL needs log= (a file)"
            log = db.with_suffix(".log")
        self.log = log

    def start(self, timeout: float = 30.0) -> ServerProcess:
        """Start the server and wait until it prints its address."""
        with self.log.open("a") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "ratscrew", "serve", "--port", "0", "--db", str(self.db),
                 "--log-level", "info", *self.extra],
                stdout=subprocess.PIPE, stderr=log, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.process.stdout], [], [], 0.5)
            if ready:
                line = self.process.stdout.readline()
                found = ADDRESS.search(line)
                if found:
                    self.url, self.port = found.group(1).rstrip("/"), int(found.group(2))
                    return self
            if self.process.poll() is not None:
                break
        raise AssertionError(f"the server did not start: {self.log.read_text()[-2000:]}")

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Stop the server with ``sig`` (by default as a crash would) and wait for it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(timeout=15)

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = httpx.post(self.url + path, json=body, timeout=10)
        assert response.status_code < 300, response.text
        data: dict[str, Any] = response.json()
        return data

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.url + path, timeout=10)

    def new_room(self, **body: Any) -> str:
        """Create a room; its code."""
        return str(self.post("/api/rooms", {"rules": "classic", "seats": 2, **body})["code"])

    def player(self, code: str) -> Player:
        return Player(f"ws://127.0.0.1:{self.port}/ws/{code}")

    def describe_failure(self) -> str:
        """The end of the server's log (``conftest.DescribesFailure``)."""
        lines = self.log.read_text(errors="replace").splitlines() if self.log.exists() else []
        return "\n".join([f"the last {min(len(lines), 40)} lines of {self.log}:", *lines[-40:]])

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.kill(signal.SIGTERM)


class Player:
    """One websocket client of a room: answers pings, keeps every message it was sent."""

    def __init__(self, url: str) -> None:
        self._stack = contextlib.ExitStack()
        self.ws: ClientConnection = self._stack.enter_context(connect(url, open_timeout=10,
                                                                      max_size=2**20))
        self.messages: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.closed = False

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def poll(self, timeout: float) -> dict[str, Any] | None:
        """The next message within ``timeout`` seconds (pings are answered), if any."""
        try:
            message: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        except TimeoutError:
            return None
        self.messages.append(message)
        if message["type"] == "ping":
            self.send({"type": "pong", "id": message["id"]})
        elif message["type"] == "state":
            self.state = message
        return message

    def wait_for(self, kind: str, where: Callable[[dict[str, Any]], bool] = lambda m: True,
                 timeout: float = 15.0) -> dict[str, Any]:
        """The next message of type ``kind`` that passes ``where``."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            message = self.poll(left)
            if message is not None and message["type"] == kind and where(message):
                return message
        raise AssertionError(f"no {kind} message within {timeout} s; last state: {self.state}")

    def drain(self, quiet: float = 0.05) -> None:
        """Read everything already sent."""
        while self.poll(quiet) is not None:
            pass

    def join(self, name: str, token: str | None = None, player_key: str | None = None) -> dict[str, Any]:
        self.send({"type": "join", "name": name} | ({"token": token} if token else {})
                  | ({"player_key": player_key} if player_key else {}))
        return self.wait_for("welcome")

    @property
    def observation(self) -> dict[str, Any]:
        assert self.state is not None, "no state yet"
        observation: dict[str, Any] = self.state["observation"]
        return observation

    def close(self) -> None:
        self._stack.close()


def latest(players: list[Player]) -> dict[str, Any]:
    """The newest state any of ``players`` has."""
    states = [p.state for p in players if p.state is not None]
    assert states, "nobody has a state yet"
    return max(states, key=lambda s: int(s["version"]))


def play_cards(seats: dict[int, Player], cards: int, timeout: float = 60.0) -> None:
    """Each player plays when it is their turn until ``cards`` more cards were played (or the
    game ends); timed windows (a won challenge, a grace period) run out on the server."""
    everyone = list(seats.values())
    for player in everyone:
        player.drain()
    target = latest(everyone)["observation"]["cards_played"] + cards
    acted: set[int] = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = latest(everyone)
        observation = state["observation"]
        if observation["over"] or observation["cards_played"] >= target:
            return
        turn = observation["turn"]
        if turn in seats and state["version"] not in acted:
            acted.add(state["version"])
            seats[turn].send({"type": "play"})
        for player in everyone:
            player.poll(0.02)
    raise AssertionError(f"only {latest(everyone)['observation']['cards_played']} of {target} "
                         "cards were played in time")


def resign(seats: dict[int, Player], seat: int, tries: int = 20) -> None:
    """``seat`` resigns; while the engine refuses it (a resignation is refused at some moments,
    e.g. with no cards in hand), the players play a card and ``seat`` tries again. A random deal
    decides where the game stands when a test resigns, so a test must not count on the moment."""
    for _ in range(tries):
        seats[seat].send({"type": "resign"})
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            message = seats[seat].poll(deadline - time.monotonic())
            if message is None:
                break
            if message["type"] == "error":
                break
            if message["type"] == "game_over" or (
                    message["type"] == "state" and message["observation"]["status"][seat] != "in"):
                return
        play_cards(seats, cards=1)
    raise AssertionError(f"seat {seat} could not resign in {tries} tries")


def public(observation: dict[str, Any]) -> dict[str, Any]:
    """What every seat sees alike."""
    return {k: observation[k] for k in ("pile", "burned", "penalty_pile", "hand_sizes", "turn",
                                        "cards_played", "challenge", "status")}
