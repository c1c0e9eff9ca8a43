"""Quick-play pools: who is seeking, the waves that pair them, and the tables made for them.

One pool per (rules, players, arena) (`PoolKey`; ``arena`` is ``None`` in quick play). A seeker
is held by its websocket (`SeekLink`) on the process that reads it; the pools themselves live
in a `PoolBackend`: in memory on one process (SQLite, `MemoryPools`), or in PostgreSQL for every
shard (`ratscrew.server.quickplay.shared.SharedPools`). The `QuickPlay` service runs the waves
(`ratscrew.matchmaking.pairing`: at most every `WAVE_S`, at once when a table of close ratings
is waiting), opens each table's room on this process (``open_room``: the server's
``open_matched_room``, seats reserved for the matched keys) and tells every seeker of it
(``matched``), wherever its socket is.

Hooks for arenas (set by `ratscrew.server` once arenas exist): ``arena_entry`` admits a seek
with ``"arena": ID`` (its standing and last opponents, or an error code; without the hook such a
seek is ``unknown_arena``), and ``on_matched`` hears of every table made (its pool, room code and
seekers).

A matched player who does not come: the room calls ``on_no_show`` and the players who came are
put at the front of their pool when they seek again (the page and ``ratscrew join --quick``
seek again at once): `PoolBackend.put_in_front`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from ratscrew.matchmaking.pairing import WAVE_S, PairingRules, Seeker, after_wave, pair_wave
from ratscrew.protocol.client_messages import POOL_PLAYERS, POOL_RULES
from ratscrew.protocol.codec import ProtocolError
from ratscrew.protocol.http import PoolInfo
from ratscrew.protocol.server_messages import MatchedMessage, MatchedPlayer, SeekServerMessage
from ratscrew.server.room.admission import Reservation

log = logging.getLogger("ratscrew.server")

PoolKey = tuple[str, int, str | None]
"""A pool: its preset's name, its table size, and its arena's id (``None``: quick play)."""

FRONT_FOR_S = 120.0
"""How long a player put back after a no-show keeps its place at the front of the pool."""
SHOW_UP_S = 20.0
"""How long a matched player has to come to the table."""
FORGET_AFTER_S = 3600.0
"""How long the memory pools remember a player who is neither seeking nor matched."""


@dataclass(frozen=True)
class ArenaEntry:
    """An arena's word on a seek that enters it: the player's standing and who not to meet."""

    standing: float = 0.0
    last_opponents: frozenset[str] = frozenset()


ArenaEntryHook = Callable[[str, str], Awaitable["ArenaEntry | str"]]
"""``arena_entry(arena_id, player_id)``: the player's `ArenaEntry`, or an ``error`` code."""
MatchedHook = Callable[[PoolKey, str, Sequence[Seeker]], object]
"""``on_matched(pool_key, room_code, seekers)``, seekers in seat order."""


class OpenRoom(Protocol):
    """The server's ``open_matched_room``: a room on this shard with seats reserved for the
    players, which starts by itself once all have joined; the code."""

    def __call__(self, rules: str, players: int, reservations: Sequence[Reservation], *,
                 show_up_s: float = SHOW_UP_S,
                 on_no_show: Callable[[list[str], list[str]], object] | None = None
                 ) -> Awaitable[str]: ...


class SeekLink(Protocol):
    """A seeker's socket, as the pools see it."""

    seek_id: str

    def send(self, message: SeekServerMessage) -> None:
        """Queue ``message`` for the seeker."""

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Close the socket after what is queued."""


@dataclass(frozen=True)
class Match:
    """A table made: the room, and the seeker in each seat."""

    key: PoolKey
    room: str
    seekers: tuple[Seeker, ...]

    def message_for(self, seat: int) -> MatchedMessage:
        """The ``matched`` message of the seeker in ``seat``."""
        players: list[MatchedPlayer] = [{"name": s.name, "player_id": s.player_id,
                                         "rating": round(s.rating, 1)} for s in self.seekers]
        message: MatchedMessage = {"type": "matched", "room": self.room, "url": f"/r/{self.room}",
                                   "seat": seat, "players": players}
        if self.key[2] is not None:
            message["arena"] = self.key[2]
        return message


class PoolBackend(Protocol):
    """Where the pools are kept (memory, or PostgreSQL for every shard)."""

    async def add(self, key: PoolKey, seeker: Seeker) -> Seeker | None:
        """Put ``seeker`` in pool ``key`` (with its last opponents and its place at the front,
        if it has one); ``None`` if its player already seeks."""

    async def remove(self, seek_id: str) -> PoolKey | None:
        """Take a seek out (cancelled, or its socket closed); the pool it was in."""

    async def wave(self, key: PoolKey, make: Callable[[list[Seeker]], Awaitable[list[Match]]],
                   *, age: bool = True) -> list[Match]:
        """Run one wave of pool ``key``: ``make`` pairs the waiting seekers and opens their
        rooms; the matched seekers leave the pool (their tables kept for `take_matched`), the
        others wait one wave longer (``age``)."""

    async def take_matched(self, seek_ids: Sequence[str]) -> list[tuple[str, Match]]:
        """The tables made for these seeks (each once), by seek id."""

    async def waiting(self) -> dict[PoolKey, int]:
        """How many seek in each pool that has seekers."""

    async def playing(self) -> dict[PoolKey, int]:
        """How many matched players sit at tables still open, by pool."""

    async def put_in_front(self, player_ids: Sequence[str], until: float) -> None:
        """These players seek again at the front of their pool, until ``until`` (epoch s)."""

    async def pools_with_seekers(self) -> list[PoolKey]:
        """The pools that have someone waiting."""

    def listen(self, changed: Callable[[], Awaitable[None]]) -> None:
        """Call ``changed`` when another process changes a pool (nothing to hear in memory)."""

    async def renew(self, seek_ids: Sequence[str]) -> None:
        """Say that this process still holds these seeks' sockets (every wave)."""

    async def quiet(self) -> None:
        """Stop listening: no seeker is left on this process."""


@dataclass
class _Player:
    """What the memory backend keeps of one player."""

    state: str = "gone"  # waiting | matched | gone
    key: PoolKey | None = None
    seeker: Seeker | None = None
    opponents: frozenset[str] = frozenset()
    front_until: float = 0.0
    match: Match | None = None
    seen: float = field(default_factory=time.time)
    """When this player last sought or was matched (epoch s): players gone quiet are forgotten."""


@dataclass
class MemoryPools:
    """The pools of one process (SQLite: one process serves everyone)."""

    players: dict[str, _Player] = field(default_factory=dict)
    by_seek: dict[str, str] = field(default_factory=dict)
    open_rooms: Callable[[], set[str]] = field(default=lambda: set())
    """The codes of rooms still open, for `playing`."""

    async def add(self, key: PoolKey, seeker: Seeker) -> Seeker | None:
        self._forget_quiet(time.time())
        player = self.players.setdefault(seeker.player_id, _Player())
        player.seen = time.time()
        if player.state == "waiting":
            return None
        seeker = replace(seeker, last_opponents=seeker.last_opponents | player.opponents,
                         front=player.front_until > time.time())
        player.state, player.key, player.seeker, player.match = "waiting", key, seeker, None
        player.front_until = 0.0
        self.by_seek[seeker.seek_id] = seeker.player_id
        return seeker

    def _forget_quiet(self, now: float) -> None:
        """Forget players neither seeking nor at a table for `FORGET_AFTER_S` (their last
        opponents and place at the front matter no more), so the memory does not grow."""
        if len(self.players) < 1000:
            return
        for player_id in [pid for pid, p in self.players.items()
                          if p.state != "waiting" and p.seen < now - FORGET_AFTER_S
                          and p.front_until < now]:
            del self.players[player_id]

    async def remove(self, seek_id: str) -> PoolKey | None:
        player_id = self.by_seek.pop(seek_id, None)
        player = None if player_id is None else self.players.get(player_id)
        if player is None or player.seeker is None or player.seeker.seek_id != seek_id:
            return None
        key, was = player.key, player.state
        player.state, player.seeker, player.match = "gone", None, None
        return key if was == "waiting" else None

    async def wave(self, key: PoolKey, make: Callable[[list[Seeker]], Awaitable[list[Match]]],
                   *, age: bool = True) -> list[Match]:
        waiting = [p for p in self.players.values() if p.state == "waiting" and p.key == key]
        matches = await make([p.seeker for p in waiting if p.seeker is not None])
        matched: set[str] = set()
        for match in matches:
            for seeker in match.seekers:
                player = self.players[seeker.player_id]
                if player.seeker is None or player.seeker.seek_id != seeker.seek_id:
                    continue  # cancelled while the room was made: told nothing, seat unused
                player.state, player.match, player.seen = "matched", match, time.time()
                player.opponents = frozenset(s.player_id for s in match.seekers) - {seeker.player_id}
                matched.add(seeker.player_id)
        for player in waiting if age else []:
            if player.seeker is not None and player.seeker.player_id not in matched:
                player.seeker = after_wave([player.seeker])[0]
        return matches

    async def take_matched(self, seek_ids: Sequence[str]) -> list[tuple[str, Match]]:
        found = []
        for seek_id in seek_ids:
            player = self.players.get(self.by_seek.get(seek_id, ""))
            if player is not None and player.state == "matched" and player.match is not None:
                found.append((seek_id, player.match))
                player.state = "gone"
                self.by_seek.pop(seek_id, None)
        return found

    async def waiting(self) -> dict[PoolKey, int]:
        counts: dict[PoolKey, int] = {}
        for player in self.players.values():
            if player.state == "waiting" and player.key is not None:
                counts[player.key] = counts.get(player.key, 0) + 1
        return counts

    async def playing(self) -> dict[PoolKey, int]:
        open_now = self.open_rooms()
        counts: dict[PoolKey, int] = {}
        seen: set[str] = set()
        for player in self.players.values():
            match = player.match
            if match is None or match.room in seen or match.room not in open_now:
                continue
            seen.add(match.room)
            counts[match.key] = counts.get(match.key, 0) + len(match.seekers)
        return counts

    async def put_in_front(self, player_ids: Sequence[str], until: float) -> None:
        for player_id in player_ids:
            self.players.setdefault(player_id, _Player()).front_until = until

    async def pools_with_seekers(self) -> list[PoolKey]:
        return list(await self.waiting())

    def listen(self, changed: Callable[[], Awaitable[None]]) -> None:
        """Nothing: one process holds every seeker."""

    async def renew(self, seek_ids: Sequence[str]) -> None:
        """Nothing: a seek leaves with its socket."""

    async def quiet(self) -> None:
        """Nothing to stop."""


class QuickPlay:
    """The quick-play service of one process (see the module docstring)."""

    def __init__(self, backend: PoolBackend, open_room: OpenRoom, *,
                 rules: PairingRules | None = None, wave_s: float = WAVE_S,
                 show_up_s: float = SHOW_UP_S) -> None:
        self.backend = backend
        self.open_room = open_room
        self.rules = rules or PairingRules()
        self.wave_s = wave_s
        self.show_up_s = show_up_s
        self.links: dict[str, SeekLink] = {}
        self.pool_of: dict[str, PoolKey] = {}
        self.arena_entry: ArenaEntryHook | None = None
        """Set by arenas: admits a seek with ``"arena": ID`` (see the module docstring)."""
        self.on_matched: MatchedHook | None = None
        """Set by arenas: hears of every table made."""
        self.arena_rules: PairingRules | None = None
        """Set by arenas: how an arena's pools pair (``None``: as quick play's), e.g. a wider
        gap and more weight on the standings."""
        self._waves: asyncio.Task[None] | None = None
        self._order = 0.0
        self._last_counts: dict[PoolKey, int] = {}
        self._told: set[str] = set()
        self._lock = asyncio.Lock()

    # ------------------------------------------------------------------ seekers

    async def seek(self, link: SeekLink, key: PoolKey, player_id: str, name: str,
                   rating: float) -> None:
        """Put the seeker on ``link`` in pool ``key``; `ProtocolError` when it may not
        (``already_seeking``: its key seeks elsewhere; ``unknown_arena`` and the arena's own
        refusals)."""
        if link.seek_id in self.links:
            raise ProtocolError("already_seeking", "seek: this socket already seeks; cancel first")
        standing, last = 0.0, frozenset[str]()
        arena = key[2]
        if arena is not None:
            if self.arena_entry is None:
                raise ProtocolError("unknown_arena", f"seek: there is no arena {arena!r}")
            entry = await self.arena_entry(arena, player_id)
            if isinstance(entry, str):
                raise ProtocolError(entry, f"seek: arena {arena!r} does not take this seek "  # type: ignore[arg-type]
                                    f"({entry})")
            standing, last = entry.standing, entry.last_opponents
        self._order += 1.0
        seeker = Seeker(link.seek_id, player_id, rating, standing=standing, last_opponents=last,
                        order=time.time() + self._order * 1e-6, name=name)
        added = await self.backend.add(key, seeker)
        if added is None:
            raise ProtocolError("already_seeking", "seek: your player key is already seeking "
                                "(in another tab or terminal); cancel that one first")
        self.links[link.seek_id] = link
        self.pool_of[link.seek_id] = key
        await self.pools_changed()
        self._wake()
        await self.run_wave(key, at_once=True)

    async def cancel(self, link: SeekLink) -> None:
        """Stop ``link``'s seek (cancelled, or its socket closed)."""
        if self.links.pop(link.seek_id, None) is None:
            return
        self.pool_of.pop(link.seek_id, None)
        self._told.discard(link.seek_id)
        if await self.backend.remove(link.seek_id) is not None:
            await self.pools_changed()

    async def pools_changed(self) -> None:
        """Tell every seeker here how many wait in its pool, where that changed."""
        counts = await self.backend.waiting()
        for seek_id, key in list(self.pool_of.items()):
            link = self.links.get(seek_id)
            if link is None or (seek_id in self._told
                                and counts.get(key, 0) == self._last_counts.get(key, -1)):
                continue
            self._told.add(seek_id)
            link.send(seeking_message(key, counts.get(key, 0)))
        self._last_counts = counts

    async def refresh(self) -> None:
        """Another process changed a pool: hand over the tables it made for seekers here, and
        tell the others the new counts."""
        await self.deliver()
        await self.pools_changed()

    # ------------------------------------------------------------------ waves

    def _wake(self) -> None:
        """Run waves while any pool has seekers here (a task that ends when none has)."""
        self.backend.listen(self.refresh)
        if self._waves is None or self._waves.done():
            self._waves = asyncio.get_running_loop().create_task(self._wave_loop())

    async def _wave_loop(self) -> None:
        try:
            while self.links:
                await asyncio.sleep(self.wave_s)
                try:
                    await self.backend.renew(list(self.links))
                    for key in await self.backend.pools_with_seekers():
                        await self.run_wave(key)
                    await self.deliver()
                except Exception:
                    log.exception("quick play: a wave failed; the next one tries again")
        finally:
            await self.backend.quiet()

    async def run_wave(self, key: PoolKey, *, at_once: bool = False) -> list[Match]:
        """One wave of pool ``key`` (``at_once``: only tables of close ratings, between
        waves): tables made, rooms opened, seekers told."""
        async with self._lock:
            async def make(seekers: list[Seeker]) -> list[Match]:
                if at_once and len(seekers) < key[1]:
                    return []
                rules = self.rules if key[2] is None or self.arena_rules is None else self.arena_rules
                tables = pair_wave(seekers, key[1], rules, at_once=at_once)
                return [await self._open(key, table) for table in tables]

            # between waves (at once) the seekers left are not one wave older
            matches = await self.backend.wave(key, make, age=not at_once)
        for match in matches:
            if self.on_matched is not None:
                self.on_matched(match.key, match.room, match.seekers)
        if matches:
            await self.deliver()
            await self.pools_changed()
        return matches

    async def _open(self, key: PoolKey, table: tuple[Seeker, ...]) -> Match:
        """Open the room of one table on this process."""
        rules, players, _ = key
        reservations = [Reservation(s.player_id, s.name) for s in table]
        code = await self.open_room(rules, players, reservations, show_up_s=self.show_up_s,
                                    on_no_show=self._no_show)
        log.info("quick play: %s for %d, room %s", rules, players, code)
        return Match(key, code, table)

    def _no_show(self, missing: list[str], present: list[str]) -> None:
        """A matched table did not start: those who came go to the front when they seek again."""
        log.info("quick play: %d matched players did not come; %d go to the front",
                 len(missing), len(present))
        task = asyncio.get_running_loop().create_task(
            self.backend.put_in_front(present, time.time() + FRONT_FOR_S))
        task.add_done_callback(lambda done: done.exception())

    async def deliver(self) -> None:
        """Tell the seekers here of the tables made for them (here or by another shard)."""
        for seek_id, match in await self.backend.take_matched(list(self.links)):
            link = self.links.pop(seek_id, None)
            self.pool_of.pop(seek_id, None)
            self._told.discard(seek_id)
            if link is None:
                continue
            seat = next(i for i, s in enumerate(match.seekers) if s.seek_id == seek_id)
            link.send(match.message_for(seat))
            link.close(1000, "matched")

    # ------------------------------------------------------------------ listing

    async def listing(self) -> list[PoolInfo]:
        """``GET /api/pools``: every quick-play pool with ``rules``, ``players``, ``waiting``
        and ``playing``."""
        waiting, playing = await self.backend.waiting(), await self.backend.playing()
        return [{"rules": rules, "players": players, "waiting": waiting.get((rules, players, None), 0),
                 "playing": playing.get((rules, players, None), 0)}
                for rules in POOL_RULES for players in POOL_PLAYERS]


def seeking_message(key: PoolKey, waiting: int) -> SeekServerMessage:
    """The ``seeking`` message of pool ``key``."""
    rules, players, arena = key
    if arena is None:
        return {"type": "seeking", "rules": rules, "players": players, "waiting": waiting}
    return {"type": "seeking", "rules": rules, "players": players, "waiting": waiting, "arena": arena}
