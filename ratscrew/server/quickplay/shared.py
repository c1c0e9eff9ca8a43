"""The quick-play pools in PostgreSQL, one for every shard (issue 50, item 3).

Each seek is a row of ``seeks`` (`ratscrew.storage.schema`), one per player, so a key seeks once
at a time across every shard. A wave claims its pool's waiting rows with ``SELECT … FOR UPDATE
SKIP LOCKED`` (two shards running a wave at once never take the same seeker: the second skips
what the first holds), opens each table's room on its own shard (nginx routes a room by its
code's first letter, which is the shard's), marks the seekers ``matched`` with their room and
seat, and commits with a ``NOTIFY ratscrew_seeks``. Every shard with seekers ``LISTEN`` s: on a
notification it hands the tables made for its own sockets to them (`take_matched`) and tells
them the pools' new counts. A seeker's waves are counted from when it sought (every
`WAVE_S`), not by who ran them, so two shards running waves do not age it twice.

The statements run on a connection of their own in the event loop (psycopg's asynchronous
connection, autocommit outside the wave's transaction), and the notifications come on another.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import psycopg
from psycopg.rows import dict_row

from ratscrew.matchmaking.pairing import WAVE_S, Seeker
from ratscrew.server.quickplay.pools import Match, PoolKey

log = logging.getLogger("ratscrew.server")

CHANNEL = "ratscrew_seeks"
"""The ``NOTIFY`` channel every shard with seekers listens on."""

_POOL = "rules = %(rules)s AND players = %(players)s AND arena IS NOT DISTINCT FROM %(arena)s"
_ALIVE = "alive_at > %(now)s - %(stale_s)s"
"""A waiting seek whose shard said it holds the socket lately (`STALE_AFTER_WAVES`)."""

STALE_AFTER_WAVES = 3
"""A waiting seek whose shard has not renewed it for this many waves is taken for gone (the
shard died with the socket): it is neither paired nor counted, and its player may seek again."""
_SEEKER_COLUMNS = ("seek_id, player_id, rating, standing, sought_at, front, last_opponents, name, "
                   "FLOOR((%(now)s - sought_at) / %(wave_s)s)::int AS waves")


class SharedPools:
    """The pools of every shard, in PostgreSQL (see the module docstring)."""

    def __init__(self, url: str, shard: str | None, open_rooms: Callable[[], set[str]],
                 wave_s: float = WAVE_S) -> None:
        self.url = url
        self.shard = shard or ""
        self.open_rooms = open_rooms
        self.wave_s = wave_s
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._lock: asyncio.Lock | None = None
        self._listener: asyncio.Task[None] | None = None
        self._changed: Callable[[], Awaitable[None]] | None = None
        self._started = False

    # ------------------------------------------------------------------ the connections

    @contextlib.asynccontextmanager
    async def _turn(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._conn is None or self._conn.closed or self._conn.broken:
                self._conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
            if not self._started:
                self._started = True
                # this shard's seekers from before a restart have no socket any more
                await self._conn.execute("UPDATE seeks SET state = 'gone' WHERE shard = %(shard)s "
                                         "AND state = 'waiting'", {"shard": self.shard})
            yield self._conn

    async def _rows(self, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        async with self._turn() as conn:
            cursor = conn.cursor(row_factory=dict_row)
            await cursor.execute(query.encode(), params)
            return await cursor.fetchall() if cursor.description else []

    async def _notify(self) -> None:
        async with self._turn() as conn:
            await conn.execute(f"NOTIFY {CHANNEL}")

    def listen(self, changed: Callable[[], Awaitable[None]]) -> None:
        """Call ``changed`` whenever any shard changes a pool (from the running event loop)."""
        self._changed = changed
        if self._listener is None or self._listener.done():
            self._listener = asyncio.get_running_loop().create_task(self._listen())

    async def quiet(self) -> None:
        """Stop listening (no seeker is left on this shard)."""
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await listener
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()

    async def _listen(self) -> None:
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self.url, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    if self._changed is not None:
                        await self._changed()  # what was notified before this connection listened
                    async for _ in conn.notifies():
                        if self._changed is not None:
                            await self._changed()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("quick play: listening for other shards' seeks failed; again in 1 s")
                await asyncio.sleep(1.0)

    # ------------------------------------------------------------------ the pools

    async def add(self, key: PoolKey, seeker: Seeker) -> Seeker | None:
        """Put ``seeker`` in pool ``key``; ``None`` if its player seeks already."""
        rules, players, arena = key
        rows = await self._rows(
            "INSERT INTO seeks (player_id, state, seek_id, shard, rules, players, arena, name, rating, "
            "standing, sought_at, alive_at) VALUES (%(player_id)s, 'waiting', %(seek_id)s, %(shard)s, "
            "%(rules)s, %(players)s, %(arena)s, %(name)s, %(rating)s, %(standing)s, %(now)s, %(now)s) "
            "ON CONFLICT (player_id) DO UPDATE SET state = 'waiting', seek_id = EXCLUDED.seek_id, "
            "shard = EXCLUDED.shard, rules = EXCLUDED.rules, players = EXCLUDED.players, "
            "arena = EXCLUDED.arena, name = EXCLUDED.name, rating = EXCLUDED.rating, "
            "standing = EXCLUDED.standing, sought_at = EXCLUDED.sought_at, alive_at = EXCLUDED.alive_at, "
            "front = CASE WHEN seeks.front_until > EXCLUDED.sought_at THEN 1 ELSE 0 END, "
            "front_until = NULL, room = NULL, seat = NULL, table_players = NULL "
            "WHERE seeks.state <> 'waiting' OR NOT seeks.alive_at > %(now)s - %(stale_s)s "
            "RETURNING front, last_opponents",
            {"player_id": seeker.player_id, "seek_id": seeker.seek_id, "shard": self.shard,
             "rules": rules, "players": players, "arena": arena, "name": seeker.name,
             "rating": seeker.rating, "standing": seeker.standing, **self._times()})
        if not rows:
            return None
        await self._notify()
        last = frozenset(json.loads(rows[0]["last_opponents"]))
        return Seeker(seeker.seek_id, seeker.player_id, seeker.rating, standing=seeker.standing,
                      last_opponents=seeker.last_opponents | last, front=bool(rows[0]["front"]),
                      order=seeker.order, name=seeker.name)

    async def remove(self, seek_id: str) -> PoolKey | None:
        """Take a waiting seek out; its pool."""
        rows = await self._rows("UPDATE seeks SET state = 'gone' WHERE seek_id = %(seek_id)s AND "
                                "state = 'waiting' RETURNING rules, players, arena", {"seek_id": seek_id})
        if not rows:
            return None
        await self._notify()
        return (rows[0]["rules"], rows[0]["players"], rows[0]["arena"])

    async def wave(self, key: PoolKey, make: Callable[[list[Seeker]], Awaitable[list[Match]]],
                   *, age: bool = True) -> list[Match]:
        """One wave of pool ``key`` on this shard: its waiting rows claimed (``FOR UPDATE SKIP
        LOCKED``), the tables made and marked, the others notified. (``age``: waves are counted
        from the time sought, so there is nothing to age.)"""
        rules, players, arena = key
        params = {"rules": rules, "players": players, "arena": arena, "wave_s": self.wave_s,
                  **self._times()}
        async with self._turn() as conn, conn.transaction():
            cursor = conn.cursor(row_factory=dict_row)
            await cursor.execute(
                f"SELECT {_SEEKER_COLUMNS} FROM seeks WHERE state = 'waiting' AND {_POOL} "
                "ORDER BY sought_at FOR UPDATE SKIP LOCKED".encode(), params)
            seekers = [_seeker(row) for row in await cursor.fetchall()]
            matches = await make(seekers) if seekers else []
            for match in matches:
                table = json.dumps([{"seek_id": s.seek_id, "player_id": s.player_id,
                                     "name": s.name, "rating": s.rating} for s in match.seekers])
                for seat, seeker in enumerate(match.seekers):
                    others = [s.player_id for s in match.seekers if s is not seeker]
                    await conn.execute(
                        "UPDATE seeks SET state = 'matched', room = %(room)s, seat = %(seat)s, "
                        "table_players = %(table)s, last_opponents = %(others)s "
                        "WHERE seek_id = %(seek_id)s AND state = 'waiting'",
                        {"room": match.room, "seat": seat, "table": table,
                         "others": json.dumps(others), "seek_id": seeker.seek_id})
            if matches:
                await conn.execute(f"NOTIFY {CHANNEL}")
        return matches

    def _times(self) -> dict[str, float]:
        """The statements' ``now`` and ``stale_s``."""
        return {"now": time.time(), "stale_s": STALE_AFTER_WAVES * self.wave_s}

    async def renew(self, seek_ids: Sequence[str]) -> None:
        """Say that this shard still holds these seeks' sockets (every wave)."""
        if seek_ids:
            await self._rows("UPDATE seeks SET alive_at = %(now)s WHERE seek_id = ANY(%(ids)s) "
                             "AND state = 'waiting'", {"ids": list(seek_ids), **self._times()})

    async def take_matched(self, seek_ids: Sequence[str]) -> list[tuple[str, Match]]:
        """The tables made for these seeks (by any shard), each handed over once."""
        if not seek_ids:
            return []
        rows = await self._rows(
            "UPDATE seeks SET state = 'gone' WHERE seek_id = ANY(%(ids)s) AND state = 'matched' "
            "RETURNING seek_id, rules, players, arena, room, table_players", {"ids": list(seek_ids)})
        found = []
        for row in rows:
            seated = tuple(Seeker(p["seek_id"], p["player_id"], p["rating"], name=p["name"])
                           for p in json.loads(row["table_players"]))
            found.append((row["seek_id"], Match((row["rules"], row["players"], row["arena"]),
                                                row["room"], seated)))
        return found

    async def waiting(self) -> dict[PoolKey, int]:
        """How many seek in each pool, on every shard."""
        rows = await self._rows("SELECT rules, players, arena, COUNT(*) AS n FROM seeks WHERE "
                                f"state = 'waiting' AND {_ALIVE} GROUP BY rules, players, arena",
                                self._times())
        return {(r["rules"], r["players"], r["arena"]): int(r["n"]) for r in rows}

    async def playing(self) -> dict[PoolKey, int]:
        """Matched players whose room (on any shard) has not finished its game."""
        rows = await self._rows(
            "SELECT s.rules, s.players, s.arena, COUNT(*) AS n FROM seeks s JOIN rooms r "
            "ON r.code = s.room WHERE s.state IN ('matched', 'gone') AND r.phase IN "
            "('lobby', 'playing') GROUP BY s.rules, s.players, s.arena", {})
        return {(r["rules"], r["players"], r["arena"]): int(r["n"]) for r in rows}

    async def put_in_front(self, player_ids: Sequence[str], until: float) -> None:
        """These players' next seek goes to the front of its pool, until ``until``."""
        await self._rows("UPDATE seeks SET front_until = %(until)s WHERE player_id = ANY(%(ids)s)",
                         {"until": until, "ids": list(player_ids)})

    async def pools_with_seekers(self) -> list[PoolKey]:
        """The pools with someone waiting, on any shard."""
        return list(await self.waiting())


def _seeker(row: dict[str, Any]) -> Seeker:
    return Seeker(row["seek_id"], row["player_id"], float(row["rating"]), waves=int(row["waves"]),
                  standing=float(row["standing"]), front=bool(row["front"]),
                  last_opponents=frozenset(json.loads(row["last_opponents"])),
                  order=float(row["sought_at"]), name=row["name"])
