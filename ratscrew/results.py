"""How a game finished for each seat: the finishing order that ratings are built on.

ERS is a free-for-all in which players go out one by one; the order in which they went out is
the game's result. The winner is first, the seats still holding cards when the game ended
(a triple that wins at once, a game that ends with no winner) share the next place, and the
seats that went out follow, the last one out best. A seat that slapped back in and went out
again counts from the last time it went out.

>>> from ratscrew.events import PlayerOut
>>> order = FinishingOrder()
>>> order.events([PlayerOut(at=10, seat=2, reason="no_cards", may_slap_in=False),
...               PlayerOut(at=20, seat=0, reason="no_cards", may_slap_in=False),
...               PlayerOut(at=30, seat=1, reason="no_cards", may_slap_in=False)])
>>> order.places(players=4, winner=3, still_in=[3])
[3, 2, 4, 1]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ratscrew.engine import Game
from ratscrew.events import Event, PlayerOut, SlappedIn

STILL_IN = frozenset({"in", "locked"})
"""The engine's seat statuses of a seat that still holds cards (see `Game.status`)."""


class FinishingOrder:
    """Follows a game's events and tells each seat's finishing place at its end."""

    def __init__(self) -> None:
        self._gone: list[int] = []
        """The seats that are out, in the order they went out (the last time)."""

    def events(self, events: Iterable[Event]) -> None:
        """Note who went out (or came back in) in these events."""
        for event in events:
            if isinstance(event, PlayerOut) and event.seat is not None:
                if event.seat in self._gone:
                    self._gone.remove(event.seat)
                self._gone.append(event.seat)
            elif isinstance(event, SlappedIn) and event.seat is not None and event.seat in self._gone:
                self._gone.remove(event.seat)

    def places(self, players: int, winner: int | None, still_in: Iterable[int]) -> list[int]:
        """Each seat's place, 1 best; seats that share a place get the same number (``1 2 2 4``)."""
        return finishing_places(players, winner, still_in, self._gone)

    def places_of(self, game: Game) -> list[int]:
        """The places at the end of ``game`` (whose events this order has followed). A seat that
        is out but that no event put out lost its last cards in the action that ended the game
        (the engine ends it at once, announcing no one out): it went out after everyone the
        events named, so it finishes ahead of them."""
        still_in = [seat for seat in range(game.players) if game.status(seat) in STILL_IN]
        out_at_the_end = [seat for seat in range(game.players)
                          if seat not in still_in and seat != game.winner and seat not in self._gone]
        return finishing_places(game.players, game.winner, still_in, [*self._gone, *out_at_the_end])


def finishing_places(players: int, winner: int | None, still_in: Iterable[int],
                     went_out: Sequence[int]) -> list[int]:
    """Places from the winner, the seats still in and the seats in the order they went out.

    >>> finishing_places(3, None, still_in=[0, 2], went_out=[1])
    [1, 3, 1]
    >>> finishing_places(4, 1, still_in=[1, 3], went_out=[0, 2])
    [4, 1, 3, 2]
    """
    places = [0] * players
    next_place = 1
    if winner is not None:
        places[winner] = 1
        next_place = 2
    tied = [seat for seat in still_in if seat != winner]
    for seat in tied:
        places[seat] = next_place
    next_place += len(tied)
    for seat in reversed(went_out):
        if seat != winner and seat not in tied:
            places[seat] = next_place
            next_place += 1
    for seat in range(players):  # a seat the events never mentioned: last, together
        if places[seat] == 0:
            places[seat] = next_place
    return places
