"""The table a group keeps playing all evening (issue 26), in real browsers: Playwright for Python
driving Debian's Chromium against a real ``ratscrew serve``, each person in a browser context of
their own, at a desktop size (1280×800, keys and a mouse) and a phone size (390×844, by touch).

What just happened is said beside the pile and goes with the next card; Play, Slap and the deck
stay where they are while the log grows, and the log keeps a reader's place; Slap is enabled
whenever the engine says the seat may slap (an out player slapping back in); the keyboard goes
from the Keys dialog to Rematch without a trap; on a phone every control of every page state is
at least 44×44 px and a glossary word at least 24 px tall; axe-core stays clean.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
import test_browser
import test_browser_friends
from serving import ServerProcess
from test_browser import Pages, join, wait_cards_played
from test_browser_friends import axe_clean, friend, in_view, no_sideways_scroll, resign_outside_a_challenge

pytestmark = test_browser_friends.pytestmark

# the real server, the browser and the error-recording pages: test_browser.py's fixtures
server, pages = test_browser.server, test_browser.pages

RECORD_CUES = """
window.__buzz = [];
window.__moves = [];
Object.defineProperty(navigator, "vibrate",
                      {value: (pattern) => { window.__buzz.push(pattern); return true; }});
const animate = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  window.__moves.push(this.id || this.className);
  return animate.apply(this, args);
};
"""
"""Recorded instead of felt: each vibration pattern, and each element the page animates."""


def person(pages: Pages, url: str, size: str, motion: str = "reduce") -> Any:
    """A person's own browser (context) at ``size``, asking for ``motion`` ("reduce" or
    "no-preference"), whose vibrations and animations are recorded (`RECORD_CUES`)."""
    options: dict[str, Any] = {"viewport": test_browser_friends.SIZES[size], "bypass_csp": True,
                               "reduced_motion": motion}
    if size == "phone":
        options.update(has_touch=True, is_mobile=True, device_scale_factor=2)
    context = pages.browser.new_context(**options)
    pages.contexts.append(context)
    context.add_init_script(RECORD_CUES)
    page = context.new_page()
    page.on("console", lambda m: pages.errors.append(f"{url}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: pages.errors.append(f"{url}: {e}"))
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(url)
    return page


def box(page: Any, selector: str) -> tuple[float, float, float, float]:
    """Where the element is laid out: its box when no brief animation of its own (a misslap's
    shake) is moving it, rounded to whole pixels."""
    for _ in range(20):
        found = page.evaluate("""(selector) => { const node = document.querySelector(selector);
            if (node === null || node.getAnimations().length) return null;
            const r = node.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }""", selector)
        if found is not None:
            x, y, width, height = found
            return (round(x), round(y), round(width), round(height))
        page.wait_for_timeout(100)
    raise AssertionError(f"{selector} is missing, or moving for two seconds")


def pile_cards_inside(page: Any, selector: str = "[data-testid=pile]") -> None:
    """Every card drawn on the pile lies inside the pile's box, as laid out (a card's brief deal
    animation, a transform, is not its place)."""
    outside = page.evaluate("""(selector) => {
        const pile = document.querySelector(selector);
        return [...pile.querySelectorAll('.card')]
          .filter((c) => c.offsetLeft < 0 || c.offsetTop < 0
                         || c.offsetLeft + c.offsetWidth > pile.clientWidth
                         || c.offsetTop + c.offsetHeight > pile.clientHeight)
          .map((c) => [c.dataset.card, c.offsetLeft, c.offsetLeft + c.offsetWidth, pile.clientWidth]);
    }""", selector)
    assert outside == [], f"pile cards outside the pile's box: {outside}"


def small_controls(page: Any) -> list[str]:
    """Every visible control smaller than a finger: under 44×44 px, or a glossary word under
    24 px tall (a checkbox is measured with the label that holds it)."""
    found: list[str] = page.evaluate("""() => {
        const small = [];
        const controls = document.querySelectorAll('button, a[href], select, input, summary, [role=button]');
        for (const control of controls) {
          const box = control.type === 'checkbox' || control.type === 'radio';
          const target = box ? (control.closest('label') ?? control) : control;
          if (!target.checkVisibility({visibilityProperty: true, opacityProperty: false})) continue;
          const r = target.getBoundingClientRect();
          if (r.width === 0 || r.height === 0) continue;
          const term = control.classList.contains('term');
          const tooSmall = term ? r.height < 24 - 0.5 : (r.height < 44 - 0.5 || r.width < 44 - 0.5);
          const text = (target.textContent || target.value || '').trim().slice(0, 30);
          if (tooSmall) small.push(`${target.tagName.toLowerCase()}${target.id ? '#' + target.id : ''}`
            + ` "${text}" ${Math.round(r.width)}x${Math.round(r.height)}`);
        }
        return small;
    }""")
    return found


def fingers_fit(page: Any, where: str) -> None:
    small = small_controls(page)
    assert small == [], f"controls too small for a finger on {where}: {small}"


def log_state(page: Any) -> dict[str, Any]:
    state: dict[str, Any] = page.evaluate("""() => { const log = document.querySelector('[data-testid=log]');
        const last = log.lastElementChild; const box = log.getBoundingClientRect();
        const line = last ? last.getBoundingClientRect() : null;
        return {lines: log.children.length, top: log.scrollTop,
                bottom: log.scrollHeight - log.scrollTop - log.clientHeight,
                newestShown: line === null || (line.bottom <= box.bottom + 1 && line.top >= box.top - 1)};
    }""")
    return state


def wait_for_more_lines(page: Any, than: int, timeout: float = 20.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = log_state(page)
        if state["lines"] > than:
            return state
        page.wait_for_timeout(200)
    raise AssertionError(f"no new log line within {timeout} s")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_misslap_is_said_beside_the_pile_in_view_and_goes_with_the_next_card(
        server: ServerProcess, pages: Pages, size: str) -> None:
    code = server.new_room(seats=2, bots=["casual"], seed=3, pace="slow", turn_timeout_ms=60_000)
    # the desktop asks for motion, the phone for reduced motion: the pile shakes only for the first
    player = person(pages, f"{server.url}/r/{code}", size, "no-preference" if size == "desktop" else "reduce")
    join(player, "Pat")
    player.click("[data-testid=start]")
    player.wait_for_selector("[data-testid=table][data-turn='0']")
    wait_cards_played(player, 0)
    player.click("[data-testid=play]")
    wait_cards_played(player, 2)  # the bot answers: 2♦ 4♥ (this seed's deal), no pattern to slap
    player.wait_for_selector("[data-testid=table][data-turn='0']")  # and nothing moves till Pat plays
    if size == "phone":
        player.tap("[data-testid=pile]")
    else:
        player.keyboard.press("s")
    news = "[data-testid=judgement] .news.misslap:has-text('Pat slapped')"
    player.wait_for_selector(news)
    in_view(player, news)  # beside the pile, without scrolling
    test_browser_friends.shot(player, size, "15-misslap-beside-the-pile")
    assert "no pattern" in player.inner_text(news)
    no_sideways_scroll(player)
    axe_clean(player, f"a table with a misslap said beside the pile ({size})")
    moves = player.evaluate("window.__moves")
    if size == "desktop":
        assert "pile" in moves, f"the pile did not shake: {moves}"
    else:
        assert "pile" not in moves, "the pile shook although the phone asks for reduced motion"
        # the phone buzzes for its own misslap; the setting is beside the sound's
        assert player.evaluate("window.__buzz") == [[180]]
        player.tap("[data-testid=vibrate]")
        player.wait_for_selector("[data-testid=vibrate]:has-text('Vibrate: off')")
    # the next card makes the line old: it goes
    player.click("[data-testid=play]")
    wait_cards_played(player, 3)
    player.wait_for_selector(news, state="detached")


def test_play_slap_and_the_deck_stay_put_over_a_minute_and_the_log_keeps_a_readers_place(
        server: ServerProcess, pages: Pages) -> None:
    # four seats, two people on a one-second turn time-out (the table plays for them) and two
    # casual bots: a game that runs for minutes, its log growing by a line or more a second
    code = server.new_room(seats=4, bots=["casual", "casual"], pace="fast", turn_timeout_ms=1000)
    ann = person(pages, f"{server.url}/r/{code}", "desktop", "no-preference")  # won piles fly to seats
    join(ann, "Ann")
    bob = person(pages, f"{server.url}/r/{code}", "phone")  # nothing moves
    join(bob, "Bob")
    ann.wait_for_selector("[data-testid=lobby-seats] li[data-seat='1']:has-text('Bob')")
    ann.click("[data-testid=start]")
    people = {"desktop": ann, "phone": bob}
    for page in people.values():
        page.wait_for_selector("[data-testid=table]:visible")
        wait_cards_played(page, 1)
    parts = ("[data-testid=play]", "[data-testid=slap]", "[data-testid=deck]", "[data-testid=pile]")
    first = {size: {part: box(page, part) for part in parts} for size, page in people.items()}
    # the issue saw Play move from y 467 to 690 within 40 s: a minute of samples, one a second
    samples = 0
    started = time.monotonic()
    while time.monotonic() - started < 60:
        for size, page in people.items():
            if page.locator("[data-testid=results]").is_visible():
                raise AssertionError("the game ended within a minute: no minute of play to sample")
            for part in parts:
                assert box(page, part) == first[size][part], f"{part} moved on the {size} after {samples} s"
            in_view(page, "[data-testid=log]")  # the log's box stays inside the window...
            if log_state(page)["bottom"] < 2:
                assert log_state(page)["newestShown"], f"the newest log line is cut on the {size}"
            pile_cards_inside(page)
        samples += 1
        ann.wait_for_timeout(1000)
    lines = {size: log_state(page)["lines"] for size, page in people.items()}
    assert min(lines.values()) > 40, f"too few lines to have tested a growing log: {lines}"
    assert "pile-ghost" in ann.evaluate("window.__moves"), "no won pile flew to its winner"
    assert ann.evaluate("window.__moves").count("pile-ghost") <= ann.locator(
        "[data-testid=log] li:has-text('takes the pile')").count()
    assert "pile-ghost" not in bob.evaluate("window.__moves"), "a pile flew, though Bob asks for less motion"
    test_browser_friends.shot(ann, "desktop", "16-a-minute-in")
    test_browser_friends.shot(bob, "phone", "16-a-minute-in")

    # scrolling back is respected: new lines do not pull the reader down...
    for size, page in people.items():
        page.locator("[data-testid=log]").evaluate("(log) => { log.scrollTop = 0; }")
        now = log_state(page)
        later = wait_for_more_lines(page, now["lines"] + 2)
        assert later["top"] == 0, f"the log jumped away from where the reader scrolled on the {size}"
        # ...and once back at the bottom, it follows again, its newest line in view
        page.locator("[data-testid=log]").evaluate("(log) => { log.scrollTop = log.scrollHeight; }")
        now = log_state(page)
        later = wait_for_more_lines(page, now["lines"] + 2)
        assert later["bottom"] < 2 and later["newestShown"], f"the log stopped following ({size}): {later}"


@pytest.mark.parametrize(("rules", "size", "may_slap_in"),
                         [("classic", "phone", True), ("paranoid", "desktop", False)])
def test_slap_is_enabled_whenever_the_rules_let_an_out_player_slap_back_in(
        server: ServerProcess, pages: Pages, rules: str, size: str, may_slap_in: bool) -> None:
    code = server.new_room(rules=rules, seats=3, bots=["casual", "casual"], seed=5, pace="slow",
                           turn_timeout_ms=60_000)
    ann = friend(pages, f"{server.url}/r/{code}", size)
    join(ann, "Ann")
    ann.click("[data-testid=start]")
    ann.wait_for_selector("[data-testid=table]:visible")
    resign_outside_a_challenge(ann)  # Ann gives up her cards; two bots play on
    ann.wait_for_selector("[data-testid=log] li:has-text('Ann resigns')")
    ann.wait_for_selector("[data-testid=deck][data-cards='0']")
    expected = "out" if may_slap_in else "eliminated"
    ann.wait_for_selector(f"[data-testid=seat-0] .count:has-text('{expected}')")
    assert ann.is_disabled("[data-testid=play]") and ann.is_disabled("[data-testid=resign]")
    assert ann.is_enabled("[data-testid=slap]") == may_slap_in
    test_browser_friends.shot(ann, size, f"17-out-under-{rules}")


def test_the_keyboard_goes_from_the_keys_dialog_to_rematch_and_back_from_the_table(
        server: ServerProcess, pages: Pages) -> None:
    code = server.new_room(seats=2, bots=["casual"], seed=7, pace="slow", turn_timeout_ms=60_000)
    ann = friend(pages, f"{server.url}/r/{code}", "desktop")
    join(ann, "Ann")
    ann.wait_for_selector("[data-testid=lobby]:visible")

    def tab_to(testid: str, most: int = 40) -> int:
        for presses in range(1, most + 1):
            ann.keyboard.press("Tab")
            if ann.evaluate("document.activeElement?.dataset.testid") == testid:
                return presses
        raise AssertionError(f"{most} Tabs did not reach {testid}")

    def focus_moves_to_the_results() -> None:
        deadline = time.monotonic() + 5
        while ann.evaluate("document.activeElement?.id") != "winner" and time.monotonic() < deadline:
            ann.wait_for_timeout(50)
        assert ann.evaluate("document.activeElement?.id") == "winner", "focus did not move to the results"

    tab_to("keys-button")
    ann.keyboard.press("Enter")
    ann.wait_for_selector("[data-testid=keys-dialog][open]")
    assert ann.evaluate("document.activeElement?.dataset.testid") == "key-play"
    for modifier in ("Shift", "Control", "Alt", "Meta"):
        ann.keyboard.press(modifier)  # a modifier alone is no key to play with
    assert ann.input_value("[data-testid=key-play]") == "a"
    ann.keyboard.press("q")
    assert ann.input_value("[data-testid=key-play]") == "q"
    ann.keyboard.press("Tab")  # Tab moves on...
    assert ann.evaluate("document.activeElement?.dataset.testid") == "key-slap"
    ann.keyboard.press("Escape")  # ...and Escape closes
    ann.wait_for_selector("[data-testid=keys-dialog]:not([open])", state="attached")
    assert ann.inner_text("#play-key") == "q"

    tab_to("start")
    ann.keyboard.press("Enter")
    ann.wait_for_selector("[data-testid=table]:visible")
    ann.wait_for_selector("[data-testid=status]:has-text('turn')")
    tab_to("resign")
    ann.keyboard.press("Enter")  # the confirmation is accepted: a two-seat game ends
    ann.wait_for_selector("[data-testid=results]:visible")
    focus_moves_to_the_results()
    # the results card leaves the you-bar readable
    assert box(ann, "[data-testid=results]")[1] >= sum(box(ann, "[data-testid=you-bar]")[1::2]) - 1
    assert tab_to("see-table", 3) <= 3
    ann.keyboard.press("Enter")
    ann.wait_for_selector("[data-testid=results]", state="hidden")
    assert ann.evaluate("document.activeElement?.dataset.testid") == "back-to-results"
    ann.keyboard.press("Enter")  # "See the table" leads back to the results
    ann.wait_for_selector("[data-testid=results]:visible")
    focus_moves_to_the_results()  # on the next frame: a Tab pressed before it starts elsewhere
    assert tab_to("rematch", 2) <= 2
    ann.keyboard.press("Enter")
    ann.wait_for_selector("[data-testid=log] li.divider:has-text('Game 2')")
    ann.wait_for_selector("[data-testid=results]", state="hidden")


def test_every_state_of_a_phone_fits_a_finger_and_how_to_play_is_filled_before_joining(
        server: ServerProcess, pages: Pages) -> None:
    home = friend(pages, server.url + "/", "phone")
    home.wait_for_selector("[data-testid=rules] option[value=classic]", state="attached")
    fingers_fit(home, "the home page")
    code = server.new_room(seats=3, bots=["casual"], seed=11, pace="slow", turn_timeout_ms=60_000)
    url = f"{server.url}/r/{code}"
    ann = friend(pages, url, "phone")
    ann.wait_for_selector("[data-testid=join-panel]:visible")
    fingers_fit(ann, "the join box")
    ann.tap("[data-testid=help-button]")  # before joining, How to play is already filled
    ann.wait_for_selector("[data-testid=help-patterns] .card")
    assert "double" in ann.inner_text("[data-testid=help-patterns]")
    assert ann.locator("[data-testid=help-rules] li").count() > 3
    fingers_fit(ann, "How to play")
    # a word explained inside the dialog shows above it, inside the window
    ann.locator("[data-testid=help-rules] button.term").first.tap()
    ann.wait_for_selector("[data-testid=term-tip]:visible")
    in_view(ann, "[data-testid=term-tip]")
    tip = ann.locator("[data-testid=term-tip]").bounding_box()
    assert tip is not None
    on_top = ann.evaluate(
        "([x, y]) => document.elementFromPoint(x, y)?.closest('[data-testid=term-tip]') !== null",
        [tip["x"] + tip["width"] / 2, tip["y"] + tip["height"] / 2])
    assert on_top, "the glossary tip is hidden under the dialog"
    ann.keyboard.press("Escape")
    ann.keyboard.press("Escape")
    ann.wait_for_selector("[data-testid=help-dialog]:not([open])", state="attached")
    join(ann, "Ann")
    ann.wait_for_selector("[data-testid=lobby]:visible")
    bob = friend(pages, url, "phone")
    join(bob, "Bob")
    bob.wait_for_selector("[data-testid=lobby]:visible")
    ann.wait_for_selector("[data-testid=lobby-seats] li[data-seat='1']:has-text('Bob')")
    for seat in range(3):  # seats are numbered
        assert f"Seat {seat + 1}" in ann.inner_text(f"[data-testid=lobby-seats] li[data-seat='{seat}']")
    in_view(bob, "[data-testid=ready]")  # "I'm ready" is in view
    fingers_fit(ann, "the host's lobby")
    fingers_fit(bob, "a friend's lobby")
    axe_clean(ann, "the lobby with numbered seats")
    ann.tap("[data-testid=start]")
    for page in (ann, bob):
        page.wait_for_selector("[data-testid=table]:visible")
    fingers_fit(ann, "the table")
    cat = friend(pages, url, "phone")
    join(cat, "Cat")
    cat.wait_for_selector("[data-testid=you-status]:has-text('next one')")
    fingers_fit(cat, "a latecomer's table")
    # the host is told at the table who waits for the next game
    ann.wait_for_selector("[data-testid=table-waiting]:has-text('Cat waits')")
    in_view(ann, "[data-testid=table-waiting]")
    test_browser_friends.shot(ann, "phone", "18-host-sees-who-waits")
    ann.wait_for_selector("[data-testid=status]:has-text('turn')")
    resign_outside_a_challenge(ann)
    resign_outside_a_challenge(bob)
    ann.wait_for_selector("[data-testid=results]:visible")
    fingers_fit(ann, "the results")
    ann.tap("[data-testid=see-table]")
    ann.wait_for_selector("[data-testid=back-to-results]:visible")
    fingers_fit(ann, "the table after the game")
    ann.tap("[data-testid=back-to-results]")
    ann.wait_for_selector("[data-testid=results]:visible")
    replay = friend(pages, server.url + str(ann.get_attribute("[data-testid=replay-link]", "href")), "phone")
    replay.wait_for_selector("[data-testid=replay-step]:has-text('Step 1 of')")
    fingers_fit(replay, "the replay")
    for _ in range(6):  # a few cards on the replay's pile, all inside its box
        replay.tap("[data-testid=replay-forward]")
        pile_cards_inside(replay)
    board = friend(pages, f"{server.url}/leaderboard?rules=classic", "phone")
    # nobody is ranked yet (a player is ranked after three different opponents): the page says so
    board.wait_for_selector("[data-testid=leaderboard-empty]:visible")
    fingers_fit(board, "the leaderboard")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_log_ends_on_its_last_line_when_the_game_ends(
        server: ServerProcess, pages: Pages, size: str) -> None:
    # the results and the finished table change the grid around the log after its last lines
    # came: the log, which was following, still shows the line that ended the game
    code = server.new_room(seats=2, seed=7, turn_timeout_ms=1000)
    ann = friend(pages, f"{server.url}/r/{code}", "desktop")
    join(ann, "Ann")
    bob = friend(pages, f"{server.url}/r/{code}", size)
    join(bob, "Bob")
    ann.wait_for_selector("[data-testid=lobby-seats] li[data-seat='1']:has-text('Bob')")
    ann.click("[data-testid=start]")
    resign_outside_a_challenge(ann)  # Bob's time-outs then play his cards to his first face card
    bob.wait_for_selector("[data-testid=results]:visible", timeout=60_000)
    bob.wait_for_selector("[data-testid=log] li:has-text('Bob holds every card and wins')")
    bob.wait_for_timeout(300)
    assert log_state(bob)["newestShown"], f"the game's last line is cut under the results ({size})"
    bob.locator("[data-testid=see-table]").click()
    bob.wait_for_selector("[data-testid=back-to-results]:visible")
    bob.wait_for_timeout(300)
    assert log_state(bob)["newestShown"], f"the game's last line is cut at the finished table ({size})"


def test_a_click_while_the_connection_is_down_says_it_was_not_sent(server: ServerProcess,
                                                                   pages: Pages) -> None:
    """The page keeps nothing to send later (the game moves on meanwhile), so a click the socket
    cannot carry is refused on screen, not dropped without a word."""
    code = server.new_room(seats=2, bots=["casual"], seed=5)
    host = friend(pages, f"{server.url}/r/{code}", "desktop")
    join(host, "Ann")
    host.wait_for_selector("[data-testid=start]:visible")
    assert not host.is_visible("[data-testid=lobby-offline]")
    pages.expected.append("WebSocket connection to")  # Chromium notes each failed reconnection
    server.kill()
    host.wait_for_selector("[data-testid=connection]:has-text('reconnecting')")
    # the seats are the last the server said, and the lobby says so (not only the top line)
    host.wait_for_selector("[data-testid=lobby-offline]:has-text('Not connected (reconnecting')")
    assert "stale" in (host.get_attribute("[data-testid=lobby-seats]", "class") or "")
    host.click("[data-testid=start]")
    host.wait_for_selector("[data-testid=error]:has-text('Not sent: the connection to the server is down')")
    assert host.is_visible("[data-testid=lobby]"), "the lobby stays: no game started"
