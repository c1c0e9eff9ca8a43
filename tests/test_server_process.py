"""Against a real ``ratscrew serve`` process on a loopback port: several websocket clients at one
table, a crash (``kill -9``) and restart that loses nothing, and a damaged or locked database
that the server refuses to open (docs/online.md)."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from serving import ServerProcess, latest, play_cards, public

from ratscrew.server.ladder.ratings import EXIT_BEFORE_RATING, EXIT_CODE


def test_several_clients_share_one_table_on_a_real_server(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "ratscrew.db") as server:
        code = server.new_room(seats=4, bots=["casual", "casual"], seed=11, pace="fast")
        ann, bob, eve = server.player(code), server.player(code), server.player(code)
        assert ann.join("Ann")["seat"] == 0 and bob.join("Bob")["seat"] == 1
        eve.send({"type": "watch"})
        eve.wait_for("room")
        ann.send({"type": "start"})
        for player in (ann, bob, eve):
            player.wait_for("state")
        play_cards({0: ann, 1: bob}, cards=16)
        eve.send({"type": "play"})
        assert eve.wait_for("error")["code"] == "not_seated"
        time.sleep(0.3)
        for player in (ann, bob, eve):
            player.drain()
        views: dict[int, list[dict[str, Any]]] = {}
        for player in (ann, bob, eve):
            for message in player.messages:
                if message["type"] == "state":
                    views.setdefault(message["version"], []).append(public(message["observation"]))
        shared = [v for v in views.values() if len(v) == 3]
        assert len(shared) >= 16
        assert all(v[0] == v[1] == v[2] for v in shared)
        assert ann.observation["seat"] == 0 and eve.observation["seat"] is None
        for player in (ann, bob, eve):
            player.close()


def test_after_kill_9_and_a_restart_the_game_comes_back_and_plays_on(tmp_path: Path) -> None:
    db = tmp_path / "ratscrew.db"
    server = ServerProcess(db).start()
    try:
        # a finished game, with its statistics
        done = server.new_room(bots=["casual"])
        solo = server.player(done)
        solo.send({"type": "join", "name": "Cy", "player_key": "cy-key-Ub7Gs2Hn5Yq9Df3Xm8Ko1Ev"})
        cy = solo.wait_for("welcome")["player_id"]
        solo.send({"type": "start"})
        solo.wait_for("state")
        solo.send({"type": "resign"})
        over = solo.wait_for("game_over")
        record_before = server.get(over["record_url"]).json()
        # Cy's rating (one opponent so far: rated, not ranked yet)
        ratings_before = server.get(f"/api/players/{cy}").json()["ratings"]
        assert [r["games"] for r in ratings_before] == [1]
        # a game in progress between two people (turn time-out long enough not to fire)
        code = server.new_room(seed=4, turn_timeout_ms=60_000)
        ann, bob = server.player(code), server.player(code)
        tokens = [ann.join("Ann")["token"], bob.join("Bob")["token"]]
        ann.send({"type": "start"})
        ann.wait_for("state")
        play_cards({0: ann, 1: bob}, cards=12)
        # wait for a quiet moment: someone's turn, nothing timed pending
        deadline = time.monotonic() + 10
        while latest([ann, bob])["observation"]["turn"] is None and time.monotonic() < deadline:
            ann.poll(0.05)
            bob.poll(0.05)
        ann.drain(0.3)
        before = ann.observation
        assert before["cards_played"] >= 12 and before["turn"] is not None
        server.kill(signal.SIGKILL)
        assert server.process is not None and server.process.returncode == -signal.SIGKILL
    finally:
        server.kill()

    with ServerProcess(db) as again:
        assert again.get(over["record_url"]).json() == record_before
        assert again.get(f"/api/players/{cy}").json()["ratings"] == ratings_before
        ann, bob = again.player(code), again.player(code)
        assert ann.join("Ann", token=tokens[0])["seat"] == 0
        assert bob.join("Bob", token=tokens[1])["seat"] == 1
        after = ann.wait_for("state")["observation"]
        assert public(after) == public(before)
        assert after["pile"] == before["pile"] and after["now"] == before["now"]
        play_cards({0: ann, 1: bob}, cards=3)
        assert latest([ann, bob])["observation"]["cards_played"] >= before["cards_played"] + 3


def test_a_server_that_dies_between_a_games_end_and_its_rating_rates_it_once_after_restart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "ratscrew.db"
    monkeypatch.setenv(EXIT_BEFORE_RATING, "1")  # the server exits right after storing the end
    server = ServerProcess(db).start()
    try:
        code = server.new_room(bots=["casual"])
        ann = server.player(code)
        ann.send({"type": "join", "name": "Ann", "player_key": "ann-key-Qm3xT9vLp2Zr7WbK4sYd8Hc"})
        player_id = ann.wait_for("welcome")["player_id"]
        ann.send({"type": "start"})
        ann.wait_for("state")
        ann.send({"type": "resign"})
        assert server.process is not None and server.process.wait(timeout=20) == EXIT_CODE
        ann.close()
    finally:
        server.kill()
    monkeypatch.delenv(EXIT_BEFORE_RATING)
    with sqlite3.connect(db) as conn:  # the end is stored, the rating is not
        (game_id,) = conn.execute("SELECT id FROM games WHERE status = 'over'").fetchone()
        assert conn.execute("SELECT COUNT(*) FROM rated_games").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM rating_updates").fetchone()[0] == 0
    conn.close()
    for _ in range(2):  # the restart rates it; another restart does not rate it again
        with ServerProcess(db) as again:
            page = again.get(f"/api/players/{player_id}").json()
        (classic,) = page["ratings"]
        assert classic["games"] == 1 and [h["game_id"] for h in classic["history"]] == [game_id]
        assert [g["place"] for g in page["games"]] == [2]
        with sqlite3.connect(db) as conn:
            updates = conn.execute("SELECT participant FROM rating_updates WHERE game_id = ?",
                                   (game_id,)).fetchall()
            assert sorted(row[0] for row in updates) == sorted([player_id, "bot:casual"])
            assert conn.execute("SELECT games FROM ratings WHERE participant = 'bot:casual'"
                                ).fetchone()[0] == 1
            # the verdict is stored once with it (issue 30): rated (Ann, the one keyed player,
            # resigned against a bot: a loss, not an abort), and a quick resignation
            assert conn.execute("SELECT game_id, unrated, quick_resign FROM rated_games").fetchall() == [
                (game_id, None, 1)]
        conn.close()


def run_serve(db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ratscrew", "serve", "--port", "0", "--db", str(db)],
                          capture_output=True, text=True, timeout=60)


def test_a_damaged_database_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "ratscrew.db"
    with ServerProcess(db) as server:  # a real database with a finished game in it
        code = server.new_room(bots=["casual"])
        player = server.player(code)
        player.join("Ann")
        player.send({"type": "start"})
        player.wait_for("state")
        player.send({"type": "resign"})
        player.wait_for("game_over")
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) > 3 * page
    data[2 * page:3 * page] = b"\xde\xad\xbe\xef" * (page // 4)  # scribble over a page
    db.write_bytes(bytes(data))
    result = run_serve(db)
    assert result.returncode == 2
    assert "damaged" in result.stderr and "refusing to start" in result.stderr
    assert "Traceback" not in result.stderr
    assert db.read_bytes() == bytes(data)


def test_a_database_that_is_not_one_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    db.write_text("my shopping list\n" * 200)
    result = run_serve(db)
    assert result.returncode == 2 and "damaged" in result.stderr
    assert db.read_text() == "my shopping list\n" * 200


def test_a_locked_database_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "ratscrew.db"
    with ServerProcess(db):
        second = run_serve(db)  # a second server on the same file
        assert second.returncode == 2 and "another" in second.stderr
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")  # another program holds the database
        result = run_serve(db)
    finally:
        holder.close()
    assert result.returncode == 2 and "locked" in result.stderr and "Traceback" not in result.stderr
