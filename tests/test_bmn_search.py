"""`ratscrew bmn search`: the longest deals it reports replay on the real engine, the report does
not depend on the number of workers, and bad input is refused clearly."""

import json
from typing import Any

import pytest

from ratscrew.bmn import play_bmn
from ratscrew.cli import main
from ratscrew.commands.bmn_search import print_report
from ratscrew.sim.bmn_kernel import play_deal, play_random_deals
from ratscrew.sim.bmn_search import FoundDeal, SearchError, SearchReport, merge, search, search_chunk

CASELLA = ("---K---Q-KQAJ-----AAJ--J--", "----------Q----KQ-J-----KA")


def test_the_longest_deals_replay_on_the_engine_with_the_same_counts() -> None:
    report = search(deals=5000, seed=17, workers=1, top=5)
    assert len(report.longest) == 5
    for deal in report.longest:
        result = play_bmn(deal.hand1, deal.hand2)
        assert (result.cards, result.tricks, result.winner) == (deal.cards, deal.tricks, deal.winner)


def test_the_longest_are_really_the_longest_of_the_deals_played() -> None:
    report = search(deals=5000, seed=17, workers=1, top=3)
    rows = play_random_deals(17, 0, 5000)
    assert [d.cards for d in report.longest] == sorted(rows[:, 0].tolist(), reverse=True)[:3]
    assert report.mean_cards == pytest.approx(rows[:, 0].mean())
    assert report.hand1_wins + report.hand2_wins + len(report.cycles) == 5000


def test_the_same_seed_gives_the_same_report_whatever_the_workers_and_chunks() -> None:
    one = search(deals=60_000, seed=2024, workers=1, top=8, chunk=60_000)
    two = search(deals=60_000, seed=2024, workers=2, top=8, chunk=7_000)
    assert one.longest == two.longest
    assert one.cycles == two.cycles
    assert (one.mean_cards, one.mean_tricks, one.hand1_wins) == (two.mean_cards, two.mean_tricks,
                                                                 two.hand1_wins)
    other = search(deals=60_000, seed=2025, workers=1, top=8)
    assert other.longest != one.longest


def test_equal_lengths_are_ordered_by_deal_number() -> None:
    chunk = search_chunk(seed=4, start=0, count=3000, top=3000)
    keys = [(-d.cards, d.index) for d in chunk.longest]
    assert keys == sorted(keys)
    assert merge([chunk], top=2).longest == chunk.longest[:2]


def test_cycles_are_reported_with_their_loop(capsys: pytest.CaptureFixture[str]) -> None:
    result = play_deal(*CASELLA)
    cycle = FoundDeal(index=7, hand1=CASELLA[0], hand2=CASELLA[1], cards=result.cards,
                      tricks=result.tricks, winner=None, cycle=True,
                      cycle_tricks=result.cycle_tricks, cycle_cards=result.cycle_cards)
    report = SearchReport(seed=1, deals=1, workers=1, seconds=0.1, mean_cards=474.0,
                          mean_tricks=66.0, hand1_wins=0, hand2_wins=0, longest=[], cycles=[cycle])
    print_report(report)
    out = capsys.readouterr().out
    assert "a loop of 62 tricks / 440 cards" in out
    assert "after 66 tricks / 474 cards" in out
    assert f"ratscrew bmn {CASELLA[0]} {CASELLA[1]}" in out
    assert report.to_dict()["cycles"][0]["cycle_cards"] == 440


@pytest.mark.parametrize("settings, message", [
    ({"deals": 0, "seed": 1}, "--deals must be at least 1"),
    ({"deals": 10, "seed": 1, "workers": 0}, "--workers must be at least 1"),
    ({"deals": 10, "seed": 1, "top": -1}, "--top must not be negative"),
])
def test_impossible_settings_are_refused(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(SearchError, match=message):
        search(**settings)


def test_cli_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bmn", "search", "--deals", "3000", "--seed", "9", "--workers", "1",
                 "--top", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["deals"] == 3000 and report["seed"] == 9
    assert len(report["longest"]) == 2
    best = report["longest"][0]
    assert play_bmn(best["hand1"], best["hand2"]).cards == best["cards"]


def test_cli_text_report_names_the_seed_and_the_replay_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bmn", "search", "--deals", "2000", "--seed", "5", "--workers", "1", "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "Searched 2,000 deals (seed 5)" in out
    assert "ratscrew bmn " in out
    assert "Cycles: none found." in out


def test_cli_without_a_seed_prints_the_one_it_chose(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bmn", "search", "--deals", "100", "--workers", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert isinstance(report["seed"], int)


@pytest.mark.parametrize("argv, message", [
    (["bmn", "search", "--deals", "0"], "--deals must be at least 1"),
    (["bmn", "search", "--deals", "5", "--workers", "-2"], "--workers must be at least 1"),
])
def test_cli_errors_are_one_line_with_status_2(argv: list[str], message: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("ratscrew: error: ") and message in err


def test_cli_refuses_a_deal_count_that_is_not_a_number(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["bmn", "search", "--deals", "many"])
    assert stop.value.code == 2
    assert "invalid int value: 'many'" in capsys.readouterr().err
