"""The shipped deployment, for real: a PostgreSQL server, two ``ratscrew serve --shard`` processes
and nginx with the configuration in ``deploy/nginx/ratscrew.conf`` (its upstream addresses
pointed at the two loopback ports). Everything below talks to nginx only.

Where PostgreSQL or nginx cannot start, the tests skip and say why, except in CI, where they
fail (``.ci/run`` installs both; see ``postgres.py``).
"""

from __future__ import annotations

import contextlib
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from nginx import COMPOSE_RESOLVER, COMPOSE_SHARDS, DEPLOY, SHIPPED_NGINX, NginxProxy, shipped_routing
from postgres import free_port, unavailable
from serving import Player, ServerProcess, latest, play_cards, public, resign

from ratscrew.server.ops.nginx import render_http, render_locations, render_routing


class Nginx(NginxProxy):
    """The proxy as the tests talk to it: HTTP and websockets through nginx only."""

    def post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        return httpx.post(self.url + path, json=body, timeout=10)

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.url + path, timeout=10)

    def player(self, code: str) -> Player:
        return Player(f"ws://127.0.0.1:{self.port}/ws/{code}")


@pytest.fixture
def deployment(fresh_database: str, tmp_path: Path) -> Iterator[tuple[Nginx, dict[str, ServerProcess]]]:
    """Two shards on one PostgreSQL database, behind nginx."""
    ports = {"A": free_port(), "B": free_port()}
    shards = {letter: ServerProcess(fresh_database, "--shard", letter, "--port", str(port),
                                    log=tmp_path / f"shard-{letter}.log")
              for letter, port in ports.items()}
    proxy: Nginx | None = None
    try:
        for shard in shards.values():
            shard.start()
        try:
            proxy = Nginx(shipped_routing(list(ports.values())))
        except RuntimeError as error:
            unavailable(str(error))
        assert proxy is not None
        yield proxy, shards
    finally:
        if proxy is not None:
            proxy.remove()
        for shard in shards.values():
            shard.kill(signal.SIGTERM)


def test_the_shipped_nginx_configuration_is_the_rendered_one() -> None:
    """deploy/nginx/ratscrew.conf is what ``python -m ratscrew.server.ops.nginx`` renders for the
    compose file's shards, so the routing has one home."""
    assert SHIPPED_NGINX.read_text() == render_http(COMPOSE_SHARDS, "80", resolver=COMPOSE_RESOLVER)
    compose = (DEPLOY / "compose.yaml").read_text()
    for letter, address in COMPOSE_SHARDS:
        assert re.search(rf"{address.split(':')[0]}:\n(.*\n)*?.*\"--shard\", \"{letter}\"", compose)


def consecutive_free_ports() -> int:
    """A free loopback port whose next one is free too."""
    while True:
        first = free_port()
        with contextlib.suppress(OSError), socket.socket() as probe:
            probe.bind(("127.0.0.1", first + 1))
            return first


def rooms_on_both_shards(proxy: Nginx, **body: Any) -> dict[str, str]:
    """Create rooms through nginx (``POST /api/rooms`` reaches any shard) until both shards made
    one; the first room of each letter."""
    codes: dict[str, str] = {}
    for _ in range(12):
        response = proxy.post("/api/rooms", {"rules": "classic", "seats": 2, **body})
        assert response.status_code == 201, response.text
        code = response.json()["code"]
        codes.setdefault(code[0], code)
        if set(codes) == {"A", "B"}:
            return codes
    raise AssertionError(f"nginx sent every new room to one shard: {codes}")


def start_two(proxy: Nginx, code: str) -> tuple[dict[int, Player], list[str]]:
    """Ann and Bob sit in ``code`` through nginx (with their player keys, so they are rated and
    listed) and Ann starts the game; seats and tokens."""
    ann, bob = proxy.player(code), proxy.player(code)
    tokens = [ann.join("Ann", player_key="ann-key-Qm3xT9vLp2Zr7WbK4sYd8Hc")["token"],
              bob.join("Bob", player_key="bob-key-Jt6Nq1FgX5uPe0RzVa9LwMk")["token"]]
    ann.send({"type": "start"})
    ann.wait_for("state")
    bob.wait_for("state")
    return {0: ann, 1: bob}, tokens


def test_through_nginx_rooms_on_two_shards_play_to_the_end_and_share_what_is_finished(
        deployment: tuple[Nginx, dict[str, ServerProcess]]) -> None:
    proxy, _ = deployment
    codes = rooms_on_both_shards(proxy, turn_timeout_ms=60_000)  # unseeded: rated
    over: dict[str, dict[str, Any]] = {}
    for letter, code in codes.items():
        seats, _ = start_two(proxy, code)
        play_cards(seats, cards=8)
        resign(seats, 1)  # Bob gives up; Ann plays on until she has every card
        play_cards(seats, cards=200)
        # (the resignation may end the game while the players play on: its game_over was read then)
        finished = [m for m in seats[0].messages if m["type"] == "game_over"]
        over[letter] = finished[0] if finished else seats[0].wait_for("game_over")
        assert proxy.get(f"/api/rooms/{code}").json()["code"] == code  # routed to its owner
        for player in seats.values():
            player.close()
    # what is finished is in PostgreSQL: any shard answers it (nginx sends these to either)
    for letter, ended in over.items():
        for _ in range(4):  # round robin: both shards answer in turn
            assert proxy.get(ended["record_url"]).status_code == 200
            replay = proxy.get(f"/api/games/{ended['game_id']}/replay").json()
            assert replay["names"] == ["Ann", "Bob"]
            assert replay["frames"][-1]["observation"]["winner"] == 0, letter
    # Ann and Bob have played only each other: rated, but not ranked (issue 30); their pages
    # show both games, whichever shard answers
    wins = {}
    for name, key in (("Ann", "ann-key-Qm3xT9vLp2Zr7WbK4sYd8Hc"), ("Bob", "bob-key-Jt6Nq1FgX5uPe0RzVa9LwMk")):
        player_id = proxy.post("/api/players/export", {"player_key": key}).json()["player_id"]
        games = proxy.get(f"/api/players/{player_id}").json()["games"]
        wins[name] = sum(game["place"] == 1 for game in games)
    assert wins == {"Ann": 2, "Bob": 0}  # one game of each shard


def test_quick_play_a_seeker_on_each_shard_meets_the_other_through_nginx_and_the_game_is_stored_once(
        deployment: tuple[Nginx, dict[str, ServerProcess]]) -> None:
    """Issue 50: one pool for every shard. Ann seeks on shard A and Bob on shard B (each
    straight to its shard, so that each is on its own); the wave that pairs them makes the room on
    one shard, both open it through nginx, and their game is stored once."""
    proxy, shards = deployment
    keys = {"Ann": "ann-key-Qm3xT9vLp2Zr7WbK4sYd8Hc", "Bob": "bob-key-Jt6Nq1FgX5uPe0RzVa9LwMk"}
    seekers = {name: Player(shards[letter].url.replace("http://", "ws://") + "/ws/seek")
               for name, letter in (("Ann", "A"), ("Bob", "B"))}
    for name, seeker in seekers.items():
        seeker.send({"type": "seek", "rules": "classic", "players": 2, "name": name,
                     "player_key": keys[name]})
        seeker.wait_for("seeking")
    matched = {name: seeker.wait_for("matched") for name, seeker in seekers.items()}
    code = matched["Ann"]["room"]
    assert matched["Bob"]["room"] == code and code[0] in "AB"
    assert proxy.get("/api/pools").json()["pools"][0] == {
        "rules": "classic", "players": 2, "waiting": 0, "playing": 2}
    seats = {}
    for name in ("Ann", "Bob"):
        player = proxy.player(code)
        seats[player.join(name, player_key=keys[name])["seat"]] = player
    assert sorted(seats) == [0, 1]
    for player in seats.values():  # no host: the game starts once both have joined
        player.wait_for("state")
    resign(seats, 1)  # Bob gives up; Ann plays on until she has every card
    play_cards(seats, cards=200)
    finished = [m for m in seats[0].messages if m["type"] == "game_over"]
    over = finished[0] if finished else seats[0].wait_for("game_over")
    for player in [*seats.values(), *seekers.values()]:
        player.close()
    for _ in range(4):  # round robin: both shards read the one stored game
        record = proxy.get(over["record_url"])
        assert record.status_code == 200 and sorted(record.json()["names"]) == ["Ann", "Bob"]
    player_id = matched["Ann"]["players"][matched["Ann"]["seat"]]["player_id"]
    games = proxy.get(f"/api/players/{player_id}").json()["games"]
    assert [game["id"] for game in games] == [over["game_id"]]


def test_kill_9_of_one_shard_leaves_the_other_playing_and_its_rooms_come_back(
        deployment: tuple[Nginx, dict[str, ServerProcess]], tmp_path: Path) -> None:
    proxy, shards = deployment
    codes = rooms_on_both_shards(proxy, seed=6, turn_timeout_ms=60_000)
    seats_a, _ = start_two(proxy, codes["A"])
    seats_b, tokens_b = start_two(proxy, codes["B"])
    play_cards(seats_a, cards=4)
    play_cards(seats_b, cards=6)
    for player in seats_b.values():
        player.drain(0.3)
    before_b = latest(list(seats_b.values()))["observation"]

    shards["B"].kill(signal.SIGKILL)
    process = shards["B"].process
    assert process is not None and process.returncode == -signal.SIGKILL
    # shard A's room plays on, untouched, and A still answers the shared pages and new rooms
    play_cards(seats_a, cards=6)
    assert latest(list(seats_a.values()))["observation"]["cards_played"] >= 10
    assert proxy.get("/api/leaderboard?rules=classic").status_code == 200
    assert proxy.get(f"/api/rooms/{codes['B']}").status_code == 502  # its owner is down
    created = proxy.post("/api/rooms", {"rules": "classic", "seats": 2})
    assert created.status_code == 201 and created.json()["code"][0] == "A"

    # shard B starts again on its port: its room comes back where it was stored
    shards["B"] = ServerProcess(shards["B"].db, *shards["B"].extra, log=tmp_path / "shard-B-again.log")
    shards["B"].start()
    deadline = time.monotonic() + 15
    while proxy.get(f"/api/rooms/{codes['B']}").status_code != 200:  # nginx retries it after a while
        assert time.monotonic() < deadline, "shard B's room did not come back through nginx"
        time.sleep(0.5)
    ann, bob = proxy.player(codes["B"]), proxy.player(codes["B"])
    assert ann.join("Ann", token=tokens_b[0])["seat"] == 0
    assert bob.join("Bob", token=tokens_b[1])["seat"] == 1
    after = ann.wait_for("state")["observation"]
    assert public(after) == public(before_b)
    play_cards({0: ann, 1: bob}, cards=3)
    assert latest([ann, bob])["observation"]["cards_played"] >= before_b["cards_played"] + 3


def test_serve_workers_starts_one_shard_per_letter_behind_the_rendered_nginx_configuration(
        fresh_database: str, tmp_path: Path) -> None:
    """``ratscrew serve --workers 2`` on PostgreSQL: two shard processes on consecutive ports,
    the nginx configuration for them written out, and each port's rooms of its own letter."""
    first = consecutive_free_ports()
    config = tmp_path / "ratscrew.conf"
    server_block = tmp_path / "ratscrew-server.conf"
    server_block.write_text("# the operator's own server block\n")
    command = [sys.executable, "-m", "ratscrew", "serve", "--workers", "2", "--port", str(first),
               "--db", fresh_database, "--nginx-config", str(config)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        codes = {}
        for letter, port in (("A", first), ("B", first + 1)):
            deadline = time.monotonic() + 30
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    response = httpx.post(f"http://127.0.0.1:{port}/api/rooms", json={}, timeout=5)
                    if response.status_code == 201:
                        codes[letter] = response.json()["code"]
                        break
                assert process.poll() is None and time.monotonic() < deadline, "a shard did not start"
                time.sleep(0.2)
        assert {letter: code[0] for letter, code in codes.items()} == {"A": "A", "B": "B"}
        assert config.read_text() == render_routing([("A", f"127.0.0.1:{first}"),
                                                     ("B", f"127.0.0.1:{first + 1}")])
        assert (tmp_path / "ratscrew-locations.conf").read_text() == render_locations()
        assert server_block.read_text() == "# the operator's own server block\n"  # never overwritten
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=30)
    assert process.returncode == 0, output
    for port in (first, first + 1):  # every shard stopped with it
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
