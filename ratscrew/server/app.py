"""The Starlette app, wired: the server's state (`ratscrew.server.state`), every HTTP route
(`ratscrew.server.http`: rooms, games, players, the lab, offline play; `ratscrew.server.ops`:
health and metrics), the websocket endpoint (`ratscrew.server.ws.endpoint`), the middleware
(cross-site checks, security headers), the error handlers, and what runs while the app does
(restoring rooms, the store's watch, the send watch, the idle-room sweep). Nothing else lives
here: a route's code lives with its kind.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from ratscrew.protocol.codec import MAX_FRAME_BYTES
from ratscrew.server import quickplay
from ratscrew.server.http import arenas
from ratscrew.server.http.games import game_record, game_replay, leaderboard, leaderboard_page, replay_page
from ratscrew.server.http.limits import (
    CrossSiteGuard,
    Limits,
)
from ratscrew.server.http.offline import OFFLINE_ROUTES
from ratscrew.server.http.pages import WEB_DIR, client_gone, http_error, store_unavailable
from ratscrew.server.http.players import export_player, import_player, player_info, player_page
from ratscrew.server.http.pools import ROUTES as QUICKPLAY_ROUTES
from ratscrew.server.http.rooms import bots, create_room, home, presets, room_info, room_page
from ratscrew.server.http.security import SecurityHeaders
from ratscrew.server.lab.jobs import LabService
from ratscrew.server.lab.lengths import stored_lengths
from ratscrew.server.lab.routes import ROUTES as LAB_ROUTES
from ratscrew.server.ladder import ratings
from ratscrew.server.ops.collector import settle_collector
from ratscrew.server.ops.expiry import (
    IdleRooms,
    close_idle_rooms,
)
from ratscrew.server.ops.health import healthz, readyz
from ratscrew.server.ops.metrics import instrument_store, metrics
from ratscrew.server.room.absence import AbsenceTimes
from ratscrew.server.room.outage import watch_store
from ratscrew.server.state import Server
from ratscrew.server.ws.connection import watch_sends
from ratscrew.server.ws.endpoint import websocket_endpoint
from ratscrew.storage.opening import open_store
from ratscrew.storage.records import StoreUnavailable
from ratscrew.storage.roles import Store

log = logging.getLogger("ratscrew.server")


def create_app(store: Store | str | Path, *, limits: Limits | None = None,
               allowed_origins: frozenset[str] = frozenset(), close_store: bool = False,
               shard: str | None = None, idle_room_hours: float | None = None,
               absence: AbsenceTimes | None = None, settle_gc: bool = False,
               lab_cache: Path | str | None = None) -> Starlette:
    """The ratscrew web app over ``store`` (a `Store`, or a database path or URL to open and
    own); with ``shard``, it owns only the rooms whose code begins with that letter; with
    ``idle_room_hours``, rooms nobody has been in for that long are closed (`ratscrew.server.ops.expiry`);
    ``absence``: when people who left a game are stood in for, and the game abandoned (2 and 5 minutes);
    ``settle_gc``: once started, set the garbage collector for a server process
    (`ratscrew.server.ops.collector`; ``ratscrew serve`` does, tests do not); ``lab_cache``: the
    folder where lobby estimates are kept on disk, as ``--lab-cache`` says it (a folder, or
    ``"off"`` for memory only; none: the default place, `ratscrew.server.lab.lengths`).

    A store the app opened itself, or any store with ``close_store``, is closed when the app
    shuts down (uvicorn re-raises SIGTERM after its graceful shutdown, so code after
    ``Server.run`` never runs: the close must happen here)."""
    owned = close_store or isinstance(store, (str, Path))
    idle = None if idle_room_hours is None else IdleRooms(idle_room_hours * 3600.0)
    server = Server(instrument_store(open_store(store) if isinstance(store, (str, Path)) else store),
                    limits or Limits(), allowed_origins, shard=shard, absence=absence or AbsenceTimes(),
                    room_hooks=[] if idle is None else [idle],
                    lab=LabService(stored_lengths=stored_lengths(lab_cache)))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            ratings.catch_up(server.store)  # games a stopped server left unrated, before any room plays
        except StoreUnavailable:
            log.error("could not rate the games left unrated: the database is unavailable")
        server.restore_rooms()
        if server.store.writes_off_the_loop:
            await server.writer.game_ids.fill()  # so that the first games wait for no id either
        if settle_gc:
            settle_collector()
        watcher = asyncio.create_task(watch_store(server.store, server.rooms))
        send_watch = asyncio.create_task(watch_sends(server.connections, server.limits))
        expiry = (None if idle is None
                  else asyncio.create_task(close_idle_rooms(server, idle)))
        arena_sweep = asyncio.create_task(app.state.arenas.sweep())  # issue 50: final standings
        yield
        arena_sweep.cancel()
        watcher.cancel()
        send_watch.cancel()
        if expiry is not None:
            expiry.cancel()
        closing = list(server.connections)
        for conn in closing:
            conn.close(1012, "the server is restarting")
        await asyncio.gather(*(room.stop() for room in server.rooms.values()))
        await server.writer.drain()
        server.lab.shutdown()
        await server.store.close_async()
        if owned:
            server.store.close()
        log.info("shut down: %d rooms kept for the next start, %d connections closed",
                 len(server.rooms), len(closing))

    handler: Callable[[Request, Exception], Awaitable[Response]] = http_error
    app = Starlette(
        routes=[
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics),
            Route("/", home),
            Route("/r/{code}", room_page),
            Route("/games/{game_id}", replay_page),
            Route("/leaderboard", leaderboard_page),
            Route("/players/{player_id}", player_page),
            Route("/api/rooms", create_room, methods=["POST"]),
            Route("/api/rooms/{code}", room_info),
            Route("/api/presets", presets),
            Route("/api/bots", bots),
            Route("/api/games/{game_id}/record", game_record),
            Route("/api/games/{game_id}/replay", game_replay),
            Route("/api/leaderboard", leaderboard),
            Route("/api/players/import", import_player, methods=["POST"]),
            Route("/api/players/export", export_player, methods=["POST"]),
            Route("/api/players/{player_id}", player_info),
            *LAB_ROUTES,
            *OFFLINE_ROUTES,  # issue 51: manifest, service worker, /play
            *QUICKPLAY_ROUTES,  # issue 50: /api/pools, /ws/seek (before /ws/{code})
            *arenas.ROUTES,  # issue 50: /arenas/ID, /api/arenas
            WebSocketRoute("/ws/{code}", websocket_endpoint),
            Mount("/static", StaticFiles(directory=WEB_DIR, check_dir=False), name="static"),
        ],
        exception_handlers={HTTPException: handler, StoreUnavailable: store_unavailable,
                            ClientDisconnect: client_gone},
        lifespan=lifespan,
        max_body_size=MAX_FRAME_BYTES,
    )
    app.state.server = server
    arenas.attach(app, server, quickplay.attach(app, server))  # issue 50
    app.add_middleware(CrossSiteGuard, allowed_origins=allowed_origins)
    app.state.lab = server.lab
    app.add_middleware(SecurityHeaders)
    return app
