"""Simulation: seeding independent of workers and backends, statistics, the sim commands."""

from __future__ import annotations

import csv
import json
import sys
import types
from collections.abc import Sequence
from pathlib import Path

import pytest

from ratscrew.bots.profile import LEVELS, BotProfile
from ratscrew.bots.spec import parse_bot_spec
from ratscrew.cli import main
from ratscrew.ruleset import Ruleset
from ratscrew.sim import runner
from ratscrew.sim.intervals import describe, wilson_interval
from ratscrew.sim.reference import play_table_game, run_reference_game
from ratscrew.sim.runner import KernelUnavailableError, batches, simulate
from ratscrew.sim.stats import chi_square_sf, seat_bias, summarize
from ratscrew.sim.summary import GameSummary, game_seed

CLASSIC = Ruleset.preset("classic")
EXPERTS = (LEVELS["expert"], LEVELS["expert"])


# ------------------------------------------------------------------ seeding and workers


def test_the_same_seed_gives_the_same_games_whatever_the_number_of_workers() -> None:
    one, _ = simulate(CLASSIC, EXPERTS, games=12, seed=7, workers=1, engine="reference")
    two, _ = simulate(CLASSIC, EXPERTS, games=12, seed=7, workers=2, engine="reference")
    assert one == two
    assert [s.seed for s in one] == [game_seed(7, i) for i in range(12)]


def test_a_game_depends_only_on_its_index_not_on_how_many_games_run() -> None:
    short, _ = simulate(CLASSIC, EXPERTS, games=3, seed=2, workers=1)
    longer, _ = simulate(CLASSIC, EXPERTS, games=6, seed=2, workers=1)
    assert longer[:3] == short
    other, _ = simulate(CLASSIC, EXPERTS, games=3, seed=3, workers=1)
    assert other != short


@pytest.mark.parametrize("engine", ["reference", "kernel"])
def test_each_batch_reports_the_cards_it_played(engine: runner.EngineChoice) -> None:
    played: list[int] = []
    games: list[int] = []
    summaries, used = simulate(CLASSIC, EXPERTS, games=5, seed=3, workers=1, engine=engine,
                               progress=games.append, cards=played.append)
    assert used == engine
    assert len(played) == len(games) >= 1  # one report per batch, beside its progress
    assert sum(played) == sum(summary.cards_played for summary in summaries) > 0


def test_a_cards_report_that_raises_stops_the_run() -> None:
    def budget(played: int) -> None:
        raise RuntimeError(f"past the budget after {played} cards")

    with pytest.raises(RuntimeError, match="past the budget"):
        simulate(CLASSIC, EXPERTS, games=3, seed=3, workers=1, engine="reference", cards=budget)


def test_batches_cover_every_game_once() -> None:
    parts = batches(1001, workers=2)
    covered = [i for b in parts for i in range(b.start, b.stop)]
    assert covered == list(range(1001))


def test_a_reference_game_counts_slaps_and_misslaps_per_seat() -> None:
    summary = run_reference_game(CLASSIC, (LEVELS["beginner"], LEVELS["expert"]), seed=4)
    assert summary.end_reason in ("all_cards", "cycle")
    assert sum(summary.slaps_won) > 0 and summary.duration_ms > 0
    assert summary.misslaps[0] >= 0 and len(summary.misslaps) == 2


def test_a_cap_on_cards_leaves_the_game_unfinished() -> None:
    summary = run_reference_game(CLASSIC, EXPERTS, seed=4, max_cards=10)
    assert (summary.winner, summary.end_reason, summary.cards_played) == (None, "unfinished", 10)


# ------------------------------------------------------------------ engine choice


def fake_kernel(monkeypatch: pytest.MonkeyPatch, supports: bool) -> list[int]:
    """Install a stand-in kernel module that plays with the reference engine and records calls."""
    calls: list[int] = []

    def run_kernel_games(rules: Ruleset, profiles: Sequence[BotProfile],
                         seeds: Sequence[int], max_cards: int) -> list[GameSummary]:
        calls.extend(seeds)
        return [run_reference_game(rules, profiles, s, max_cards) for s in seeds]

    module = types.ModuleType("ratscrew.sim.kernel")
    module.kernel_supports = lambda rules, profiles: supports  # type: ignore[attr-defined]
    module.run_kernel_games = run_kernel_games  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ratscrew.sim.kernel", module)
    return calls


def test_auto_uses_the_kernel_when_it_says_it_can(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = fake_kernel(monkeypatch, supports=True)
    summaries, engine = simulate(CLASSIC, EXPERTS, games=3, seed=1, workers=1)
    assert engine == "kernel" and len(calls) == 3 and len(summaries) == 3
    capped, _ = simulate(CLASSIC, EXPERTS, games=3, seed=1, workers=1, max_cards=10)
    assert {summary.end_reason for summary in capped} == {"unfinished"}  # the cap reaches the kernel


def test_auto_falls_back_to_the_reference_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = fake_kernel(monkeypatch, supports=False)
    _, engine = simulate(CLASSIC, EXPERTS, games=2, seed=1, workers=1)
    assert engine == "reference" and calls == []
    with pytest.raises(KernelUnavailableError):
        simulate(CLASSIC, EXPERTS, games=2, seed=1, workers=1, engine="kernel")


def test_every_bot_level_and_every_preset_goes_to_the_kernel() -> None:
    pytest.importorskip("ratscrew.sim.kernel")
    spammer = parse_bot_spec("casual:spam=0.5,anticipation_ms=40")
    for preset in Ruleset.presets():
        rules = Ruleset.preset(preset)
        bots = (spammer, *LEVELS.values())[:rules.max_players]
        assert runner.choose_engine("auto", rules, bots) == "kernel"


def test_without_a_kernel_module_auto_means_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ratscrew.sim.kernel", None)  # import fails
    assert runner.choose_engine("auto", CLASSIC, EXPERTS) == "reference"


# ------------------------------------------------------------------ statistics


def test_wilson_interval_matches_known_values() -> None:
    assert wilson_interval(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    for trials in (10, 300, 1001):  # the ends are exact, so error bars never go negative
        assert wilson_interval(0, trials)[0] == 0.0 and wilson_interval(trials, trials)[1] == 1.0
    low, high = wilson_interval(100, 100)
    assert high == 1.0 and low == pytest.approx(0.9630, abs=1e-4)


def test_chi_square_tail_matches_tables() -> None:
    assert chi_square_sf(6.635, 1) == pytest.approx(0.01, abs=2e-4)
    assert chi_square_sf(11.345, 3) == pytest.approx(0.01, abs=2e-4)
    assert chi_square_sf(0.0, 2) == 1.0
    assert chi_square_sf(2.0, 2) == pytest.approx(0.36788, abs=1e-5)  # exp(-1)


def test_seat_bias_is_flagged_only_beyond_chance() -> None:
    fair = seat_bias([260, 240, 250, 250])
    assert fair is not None and not fair.flagged
    biased = seat_bias([330, 220, 230, 220])
    assert biased is not None and biased.flagged and biased.dof == 3
    assert seat_bias([2, 1]) is None  # too few games to say


def test_summarize_reports_win_rates_lengths_and_seat_bias() -> None:
    def game(winner: int | None, cards: int, reason: str = "all_cards") -> GameSummary:
        return GameSummary(seed=0, players=2, winner=winner, end_reason=reason, cards_played=cards,
                           tricks=cards // 5, duration_ms=cards * 600, slaps_won=(2, 1),
                           misslaps=(0, 1))

    summaries = [game(0, 100)] * 70 + [game(1, 300)] * 28 + [game(None, 500, "cycle")] * 2
    report = summarize(summaries, rules="classic", seed=1, engine="reference", bots=["x", "x"])
    assert [s.wins for s in report.seats] == [70, 28]
    assert report.seats[0].win_rate == 0.7 and report.seats[0].ci_low < 0.7 < report.seats[0].ci_high
    assert report.cycles == 2 and report.no_winner == 2
    assert report.cards["median"] == 100 and report.slaps_per_game == 3 and report.misslaps_per_game == 1
    assert report.seat_bias is not None and report.seat_bias.flagged
    mixed = summarize(summaries, rules="classic", seed=1, engine="reference", bots=["x", "y"])
    assert mixed.seat_bias is None


def test_describe_gives_mean_median_and_p95() -> None:
    values = list(range(1, 101))
    assert describe(values) == {"mean": 50.5, "median": 50.5, "p95": pytest.approx(95.05)}


# ------------------------------------------------------------------ bot specs


def test_bot_specs_name_a_level_and_changes() -> None:
    profile = parse_bot_spec("skilled:mu_ms=250,memory=26")
    assert (profile.mu_ms, profile.memory, profile.tau_ms) == (250.0, 26, LEVELS["skilled"].tau_ms)
    for bad, message in [("expert:speed=3", "unknown bot parameter"), ("expert:mu_ms=fast", "a number"),
                         ("expert:miss=2", "probability"), ("expert:memory", "name=value")]:
        with pytest.raises(ValueError, match=message):
            parse_bot_spec(bad)


# ------------------------------------------------------------------ commands


def test_sim_json_summary(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["sim", "--games", "6", "--bots", "expert", "beginner", "--workers", "1", "--json"])
    assert status == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 6 and report["players"] == 2
    assert sum(s["wins"] for s in report["seats"]) + report["no_winner"] == 6
    assert [s["bot"] for s in report["seats"]] == ["expert", "beginner"]
    assert report["cards"]["p95"] >= report["cards"]["median"]


def test_sim_text_and_csv_outputs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    games_file = tmp_path / "games.csv"
    assert main(["sim", "--games", "4", "--players", "3", "--bots", "casual", "--workers", "1",
                 "--csv", "--games-csv", str(games_file)]) == 0
    rows = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    assert [r["seat"] for r in rows] == ["0", "1", "2"]
    assert len(list(csv.DictReader(games_file.read_text().splitlines()))) == 4
    assert main(["sim", "--games", "20", "--players", "2", "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "95% CI" in text and "seat bias" in text and "p95" in text


@pytest.mark.parametrize("argv, message", [
    (["sim", "--bots", "expert", "casual", "--players", "3"], "one bot for every seat"),
    (["sim", "--bots", "wizard"], "unknown bot level"),
    (["sim", "--players", "9"], "--players must be between 2 and"),
    (["sim", "--games", "0"], "--games must be at least 1"),
    (["sim", "--rules", "nosuchrules"], "nosuchrules"),
])
def test_sim_reports_bad_input_in_one_line(argv: list[str], message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error


def test_sweep_writes_a_plot_and_its_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "plots" / "mu.png"
    assert main(["sim", "sweep", "--param", "mu_ms", "--values", "250,350", "--bots", "skilled",
                 "--games", "6", "--workers", "1", "--series-players", "2,3", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = list(csv.DictReader(out.with_suffix(".csv").read_text().splitlines()))
    assert [(r["players"], r["value"]) for r in rows] == [("2", "250"), ("2", "350"), ("3", "250"),
                                                          ("3", "350")]
    assert all(0 <= float(r["metric"]) <= 1 for r in rows)
    assert "mu.csv" in capsys.readouterr().out


def test_sweep_over_a_rule_setting_and_its_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "penalty.png"
    assert main(["sim", "sweep", "--rule", "misslap_penalty", "--values", "burn,lockout",
                 "--metric", "misslaps", "--games", "4", "--workers", "1", "--out", str(out)]) == 0
    assert out.exists()
    assert main(["sim", "sweep", "--rule", "misslap_penalty", "--values", "hug", "--games", "2",
                 "--out", str(out)]) == 2
    assert "misslap_penalty" in capsys.readouterr().err
    assert main(["sim", "sweep", "--rule", "colour", "--values", "1", "--out", str(out)]) == 2
    assert main(["sim", "sweep", "--param", "mu_ms", "--values", "x", "--out", str(out)]) == 2


# ------------------------------------------------------------------ Ray


def test_ray_backend_gives_the_same_results_as_local_processes() -> None:
    ray = pytest.importorskip("ray")
    from ratscrew.sim.ray_backend import run_batches_on_ray

    parts = batches(8, workers=2, per_batch=3)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        by_batch = dict(run_batches_on_ray(CLASSIC, EXPERTS, parts, 5, "reference", 20_000))
        on_ray = [s for b in sorted(by_batch, key=lambda b: b.start) for s in by_batch[b]]
        through_simulate, engine = simulate(CLASSIC, EXPERTS, games=8, seed=5, backend="ray",
                                            engine="reference")
    finally:
        ray.shutdown()
    local, _ = simulate(CLASSIC, EXPERTS, games=8, seed=5, workers=1, engine="reference")
    assert on_ray == local == through_simulate and engine == "reference"


@pytest.mark.parametrize("preset", Ruleset.presets())
def test_table_bots_play_exactly_the_kernels_specification(preset: str) -> None:
    """The kernel's pure-Python specification and the Table with BotAgents are one model: for
    every bot level, counting and blind slapping included, every game comes out identical."""
    rules = Ruleset.preset(preset)
    profiles = (LEVELS["referee"], LEVELS["beginner"], LEVELS["skilled"],
                LEVELS["expert"].with_changes(spam=0.2, anticipation_ms=50))
    for seed in range(6):
        assert play_table_game(rules, profiles, seed) == run_reference_game(rules, profiles, seed)


def test_a_run_on_the_kernel_says_while_the_kernel_loads() -> None:
    pytest.importorskip("ratscrew.sim.kernel")
    said: list[str] = []
    _, engine = simulate(CLASSIC, EXPERTS, games=2, seed=1, workers=1, status=said.append)
    assert engine == "kernel"
    assert said[0].startswith("loading the compiled kernel") and said[-1] == ""
    said.clear()
    simulate(CLASSIC, EXPERTS, games=2, seed=1, workers=1, engine="reference", status=said.append)
    assert said == []
