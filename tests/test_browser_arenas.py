"""The arena page (/arenas/ID) in a real browser (issue 50): Playwright for Python driving
Debian's Chromium against a real ``ratscrew serve``, at 1280×800 and 390×844.

The standings test answers ``GET /api/arenas/ID`` itself (the page, its scripts and styles come
from the real server) and changes the answer while the page is open: the page shows the new
standings without a reload (live), the countdown, and nothing axe-core calls serious. The join
test uses the server's own arena: two strangers press Join on the arena's page and meet at one
table; Pause takes a seeker out of the pool. The home page lists the arena.

Screenshots go to ``screenshots/`` (``RATSCREW_SCREENSHOTS`` names another folder).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import test_browser
from browsing import CHROMIUM
from serving import ServerProcess
from test_browser import Pages
from test_browser_friends import axe_clean
from test_browser_players import SIZES, no_sideways_scroll, shot

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists(),
                                reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")

server, pages = test_browser.server, test_browser.pages

MAKER_KEY = "maker-key-Qm3xT9vLp2Zr7WbK4sYd8H"


def new_arena(server: ServerProcess, **changes: Any) -> dict[str, Any]:
    made = httpx.post(f"{server.url}/api/arenas", json={
        "rules": "classic", "players": 2, "minutes": 30, "starts_in_s": 0, "player_key": MAKER_KEY,
        "name": "Maker", **changes})
    assert made.status_code == 201, made.text
    arena: dict[str, Any] = httpx.get(f"{server.url}/api/arenas/{made.json()['id']}").json()
    return arena


def context_options(size: str) -> dict[str, Any]:
    # bypass_csp only so that axe-core can be injected; the pages' own scripts are files
    options: dict[str, Any] = {"viewport": SIZES[size], "bypass_csp": True}
    if size == "phone":
        options.update(has_touch=True, is_mobile=True, device_scale_factor=2)
    return options


def line(rank: int, player_id: str, name: str, score: int, games: int, wins: int,
         streak: int) -> dict[str, Any]:
    return {"rank": rank, "player_id": player_id, "name": name, "score": score, "games": games,
            "wins": wins, "streak": streak}


def lines(page: Any) -> list[list[str]]:
    rows = page.get_by_test_id("arena-standings").locator("tr")
    return [[cell.strip() for cell in row.locator("td").all_inner_texts()] for row in rows.all()]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_arena_page_shows_the_countdown_and_live_standings(server: ServerProcess, pages: Pages,
                                                               size: str) -> None:
    arena = new_arena(server)
    shown = {**arena, "standings": [
        line(1, "AnnPublic123", "Ann", 2, 1, 1, 1),
        line(2, "BobPublic123", "Bob", 0, 1, 0, 0)]}
    context = pages.browser.new_context(reduced_motion="reduce", **context_options(size))
    pages.contexts.append(context)

    def answer(route: Any) -> None:
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({**shown, "now": time.time()}))

    context.route(lambda url: urlsplit(url).path == f"/api/arenas/{arena['id']}", answer)
    page = context.new_page()
    page.on("pageerror", lambda e: pages.errors.append(f"arena page: {e}"))
    page.goto(f"{server.url}/arenas/{arena['id']}")
    standings = page.get_by_test_id("arena-standings")
    standings.get_by_text("Ann").wait_for()
    assert lines(page) == [["1", "Ann", "2", "1", "1", "1"], ["2", "Bob", "0", "1", "0", "0"]]
    assert page.get_by_test_id("arena-state").inner_text() == "Ends in"
    assert page.get_by_test_id("arena-countdown").inner_text().startswith(("30:00", "29:5"))
    assert page.get_by_test_id("arena-title").inner_text() == "Arena: classic, tables of 2"
    # Bob wins twice, Cy joins: the page shows it without a reload
    shown["standings"] = [
        line(1, "BobPublic123", "Bob", 4, 3, 2, 2),
        line(2, "AnnPublic123", "Ann", 2, 3, 1, 0),
        line(3, "CyPublic1234", "Cy", 0, 1, 0, 0)]
    standings.get_by_text("Cy").wait_for()
    assert [line[:5] for line in lines(page)] == [["1", "Bob", "4", "3", "2"], ["2", "Ann", "2", "3", "1"],
                                                  ["3", "Cy", "0", "1", "0"]]
    assert lines(page)[0][5].startswith("2")  # two wins in a row: the next win scores double
    no_sideways_scroll(page)
    shot(page, f"arena-{size}")
    axe_clean(page, f"the arena page ({size})")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_two_strangers_join_the_arena_and_meet_at_a_table_and_pause_stops_a_seek(
        server: ServerProcess, pages: Pages, size: str) -> None:
    arena = new_arena(server)
    home = pages.open(server.url, **context_options(size))
    home.get_by_test_id("arena-list").get_by_role("link").first.wait_for()
    assert "classic · 2 players · 30 minutes" in home.get_by_test_id("arena-list").inner_text()
    axe_clean(home, f"the home page with an arena ({size})")
    url = f"{server.url}/arenas/{arena['id']}"
    first = pages.open(url, **context_options(size))
    first.get_by_test_id("arena-name").fill("Ann")
    first.get_by_test_id("arena-join").click()
    first.get_by_test_id("arena-status").get_by_text("Looking for a table").wait_for()
    first.get_by_test_id("arena-pause").click()
    first.get_by_test_id("arena-status").get_by_text("Paused").wait_for()
    assert first.get_by_test_id("arena-pause").is_hidden()
    axe_clean(first, f"the arena page after Pause ({size})")
    first.get_by_test_id("arena-join").click()
    second = pages.open(url, **context_options(size))
    second.get_by_test_id("arena-name").fill("Bob")
    second.get_by_test_id("arena-join").click()
    first.wait_for_url("**/r/*")
    second.wait_for_url("**/r/*")
    assert first.url == second.url  # one table
