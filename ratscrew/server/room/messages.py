"""A room's ``room`` message: public (`public_summary`) and per member (`summary`), sent to
everyone whole or, to those for whom only the people changed, as a small ``lobby_change``
(`broadcast_room`, issue 47 item 3), and again after a pong when a seat's ping or the settling
window moved enough to notice (`maybe_update_room`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ratscrew.bots.spec import is_agent_spec
from ratscrew.protocol.codec import encode_message
from ratscrew.server.room.rules import rules_entry
from ratscrew.server.ws.link import noticeably_changed

if TYPE_CHECKING:
    from ratscrew.protocol.server_messages import ExpectedLength, RoomMessage
    from ratscrew.server.lab.jobs import LabService
    from ratscrew.server.room.driver import RoomClock
    from ratscrew.server.room.lobby import Lobby, RoomSettings, Seat
    from ratscrew.server.room.membership import Member
    from ratscrew.server.room.publisher import Publisher


class AnnouncingRoom(Protocol):
    """What the ``room`` message asks of its room (`ratscrew.server.room.room.Room`)."""

    code: str
    settings: RoomSettings
    lobby: Lobby
    clock: RoomClock
    publisher: Publisher
    games_played: int
    game_id: int | None
    expected_lengths: LabService | None
    estimates_for: str | None
    shown_links: list[int | None]
    """The seats' pings and the settling window the last ``room`` message showed."""

    @property
    def seats(self) -> list[Seat]: ...
    @property
    def settle_ms(self) -> float: ...
    def broadcast_room(self) -> None: ...


def summary(room: AnnouncingRoom, member: Member | None = None) -> RoomMessage:
    """The ``room`` message (see docs/protocol.md); ``you`` only with a member."""
    message = public_summary(room)
    if member is not None:
        own = room.lobby.for_member(message, member)
        message = {**message, "seats": own["seats"], "waiting": own["waiting"], "you": own["you"]}
    return message


def public_summary(room: AnnouncingRoom) -> RoomMessage:
    """The ``room`` message as everyone may see it."""
    rules = room.settings.rules
    people = room.lobby.people()
    return {
        "type": "room", "code": room.code, "phase": room.lobby.phase,
        "rules": rules_entry(rules),  # made once per ruleset (roomrules.py)
        "settings": {"seats": len(room.seats), "pace": room.settings.pace,
                     "turn_timeout_ms": room.settings.turn_timeout_ms,
                     "judging": room.settings.judging, "seeded": room.settings.seed is not None,
                     "time_limit_ms": room.settings.time_limit_ms},
        "seats": room.lobby.seat_entries(),
        "spectators": people["spectators"], "waiting": people["waiting"],
        "open_seats": people["open_seats"],
        "games_played": room.games_played, "game_id": room.game_id,
        "settle_ms": round(room.settle_ms),
        "expected_length": expected_length(room),
    }


def expected_length(room: AnnouncingRoom) -> ExpectedLength | None:
    """The median and 90th percentile minutes of a game under the room's rules, seats and
    bots (simulated by the lab's worker), or ``None`` while that is computed."""
    if room.expected_lengths is None:
        return None
    known = room.expected_lengths.expected_length(
        room.settings.rules, [seat.bot if seat.kind == "bot" and not is_agent_spec(seat.bot or "")
                              else None for seat in room.seats],  # an agent: as a casual bot
        on_ready=room.broadcast_room, address=room.estimates_for)
    return None if known is None else {"median_minutes": known["median_minutes"],
                                       "p90_minutes": known["p90_minutes"]}


def broadcast_room(room: AnnouncingRoom) -> None:
    """The room to everyone: a whole ``room`` message, or to those for whom only the people
    changed a small ``lobby_change`` (`Lobby.room_messages`, issue 47 item 3)."""
    public = public_summary(room)
    room.shown_links = link_figures(room)
    shared = {key: value for key, value in public.items() if key not in ("seats", "waiting")}
    whole, changed = room.lobby.room_messages(public, room.clock.wall() * 1000.0)
    if whole:  # (the shared part is encoded only for someone)
        room.publisher.room(shared, whole)
    encoded: dict[int, str] = {}  # one encoding of the change everyone else gets
    for conn, change in changed:
        if id(change) not in encoded:
            encoded[id(change)] = encode_message(change)
        conn.send_encoded(encoded[id(change)])


def maybe_update_room(room: AnnouncingRoom) -> None:
    """After a pong: a ``room`` message, if the last went out long enough ago and a seat's
    ping or the settling window has since moved enough to notice (`link.noticeably_changed`).
    A steady link costs its room no message (in a 500-room load profile, ``room`` messages
    sent after pongs took 5.8% of the server's samples, most showing the same figures give
    or take a millisecond). Also the people's changes held back by `PEOPLE_GAP_MS`, once it
    is over."""
    if room.lobby.shown.due(room.clock.wall() * 1000.0) or (  # people told of together
            room.publisher.room_update_due()
            and noticeably_changed(room.shown_links, link_figures(room))):
        broadcast_room(room)


def link_figures(room: AnnouncingRoom) -> list[int | None]:
    """The seats' pings and the settling window as a ``room`` message shows them now."""
    return [*(seat.shown_ping for seat in room.seats), round(room.settle_ms)]
