"""The HTTP answers every route shares: the page files (`WEB_DIR`), a not-found page, JSON
errors, and the handlers of errors raised anywhere (a database away, a client gone, an HTTP
error)."""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response

from ratscrew.protocol.http import CodedError

WEB_DIR = Path(__file__).resolve().parents[2] / "web"
"""The browser table's files (HTML, CSS, JavaScript modules), served as they are."""


def error_response(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def page(name: str) -> FileResponse:
    return FileResponse(WEB_DIR / name, media_type="text/html")


def not_found_page(what: str) -> HTMLResponse:
    return HTMLResponse(
        "<!doctype html><meta charset=utf-8><title>Not found · ratscrew</title>"
        "<meta name=viewport content='width=device-width, initial-scale=1'>"
        "<link rel=stylesheet href=/static/css/ratscrew.css>"
        f"<main class=notfound><h1>Not found</h1><p>{what}</p>"
        "<p><a href=/>Start or join a room</a></p></main>",
        status_code=404)


def coded_error(status: int, code: str, message: str) -> JSONResponse:
    """An API error with a code a client can act on: ``{"error": CODE, "message": TEXT}``."""
    return JSONResponse(CodedError(error=code, message=message), status_code=status)


async def store_unavailable(request: Request, exc: Exception) -> Response:
    """The database cannot be reached right now: ``503`` with ``{"error": …}``."""
    return error_response(503, "the server cannot reach its database right now; try again in a moment")


async def client_gone(request: Request, exc: Exception) -> Response:
    """The client left (or was closed for being too slow) before its body was all here: there
    is nobody to answer, and nothing went wrong on this side."""
    return Response(status_code=400)


async def http_error(request: Request, exc: Exception) -> Response:
    """Errors under ``/api`` as ``{"error": …}``; pages as a short HTML page."""
    assert isinstance(exc, HTTPException)
    if request.url.path.startswith("/api/"):
        return error_response(exc.status_code, str(exc.detail), exc.headers)
    if exc.status_code == 404:
        return not_found_page("There is nothing at this address.")
    return HTMLResponse(f"<!doctype html><title>{exc.status_code}</title><p>{exc.status_code}: "
                        f"{html.escape(str(exc.detail))}</p>",
                        status_code=exc.status_code, headers=exc.headers)
