"""``ratscrew join``: the terminal at an online table, against a real ``ratscrew serve``.

The terminal player is the Textual app driven by its pilot; the other player is a raw websocket
client (`serving.Player`) or a real browser. The terminal sits down, plays, slaps a double and
is judged by the reaction it measured from the screen; after a dropped connection and after a
restart it takes its seat back with its kept token. Errors say what to do.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, cast

import pytest
from browsing import CHROMIUM, CHROMIUM_ARGS
from piloting import screen_text, until
from serving import Player, ServerProcess, play_cards
from test_play_cli import ratscrew_command
from textual.pilot import Pilot

from ratscrew.cli import main
from ratscrew.client.address import RoomAddress
from ratscrew.client.saved import SavedState
from ratscrew.commands.join import bring_player
from ratscrew.engine import Game
from ratscrew.protocol.server_messages import ServerMessage, StateMessage
from ratscrew.ruleset import Ruleset
from ratscrew.tui.gamelog import GameLog, clock_label
from ratscrew.tui.online import OnlineApp, ResignScreen, RoomScreen


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("join") / "ratscrew.db") as running:
        yield running


PLAYER_KEY = "terminal-tests-Vx4Rb8Mq2Tz6Kp0Wn9Lh"
"""The player key of the terminals in these tests: one person (Tess) on one server. A name
belongs to one key at a time on a server, so terminals with fresh keys could not all be Tess."""


@pytest.fixture(autouse=True)
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Path:
    """Keep tokens and names in the test's own state directory; against the server, the saved
    state of ``tmp_path / "online.json"`` and of the state directory holds `PLAYER_KEY`."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    if "server" in request.fixturenames:
        url = request.getfixturevalue("server").url
        for path in (tmp_path / "online.json", tmp_path / "state" / "ratscrew" / "online.json"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"player_keys": {url: PLAYER_KEY}}))
    return tmp_path / "state"


def early_double(players: int = 2) -> tuple[int, int]:
    """A seed whose deal, played in turn, shows a double within eight cards and no face card
    before it; and how many cards that takes."""
    classic = Ruleset.preset("classic")
    for seed in range(2000):
        game = Game.deal(classic, players=players, seed=seed)
        for played in range(1, 9):
            turn = game.observe(None)["turn"]
            assert turn is not None, "a game just dealt goes on for eight cards"
            game.play(turn, at=200 * played)
            pile = game.observe(None)["pile"]
            if pile[-1][0] in "JQKA":
                break
            if len(pile) >= 2 and pile[-1][0] == pile[-2][0]:
                return seed, played
    raise AssertionError("no seed with an early double")


class Heard:
    """Every message the app was sent (pings aside), recorded on the way in."""

    def __init__(self, app: OnlineApp) -> None:
        self.messages: list[Mapping[str, Any]] = []
        handle = app.link.on_message

        def record(message: ServerMessage, arrived: float) -> None:
            self.messages.append(message)
            handle(message, arrived)

        app.link.on_message = record

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e for m in self.messages if m["type"] == "state" for e in m["events"] if e["kind"] == kind]


def cards_played(app: OnlineApp) -> int:
    return int(app.state["observation"]["cards_played"]) if app.state else -1


def room(app: OnlineApp) -> Mapping[str, Any]:
    """The latest ``room`` message (empty before the first)."""
    return app.room or {"seats": [{}, {}]}


def room_text(app: OnlineApp) -> str:
    return app.room_text().plain


async def take_turns(pilot: Pilot[Any], app: OnlineApp, other: Player, cards: int) -> None:
    """The terminal (seat 1) and ``other`` (seat 0) play ``cards`` cards in turn."""
    for _ in range(cards):
        before = cards_played(app)
        if app.state is not None and app.state["observation"]["turn"] == 1:
            await pilot.press("a")
        else:
            other.send({"type": "play"})
        await until(pilot, lambda before=before: cards_played(app) == before + 1,  # type: ignore[misc]
                    f"card {before + 1}")


def seated_app(server: ServerProcess, code: str, saved: SavedState, name: str = "Tess") -> OnlineApp:
    return OnlineApp(RoomAddress(server.url, code), name, saved=saved)


def logged(app: OnlineApp) -> str:
    """The game log's text, one line per row."""
    return "\n".join(strip.text for strip in app.table_screen.query_one(GameLog).lines)


def top_bar(app: OnlineApp) -> str:
    return str(app.table_screen.query_one("#topbar").render())


def key_bar(app: OnlineApp) -> str:
    return str(app.table_screen.query_one("#keybar").render())


def a_game_under_way(server: ServerProcess, cards: int = 6) -> tuple[str, Player]:
    """A room of Ann and a casual bot whose game has gone ``cards`` cards: its code, and Ann."""
    code = server.new_room(seats=2, bots=["casual"], seed=11, pace="fast", turn_timeout_ms=60_000)
    ann = server.player(code)
    ann.join("Ann")
    ann.send({"type": "start"})
    ann.wait_for("state")
    play_cards({0: ann}, cards)
    ann.drain()
    return code, ann


async def test_a_terminal_player_sits_plays_slaps_and_takes_the_seat_back(
        server: ServerProcess, tmp_path: Path) -> None:
    seed, to_double = early_double()
    code = server.new_room(seats=2, seed=seed, turn_timeout_ms=60_000)
    ann = server.player(code)
    assert ann.join("Ann")["seat"] == 0
    saved = SavedState(tmp_path / "online.json")
    app = seated_app(server, code, saved)
    heard = Heard(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.seat == 1 and isinstance(app.screen, RoomScreen), "a seat")
        token = saved.token(server.url, code)
        assert token is not None
        assert "Tess (you)" in room_text(app) and "Ann " in room_text(app)
        assert "s start" not in app.room_keys()  # Ann is the host
        ann.send({"type": "start"})
        await until(pilot, lambda: app.state is not None and not isinstance(app.screen, RoomScreen),
                    "the table")
        await take_turns(pilot, app, ann, to_double)
        pile = app.state["observation"]["pile"] if app.state else []
        assert pile[-1][0] == pile[-2][0], f"expected a double on {pile}"
        shown_version = app.state["version"] if app.state else -1
        await until(pilot, lambda: (app.shown.reaction_to(time.monotonic()) or (0, 0))[0] == shown_version,
                    "the paint")
        await asyncio.sleep(0.25)  # a person's reaction
        await pilot.press("s")
        await until(pilot, lambda: any(e["seat"] == 1 for e in heard.events("slap_won")), "the slap")
        slap = next(m for m in app.link.sent if m["type"] == "slap")
        assert slap["version"] == shown_version
        assert 250 <= slap["reaction_ms"] < 5000
        await pilot.pause(0.1)
        assert "Tess slaps a double" in str(app.notice)
        assert app.state and app.state["observation"]["hand_sizes"][1] > 26 - to_double

        # The connection drops: the link reconnects and the token takes seat 1 back.
        app.link.drop()
        await until(pilot, lambda: app.link.connections == 2 and app.link.connected, "the reconnection")
        await until(pilot, lambda: app.seat == 1 and room(app)["seats"][1].get("connected"), "the seat back")
        await take_turns(pilot, app, ann, 2)

    # A restarted client takes the seat back too (the token was kept in the state file).
    again = seated_app(server, code, SavedState(tmp_path / "online.json"))
    heard = Heard(again)
    async with again.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: again.seat == 1 and again.state is not None, "the seat after a restart")
        assert again.saved.token(server.url, code) == token
        await pilot.press("f10")
        await pilot.press("y")  # resign: Ann wins
        await until(pilot, lambda: again.over is not None and isinstance(again.screen, RoomScreen),
                    "the results")
        # the winner is drawn once the room message after game_over says the phase is over
        await until(pilot, lambda: "Ann wins!" in room_text(again), "the winner")
        assert "r rematch" not in again.room_keys()
        game_id = again.over["game_id"] if again.over else None
    record = server.get(f"/api/games/{game_id}/record").json()
    [judged] = [j for j in record["judging"] if j["seat"] == 1 and j["kind"] == "slap"]
    assert judged["version"] == slap["version"] and judged["clamped"] != "unstamped"
    if judged["clamped"] is None:  # else the server bounded it by the link it measured
        # stored as a whole ms: 254.5 may be stored as 254 or 255 (the server's own float of it)
        assert abs(judged["reaction_ms"] - slap["reaction_ms"]) <= 0.5 + 1e-6


async def test_a_terminal_plays_as_the_player_key_it_keeps_for_that_server(
        server: ServerProcess, tmp_path: Path) -> None:
    saved = SavedState(tmp_path / "fresh.json")  # a first run: no key yet
    app = seated_app(server, server.new_room(seats=2, bots=["casual"]), saved, name="Keya")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.seat == 0 and app.player_id is not None, "a player id")
    key = saved.player_key(server.url)
    assert key != PLAYER_KEY and SavedState(tmp_path / "fresh.json").player_key(server.url) == key
    assert saved.player_key("http://elsewhere.example:8000") != key  # a key per server
    assert server.get(f"/api/players/{app.player_id}").json()["name"] == "Keya"
    # another run, another room, another name: the same player, now named Keyana
    again = seated_app(server, server.new_room(seats=2, bots=["casual"]),
                       SavedState(tmp_path / "fresh.json"), name="Keyana")
    async with again.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: again.player_id is not None, "a player id")
    assert again.player_id == app.player_id
    assert server.get(f"/api/players/{app.player_id}").json()["name"] == "Keyana"
    # someone else's key under that name is told to choose another, and watches
    other = seated_app(server, server.new_room(seats=2, bots=["casual"]),
                       SavedState(tmp_path / "other.json"), name="KEYANA")
    async with other.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: other.notice is not None and "already goes by" in other.notice.plain,
                    "the name refused")
        assert other.watching and other.seat is None and other.player_id is None
        assert other.notice is not None and "--name" in other.notice.plain
        # the same person on another device is offered the way to bring their player here
        said = other.notice.plain
        assert "If that is you" in said and "import code" in said
        assert f"ratscrew join {other.address.code} --server {server.url} --import-code" in said


async def test_the_host_at_a_terminal_starts_and_asks_for_a_rematch(
        server: ServerProcess, tmp_path: Path) -> None:
    code = server.new_room(seats=2, bots=["casual"], seed=3, pace="fast", turn_timeout_ms=60_000)
    app = seated_app(server, code, SavedState(tmp_path / "online.json"), name="Hana")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.host and isinstance(app.screen, RoomScreen), "the lobby")
        assert "s start" in app.room_keys()
        assert "Casual bot" in room_text(app)
        await until(pilot, lambda: "You are the host: press s to start" in screen_text(app),
                    "the host's lobby drawn")
        assert "Waiting for the host" not in screen_text(app)
        await pilot.press("s")
        await until(pilot, lambda: app.state is not None, "the game")
        await until(pilot, lambda: not isinstance(app.screen, RoomScreen), "the table")
        await pilot.press("f10")
        await until(pilot, lambda: "Resign this game?" in screen_text(app), "the resign prompt")
        prompt = screen_text(app)
        for said in ("Resign this game?", "Your cards are burned under the pile.",
                     "y resign · n or Esc keep playing"):
            assert said in prompt, prompt
        await pilot.press("y")
        await until(pilot, lambda: app.over is not None, "the end")
        # game_over comes first and the room message saying the phase is over right after it;
        # the rematch key is offered once that second message is read
        await until(pilot, lambda: "r rematch" in app.room_keys(), "the rematch key")
        await until(pilot, lambda: "press r for a rematch" in room_text(app), "the rematch offered")
        await pilot.press("r")
        await until(pilot, lambda: app.over is None and room(app).get("games_played") == 2
                    and room(app).get("phase") == "playing", "the rematch")
        await until(pilot, lambda: not isinstance(app.screen, RoomScreen), "the new game's table")


async def test_a_host_command_while_the_connection_is_down_says_it_was_not_sent(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "lost.db") as lost:  # a server of its own: this test kills it
        code = lost.new_room(seats=2, bots=["casual"], seed=3)
        app = seated_app(lost, code, SavedState(tmp_path / "online.json"), name="Hana")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.host and isinstance(app.screen, RoomScreen), "the lobby")
            lost.kill()
            await until(pilot, lambda: not app.link.connected, "the dropped connection")
            await pilot.press("s")
            await until(pilot, lambda: "the start was not sent" in str(app.notice), "the refusal")
            await until(pilot, lambda: "Not connected (reconnecting" in screen_text(app),
                        "the room screen saying so")
            await until(pilot, lambda: "the start was not sent" in screen_text(app),
                        "the room screen saying it")
            assert app.state is None, "no game started"


async def test_the_lobby_says_the_time_limit_and_how_long_a_game_here_lasts_and_the_game_counts_down(
        server: ServerProcess, tmp_path: Path) -> None:
    # as the browser's lobby does: a terminal player learns of the limit before the game ends on it
    code = server.new_room(seats=2, bots=["casual"], pace="fast", time_limit_ms=600_000)
    app = seated_app(server, code, SavedState(tmp_path / "online.json"), name="Tim")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, RoomScreen) and app.room is not None, "the lobby")
        await until(pilot, lambda: "Time limit: 10 min. When it is up, the player holding the most "
                    "cards wins" in room_text(app), "the time limit in the lobby")
        await until(pilot, lambda: room(app).get("expected_length") is not None,
                    "the simulated length", timeout=120)
        expected = room(app)["expected_length"]
        await until(pilot, lambda: f"A game here lasts about {expected['median_minutes']} minutes"
                    in room_text(app), "the expected length in the lobby")
        await pilot.press("s")  # Tim is the host; during the game the top bar counts down
        await until(pilot, lambda: app.state is not None, "the game")
        await until(pilot, lambda: re.search(r" · (9:5\d|10:00) left", top_bar(app)) is not None,
                    "the time left in the top bar")


async def test_a_kicked_player_is_told_and_forgets_the_seat(server: ServerProcess, tmp_path: Path) -> None:
    code = server.new_room(seats=3)
    host = server.player(code)
    host.join("Ann")
    saved = SavedState(tmp_path / "online.json")
    app = seated_app(server, code, saved)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.seat == 1, "a seat")
        host.send({"type": "kick", "seat": 1})
        await until(pilot, lambda: app.seat is None and app.notice is not None, "the kick")
        assert "removed you" in str(app.notice)
        assert saved.token(server.url, code) is None
        assert "watching" in str(app.table_screen.query_one("#keybar").render())


async def test_a_token_the_room_did_not_issue_is_forgotten(server: ServerProcess, tmp_path: Path) -> None:
    code = server.new_room(seats=2)
    saved = SavedState(tmp_path / "online.json")
    saved.save_token(server.url, code, "not-a-token-of-this-room")
    app = seated_app(server, code, saved)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.notice is not None and app.room is not None, "the refusal")
        assert "not from this room" in str(app.notice) and "Run ratscrew join again" in str(app.notice)
        assert app.seat is None and saved.token(server.url, code) is None


async def test_a_seat_taken_over_elsewhere_ends_with_a_message(server: ServerProcess, tmp_path: Path) -> None:
    code = server.new_room(seats=2)
    saved = SavedState(tmp_path / "online.json")
    app = seated_app(server, code, saved)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.seat == 0, "a seat")
        other = server.player(code)
        token = saved.token(server.url, code)
        await asyncio.to_thread(other.join, "Tess", token)
        await until(pilot, lambda: app.exit_message is not None and not app.is_running, "the end")
    assert app.exit_message is not None and "taken over" in app.exit_message
    assert "run this command again" in app.exit_message


async def test_a_full_room_makes_a_newcomer_wait_for_the_next_game(server: ServerProcess,
                                                                   tmp_path: Path) -> None:
    code = server.new_room(seats=2)
    server.player(code).join("Ann")
    server.player(code).join("Bob")  # both seats taken by people: no bot can give one up
    app = seated_app(server, code, SavedState(tmp_path / "online.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.room is not None and app.notice is not None, "the welcome")
        assert app.seat is None and "dealt into the next game" in str(app.notice)
        watcher = OnlineApp(RoomAddress(server.url, code), "Eve", watch=True,
                            saved=SavedState(tmp_path / "other.json"))
        async with watcher.run_test(size=(80, 24)) as watching:
            await until(watching, lambda: watcher.room is not None, "the room")
            assert watcher.seat is None and watcher.notice is None
            await watching.press("a")
            assert not [m for m in watcher.link.sent if m["type"] == "play"]


async def test_a_terminal_joining_mid_game_waits_with_the_log_so_far_and_is_dealt_into_the_next(
        server: ServerProcess, tmp_path: Path) -> None:
    code, ann = a_game_under_way(server)
    said_before = [line for entry in ann.messages if entry["type"] == "state"
                   for line in entry["lines"]]
    assert len(said_before) >= 6
    app = seated_app(server, code, SavedState(tmp_path / "online.json"))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.session.status == "waiting" and app.state is not None, "waiting")
        await pilot.pause(0.2)
        assert app.seat is None and not app.watching
        assert app.notice is not None and "dealt into the next game" in app.notice.plain
        # the log from before the join, each line once
        log = logged(app)
        for line in said_before:
            assert log.count(line) == 1, (line, log)
        # the room's clock, not one that starts at the join
        assert app.now_ms >= app.state["observation"]["now"] > 0 if app.state else False
        # no resigning for someone not in the game
        assert "waiting for the next game" in key_bar(app) and "F10" not in key_bar(app)
        await pilot.press("f10")
        await pilot.pause(0.2)
        assert not isinstance(app.screen, ResignScreen)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, RoomScreen), "the room screen")
        assert "you will be dealt into the next one" in room_text(app)
        assert "Tess (you)" in room_text(app)  # on the waiting list
        await pilot.press("escape")
        # the game ends: Tess takes the bot's seat, and plays the rematch
        ann.send({"type": "resign"})
        await until(pilot, lambda: app.session.seated and app.seat == 1, "the seat")
        assert app.notice is not None and "You have a seat now: seat 2" in app.notice.plain
        await until(pilot, lambda: "a play · s slap" in key_bar(app), "the player's keys")
        assert "Casual bot wins!" in room_text(app)  # the finished game's winner, not Tess
        assert "F10" not in key_bar(app)  # no game to resign from
        ann.send({"type": "rematch"})
        await until(pilot, lambda: app.state is not None and app.state["game"] == 2
                    and not isinstance(app.screen, RoomScreen), "the rematch")
        assert "F10 resign" in key_bar(app)
        assert "Game 2" in logged(app)
        await take_turns(pilot, app, ann, 2)
        assert "Tess plays" in logged(app)


async def test_a_watcher_sees_the_log_and_the_real_clock_and_has_no_resign(server: ServerProcess,
                                                                          tmp_path: Path) -> None:
    code, ann = a_game_under_way(server, cards=12)
    said = [line for m in ann.messages if m["type"] == "state" for line in m["lines"]]
    app = OnlineApp(RoomAddress(server.url, code), "Eve", watch=True,
                    saved=SavedState(tmp_path / "online.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.state is not None, "the table")
        await pilot.pause(0.3)
        # more lines than the log shows: it opens at the newest
        assert len(said) > app.table_screen.query_one(GameLog).size.height
        await until(pilot, lambda: said[-1][:60] in screen_text(app), "the newest line in view")
        observation: Mapping[str, Any] = app.state["observation"] if app.state else {}
        clock = app.now_ms
        assert clock >= observation["now"] > 0
        shown = screen_text(app)
        assert clock_label(int(observation["now"]))[:4] in shown.splitlines()[0]  # mm:s of the game
        assert "Ann plays" in logged(app)
        assert "watching" in key_bar(app) and "F10" not in key_bar(app) and "resign" not in key_bar(app)
        await pilot.press("f10")
        await pilot.pause(0.2)
        assert not isinstance(app.screen, ResignScreen)
        await pilot.press("f1")
        await until(pilot, lambda: "Help" in screen_text(app), "the help")
        assert "resign" not in screen_text(app).lower()
        # a card played after the watcher came is logged and the clock goes on with the room
        before = observation["cards_played"]
        play_cards({0: ann}, 2)
        await until(pilot, lambda: app.state is not None and app.state["observation"]["cards_played"]
                    >= before + 1, "the next card")
        assert app.now_ms >= clock


async def test_a_notice_from_the_room_is_shown_and_logged(tmp_path: Path) -> None:
    app = OnlineApp(RoomAddress("http://127.0.0.1:9", "K7QPX2"), "Tess",
                    saved=SavedState(tmp_path / "online.json"), connect=False)
    async with app.run_test(size=(100, 30)) as pilot:
        app.handle_message({"type": "notice", "code": "resumed",
                            "message": "the database is back: the game goes on"}, 0.0)
        await pilot.pause(0.2)
        assert app.notice is not None and app.notice.plain == "The database is back: the game goes on."
        assert "The database is back: the game goes on." in logged(app)


async def test_a_server_speaking_another_protocol_is_left_with_a_message(tmp_path: Path) -> None:
    app = OnlineApp(RoomAddress("http://127.0.0.1:9", "K7QPX2"), "Tess",
                    saved=SavedState(tmp_path / "online.json"), connect=False)
    async with app.run_test() as pilot:
        app.handle_message(cast(ServerMessage, {"type": "welcome", "protocol": 2, "code": "K7QPX2",
                                                "seat": 0, "token": "t", "host": True,
                                                "name": "Tess"}), 0.0)
        await pilot.pause()
    assert app.exit_message is not None and "protocol version 2" in app.exit_message
    assert "install the same ratscrew version" in app.exit_message
    assert app.saved.token("http://127.0.0.1:9", "K7QPX2") is None


def test_a_key_press_answers_the_newest_state_on_screen_before_it(tmp_path: Path) -> None:
    app = OnlineApp(RoomAddress("http://127.0.0.1:9", "K7QPX2"), "Tess",
                    saved=SavedState(tmp_path / "online.json"), connect=False)
    app.session.state = cast(StateMessage, {"version": 8, "observation": {"over": False}})
    app.session.seat, app.session.status = 0, "player"
    sent: list[dict[str, Any]] = []

    def send(message: dict[str, Any]) -> bool:
        sent.append(message)
        return True

    app.link.send = send  # type: ignore[method-assign]
    app.shown.shown(7, at=100.0)
    app.shown.shown(8, at=100.5)
    app.act("slap", pressed_at=100.4)
    assert sent == [{"type": "slap", "version": 7, "reaction_ms": 400.0}]


# ---------------------------------------------------------------------------------- the command


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the command, expect exit status 2, return the error line."""
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("ratscrew: error: ") and "\n" not in err and "Traceback" not in err
    return err.removeprefix("ratscrew: error: ")


def test_an_unknown_room_is_named(server: ServerProcess, capsys: pytest.CaptureFixture[str]) -> None:
    message = refused(["join", "ZZZZ99", "--server", server.url], capsys)
    assert message.startswith(f"there is no room ZZZZ99 on {server.url}: check the code")


def test_an_unreachable_server_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    message = refused(["join", "http://127.0.0.1:9/r/K7QPX2"], capsys)
    assert message.startswith("cannot reach a ratscrew server at http://127.0.0.1:9")
    assert "ratscrew serve" in message


@pytest.mark.parametrize(("argv", "message"), [
    (["K7 QPX"], "is neither a room code (like K7QPX2) nor a room link"),
    (["K7QPX2", "--server", "ftp://x"], "--server must be an http:// or https:// address"),
    (["K7QPX2", "--name", "  "], "--name: a name needs at least one visible letter or digit"),
    (["K7QPX2", "--keys", "slap:escape"], "key 'Esc' for slap is kept for the room"),
])
def test_bad_arguments_are_refused_before_connecting(argv: list[str], message: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert message in refused(["join", *argv, "--server", "http://127.0.0.1:9"]
                              if "--server" not in argv else ["join", *argv], capsys)


def test_a_player_moves_to_another_terminal_with_the_import_code(
        server: ServerProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Mo has played on this server from the first computer
    first = tmp_path / "first"
    monkeypatch.setenv("XDG_STATE_HOME", str(first))
    key = SavedState().player_key(server.url)
    mo = server.player(server.new_room(seats=2, bots=["casual"])).join("Mo", player_key=key)
    assert main(["join", "--export-code", "--server", server.url]) == 0
    printed = capsys.readouterr()
    code = printed.out.strip()
    assert code.startswith(key + ".") and "--import-code" in printed.err
    # on the second computer, the name is Mo's: the import code brings Mo there
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "second"))
    own = SavedState().player_key(server.url)
    room = server.new_room(seats=2, bots=["casual"])
    elsewhere = server.player(room)
    elsewhere.send({"type": "join", "name": "Mo", "player_key": own})
    error = elsewhere.wait_for("error")
    assert error["code"] == "name_taken" and "bring your player to this device" in error["message"]
    assert bring_player(SavedState(), server.url, code) == "Mo"
    assert f"this computer now plays as Mo on {server.url}" in capsys.readouterr().err
    saved = SavedState()
    assert saved.player_key(server.url) == key and saved.replaced_keys(server.url) == [own]
    again = server.player(room).join("Mo", player_key=saved.player_key(server.url))
    assert again["type"] == "welcome" and again["player_id"] == mo["player_id"]
    # what cannot be done is said
    assert "that is not an import code" in refused(
        ["join", room, "--server", server.url, "--import-code", "not-a-code"], capsys)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "third"))
    assert "has not played on" in refused(["join", "--export-code", "--server", server.url], capsys)
    assert "name the room" in refused(["join", "--server", server.url], capsys)


def test_serve_prints_the_join_line_beside_the_browser_link(server: ServerProcess) -> None:
    assert server.process is not None and server.process.stdout is not None
    line = server.process.stdout.readline()
    assert f"ratscrew join CODE --server {server.url}" in line


# ---------------------------------------------------------------------------------- a browser too


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}")
async def test_a_browser_and_a_terminal_play_at_one_table(server: ServerProcess, tmp_path: Path) -> None:
    async_api = pytest.importorskip("playwright.async_api")
    seed, to_double = early_double()
    code = server.new_room(seats=2, seed=seed, turn_timeout_ms=60_000)
    async with async_api.async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM,
                                                   args=CHROMIUM_ARGS)
        try:
            page = await (await browser.new_context(reduced_motion="reduce")).new_page()
            await page.goto(f"{server.url}/r/{code}")
            await page.fill("[data-testid=name]", "Bea")
            await page.click("[data-testid=join]")
            await page.wait_for_selector("[data-testid=join-panel]", state="hidden")
            app = seated_app(server, code, SavedState(tmp_path / "online.json"))
            heard = Heard(app)
            async with app.run_test(size=(80, 24)) as pilot:
                await until(pilot, lambda: app.seat == 1, "a seat")
                await page.wait_for_selector("[data-testid=lobby-seats] li:nth-child(2):has-text('Tess')")
                await page.click("[data-testid=start]")
                await until(pilot, lambda: app.state is not None, "the table")
                await page.wait_for_selector("body[data-phase=playing] [data-testid=table]:visible")
                for played in range(1, to_double + 1):
                    if app.state is not None and app.state["observation"]["turn"] == 1:
                        await pilot.press("a")
                    else:
                        await page.keyboard.press("a")
                    await until(pilot, lambda played=played: cards_played(app) == played,  # type: ignore[misc]
                                f"card {played}")
                    await page.wait_for_selector(f"[data-testid=table][data-cards-played='{played}']")
                    shown = await page.get_attribute("[data-testid=pile]", "data-cards")
                    assert app.state is not None and shown == " ".join(app.state["observation"]["pile"])
                await page.keyboard.press("s")  # the browser slaps the double
                await until(pilot, lambda: any(e["seat"] == 0 for e in heard.events("slap_won")),
                            "the browser's slap")
                await pilot.pause(0.1)
                assert "Bea slaps a double" in str(app.notice)
                await page.wait_for_selector("[data-testid=seat-1]:has-text('Tess')")
        finally:
            await browser.close()


# ---------------------------------------------------------------------------------- a real terminal


class Tmux:
    """One program in a detached tmux session of its own server: its screen, keys, the end."""

    def __init__(self, name: str, size: tuple[int, int] = (80, 24)) -> None:
        self.base = ["tmux", "-L", f"ratscrew-{name}-{os.getpid()}"]
        self.size = size

    def start(self, command: str) -> None:
        subprocess.run([*self.base, "new-session", "-d", "-s", "t", "-x", str(self.size[0]),
                        "-y", str(self.size[1]), command], check=True)

    def screen(self) -> str:
        return subprocess.run([*self.base, "capture-pane", "-p", "-t", "t"], capture_output=True,
                              text=True, check=False).stdout

    def keys(self, *keys: str) -> None:
        subprocess.run([*self.base, "send-keys", "-t", "t", *keys], check=True)

    def wait_for(self, condition: Callable[[str], bool], what: str, seconds: float = 30.0) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if condition(shown := self.screen()):
                return shown
            time.sleep(0.2)
        pytest.fail(f"timed out waiting for {what}; the screen shows:\n{self.screen()}")

    def kill(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, check=False)


@pytest.mark.skipif(shutil.which("tmux") is None,
                    reason="tmux is not installed (CI installs it with apt-get; apt-get install tmux)")
def test_the_real_join_command_mid_game_waits_for_the_next_game_with_the_log(
        server: ServerProcess, tmp_path: Path) -> None:
    code, ann = a_game_under_way(server, cards=4)
    said = [line for m in ann.messages if m["type"] == "state" for line in m["lines"]]
    state = tmp_path / "terminal-state"
    (state / "ratscrew").mkdir(parents=True)
    (state / "ratscrew" / "online.json").write_text(json.dumps({"player_keys": {server.url: PLAYER_KEY}}))
    tmux = Tmux("late", size=(100, 30))
    tmux.start(" ".join(["env", f"XDG_STATE_HOME={state}", *ratscrew_command(), "join", code,
                         "--server", server.url, "--name", "Tess", "; sleep 5"]))
    try:
        shown = tmux.wait_for(lambda s: "waiting for the next game" in s and said[-1][:40] in s
                              and "dealt into the next game" in s, "the table of a latecomer")
        assert "F10" not in shown
        assert said[0][:40] in shown  # the log from before the join
        tmux.keys("C-q")
        tmux.wait_for(lambda s: "ratscrew ·" not in s, "the program to exit")
    finally:
        tmux.kill()


@pytest.mark.skipif(shutil.which("tmux") is None,
                    reason="tmux is not installed (CI installs it with apt-get; apt-get install tmux)")
def test_the_real_join_command_sits_down_starts_plays_and_quits(server: ServerProcess,
                                                               tmp_path: Path) -> None:
    code = server.new_room(seats=2, bots=["casual"], seed=3, pace="slow", turn_timeout_ms=60_000)
    state = tmp_path / "terminal-state"
    (state / "ratscrew").mkdir(parents=True)
    (state / "ratscrew" / "online.json").write_text(json.dumps({"player_keys": {server.url: PLAYER_KEY}}))
    exit_file = tmp_path / "exit-status"
    command = " ".join(["env", f"XDG_STATE_HOME={state}", *ratscrew_command(), "join", code,
                        "--server", server.url, "--name", "Tess"])
    tmux = ["tmux", "-L", f"ratscrew-join-{os.getpid()}"]

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-t", "smoke"], capture_output=True,
                              text=True, check=False).stdout

    def wait_for(condition: Callable[[], bool], what: str, seconds: float = 30.0) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if condition():
                return
            time.sleep(0.2)
        pytest.fail(f"timed out waiting for {what}; the screen shows:\n{screen()}")

    subprocess.run([*tmux, "new-session", "-d", "-s", "smoke", "-x", "80", "-y", "24",
                    f"{command}; echo $? > {exit_file}; sleep 5"], check=True)
    try:
        wait_for(lambda: f"Room {code}" in screen() and "Tess (you)" in screen() and "s start" in screen(),
                 "the lobby")
        subprocess.run([*tmux, "send-keys", "-t", "smoke", "s"], check=True)
        wait_for(lambda: "Casual bot" in screen() and "a play · s slap" in screen(), "the table")
        deadline = time.monotonic() + 30
        while "Tess plays" not in screen() and time.monotonic() < deadline:
            subprocess.run([*tmux, "send-keys", "-t", "smoke", "a"], check=True)
            time.sleep(0.7)
        assert "Tess plays" in screen(), screen()
        subprocess.run([*tmux, "send-keys", "-t", "smoke", "C-q"], check=True)
        wait_for(exit_file.exists, "the program to exit")
        assert exit_file.read_text().strip() == "0"
        assert (state / "ratscrew" / "online.json").exists()
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, check=False)


# ---------------------------------------------------------------------------------- --quick


async def test_quick_play_seeks_shows_the_wait_and_sits_down_at_the_matched_table(
        server: ServerProcess, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ratscrew.commands.join import quick_table

    saved = SavedState(tmp_path / "online.json")
    stranger = Player(server.url.replace("http://", "ws://") + "/ws/seek")
    stranger.send({"type": "seek", "rules": "pagat", "players": 2, "name": "Stranger",
                   "player_key": "stranger-key-Lq8Vt2Rx6Mz0Pk4Wn7Hd"})
    assert stranger.wait_for("seeking")["waiting"] == 1
    address = await asyncio.to_thread(quick_table, saved, server.url, "pagat", 2, "Tess")
    matched = stranger.wait_for("matched")
    stranger.close()
    assert address == RoomAddress(server.url, matched["room"])
    said = capsys.readouterr().err
    assert "Looking for an opponent (pagat)" in said and "2 in the pool" in said
    assert f"Matched with Stranger: room {address.code}" in said
    app = OnlineApp(address, "Tess", saved=saved)
    async with app.run_test(size=(80, 24)) as pilot:
        # the welcome gives the seat and the room message follows it: wait for both
        await until(pilot, lambda: app.seat is not None and app.room is not None,
                    "a seat at the matched table and its room")
        assert room(app)["rules"]["name"] == "pagat"


def test_quick_play_refuses_what_has_no_pool_and_names_an_unreachable_server(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as bad_rules:
        main(["join", "--quick", "--rules", "bmn", "--server", "http://127.0.0.1:9"])
    assert bad_rules.value.code == 2 and "invalid choice: 'bmn'" in capsys.readouterr().err
    message = refused(["join", "--quick", "--server", "http://127.0.0.1:9"], capsys)
    assert message.startswith("cannot reach http://127.0.0.1:9 to seek a table")
    message = refused(["join", "K7QPX2", "--quick", "--server", "http://127.0.0.1:9"], capsys)
    assert "--quick finds the room itself" in message
