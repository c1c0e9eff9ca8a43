"""The simulation figures are declared once (ratscrew/sim/figures.py) and every reader takes them
from there: the lab's report and its comparison, `ratscrew lab`'s table, the lab page's list."""

from __future__ import annotations

import dataclasses
import random
from typing import get_args

import pytest

from ratscrew.bots.profile import LEVELS
from ratscrew.commands.lab import print_report
from ratscrew.protocol.http import FigureUnit
from ratscrew.ruleset import Ruleset
from ratscrew.server.lab.routes import lab_settings
from ratscrew.sim import figures as registry
from ratscrew.sim import lab
from ratscrew.sim.figures import FIGURES, MEASURES, Figure, Unit, figure_at, figure_named, mean_of
from ratscrew.sim.lab import REPORT_KEYS, LabRun, significant_differences
from ratscrew.sim.summary import GameSummary


def games(count: int, seed: int, cards: int) -> list[GameSummary]:
    """Games of two seats with lengths around ``cards``."""
    rng = random.Random(seed)
    return [GameSummary(seed=i, players=2, winner=rng.choice([0, 1, None]), end_reason="all_cards",
                        cards_played=cards + rng.randrange(50), tricks=rng.randrange(40),
                        duration_ms=rng.randrange(60_000, 600_000),
                        slaps_won=(rng.randrange(9), rng.randrange(9)),
                        misslaps=(rng.randrange(3), rng.randrange(3)))
            for i in range(count)]


def test_the_report_holds_every_figure_under_its_key() -> None:
    report = lab.figures(games(200, 1, 300), players=2)
    report["memory_vs_speed"] = lab.memory_vs_speed(games(200, 2, 300))
    lab.lineup_figures(games(200, 2, 300), "memory", report)
    for figure in FIGURES:
        estimate = figure_at(report, figure)
        assert estimate["low"] <= estimate["value"] <= estimate["high"]
    assert REPORT_KEYS == ("win_share", "length", "slaps_per_game", "misslaps_per_game",
                           "memory_vs_speed", "compared_to")


def test_a_figure_is_computed_from_its_measure() -> None:
    played = games(100, 3, 500)
    assert figure_named("length.mean_cards").compute(played)["value"] == pytest.approx(
        sum(g.cards_played for g in played) / 100, abs=1e-4)
    assert MEASURES["slaps"].of(played[0]) == sum(played[0].slaps_won)
    with pytest.raises(KeyError, match=r"length\.mean_cards"):
        figure_named("length.no_such_figure")


def test_every_figure_is_compared_with_the_preset() -> None:
    ours = lab.figures(games(400, 4, 900), players=2)
    theirs = lab.figures(games(400, 5, 300), players=2)
    for report in (ours, theirs):
        report["memory_vs_speed"] = {}
        lab.lineup_figures(games(400, 6, 300), "memory", report)
    names = [d["figure"] for d in significant_differences(ours, theirs)]
    assert "length.mean_cards" in names  # 900 cards against 300: beyond chance
    assert "memory_vs_speed.difference" not in names  # the same games on both sides


def test_the_terminal_and_the_page_list_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    report = lab.figures(games(100, 7, 300), players=2)
    report["memory_vs_speed"] = lab.memory_vs_speed(games(100, 8, 300))
    lab.lineup_figures(games(100, 8, 300), "memory", report)
    report["compared_to"] = {**report, "preset": "classic", "changed": {}, "significant": []}
    print_report(report, LabRun(Ruleset.preset("classic"), (LEVELS["casual"],) * 2, 100), 1.0)
    shown = capsys.readouterr().out
    assert all(figure.short in shown for figure in FIGURES)
    assert lab_settings()["figures"] == [
        {"name": f.key, "label": f.label, "digits": f.digits, "unit": f.unit} for f in FIGURES]
    assert get_args(FigureUnit) == get_args(Unit)  # the page's type of a unit is the registry's


def test_a_figure_the_kernel_cannot_give_sends_the_lab_to_the_reference_engine(
        monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def simulate(*args: object, engine: str, **kwargs: object) -> tuple[list[GameSummary], str]:
        asked.append(engine)
        return games(20, 9, 300), engine

    monkeypatch.setattr(lab, "simulate", simulate)
    run = LabRun(Ruleset.preset("classic"), (LEVELS["casual"],) * 2, 20)
    lab.length_only(run)
    events_only = Figure("challenges_per_game", "Challenges per game", "challenges per game",
                         mean_of("tricks"), 1, "count", kernel=False)
    monkeypatch.setattr(registry, "FIGURES", (*FIGURES, events_only))
    lab.length_only(run)
    lab.length_only(dataclasses.replace(run, engine="kernel"))
    assert asked == ["auto", "reference", "kernel"]


def test_every_figure_has_its_place_in_the_reports_protocol_type() -> None:
    # The report is typed end to end (ratscrew/protocol/http.py, and the page's protocol.d.ts
    # generated from it): a figure added here needs its key there too.
    from typing import get_type_hints

    from ratscrew.protocol.http import Figure as FigureType
    from ratscrew.protocol.http import LabFigures

    for figure in FIGURES:
        hint: object = LabFigures
        for key in figure.path:
            hints = get_type_hints(hint)
            assert key in hints, f"{figure.key}: add {key!r} to ratscrew/protocol/http.py"
            hint = hints[key]
        assert hint is FigureType, figure.key
