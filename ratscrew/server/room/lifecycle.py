"""A room's lifecycle hooks: what other parts of the server hear of a room's people and its end.

A room (`ratscrew.server.room.room.Room`) tells each of its :class:`RoomHooks` when

- a token is **authenticated** (a ``join`` with a token this room gave out and did not take back),
- a connection **joins** (``join`` or ``watch`` answered by ``welcome``, or kept through a
  reload from the store),
- a connection **leaves** (closed, or replaced by a newer one with the same token),
- the room is **disposed** of (closed for good: `ratscrew.server.ops.expiry`).

Each hook gets a :class:`Presence`: the room's code, who, how many connections the room has
after the change, and the seat the person plays in a game being played. The parts that listen
(the idle-room sweep of `ratscrew.server.ops.expiry`, the absence watch of
`ratscrew.server.room.absence`) keep their own state from these, and never reach into the room.
A hook must not raise (it runs inside the room's handling of a message), but for `on_auth`,
which may refuse a token by raising a `ratscrew.protocol.codec.ProtocolError`: it is asked
before the join changes anything (`ratscrew.server.room.admission`), so the refusal is the
join's answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ratscrew.server.room.membership import Member
    from ratscrew.server.room.publisher import Connection


@dataclass(frozen=True)
class Presence:
    """One connection arriving in or leaving a room."""

    code: str
    """The room's code."""
    conn: Connection
    member: Member
    present: int
    """How many connections (joined or watching) the room has after this change."""
    seat_in_game: int | None
    """The seat this person plays in the game being played (``None``: no game, or no seat)."""
    at: float
    """When, in wall-clock seconds (the room's wall, ``time.monotonic`` by default)."""


class RoomHooks:
    """Override the hooks you need; each does nothing by default (see the module docstring)."""

    def on_auth(self, code: str, token_hash: str) -> None:
        """A token of room ``code`` (its hash) is about to be accepted; raise a `ProtocolError`
        to refuse the join (nothing changed yet)."""

    def on_join(self, presence: Presence) -> None:
        """A connection joined or watches."""

    def on_leave(self, presence: Presence) -> None:
        """A connection that had joined or watched is gone."""

    def on_dispose(self, code: str) -> None:
        """Room ``code`` is closed for good; forget it."""
