"""The command line as a user meets it: output, JSON, and one-line errors for bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ratscrew.cli import main
from ratscrew.ruleset import Ruleset


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_rules_list_names_every_preset(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rules", "list")
    assert status == 0
    assert [line.split()[0] for line in out.splitlines()] == list(Ruleset.presets())


def test_rules_show_reads_like_table_rules(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rules", "show", "paranoid")
    assert status == 0
    assert "penalty pile" in out and "alone for 3 seconds" in out
    status, out, _ = run(capsys, "rules", "show", "ratscrew")
    assert "around the corner" in out and "three sixes" in out


def test_rules_show_toml_round_trips(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, out, _ = run(capsys, "rules", "show", "northwest", "--toml")
    path = tmp_path / "mine.toml"
    path.write_text(out)
    status, shown, _ = run(capsys, "rules", "show", str(path))
    assert status == 0 and "jokers" in shown


def test_judge_names_the_pattern(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "judge", "--rules", "classic", "7H", "3C", "7S")
    assert (status, out.strip()) == (0, "slappable: sandwich (the top card matches the rank of the "
                                        "third card from the top (7 3 7))")
    _, out, _ = run(capsys, "judge", "--rules", "pagat", "7H", "3C", "7S")
    assert out.startswith("not slappable: none of these patterns shows: double")


def test_judge_json(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "judge", "--rules", "ratscrew", "--json", "QH", "KC", "AD", "2S")
    verdict = json.loads(out)
    assert verdict["slappable"] is True and verdict["pattern"] == "run"


def test_bad_card_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "judge", "7H", "3X")
    assert status == 2 and out == ""
    assert err.startswith("ratscrew: error: bad card '3X'") and "Traceback" not in err


def test_unknown_rules_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "judge", "--rules", "vegas", "7H")
    assert status == 2 and "unknown rules 'vegas'" in err


@pytest.mark.parametrize(
    ("hand1", "hand2", "expected"),
    [
        ("------------KAQ----J------", "-JQQK---K----JK--QA-A-JA--", "4791 cards, 670 tricks: hand 1 wins"),
        ("---AJ--Q---------QAKQJJ-QK", "-----A----KJ-K--------A---", "8344 cards, 1164 tricks: hand 2 wins"),
        ("---JQ---K-A----A-J-K---QK-", "-J-----------AJQA----K---Q", "5790 cards, 805 tricks: hand 1 wins"),
        ("---K---Q-KQAJ-----AAJ--J--", "----------Q----KQ-J-----KA",
         "cycle: the deal never ends (first repeated state after 474 cards, 66 tricks)"),
    ],
)
def test_bmn_record_deals(capsys: pytest.CaptureFixture[str], hand1: str, hand2: str, expected: str) -> None:
    status, out, _ = run(capsys, "bmn", hand1, hand2)
    assert (status, out.strip()) == (0, expected)


def test_bmn_json_and_bad_deal(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "bmn", "--json", "---AJ--Q---------QAKQJJ-QK", "-----A----KJ-K--------A---")
    assert json.loads(out) == {"cards": 8344, "tricks": 1164, "winner": 2, "cycle": False}
    status, _, err = run(capsys, "bmn", "---AJ--Q--", "-----A----KJ-K--------A---")
    assert status == 2 and "hand 1 has 10 cards" in err
    status, _, err = run(capsys, "bmn", "AAAAA" + "-" * 21, "-" * 26)
    assert status == 2 and "too many 'A' cards" in err


def test_bmn_names_a_typo_in_a_deal_that_starts_with_a_dash(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "bmn", "---AJ--Q---------QAKQJJ-QX", "-----A----KJ-K--------A---")
    assert status == 2
    assert "hand 1, card 26: 'X' is not" in err and "required" not in err


def test_watch_narrates_a_whole_game_reproducibly(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "watch", "--rules", "northwest", "--players", "3", "--seed", "5")
    assert status == 0
    _, again, _ = run(capsys, "watch", "--rules", "northwest", "--players", "3", "--seed", "5")
    assert out == again
    assert "plays" in out and "takes the pile" in out
    assert out.rstrip().splitlines()[-2].endswith(("wins", "nobody wins", "forever: nobody wins",
                                                   "everyone loses"))


def test_watch_refuses_a_bad_player_count(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "watch", "--rules", "pagat", "--players", "7")
    assert status == 2 and "--players must be between 2 and 5" in err


def test_console_script_runs_as_a_module() -> None:
    result = subprocess.run([sys.executable, "-m", "ratscrew.cli", "rules", "list"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0 and "paranoid" in result.stdout


def test_a_rules_file_with_a_setting_out_of_bounds_is_one_clear_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text("grace_ms = 1000000000000000000000000000000\n")
    status, _, err = run(capsys, "rules", "show", str(path))
    assert status != 0 and "Traceback" not in err
    assert err.strip().endswith("grace_ms: must be from 0 to 3600000, got a number of 31 digits"), err


def test_a_command_imports_only_its_own_module_so_the_server_starts_without_the_terminal_game() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys; from ratscrew.cli import build_parser; "
         "build_parser('serve').parse_args(['serve', '--port', '0']); "
         "print(sorted(m for m in ('textual', 'ratscrew.tui.replay', 'rich.progress', 'ratscrew.server.app', "
         "'ratscrew.commands.serve', 'ratscrew.commands.play') if m in sys.modules))"],
        capture_output=True, text=True, check=True).stdout.split("\n")[0]
    assert loaded == "['ratscrew.commands.serve']", loaded


def test_a_misspelt_command_and_help_still_name_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_status:
        main(["sevre"])
    err = capsys.readouterr().err
    assert exit_status.value.code == 2 and "invalid choice: 'sevre'" in err
    assert all(command in err for command in ("serve", "play", "join", "sim-sweep", "bench-train")), err
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(command in out for command in ("serve", "replay", "bmn-search", "lab")), out


@pytest.mark.parametrize("words", [["bench", "train", "--help"], ["sim", "sweep", "--help"],
                                   ["bmn", "search", "--help"], ["sim-sweep", "--help"]])
def test_two_word_commands_find_their_module(capsys: pytest.CaptureFixture[str], words: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_status:
        main(words)
    assert exit_status.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: ratscrew {'-'.join(words[:-1])}")
