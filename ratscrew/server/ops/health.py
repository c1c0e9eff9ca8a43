"""Liveness and readiness, for load balancers, orchestrators and monitoring.

``GET /healthz`` is liveness: the process answers (it never touches the database, so a database
outage does not get a healthy process restarted). ``GET /readyz`` is readiness: ``200`` when
this process can serve its rooms, ``503`` with the reasons while it cannot:

- the database cannot be reached (`ratscrew.storage.roles.Store.reachable`, which also retakes a
  PostgreSQL shard's lock when its connection was lost);
- the shard is not claimed (another process holds it, or its lock was lost and not retaken);
- rooms are paused for the database (`ratscrew.server.room.outage`).

Probes are serialised and answered from one look at most every `PROBE_EVERY_S` seconds, so a
busy health checker cannot pile up database connections.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

PROBE_EVERY_S = 1.0


class Readiness:
    """The readiness of one server: its reasons not to be ready, looked at most once a
    `PROBE_EVERY_S`."""

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._at = -PROBE_EVERY_S
        self._reasons: list[str] = []

    async def reasons(self, server: Any) -> list[str]:
        """Why ``server`` (a `ratscrew.server.state.Server`) is not ready; empty when it is."""
        async with self._lock:
            now = time.monotonic()
            if now - self._at >= PROBE_EVERY_S:
                self._reasons = await asyncio.to_thread(_look, server)
                self._at = time.monotonic()
            return list(self._reasons)


def _look(server: Any) -> list[str]:
    reasons = []
    store = server.store
    # while the store fails fast, the outage watch already asks the database every second: a
    # probe here could wait for a connect time-out, and /readyz must answer at once
    if getattr(store, "failing_fast", False) or not store.reachable():
        reasons.append(getattr(store, "unavailable_reason", "") or "the database cannot be reached")
    if not getattr(store, "claim_held", True):
        reasons.append(f"shard {server.shard or '(all rooms)'} is not claimed by this process")
    paused = sum(1 for room in list(server.rooms.values()) if room.paused is not None)
    if paused:
        reasons.append(f"{paused} room{'s are' if paused != 1 else ' is'} paused for the database")
    return reasons


async def healthz(request: Request) -> JSONResponse:
    """``GET /healthz``: liveness (the process answers)."""
    return JSONResponse({"ok": True})


async def readyz(request: Request) -> JSONResponse:
    """``GET /readyz``: readiness (see the module docstring)."""
    server = request.app.state.server
    readiness: Readiness | None = getattr(request.app.state, "readiness", None)
    if readiness is None:
        readiness = request.app.state.readiness = Readiness()
    reasons = await readiness.reasons(server)
    if reasons:
        return JSONResponse({"ready": False, "reasons": reasons}, status_code=503)
    return JSONResponse({"ready": True, "shard": server.shard, "rooms": len(server.rooms)})
