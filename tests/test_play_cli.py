"""``ratscrew play`` and ``ratscrew replay`` on the command line.

Bad input is refused with one clear line before any screen opens; good input reaches the app
with exactly the options given. The last test runs the real command in a terminal (tmux).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ratscrew.cli import main
from ratscrew.engine import Game
from ratscrew.ruleset import Ruleset
from ratscrew.tui.app import PlayApp
from ratscrew.tui.keys import SeatKeys
from ratscrew.tui.options import PlayOptions
from ratscrew.tui.replay import ReplayApp


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[PlayOptions]:
    """Replace the app's run loop: record the options a game would have started with."""
    runs: list[PlayOptions] = []

    def fake_run(self: PlayApp, *args: object, **kwargs: object) -> None:
        runs.append(self.options)

    monkeypatch.setattr(PlayApp, "run", fake_run)
    return runs


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the command, expect exit status 2, return the error line."""
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("ratscrew: error: ")
    assert "\n" not in err
    return err.removeprefix("ratscrew: error: ")


@pytest.mark.parametrize(("argv", "message"), [
    (["--rules", "fastest"], "unknown rules 'fastest'"),
    (["--keys", "p1=play:a,slap:a"], "key 'a' is mapped twice: Player 1 play and Player 1 slap"),
    (["--humans", "2", "--keys", "p2=slap:s"], "key 's' is mapped twice: Player 1 slap and Player 2 slap"),
    (["--keys", "p1=slap:f1"], "key 'F1' for Player 1 slap is kept for help"),
    (["--keys", "p1=slap:banana"], "unknown key 'banana'"),
    (["--keys", "p2=play:x"], "keys given for player 2, but 1 player(s) share the keyboard"),
    (["--keys", "play:x"], "cannot read 'play:x'"),
    (["--humans", "5"], "--humans must be between 1 and 4, not 5"),
    (["--bots", "6"], "--bots must be between 0 and 5, not 6"),
    (["--bots", "0"], "a game needs at least two players"),
    (["--humans", "4", "--bots", "5"], "9 players is more than the 8 the classic rules allow"),
    (["--pace", "0"], "--pace must be between 0.25 and 4.0, not 0.0"),
])
def test_bad_options_are_refused_before_the_game_starts(
        argv: list[str], message: str, started: list[PlayOptions],
        capsys: pytest.CaptureFixture[str]) -> None:
    assert message in refused(["play", *argv], capsys)
    assert started == []


def test_a_broken_toml_ruleset_is_refused(tmp_path: Path, started: list[PlayOptions],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "mine.toml"
    broken.write_text('slaps = ["double", "sandwhich"]\n')
    assert "slaps: unknown pattern 'sandwhich'" in refused(["play", "--rules", str(broken)], capsys)
    broken.write_text("slaps = [\n")
    assert "not valid TOML" in refused(["play", "--rules", str(broken)], capsys)
    assert started == []


def test_an_unknown_bot_level_is_refused(started: list[PlayOptions],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["play", "--level", "godlike"])
    assert stop.value.code == 2
    assert "invalid choice: 'godlike'" in capsys.readouterr().err
    assert started == []


def test_good_options_reach_the_game(tmp_path: Path, started: list[PlayOptions]) -> None:
    ruleset = tmp_path / "house.toml"
    ruleset.write_text(Ruleset.preset("pagat").to_toml())
    status = main(["play", "--rules", str(ruleset), "--humans", "2", "--bots", "1", "--level", "expert",
                   "--keys", "p1=play:space,slap:enter;p2=slap:semicolon", "--seed", "9", "--pace", "2",
                   "--colour-blind", "--record-dir", str(tmp_path / "games")])
    assert status == 0
    [options] = started
    assert options.rules == Ruleset.preset("pagat")
    assert (options.humans, options.bots, options.level, options.seed) == (2, 1, "expert", 9)
    assert options.keys == [SeatKeys("space", "enter"), SeatKeys("l", "semicolon")]
    assert options.pace == 2.0 and options.colour_blind
    assert options.record_dir == tmp_path / "games"


def test_one_person_gets_three_bots_and_friends_get_none_by_default(started: list[PlayOptions]) -> None:
    assert main(["play"]) == 0
    assert main(["play", "--humans", "3"]) == 0
    assert [(o.humans, o.bots) for o in started] == [(1, 3), (3, 0)]


# ---------------------------------------------------------------------------------- replay


def saved_game(tmp_path: Path) -> Path:
    game = Game(Ruleset.preset("classic"), hands=["7H 2C", "7S 3D"], leader=0)
    game.play(0, at=0)
    game.play(1, at=500)
    game.slap(0, at=800)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.to_record()))
    return path


def test_replay_text_tells_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(saved_game(tmp_path)), "--text"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "   1 00:00.0 Player 1 plays 7♥",
        "   2 00:00.5 Player 2 plays 7♠",
        "   3 00:00.8 ✔ Player 1 slaps a double (7♥ 7♠)",
        "   3 00:00.8 Player 1 takes the pile (2 cards)",
    ]


def test_replay_opens_the_viewer_on_a_good_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[int] = []
    monkeypatch.setattr(ReplayApp, "run", lambda self: opened.append(len(self.steps)))
    assert main(["replay", str(saved_game(tmp_path))]) == 0
    assert opened == [3]


@pytest.mark.parametrize(("content", "message"), [
    ("{", "not valid JSON"),
    ("[1, 2]", "not a ratscrew game record"),
    ('{"format": "chess"}', "not a ratscrew game record"),
])
def test_replay_refuses_a_file_that_is_not_a_record(
        content: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert message in refused(["replay", str(path)], capsys)


def test_replay_refuses_a_record_whose_actions_do_not_replay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = saved_game(tmp_path)
    record = json.loads(path.read_text())
    record["actions"][1] = ["play", 0, 500]  # seat 0 plays twice in a row
    path.write_text(json.dumps(record))
    assert "action 1 (play by 0 at 500) failed" in refused(["replay", str(path)], capsys)


def test_replay_refuses_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "cannot read" in refused(["replay", str(tmp_path / "nowhere.json")], capsys)


# ---------------------------------------------------------------------------------- pty smoke


def ratscrew_command() -> list[str]:
    """The installed console script next to this Python, or the module if there is none."""
    script = Path(sys.executable).parent / "ratscrew"
    return [str(script)] if script.exists() else [sys.executable, "-m", "ratscrew.cli"]


@pytest.mark.skipif(shutil.which("tmux") is None,
                    reason="tmux is not installed (CI installs it with apt-get; apt-get install tmux)")
def test_the_real_command_starts_shows_the_table_takes_a_key_and_quits(tmp_path: Path) -> None:
    socket = f"ratscrew-test-{os.getpid()}"
    exit_file = tmp_path / "exit-status"
    command = " ".join([*ratscrew_command(), "play", "--seed", "3", "--bots", "1", "--pace", "0.25"])
    tmux = ["tmux", "-L", socket]

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
        wait_for(lambda: "Player 1" in screen() and "Bot 1" in screen() and "a play" in screen(),
                 "the table")
        assert "▶ to play" in screen()
        subprocess.run([*tmux, "send-keys", "-t", "smoke", "a"], check=True)
        wait_for(lambda: "Player 1 plays" in screen(), "the card played by the key press")
        subprocess.run([*tmux, "send-keys", "-t", "smoke", "C-q"], check=True)
        wait_for(exit_file.exists, "the program to exit")
        assert exit_file.read_text().strip() == "0"
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, check=False)
