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
    # one address (the tests') makes every join here: the per-address limits get room
    with ServerProcess(tmp_path_factory.mktemp("hostile") / "ratscrew.db", "--joins-per-minute", "1000",
                       "--players-per-hour", "1000") as process:
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
        assert error["message"] == "grace_ms: must be from 0 to 3600000, got a number of 31 digits"
        assert "grace_ms = 1000\n" in server.get(f"/api/rooms/{code}").json()["rules"]["toml"]
    finally:
        host.close()


NESTED_RULES = "a = " + "[" * 4000 + "]" * 4000
"""Under the 8 KiB cap, and deep enough to overflow a recursive parser."""


def test_deeply_nested_rules_are_a_400_and_one_short_log_line(server: ServerProcess) -> None:
    before = len(log_text(server))
    for path, body in (("/api/rooms", {"rules": NESTED_RULES, "seats": 2}),
                       ("/api/lab", {"rules": NESTED_RULES})):
        response = httpx.post(server.url + path, timeout=10, json=body)
        assert response.status_code == 400
        assert "nested more than 8 deep" in response.json()["error"]
    code = server.new_room(seats=2)
    host = server.player(code)
    try:
        host.join("Ann")
        host.send({"type": "configure", "rules": NESTED_RULES})
        error = host.wait_for("error")
        assert error["code"] == "bad_rules"
        assert "nested more than 8 deep" in error["message"]
    finally:
        host.close()
    written = log_text(server)[before:]
    assert "Traceback" not in written and "RecursionError" not in written
    assert len(written) < 4000, written[:2000]


# ---------------------------------------------------------------------------------- seeded rooms


def play_two_games(server: ServerProcess, code: str, key: str) -> tuple[str, list[dict[str, Any]]]:
    """Sid (keyed) resigns a game against a bot, the host's rematch, and resigns again: his
    public id and the two games' records."""
    ann = server.player(code)
    try:
        player_id = str(ann.join("Sid", player_key=key)["player_id"])
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


# ---------------------------------------------------------------------------------- names


def refusal(player: Any, name: str, key: str | None = None) -> dict[str, Any]:
    """The error a join under ``name`` gets (it must get one)."""
    player.send({"type": "join", "name": name} | ({"player_key": key} if key else {}))
    message: dict[str, Any] = player.wait_for("error")
    return message


def test_five_look_alike_anns_get_one_seat_and_the_rest_are_refused(server: ServerProcess) -> None:
    code = server.new_room(seats=4)
    ann, others = server.player(code), [server.player(code) for _ in range(4)]
    try:
        assert ann.join("Ann", player_key=secrets.token_urlsafe(32))["name"] == "Ann"
        guest, cyrillic, selector, joiner = others
        assert refusal(guest, "Ann")["code"] == "name_taken"  # a guest "Ann"
        taken = refusal(cyrillic, "\u0410nn")  # Cyrillic А
        assert taken["code"] == "name_taken"
        assert taken["message"] == ("Someone in this room already goes by 'Ann', which looks the "
                                    "same as '\u0410nn'; choose another name")
        assert refusal(selector, "Ann\ufe0f")["code"] == "bad_message"
        assert refusal(joiner, "Ann\u034f")["code"] == "bad_message"
        for blank in ("\u0301\u0301", "\u3164", "\u2800", "Expert bot", "Casual bot 2"):
            assert refusal(guest, blank)["code"] == "bad_message", blank
        seats = server.get(f"/api/rooms/{code}").json()["seats"]
        assert [s["name"] for s in seats if s["kind"] == "human"] == ["Ann"]
        assert guest.join("Anna")["name"] == "Anna"  # a different name is fine
        assert cyrillic.join("\uff22ea")["name"] == "Bea"  # NFKC: a full-width B
    finally:
        for player in [ann, *others]:
            player.close()


def test_a_keyed_players_name_is_theirs_across_rooms_by_its_look(server: ServerProcess) -> None:
    first, second = server.new_room(seats=2), server.new_room(seats=2)
    owner, impostor = server.player(first), server.player(second)
    try:
        owner.join("Maxime", player_key=secrets.token_urlsafe(32))
        for look_alike in ("MAXIME", "M\u0430xime", "\u039caxime"):  # Cyrillic а, Greek Mu
            error = refusal(impostor, look_alike, key=secrets.token_urlsafe(32))
            assert error["code"] == "name_taken", look_alike
    finally:
        owner.close()
        impostor.close()


# ---------------------------------------------------------------------------------- keys and players


@pytest.mark.parametrize("key", ["a" * 20, "a" * 64, "ab" * 20, "password" * 4, "abcdefghijk" * 3,
                                 "Xy3_" + "z" * 20, "abcdefghijklmnopqrstuv",
                                 "0123456789abcdefghijkl", "acegikmoqsuwyACEGIKMOQS"])
def test_a_key_that_does_not_look_random_makes_no_player(server: ServerProcess, key: str) -> None:
    player = server.player(server.new_room(seats=2))
    try:
        error = refusal(player, "Kim", key=key)
        assert error["code"] == "bad_key" and "at random" in error["message"]
        assert player.join("Kim")["player_id"] is None  # the same person, as a guest, is welcome
    finally:
        player.close()


def test_keys_the_page_and_the_terminal_make_always_look_random(tmp_path: Path) -> None:
    from ratscrew.client.saved import SavedState
    from ratscrew.protocol.keys import looks_random, new_key

    assert all(looks_random(new_key()) for _ in range(5000))
    saved = SavedState(tmp_path / "online.json")
    assert looks_random(saved.player_key("http://127.0.0.1:8000"))
    # the page's generator (js/identity.js) is checked the same way in tests/js/identity.test.mjs


def test_new_players_and_key_codes_per_address_are_limited(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "limits.db", "--players-per-hour", "3",
                       "--key-codes-per-hour", "4") as limited:
        code = limited.new_room(seats=8)
        keys = [secrets.token_urlsafe(32) for _ in range(4)]
        people = [limited.player(code) for _ in range(6)]
        try:
            ids = [people[i].join(f"P{i}", player_key=keys[i])["player_id"] for i in range(3)]
            assert all(ids)
            error = refusal(people[3], "P3", key=keys[3])
            assert error["code"] == "rate_limited" and "3 new players an hour" in error["message"]
            # a key the server knows is no new player, and a guest is no player at all
            people[0].close()
            assert limited.player(code).join("P0", player_key=keys[0])["player_id"] == ids[0]
            assert people[4].join("Guest")["player_id"] is None
        finally:
            for person in people:
                person.close()
        answers = [httpx.post(limited.url + "/api/players/export", json={"player_key": keys[1]},
                              timeout=10) for _ in range(4)]
        assert [a.status_code for a in answers] == [200] * 4
        refused = httpx.post(limited.url + "/api/players/import", json={"code": "x"}, timeout=10)
        assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
        assert "4 exports and imports an hour" in refused.json()["message"]


def test_a_weak_key_a_server_already_knows_keeps_its_player(tmp_path: Path) -> None:
    # keys were only checked for their form before: a player made then is not locked out
    from starlette.testclient import TestClient

    from ratscrew.server.app import create_app
    from ratscrew.server.ladder.players import hash_key
    from ratscrew.storage.sqlite import SqliteStore

    store = SqliteStore(tmp_path / "old.db")
    old = store.enter_player(hash_key("a" * 20), "Old Ann", "OldAnnPublic").player_id
    with TestClient(create_app(store)) as client:
        code = client.post("/api/rooms", json={"seats": 2}).json()["code"]
        with client.websocket_connect(f"/ws/{code}") as ws:
            ws.send_json({"type": "join", "name": "Old Ann", "player_key": "a" * 20})
            while (message := ws.receive_json())["type"] != "welcome":
                assert message["type"] != "error", message
            assert message["player_id"] == old


def test_the_new_limits_are_options_of_serve_and_a_limit_below_one_is_one_clear_line(
        tmp_path: Path) -> None:
    import subprocess
    import sys

    shown = subprocess.run([sys.executable, "-m", "ratscrew", "serve", "--help"],
                           capture_output=True, text=True, timeout=60)
    assert "--players-per-hour" in shown.stdout and "--key-codes-per-hour" in shown.stdout
    refused = subprocess.run([sys.executable, "-m", "ratscrew", "serve", "--port", "0", "--db",
                              str(tmp_path / "x.db"), "--players-per-hour", "0"],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "--players-per-hour must be at least 1, not 0" in refused.stderr
