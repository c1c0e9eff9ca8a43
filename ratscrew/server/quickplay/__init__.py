"""Quick play on the server: the pools and their waves (:mod:`.pools`), kept in memory on one
process or in PostgreSQL for every shard (:mod:`.shared`), wired to the app by `attach`; the
rooms they make are the server's matched rooms (``Server.open_matched_room``: seats reserved for
the matched keys, the game started once all have joined)."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette

from ratscrew.server.http.limits import WindowCounter
from ratscrew.server.quickplay.pools import MemoryPools, PoolBackend, QuickPlay
from ratscrew.server.ws.seek import SEEKS_PER_MINUTE, Seeking


def attach(app: Starlette, server: Any) -> QuickPlay:
    """Give ``app`` (and its ``server`` state, `ratscrew.server.state.Server`) quick play:
    ``app.state.seeking`` for ``/ws/seek`` and ``GET /api/pools``, the pools shared through
    PostgreSQL when the store is, else in memory."""
    store = server.store
    backend: PoolBackend
    if store.writes_off_the_loop:  # PostgreSQL: one pool for every shard
        from ratscrew.server.quickplay.shared import SharedPools

        backend = SharedPools(store.url, server.shard, lambda: open_codes(server))
    else:
        backend = MemoryPools(open_rooms=lambda: open_codes(server))
    service = QuickPlay(backend, server.open_matched_room)
    counter = (store.rate_counter("seeks", SEEKS_PER_MINUTE, 60.0)
               or WindowCounter(SEEKS_PER_MINUTE, 60.0))
    app.state.seeking = Seeking(service, counter)
    return service


def open_codes(server: Any) -> set[str]:
    """The codes of this process's rooms whose game has not ended."""
    return {code for code, room in server.rooms.items() if room.phase in ("lobby", "playing")}
