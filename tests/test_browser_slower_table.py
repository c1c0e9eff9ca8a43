"""A slower table (issue 51), in a real Chromium against a real ``ratscrew serve``: the home
page's *Windows to slap and claim* makes a room whose rules line says the windows are longer and
the game unrated; the offline table's *A slower table* opens ``/play`` with slow bots and longer
windows, and the worker plays those rules (its how-to-play lists the longer grace)."""

from __future__ import annotations

from typing import Any

from serving import ServerProcess
from test_browser import join, pages, server  # noqa: F401  (fixtures)
from test_browser_friends import axe_clean
from test_browser_offline import open_table

from ratscrew.server.ladder.rated import CUSTOM_RULES


def test_a_room_made_with_longer_windows_says_they_are_longer_and_unrated(
        server: ServerProcess, pages: Any) -> None:  # noqa: F811
    page = pages.open(server.url + "/")
    page.wait_for_selector("[data-testid=rules] option[value=classic]", state="attached")
    page.fill("[data-testid=seats]", "2")
    page.select_option("[data-testid=seat-choice-1]", "casual")
    page.select_option("[data-testid=window-factor]", "3")
    page.click("[data-testid=create]")
    page.wait_for_url("**/r/*")
    join(page, "Ann")
    page.wait_for_selector("[data-testid=lobby]:visible")
    line = page.inner_text("#rules-line")
    assert "Longer windows (×3): a house rule for a slower table." in line
    assert CUSTOM_RULES in line


def test_the_slower_offline_table_plays_slow_bots_with_longer_windows(
        server: ServerProcess, pages: Any) -> None:  # noqa: F811
    page = pages.open(server.url + "/", bypass_csp=True)  # axe-core is added as a script
    page.click("[data-testid=slower-table] >> xpath=.. >> summary")
    axe_clean(page, "the home page with the slower table's options open")
    page.click("[data-testid=slower-play]")
    page.wait_for_url("**/play?pace=slow&window_factor=2")
    open_table(page)
    page.click("[data-testid=help-button]")
    rules = page.inner_text("[data-testid=help-rules]")
    assert "the challenger takes the pile after 2 seconds" in rules  # classic's 1 s, twice
    assert "less than 1000 ms after someone took the pile" in rules  # classic's 500 ms, twice
