"""``ratscrew admin``, as an operator runs it: a SQLite database with real games, keyed players
and ratings copied into PostgreSQL and back with every table's rows counted (and the same
leaderboard, players and records on each side); rooms listed and closed; and a backup of each
database (SQLite ``VACUUM INTO``, ``pg_dump``/``pg_restore``) restored to serve the same
leaderboard (the commands of docs/online.md, "Operating it")."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from postgres import PostgresCluster, postgres_bindir
from starlette.testclient import TestClient

from ratscrew.server.app import create_app
from ratscrew.server.ladder.ranking import leaderboard
from ratscrew.storage.opening import open_store
from ratscrew.storage.roles import Store

KEYS = {"Ann": "ann-key-Qm3xT9vLp2Zr7WbK4sYd8Hc", "Bob": "bob-key-Ub7Gs2Hn5Yq9Df3Xm8Ko1Ev"}
"""Keys that look random, as the server asks of a new player's (docs/online.md, "Hostile input")."""


def receive(ws: Any, kind: str) -> dict[str, Any]:
    for _ in range(500):
        message: dict[str, Any] = ws.receive_json()
        if message["type"] == "ping":
            ws.send_json({"type": "pong", "id": message["id"]})
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind}")


def play_and_resign(client: TestClient, name: str, bots: list[str], rules: str = "classic") -> None:
    """A game of keyed player ``name`` against ``bots``, which ``name`` resigns."""
    # unseeded: a seeded room's games are never rated
    response = client.post("/api/rooms", json={"rules": rules, "seats": 1 + len(bots), "bots": bots})
    code = response.json()["code"]
    with client.websocket_connect(f"/ws/{code}") as ws:
        ws.send_json({"type": "join", "name": name, "player_key": KEYS[name]})
        receive(ws, "welcome")
        ws.send_json({"type": "start"})
        receive(ws, "state")
        ws.send_json({"type": "resign"})
        receive(ws, "game_over")


@pytest.fixture(scope="module")
def played_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database with finished, rated games of two keyed players against bots."""
    database = tmp_path_factory.mktemp("played") / "played.db"
    with TestClient(create_app(database)) as client:
        for level in ("beginner", "casual", "expert"):  # ranked after three different opponents
            play_and_resign(client, "Ann", [level])
        play_and_resign(client, "Bob", ["expert"])
        play_and_resign(client, "Ann", ["expert"], rules="pagat")
        client.post("/api/rooms", json={"rules": "classic", "seats": 2})  # a room with no game
    seen(database)  # its server id is made on first use
    return database


@pytest.fixture
def played(played_once: Path, tmp_path: Path) -> Path:
    """A copy of `played_once` of the test's own."""
    database = tmp_path / "played.db"
    shutil.copy(played_once, database)
    return database


def ratscrew(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ratscrew", *args], capture_output=True, text=True,
                          timeout=120)


def seen(where: str | Path) -> dict[str, Any]:
    """What a server on this database would show: leaderboards, players, records, rooms."""
    store: Store = open_store(where)
    try:
        boards = {rules: leaderboard(store, rules) for rules in ("classic", "pagat")}
        players = {p["player_id"]: store.player(p["player_id"]) for board in boards.values() for p in board
                   if p.get("player_id")}
        return {"boards": boards, "players": players, "games": store.game_count(),
                "records": [store.game_record(n) for n in range(1, 7)],
                "rooms": [(r["code"], r["phase"]) for r in store.list_rooms(include_closed=True)],
                "server": store.server_id()}
    finally:
        store.close()


def test_db_copy_moves_everything_to_postgresql_and_back_with_counts(
        played: Path, postgres_cluster: PostgresCluster, tmp_path: Path) -> None:
    before = seen(played)
    assert before["boards"]["classic"] and before["games"] == 5
    url = postgres_cluster.create_database()
    there = ratscrew("admin", "db", "copy", str(played), url)
    assert there.returncode == 0, there.stderr
    assert "every count matches" in there.stdout
    counted = {line.split()[0]: line.split()[1:] for line in there.stdout.splitlines()[1:-1]}
    for table in ("rooms", "games", "actions", "results", "players", "ratings", "rating_updates",
                  "rated_games", "server_info"):
        source, target = counted[table]
        assert source == target and int(source) > 0, (table, counted)
    assert seen(url) == before
    back = tmp_path / "back.db"
    again = ratscrew("admin", "db", "copy", url, str(back))
    assert again.returncode == 0, again.stderr
    assert seen(back) == before
    refused = ratscrew("admin", "db", "copy", str(played), url)  # TO is no longer empty
    assert refused.returncode == 2 and "is not empty" in refused.stderr and "Traceback" not in refused.stderr


def test_rooms_are_listed_and_closed_from_the_command_line(played: Path) -> None:
    listed = ratscrew("admin", "rooms", "list", "--db", str(played))
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[-1] == "6 rooms"
    code = listed.stdout.splitlines()[1].split()[0]
    closed = ratscrew("admin", "rooms", "close", code.lower(), "--db", str(played))
    assert closed.returncode == 0 and f"room {code} closed" in closed.stdout
    assert ratscrew("admin", "rooms", "list", "--db", str(played)).stdout.splitlines()[-1] == "5 rooms"
    everything = ratscrew("admin", "rooms", "list", "--all", "--db", str(played)).stdout
    assert f"{code}  closed" in everything
    again = ratscrew("admin", "rooms", "close", code, "--db", str(played))
    assert again.returncode == 2 and "already closed" in again.stderr


def test_closing_a_room_with_a_game_in_progress_says_it_discards_the_game_and_needs_force(
        played: Path) -> None:
    store = open_store(played)
    try:
        store.save_room("PLAYQZ", {}, None, "lobby", 0, None, [])
        game_id = store.start_game("PLAYQZ", 1, "classic", {}, 0.0)
        store.save_room("PLAYQZ", {}, None, "playing", 0, game_id, [])
    finally:
        store.close()
    refused = ratscrew("admin", "rooms", "close", "PLAYQZ", "--db", str(played))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "room PLAYQZ has a game in progress: closing it discards that game" in refused.stderr
    assert "--force" in refused.stderr
    assert "PLAYQZ  playing" in ratscrew("admin", "rooms", "list", "--db", str(played)).stdout
    forced = ratscrew("admin", "rooms", "close", "PLAYQZ", "--force", "--db", str(played))
    assert forced.returncode == 0, forced.stderr
    assert "room PLAYQZ closed" in forced.stdout and "its game in progress is discarded" in forced.stdout


def test_a_sqlite_backup_made_with_vacuum_into_serves_the_same_leaderboard(
        played: Path, tmp_path: Path) -> None:
    before = seen(played)
    backup = tmp_path / "backup.db"
    with sqlite3.connect(played) as db:  # what docs/online.md says to run (safe while serving)
        db.execute("VACUUM INTO ?", (str(backup),))
    assert seen(backup) == before


CRASH_MID_WRITE = ("import os, sqlite3, sys\n"
                   "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                   "db.execute('PRAGMA journal_mode=WAL')\n"
                   "db.execute('CREATE TABLE written_before_the_crash (x)')\n"
                   "os._exit(0)\n")
"""A process that writes to the database and dies before SQLite checkpoints: its -wal and -shm
stay beside the file, as after a server killed mid-game."""


def test_a_sqlite_backup_restored_after_a_crash_serves_the_backup_and_keeps_the_old_files(
        played: Path, tmp_path: Path) -> None:
    backup = tmp_path / "backup.db"
    with sqlite3.connect(played) as db:
        db.execute("VACUUM INTO ?", (str(backup),))
    expected = seen(backup)
    subprocess.run([sys.executable, "-c", CRASH_MID_WRITE, str(played)], check=True, timeout=60)
    assert Path(f"{played}-wal").exists() and Path(f"{played}-shm").exists()
    restored = ratscrew("admin", "db", "restore", str(backup), "--db", str(played))
    assert restored.returncode == 0, restored.stderr
    assert f"restored {backup} as {played}: {expected['games']} finished games" in restored.stdout
    assert "integrity check ok" in restored.stdout
    assert seen(played) == expected
    kept = sorted(p.name.split(".replaced-")[0] for p in tmp_path.glob("played.db*.replaced-*"))
    assert kept == ["played.db", "played.db-shm", "played.db-wal"]  # nothing deleted
    assert not Path(f"{played}-wal").exists() or Path(f"{played}-wal").stat().st_size == 0


def test_a_restore_is_refused_while_the_server_runs_or_when_the_backup_is_damaged(
        played: Path, tmp_path: Path) -> None:
    before = played.read_bytes()
    backup = tmp_path / "backup.db"
    backup.write_bytes(b"this is not a database" * 100)
    damaged = ratscrew("admin", "db", "restore", str(backup), "--db", str(played))
    assert damaged.returncode == 2 and "is not a SQLite database ratscrew can read" in damaged.stderr
    assert "Traceback" not in damaged.stderr and played.read_bytes() == before
    with sqlite3.connect(played) as db:
        db.execute("VACUUM INTO ?", (str(tmp_path / "good.db"),))
    serving = open_store(played)  # a server holds the file
    try:
        refused = ratscrew("admin", "db", "restore", str(tmp_path / "good.db"), "--db", str(played))
    finally:
        serving.close()
    assert refused.returncode == 2 and "a ratscrew server is using" in refused.stderr
    assert "stop it first" in refused.stderr


def test_a_postgresql_backup_restored_with_pg_restore_serves_the_same_leaderboard(
        played: Path, postgres_cluster: PostgresCluster, tmp_path: Path) -> None:
    bindir = postgres_bindir()
    assert bindir is not None
    url = postgres_cluster.create_database()
    assert ratscrew("admin", "db", "copy", str(played), url).returncode == 0
    dump = tmp_path / "ratscrew.dump"
    subprocess.run([str(bindir / "pg_dump"), "--format=custom", f"--file={dump}", url], check=True)
    restored = postgres_cluster.create_database()
    subprocess.run([str(bindir / "pg_restore"), "--no-owner", f"--dbname={restored}", str(dump)], check=True)
    assert seen(restored) == seen(url) == seen(played)


def test_db_copy_from_an_unreachable_postgresql_says_so_in_one_line(tmp_path: Path) -> None:
    unreachable = "postgresql://ratscrew@127.0.0.1:1/ratscrew"
    copied = ratscrew("admin", "db", "copy", unreachable, str(tmp_path / "back.db"))
    assert copied.returncode == 2, copied.stderr
    assert "Traceback" not in copied.stderr
    assert copied.stderr.startswith("ratscrew: error: cannot use the PostgreSQL database")


def test_a_url_that_is_not_postgresql_is_refused_instead_of_becoming_a_file(
        played: Path, tmp_path: Path) -> None:
    mistyped = "postgresq://ratscrew:secret@127.0.0.1/ratscrew"
    folder = tmp_path / "here"
    folder.mkdir()
    copied = subprocess.run([sys.executable, "-m", "ratscrew", "admin", "db", "copy", str(played),
                             mistyped], capture_output=True, text=True, timeout=120, cwd=folder)
    assert copied.returncode == 2
    assert copied.stderr == ("ratscrew: error: postgresq://127.0.0.1/ratscrew is not a database "
                             "ratscrew can use: give a SQLite file or a postgresql:// URL\n")
    assert list(folder.iterdir()) == []  # no folder 'postgresq:' made for a SQLite file


def test_a_database_a_server_holds_is_refused_with_advice_for_the_operator(
        played: Path, tmp_path: Path) -> None:
    server = open_store(played)  # as a running server holds it
    try:
        listed = ratscrew("admin", "rooms", "list", "--db", str(played))
        copied = ratscrew("admin", "db", "copy", str(played), str(tmp_path / "copy.db"))
    finally:
        server.close()
    assert listed.returncode == 2 and copied.returncode == 2
    assert listed.stderr == (f"ratscrew: error: another ratscrew server is using {played}; stop it "
                             "first: a SQLite database is used by one process at a time\n")
    assert copied.stderr == (f"ratscrew: error: another ratscrew server is using {played}; stop it "
                             "first: a copy needs both databases to itself\n")


def test_the_documented_postgresql_backup_keeps_the_password_out_of_the_command_line() -> None:
    docs = (Path(__file__).resolve().parent.parent / "docs" / "online.md").read_text()
    command = docs[docs.index("PGPASSFILE=/etc/ratscrew/pgpass pg_dump"):]
    command = command[:command.index("\n", command.index("--username"))]
    assert "postgresql://" not in command and "DATABASE_URL" not in command  # what ps would show
    dumps = [line for line in docs.splitlines() if "pg_dump " in line and not line.startswith("#")]
    assert all("PGPASSFILE=" in line for line in dumps), dumps


def test_the_operator_creates_lists_and_cancels_arenas(played: Path) -> None:
    made = ratscrew("admin", "arenas", "create", "--rules", "pagat", "--players", "4", "--minutes", "60",
                    "--starts-in", "30", "--db", str(played))
    assert made.returncode == 0, made.stderr
    arena_id = made.stdout.split()[1].rstrip(":")
    assert f"its page: /arenas/{arena_id}" in made.stdout and "pagat at tables of 4" in made.stdout
    listed = ratscrew("admin", "arenas", "list", "--db", str(played)).stdout.splitlines()
    assert listed[0].split() == ["ID", "RULES", "TABLE", "STARTS", "ENDS", "STATE", "PLAYERS"]
    assert listed[1].split()[:3] == [arena_id, "pagat", "4"] and listed[1].split()[-1] == "upcoming"
    assert listed[-1] == "1 arena"
    cancelled = ratscrew("admin", "arenas", "cancel", arena_id, "--db", str(played))
    assert cancelled.returncode == 0 and "cancelled" in cancelled.stdout
    after = ratscrew("admin", "arenas", "list", "--db", str(played)).stdout.splitlines()
    assert after[1].split()[-1] == "cancelled"
    again = ratscrew("admin", "arenas", "cancel", arena_id, "--db", str(played))
    assert again.returncode == 2 and f"arena {arena_id} is already cancelled" in again.stderr
    assert "Traceback" not in again.stderr


@pytest.mark.parametrize(("args", "says"), [
    (("create", "--minutes", "4"), "--minutes must be from 5 to 120, not 4"),
    (("create", "--starts-in", "1441"), "--starts-in must be from 0 to 1440 minutes"),
    (("create", "--rules", "bmn"), "invalid choice: 'bmn'"),
    (("create", "--players", "3"), "invalid choice: 3"),
    (("cancel", "NoSuchAr"), "there is no arena 'NoSuchAr'"),
])
def test_a_bad_arena_command_says_what_is_wrong(played: Path, args: tuple[str, ...], says: str) -> None:
    refused = ratscrew("admin", "arenas", *args, "--db", str(played))
    assert refused.returncode == 2 and says in refused.stderr and "Traceback" not in refused.stderr
