"""The words of a room's settings that both directions of the protocol use.

A client sends them in ``configure`` and ``POST /api/rooms``; the server sends them back in the
``room`` message's ``settings``. They live here, below both message modules, so that neither
imports the other.
"""

from __future__ import annotations

from typing import Literal

Pace = Literal["slow", "normal", "fast"]
"""How fast a room's bots play cards (see ``PACE_FACTORS``)."""
Judging = Literal["fair", "first-packet"]
"""How a room orders slaps: by reported reaction (``fair``) or by arrival (``first-packet``)."""
