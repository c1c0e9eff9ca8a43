"""The friends' second evening in real browsers (issue 26): Playwright for Python driving Debian's
Chromium against a real ``ratscrew serve``, the host at a desktop size (1280×800) and a friend on
a phone (390×844, by touch), each in a browser context of their own.

After a finished game the host goes back to the lobby, swaps the first two seats and adds a
third, and a friend who opens the link sits down in it. That used to crash the server
(``NoSuchSeatError``: it showed the finished game from the new seat), leave the friend on
"reconnecting…" and throw in every other open page; the pages fixture fails the test on any
page error.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import test_browser
from browsing import CHROMIUM
from serving import ServerProcess
from test_browser import Pages, join
from test_browser_friends import axe_clean, friend, shot

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists(),
                                reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")

# the real server, the browser and the error-recording pages: test_browser.py's fixtures
server, pages = test_browser.server, test_browser.pages


def test_a_seat_added_in_the_lobby_after_a_game_takes_a_friend_into_the_next_game(
        server: ServerProcess, pages: Pages) -> None:
    code = server.new_room(seats=2, bots=["casual"], seed=5, pace="fast")
    host = friend(pages, f"{server.url}/r/{code}", "desktop")
    join(host, "Ann")
    host.click("[data-testid=start]")
    host.wait_for_selector("[data-testid=status]:has-text('turn')")
    host.click("[data-testid=resign]")  # a 2-seat game, over
    host.wait_for_selector("[data-testid=results]:visible")
    host.click("[data-testid=to-lobby]")
    host.wait_for_selector("[data-testid=lobby]:visible")
    host.click("[data-testid=lobby-seats] li[data-seat='0'] button:has-text('move seat 1 down')")
    host.wait_for_selector("[data-testid=lobby-seats] li[data-seat='1']:has-text('Ann')")
    host.fill("#cfg-seats", "3")
    host.press("#cfg-seats", "Tab")  # the change goes to the server
    host.wait_for_selector("[data-testid=lobby-seats] li[data-seat='2'][data-kind=open]")

    phone = friend(pages, host.input_value("[data-testid=invite]"), "phone")
    join(phone, "Bob")
    phone.wait_for_selector("[data-testid=you-status]:has-text('You play in seat 3')")
    phone.wait_for_selector("[data-testid=connection]:has-text('connected')")
    host.wait_for_selector("[data-testid=lobby-seats] li[data-seat='2']:has-text('Bob')")
    phone.wait_for_timeout(1000)  # the server used to drop the connection here, again and again
    assert phone.inner_text("[data-testid=connection]") == "connected"
    # the finished table is the game's as it was: the bot won it, whoever sits in its seat now
    phone.tap("[data-testid=see-table]")
    phone.wait_for_selector("[data-testid=status]:has-text('Casual bot wins!')")
    shot(phone, "phone", "evening-1-added-seat")

    host.select_option("[data-testid=cfg-time-limit]", "600000")  # games of ten minutes at most
    host.wait_for_selector("[data-testid=time-limit-line]:has-text('Time limit: 10 min')")
    phone.wait_for_selector("[data-testid=time-limit-line]:has-text('Time limit: 10 min')",
                            state="attached")  # Bob looks at the last game's results meanwhile
    shot(host, "desktop", "evening-1-added-seat")
    axe_clean(host, "the lobby after a game, with a time limit")
    host.click("[data-testid=start]")  # "Start the next game": the three seats play now
    for page in (host, phone):
        page.wait_for_selector("[data-testid=seat-2]:has-text('Bob')")
        page.wait_for_selector("[data-testid=table]:visible")
    assert host.locator("[data-testid=seats] .seat").count() == 3
    assert "cards" in phone.inner_text("[data-testid=seat-2]")
    phone.wait_for_selector("[data-testid=status]:text-matches('(10:00|9:[0-5][0-9]) left')")  # the limit
    assert phone.inner_text("[data-testid=connection]") == "connected"
    # the host's log: game 2's lines are numbered from 1 again, none skipped at the divider
    host.wait_for_selector("[data-testid=log] li.divider + li")
    assert host.get_attribute("[data-testid=log] li.divider + li", "value") == "1"
    shot(phone, "phone", "evening-2-next-game")
