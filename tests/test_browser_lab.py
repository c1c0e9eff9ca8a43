"""The house-rule lab in a real browser (Playwright driving Debian's Chromium against a real
``ratscrew serve``), at 1280×800 and 390×844: edit a preset, simulate on the server and read
the report, open the share link in another browser and find the same rules, and play these rules
in a room whose lobby shows the expected length of a game. axe-core stays clean.

Screenshots go to ``screenshots/`` (ignored by git; ``RATSCREW_SCREENSHOTS`` names another
folder); docs/images/lab-*.png are copied from there.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import test_browser
from browsing import CHROMIUM
from serving import ServerProcess
from test_browser import Pages, join
from test_browser_friends import axe_clean

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path(os.environ.get("RATSCREW_SCREENSHOTS") or ROOT / "screenshots")
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists(),
                                reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")

server, pages = test_browser.server, test_browser.pages


def no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def open_lab(pages: Pages, url: str, size: str) -> Any:
    # bypass_csp only so axe-core can be injected; the page itself runs under the strict CSP in
    # every other test and in use
    page = pages.open(url, viewport=SIZES[size], bypass_csp=True)
    page.wait_for_selector("[data-testid=simulate]:enabled")
    return page


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_edit_simulate_share_and_play_these_rules(server: ServerProcess, pages: Pages,
                                                  size: str) -> None:
    page = open_lab(pages, server.url + "/lab", size)
    assert page.input_value("[data-testid=preset]") == "classic"
    assert "No rule changed" in page.inner_text("[data-testid=changed-count]")
    # every setting says what it means
    texts = page.locator("[data-setting] p.hint").all_inner_texts()
    assert len(texts) > 25 and all(text.strip() for text in texts)

    # edit: add to ten, a 2-card burn, two players, a quick run
    page.check("[data-testid=pattern-add_to_ten]")
    page.fill("[data-testid=set-misslap_cards]", "2")
    page.press("[data-testid=set-misslap_cards]", "Tab")
    page.select_option("[data-testid=players]", "2")
    page.select_option("[data-testid=games]", "500")
    SHOTS.mkdir(exist_ok=True)
    page.locator("[data-setting=misslap_penalty]").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"lab-settings-{size}.png"))
    changed = page.inner_text("[data-testid=changed-count]")
    assert "2 rules changed from classic" in changed and "Misslap cards" in changed
    assert page.locator("[data-setting=slaps].changed").count() == 1

    # the share link carries the rules: another browser opens on the same ones
    link = page.input_value("[data-testid=share]")
    assert "#preset=classic" in link and "add_to_ten" in link and "misslap_cards=2" in link
    friend = open_lab(pages, link, size)
    assert friend.is_checked("[data-testid=pattern-add_to_ten]")
    assert friend.input_value("[data-testid=set-misslap_cards]") == "2"
    assert friend.input_value("[data-testid=players]") == "2"
    assert friend.input_value("[data-testid=games]") == "500"
    assert friend.input_value("[data-testid=share]") == link
    assert "2 rules changed" in friend.inner_text("[data-testid=changed-count]")

    # simulate: progress, then the report against classic
    page.click("[data-testid=simulate]")
    page.wait_for_selector("[data-testid=report]:visible", timeout=180_000)
    assert "Done: 2,000 games played." in page.inner_text("[data-testid=progress-text]")
    assert "classic + house rules, 2 players" in page.inner_text("[data-testid=report-setup]")
    rows = page.locator("[data-testid=figures] tbody tr")
    assert rows.count() == 7
    assert rows.first.locator("td").count() == 2  # these rules and classic
    assert page.locator("[data-testid=shares] rect").count() >= 4  # two seats, two columns
    differences = page.inner_text("[data-testid=differences]")
    assert "Slaps won per game" in differences  # add to ten: more slaps, significant at 500
    assert page.evaluate("document.activeElement.id") == "report-title"
    no_sideways_scroll(page)
    if size == "phone":  # every control a finger can hit: at least 44 px tall, or its label is
        small = page.evaluate("""() => [...document.querySelectorAll('button, select, input, a')]
            .filter(e => e.offsetParent !== null)
            .map(e => [e.id || e.name || e.textContent.trim(),
                       Math.max(e.getBoundingClientRect().height,
                                (e.closest('label') || e).getBoundingClientRect().height)])
            .filter(([, height]) => height < 44)""")
        assert small == [], small
    axe_clean(page, f"the lab's report ({size})")
    page.locator("[data-testid=report]").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"lab-report-{size}.png"))
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / f"lab-{size}.png"))

    # play these rules: a room with them, whose lobby says how long a game lasts
    page.click("[data-testid=play]")
    page.wait_for_url("**/r/*")
    join(page, "Ann")
    page.wait_for_selector("[data-testid=lobby]:visible")
    assert "classic + house rules" in page.inner_text("#rules-line")
    code = page.url.rstrip("/").rsplit("/", 1)[-1]
    room = server.get(f"/api/rooms/{code}").json()
    assert "add_to_ten" in room["rules"]["toml"] and "misslap_cards = 2" in room["rules"]["toml"]
    assert room["settings"]["seats"] == 2 and not room["rules"]["preset"]
    page.wait_for_selector("[data-testid=expected-length]:has-text('lasts about')",
                           timeout=120_000)
    assert "1 game in 10 lasts over" in page.inner_text("[data-testid=expected-length]")
    axe_clean(page, f"the lobby with its expected length ({size})")
    page.screenshot(path=str(SHOTS / f"lab-lobby-{size}.png"))


def test_a_second_simulation_from_the_same_address_is_told_to_wait(server: ServerProcess,
                                                                   pages: Pages) -> None:
    first = open_lab(pages, server.url + "/lab#preset=classic&players=4&games=5000", "desktop")
    second = open_lab(pages, server.url + "/lab#preset=pagat&players=4&games=5000", "desktop")
    first.click("[data-testid=simulate]")
    first.wait_for_selector("#progress-panel:visible")
    pages.expected.append("429")  # the browser's own note on the refused request
    second.click("[data-testid=simulate]")
    second.wait_for_selector("[data-testid=error]:has-text('already have a simulation running')")
    assert second.locator("#progress-panel").is_hidden()
