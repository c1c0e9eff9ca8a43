"""The browser table in a real browser: Playwright for Python driving Debian's Chromium against a
real ``ratscrew serve``. Two people create and join one room, play, slap a double and see the
same pile; a phone plays by touch; a spectator sees the table but cannot act; the end screen
links a record that replays. No page may log an error. Screenshots go to ``docs/img/``.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browsing import CHROMIUM
from serving import ServerProcess

from ratscrew.engine import Game
from ratscrew.ruleset import Ruleset

SCREENSHOTS = os.environ.get("RATSCREW_SCREENSHOTS")
"""Where the screenshots go: a temporary folder, unless this names one (the ones in docs/online.md
are made with ``RATSCREW_SCREENSHOTS=docs/img .venv/bin/pytest tests/test_browser.py``)."""

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists(),
                                reason=f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # a server (and a database) per test: each browser context is a player of its own key, and
    # a name ("Ann") belongs to the first key that takes it, so tests must not share players
    with ServerProcess(tmp_path_factory.mktemp("browser") / "ratscrew.db") as running:
        yield running


@pytest.fixture(scope="module")
def page_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for the tests of a module that make no player and no room (their pages' data
    is faked, or they play offline): they use only its files and pages, so they share it."""
    with ServerProcess(tmp_path_factory.mktemp("pages") / "ratscrew.db") as running:
        yield running


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(SCREENSHOTS) if SCREENSHOTS else tmp_path_factory.mktemp("screenshots")


FAILURE_VIEW = {"connection": "[data-testid=connection]", "status": "[data-testid=status]",
                "error": "[data-testid=error]", "its text's end": "body"}
"""What `Pages.describe_failure` reads from each page (a room page has all four)."""


class Pages:
    """Browser pages that record every console error and uncaught exception."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.errors: list[str] = []
        self.began = time.monotonic()
        self.events: list[str] = []
        """Each page's websockets opening and closing, with the time since the first page."""
        self.contexts: list[Any] = []
        self.expected: list[str] = []
        """Console errors a test causes on purpose (e.g. the browser's note on a 400 answer)."""

    def open(self, url: str, **context_options: Any) -> Any:
        # reduced motion: the page's prefers-reduced-motion path, and screenshots without a card
        # caught halfway through its deal animation
        context = self.browser.new_context(**{"reduced_motion": "reduce", **context_options})
        self.contexts.append(context)
        page = context.new_page()
        page.on("console", lambda m: self.errors.append(f"{url}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"{url}: {e}"))
        page.on("dialog", lambda dialog: dialog.accept())
        number = len(self.contexts) - 1
        page.on("websocket", lambda socket: self._watch(number, socket))
        page.goto(url)
        return page

    def _note(self, text: str) -> None:
        self.events.append(f"{time.monotonic() - self.began:8.3f} s  {text}")

    def _watch(self, number: int, socket: Any) -> None:
        self._note(f"page {number}: websocket opened {socket.url}")
        socket.on("close", lambda _: self._note(f"page {number}: websocket closed"))
        socket.on("socketerror", lambda error: self._note(f"page {number}: websocket error {error}"))

    def describe_failure(self) -> str:
        """The websockets' last openings and closings, then every page's connection, status and
        error lines (a room page's, where it shows them) and the end of its text
        (``conftest.DescribesFailure``)."""
        lines = [*self.events[-30:]]
        for number, context in enumerate(self.contexts):
            for page in context.pages:
                lines.append(f"--- page {number} at {page.url}")
                for label, selector in FAILURE_VIEW.items():
                    try:
                        if page.locator(selector).count() == 0:
                            continue
                        text = str(page.locator(selector).first.inner_text(timeout=1000))
                    except Exception as error:  # a closed page says so, the rest goes on
                        text = f"(cannot read it: {error})"
                    lines.append(f"{label}: {text[-1200:]}")
        return "\n".join(lines)

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser: Any) -> Iterator[Pages]:
    opened = Pages(browser)
    yield opened
    opened.close()
    unexpected = [e for e in opened.errors if not any(x in e for x in opened.expected)]
    assert unexpected == [], "the pages logged errors"


def join(page: Any, name: str) -> None:
    page.fill("[data-testid=name]", name)
    page.click("[data-testid=join]")
    page.wait_for_selector("[data-testid=join-panel]", state="hidden")


def wait_for_the_deal(page: Any) -> None:
    """Wait until the table shows a game's state: the table is shown as soon as the room says a
    game is on, a moment before the first state (with whose turn it is) arrives."""
    page.wait_for_selector("[data-testid=table][data-cards-played]:visible")


def cards_played(page: Any) -> int:
    return int(page.get_attribute("[data-testid=table]", "data-cards-played") or 0)


def wait_cards_played(page: Any, count: int) -> None:
    """Wait until the table says ``count`` cards were played (selectors only: the page's CSP
    forbids the string evaluation ``wait_for_function`` would need)."""
    page.wait_for_selector(f"[data-testid=table][data-cards-played='{count}']", timeout=10_000)


def pile(page: Any) -> str:
    return str(page.get_attribute("[data-testid=pile]", "data-cards") or "")


def early_double(players: int = 2) -> tuple[int, int]:
    """A seed whose deal, played in turn, shows a double within eight cards and no face card
    before it; and how many cards that takes."""
    classic = Ruleset.preset("classic")
    for seed in range(2000):
        game = Game.deal(classic, players=players, seed=seed)
        at = 0
        for played in range(1, 9):
            turn = game.observe(None)["turn"]
            assert turn is not None, "a game just dealt goes on for eight cards"
            at += 200
            game.play(turn, at=at)
            top = game.observe(None)["pile"]
            if top[-1][0] in "JQKA":
                break
            if len(top) >= 2 and top[-1][0] == top[-2][0]:
                return seed, played
    raise AssertionError("no seed with an early double")


def test_the_home_page_creates_a_room_and_opens_it(server: ServerProcess, pages: Pages) -> None:
    page = pages.open(server.url + "/")
    page.wait_for_selector("[data-testid=rules] option[value=northwest]", state="attached")
    page.select_option("[data-testid=rules]", "northwest")
    page.fill("[data-testid=seats]", "3")
    page.select_option("[data-testid=seat-choice-2]", "expert")
    page.click("[data-testid=create]")
    page.wait_for_url("**/r/*")
    join(page, "Ann")
    page.wait_for_selector("[data-testid=lobby]:visible")
    seats = page.locator("[data-testid=lobby-seats] li")
    assert seats.count() == 3
    assert seats.nth(0).inner_text().startswith("Seat 1\nAnn")  # numbered, then the name
    assert page.get_attribute("[data-testid=lobby-seats] li:nth-child(3)", "data-kind") == "bot"
    assert "northwest" in page.inner_text("#rules-line")


def test_a_bad_pasted_ruleset_is_explained_on_the_home_page(server: ServerProcess, pages: Pages) -> None:
    pages.expected.append("status of 400 (Bad Request)")  # Chromium notes the API's refusal
    page = pages.open(server.url + "/")
    page.click("summary")
    page.fill("[data-testid=rules-toml]", "name = 'mine'\nslaps = ['triple-lutz']\n")
    page.click("[data-testid=create]")
    page.wait_for_selector("[data-testid=create-error]:has-text('triple-lutz')")
    assert page.url.endswith("/")


def test_two_players_play_slap_a_double_and_see_the_same_pile(server: ServerProcess, pages: Pages,
                                                               images: Path) -> None:
    seed, cards_to_double = early_double()
    code = server.new_room(seats=2, seed=seed, turn_timeout_ms=60_000)
    ann = pages.open(f"{server.url}/r/{code}")
    join(ann, "Ann")
    bob = pages.open(f"{server.url}/r/{code}")
    join(bob, "Bob")
    ann.wait_for_selector("[data-testid=lobby-seats] li:nth-child(2):has-text('Bob')")
    assert ann.input_value("[data-testid=invite]").endswith(f"/r/{code}")
    ann.screenshot(path=str(images / "online-lobby.png"), full_page=True)
    assert bob.locator("[data-testid=start]").is_hidden()  # only the host starts
    ann.click("[data-testid=start]")
    for page in (ann, bob):
        wait_for_the_deal(page)
    players = {"0": ann, "1": bob}
    for played in range(cards_to_double):
        turn = ann.get_attribute("[data-testid=table]", "data-turn")
        players[str(turn)].keyboard.press("a")  # the terminal game's play key
        for page in (ann, bob):
            wait_cards_played(page, played + 1)
        assert pile(ann) == pile(bob)
    top = pile(ann).split()
    assert top[-1][0] == top[-2][0], f"expected a double on {top}"
    bob.screenshot(path=str(images / "online-table.png"), full_page=True)
    bob.keyboard.press("s")  # slap
    bob.wait_for_selector("[data-testid=log] li:has-text('Bob slaps a double')")
    ann.wait_for_selector("[data-testid=log] li:has-text('Bob slaps a double')")
    # each line is coloured by the kind of event it tells (the state's events), not by its words
    slap = ann.locator("[data-testid=log] li:has-text('Bob slaps a double')")
    assert (slap.get_attribute("data-kind"), slap.get_attribute("class")) == ("slap_won", "slap")
    played = ann.locator("[data-testid=log] li:has-text('plays')").first
    assert (played.get_attribute("data-kind"), played.get_attribute("class") or "") == ("card_played", "")
    for page in (ann, bob):
        page.wait_for_selector("[data-testid=pile][data-count='0']")
    assert pile(ann) == pile(bob) == ""
    assert ann.inner_text("[data-testid=seat-1]").startswith("Bob")


def test_a_phone_plays_by_touch(server: ServerProcess, pages: Pages, images: Path) -> None:
    code = server.new_room(seats=2, bots=["casual"], seed=5, pace="slow", turn_timeout_ms=60_000)
    phone = pages.open(f"{server.url}/r/{code}", viewport={"width": 360, "height": 740},
                       has_touch=True, is_mobile=True, device_scale_factor=2)
    join(phone, "Pat")
    phone.tap("[data-testid=start]")
    phone.wait_for_selector("[data-testid=table]:visible")
    phone.wait_for_selector("[data-testid=table][data-turn='0']")
    before = cards_played(phone)
    phone.tap("[data-testid=deck]")
    wait_cards_played(phone, before + 1)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the page is {width} px wide on a 360 px phone"
    box = phone.locator("[data-testid=pile]").bounding_box()
    assert box is not None and box["width"] >= 48 and box["height"] >= 48
    phone.screenshot(path=str(images / "online-phone.png"), full_page=True)


def test_a_spectator_sees_the_table_but_cannot_act(server: ServerProcess, pages: Pages) -> None:
    code = server.new_room(seats=2, bots=["casual"], seed=8, turn_timeout_ms=60_000)
    host = pages.open(f"{server.url}/r/{code}")
    join(host, "Ann")
    host.click("[data-testid=start]")
    host.wait_for_selector("[data-testid=table]:visible")
    watcher = pages.open(f"{server.url}/r/{code}")
    watcher.fill("[data-testid=name]", "Eve")
    watcher.click("[data-testid=join]")  # the seats are full: Eve watches
    wait_for_the_deal(watcher)
    assert watcher.locator("[data-testid=controls]").is_hidden()
    assert watcher.get_attribute("[data-testid=table]", "data-turn") == "0"
    before = cards_played(host)
    watcher.keyboard.press("a")
    watcher.keyboard.press("s")
    watcher.locator("[data-testid=pile]").click(force=True)
    host.wait_for_timeout(600)
    assert cards_played(host) == before and host.get_attribute("[data-testid=table]", "data-turn") == "0"


def test_the_end_screen_links_a_record_that_replays(server: ServerProcess, pages: Pages,
                                                    images: Path) -> None:
    code = server.new_room(seats=2, bots=["expert"], seed=12, pace="fast")
    host = pages.open(f"{server.url}/r/{code}")
    join(host, "Ann")
    host.click("[data-testid=start]")
    host.wait_for_selector("[data-testid=table]:visible")
    host.click("[data-testid=resign]")
    host.wait_for_selector("[data-testid=results]:visible")
    assert "Expert bot wins" in host.inner_text("[data-testid=winner]")
    assert host.locator("[data-testid=rematch]").is_visible()
    host.screenshot(path=str(images / "online-end.png"), full_page=True)
    record_url = host.get_attribute("[data-testid=record]", "href")
    record = host.request.get(server.url + record_url).json()
    assert Game.from_record(record).winner == 1
    replay = pages.open(server.url + host.get_attribute("[data-testid=replay-link]", "href"))
    replay.wait_for_selector("[data-testid=replay-step]:has-text('Step 1 of')")
    # the room was seeded: the replay says the game is unrated, and why (issue 46)
    replay.wait_for_selector("[data-testid=replay-rating]:has-text('Unrated: seeded room')")
    replay.click("[data-testid=replay-forward]")
    replay.wait_for_selector("[data-testid=replay-step]:has-text('Step 2 of')")
    host.click("[data-testid=rematch]")
    host.wait_for_selector("[data-testid=results]", state="hidden")
    host.wait_for_selector("[data-testid=table][data-cards-played='0']")
