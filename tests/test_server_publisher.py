"""The publisher encodes one view of the table per step and gives each seat its own number in
it: the text a seat is sent is exactly its own observation encoded."""

from __future__ import annotations

import pytest

from ratscrew.engine import Game
from ratscrew.protocol.codec import encode_message
from ratscrew.ruleset import Ruleset
from ratscrew.server.room.publisher import seat_view


def test_each_seat_is_sent_its_own_observation_made_from_the_spectators_view() -> None:
    game = Game(Ruleset.preset("classic"), hands=["7H 2C KD", "7S 3D", "QC 4H"], leader=0)
    game.play(0, at=0)
    game.play(1, at=450)  # a double on the pile: every seat may slap
    spectators = encode_message({"observation": game.observe(None)})
    for seat in (None, 0, 1, 2):
        assert seat_view(spectators, seat) == encode_message({"observation": game.observe(seat)})


def test_a_text_that_is_not_a_spectators_view_is_refused() -> None:
    game = Game.deal(Ruleset.preset("classic"), players=2, seed=1)
    seats_own = encode_message({"observation": game.observe(0)})
    with pytest.raises(ValueError, match="not an encoded spectators' view"):
        seat_view(seats_own, 1)
