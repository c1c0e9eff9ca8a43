"""How quickly a player reacted: from the moment a state was *on screen* to the key press.

A client stamps each state when it has been drawn (for the terminal: after Textual's refresh),
and a key press answers the newest state drawn before it - not the newest one received, which
may not have been seen yet. The server judges the action at the room time it sent that state
plus the reaction (docs/protocol.md, "Times"; docs/fairness.md).

>>> shown = ShownStates()
>>> shown.shown(4, at=10.000)
>>> shown.shown(5, at=10.300)
>>> shown.reaction_to(10.250)   # the press came before state 5 was on screen
(4, 250.0)
>>> shown.reaction_to(10.512)
(5, 212.0)
>>> ShownStates().reaction_to(1.0) is None
True
"""

from __future__ import annotations

MAX_REACTION_MS = 60_000.0
"""The protocol's bound on ``reaction_ms``."""


class ShownStates:
    """When each recent state version was on screen (seconds on one monotonic clock)."""

    def __init__(self, keep: int = 64) -> None:
        self.keep = keep
        self._at: dict[int, float] = {}

    def shown(self, version: int, at: float) -> None:
        """State ``version`` was on screen at ``at``; older versions beyond ``keep`` are forgotten."""
        self._at.setdefault(version, at)
        for old in [v for v in self._at if v <= version - self.keep]:
            del self._at[old]

    def clear(self) -> None:
        """Forget every version (a new connection numbers what it was shown afresh)."""
        self._at.clear()

    def reaction_to(self, pressed_at: float) -> tuple[int, float] | None:
        """``(version, reaction_ms)`` of the newest state on screen at ``pressed_at``, or
        ``None`` if none was; the reaction is rounded to 0.1 ms and kept within the protocol's
        bounds."""
        before = [(version, at) for version, at in self._at.items() if at <= pressed_at]
        if not before:
            return None
        version, at = max(before)
        reaction = min(MAX_REACTION_MS, max(0.0, (pressed_at - at) * 1000.0))
        return version, round(reaction, 1)
