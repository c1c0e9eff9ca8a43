"""Narrow error types for illegal actions. Each is a `ValueError`, so callers may catch broadly.

An action that raises leaves the game exactly as it was.
"""


class IllegalActionError(ValueError):
    """An action the rules do not allow at this moment."""


class TimeOrderError(IllegalActionError):
    """An action's time is earlier than an action already taken."""


class GameOverError(IllegalActionError):
    """The game is over; no more actions are taken."""


class NoSuchSeatError(IllegalActionError):
    """The seat number is not at this table."""


class NotYourTurnError(IllegalActionError):
    """The seat tried to play a card when it is not their turn to play."""


class NoCardsError(IllegalActionError):
    """The seat has no card to play or pay."""


class SlapNotAllowedError(IllegalActionError):
    """The seat may not slap now (out without slapping in, barred, locked out or eliminated)."""
