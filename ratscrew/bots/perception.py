"""What a bot perceives on the pile: near patterns that tempt a flinch.

Whether a pile *is* slappable is never decided here: that is the engine's
(:meth:`ratscrew.engine.Game.slap_pattern`, :func:`ratscrew.patterns.find_slap`).

>>> from ratscrew.cards import parse_cards
>>> is_near_pattern(parse_cards("7H 8C"))
True
>>> is_near_pattern(parse_cards("2H 9C"))
False
"""

from __future__ import annotations

from collections.abc import Sequence

from ratscrew.cards import Card


def is_near_pattern(live: Sequence[Card]) -> bool:
    """The top card is one rank away from the card below it or from the third card (what a
    hurried eye takes for a double or a sandwich). Jokers are never near anything."""
    if len(live) < 2 or live[-1].is_joker:
        return False
    top = live[-1].rank
    for below in (live[-2], live[-3] if len(live) >= 3 else None):
        if below is not None and not below.is_joker and abs(below.rank - top) == 1:
            return True
    return False
