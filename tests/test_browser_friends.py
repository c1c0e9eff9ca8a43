"""Friends at one table, in real browsers: Playwright for Python driving Debian's Chromium against
a real ``ratscrew serve``, each friend in a browser context of their own, at a desktop size
(1280×800) and a phone size (390×844).

The host makes a room with the home page's defaults, a friend follows the invite link and is
seated, a late friend arrives during the game, is told so and is dealt into the rematch; a slap
race where the slower correct slapper keeps its cards and reads "too slow"; a reload keeps the
log; the results fit the screen; no page scrolls sideways; axe-core finds no serious or critical
accessibility problem on the home page, a lobby, a table in play and the results.

Every step writes a screenshot into ``screenshots/`` (ignored by git; ``RATSCREW_SCREENSHOTS``
names another folder); the ones docs/online.md shows are copied from there into docs/images/.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import test_browser
from browsing import CHROMIUM
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from serving import ServerProcess
from test_browser import Pages, early_double, join, pile, wait_cards_played, wait_for_the_deal

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path(os.environ.get("RATSCREW_SCREENSHOTS") or ROOT / "screenshots")
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists(),
                                reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")

# the real server, the browser and the error-recording pages: test_browser.py's fixtures
server, pages = test_browser.server, test_browser.pages


def friend(pages: Pages, url: str, size: str) -> Any:
    """A friend's own browser (context): a desktop, or a phone that plays by touch."""
    options: dict[str, Any] = {"viewport": SIZES[size], "bypass_csp": True}
    if size == "phone":
        options.update(has_touch=True, is_mobile=True, device_scale_factor=2)
    return pages.open(url, **options)


def shot(page: Any, size: str, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"friends-{size}-{name}.png"))


def no_sideways_scroll(page: Any) -> None:
    # the context's viewport, not innerWidth: a mobile browser widens its window to fit a page
    # that overflows, so innerWidth would grow with the overflow and the check could not fail
    width = page.evaluate("document.documentElement.scrollWidth")
    inner = page.viewport_size["width"]
    assert width <= inner, f"the page scrolls sideways: {width} px wide in a {inner} px window"


def in_view(page: Any, selector: str) -> None:
    """The element is wholly inside the window, without scrolling."""
    box = page.locator(selector).bounding_box()
    view = page.viewport_size
    assert box is not None, f"{selector} is not on screen"
    assert box["x"] >= 0 and box["y"] >= 0, f"{selector} starts outside the window: {box}"
    assert box["x"] + box["width"] <= view["width"] + 1, f"{selector} runs off the right: {box}"
    assert box["y"] + box["height"] <= view["height"] + 1, f"{selector} runs off the bottom: {box}"


def axe_clean(page: Any, where: str) -> None:
    """No serious or critical axe-core violation on the page as it is now."""
    if not AXE.exists():
        if os.environ.get("CI"):
            raise AssertionError(f"axe-core is missing at {AXE}: run npm ci first (make jscheck does)")
        pytest.skip(f"axe-core is not installed at {AXE} (npm ci)")
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
        .violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                               nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))""")
    bad = [v for v in found if v["impact"] in ("serious", "critical")]
    assert bad == [], f"axe-core on {where}: {bad}"


SAFE_TO_RESIGN = """() => {
  const mine = document.querySelector("[data-testid=table]:not([hidden]) .seat.you");
  if (!mine) return false;
  const table = mine.closest("[data-testid=table]");
  const name = mine.querySelector(".name")?.firstChild?.textContent ?? "";
  const status = document.querySelector("[data-testid=status]")?.textContent ?? "";
  const cards = Number(document.querySelector("[data-testid=deck]")?.dataset.cards ?? 0);
  const ours = table.dataset.turn === mine.dataset.seat;
  return cards > 0 && table.dataset.turn !== "" && !status.startsWith(`${name} `)
    && (!ours || status.startsWith("Your turn"));
}"""
"""A moment this page's player can resign without the pile coming back to them: the game is on,
they hold cards, the status names them neither as a challenger ("Ann played K: ...") nor as the
taker of the pile ("Ann takes the pile in ..."), and it is either another seat's turn or their
own plain turn (not an answer to someone's face card, which could open a challenge of theirs)."""


def resign_outside_a_challenge(page: Any) -> None:
    """Resign when no face-card challenge of this player's is open: a challenger who resigns
    still wins the pile if the challenge fails (and may slap back in under classic rules).
    Waiting for `SAFE_TO_RESIGN`, not for the word "turn" in the status: with 5 s turns, a chain
    of challenges answered by timeouts can keep "turn" off the status for a minute (CI once
    waited 30 s for it), while another seat's turn comes every few seconds."""
    try:
        page.wait_for_function(SAFE_TO_RESIGN)
    except PlaywrightTimeoutError:
        status = page.inner_text("[data-testid=status]")
        turn = page.get_attribute("[data-testid=table]", "data-turn")
        raise AssertionError(f"no safe moment to resign in 30 s: status {status!r}, turn {turn!r}") from None
    page.click("[data-testid=resign]")


def log_lines(page: Any) -> list[str]:
    return [str(line) for line in page.locator("[data-testid=log] li").all_inner_texts()]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_three_friends_make_a_room_play_and_deal_a_latecomer_into_the_rematch(
        server: ServerProcess, pages: Pages, size: str) -> None:
    host = friend(pages, server.url + "/", size)
    host.wait_for_selector("[data-testid=rules] option[value=classic]", state="attached")
    host.wait_for_selector("[data-testid=seat-choice-3]")
    assert host.input_value("[data-testid=seat-choice-1]") == ""  # by default, seats wait for friends
    axe_clean(host, "the home page")
    no_sideways_scroll(host)
    shot(host, size, "1-home")
    host.fill("[data-testid=seats]", "3")
    host.click("[data-testid=create]")
    host.wait_for_url("**/r/*")
    # a name of only spaces is refused, and the page says why
    host.fill("[data-testid=name]", "   ")
    host.click("[data-testid=join]")
    host.wait_for_selector("[data-testid=name-error]:has-text('at least one letter')")
    join(host, "Ann")
    host.wait_for_selector("[data-testid=lobby-seats] li[data-kind=open]")
    invite = host.input_value("[data-testid=invite]")

    bob = friend(pages, invite, size)
    join(bob, "Bob")
    bob.wait_for_selector("[data-testid=you-status]:has-text('You play in seat 2')")
    host.wait_for_selector("[data-testid=lobby-seats] li[data-seat='1']:has-text('Bob')")
    assert "you" in host.inner_text("[data-testid=lobby-seats] li[data-seat='0']")
    assert "you" not in host.inner_text("[data-testid=lobby-seats] li[data-seat='1']")
    axe_clean(host, "the lobby")
    no_sideways_scroll(bob)
    shot(host, size, "2-lobby-host")
    shot(bob, size, "3-lobby-friend")

    host.click("[data-testid=start]")  # one seat is still open: the host is asked
    host.wait_for_selector("[data-testid=open-seats-dialog][open]")
    shot(host, size, "4-open-seats")
    host.select_option("[data-testid=fill-level]", "casual")
    host.click("[data-testid=fill-bots]")
    for page in (host, bob):
        page.wait_for_selector("[data-testid=table]:visible")
    host.wait_for_selector("[data-testid=seat-0] .tag.you")

    cat = friend(pages, invite, size)
    join(cat, "Cat")
    cat.wait_for_selector("[data-testid=you-status]:has-text('you will be dealt into the next one')")
    host.wait_for_selector("[data-testid=waiting-line]", state="attached")
    assert cat.locator("[data-testid=controls]").is_hidden()
    wait_cards_played(host, 1)
    axe_clean(host, "a table in play")
    no_sideways_scroll(cat)
    shot(host, size, "5-table")
    shot(cat, size, "6-latecomer-waits")

    # two friends give up, each when no face-card challenge is open (a challenger who resigns
    # still wins the pile if the challenge fails, and may slap back in under classic rules)
    resign_outside_a_challenge(host)
    host.wait_for_selector("[data-testid=log] li:has-text('Ann resigns')")
    resign_outside_a_challenge(bob)
    for page in (host, bob, cat):
        page.wait_for_selector("[data-testid=results]:visible")
    assert "Casual bot wins" in host.inner_text("[data-testid=winner]")
    for selector in ("[data-testid=results]", "[data-testid=rematch]", "[data-testid=to-lobby]",
                     "#results-body"):
        in_view(host, selector)
    in_view(bob, "[data-testid=to-lobby]")
    axe_clean(host, "the results")
    for page in (host, bob, cat):
        no_sideways_scroll(page)
    shot(host, size, "7-results")
    # the game is over: Cat takes the bot's seat at once, and is dealt into the rematch
    cat.wait_for_selector("[data-testid=you-status]:has-text('You play in seat 3')")
    host.click("[data-testid=rematch]")
    cat.wait_for_selector("[data-testid=table]:visible")
    cat.wait_for_selector("[data-testid=seat-2] .tag.you")
    assert cat.locator("[data-testid=controls]").is_visible()
    cat.wait_for_selector("[data-testid=log] li.divider:has-text('Game 2')")
    shot(cat, size, "8-latecomer-dealt-in")


def test_the_slower_correct_slapper_keeps_its_cards_and_sees_too_slow_and_a_reload_keeps_the_log(
        server: ServerProcess, pages: Pages) -> None:
    seed, cards_to_double = early_double()
    code = server.new_room(seats=2, seed=seed, turn_timeout_ms=60_000)
    ann = friend(pages, f"{server.url}/r/{code}", "desktop")
    join(ann, "Ann")
    bob = friend(pages, f"{server.url}/r/{code}", "phone")
    join(bob, "Bob")
    ann.click("[data-testid=start]")
    for page in (ann, bob):
        wait_for_the_deal(page)
    players = {"0": ann, "1": bob}
    for played in range(cards_to_double):
        turn = ann.get_attribute("[data-testid=table]", "data-turn")
        players[str(turn)].keyboard.press("a")
        for page in (ann, bob):
            wait_cards_played(page, played + 1)
    top = pile(ann).split()
    assert top[-1][0] == top[-2][0], f"expected a double on {top}"
    ann_cards = ann.inner_text("#deck-count")
    bob.keyboard.press("s")  # Bob is quicker...
    ann.wait_for_timeout(60)
    ann.keyboard.press("s")  # ...and Ann's hand lands on his
    ann.wait_for_selector("[data-testid=log] li:has-text('Ann slapped too, but Bob was')")
    # the server's judgement, beside the pile (after the state's own line about the late slap)
    ann.wait_for_selector("[data-testid=judgement] .news.judged:has-text('no penalty')")
    assert ann.inner_text("#deck-count") == ann_cards  # Ann kept every card
    assert not any("misslap" in line or "burns" in line for line in log_lines(ann))
    shot(ann, "desktop", "9-too-slow")
    shot(bob, "phone", "9-too-slow")

    before = log_lines(ann)
    ann.reload()
    ann.wait_for_selector("[data-testid=table]:visible")
    ann.wait_for_selector("[data-testid=log] li:has-text('Ann slapped too')")
    assert log_lines(ann) == before  # the same lines, none missing, none twice
    assert ann.inner_text("[data-testid=you-status]").startswith("You play in seat 1")
    shot(ann, "desktop", "10-after-reload")


def test_a_friend_who_sits_down_while_the_host_is_asked_about_open_seats_starts_the_game(
        server: ServerProcess, pages: Pages) -> None:
    # The host's start can reach the page before the friend's seat does (CI once waited 30 s on
    # a dialog asking about a seat that was no longer open): the question follows the room.
    code = server.new_room(seats=3, turn_timeout_ms=60_000)
    ann = friend(pages, f"{server.url}/r/{code}", "desktop")
    join(ann, "Ann")
    ann.click("[data-testid=start]")
    ann.wait_for_selector("[data-testid=open-seats-dialog][open]:has-text('2 seats have nobody')")
    bob = friend(pages, f"{server.url}/r/{code}", "phone")
    join(bob, "Bob")
    ann.wait_for_selector("[data-testid=open-seats-dialog][open]:has-text('One seat has nobody')")
    assert ann.locator("[data-testid=table]").is_hidden()  # still asked: nothing started
    cat = friend(pages, f"{server.url}/r/{code}", "phone")
    join(cat, "Cat")
    for page in (ann, bob, cat):
        wait_for_the_deal(page)
    assert ann.locator("[data-testid=open-seats-dialog]").is_hidden()
    names = [ann.inner_text(f"[data-testid=seat-{seat}] .name").split()[0] for seat in range(3)]
    assert names == ["Ann", "Bob", "Cat"]  # nobody's seat was filled by a bot or removed


def test_the_burned_cards_read_clearly_and_phones_show_no_key_hints(server: ServerProcess,
                                                                     pages: Pages) -> None:
    code = server.new_room(seats=2, bots=["casual"], seed=3, pace="slow", turn_timeout_ms=60_000)
    phone = friend(pages, f"{server.url}/r/{code}", "phone")
    join(phone, "Pat")
    phone.tap("[data-testid=start]")
    phone.wait_for_selector("[data-testid=table]:visible")
    phone.wait_for_selector("[data-testid=table][data-turn='0']")
    phone.tap("[data-testid=pile]")  # a slap on one card: a misslap, a card burned
    phone.wait_for_selector("[data-testid=burned] .mini")
    colour, background = phone.evaluate("""(() => { const s = getComputedStyle(
        document.querySelector('[data-testid=burned] .mini')); return [s.color, s.backgroundColor]; })()""")
    assert colour != background and colour != "rgb(255, 255, 255)", (colour, background)
    assert phone.locator("[data-testid=play] kbd").is_hidden()  # no keyboard, no key hint
    phone.wait_for_selector("[data-testid=log] li:has-text('burns 1 card')")
    phone.locator("[data-testid=log] button.term").first.tap()  # "burns" explains itself
    phone.wait_for_selector("[data-testid=term-tip]:visible")
    in_view(phone, "#deck-count")
    no_sideways_scroll(phone)
    shot(phone, "phone", "11-burned-and-terms")
    phone.tap("[data-testid=help-button]")
    phone.wait_for_selector("[data-testid=help-patterns] .card")
    assert "double" in phone.inner_text("[data-testid=help-patterns]")
    assert "casual" in phone.inner_text("[data-testid=help-bots]")
    shot(phone, "phone", "12-how-to-play")


def test_the_leaderboard_and_the_replay_viewer_fit_a_phone(server: ServerProcess, pages: Pages) -> None:
    # Ann is ranked after rated games against three different opponents (issue 30): one game
    # against each of three bot levels, in the same browser (her player key)
    host = friend(pages, server.url + "/", "phone")
    for level in ("beginner", "casual", "expert"):
        code = server.new_room(seats=2, bots=[level], pace="fast")  # unseeded: rated
        host.goto(f"{server.url}/r/{code}")
        join(host, "Ann")
        host.tap("[data-testid=start]")
        host.wait_for_selector("[data-testid=table]:visible")
        host.tap("[data-testid=resign]")
        host.wait_for_selector("[data-testid=results]:visible")
    board = friend(pages, f"{server.url}/leaderboard?rules=classic", "phone")
    board.wait_for_selector("[data-testid=leaderboard] tr:has-text('Ann')")
    no_sideways_scroll(board)
    shot(board, "phone", "13-leaderboard")
    replay = friend(pages, server.url + str(host.get_attribute("[data-testid=replay-link]", "href")), "phone")
    replay.wait_for_selector("[data-testid=replay-step]:has-text('Step 1 of')")
    # the step buttons draw their own icons (no glyph that a plain Debian Chromium lacks)
    for button in ("replay-start", "replay-back", "replay-forward", "replay-end"):
        assert replay.locator(f"[data-testid={button}] svg.icon").count() == 1
    no_sideways_scroll(replay)
    shot(replay, "phone", "14-replay")
