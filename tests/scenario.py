"""Helpers that let scenario tests read like the rules: deals in card notation, a string of
seats that play in turn, and picking events out of what an action returned.

>>> from ratscrew.ruleset import Ruleset
>>> game = Game(Ruleset.preset("classic"), hands=["7H 2C", "7S 3D"], leader=0)
>>> play_seats(game, "01")
200
>>> kinds(game.slap(0, at=300))
['slap_won', 'pile_won']
"""

from __future__ import annotations

from typing import TypeVar

from ratscrew.cards import Card, parse_cards
from ratscrew.engine import Game
from ratscrew.events import Event

E = TypeVar("E", bound=Event)


def kinds(events: list[Event]) -> list[str]:
    """The kinds of the events, in order."""
    return [event.kind for event in events]


def the(kind: type[E], events: list[Event]) -> E:
    """The one event of this type among ``events`` (failing the test if there is not one)."""
    found = [event for event in events if isinstance(event, kind)]
    assert len(found) == 1, f"expected one {kind.__name__} in {kinds(events)}"
    return found[0]


def all_of(kind: type[E], events: list[Event]) -> list[E]:
    """Every event of this type among ``events``."""
    return [event for event in events if isinstance(event, kind)]


def cards(text: str) -> list[Card]:
    """Cards from notation, in the order written."""
    return parse_cards(text)


def sorted_notation(pile: list[Card]) -> list[str]:
    """Cards as sorted notation, to compare piles whose order does not matter."""
    return sorted(str(card) for card in pile)


def play_seats(game: Game, seats: str, start: int = 0, step: int = 100) -> int:
    """Each seat digit in ``seats`` plays its top card, ``step`` ms apart; returns the next time."""
    at = start
    for seat in seats:
        game.play(int(seat), at=at)
        at += step
    return at


def slap_and_settle(game: Game, seat: int, at: int) -> list[Event]:
    """A lone slap at ``at``, then the tie window closing: every event that followed."""
    return game.slap(seat, at=at) + game.advance(at=at + game.rules.tie_window_ms)
