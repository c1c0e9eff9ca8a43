"""Narrow error types for illegal actions. Each is a `ValueError`, so callers may catch broadly.

An action that raises leaves the game exactly as it was.
"""


class IllegalActionError(ValueError):
    """An action the rules do not allow at this moment."""


class TimeOrderError(IllegalActionError):
    """An action's time is earlier than an action already taken."""


class GameOverError(IllegalActionError):
    """The game is over; no more actions are taken."""


class InvalidTimeError(IllegalActionError):
    """The time given is not a time: every action's ``at`` is an ``int`` number of ms from 0 to
    `ratscrew.engine.MAX_TIME_MS` (2**53 - 1, the largest whole number every JSON reader keeps
    exactly).

    Floats are refused even when whole (``500.0``), as are NaN, infinities, bools, strings and
    ``None``: a caller holding a float time converts it first, as the runtime `Table` does.
    """


class NoSuchSeatError(IllegalActionError):
    """The seat is not a seat number at this table: out of range, or not an ``int`` at all
    (``None``, a bool, ``1.5``, ``"1"``)."""


class NotYourTurnError(IllegalActionError):
    """The seat tried to play a card when it is not their turn to play."""


class NoCardsError(IllegalActionError):
    """The seat has no card to play or pay."""


class SlapNotAllowedError(IllegalActionError):
    """The seat may not slap now (out without slapping in, barred, locked out or eliminated)."""
