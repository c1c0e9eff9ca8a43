"""What the offline table (``/play``, issue 51) costs a player: the bytes a first visit downloads
and how long the table takes to open, on a first visit, on a second (from the service worker's
cache) and with the network off. Prints the figures docs/online.md quotes.

    .venv/bin/python benchmarks/offline_first_visit.py [--runs 3]

Starts ``ratscrew serve`` on a free port and a fresh Chromium profile per run (Debian's
Chromium at /usr/bin/chromium, or RATSCREW_CHROMIUM). "Opens" is from the page's request to
the worker's room being ready to be joined (``body[data-offline-ready]``); the page itself
appears before that, with the progress in its connection line.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("RATSCREW_CHROMIUM", "/usr/bin/chromium")
PLAY = "/play?rules=classic&bots=casual,casual,casual&time_limit_ms=600000"


def start(database: Path) -> tuple[subprocess.Popen[str], str]:
    """``ratscrew serve`` on a free port, and its address."""
    command = [sys.executable, "-m", "ratscrew", "serve", "--port", "0", "--db", str(database)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if select.select([process.stdout], [], [], 0.5)[0]:
            found = re.search(r"open (http://127\.0\.0\.1:\d+)/", process.stdout.readline())
            if found:
                return process, found.group(1)
    process.kill()
    raise SystemExit("the server did not start")


def open_ms(page: Any, url: str) -> float:
    """Milliseconds from asking for ``url`` to the offline room being ready."""
    began = time.monotonic()
    page.goto(url)
    page.wait_for_selector("body[data-offline-ready]", timeout=300_000)
    return (time.monotonic() - began) * 1000.0


def one_run(playwright: Any, base: str, profile: Path) -> dict[str, float]:
    context = playwright.chromium.launch_persistent_context(
        profile, executable_path=CHROMIUM, args=["--no-sandbox", "--headless", "--disable-gpu"])
    page = context.new_page()
    sizes: dict[str, int] = {}

    def finished(request: Any) -> None:
        with contextlib.suppress(Exception):  # a request the page abandoned has no sizes
            sizes[request.url] = sizes.get(request.url, 0) + request.sizes()["responseBodySize"]

    context.on("requestfinished", finished)
    first = open_ms(page, base + PLAY)
    page.wait_for_selector("body[data-offline-kept=yes]", timeout=300_000)
    downloaded = sum(sizes.values())  # what the page and its worker fetched
    cached = page.evaluate("""async () => {
        let total = 0;
        for (const name of await caches.keys()) {
          const cache = await caches.open(name);
          for (const request of await cache.keys()) total += (await (await cache.match(request)).blob()).size;
        }
        return total;
    }""")
    second = open_ms(page, base + PLAY)
    context.set_offline(True)
    offline = open_ms(page, base + PLAY)
    context.close()
    return {"first_visit_mb": downloaded / 1e6, "cached_mb": cached / 1e6, "first_open_ms": first,
            "second_open_ms": second, "offline_open_ms": offline}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh profiles to measure (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        process, base = start(Path(folder) / "bench.db")
        try:
            with sync_playwright() as playwright:
                runs = [one_run(playwright, base, Path(folder) / f"profile-{n}") for n in range(args.runs)]
        finally:
            process.kill()
            process.wait()
    print(f"offline table {PLAY}, {args.runs} fresh profiles, median (min-max):")
    for key in runs[0]:
        values = [run[key] for run in runs]
        unit = "MB" if key.endswith("_mb") else "ms"
        print(f"  {key:18} {statistics.median(values):9.1f} {unit}  ({min(values):.1f}-{max(values):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
