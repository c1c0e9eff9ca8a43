"""The browser every browser test drives: Debian's Chromium under Playwright for Python, started
once per test module (fixtures imported by conftest.py). A test gets fresh browser contexts (their
own storage, cookies and player keys) from the `browser`, so sharing it shares nothing a test can
see.

Not once per session: Playwright's synchronous API leaves its event loop set as the thread's
running loop while it is started, so every later ``asyncio.run`` in that pytest process (the
async tests of other modules) would fail with "cannot be called from a running event loop".
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = os.environ.get("RATSCREW_CHROMIUM", "/usr/bin/chromium")
"""The Chromium the tests drive (Playwright's own download does not work on the test machines)."""
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu"]


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    """Playwright's driver, once per module (`launch_persistent_context` needs it)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as running:
        yield running


@pytest.fixture(scope="module")
def browser(playwright: Any) -> Iterator[Any]:
    """Chromium, once per module; each test opens contexts of its own in it."""
    launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield launched
    launched.close()
