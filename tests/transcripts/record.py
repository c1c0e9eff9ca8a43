"""Record the message transcripts the client-session tests replay (tests/test_client_session.py).

Run by hand against a fresh ``ratscrew serve`` it starts itself; it rewrites the JSON files next
to it. Each file is a list: every message one client was sent (pings left out), with ``"at"``:
seconds since the recording began when it arrived, and ``{"type": "connected"}`` where a
(re)connection opened. Record again after a deliberate change of the protocol, then look at the
diff::

    PYTHONPATH=. .venv/bin/python tests/transcripts/record.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from serving import Player, ServerProcess  # noqa: E402
from test_join import early_double  # noqa: E402

KEY = "transcript-tess-Vb4Kq8Zr2Xw6Hn0Jd"  # a new player's key must look random


class Recorder:
    """One client's transcript, across connections."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.entries: list[dict[str, Any]] = []
        self.player: Player | None = None

    def connect(self, player: Player) -> Player:
        self.player = player
        self.entries.append({"type": "connected"})
        return player

    def take(self, quiet: float = 0.3) -> None:
        """Everything the client has been sent until ``quiet`` seconds pass without a message."""
        assert self.player is not None
        while (message := self.player.poll(quiet)) is not None:
            if message["type"] != "ping":
                self.entries.append({**message, "at": round(time.monotonic() - self.started, 3)})

    def save(self, name: str) -> None:
        (HERE / f"{name}.json").write_text(json.dumps(self.entries, indent=1, ensure_ascii=False) + "\n")


def take_turn(players: dict[int, Player], watcher: Recorder | None, cards: int) -> None:
    """The people of ``players`` play ``cards`` cards in turn (bots play their own)."""
    everyone = list(players.values())
    for _ in range(cards):
        for player in everyone:
            if watcher is None or player is not watcher.player:
                player.drain()
        if watcher is not None:
            watcher.take(0.05)
        state = max((p.state for p in everyone if p.state), key=lambda s: int(s["version"]))
        turn = state["observation"]["turn"]
        if turn in players:
            players[turn].send({"type": "play"})
        time.sleep(0.15)


def late_joiner(server: ServerProcess) -> None:
    """Tess joins mid-game, waits, is seated when it ends, plays the rematch, reconnects, asks
    for history since a version."""
    code = server.new_room(seats=2, bots=["casual"], seed=11, pace="fast", turn_timeout_ms=60_000)
    ann = server.player(code)
    ann.join("Ann")
    ann.send({"type": "start"})
    ann.wait_for("state")
    take_turn({0: ann}, None, 8)
    tess = Recorder()
    tess.connect(server.player(code)).join("Tess", player_key=KEY)
    tess.entries.append({**tess.player.messages[-1], "at": 0.0} if tess.player else {})
    tess.take()
    take_turn({0: ann}, tess, 3)
    ann.send({"type": "resign"})
    tess.take()
    ann.wait_for("game_over")
    ann.send({"type": "rematch"})
    ann.wait_for("state", lambda m: m["game"] == 2)
    tess.take()
    assert tess.player is not None
    take_turn({0: ann, 1: tess.player}, tess, 4)
    tess.take()
    welcome = next(m for m in tess.entries if m["type"] == "welcome")
    assert tess.player is not None
    tess.player.close()
    again = tess.connect(server.player(code))
    again.join("Tess", token=welcome["token"], player_key=KEY)
    tess.entries.append({**again.messages[-1], "at": round(time.monotonic() - tess.started, 3)})
    tess.take()
    latest = max(int(m["version"]) for m in tess.entries if m["type"] == "state")
    again.send({"type": "history", "since": latest - 3})
    tess.take()
    ann.send({"type": "resign"})
    tess.take(1.0)
    tess.save("late_joiner")


def contested_slap(server: ServerProcess) -> None:
    """Ann and Bob both slap a double: Bob's transcript has the judgement."""
    seed, to_double = early_double()
    code = server.new_room(seats=2, seed=seed, turn_timeout_ms=60_000)
    ann = server.player(code)
    ann.join("Ann")
    bob = Recorder()
    bob.connect(server.player(code)).join("Bob")
    assert bob.player is not None
    bob.entries.append({**bob.player.messages[-1], "at": 0.0})
    ann.send({"type": "start"})
    ann.wait_for("state")
    bob.take()
    take_turn({0: ann, 1: bob.player}, bob, to_double)
    bob.take()
    ann.send({"type": "slap"})
    bob.player.send({"type": "slap"})
    time.sleep(1.5)
    bob.take(0.5)
    assert any(m["type"] == "judgement" for m in bob.entries), "no judgement recorded"
    bob.save("contested_slap")


def main() -> None:
    with ServerProcess(Path(tempfile.mkdtemp()) / "transcripts.db") as server:
        late_joiner(server)
        contested_slap(server)


if __name__ == "__main__":
    main()
