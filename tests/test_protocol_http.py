"""The HTTP API's JSON is what its types in ``ratscrew.protocol.http`` say (docs/protocol.md): each
endpoint's actual answer, through Starlette's TestClient, has exactly its TypedDict's keys (every
required one, no unknown one, ``NotRequired`` ones as they come), nested parts included, and
values of the declared JSON kinds. The pages read these answers through the TypeScript declared
from the same types (``ratscrew/web/js/protocol.d.ts``), so an answer that drifts from its type
fails here before a page reads a missing field. The same check runs over the messages of a short
game on the websocket (``ratscrew.protocol.server_messages``), and over docs/protocol.md."""

from __future__ import annotations

import dataclasses
import re
import time
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Literal, NotRequired, get_args, get_origin, get_type_hints, is_typeddict

import pytest
from starlette.testclient import TestClient
from test_players import ANN_KEY, join, play_and_resign, store_of
from test_server_app import new_room

from ratscrew.protocol import http, server_messages
from ratscrew.ruleset import Ruleset
from ratscrew.server.app import create_app
from ratscrew.server.ladder.players import hash_key
from ratscrew.storage.sqlite import SqliteStore


def mismatches(value: object, hint: object, where: str = "answer") -> list[str]:
    """Where ``value`` (decoded JSON) is not of type ``hint`` (a protocol type): missing or unknown
    keys of a TypedDict, and values of another JSON kind."""
    if hint is typing.Any:
        return []
    if isinstance(hint, typing.NewType):
        return mismatches(value, hint.__supertype__, where)
    if isinstance(hint, type) and is_typeddict(hint):
        if not isinstance(value, dict):
            return [f"{where}: not an object"]
        hints = get_type_hints(hint, include_extras=True)
        required = {key for key, h in hints.items() if get_origin(h) is not NotRequired}
        found = [f"{where}: missing {key!r}" for key in sorted(required - set(value))]
        found += [f"{where}: unknown {key!r}" for key in sorted(set(value) - set(hints))]
        for key in set(value) & set(hints):
            inner = hints[key]
            inner = get_args(inner)[0] if get_origin(inner) is NotRequired else inner
            found += mismatches(value[key], inner, f"{where}.{key}")
        return found
    origin, args = get_origin(hint), get_args(hint)
    if origin in (types.UnionType, typing.Union):
        options = [mismatches(value, arg, where) for arg in args]
        return [] if any(not option for option in options) else min(options, key=len)
    if origin is Literal:
        return [] if value in args else [f"{where}: {value!r} is none of {args}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: not a list"]
        return [problem for n, item in enumerate(value)
                for problem in mismatches(item, args[0], f"{where}[{n}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: not an object"]
        return [problem for key, item in value.items()
                for problem in mismatches(item, args[1], f"{where}.{key}")]
    kinds: dict[object, tuple[type, ...]] = {str: (str,), bool: (bool,), int: (int,), float: (int, float),
                                            type(None): (type(None),)}
    if hint in kinds:
        ok = isinstance(value, kinds[hint]) and (hint is bool or not isinstance(value, bool))
        return [] if ok else [f"{where}: {value!r} is not a {getattr(hint, '__name__', hint)}"]
    raise AssertionError(f"the test knows no JSON kind for {hint!r}")


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(SqliteStore(":memory:"))) as test_client:
        yield test_client


def test_the_check_finds_a_missing_an_unknown_and_a_mistyped_key() -> None:
    good = {"game_id": 1, "at": "2026-01-01T00:00:00Z", "rating_before": 0.0, "rating_after": 1.5,
            "mu": 25.0, "sigma": 8}
    assert mismatches(good, http.RatingPoint) == []
    assert mismatches({**good, "sigmaa": 1.0}, http.RatingPoint) == ["answer: unknown 'sigmaa'"]
    assert mismatches({k: v for k, v in good.items() if k != "at"}, http.RatingPoint) == [
        "answer: missing 'at'"]
    assert mismatches({**good, "game_id": "1"}, http.RatingPoint) == ["answer.game_id: '1' is not a int"]
    assert mismatches({"presets": [{"name": "x"}]}, http.PresetsAnswer)[0] == \
        "answer.presets[0]: missing 'lines'"


def test_a_new_room_and_its_public_summary(client: TestClient) -> None:
    created = client.post("/api/rooms", json={"rules": "classic", "seats": 3, "bots": ["casual"]})
    assert created.status_code == 201 and mismatches(created.json(), http.RoomCreated) == []
    summary = client.get(f"/api/rooms/{created.json()['code']}").json()
    assert "you" not in summary and mismatches(summary, server_messages.RoomMessage) == []


def test_a_games_websocket_messages_are_their_types_too(client: TestClient) -> None:
    types_by_name = {get_type_hints(cls)["type"].__args__[0]: cls for cls in server_messages.SERVER_MESSAGES}
    seen: dict[str, list[str]] = {}
    resigned = False
    with client.websocket_connect(f"/ws/{new_room(client, bots=['casual'])}") as ws:
        ws.send_json({"type": "join", "name": "Ann", "player_key": ANN_KEY})
        ws.send_json({"type": "start"})
        for _ in range(400):
            message = ws.receive_json()
            seen.setdefault(message["type"], []).extend(mismatches(message, types_by_name[message["type"]],
                                                                   message["type"]))
            if message["type"] == "ping":
                ws.send_json({"type": "pong", "id": message["id"]})
            if message["type"] == "state" and not resigned:  # Ann goes out: the bot wins
                ws.send_json({"type": "resign"})
                resigned = True
            if message["type"] == "game_over":
                break
    assert {"welcome", "room", "state", "game_over"} <= set(seen)
    assert {kind: problems for kind, problems in seen.items() if problems} == {}


def test_presets_and_bots(client: TestClient) -> None:
    presets = client.get("/api/presets").json()
    assert presets["presets"] and mismatches(presets, http.PresetsAnswer) == []
    bots = client.get("/api/bots").json()
    assert bots["levels"] and bots["agents"] and mismatches(bots, http.BotsAnswer) == []


def test_a_players_page_and_the_leaderboard(client: TestClient) -> None:
    for bot in ("beginner", "casual", "skilled"):  # rated games against three opponents: ranked
        play_and_resign(client, "Ann", ANN_KEY, [bot])
    ann = store_of(client).player_by_key(hash_key(ANN_KEY)).player_id
    page = client.get(f"/api/players/{ann}").json()
    assert page["ratings"] and page["ratings"][0]["history"] and page["games"]
    assert mismatches(page, http.PlayerAnswer) == []
    board = client.get("/api/leaderboard?rules=classic").json()
    assert [row["player_id"] for row in board["players"]] == [ann]
    assert mismatches(board, http.LeaderboardAnswer) == []


def test_a_players_export_and_import_and_their_coded_errors(client: TestClient) -> None:
    ann = join(client, new_room(client), "Ann", ANN_KEY)["player_id"]
    exported = client.post("/api/players/export", json={"player_key": ANN_KEY})
    assert exported.status_code == 200 and mismatches(exported.json(), http.PlayerExported) == []
    imported = client.post("/api/players/import", json={"code": exported.json()["code"]})
    assert imported.json()["player_id"] == ann and mismatches(imported.json(), http.PlayerImported) == []
    refused = client.post("/api/players/import", json={"code": "not a code"})
    assert refused.status_code == 400 and mismatches(refused.json(), http.CodedError) == []
    unknown = client.get("/api/players/NoSuchPlayer")
    assert unknown.status_code == 404 and mismatches(unknown.json(), http.CodedError) == []


def test_the_labs_settings_a_job_and_its_report(client: TestClient) -> None:
    settings = client.get("/api/lab/settings").json()
    assert settings["settings"] and settings["presets"] and mismatches(settings, http.LabSettingsAnswer) == []
    assert any("choices" in setting for setting in settings["settings"])
    ours = dataclasses.replace(Ruleset.preset("pagat"), name="ours", misslap_cards=2)  # compared to pagat
    started = client.post("/api/lab", json={"rules": ours.to_toml(), "players": 2, "games": 100})
    assert started.status_code == 202 and mismatches(started.json(), http.LabJobStarted) == []
    seen = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status = client.get(started.json()["url"]).json()
        assert mismatches(status, http.LabJobStatus) == [], status["state"]
        seen.append(status["state"])
        if status["state"] in ("done", "failed"):
            break
        time.sleep(0.2)
    assert seen[-1] == "done" and status["report"]["compared_to"]["changed"] == {"misslap_cards": 2}


def test_the_quick_play_pools(client: TestClient) -> None:
    pools = client.get("/api/pools").json()
    assert len(pools["pools"]) == 10 and mismatches(pools, http.PoolsAnswer) == []


def test_the_arenas(client: TestClient) -> None:
    made = client.post("/api/arenas", json={"rules": "classic", "players": 2, "minutes": 30, "starts_in_s": 0,
                                            "player_key": "arenaKey_Qm3xT9vLp2Zr7WbK4s", "name": "Ann"})
    assert made.status_code == 201 and mismatches(made.json(), http.ArenaCreated) == []
    assert mismatches(client.get("/api/arenas").json(), http.ArenasAnswer) == []
    assert mismatches(client.get(made.json()["url"].replace("/arenas/", "/api/arenas/")).json(),
                      http.ArenaAnswer) == []


def test_every_answer_type_is_checked_here() -> None:
    checked = {http.RoomCreated, http.PresetsAnswer, http.BotsAnswer, http.PlayerAnswer,
               http.LeaderboardAnswer, http.PlayerExported, http.PlayerImported, http.CodedError,
               http.LabSettingsAnswer, http.LabJobStarted, http.LabJobStatus, http.PoolsAnswer,
               http.ArenaCreated, http.ArenasAnswer, http.ArenaAnswer}
    assert checked == set(http.HTTP_ANSWERS)


DOCS = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"


def _keys(cls: type, path: str = "") -> list[str]:
    """Every key of a TypedDict, nested ones as ``parent.key``."""
    found = []
    for key, hint in get_type_hints(cls).items():
        found.append(f"{path}{key}")
        found += [inner for part in _typed_dicts(hint) for inner in _keys(part, f"{path}{key}.")]
    return found


def _typed_dicts(hint: object) -> list[type]:
    if isinstance(hint, type) and is_typeddict(hint):
        return [hint]
    return [found for arg in get_args(hint) for found in _typed_dicts(arg)]


def test_every_key_of_every_answer_is_named_in_the_docs() -> None:
    text = DOCS.read_text(encoding="utf-8")
    http_part = text[text.index("\n## HTTP\n"):text.index("\n## WebSocket\n")]
    named = {word for span in re.findall(r"```.*?```|`[^`]+`", http_part, re.S)
             for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span)}
    # the lab report's figures are the lab's own to document (docs/lab.md), figure by figure
    missing = [key for cls in http.HTTP_ANSWERS for key in _keys(cls)
               if not key.startswith("report.") and key.rsplit(".", 1)[-1] not in named]
    assert missing == [], f"keys docs/protocol.md's HTTP section does not name: {missing}"
