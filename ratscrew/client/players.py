"""Moving a player between devices from the terminal: a server's *import code* (its player key, a
dot and a check of the server's identity; docs/online.md, "Players and ratings") fetched for the
key this computer keeps, or taken from another device so that this computer plays as that player.

Both are plain HTTP calls (``POST /api/players/export`` and ``POST /api/players/import``,
docs/protocol.md); a refusal is a `PlayerCodeError` whose message says what to do.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any


class PlayerCodeError(Exception):
    """The server would not take (or make) the code; the message says why and what to do."""


@dataclass(frozen=True)
class ImportedPlayer:
    """The player an import code names on its server: public id, name, and the key to keep."""

    player_id: str
    name: str
    player_key: str


def _post(server: str, path: str, body: dict[str, str], timeout: float) -> dict[str, Any]:
    """``POST`` JSON to the server; the JSON answer (an error answer too), or `PlayerCodeError`
    when no ratscrew server answers."""
    request = urllib.request.Request(f"{server}{path}", data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json",
                                              "accept": "application/json"})
    try:
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as error:
            raw = error.read()
        data = json.loads(raw.decode("utf-8"))
    except (urllib.error.URLError, OSError) as error:
        raise PlayerCodeError(f"cannot reach a ratscrew server at {server} "
                              f"({getattr(error, 'reason', error)}): check the --server") from None
    except (ValueError, UnicodeDecodeError):
        raise PlayerCodeError(f"{server} is not a ratscrew server (its answer is not JSON)") from None
    if not isinstance(data, dict):
        raise PlayerCodeError(f"{server} is not a ratscrew server (unexpected answer)")
    return data


def import_player(server: str, code: str, timeout: float = 10.0) -> ImportedPlayer:
    """The player of import ``code`` on ``server`` (`PlayerCodeError` if the server refuses it:
    not a code, a code of another server, or no such player)."""
    data = _post(server, "/api/players/import", {"code": code.strip()}, timeout)
    if "error" in data:
        raise PlayerCodeError(f"--import-code: {data.get('message', data['error'])}")
    try:
        return ImportedPlayer(str(data["player_id"]), str(data["name"]), str(data["player_key"]))
    except KeyError:
        raise PlayerCodeError(f"{server} is not a ratscrew server (unexpected answer)") from None


def export_code(server: str, player_key: str, timeout: float = 10.0) -> str:
    """The import code of ``player_key`` on ``server``, to play as this player on another device
    (`PlayerCodeError` if the key never played there)."""
    data = _post(server, "/api/players/export", {"player_key": player_key}, timeout)
    if "error" in data:
        raise PlayerCodeError(f"{data.get('message', data['error'])} (on {server})")
    code = data.get("code")
    if not isinstance(code, str):
        raise PlayerCodeError(f"{server} is not a ratscrew server (unexpected answer)")
    return code
