"""Arenas on the server (issue 50 item 4): ``POST /api/arenas``, ``GET /api/arenas``,
``GET /api/arenas/ID`` and the ``/arenas/ID`` page, and the service the quick-play pools ask
about arena seeks (`ArenaService.entry`, `ArenaService.matched`).

An arena is a row in the store (`ratscrew.storage.records.ArenaRow`): its preset, table size,
start and end. Its state follows the clock (``upcoming`` before its start, ``running`` until its
end, ``finished`` after) unless the operator cancelled it. A player enters by seeking with
``"arena": ID`` on ``/ws/seek``; every table the pools make for an arena's seekers is recorded
(`ArenaService.matched`), and the arena's games are those rooms' games that started before its
end (a game running at the end finishes and counts). The standings are never kept on their
own while the arena runs: they are the points `ratscrew.arenas.scoring` gives the stored
games, recomputed on every read, so they always equal what the stored games say. Once the end
has come and the last counted game is over, they are stored as the arena's final standings
(`ArenaService.finish_due`), which players' pages show.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from ratscrew.arenas import ARENA_RULES, MAX_MINUTES, MAX_STARTS_IN_S, MIN_MINUTES
from ratscrew.arenas.scoring import TABLE_SIZES, GameResult, Standing, standings
from ratscrew.protocol.codec import ProtocolError, decode_json
from ratscrew.protocol.http import ArenaAnswer, ArenaCreated, ArenasAnswer, ArenaState, StandingLine
from ratscrew.protocol.keys import valid_key
from ratscrew.protocol.names import clean
from ratscrew.protocol.server_messages import error_message
from ratscrew.server.blocking import off_the_loop
from ratscrew.server.http.limits import WindowCounter, limit_key
from ratscrew.server.ladder import players
from ratscrew.server.quickplay.pools import ArenaEntry, PoolKey, QuickPlay
from ratscrew.storage.records import ArenaRow, RateCounter
from ratscrew.storage.roles import Store
from ratscrew.storage.sql import Conflict

log = logging.getLogger("ratscrew.server")

WEB_DIR = Path(__file__).resolve().parents[2] / "web"

ARENAS_PER_HOUR = 5
"""Arenas one address may create in an hour (``POST /api/arenas``)."""
RECENT_S = 86_400.0
"""How long after its end a finished arena is still listed by ``GET /api/arenas``."""
LISTED = 50
"""The most arenas ``GET /api/arenas`` lists."""
FINAL_AFTER_S = 3_600.0
"""How long after its end an arena waits for its last games before its standings are made
final anyway (a game left hanging by a server that stopped counts as it was stored)."""
SWEEP_S = 5.0
"""How often the server looks for arenas whose end has come (`ArenaService.sweep`)."""
ARENA_ID = re.compile(r"[A-Za-z0-9_-]{8}")
"""An arena's id: 8 random URL-safe characters."""

class ArenaError(ValueError):
    """A bad arena request; ``code`` names the problem for clients (``bad_request`` …)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class ArenaRequest:
    """A validated ``POST /api/arenas`` body."""

    rules: str
    players: int
    minutes: int
    starts_in_s: int
    player_key: str
    name: str | None


def _whole(data: dict[str, Any], key: str, low: int, high: int, default: int | None = None) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ArenaError("bad_request", f"{key} must be a whole number from {low} to {high}")
    return value


def parse_arena_request(data: object) -> ArenaRequest:
    """Validate a ``POST /api/arenas`` body; a problem is an `ArenaError` naming the field.

    >>> parse_arena_request({"rules": "pagat", "players": 4, "minutes": 30, "starts_in_s": 0,
    ...                      "player_key": "Ab3_-" * 5}).players
    4
    >>> parse_arena_request({"rules": "pagat", "players": 3, "minutes": 30, "starts_in_s": 0,
    ...                      "player_key": "Ab3_-" * 5})
    Traceback (most recent call last):
    ...
    ratscrew.server.http.arenas.ArenaError: players must be 2 or 4
    """
    if not isinstance(data, dict):
        raise ArenaError("bad_request", "the body must be a JSON object")
    unknown = sorted(set(data) - {"rules", "players", "minutes", "starts_in_s", "player_key", "name"})
    if unknown:
        raise ArenaError("bad_request", f"unknown field {unknown[0]!r}")
    rules = data.get("rules")
    if rules not in ARENA_RULES:
        raise ArenaError("bad_request", f"rules must be one of {', '.join(ARENA_RULES)} "
                         "(arenas are played under a preset)")
    table = data.get("players")
    if isinstance(table, bool) or table not in TABLE_SIZES:
        raise ArenaError("bad_request", "players must be 2 or 4")
    minutes = _whole(data, "minutes", MIN_MINUTES, MAX_MINUTES)
    starts_in = _whole(data, "starts_in_s", 0, MAX_STARTS_IN_S, default=0)
    key = data.get("player_key")
    if not isinstance(key, str) or not valid_key(key):
        raise ArenaError("bad_key", "player_key: an arena is made by a player: send your player "
                         "key (20 to 64 letters, digits, - or _)")
    name = data.get("name")
    if name is not None:
        if not isinstance(name, str):
            raise ArenaError("bad_request", "name must be text")
        try:
            name = clean(name)
        except ProtocolError as error:
            raise ArenaError("bad_name", str(error)) from None
    return ArenaRequest(str(rules), int(table), minutes, starts_in, key, name)


def standing_line(line: Mapping[str, Any]) -> StandingLine:
    """A standing (`ratscrew.arenas.scoring.Standing.as_json`, or a stored final one) as sent."""
    return {"rank": int(line["rank"]), "player_id": str(line["player_id"]), "name": str(line["name"]),
            "score": int(line["score"]), "games": int(line["games"]), "wins": int(line["wins"]),
            "streak": int(line["streak"])}


def state_of(arena: ArenaRow, now: float) -> ArenaState:
    """An arena's state at ``now``.

    >>> row = ArenaRow("a", "classic", 2, 100.0, 400.0, 0.0, None, "open", None)
    >>> [state_of(row, t) for t in (99.0, 100.0, 399.9, 400.0)]
    ['upcoming', 'running', 'running', 'finished']
    """
    if arena.state == "cancelled":
        return "cancelled"
    if arena.state == "finished" or now >= arena.ends_at:
        return "finished"
    return "upcoming" if now < arena.starts_at else "running"


def results_of(rows: Sequence[dict[str, Any]]) -> list[GameResult]:
    """The store's arena results (`ratscrew.storage.roles.ArenaStore.arena_results`, in the
    order the games finished) as the scoring's game results."""
    order = {game_id: n for n, game_id in enumerate(dict.fromkeys(r["game_id"] for r in rows))}
    return [GameResult(order[r["game_id"]], r["player_id"], r["name"],
                       None if r["place"] is None else int(r["place"]), bool(r["won"]))
            for r in rows]


def live_standings(store: Store, arena: ArenaRow) -> list[Standing]:
    """The arena's standings from its stored games, now."""
    return standings(results_of(store.arena_results(arena.arena_id, arena.ends_at)), arena.players)


def last_opponents(rows: Sequence[dict[str, Any]], player_id: str) -> frozenset[str]:
    """Who ``player_id`` met in its latest arena game (so the pools do not pair them again at
    once).

    >>> rows = [{"game_id": 1, "player_id": "a"}, {"game_id": 1, "player_id": "b"},
    ...         {"game_id": 2, "player_id": "a"}, {"game_id": 2, "player_id": "c"}]
    >>> sorted(last_opponents(rows, "a")), sorted(last_opponents(rows, "b"))
    (['c'], ['a'])
    """
    latest = None
    for row in rows:
        if row["player_id"] == player_id:
            latest = row["game_id"]
    return frozenset(r["player_id"] for r in rows
                     if r["game_id"] == latest and r["player_id"] != player_id)


def new_arena_id() -> str:
    """A fresh arena id (random, so ids tell nothing of how many arenas there are).

    >>> ARENA_ID.fullmatch(new_arena_id()) is not None
    True
    """
    return secrets.token_urlsafe(6)


class ArenaService:
    """The server's arenas: creation, summaries, entry of seekers, tables made, final standings.
    ``counter``: creations per address (``None``: not counted, the operator's command);
    ``now``: the wall clock (epoch seconds; tests give a fake one)."""

    def __init__(self, store: Store, counter: RateCounter | None = None,
                 now: Callable[[], float] = time.time) -> None:
        self.store = store
        self.counter = counter
        self.now = now
        self.pools: QuickPlay | None = None
        """Quick play's pools, when wired (`wire_pools`): the sweep takes out seeks of arenas
        that are no longer running."""

    # ---------------------------------------------------------------------- reads

    def summary(self, arena: ArenaRow, with_standings: bool = True) -> ArenaAnswer:
        """The arena as ``GET /api/arenas/ID`` sends it (final standings once stored)."""
        now = self.now()
        final = arena.state == "finished"
        lines: list[StandingLine] = []
        if with_standings:
            if final:
                lines = [standing_line(line) for line in self.store.final_standings(arena.arena_id)]
            elif arena.state != "cancelled" and now >= arena.starts_at:
                lines = [standing_line(s.as_json()) for s in live_standings(self.store, arena)]
        return {"id": arena.arena_id, "url": f"/arenas/{arena.arena_id}", "rules": arena.rules_name,
                "players": arena.players, "state": state_of(arena, now),
                "starts_at": arena.starts_at, "ends_at": arena.ends_at, "now": now,
                "final": final, "standings": lines}

    def arena(self, arena_id: str) -> ArenaAnswer | None:
        """``GET /api/arenas/ID``, or ``None`` for an unknown id (finishing it first if due)."""
        arena = self.store.arena(arena_id) if ARENA_ID.fullmatch(arena_id) else None
        if arena is None:
            return None
        if arena.state == "open" and self.now() >= arena.ends_at and self.finish(arena):
            arena = self.store.arena(arena_id) or arena
        return self.summary(arena)

    def listing(self) -> ArenasAnswer:
        """``GET /api/arenas``: upcoming, running and recently finished arenas, the first to
        start first (no standings: each arena's page has them)."""
        now = self.now()
        listed = self.store.list_arenas(now - RECENT_S, LISTED)
        return {"arenas": [self.summary(a, with_standings=False) for a in listed]}

    # ---------------------------------------------------------------------- writes

    def create(self, rules: str, table: int, minutes: float, starts_in_s: float,
               creator: str | None) -> ArenaRow:
        """A new arena (``creator``: the player's public id, ``None`` for the operator)."""
        if rules not in ARENA_RULES or table not in TABLE_SIZES:
            raise ArenaError("bad_request", f"an arena is a preset ({', '.join(ARENA_RULES)}) "
                             "at a table of 2 or 4")
        now = self.now()
        for _ in range(5):
            arena = ArenaRow(new_arena_id(), rules, table, now + starts_in_s,
                             now + starts_in_s + minutes * 60.0, now, creator, "open", None)
            try:
                self.store.create_arena(arena)
            except Conflict:  # an id drawn twice: draw again
                continue
            log.info("arena %s created: %s at %d, %.0f minutes from %.0f", arena.arena_id, rules,
                     table, minutes, arena.starts_at)
            return arena
        raise RuntimeError("could not draw a new arena id")

    def finish(self, arena: ArenaRow) -> bool:
        """Store the final standings of an arena whose end has come, once its last counted
        game is over (or `FINAL_AFTER_S` after its end); True when they were stored now."""
        now = self.now()
        if arena.state != "open" or now < arena.ends_at:
            return False
        if (self.store.arena_games_playing(arena.arena_id, arena.ends_at)
                and now < arena.ends_at + FINAL_AFTER_S):
            return False
        lines = [s.as_json() for s in live_standings(self.store, arena)]
        done = self.store.finish_arena(arena.arena_id, lines)
        if done:
            log.info("arena %s finished: %d players", arena.arena_id, len(lines))
        return done

    def finish_due(self) -> int:
        """Finish every arena that is due (`finish`); how many were."""
        return sum(self.finish(arena) for arena in self.store.ended_arenas(self.now()))

    async def sweep(self, every_s: float = SWEEP_S) -> None:
        """Finish due arenas every ``every_s`` seconds, until cancelled (the server's task)."""
        while True:
            await asyncio.sleep(every_s)
            try:
                await off_the_loop(self.store, self.finish_due)
                await self.close_ended_seeks()
            except Exception:  # a database away for a moment: the next sweep tries again
                log.exception("arenas: the sweep for finished arenas failed")

    async def close_ended_seeks(self) -> int:
        """Seekers on this process still waiting in the pool of an arena that is no longer
        running are told (``arena_closed``) and taken out; how many."""
        pools = self.pools
        if pools is None:
            return 0
        running: dict[str, bool] = {}
        closed = 0
        for seek_id, key in list(pools.pool_of.items()):
            arena_id = key[2]
            if arena_id is None:
                continue
            if arena_id not in running:
                arena = await off_the_loop(self.store, self.store.arena, arena_id)
                running[arena_id] = arena is not None and state_of(arena, self.now()) == "running"
            link = pools.links.get(seek_id)
            if running[arena_id] or link is None:
                continue
            link.send(error_message("arena_closed", f"seek: arena {arena_id} is over; its standings "
                                    f"are at /arenas/{arena_id}"))
            link.close(1000, "the arena is over")
            await pools.cancel(link)
            closed += 1
        return closed

    # ---------------------------------------------------------------------- the pools' hooks

    def entry(self, arena_id: str, player_id: str) -> ArenaEntry | str:
        """Whether ``player_id`` may seek in the arena now: its score and last opponents, or
        an error code (``unknown_arena``; ``arena_closed``: not running, before its start or
        after its end; ``flagged``: the player's integrity flag is not cleared)."""
        arena = self.store.arena(arena_id) if ARENA_ID.fullmatch(arena_id) else None
        if arena is None or arena.state == "cancelled":
            return "unknown_arena"
        if state_of(arena, self.now()) != "running":
            return "arena_closed"
        flag = self.store.integrity_flag(player_id)
        if flag is not None and flag["cleared_at"] is None:
            return "flagged"
        rows = self.store.arena_results(arena.arena_id, arena.ends_at)
        table = standings(results_of(rows), arena.players)
        mine = next((s for s in table if s.player_id == player_id), None)
        return ArenaEntry(float(mine.score) if mine else 0.0, last_opponents(rows, player_id))

    def matched(self, rules: str, table: int, arena_id: str | None, code: str) -> bool:
        """A table was made in pool (``rules``, ``table``, ``arena_id``): record its room as
        the arena's (a pool whose rules or size are not the arena's is not, so its games do not
        count); True when recorded."""
        if arena_id is None:
            return False
        arena = self.store.arena(arena_id)
        if arena is None or (arena.rules_name, arena.players) != (rules, table):
            log.warning("arena %s: a table in pool %s/%d is not the arena's; not counted",
                        arena_id, rules, table)
            return False
        if self.now() >= arena.ends_at:  # made after the end: its game would not count anyway
            return False
        self.store.add_arena_room(arena_id, code)
        return True


# ---------------------------------------------------------------------------------- HTTP


def _service(request: Request) -> ArenaService:
    service: ArenaService = request.app.state.arenas
    return service


def _coded(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


async def _call(request: Request, call: Callable[..., Any], *args: Any) -> Any:
    """A store call a request waits for, as the app makes them (`Server.call_store`)."""
    return await request.app.state.server.call_store(request, call, *args)


async def create_arena(request: Request) -> JSONResponse:
    """``POST /api/arenas``: a new arena, made by a keyed player, limited per address."""
    service = _service(request)
    server = request.app.state.server
    try:
        body = await request.body()
        wanted = parse_arena_request(decode_json(body.decode("utf-8", errors="replace")))
    except ProtocolError as error:
        return _coded(400, "bad_json", str(error))
    except ArenaError as error:
        return _coded(400, error.code, str(error))
    address = limit_key(str(request.client[0])) if request.client else "unknown"
    if service.counter is not None and not await service.counter.allow_async(address, time.monotonic()):
        return _coded(429, "rate_limited", f"at most {ARENAS_PER_HOUR} arenas an hour from one "
                      "address; try again later")
    known = await server.store.player_by_key_async(players.hash_key(wanted.player_key))
    if known is None:
        if wanted.name is None:
            return _coded(400, "unknown_player", "this server does not know your player key yet: "
                          "send your name with it (\"name\") to become a player, or play a game first")
        try:
            known_id = await players.known_player_counted(
                server.store, wanted.player_key, server.player_counter, address, time.monotonic(),
                server.limits.players_per_hour)
            creator = await players.enter_async(server.store, wanted.player_key, wanted.name, known_id)
        except ProtocolError as error:
            return _coded(429 if error.code == "rate_limited" else 400, error.code, str(error))
    else:
        creator = known.player_id
    arena = await _call(request, service.create, wanted.rules, wanted.players, wanted.minutes,
                        wanted.starts_in_s, creator)
    created: ArenaCreated = {"id": arena.arena_id, "url": f"/arenas/{arena.arena_id}"}
    return JSONResponse(created, status_code=201)


async def list_arenas(request: Request) -> JSONResponse:
    """``GET /api/arenas``."""
    service = _service(request)
    return JSONResponse(await _call(request, service.listing))


async def arena_info(request: Request) -> JSONResponse:
    """``GET /api/arenas/ID``."""
    service = _service(request)
    found = await _call(request, service.arena, str(request.path_params["arena_id"]))
    if found is None:
        return _coded(404, "unknown_arena", "there is no arena with that id")
    return JSONResponse(found)


async def arena_page(request: Request) -> Response:
    """``GET /arenas/ID``: the arena's page (countdown, standings, Join and Pause)."""
    service = _service(request)
    arena_id = str(request.path_params["arena_id"])
    found = ARENA_ID.fullmatch(arena_id) and await _call(request, service.store.arena, arena_id)
    if not found:
        raise HTTPException(404, "no arena with that id")
    return FileResponse(WEB_DIR / "arena.html", media_type="text/html")


ROUTES = [
    Route("/arenas/{arena_id}", arena_page),
    Route("/api/arenas", create_arena, methods=["POST"]),
    Route("/api/arenas", list_arenas),
    Route("/api/arenas/{arena_id}", arena_info),
]


def attach(app: Any, server: Any, pools: QuickPlay | None = None) -> ArenaService:
    """Give ``app`` its arenas (``app.state.arenas``): creations counted per address in the
    database when several processes share it, else in memory; with quick play's ``pools``,
    arena seeks enter through `ArenaService.entry` and the tables made for them are recorded
    (`ArenaService.matched`)."""
    counter = (server.store.rate_counter("arenas", ARENAS_PER_HOUR, 3600.0)
               or WindowCounter(ARENAS_PER_HOUR, 3600.0))
    service = ArenaService(server.store, counter)
    app.state.arenas = service
    if pools is not None:
        wire_pools(service, pools)
    return service


def wire_pools(service: ArenaService, pools: QuickPlay) -> None:
    """Set quick play's arena hooks to ``service`` (store calls off the event loop where the
    database is across the network)."""
    async def entry(arena_id: str, player_id: str) -> ArenaEntry | str:
        said = await off_the_loop(service.store, service.entry, arena_id, player_id)
        return said if isinstance(said, str) else ArenaEntry(said.standing, said.last_opponents)

    recording: set[asyncio.Task[bool]] = set()

    def matched(key: PoolKey, code: str, seekers: Sequence[Any]) -> None:
        rules, table, arena_id = key
        if arena_id is None:
            return
        if not service.store.writes_off_the_loop:
            service.matched(rules, table, arena_id, code)
            return
        task = asyncio.get_running_loop().create_task(
            off_the_loop(service.store, service.matched, rules, table, arena_id, code))
        recording.add(task)
        task.add_done_callback(recording.discard)

    pools.arena_entry = entry
    pools.on_matched = matched
    service.pools = pools
