"""Quick play in real browsers (issue 50): two strangers, each in a browser of their own, at a
desktop size (1280×800) and a phone size (390×844), press "Play now" on the home page, wait
(with the time and a Cancel), meet at one table that starts by itself, play to the end, and
press "Play again", which seeks the same pool again; a page matched with a stranger who never
comes goes back to seeking the same pool. axe-core finds no serious or critical
problem on the home page, the wait and the results; no page scrolls sideways. Screenshots go to
``screenshots/`` like the friends' test."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import test_browser
from browsing import CHROMIUM
from serving import Player, ServerProcess
from test_browser import Pages
from test_browser_friends import SHOTS as FRIEND_SHOTS
from test_browser_friends import (
    SIZES,
    axe_clean,
    friend,
    in_view,
    no_sideways_scroll,
    resign_outside_a_challenge,
)

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists(),
                                reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")

server, pages = test_browser.server, test_browser.pages


def shot(page: Any, size: str, name: str) -> None:
    FRIEND_SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(FRIEND_SHOTS / f"quickplay-{size}-{name}.png"))


def press_play_now(page: Any, name: str, rules: str = "classic") -> None:
    """Fill in the name, choose the rules and press Play now (the page may go to a table at
    once, when someone waits)."""
    page.wait_for_selector(f"[data-testid=quick-rules] option[value={rules}]", state="attached")
    page.fill("[data-testid=quick-name]", name)
    page.select_option("[data-testid=quick-rules]", rules)
    page.click("[data-testid=play-now]")


@pytest.mark.parametrize("size", list(SIZES))
def test_two_strangers_press_play_now_meet_play_to_the_end_and_play_again(
        server: ServerProcess, pages: Pages, size: str) -> None:
    ann = friend(pages, server.url + "/", size)
    ann.wait_for_selector("[data-testid=quick-pools]:has-text('0 waiting')")
    axe_clean(ann, "the home page with Play now")
    no_sideways_scroll(ann)
    in_view(ann, "[data-testid=play-now]")  # the home page leads with it
    shot(ann, size, "1-home")
    # Ann waits, and may cancel
    press_play_now(ann, "Ann")
    ann.wait_for_selector("[data-testid=quick-wait-text]:has-text('1 in the pool')")
    axe_clean(ann, "the wait")
    shot(ann, size, "2-waiting")
    ann.click("[data-testid=quick-cancel]")
    ann.wait_for_selector("[data-testid=play-now]:visible")
    press_play_now(ann, "Ann")
    ann.wait_for_selector("[data-testid=quick-wait-text]:has-text('1 in the pool')")

    bob = friend(pages, server.url + "/", size)
    bob.wait_for_selector("[data-testid=quick-pools]:has-text('1 waiting')")
    assert bob.inner_text("[data-testid=quick-rules] option[value=classic]") == "classic (1 waiting)"
    press_play_now(bob, "Bob")
    for page in (ann, bob):  # matched: each goes to the table, sits down, and the game starts
        page.wait_for_url("**/r/*")
        page.wait_for_selector("[data-testid=table]:visible")
    assert ann.url == bob.url
    ann.wait_for_selector("[data-testid=seat-0] .tag.you, [data-testid=seat-1] .tag.you")
    shot(bob, size, "3-matched-table")

    # to the end: both give up (the last one out ends the game: nobody wins)
    resign_outside_a_challenge(ann)
    bob.wait_for_selector("[data-testid=log] li:has-text('Ann resigns')")
    bob.click("[data-testid=resign]")
    for page in (ann, bob):
        page.wait_for_selector("[data-testid=results]:visible")
    for page in (ann, bob):
        in_view(page, "[data-testid=play-again]")
        assert page.locator("[data-testid=rematch]").is_hidden()  # no host at a matched table
        no_sideways_scroll(page)
    axe_clean(bob, "the results of a matched game")
    shot(bob, size, "4-results")

    # Play again: the same pool, sought again from the home page; two who just played wait
    bob.click("[data-testid=play-again]")
    bob.wait_for_selector("[data-testid=quick-wait-text]:has-text('classic')")
    ann.click("[data-testid=play-again]")
    ann.wait_for_selector("[data-testid=quick-wait-text]:has-text('2 in the pool')")
    assert ann.input_value("[data-testid=quick-players]") == "2"
    shot(ann, size, "5-play-again")


def test_a_stranger_who_never_comes_sends_the_page_back_to_the_front_of_its_pool(
        server: ServerProcess, pages: Pages) -> None:
    ann = friend(pages, server.url + "/", "desktop")
    press_play_now(ann, "Ann")
    ann.wait_for_selector("[data-testid=quick-wait-text]:has-text('1 in the pool')")
    ghost = Player(server.url.replace("http://", "ws://") + "/ws/seek")  # seeks, then never sits
    ghost.send({"type": "seek", "rules": "classic", "players": 2, "name": "Ghost",
                "player_key": "ghost-key-Rk5Nw8Tq2Lx7Vb3Mz9Hd"})
    matched = ghost.wait_for("matched")
    ghost.close()
    ann.wait_for_url(f"**/r/{matched['room']}")
    # after the 20 s the matched players have, the table closes unstarted and the page seeks
    # the same pool again (where Ann is at the front)
    ann.wait_for_url(server.url + "/", timeout=60_000)
    ann.wait_for_selector("[data-testid=quick-wait-text]:has-text('classic')")
    assert ann.locator("[data-testid=quick-wait]").is_visible()
