"""An arena under load (issue 50): N scripted players in one arena on one ``ratscrew serve``.

Starts the server on loopback (SQLite, one process), creates an arena of ``--minutes`` through
``POST /api/arenas``, then runs N scripted players, each from a loopback address of its own
(127.0.0.2, 127.0.0.3, …: the per-address limits count seeks as they would count strangers').
Each player seeks with the arena's id on ``/ws/seek``, opens the matched table, joins with its
key and plays (its card 300-800 ms after its turn comes, a double slapped half the time,
250-600 ms after it shows); a game is ended by a resignation at a random moment (2 to 4 times
``--game-seconds`` / 3 after it starts, the first player whose moment comes resigns), so that
games last about as long as a short real one. When its game ends, the player seeks the arena
again at once (as the page does) until the arena ends; a game running at the end is played out.

It prints the games played, the games per player (every player must have some), the time
from a seek to the player's seat at the table (the ``seek`` sent to the ``welcome`` of the
room), overall and for the seeks made while at least ``--crowd`` players sought at once (median
and p90), and whether the arena's final standings (``GET /api/arenas/ID``) equal the points
recomputed from the stored games (the server's database read directly after it stops, scored
by `ratscrew.arenas.scoring`). Exit status 1 when a check fails.

Usage: ``.venv/bin/python benchmarks/arena.py [--players 64] [--minutes 5] [--table 2]
[--rules classic] [--game-seconds 30] [--crowd 20] [--seed 1] [--json]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scripted import running_server

from ratscrew.arenas.scoring import GameResult, standings
from ratscrew.protocol.keys import new_key


@dataclass
class Figures:
    """What the players saw."""

    seek_to_seat_s: list[float] = field(default_factory=list)
    crowded_seek_to_seat_s: list[float] = field(default_factory=list)
    games: dict[str, int] = field(default_factory=dict)
    seeking_now: int = 0
    most_seeking: int = 0
    errors: list[str] = field(default_factory=list)
    unmatched_at_end: int = 0
    """Seeks still waiting when the arena ended."""


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


class ArenaPlayer:
    """One scripted player (see the module docstring)."""

    def __init__(self, index: int, url: str, arena: dict[str, Any], figures: Figures, rng: random.Random,
                 game_s: float, crowd: int) -> None:
        self.name = f"Arena player {index + 1}"
        self.key = new_key()
        self.address = f"127.0.0.{2 + index}"
        self.ws_url = url.replace("http://", "ws://")
        self.arena, self.figures, self.rng = arena, figures, rng
        self.game_s, self.crowd = game_s, crowd

    async def open(self, path: str) -> ClientConnection:
        return await connect(f"{self.ws_url}{path}", local_addr=(self.address, 0), max_size=2**22)

    async def run(self) -> None:
        """Seek, play, seek again, until the arena ends."""
        while time.time() < self.arena["ends_at"] - 1:
            try:
                matched = await self.seek()
                if matched is None:
                    return
                async with asyncio.timeout(self.game_s * 4 + 120):  # a table that never ends
                    await self.play(matched)
            except Exception as error:  # counted, and the player seeks again
                self.figures.errors.append(f"{self.name}: {type(error).__name__}: {error}")
                await asyncio.sleep(1.0)

    async def seek(self) -> tuple[dict[str, Any], float, bool] | None:
        """One seek: the ``matched`` message, when it was sent, and whether it was crowded."""
        figures = self.figures
        async with await self.open("/ws/seek") as ws:
            crowded = figures.seeking_now + 1 >= self.crowd
            figures.seeking_now += 1
            figures.most_seeking = max(figures.most_seeking, figures.seeking_now)
            sent = time.monotonic()
            try:
                await ws.send(json.dumps({"type": "seek", "rules": self.arena["rules"],
                                          "players": self.arena["players"], "name": self.name,
                                          "player_key": self.key, "arena": self.arena["id"]}))
                # the page stops seeking when the arena ends (the server also closes such seeks)
                async with asyncio.timeout(max(1.0, self.arena["ends_at"] - time.time())):
                    async for raw in ws:
                        message = json.loads(raw)
                        if message["type"] == "matched":
                            return message, sent, crowded
                        if message["type"] == "error":
                            if message.get("code") == "arena_closed":
                                return None
                            raise RuntimeError(f"seek refused: {message}")
            except TimeoutError:
                self.figures.unmatched_at_end += 1
                return None
            finally:
                figures.seeking_now -= 1
        raise RuntimeError("the seek socket closed before a table was found")

    async def play(self, found: tuple[dict[str, Any], float, bool]) -> None:
        """Sit at the matched table and play until the game is over."""
        matched, sent, crowded = found
        async with await self.open(f"/ws/{matched['room']}") as ws:
            await ws.send(json.dumps({"type": "join", "name": self.name, "player_key": self.key}))
            seat: int | None = None
            acted = slapped = -1
            resign_at: float | None = None
            tasks: set[asyncio.Task[None]] = set()

            async def later(delay_s: float, message: dict[str, Any]) -> None:
                await asyncio.sleep(delay_s)
                with contextlib.suppress(Exception):
                    await ws.send(json.dumps(message))

            def soon(delay_s: float, message: dict[str, Any]) -> None:
                task = asyncio.create_task(later(delay_s, message))
                tasks.add(task)
                task.add_done_callback(tasks.discard)

            async for raw in ws:
                message = json.loads(raw)
                kind = message["type"]
                if kind == "ping":
                    await ws.send(json.dumps({"type": "pong", "id": message["id"]}))
                elif kind == "welcome":
                    seat = message["seat"]
                    waited = time.monotonic() - sent
                    self.figures.seek_to_seat_s.append(waited)
                    if crowded:
                        self.figures.crowded_seek_to_seat_s.append(waited)
                elif kind == "room" and message["phase"] == "lobby" and message["open_seats"] == 0 \
                        and message.get("you", {}).get("host"):
                    await ws.send(json.dumps({"type": "start"}))  # a plain room waits for its host
                elif kind == "state" and seat is not None:
                    observation, version = message["observation"], int(message["version"])
                    if observation["over"]:
                        continue
                    if resign_at is None:
                        resign_at = time.monotonic() + self.rng.uniform(2, 4) * self.game_s / 3
                    if observation["status"][seat] != "in":
                        continue
                    pile = observation["pile"]
                    if time.monotonic() >= resign_at:  # again 2 s later if it was refused
                        resign_at = time.monotonic() + 2.0
                        await ws.send(json.dumps({"type": "resign"}))
                    elif len(pile) >= 2 and pile[-1][0] == pile[-2][0] and slapped < version \
                            and self.rng.random() < 0.5:
                        slapped = version
                        reaction = self.rng.uniform(250, 600)
                        soon(reaction / 1000, {"type": "slap", "reaction_ms": reaction, "version": version})
                    elif observation["turn"] == seat and acted < version:
                        acted = version
                        pace = self.rng.uniform(300, 800)
                        soon(pace / 1000, {"type": "play", "reaction_ms": pace, "version": version})
                elif kind == "game_over":
                    self.figures.games[self.name] = self.figures.games.get(self.name, 0) + 1
                    break
            for task in tasks:
                task.cancel()


def stored_standings(database: Path, arena: dict[str, Any]) -> list[dict[str, Any]]:
    """The arena's standings recomputed from the stored games (the database read directly)."""
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT r.game_id, r.player_id, r.name, r.place, r.won FROM results r "
            "JOIN games g ON g.id = r.game_id JOIN arena_rooms a ON a.code = g.code "
            "WHERE a.arena_id = ? AND g.status = 'over' AND g.started_at < ? "
            "AND r.player_id IS NOT NULL ORDER BY g.finished_at, g.id, r.seat",
            (arena["id"], arena["ends_at"])).fetchall()
    finally:
        conn.close()
    order = {game_id: n for n, game_id in enumerate(dict.fromkeys(r[0] for r in rows))}
    results = [GameResult(order[g], p, name, place, bool(won)) for g, p, name, place, won in rows]
    return [s.as_json() for s in standings(results, arena["players"])]


async def drive(url: str, arena: dict[str, Any], players: int, game_s: float, crowd: int,
                seed: int) -> Figures:
    """Run every player until the arena ends and their last games are over."""
    figures = Figures()
    rng = random.Random(seed)
    scripted = [ArenaPlayer(i, url, arena, figures, random.Random(rng.random()), game_s, crowd)
                for i in range(players)]
    await asyncio.gather(*(player.run() for player in scripted))
    for player in scripted:
        figures.games.setdefault(player.name, 0)
    return figures


def final_standings(url: str, arena_id: str, wait_s: float) -> dict[str, Any]:
    """``GET /api/arenas/ID`` once its standings are final (or after ``wait_s``)."""
    deadline = time.monotonic() + wait_s
    while True:
        shown: dict[str, Any] = httpx.get(f"{url}/api/arenas/{arena_id}", timeout=30).json()
        if shown["final"] or time.monotonic() > deadline:
            return shown
        time.sleep(2.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=64, help="scripted players (default: 64)")
    parser.add_argument("--minutes", type=int, default=5, help="the arena's length, 5 to 120 (default: 5)")
    parser.add_argument("--table", type=int, default=2, choices=(2, 4), help="players at a table")
    parser.add_argument("--rules", default="classic", help="the arena's preset (default: classic)")
    parser.add_argument("--game-seconds", type=float, default=30.0,
                        help="a scripted game's typical length before someone resigns (default: 30)")
    parser.add_argument("--crowd", type=int, default=20,
                        help="seekers at once that make a seek 'crowded' (default: 20)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="also print the figures as one JSON line")
    args = parser.parse_args()
    if not 2 <= args.players <= 250:
        parser.error("--players must be from 2 to 250 (one loopback address each)")

    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "arena.db"
        with running_server(db=database) as server:
            made = httpx.post(f"{server.url}/api/arenas", timeout=30, json={
                "rules": args.rules, "players": args.table, "minutes": args.minutes, "starts_in_s": 0,
                "player_key": new_key(), "name": "Arena maker"})
            if made.status_code != 201:
                print(f"could not create the arena: {made.status_code} {made.text}", file=sys.stderr)
                return 1
            arena = httpx.get(f"{server.url}/api/arenas/{made.json()['id']}", timeout=30).json()
            print(f"arena {arena['id']}: {args.rules} at tables of {args.table}, {args.minutes} min, "
                  f"{args.players} scripted players", flush=True)
            started = time.monotonic()
            figures = asyncio.run(drive(server.url, arena, args.players, args.game_seconds,
                                        args.crowd, args.seed))
            played_s = time.monotonic() - started
            shown = final_standings(server.url, arena["id"], wait_s=120.0)
        recomputed = stored_standings(database, arena)

    games_each = sorted(figures.games.values())
    tables = sum(games_each) / args.table
    everyone = games_each[0] > 0
    same = shown["standings"] == recomputed
    seat = figures.seek_to_seat_s
    crowded = figures.crowded_seek_to_seat_s
    result = {
        "players": args.players, "table": args.table, "minutes": args.minutes,
        "ran_s": round(played_s, 1), "games": round(tables), "standings_final": shown["final"],
        "games_per_player_min": games_each[0], "games_per_player_median": statistics.median(games_each),
        "games_per_player_max": games_each[-1], "every_player_played": everyone,
        "seeks": len(seat), "seek_to_seat_median_s": round(statistics.median(seat), 2) if seat else None,
        "seek_to_seat_p90_s": round(percentile(seat, 0.9), 2) if seat else None,
        "most_seeking_at_once": figures.most_seeking, "crowd": args.crowd, "crowded_seeks": len(crowded),
        "crowded_seek_to_seat_median_s": round(statistics.median(crowded), 2) if crowded else None,
        "crowded_seek_to_seat_p90_s": round(percentile(crowded, 0.9), 2) if crowded else None,
        "standings_equal_stored_games": same, "standings_lines": len(shown["standings"]),
        "errors": len(figures.errors), "unmatched_at_end": figures.unmatched_at_end,
    }
    print(f"ran {played_s:.0f} s: {tables:.0f} games; games per player min {games_each[0]}, median "
          f"{statistics.median(games_each):g}, max {games_each[-1]} (every player played: {everyone})")
    if seat:
        print(f"seek to seat: median {statistics.median(seat):.2f} s, p90 {percentile(seat, 0.9):.2f} s "
              f"over {len(seat)} seeks; at most {figures.most_seeking} seeking at once")
    if crowded:
        print(f"with >= {args.crowd} seeking at once: median {statistics.median(crowded):.2f} s, "
              f"p90 {percentile(crowded, 0.9):.2f} s over {len(crowded)} seeks")
    else:
        print(f"no seek was made with >= {args.crowd} seeking at once")
    print(f"final standings ({'stored' if shown['final'] else 'NOT final'}, {len(shown['standings'])} "
          f"players) equal the points recomputed from the stored games: {same}")
    for error in figures.errors[:5]:
        print(f"error: {error}")
    if args.json:
        print(json.dumps(result))
    checks = [everyone, same, shown["final"]]
    if crowded:
        checks += [statistics.median(crowded) <= 10.0, percentile(crowded, 0.9) <= 20.0]
    return 0 if all(checks) else 1


if __name__ == "__main__":
    sys.exit(main())
