"""Quick play from the terminal (``ratscrew join --quick``): seek a table of strangers on the
server's ``/ws/seek`` (docs/protocol.md, "Quick play") and hand back the matched room.

It speaks only the protocol (``ratscrew.protocol``), like the rest of the terminal client: a
``seek`` with the player's key for that server, ``seeking`` counts shown as they come (with the
time waited), and the ``matched`` room's address once a table is made. Ctrl+C sends ``cancel``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.sync.client import connect

from ratscrew.client.address import RoomAddress


class SeekFailed(Exception):
    """The seek was refused or the server could not be reached; the message says why."""


def seek_url(server: str) -> str:
    """The seek socket of ``server`` (``ws://`` for ``http://``, ``wss://`` for ``https://``).

    >>> seek_url("https://ers.example.org")
    'wss://ers.example.org/ws/seek'
    """
    scheme, rest = server.split("://", 1)
    return f"{'wss' if scheme == 'https' else 'ws'}://{rest}/ws/seek"


def waiting_line(rules: str, players: int, waiting: int, seconds: float) -> str:
    """What the terminal shows while seeking.

    >>> waiting_line("classic", 2, 1, 7.4)
    'Looking for an opponent (classic) · 0:07 · 1 in the pool'
    """
    whole = int(seconds)
    who = "an opponent" if players == 2 else f"{players - 1} opponents"
    return f"Looking for {who} ({rules}) · {whole // 60}:{whole % 60:02d} · {waiting} in the pool"


def seek_table(server: str, rules: str, players: int, name: str, player_key: str,
               show: Callable[[str], None], timeout_s: float = 10.0) -> tuple[RoomAddress, dict[str, Any]]:
    """Seek until matched: the room's address and the ``matched`` message. `SeekFailed` with
    the server's reason when refused or unreachable; KeyboardInterrupt cancels the seek first."""
    started = time.monotonic()
    try:
        with connect(seek_url(server), open_timeout=timeout_s, max_size=2**20) as ws:
            ws.send(json.dumps({"type": "seek", "rules": rules, "players": players, "name": name,
                                "player_key": player_key}))
            waiting = 1
            try:
                while True:
                    try:
                        frame = ws.recv(timeout=1.0)
                    except TimeoutError:
                        show(waiting_line(rules, players, waiting, time.monotonic() - started))
                        continue
                    message = json.loads(frame)
                    if message.get("type") == "seeking":
                        waiting = int(message["waiting"])
                        show(waiting_line(rules, players, waiting, time.monotonic() - started))
                    elif message.get("type") == "matched":
                        return RoomAddress(server, str(message["room"])), message
                    elif message.get("type") == "error":
                        raise SeekFailed(str(message.get("message", "the server refused the seek")))
            except KeyboardInterrupt:
                ws.send(json.dumps({"type": "cancel"}))
                raise
    except ConnectionClosed as closed:
        raise SeekFailed(f"the server closed the seek ({closed.rcvd.reason if closed.rcvd else 'no reason'})"
                         ) from None
    except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as error:
        raise SeekFailed(f"cannot reach {server} to seek a table: {error}") from None
