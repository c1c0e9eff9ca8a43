"""Finished games over HTTP: a game's record (without its room's code) and replay, the replay
page, and the leaderboard."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ratscrew.history import replay_steps
from ratscrew.narrate import describe_event
from ratscrew.protocol.http import LeaderboardAnswer
from ratscrew.server.http.pages import error_response, not_found_page, page
from ratscrew.server.ladder import ranking
from ratscrew.server.state import server_of

MAX_GAME_ID = 2**63 - 1
"""The largest game id a database holds (a signed 64-bit integer in SQLite and PostgreSQL)."""


async def _stored_record(request: Request) -> dict[str, Any] | None:
    """The record of the game the path names, or ``None`` when no game can have that id (not
    digits, or beyond what the database holds: asking the database would fail) or none has."""
    text = str(request.path_params["game_id"])
    if not text.isascii() or not text.isdigit() or len(text) > 19 or int(text) > MAX_GAME_ID:
        return None
    server = server_of(request)
    return await server.call_store(request, server.store.game_record, int(text))


async def replay_page(request: Request) -> Response:
    """``GET /games/ID``: the replay viewer."""
    if await _stored_record(request) is None:
        return not_found_page("There is no finished game with that number.")
    return page("replay.html")


async def leaderboard_page(request: Request) -> Response:
    """``GET /leaderboard``."""
    return page("leaderboard.html")


async def game_record(request: Request) -> JSONResponse:
    """``GET /api/games/ID/record``."""
    record = await _stored_record(request)
    if record is None:
        return error_response(404, "no finished game with that number")
    server = server_of(request)
    notes = await server.call_store(request, server.store.rating_notes, int(request.path_params["game_id"]))
    return JSONResponse(public_record(record, notes), headers={
        "content-disposition": f'inline; filename="ratscrew-game-{request.path_params["game_id"]}.json"'})


def public_record(record: dict[str, Any], notes: dict[str, Any] | None = None) -> dict[str, Any]:
    """A stored game record as anyone may read it: without the room's code (the room may still
    be open, and its code is all a stranger needs to join it), and with what rating made of it
    (``notes``: `Store.rating_notes`): ``unrated`` says why the game changed no rating, and
    ``rating`` whether it is rated yet and why a seat's part did not count (who left early)."""
    room = record.get("room")
    if isinstance(room, dict) and "code" in room:
        record = {**record, "room": {k: v for k, v in room.items() if k != "code"}}
    rating = {"rated": False, "unrated": None, "seats": {}} if notes is None else {"rated": True, **notes}
    record = {**record, "rating": rating}
    if rating["unrated"] and not record.get("unrated"):
        record["unrated"] = rating["unrated"]
    return record


@lru_cache(maxsize=32)
def _replay_frames(record_text: str) -> str:
    record = json.loads(record_text)
    names = record.get("names") or [f"Player {i + 1}" for i in range(len(record["hands"]))]
    frames = [{"observation": step.observation, "events": [e.public_dict() for e in step.events],
               "lines": [describe_event(e, names) for e in step.events]}
              for step in replay_steps(record) if step.events]
    return json.dumps({"names": names, "frames": frames})


async def game_replay(request: Request) -> Response:
    """``GET /api/games/ID/replay``: the spectator's view after every step that did something."""
    record = await _stored_record(request)
    if record is None:
        return error_response(404, "no finished game with that number")
    return Response(_replay_frames(json.dumps(record, sort_keys=True)), media_type="application/json")


async def leaderboard(request: Request) -> JSONResponse:
    """``GET /api/leaderboard?rules=NAME``."""
    rules = request.query_params.get("rules", "classic")
    if len(rules) > 64:
        return error_response(400, "rules: a ruleset name is at most 64 characters")
    server = server_of(request)
    ranked = await server.call_store(request, ranking.leaderboard, server.store, rules)
    answer: LeaderboardAnswer = {"rules": rules, "players": ranked}
    return JSONResponse(answer)
