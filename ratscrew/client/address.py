"""Where an online room is: a server's address and a room code, read from what a person types.

``ratscrew join`` accepts a room's code (``K7QPX2``, with ``--server`` naming the server) or the
link the browser shows (``http://host:8000/r/K7QPX2``); both become a `RoomAddress`.

>>> parse_room_address("k7qpx2")
RoomAddress(server='http://127.0.0.1:8000', code='K7QPX2')
>>> parse_room_address("https://ers.example.org/games/r/K7QPX2?x=1").websocket_url
'wss://ers.example.org/games/ws/K7QPX2'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

DEFAULT_SERVER = "http://127.0.0.1:8000"
"""The server ``ratscrew serve`` runs by default, on this computer."""

_CODE = re.compile(r"[A-Za-z0-9]{1,16}")


class AddressError(ValueError):
    """Text that names no room; the message says what to type instead."""


@dataclass(frozen=True)
class RoomAddress:
    """One room on one server: ``server`` is its base address (``http://host:port``, with the
    path prefix when a proxy serves it under one), ``code`` the room's code in capitals."""

    server: str
    code: str

    @property
    def websocket_url(self) -> str:
        """The room's websocket (``ws://`` for ``http://``, ``wss://`` for ``https://``)."""
        scheme, rest = self.server.split("://", 1)
        return f"{'wss' if scheme == 'https' else 'ws'}://{rest}/ws/{quote(self.code)}"

    @property
    def info_url(self) -> str:
        """``GET /api/rooms/CODE``: the room's public summary."""
        return f"{self.server}/api/rooms/{quote(self.code)}"

    @property
    def page_url(self) -> str:
        """The room's page in a browser."""
        return f"{self.server}/r/{quote(self.code)}"


def normalize_server(text: str) -> str:
    """A server's base address: ``http://`` added when no scheme is given, no trailing ``/``.

    >>> normalize_server("192.168.1.20:8000/"), normalize_server("https://ers.example.org")
    ('http://192.168.1.20:8000', 'https://ers.example.org')
    >>> normalize_server("ftp://x")
    Traceback (most recent call last):
    ...
    ratscrew.client.address.AddressError: --server must be an http:// or https:// address, not 'ftp://x'
    """
    text = text.strip()
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise AddressError(f"--server must be an http:// or https:// address, not {text!r}")
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def parse_room_address(text: str, server: str | None = None) -> RoomAddress:
    """The room that ``text`` names: a room link (its server wins over ``server``) or a code
    on ``server`` (default: :data:`DEFAULT_SERVER`).

    >>> parse_room_address("K7QPX2", server="192.168.1.20:8000")
    RoomAddress(server='http://192.168.1.20:8000', code='K7QPX2')
    >>> parse_room_address("localhost:8000/r/abc234")
    RoomAddress(server='http://localhost:8000', code='ABC234')
    >>> parse_room_address("K7 QPX")
    Traceback (most recent call last):
    ...
    ratscrew.client.address.AddressError: 'K7 QPX' is neither a room code (like K7QPX2) nor a room link (like http://127.0.0.1:8000/r/K7QPX2)
    """
    text = text.strip()
    if _CODE.fullmatch(text):
        return RoomAddress(normalize_server(server or DEFAULT_SERVER), text.upper())
    link = text if "://" in text else "http://" + text
    parts = urlsplit(link)
    head, sep, code = parts.path.rpartition("/r/")
    code = code.strip("/")
    if parts.scheme in ("http", "https") and parts.netloc and sep and _CODE.fullmatch(code):
        return RoomAddress(normalize_server(f"{parts.scheme}://{parts.netloc}{head}"), code.upper())
    raise AddressError(f"{text!r} is neither a room code (like K7QPX2) nor a room link "
                       f"(like {DEFAULT_SERVER}/r/K7QPX2)")
