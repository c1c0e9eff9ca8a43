"""How quickly a player reacted: from the moment a state was *on screen* to the key press.

A client stamps each state when it has been drawn (for the terminal: after Textual's refresh),
and a key press answers the newest state drawn at least a human reaction (`HUMAN_REACTION_MS`)
before it - not the newest one received, which may not have been seen yet, nor one drawn so
shortly before the press that nobody could have reacted to it: a press 40 ms after someone
else took the pile answers the pile as it was, not the pile taken (issue 46: stamped against the
newer state it read as a 40 ms reaction). The server judges the action at the room time it sent
that state plus the reaction (docs/protocol.md, "Times"; docs/fairness.md, "What counts as a
reaction").

>>> shown = ShownStates()
>>> shown.shown(4, at=10.000)
>>> shown.shown(5, at=10.300)
>>> shown.reaction_to(10.250)   # the press came before state 5 was on screen
(4, 250.0)
>>> shown.reaction_to(10.340)   # 40 ms after state 5: it still answers state 4
(4, 340.0)
>>> shown.reaction_to(10.512)
(5, 212.0)
>>> ShownStates().reaction_to(1.0) is None
True
"""

from __future__ import annotations

from ratscrew.bots.profile import ANTICIPATION_FLOOR_MS

HUMAN_REACTION_MS = float(ANTICIPATION_FLOOR_MS)
"""Nobody reacts to a state sooner than this after it is on screen: a press that soon after a
change answers the state before it."""
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
        """``(version, reaction_ms)`` of the newest state on screen at least `HUMAN_REACTION_MS`
        before ``pressed_at`` (the one the person was reacting to), else of the newest on screen
        at ``pressed_at``, or ``None`` if none was; the reaction is rounded to 0.1 ms and kept
        within the protocol's bounds."""
        before = [(version, at) for version, at in self._at.items() if at <= pressed_at]
        if not before:
            return None
        seen = [(version, at) for version, at in before
                if at <= pressed_at - HUMAN_REACTION_MS / 1000.0]
        version, at = max(seen or before)
        reaction = min(MAX_REACTION_MS, max(0.0, (pressed_at - at) * 1000.0))
        return version, round(reaction, 1)
