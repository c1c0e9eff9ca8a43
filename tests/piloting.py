"""Waiting on a Textual app driven by its pilot, shared by the terminal tests.

A pilot's ``pause()`` lets one round of messages run; on a loaded machine a screen change can
take more than one round, so a test waits for the condition it expects, with a deadline.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.pilot import Pilot


async def until(pilot: Pilot[Any], condition: Callable[[], bool], what: str, timeout: float = 15.0) -> None:
    """Let the app run until ``condition`` holds; fail saying ``what`` was awaited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def screen_text(app: App[Any]) -> str:
    """What the terminal shows now, as plain text, one line per row (dialogs over the table)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())
