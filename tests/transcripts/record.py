"""Record the message transcripts the client-session tests replay (tests/test_client_session.py).

Run by hand against a fresh ``ratscrew serve`` it starts itself; it rewrites the JSON files next
to it. Each file is a list: every message one client was sent (pings left out), with ``"at"``:
seconds since the recording began when it arrived, and ``{"type": "connected"}`` where a
(re)connection opened. Record again after a deliberate change of the protocol, then look at the
diff::

    PYTHONPATH=. .venv/bin/python tests/transcripts/record.py                  # all of them
    PYTHONPATH=. .venv/bin/python tests/transcripts/record.py database_outage  # just one

``database_outage`` runs its server on a PostgreSQL cluster of its own, which it stops and starts
again: it needs PostgreSQL's programs (tests/postgres.py finds them, and runs them as the
``postgres`` user when this runs as root).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from postgres import running_cluster  # noqa: E402
from serving import Player, ServerProcess  # noqa: E402
from test_join import early_double  # noqa: E402

from ratscrew.client.session import RoomSession  # noqa: E402
from ratscrew.protocol.server_messages import ServerMessage  # noqa: E402

KEY = "transcript-tess-Vb4Kq8Zr2Xw6Hn0Jd"  # a new player's key must look random


class Recorder:
    """One client's transcript, across connections. Like a real client, it asks the room for
    the history its client session asks for (states that skipped versions), so the answer is
    in the transcript too."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.entries: list[dict[str, Any]] = []
        self.player: Player | None = None
        self.session = RoomSession("")

    def connect(self, player: Player) -> Player:
        self.player = player
        self.entries.append({"type": "connected"})
        self.session.connected()
        return player

    def keep(self, message: dict[str, Any]) -> None:
        """One message the client was sent, in the transcript; what the session asks to send
        back about the history is sent."""
        assert self.player is not None
        at = round(time.monotonic() - self.started, 3)
        self.entries.append({**message, "at": at})
        for asked in self.session.receive(cast(ServerMessage, message), at).send:
            if asked["type"] == "history":
                self.player.send(asked)

    def joined(self) -> None:
        """Keep what the client was sent while it joined (``Player.join`` read it)."""
        assert self.player is not None
        for message in self.player.messages:
            if message["type"] != "ping":
                self.keep(message)

    def take_until(self, kind: str, timeout: float = 15.0) -> dict[str, Any]:
        """Everything the client is sent until a message of type ``kind`` came, and after it
        until a quiet moment; that message."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            before = len(self.entries)
            self.take(0.1)
            found = next((m for m in self.entries[before:] if m["type"] == kind), None)
            if found is not None:
                self.take()
                return found
        raise AssertionError(f"no {kind} message within {timeout} s")

    def take(self, quiet: float = 0.3) -> None:
        """Everything the client has been sent until ``quiet`` seconds pass without a message."""
        assert self.player is not None
        while (message := self.player.poll(quiet)) is not None:
            if message["type"] != "ping":
                self.keep(message)

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


def database_outage() -> None:
    """Ann and Bob play on a PostgreSQL database the server loses for a while: the room pauses
    (``unavailable``, and Ann's play is refused), then it comes back (the ``resumed`` notice, the
    room and where the game stands) and play goes on. Then Bob's page closes: a stand-in bot
    plays for him (a ``seat_away`` note) until he joins again (a ``seat_back`` note). Ann's
    transcript."""
    with running_cluster() as cluster, ServerProcess(
            cluster.create_database(), "--away-after-s", "1",
            log=Path(tempfile.mkdtemp()) / "database_outage.log") as server:
        code = server.new_room(seats=2, seed=8, turn_timeout_ms=60_000)
        ann = Recorder()
        ann.connect(server.player(code)).join("Ann")
        ann.joined()
        bob = server.player(code)
        token = bob.join("Bob")["token"]
        assert ann.player is not None
        ann.player.send({"type": "start"})
        ann.take_until("state")
        take_turn({0: ann.player, 1: bob}, ann, 4)
        ann.take()

        cluster.stop()
        turn = max((p.state for p in (ann.player, bob) if p.state), key=lambda m: int(m["version"]))[
            "observation"]["turn"]
        ({0: ann.player, 1: bob}[turn]).send({"type": "play"})  # taken, but it cannot be stored
        ann.take_until("error")
        ann.player.send({"type": "play"})  # refused while the database is away
        ann.take_until("error")
        cluster.start()
        ann.take_until("notice", timeout=30)
        take_turn({0: ann.player, 1: bob}, ann, 4)
        ann.take()

        bob.close()  # a stand-in bot plays for Bob after a second
        until_line(ann, "is away", 10)
        take_turn({0: ann.player}, ann, 2)
        bob = server.player(code)
        bob.join("Bob", token=token)
        until_line(ann, "is back", 10)
        take_turn({0: ann.player, 1: bob}, ann, 3)
        ann.take(1.0)
        refused = [m for m in ann.entries if m["type"] == "error"]
        assert [m["code"] for m in refused] == ["unavailable", "unavailable"], refused
        assert [m["code"] for m in ann.entries if m["type"] == "notice"] == ["resumed"]
        ann.save("database_outage")


def until_line(recorder: Recorder, words: str, timeout: float) -> None:
    """Take what ``recorder``'s client is sent until a state has a line with ``words`` (then
    until a quiet moment)."""
    start = len(recorder.entries)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        recorder.take(0.1)
        if any(words in line for m in recorder.entries[start:] if m["type"] == "state"
               for line in m["lines"]):
            recorder.take()
            return
    raise AssertionError(f"no line with {words!r} within {timeout} s")


def on_one_server(record: Callable[[ServerProcess], None]) -> Callable[[], None]:
    """``record`` on a server of its own with an SQLite database."""
    def run() -> None:
        with ServerProcess(Path(tempfile.mkdtemp()) / "transcripts.db") as server:
            record(server)
    return run


RECORDINGS: dict[str, Callable[[], None]] = {
    "late_joiner": on_one_server(late_joiner),
    "contested_slap": on_one_server(contested_slap),
    "database_outage": database_outage,
}


def main() -> None:
    """Record the transcripts named on the command line (all of them without a name)."""
    for name in sys.argv[1:] or RECORDINGS:
        RECORDINGS[name]()


if __name__ == "__main__":
    main()
