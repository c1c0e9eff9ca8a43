"""Who belongs to a room: its tokens, the host, the people it removed, and who each connection is.

A person who joins a room is given a token (``secrets.token_urlsafe``); the room keeps only its
SHA-256 (:func:`hash_token`), compares hashes in constant time, and sends the token to its owner
alone. The first token issued is the host's. A token the host kicked no longer counts here.
Authentication is :meth:`Membership.authenticate`, and :meth:`Membership.arrival` says what a
``join`` is: with a token, its holder coming back (to their seat, or to the waiting list); without
one, a new person (or, from a connection that stood up to watch, the same person sitting down
again).

Seats and the waiting list are the lobby's (`ratscrew.server.room.lobby.Lobby`); what a member may do
when is the dispatch table's (`ratscrew.server.room.dispatch`). Nothing here sends anything.

>>> members = Membership()
>>> token, token_hash = members.issue("Ann", player_id=None)
>>> members.is_host(token_hash), members.authenticate(token, seats=[]) == token_hash
(True, True)
>>> members.kick(token_hash)
>>> members.authenticate(token, seats=[])
Traceback (most recent call last):
...
ratscrew.protocol.codec.ProtocolError: the host removed this player from the room
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar

from ratscrew.protocol.codec import ProtocolError

if TYPE_CHECKING:
    from ratscrew.server.room.publisher import Connection


def hash_token(token: str) -> str:
    """What the server keeps of a token: its SHA-256, so a stolen database holds no tokens."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A fresh token (24 random bytes, URL-safe: 32 characters)."""
    return secrets.token_urlsafe(24)


@dataclass
class Member:
    """Who a connection is: a seat (or ``None``), and the token hash it holds (``None`` for
    someone who only watches)."""

    seat: int | None
    token_hash: str | None
    name: str | None
    player_id: str | None = None
    """The public id of the key this person joined with (``None``: a guest; issue 17)."""


Arrival = Literal["new", "returning", "sitting_down"]
"""What a ``join`` is: a new person, a token's holder coming back, or someone who stood up to
watch sitting down again (with the token their connection holds)."""


class HoldsToken(Protocol):
    """A seat, as far as tokens go."""

    @property
    def token_hash(self) -> str | None: ...


SeatT = TypeVar("SeatT", bound=HoldsToken)


class Membership:
    """One room's tokens, host, kicks and connections (see the module docstring)."""

    def __init__(self, *, host_hash: str | None = None, known: dict[str, str] | None = None,
                 kicked: Iterable[str] = (), player_ids: dict[str, str] | None = None) -> None:
        self.host_hash = host_hash
        self.known: dict[str, str] = dict(known or {})
        """Every token given out in this room (hash) and the name its holder chose."""
        self.kicked: set[str] = set(kicked)
        """The token hashes the host removed: they no longer count here."""
        self.player_ids: dict[str, str] = dict(player_ids or {})
        """Token hash -> public id of the keyed people who joined (issue 17)."""
        self.connections: dict[Connection, Member] = {}
        """Every connection that joined or watches, and who it is."""
        self.hostless = False
        """A room with no host (a matched room: `ratscrew.server.room.admission`): no token
        issued is the host's."""

    # ------------------------------------------------------------------ tokens

    def is_host(self, token_hash: str | None) -> bool:
        """Whether ``token_hash`` is the host's."""
        return (token_hash is not None and self.host_hash is not None
                and hmac.compare_digest(token_hash, self.host_hash))

    @staticmethod
    def seat_of(seats: Iterable[SeatT], token_hash: str) -> SeatT | None:
        """The seat of ``seats`` a token holds, compared in constant time with every seat's."""
        found = None
        for seat in seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, token_hash):
                found = seat
        return found

    def knows(self, token_hash: str, seats: Iterable[HoldsToken]) -> bool:
        """Whether the token was given out in this room (to someone seated or not)."""
        return self.seat_of(seats, token_hash) is not None or any(
            hmac.compare_digest(token_hash, known) for known in self.known)

    def authenticate(self, token: str, seats: Iterable[HoldsToken]) -> str:
        """The hash of ``token``, a token this room gave out and did not take back; otherwise a
        ``bad_token`` refusal."""
        token_hash = hash_token(token)
        if token_hash in self.kicked:
            raise ProtocolError("bad_token", "the host removed this player from the room")
        if not self.knows(token_hash, seats):
            raise ProtocolError("bad_token", "that token is not from this room; join without it")
        return token_hash

    def issue(self, name: str, player_id: str | None) -> tuple[str, str]:
        """A new person called ``name``: their token and its hash (the first is the host's,
        unless the room is `hostless`)."""
        token = new_token()
        token_hash = hash_token(token)
        if self.host_hash is None and not self.hostless:
            self.host_hash = token_hash
        self.known[token_hash] = name
        self.note_player(token_hash, player_id)
        return token, token_hash

    def note_player(self, token_hash: str, player_id: str | None) -> None:
        """The holder of this token plays as ``player_id`` (a join with a player key)."""
        if player_id is not None:
            self.player_ids[token_hash] = player_id

    def kick(self, token_hash: str) -> None:
        """The host removes the holder of ``token_hash``: the token no longer counts here, and
        a connection holding it only watches from now on."""
        self.kicked.add(token_hash)
        for conn, member in self.connections.items():
            if member.token_hash is not None and hmac.compare_digest(member.token_hash, token_hash):
                self.connections[conn] = Member(None, None, None)

    # ------------------------------------------------------------------ joining and watching

    def arrival(self, conn: Connection, token: str | None, seats: Iterable[HoldsToken], *,
                watching: bool) -> tuple[Arrival, str | None]:
        """What a ``join`` from ``conn`` with ``token`` is, and the token hash it comes with
        (``None`` for a new person: `issue` gives one once the room took them). ``watching``:
        whether ``conn`` only watches now (or has not joined); a player or someone waiting
        cannot join again. A refusal changes nothing."""
        current = self.connections.get(conn)
        if current is not None and not watching:
            raise ProtocolError("wrong_phase", "this connection has already joined")
        if token is not None:
            return "returning", self.authenticate(token, seats)
        if current is not None and current.token_hash is not None:
            return "sitting_down", current.token_hash
        return "new", None

    def watcher(self, conn: Connection) -> Member:
        """Who ``conn`` is once it watches (it must not have joined or watched yet)."""
        if conn in self.connections:
            raise ProtocolError("wrong_phase", "this connection has already joined")
        return Member(None, None, None)

    # ------------------------------------------------------------------ connections

    def admit(self, conn: Connection, member: Member) -> None:
        """``conn`` is ``member`` from now on."""
        self.connections[conn] = member

    def release(self, conn: Connection) -> Member | None:
        """``conn`` went away; who it was, if it had joined or watched."""
        return self.connections.pop(conn, None)

    def holder(self, token_hash: str) -> Connection | None:
        """The connection holding ``token_hash``, if one does."""
        return next((conn for conn, member in self.connections.items()
                     if member.token_hash == token_hash), None)
