"""What an online client remembers between runs: the name it plays under, for every room it
sat in the token that takes its seat back, and for every server its player key (the secret that
is this player there: ratings and history hang on it, see docs/online.md, "Players and
ratings"; a key per server, so that no server learns a key that works on another).

The file is ``online.json`` in the user's state directory (``platformdirs.user_state_dir``:
``~/.local/state/ratscrew`` on Linux, or ``$XDG_STATE_HOME/ratscrew``), readable by its owner
only, because a token is the key to a seat. A file that cannot be read is set aside as
``online.json.bad`` and the client starts afresh.

>>> import tempfile
>>> saved = SavedState(Path(tempfile.mkdtemp()) / "online.json")
>>> saved.token("http://127.0.0.1:8000", "K7QPX2") is None
True
>>> saved.save_token("http://127.0.0.1:8000", "K7QPX2", "secret")
>>> SavedState(saved.path).token("http://127.0.0.1:8000", "K7QPX2")
'secret'
>>> key = saved.player_key("http://127.0.0.1:8000")
>>> SavedState(saved.path).player_key("http://127.0.0.1:8000") == key
True
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import platformdirs

from ratscrew.protocol.keys import KEY_PATTERN, new_key  # the key rules' one home (light)

FILE_NAME = "online.json"
MAX_ROOMS = 200
"""Seats remembered at most; the oldest are forgotten first."""


def default_path() -> Path:
    """``online.json`` in the user's state directory for ratscrew."""
    return Path(platformdirs.user_state_dir("ratscrew")) / FILE_NAME


def _seat_key(server: str, code: str) -> str:
    return f"{server} {code}"


class SavedState:
    """The client's saved name and seat tokens (see the module docstring)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else default_path()
        self._data = self._load()

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            data = None
        if (not isinstance(data, dict) or not isinstance(data.get("seats", {}), dict)
                or not isinstance(data.get("player_keys", {}), dict)):
            with contextlib.suppress(OSError):
                self.path.replace(self.path.with_name(self.path.name + ".bad"))
            return {}
        return data

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(self.path.name + ".tmp")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(self._data, file, indent=1, sort_keys=True)
        partial.replace(self.path)

    @property
    def name(self) -> str | None:
        """The name last played under, if any."""
        name = self._data.get("name")
        return name if isinstance(name, str) and name else None

    def remember_name(self, name: str) -> None:
        """Play under ``name`` next time too."""
        if name != self.name:
            self._data["name"] = name
            self._write()

    def _seats(self) -> dict[str, Any]:
        seats = self._data.setdefault("seats", {})
        assert isinstance(seats, dict)
        return seats

    def token(self, server: str, code: str) -> str | None:
        """The token of the seat held in room ``code`` on ``server``, if any."""
        entry = self._seats().get(_seat_key(server, code))
        token = entry.get("token") if isinstance(entry, dict) else None
        return token if isinstance(token, str) else None

    def save_token(self, server: str, code: str, token: str) -> None:
        """Keep the token the room issued, to take the seat back after a drop or a restart."""
        seats = self._seats()
        seats.pop(_seat_key(server, code), None)
        seats[_seat_key(server, code)] = {"token": token}
        while len(seats) > MAX_ROOMS:
            del seats[next(iter(seats))]
        self._write()

    def forget_token(self, server: str, code: str) -> None:
        """The token no longer works there (kicked, or the room forgot it)."""
        if self._seats().pop(_seat_key(server, code), None) is not None:
            self._write()

    def player_key(self, server: str) -> str:
        """This computer's player key on ``server``: made on first use (like the browser's, a
        random secret) and kept, so the player keeps their rating and history there."""
        keys = self._data.setdefault("player_keys", {})
        assert isinstance(keys, dict)
        key = keys.get(server)
        if not isinstance(key, str) or not KEY_PATTERN.fullmatch(key):
            key = keys[server] = new_key()
            self._write()
        return key

    def has_player_key(self, server: str) -> bool:
        """A player key for ``server`` is kept (it may never have played there)."""
        keys = self._data.get("player_keys", {})
        return isinstance(keys, dict) and isinstance(keys.get(server), str)

    def replace_player_key(self, server: str, key: str) -> None:
        """Play as the player of ``key`` on ``server`` from now on (an imported key). The key
        kept until now is not thrown away: it is kept under ``replaced_player_keys``, so the
        player it was can still be brought back by hand.

        >>> import tempfile
        >>> saved = SavedState(Path(tempfile.mkdtemp()) / "online.json")
        >>> old = saved.player_key("http://s")
        >>> saved.replace_player_key("http://s", "k" * 43)
        >>> saved.player_key("http://s") == "k" * 43
        True
        >>> SavedState(saved.path).replaced_keys("http://s") == [old]
        True
        """
        if not KEY_PATTERN.fullmatch(key):
            raise ValueError("a player key is 20 to 64 letters, digits, - or _")
        keys = self._data.setdefault("player_keys", {})
        assert isinstance(keys, dict)
        old = keys.get(server)
        if isinstance(old, str) and old != key:
            replaced = self._data.get("replaced_player_keys")
            if not isinstance(replaced, dict):
                replaced = self._data["replaced_player_keys"] = {}
            earlier = replaced.get(server)
            replaced[server] = [*(earlier if isinstance(earlier, list) else []), old]
        keys[server] = key
        self._write()

    def replaced_keys(self, server: str) -> list[str]:
        """The keys ``server`` was played with before an imported key replaced them, oldest first."""
        replaced = self._data.get("replaced_player_keys", {})
        keys = replaced.get(server, []) if isinstance(replaced, dict) else []
        return [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []
