"""Players over HTTP: a player's page and record, and moving a player key to another device
(export and import codes)."""

from __future__ import annotations

import time
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ratscrew.protocol.codec import ProtocolError, decode_json
from ratscrew.protocol.http import PlayerExported, PlayerImported
from ratscrew.server.http import pages
from ratscrew.server.http.pages import coded_error
from ratscrew.server.ladder import players
from ratscrew.server.state import client_address, server_of
from ratscrew.storage.roles import Store


async def player_page(request: Request) -> Response:
    """``GET /players/ID``: a player's page (ratings, reactions, slaps, games)."""
    server = server_of(request)
    if not (pages.WEB_DIR / "player.html").is_file() or await server.call_store(
            request, server.store.player, str(request.path_params["player_id"])) is None:
        return pages.not_found_page("There is no player with that id.")
    return pages.page("player.html")


async def player_info(request: Request) -> JSONResponse:
    """``GET /api/players/ID`` (see docs/protocol.md)."""
    server = server_of(request)
    info = await server.call_store(request, players.player_page, server.store,
                                   str(request.path_params["player_id"]))
    if info is None:
        return coded_error(404, "unknown_player", "there is no player with that id on this server")
    return JSONResponse(info)


async def _key_request(request: Request, field_name: str) -> str | JSONResponse:
    body = await request.body()
    try:
        data = decode_json(body.decode("utf-8", errors="replace"))
    except ProtocolError as error:
        return coded_error(400, "bad_json", str(error))
    value = data.get(field_name)
    if not isinstance(value, str) or len(value) > 200:
        return coded_error(400, "bad_message", f"send {{\"{field_name}\": \"...\"}}")
    return value


async def import_player(request: Request) -> JSONResponse:
    """``POST /api/players/import {"code"}``: the player key of an import code from this
    server, to keep on another device."""
    return await _player_code_answer(request, "code", players.import_code)


async def export_player(request: Request) -> JSONResponse:
    """``POST /api/players/export {"player_key"}``: the import code that moves this key to
    another device."""
    return await _player_code_answer(request, "player_key", players.export)


async def _player_code_answer(
        request: Request, field_name: str,
        answer: Callable[[Store, str], PlayerExported | PlayerImported]) -> JSONResponse:
    """``answer`` for the request body's ``field_name``, or the error that says what is wrong."""
    value = await _key_request(request, field_name)
    if isinstance(value, JSONResponse):
        return value
    server = server_of(request)
    if not await server.key_code_counter.allow_async(client_address(request.client), time.monotonic()):
        return coded_error(429, "rate_limited", f"at most {server.limits.key_codes_per_hour} "
                            "exports and imports an hour from one address; try again later")
    try:
        return JSONResponse(await server.call_store(request, answer, server.store, value))
    except players.PlayerCodeError as error:
        return coded_error(404 if error.code == "unknown_player" else 400, error.code, str(error))
