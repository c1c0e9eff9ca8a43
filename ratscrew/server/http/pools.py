"""``GET /api/pools``: every quick-play pool with how many wait and how many play
(docs/protocol.md, "Quick play")."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route, WebSocketRoute

from ratscrew.protocol.http import PoolsAnswer
from ratscrew.server.ws.seek import Seeking, seek_endpoint


async def pools(request: Request) -> JSONResponse:
    """``GET /api/pools`` → ``{"pools": [{"rules", "players", "waiting", "playing"}]}``."""
    seeking: Seeking = request.app.state.seeking
    answer: PoolsAnswer = {"pools": await seeking.service.listing()}
    return JSONResponse(answer)


ROUTES: list[BaseRoute] = [Route("/api/pools", pools), WebSocketRoute("/ws/seek", seek_endpoint)]
"""Quick play's routes (before ``/ws/{code}``, which would take ``seek`` for a room code)."""
