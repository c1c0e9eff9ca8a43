"""Installable and offline (issue 51), in a real Chromium against a real ``ratscrew serve``:
Chromium's own installability check finds no error and the service worker controls the page;
with the server gone the installed home page opens and offers the offline table; after one
visit to ``/play`` the network goes off and a whole game against bots plays to its results at
1280×800 and 390×844, fetching nothing from anywhere; the worker's engine plays a seeded game
to the same end as this process's Python; without Pyodide's files ``/play`` says what to do.

Needs Pyodide's files in ``ratscrew/web/pyodide`` (``make pyodide``; ``make test`` does it).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_browser
from browsing import CHROMIUM, CHROMIUM_ARGS
from serving import ServerProcess
from test_browser import Pages, images, join, sync_api  # noqa: F401  (images: a fixture)
from test_browser_friends import axe_clean

from ratscrew.offline.check import seeded_game
from ratscrew.server.http.offline import PYODIDE_DIR, PYODIDE_FILES

pytestmark = pytest.mark.skipif(
    not all((PYODIDE_DIR / name).exists() for name in PYODIDE_FILES) and not os.environ.get("CI"),
    reason="Pyodide's files are not in ratscrew/web/pyodide (make pyodide)")

PLAY = "/play?rules=classic&bots=casual,casual,casual&time_limit_ms=60000"
"""The public contract's table, with the shortest time limit (a minute) to keep the test short."""
SEEDED = "rules=classic&bots=casual,casual,casual&seed=42&time_limit_ms=600000"
LOADING_MS = 180_000
"""How long Pyodide may take to start on a loaded test machine (it takes 8 s on a busy one)."""

page_server = test_browser.page_server


@pytest.fixture
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server of the test's own: the test kills it (the other tests share `page_server`)."""
    with ServerProcess(tmp_path_factory.mktemp("offline") / "ratscrew.db") as running:
        yield running


class Profiles:
    """Stands in for a browser in `Pages`: each context is a browser with a profile of its own
    on disk. Chromium refuses to call an incognito context's page installable ("in-incognito"),
    and Playwright's ``new_context`` makes incognito ones."""

    def __init__(self, playwright: Any, folder: Path) -> None:
        self.playwright = playwright
        self.folder = folder
        self.numbers = itertools.count()

    def new_context(self, **options: Any) -> Any:
        return self.playwright.chromium.launch_persistent_context(
            self.folder / f"profile-{next(self.numbers)}", executable_path=CHROMIUM,
            args=CHROMIUM_ARGS, **options)


def checked_pages(opened: Pages) -> Iterator[Pages]:
    """Yield ``opened``, then close its pages and fail on an error they logged unexpectedly."""
    yield opened
    opened.close()
    unexpected = [e for e in opened.errors if not any(x in e for x in opened.expected)]
    assert unexpected == [], "the pages logged errors"


@pytest.fixture
def pages(browser: Any) -> Iterator[Pages]:
    """Contexts of the module's Chromium: service workers, caches and storage work as in a
    profile, for everything but installability (`installable_pages`)."""
    yield from checked_pages(Pages(browser))


@pytest.fixture
def installable_pages(playwright: Any, tmp_path: Path) -> Iterator[Pages]:
    """Each context a Chromium of its own with a profile on disk (see `Profiles`)."""
    yield from checked_pages(Pages(Profiles(playwright, tmp_path)))


def controlled(page: Any) -> None:
    """Wait until the service worker controls the page (it claims the pages it activates for)."""
    page.wait_for_function("""() => navigator.serviceWorker.controller !== null""", timeout=30_000)


def open_table(page: Any) -> None:
    """Wait for the worker's table, then sit down (a returning player sits down by themselves)."""
    page.wait_for_selector("body[data-offline-ready], body[data-offline-failed]", timeout=LOADING_MS)
    assert page.evaluate("document.body.dataset.offlineFailed") is None, \
        page.locator("[data-testid=connection]").inner_text()
    if page.locator("[data-testid=join-panel]").is_visible():
        join(page, "Ann")
    page.wait_for_selector("[data-testid=table]:not([hidden])")


POLL_MS = 100
"""How often a long wait looks at the page: Playwright's default looks at every animation frame,
which keeps Chromium drawing 60 frames a second for the whole minute of a game."""
PLAYABLE_OR_OVER = """() => !document.querySelector("[data-testid=results]").hidden
  || (document.querySelector("[data-testid=status]").textContent.startsWith("Your turn")
      && !document.querySelector("[data-testid=play]").disabled)"""


def play_to_the_end(page: Any) -> None:
    """Press Play on every turn of ours until the results come (the time limit ends the game)."""
    results = page.locator("[data-testid=results]")
    while True:
        page.wait_for_function(PLAYABLE_OR_OVER, timeout=120_000, polling=POLL_MS)
        if results.is_visible():
            return
        version = page.evaluate("document.querySelector('[data-testid=deck]').dataset.cards")
        page.click("[data-testid=play]")
        page.wait_for_function(
            """(cards) => !document.querySelector("[data-testid=results]").hidden
                || document.querySelector("[data-testid=deck]").dataset.cards !== cards
                || !document.querySelector("[data-testid=status]").textContent.startsWith("Your turn")""",
            arg=version, timeout=30_000, polling=POLL_MS)


def test_the_app_is_installable_and_opens_without_its_server(server: ServerProcess,
                                                            installable_pages: Pages) -> None:
    pages = installable_pages
    page = pages.open(server.url + "/", bypass_csp=True)  # bypass: only to inject axe-core
    controlled(page)
    cdp = page.context.new_cdp_session(page)
    assert cdp.send("Page.getInstallabilityErrors") == {"installabilityErrors": []}
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [] and '"standalone"' in manifest["data"]
    axe_clean(page, "the home page with the offline table's offer")
    server.kill()  # the server is gone: the installed page still opens, and says what still plays
    pages.expected.append("Failed to load resource")  # the page's own look at /healthz, refused
    page.reload()
    page.wait_for_selector("[data-testid=server-away]", state="visible")
    assert page.locator("[data-testid=offline-link]").get_attribute("href") == "/play"
    axe_clean(page, "the home page while the server is away")


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["laptop", "phone"])
def test_after_one_visit_a_whole_game_plays_offline(page_server: ServerProcess, pages: Pages,
                                                    images: Path, size: tuple[int, int]) -> None:  # noqa: F811
    width, height = size
    # bypass_csp only to inject axe-core; the seeded test runs the worker under the real policy
    page = pages.open(page_server.url + PLAY, viewport={"width": width, "height": height},
                      is_mobile=width < 600, has_touch=width < 600, bypass_csp=True)
    requests: list[str] = []
    page.context.on("request", lambda request: requests.append(request.url))
    page.wait_for_selector("body[data-offline-kept=yes]", timeout=LOADING_MS)
    page.context.set_offline(True)
    page.reload()
    open_table(page)
    axe_clean(page, f"the offline table at {width}×{height}")
    play_to_the_end(page)
    page.wait_for_selector("#results-body tr")  # the results card of every room
    rows = page.locator("#results-body tr")
    assert rows.count() == 4
    assert page.locator("[data-testid=winner]").inner_text().strip() != ""
    assert rows.all_inner_texts()[0].startswith("Ann")
    assert page.locator("[data-testid=record]").is_hidden()  # nothing is stored offline
    page.screenshot(path=str(images / f"offline-results-{width}x{height}.png"))
    axe_clean(page, f"the offline table's results at {width}×{height}")
    elsewhere = [url for url in requests if not url.startswith((page_server.url, "data:", "blob:"))]
    assert elsewhere == [], "the offline table fetched from elsewhere"


def test_the_worker_plays_the_seeded_game_to_the_same_end_as_the_server(page_server: ServerProcess,
                                                                         pages: Pages) -> None:
    page = pages.open(page_server.url + "/play")  # the strict policy: only the worker compiles wasm
    summary = page.evaluate("""(query) => new Promise((resolve, reject) => {
        const worker = new Worker("/static/js/offline/worker.js", { type: "module" });
        worker.onmessage = (event) => {
          if (event.data.kind === "checked") resolve(event.data.summary);
          if (event.data.kind === "failed") reject(new Error(event.data.text));
        };
        worker.postMessage({ kind: "check", query });
    })""", SEEDED)
    assert summary == seeded_game(SEEDED)
    assert summary["over"] and summary["cards_played"] > 100


def test_without_pyodide_the_table_says_what_to_do(page_server: ServerProcess, pages: Pages) -> None:
    page = pages.open(page_server.url + "/", service_workers="block")
    page.context.route("**/static/pyodide/**", lambda route: route.fulfill(status=404, body="not here"))
    pages.expected.append("404")
    page.goto(page_server.url + PLAY)
    page.wait_for_selector("body[data-offline-failed]", timeout=LOADING_MS)
    assert "make pyodide" in page.locator("[data-testid=connection]").inner_text()


HEARD = """() => {
  window.__heard = [];
  new MutationObserver((changes) => {
    for (const change of changes) for (const node of change.addedNodes) {
      const region = node.parentElement?.getAttribute("aria-live");
      if (node.nodeName === "P" && region) window.__heard.push({
        text: node.textContent, region, version: node.dataset.version ?? null,
        late_ms: performance.now() - Number(node.dataset.arrivedAt), heard_at: performance.now()});
    }
  }).observe(document.documentElement, {childList: true, subtree: true});
}"""
"""Records every announcement as a screen reader gets it: its text, its region's politeness,
the state it is about and how long after that state arrived it was in the region."""

STATES = """(() => {
  window.__states = [];
  const Original = window.Worker;
  window.Worker = class extends Original {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {  // before the page's own listener
        if (event.data?.kind !== "frame") return;
        const message = JSON.parse(String(event.data.text));
        if (message.type === "state") window.__states.push({version: String(message.version),
          game: message.game, slappable: message.slappable, pile: message.observation.pile.join(" "),
          at: performance.now()});
      });
    }
  };
})();"""
"""Records every state the offline table's worker sends, as it arrives, apart from the page: its
version, what it says is slappable, its pile and the time it arrived."""


def slappable_piles(states: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first state of each slappable pile: what ``slappable`` names, on a pile not shown by
    the state before (the next states of a pile nobody has covered or taken say it again)."""
    firsts, before = [], None
    for state in states:
        pile = (state["game"], state["pile"]) if state["slappable"] is not None else None
        if pile is not None and pile != before:
            firsts.append(state)
        before = pile
    return firsts


def test_a_whole_game_read_through_the_live_regions(page_server: ServerProcess, pages: Pages,
                                                    images: Path) -> None:  # noqa: F811
    page = pages.open(page_server.url + PLAY, viewport={"width": 1280, "height": 800}, bypass_csp=True)
    page.evaluate(HEARD)
    page.evaluate("() => (document.activeElement instanceof HTMLElement) && document.activeElement.blur()")
    page.keyboard.press("Tab")  # the switch is the first thing a keyboard or screen reader reaches
    assert page.evaluate("document.activeElement.dataset.testid") == "screen-reader"
    page.keyboard.press("Enter")
    assert page.get_attribute("[data-testid=screen-reader]", "aria-pressed") == "true"
    open_table(page)  # the setting is remembered: the page opened again reads on
    page.add_init_script(STATES)
    page.reload()
    page.evaluate(HEARD)
    open_table(page)
    assert page.get_attribute("[data-testid=screen-reader]", "aria-pressed") == "true"
    axe_clean(page, "the table in screen reader mode")
    for key, answer in (("p", "ile"), ("c", "(you)"), ("w", "turn"), ("t", "left"), ("l", "")):
        page.keyboard.press(key)
        page.wait_for_function("""([answer]) => window.__heard.some((h) => h.region === "assertive"
            && h.version === null && h.text.includes(answer))""", arg=[answer])
    play_to_the_end(page)
    page.wait_for_function("() => window.__heard.some((h) => h.text.startsWith('Game over'))")
    heard: list[dict[str, Any]] = page.evaluate("window.__heard")
    log = [line.strip() for line in page.locator("[data-testid=log] li").all_inner_texts()]
    said = {h["text"] for h in heard}
    assert [line for line in log if line not in said] == [], "lines of the log never announced"
    about_states = [h for h in heard if h["version"] is not None]
    late = sorted(h["late_ms"] for h in about_states)
    print(f"\n{len(about_states)} announcements about states: median {late[len(late) // 2]:.1f} ms, "
          f"max {late[-1]:.1f} ms after the state arrived")
    assert late[-1] < 300
    assert any(h["region"] == "assertive" and h["text"].startswith("Your turn") for h in heard)
    # every slappable pile said at once, in the room's words for its pattern
    states: list[dict[str, Any]] = page.evaluate("window.__states")
    slappable = slappable_piles(states)
    assert slappable, "no slappable pile in a whole game: nothing was checked"
    delays, missed = [], []
    for state in slappable:
        text = f"{state['slappable'].replace('_', ' ')}: slap!"
        said_slap = [h for h in heard if h["version"] == state["version"] and h["text"] == text]
        if len(said_slap) != 1 or said_slap[0]["region"] != "assertive":
            missed.append((state["version"], text, said_slap))
        else:
            delays.append(said_slap[0]["heard_at"] - state["at"])
    assert missed == [], "slappable piles not announced once, assertively"
    slaps_said = [h for h in heard if h["text"].endswith(": slap!")]
    assert len(slaps_said) == len(slappable), "a slap announced with no new slappable pile"
    delays.sort()
    print(f"{len(delays)} slappable piles announced: median {delays[len(delays) // 2]:.1f} ms, "
          f"max {delays[-1]:.1f} ms after their state arrived "
          f"({', '.join(sorted({s['slappable'] for s in slappable}))})")
    assert delays[-1] < 300
    kinds = {h["text"] for h in heard if h["region"] == "polite"}
    assert any("plays" in text for text in kinds) and any("takes the pile" in text for text in kinds)
    page.screenshot(path=str(images / "offline-screen-reader-1280x800.png"))


def test_one_thumb_on_a_phone(page_server: ServerProcess, pages: Pages) -> None:
    """Play and Slap in the bottom third, the pile itself a slap target, a haptics setting."""
    page = pages.open(page_server.url + PLAY, viewport={"width": 390, "height": 844}, is_mobile=True,
                      has_touch=True)
    open_table(page)
    for control in ("play", "slap"):
        box = page.locator(f"[data-testid={control}]").bounding_box()
        assert box is not None and box["y"] >= 844 * 2 / 3, f"{control} is not in the bottom third: {box}"
        assert box["height"] >= 44 and box["width"] >= 44
    page.wait_for_function("() => document.querySelector('[data-testid=status]').textContent"
                           ".startsWith('Your turn')")
    page.tap("[data-testid=pile]")  # a slap on the deal's empty pile: a misslap, said as one
    page.wait_for_function("""() => [...document.querySelectorAll("[data-testid=log] li")]
        .some((li) => li.textContent.includes("slapped an empty pile"))""")
