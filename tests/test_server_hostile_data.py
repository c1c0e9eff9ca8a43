"""Issue 29's data half against a real ``ratscrew serve``: what a hostile outsider sends as
numbers, seeds, keys and names is refused or made harmless, and nothing shows a face-down card.

Each test starts a real server (`serving.ServerProcess`) where the behaviour is the server's."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serving import ServerProcess

from ratscrew.engine import Game
from ratscrew.ruleset import Ruleset


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("hostile") / "ratscrew.db") as process:
        yield process


def log_text(server: ServerProcess) -> str:
    return Path(server.log).read_text()


# ---------------------------------------------------------------------------------- numbers


@pytest.mark.parametrize("game_id", ["9223372036854775808", "9" * 5000, "18446744073709551616",
                                     "9223372036854775807", "0", "00000000000000000000001"])
@pytest.mark.parametrize("path", ["/api/games/{}/record", "/api/games/{}/replay"])
def test_a_game_id_beyond_the_database_is_a_json_404(server: ServerProcess, path: str,
                                                     game_id: str) -> None:
    response = server.get(path.format(game_id))
    assert response.status_code == 404
    assert response.json() == {"error": "no finished game with that number"}


@pytest.mark.parametrize("game_id", ["9223372036854775808", "9" * 5000, "12x", "-1"])
def test_a_replay_page_beyond_the_database_is_the_not_found_page(server: ServerProcess,
                                                                 game_id: str) -> None:
    response = server.get(f"/games/{game_id}")
    assert response.status_code == 404
    assert "There is no finished game with that number." in response.text
    assert "Traceback" not in log_text(server)


@pytest.mark.parametrize("setting", ["grace_ms = 1000000000000000000000000000000",
                                     "tie_window_ms = 9223372036854775808",
                                     "max_players = 100", "run_length = 14",
                                     "claim_window_ms = " + "9" * 5000])
def test_a_custom_ruleset_out_of_bounds_is_refused_when_the_room_is_created(
        server: ServerProcess, setting: str) -> None:
    response = httpx.post(server.url + "/api/rooms", timeout=10,
                          json={"rules": f"name = 'mine'\n{setting}\n", "seats": 2})
    assert response.status_code == 400
    name = setting.split()[0]
    message = response.json()["error"]
    too_long = "not valid TOML: a number is far too long"
    assert message.startswith(f"{name}: must be from ") or message == too_long
    assert "Traceback" not in log_text(server)


def test_a_host_cannot_configure_a_ruleset_out_of_bounds(server: ServerProcess) -> None:
    code = server.new_room(seats=2)
    host = server.player(code)
    try:
        host.join("Ann")
        host.send({"type": "configure", "rules": "grace_ms = 1000000000000000000000000000000"})
        error = host.wait_for("error")
        assert error["code"] == "bad_rules"
        assert error["message"] == "grace_ms: must be from 0 to 60000, got a number of 31 digits"
        assert "grace_ms = 1000\n" in server.get(f"/api/rooms/{code}").json()["rules"]["toml"]
    finally:
        host.close()


# ---------------------------------------------------------------------------------- seeded rooms


def play_two_games(server: ServerProcess, code: str, key: str) -> tuple[str, list[dict[str, Any]]]:
    """Ann (keyed) resigns a game against a bot, the host's rematch, and resigns again: her
    public id and the two games' records."""
    ann = server.player(code)
    try:
        player_id = str(ann.join("Ann", player_key=key)["player_id"])
        records = []
        for start in ({"type": "start"}, {"type": "rematch"}):
            ann.send(start)
            ann.wait_for("state")
            ann.send({"type": "resign"})
            over = ann.wait_for("game_over")
            records.append(server.get(over["record_url"]).json())
        return player_id, records
    finally:
        ann.close()


def test_a_seeded_room_says_so_is_never_rated_and_its_rematch_is_not_dealt_from_the_seed(
        server: ServerProcess) -> None:
    seed, key = 4242, secrets.token_urlsafe(32)
    code = server.new_room(seats=2, bots=["casual"], seed=seed)
    assert server.get(f"/api/rooms/{code}").json()["settings"]["seeded"] is True
    player_id, (first, rematch) = play_two_games(server, code, key)
    classic = Ruleset.preset("classic")
    # the creator's seed deals game 1 (that is what a seed is for) ...
    assert first["hands"] == Game.deal(classic, players=2, seed=seed).to_record()["hands"]
    # ... but nothing public predicts the rematch: not seed + 1, nor anything near the seed
    # game 1's record shows
    near = {first["seed"] + step for step in range(-50, 51)}
    assert rematch["seed"] not in near
    assert all(rematch["hands"] != Game.deal(classic, players=2, seed=guess).to_record()["hands"]
               for guess in sorted(near)[:101])
    for record in (first, rematch):
        assert record["seeded"] is True and record["unrated"] == "seeded room: its creator chose the deal"
        replayed = Game.from_record(json.loads(json.dumps(record)))
        assert replayed.over and replayed.winner == 1  # the records still replay
    assert server.get(f"/api/players/{player_id}").json()["ratings"] == []
    board = server.get("/api/leaderboard?rules=classic").json()["players"]
    assert player_id not in [p["player_id"] for p in board]


def test_an_unseeded_room_is_rated_and_its_records_say_not_seeded(server: ServerProcess) -> None:
    code = server.new_room(seats=2, bots=["casual"])
    assert server.get(f"/api/rooms/{code}").json()["settings"]["seeded"] is False
    key = secrets.token_urlsafe(32)
    ann = server.player(code)
    try:
        welcome = ann.join("Rated Ann", player_key=key)
        ann.send({"type": "start"})
        ann.wait_for("state")
        ann.send({"type": "resign"})
        over = ann.wait_for("game_over")
    finally:
        ann.close()
    record = server.get(over["record_url"]).json()
    assert record["seeded"] is False and "unrated" not in record
    page = server.get(f"/api/players/{welcome['player_id']}").json()
    assert [r["games"] for r in page["ratings"]] == [1]
