"""Rooms over HTTP: the home page, a room's page, ``POST /api/rooms``, a room's public summary,
the presets and the bots one may seat."""

from __future__ import annotations

import logging
import time
from functools import lru_cache

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from ratscrew.bots.profile import LEVELS
from ratscrew.protocol.client_messages import parse_room_request
from ratscrew.protocol.codec import ProtocolError, decode_json
from ratscrew.protocol.http import AgentInfo, BotsAnswer, PresetInfo, PresetsAnswer, RoomCreated
from ratscrew.rulebook import explain
from ratscrew.ruleset import PRESET_NAMES, Ruleset
from ratscrew.server.http.pages import coded_error, error_response, not_found_page, page
from ratscrew.server.ops.expiry import (
    CLOSED_MESSAGE,
    closed_page,
    room_closed,
)
from ratscrew.server.ops.shards import misdirected, misdirected_page, new_room_code_async
from ratscrew.server.room.room import Room
from ratscrew.server.state import client_address, server_of

log = logging.getLogger("ratscrew.server")


async def home(request: Request) -> Response:
    """``GET /``: create a room, join one, leaderboard."""
    return page("index.html")


async def room_page(request: Request) -> Response:
    """``GET /r/CODE``: the room's page."""
    code = str(request.path_params["code"]).upper()
    server = server_of(request)
    wrong_shard = misdirected(code, server.shard)
    if wrong_shard is not None and await server.store.room_exists_async(code):
        log.warning("%s (or no shard %s runs; see ratscrew admin rooms list)", wrong_shard, code[:1])
        return misdirected_page()
    room = server.room_lookup(request, code)
    if isinstance(room, str):
        return HTMLResponse("<!doctype html><meta charset=utf-8><title>Too many tries · ratscrew</title>"
                            "<meta name=viewport content='width=device-width, initial-scale=1'>"
                            "<link rel=stylesheet href=/static/css/ratscrew.css>"
                            f"<main class=notfound><h1>Too many tries</h1><p>{room.capitalize()}.</p>"
                            "</main>", status_code=429)
    if room is None:
        if wrong_shard is None and await room_closed(server.store, code):
            return closed_page()
        return not_found_page("There is no room with that code. Check the link, or start a new room.")
    return page("room.html")


async def create_room(request: Request) -> JSONResponse:
    """``POST /api/rooms``: a new room from a validated body."""
    server = server_of(request)
    body = await request.body()
    try:
        request_data = parse_room_request(decode_json(body.decode("utf-8", errors="replace")))
    except ProtocolError as error:
        return error_response(400, str(error))
    address = client_address(request.client)
    if not await server.room_counter.allow_async(address, time.monotonic()):
        return error_response(429, f"at most {server.limits.rooms_per_hour} rooms an hour from one address; "
                           "try again later")
    code = await new_room_code_async(server.store, server.shard)
    room = await Room.create_async(request_data, server.store, code, absence=server.absence,
                                   writer=server.writer)
    room.estimates_for = address
    server.add_room(room)
    return JSONResponse(RoomCreated(code=room.code, url=f"/r/{room.code}"), status_code=201)


async def room_info(request: Request) -> JSONResponse:
    """``GET /api/rooms/CODE``: the room's public summary."""
    code = str(request.path_params["code"]).upper()
    server = server_of(request)
    wrong_shard = misdirected(code, server.shard)
    if wrong_shard is not None and await server.store.room_exists_async(code):
        return error_response(421, wrong_shard)
    room = server.room_lookup(request, code)
    if isinstance(room, str):
        return error_response(429, room)
    if room is None:
        if wrong_shard is None and await room_closed(server.store, code):
            return coded_error(410, "room_closed", CLOSED_MESSAGE)
        return error_response(404, "no room with that code")
    return JSONResponse(room.summary())


@lru_cache(maxsize=1)
def _presets() -> PresetsAnswer:
    presets: list[PresetInfo] = []
    for name in PRESET_NAMES:
        rules = Ruleset.preset(name)
        presets.append({"name": name, "summary": rules.summary, "toml": rules.to_toml(),
                        "lines": explain(rules), "max_players": rules.max_players})
    return {"presets": presets}


async def presets(request: Request) -> JSONResponse:
    """``GET /api/presets``."""
    return JSONResponse(_presets())


async def bots(request: Request) -> JSONResponse:
    """``GET /api/bots``."""
    from ratscrew.rl.agents import seat_listing

    answer: BotsAnswer = {
        "levels": [{"name": name, "mean_reaction_ms": round(p.mean_reaction_ms), "memory": p.memory}
                   for name, p in LEVELS.items()],
        "agents": [AgentInfo(name=a["name"], description=a["description"], reaction=a["reaction"],
                             mean_reaction_ms=a["mean_reaction_ms"]) for a in seat_listing()]}
    return JSONResponse(answer)
