"""Shards: several server processes, each owning the rooms whose code begins with its letter.

A room lives in exactly one process. ``ratscrew serve --shard A`` makes room codes that begin
with ``A`` and loads only those rooms on start; a proxy (``deploy/nginx.conf.template``) routes
``/r/CODE``, ``/ws/CODE`` and ``/api/rooms/CODE`` by the code's first letter, and everything the
rooms share (finished games, statistics, leaderboards, replays, the per-address limits) lives in
PostgreSQL. A request for another shard's room that reaches this process (a misconfigured
proxy) is refused with `misdirected`'s message, never served by a second copy of the room.
"""

from __future__ import annotations

from starlette.responses import HTMLResponse

from ratscrew.server.room.room import CODE_ALPHABET, new_code
from ratscrew.storage.roles import Store


def check_shard(letter: str) -> str:
    """``--shard``'s letter, upper-cased; `ValueError` naming the letters allowed.

    >>> check_shard("b")
    'B'
    >>> check_shard("O")
    Traceback (most recent call last):
    ...
    ValueError: --shard: 'O' is not a room-code letter; use one of ABCDEFGHJKLMNPQRSTUVWXYZ23456789
    """
    upper = letter.upper()
    if len(upper) != 1 or upper not in CODE_ALPHABET:
        raise ValueError(f"--shard: {letter!r} is not a room-code letter; use one of {CODE_ALPHABET}")
    return upper


def shard_letters(count: int) -> list[str]:
    """The letters of ``count`` shards (``--workers``): the first ones of the code alphabet.

    >>> shard_letters(3)
    ['A', 'B', 'C']
    """
    if not 1 <= count <= len(CODE_ALPHABET):
        raise ValueError(f"--workers: between 1 and {len(CODE_ALPHABET)} shards, not {count}")
    return list(CODE_ALPHABET[:count])


def misdirected(code: str, shard: str | None) -> str | None:
    """Why this process must not serve room ``code``, or ``None`` when it owns it.

    >>> misdirected("AB23CD", "A") is None, misdirected("AB23CD", None) is None
    (True, True)
    >>> misdirected("BCDEFG", "A")
    'room BCDEFG belongs to shard B, and this server is shard A: the proxy sent it to the wrong server'
    """
    if shard is None or code[:1] == shard:
        return None
    return (f"room {code} belongs to shard {code[:1]}, and this server is shard {shard}: "
            "the proxy sent it to the wrong server")


def misdirected_page() -> HTMLResponse:
    """The page a person opening another shard's room gets (421) instead of the API's JSON: the
    room exists, but no server here takes it (a shard that is down or not run at all, such as the
    rooms of a one-process database moved to shards, or a proxy that routes wrongly)."""
    return HTMLResponse(
        "<!doctype html><meta charset=utf-8><title>Room not available · ratscrew</title>"
        "<meta name=viewport content='width=device-width, initial-scale=1'>"
        "<link rel=stylesheet href=/static/css/ratscrew.css>"
        "<main class=notfound><h1>This room is not available</h1>"
        "<p>The server that keeps this room is not taking it just now. Try the link again in a "
        "minute, or start a new room.</p>"
        "<p><a href=/>Start a new room</a></p></main>",
        status_code=421)


async def new_room_code_async(store: Store, shard: str | None) -> str:
    """A room code not used yet, beginning with the shard's letter (any code without a shard);
    asked of the store without a database round trip on the event loop."""
    while True:
        code = shard_code(new_code(), shard)
        if not await store.room_exists_async(code):
            return code


def shard_code(code: str, shard: str | None) -> str:
    """``code`` with its first letter the shard's (as it is without a shard).

    >>> shard_code("KQXT", "B"), shard_code("KQXT", None)
    ('BQXT', 'KQXT')
    """
    return code if shard is None else shard + code[1:]
