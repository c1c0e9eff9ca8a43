"""Issue 29 in a real browser (Chromium through Playwright, against a real ``ratscrew serve``):
a seeded room says so on its page, an unseeded one does not, and a look-alike name is refused
with the server's words beside the name box."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browsing import CHROMIUM
from serving import ServerProcess

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists(),
                                reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")
sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("browser-hostile") / "ratscrew.db") as running:
        yield running


def open_room(browser: Any, server: ServerProcess, code: str, name: str) -> Any:
    page = browser.new_context(reduced_motion="reduce").new_page()
    page.goto(f"{server.url}/r/{code}")
    page.fill("[data-testid=name]", name)
    page.click("[data-testid=join]")
    page.wait_for_selector("[data-testid=join-panel]", state="hidden")
    page.wait_for_selector("[data-testid=lobby]:visible")
    return page


def test_a_seeded_room_says_on_its_page_that_its_games_are_not_rated(
        browser: Any, server: ServerProcess) -> None:
    seeded = open_room(browser, server, server.new_room(seats=2, seed=7), "Ann")
    note = seeded.locator("[data-testid=seeded-note]")
    assert note.is_visible() and "not rated" in note.inner_text()
    plain = open_room(browser, server, server.new_room(seats=2), "Bea")
    assert plain.locator("[data-testid=seeded-note]").is_hidden()
