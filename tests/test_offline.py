"""The offline table's room (issue 51) on a fake clock, and what ``ratscrew serve`` hands the
browser to install the app and run that room in a worker: the manifest, the service worker,
``/play``, the sources archive (enough, on its own, to play a game without any third-party
package) and the Content-Security-Policy that lets only the worker compile WebAssembly."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from ratscrew.offline.check import seeded_game
from ratscrew.offline.jsonshim import dumps, loads
from ratscrew.offline.room import CODE, OfflineRoom, parse_play_query
from ratscrew.protocol.codec import ProtocolError, encode_message
from ratscrew.server.app import create_app
from ratscrew.server.http.offline import PYODIDE_DIR, WORKER_SCRIPT, sources_archive
from ratscrew.server.http.security import CONTENT_SECURITY_POLICY
from ratscrew.storage.sqlite import SqliteStore

SEEDED = "rules=classic&bots=casual,casual,casual&seed=42&time_limit_ms=600000"


class Table:
    """An offline room on a clock the test moves, and every frame it sent, decoded."""

    def __init__(self, query: str) -> None:
        self.seconds = 0.0
        self.room = OfflineRoom(parse_play_query(query), wall=lambda: self.seconds)
        self.frames: list[dict[str, Any]] = []

    def send(self, **message: Any) -> list[dict[str, Any]]:
        got = [json.loads(frame) for frame in self.room.receive(json.dumps(message))]
        self.frames += got
        return got

    def at(self, ms: float) -> list[dict[str, Any]]:
        self.seconds = ms / 1000.0
        got = [json.loads(frame) for frame in self.room.advance()]
        self.frames += got
        return got

    def last(self, kind: str) -> dict[str, Any]:
        return next(frame for frame in reversed(self.frames) if frame["type"] == kind)


def test_sitting_down_opens_a_table_against_the_bots_at_once() -> None:
    table = Table("rules=pagat&bots=casual,expert&seed=5")
    sent = table.send(type="join", name="Ann")
    assert [frame["type"] for frame in sent] == ["welcome", "room", "state", "room"]
    welcome, room = sent[0], sent[-1]
    assert welcome["seat"] == 0 and welcome["host"] and welcome["code"] == CODE and welcome["token"]
    assert room["phase"] == "playing" and room["rules"]["name"] == "pagat"
    assert [(seat["kind"], seat["name"]) for seat in room["seats"]] == [
        ("human", "Ann"), ("bot", "Casual bot"), ("bot", "Expert bot")]
    state = table.last("state")
    assert state["observation"]["seat"] == 0 and state["observation"]["players"] == 3


def test_a_slap_on_an_empty_pile_is_a_misslap_said_in_words_and_counted_in_the_results() -> None:
    table = Table("bots=casual&seed=3&time_limit_ms=60000")
    table.send(type="join", name="Ann")
    table.seconds = 1.0
    state = table.send(type="slap", reaction_ms=500)[-1]
    assert state["events"][0]["kind"] == "misslap"
    assert state["lines"][0].startswith("Ann slapped an empty pile. Ann burns 1 card")
    table.at(61_000)  # the time limit ends the game
    over = table.last("game_over")
    assert over["reason"] == "time_limit"
    assert over["results"][0]["name"] == "Ann" and over["results"][0]["misslaps"] == 1
    assert table.last("room")["phase"] == "over"


def test_a_turn_left_alone_is_played_by_the_stand_in_and_a_game_ends_with_results_for_all() -> None:
    table = Table("bots=casual,casual&seed=11&time_limit_ms=60000")
    table.send(type="join", name="Ann")
    while table.room.phase == "playing":
        wake = table.room.wake_in_ms()
        assert wake is not None, "a game in play always has something due"
        table.at(table.room.now() + wake)
    over = table.last("game_over")
    assert [row["name"] for row in over["results"]] == ["Ann", "Casual bot", "Casual bot 2"]
    ann = over["results"][0]
    assert ann["actions"] > 0 and ann["by_time_out"] == ann["actions"]  # Ann pressed nothing
    assert table.send(type="rematch")[0]["type"] == "state"  # a new deal at once


@pytest.mark.parametrize(("query", "field"), [
    ("bots=grandmaster", "bots"), ("time_limit_ms=5000", "time_limit_ms"),
    ("time_limit_ms=soon", "time_limit_ms"), ("rules=nosuch", "nosuch"), ("bots=", "bot"),
])
def test_a_table_that_cannot_be_had_is_refused_naming_the_field(query: str, field: str) -> None:
    with pytest.raises(ProtocolError, match=field):
        parse_play_query(query)


def test_what_the_offline_table_cannot_do_is_refused_in_words() -> None:
    table = Table("bots=casual")
    assert table.send(type="play")[0]["code"] == "not_seated"
    table.send(type="join", name="Ann")
    refusal = table.send(type="configure", seats=3)[0]
    assert refusal["type"] == "error" and "one person and its bots" in refusal["message"]
    assert table.send(type="start")[0]["code"] == "wrong_phase"


def test_the_json_stand_in_writes_what_orjson_writes() -> None:
    message = {"type": "state", "lines": ["Ann plays 7♥"], "n": 3, "x": None, "ok": True}
    assert dumps(message).decode() == encode_message(message)
    assert loads('{"a": [1, 2.5]}') == {"a": [1, 2.5]}
    with pytest.raises(ValueError):
        loads('{"a": NaN}')


def test_the_sources_archive_alone_plays_the_seeded_game_to_the_same_end(tmp_path: Path) -> None:
    """No site-packages (``-S -I``), so no orjson and no server dependency: the archive holds
    every module the worker imports, and the game ends as it does here."""
    zipfile.ZipFile(io.BytesIO(sources_archive())).extractall(tmp_path)
    script = (f"import sys, json; sys.path.insert(0, {str(tmp_path)!r})\n"
              "from ratscrew.offline.jsonshim import install; install()\n"
              "from ratscrew.offline.check import seeded_game\n"
              f"print(json.dumps(seeded_game({SEEDED!r})))\n"
              "print(sys.modules['orjson'].__name__, sorted(m.split('.')[0] for m in sys.modules "
              "if m.split('.')[0] in ('starlette', 'sqlite3', 'sqlalchemy', 'openskill')))\n")
    run = subprocess.run([sys.executable, "-S", "-I", "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    summary, imported = run.stdout.splitlines()
    assert json.loads(summary) == seeded_game(SEEDED)
    assert imported == "ratscrew.offline.jsonshim []"


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(SqliteStore(":memory:"))) as test_client:
        yield test_client


def test_the_manifest_makes_the_app_installable(client: TestClient) -> None:
    answer = client.get("/manifest.webmanifest")
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest = answer.json()
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    assert manifest["theme_color"] and manifest["background_color"]
    icons = {(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]}
    assert icons == {("192x192", "any"), ("512x512", "any"), ("192x192", "maskable"), ("512x512", "maskable")}
    for icon in manifest["icons"]:
        png = client.get(icon["src"])
        assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = int.from_bytes(png.content[16:20], "big"), int.from_bytes(png.content[20:24], "big")
        assert f"{width}x{height}" == icon["sizes"]


def test_the_service_worker_is_served_from_the_root_with_its_version_and_lists(client: TestClient) -> None:
    answer = client.get("/sw.js")
    assert answer.headers["content-type"].startswith("text/javascript")
    assert answer.headers["cache-control"] == "no-cache"
    head = dict(line.removeprefix("const ").rstrip(";").split(" = ", 1)
                for line in answer.text.splitlines()[:3])
    assert json.loads(head["VERSION"]).startswith("ratscrew-0.1.0-")
    shell = json.loads(head["SHELL"])
    assert {"/", "/play", "/static/js/room.js", "/static/js/offline/transport.js",
            "/static/icons/maskable-512.png", "/api/bots"} <= set(shell)
    for path in shell:
        assert client.get(path).status_code == 200, path
    assert "/offline/ratscrew.zip" in json.loads(head["OFFLINE"])


def test_play_is_the_room_page_and_only_its_worker_may_compile_webassembly(client: TestClient) -> None:
    play = client.get("/play?rules=classic&bots=casual,casual,casual&time_limit_ms=600000")
    assert play.status_code == 200 and 'src="/static/js/room.js"' in play.text
    assert play.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    worker = client.get(WORKER_SCRIPT)
    policies = [value for key, value in worker.headers.multi_items() if key == "content-security-policy"]
    wasm = CONTENT_SECURITY_POLICY.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'")
    assert policies == [wasm]
    assert "wasm-unsafe-eval" not in client.get("/static/js/room.js").headers["content-security-policy"]


def test_the_status_says_which_pyodide_files_are_missing(client: TestClient) -> None:
    status = client.get("/offline/status").json()
    assert set(status) == {"pyodide", "missing", "version"}
    assert status["pyodide"] == (status["missing"] == [])


def test_pyodide_files_go_gzipped_when_make_pyodide_packed_them(client: TestClient) -> None:
    assert client.get("/static/pyodide/secrets.txt").status_code == 404
    wasm = PYODIDE_DIR / "pyodide.asm.wasm"
    if not (wasm.with_name("pyodide.asm.wasm.gz")).exists():
        pytest.skip("Pyodide's files are not in ratscrew/web/pyodide (make pyodide)")
    answer = client.get("/static/pyodide/pyodide.asm.wasm", headers={"accept-encoding": "gzip"})
    assert answer.headers["content-type"] == "application/wasm"
    assert answer.headers["content-encoding"] == "gzip"
    assert answer.content == wasm.read_bytes()  # decoded by the client, as a browser does
    plain = client.get("/static/pyodide/pyodide.asm.wasm", headers={"accept-encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == wasm.read_bytes()
