"""ratscrew: Egyptian Rat Screw on one deterministic engine, under every common house-rule set.

The public entry points:

>>> from ratscrew import Game, Ruleset
>>> game = Game.deal(Ruleset.preset("classic"), players=2, seed=1)
>>> game.turn
0
"""

from ratscrew.cards import Card, CardNotationError, Rank, Suit, format_cards, parse_cards
from ratscrew.engine import Game
from ratscrew.errors import (
    GameOverError,
    IllegalActionError,
    NoCardsError,
    NoSuchSeatError,
    NotYourTurnError,
    SlapNotAllowedError,
    TimeOrderError,
)
from ratscrew.ruleset import Ruleset, RulesetError

__all__ = [
    "Card",
    "CardNotationError",
    "Game",
    "GameOverError",
    "IllegalActionError",
    "NoCardsError",
    "NoSuchSeatError",
    "NotYourTurnError",
    "Rank",
    "Ruleset",
    "RulesetError",
    "SlapNotAllowedError",
    "Suit",
    "TimeOrderError",
    "format_cards",
    "parse_cards",
]
