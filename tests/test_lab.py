"""The house-rule lab as a group meets it: `ratscrew lab`'s JSON, and its figures checked against
the reference engine on a sample."""

import json
from pathlib import Path
from typing import Any

import pytest

from ratscrew.bots.profile import LEVELS
from ratscrew.cli import main
from ratscrew.ruleset import Ruleset
from ratscrew.sim.lab import REPORT_KEYS, LabRun, rules_figures, run_lab, starting_preset

ADD_TO_TEN = 'name = "classic + add to ten"\nslaps = ["double", "sandwich", "add_to_ten"]\n'


def lab_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    status = main(["lab", *args, "--json", "--no-progress"])
    out, _ = capsys.readouterr()
    assert status == 0
    report: dict[str, Any] = json.loads(out)
    return report


def within(figure: dict[str, float]) -> bool:
    return figure["low"] <= figure["value"] <= figure["high"]


def check_figures(figures: dict[str, Any], players: int) -> None:
    seats = [row["seat"] for row in figures["win_share"]]
    assert seats[:players] == list(range(players))
    assert sum(row["share"] for row in figures["win_share"]) == pytest.approx(1, abs=1e-3)
    assert all(row["low"] <= row["share"] <= row["high"] for row in figures["win_share"])
    assert set(figures["length"]) == {"mean_cards", "median_minutes", "p90_minutes", "mean_minutes"}
    assert all(within(figure) for figure in figures["length"].values())
    assert figures["length"]["p90_minutes"]["value"] > figures["length"]["median_minutes"]["value"]
    assert within(figures["slaps_per_game"]) and within(figures["misslaps_per_game"])
    memory = figures["memory_vs_speed"]
    assert memory["difference"]["value"] == pytest.approx(
        memory["memory_share"]["value"] - memory["fast_share"]["value"], abs=1e-3)
    assert within(memory["difference"])


def test_lab_json_has_the_contract_keys_and_shares_that_add_up(
        capsys: pytest.CaptureFixture[str]) -> None:
    report = lab_json(capsys, "classic", "--players", "3", "--games", "300")
    assert list(report) == list(REPORT_KEYS)
    check_figures(report, 3)
    base = report["compared_to"]
    assert base["preset"] == "classic" and base["changed"] == {} and base["significant"] == []
    assert base["win_share"] == report["win_share"]


def test_a_house_rule_is_compared_with_its_preset(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    path = tmp_path / "ours.toml"
    path.write_text(ADD_TO_TEN)
    plot = tmp_path / "lab.png"
    report = lab_json(capsys, str(path), "--players", "2", "--games", "1500", "--plot", str(plot))
    base = report["compared_to"]
    assert base["preset"] == "classic"
    assert base["changed"] == {"slaps": ["double", "sandwich", "add_to_ten"]}
    check_figures(base, 2)
    # Another pattern means more slaps per game: the lab must say so.
    figures = {d["figure"]: d for d in base["significant"]}
    assert figures["slaps_per_game"]["difference"] > 0
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_the_starting_preset_is_the_nearest_one() -> None:
    bmn_like = Ruleset.from_dict({**Ruleset.preset("bmn").to_dict(), "name": "ours",
                                  "misslap_cards": 2})
    assert starting_preset(bmn_like) == "bmn"


@pytest.mark.parametrize("args, message", [
    (["nosuch"], "unknown rules 'nosuch'"),
    (["classic", "--players", "9"], "--players must be between 2 and"),
    (["classic", "--bots", "casual", "expert", "--players", "3"], "one bot for every seat"),
    (["classic", "--games", "0"], "--games must be at least 1"),
])
def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], args: list[str],
                               message: str) -> None:
    assert main(["lab", *args, "--no-progress"]) == 2
    _, err = capsys.readouterr()
    assert message in err and "Traceback" not in err


def test_the_kernel_figures_are_the_reference_engines() -> None:
    """On the same seeds the kernel's figures are the reference engine's, to the last digit; on
    an independent sample of reference games, each of the reference's intervals covers the
    kernel's figure from ten times as many games."""
    rules, bots = Ruleset.preset("classic"), (LEVELS["casual"],) * 2
    kernel_run = LabRun(rules, bots, games=60, seed=3, engine="kernel", workers=1)
    reference_run = LabRun(rules, bots, games=60, seed=3, engine="reference", workers=1)
    assert rules_figures(kernel_run, rules) == rules_figures(reference_run, rules)

    kernel = run_lab(LabRun(rules, bots, games=1500, seed=1, engine="kernel", workers=1))
    sample = run_lab(LabRun(rules, bots, games=150, seed=2, engine="reference", workers=1))
    for kernel_row, sample_row in zip(kernel["win_share"], sample["win_share"], strict=False):
        assert sample_row["low"] <= kernel_row["share"] <= sample_row["high"]
    for key in ("mean_cards", "median_minutes", "p90_minutes", "mean_minutes"):
        assert sample["length"][key]["low"] <= kernel["length"][key]["value"] \
            <= sample["length"][key]["high"], key
    for key in ("slaps_per_game", "misslaps_per_game"):
        assert sample[key]["low"] <= kernel[key]["value"] <= sample[key]["high"], key


def test_a_plot_into_a_missing_folder_is_refused_before_any_game(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def no_games(*_: object) -> None:
        raise AssertionError("no game should be played for a plot that cannot be written")

    monkeypatch.setattr("ratscrew.commands.lab.run_lab", no_games)
    status = main(["lab", "classic", "--games", "20", "--no-progress", "--plot", "/no/such/dir/x.png"])
    _, err = capsys.readouterr()
    assert status == 2
    assert "cannot write the plot to '/no/such/dir/x.png': there is no folder '/no/such/dir'" in err


def test_a_plot_that_fails_to_write_still_prints_the_report(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    taken = tmp_path / "lab.png"
    taken.mkdir()  # a folder where the file should go: the folder check passes, the write fails
    status = main(["lab", "classic", "--players", "2", "--games", "20", "--json", "--no-progress",
                   "--plot", str(taken)])
    out, err = capsys.readouterr()
    assert status == 2 and "cannot write the plot to" in err
    assert len(json.loads(out)["win_share"]) == 2
