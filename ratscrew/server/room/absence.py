"""People who leave a game: how long each has been gone, when a stand-in bot takes their seat,
when a game nobody comes back to is abandoned, and who played each seat's actions.

A person whose seat has no connection for ``away_after_s`` (2 minutes by default) has their seat
played by a stand-in bot (:data:`STAND_IN_BOT`, the server's ordinary bot agent) until they come
back; a game whose people have all been gone for ``abandon_after_s`` (5 minutes) ends as
abandoned: no winner, unrated. The clock of someone gone starts when their connection closes,
or when the game starts (or is resumed after a restart) without them, so a room reloaded from
the store whose people never return does not play on forever.

:class:`AbsenceWatch` only keeps the times and says what is due; it hears of people leaving and
coming back through the room's lifecycle hooks (`ratscrew.server.room.lifecycle`), and the room swaps
the agents, tells the table and ends the game. :class:`SeatPlay` counts, per seat, the game's
actions and those a stand-in bot or a turn time-out made for a person (the ``seat_actions`` of a
game's record).

>>> watch = AbsenceWatch(AbsenceTimes(away_after_s=120, abandon_after_s=300))
>>> watch.begin(people=[0, 1], present=[0], now=1000.0)
>>> watch.next_at()
1120.0
>>> watch.due(1120.0)
([1], False)
>>> watch.stand_ins
{1}
>>> watch.left(0, now=1200.0); watch.due(1500.0)
([0], True)
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ratscrew.runtime import SUBMITTED, Intent
from ratscrew.server.room.agents import RemoteSeat, Shown
from ratscrew.server.room.lifecycle import Presence, RoomHooks

if TYPE_CHECKING:
    from ratscrew.engine import Game
    from ratscrew.protocol.server_messages import NoteKind
    from ratscrew.runtime import Table
    from ratscrew.server.room.driver import RoomClock
    from ratscrew.server.room.lobby import RoomSettings, Seat

log = logging.getLogger("ratscrew.server")

STAND_IN_BOT = "casual"
"""The bot level that plays for a person who is away (docs/bots.md describes the levels)."""
AWAY_AFTER_S = 120.0
"""How long a seated person may be without a connection before a bot plays for them."""
ABANDON_AFTER_S = 300.0
"""How long a game's people may all be gone before the game ends as abandoned."""


@dataclass(frozen=True)
class AbsenceTimes:
    """The two durations (seconds), from ``ratscrew serve --away-after-s / --abandon-after-s``."""

    away_after_s: float = AWAY_AFTER_S
    abandon_after_s: float = ABANDON_AFTER_S


class AbsenceWatch(RoomHooks):
    """Who of one game's people is gone, since when (wall-clock seconds), and for whom a stand-in
    bot plays (see the module docstring)."""

    def __init__(self, times: AbsenceTimes) -> None:
        self.times = times
        self.people: set[int] = set()
        """The seats of the game's people (not its bots)."""
        self.gone_since: dict[int, float] = {}
        self.stand_ins: set[int] = set()
        """The seats a stand-in bot plays now."""

    def begin(self, people: Iterable[int], present: Iterable[int], now: float) -> None:
        """A game starts (or resumes): the people not ``present`` are gone from ``now`` on."""
        self.people = set(people)
        here = set(present)
        self.gone_since = {seat: now for seat in self.people - here}
        self.stand_ins = set()

    def left(self, seat: int, now: float) -> None:
        """The person in ``seat`` lost their connection at ``now``."""
        if seat in self.people:
            self.gone_since.setdefault(seat, now)

    def back(self, seat: int) -> bool:
        """The person in ``seat`` is connected again; whether a stand-in had their seat (it
        gives it back)."""
        self.gone_since.pop(seat, None)
        if seat in self.stand_ins:
            self.stand_ins.discard(seat)
            return True
        return False

    def on_leave(self, presence: Presence) -> None:
        """A hook: the person who plays a seat of the game left (`left`)."""
        if presence.seat_in_game is not None:
            self.left(presence.seat_in_game, presence.at)

    def on_join(self, presence: Presence) -> None:
        """A hook: the person who plays a seat of the game is connected again (`back`)."""
        if presence.seat_in_game is not None:
            self.back(presence.seat_in_game)

    def drop(self, seat: int) -> None:
        """``seat`` is no person's any more (the host removed them): forget it."""
        self.people.discard(seat)
        self.gone_since.pop(seat, None)
        self.stand_ins.discard(seat)

    def _abandon_at(self) -> float | None:
        if not self.people or set(self.gone_since) != self.people:
            return None
        return max(self.gone_since.values()) + self.times.abandon_after_s

    def next_at(self) -> float | None:
        """The next wall-clock time something is due (a stand-in, or the game abandoned)."""
        if not self.gone_since:
            return None
        times = [since + self.times.away_after_s for seat, since in self.gone_since.items()
                 if seat not in self.stand_ins]
        abandon = self._abandon_at()
        if abandon is not None:
            times.append(abandon)
        return min(times) if times else None

    def due(self, now: float) -> tuple[list[int], bool]:
        """At ``now``: the seats a stand-in takes over now (they are marked as such), and
        whether the game is abandoned."""
        if not self.gone_since:  # everyone is here (nearly always): nothing can be due
            return [], False
        newly = sorted(seat for seat, since in self.gone_since.items()
                       if seat not in self.stand_ins and now >= since + self.times.away_after_s)
        self.stand_ins.update(newly)
        abandon = self._abandon_at()
        return newly, abandon is not None and now >= abandon


@dataclass
class SeatPlay:
    """How many of one seat's actions the engine took, and how many of a person's were made for
    them: by a stand-in bot while they were away, or on a turn time-out (the seat's agent
    playing or collecting for them)."""

    seat: int
    actions: int = 0
    by_stand_in: int = 0
    by_time_out: int = 0

    def public(self) -> dict[str, Any]:
        """As the record and ``game_over`` give it."""
        return {"seat": self.seat, "actions": self.actions, "by_stand_in": self.by_stand_in,
                "by_time_out": self.by_time_out}


class PlayCount:
    """Every seat's :class:`SeatPlay` for one game: the table tells it each action the engine
    accepted and whose it was (`ratscrew.runtime.Table.add_action_listener`).

    >>> from ratscrew.runtime import SUBMITTED, Intent
    >>> count = PlayCount(people=[0], seats=2)
    >>> count.acted(0, Intent("play", 5000, "time-out"), stand_ins=set())
    >>> count.acted(1, Intent("play", 5400), stand_ins=set())        # a bot's own seat
    >>> count.acted(0, Intent("slap", 5600, SUBMITTED), stand_ins=set())
    >>> count.acted(0, Intent("play", 6000), stand_ins={0})           # Ann is away
    >>> count.seats[0].public()
    {'seat': 0, 'actions': 3, 'by_stand_in': 1, 'by_time_out': 1}
    """

    def __init__(self, people: Iterable[int], seats: int) -> None:
        self.people = set(people)
        self.seats = [SeatPlay(seat) for seat in range(seats)]

    def acted(self, seat: int, intent: Intent, stand_ins: set[int]) -> None:
        """The engine accepted ``intent`` for ``seat``: the person's own (``submitted``), or made
        for them by a stand-in bot (their seat is in ``stand_ins``) or on a time-out."""
        play = self.seats[seat]
        play.actions += 1
        if seat not in self.people or intent.note == SUBMITTED:
            return
        if seat in stand_ins:
            play.by_stand_in += 1
        else:
            play.by_time_out += 1

    def resumed(self, actions: Sequence[tuple[str, int | None, int]],
                judged: Sequence[dict[str, Any]]) -> None:
        """A game rebuilt from the store: its actions so far, the people's own among them (the
        accepted ``judged`` ones); the others made for a person count as time-outs (who stood
        in for whom before the restart is not stored)."""
        for _kind, seat, _at in actions:
            if seat is not None:
                self.seats[seat].actions += 1
                if seat in self.people:
                    self.seats[seat].by_time_out += 1
        for entry in judged:
            seat = int(entry["seat"])
            if entry.get("accepted") and seat in self.people and self.seats[seat].by_time_out:
                self.seats[seat].by_time_out -= 1


class AwayRoom(Protocol):
    """What watching a game's people for absence asks of their room
    (`ratscrew.server.room.room.Room`)."""

    code: str
    settings: RoomSettings
    clock: RoomClock
    absence: AbsenceWatch
    play_count: PlayCount
    game_names: list[str]
    game_tokens: list[str | None]

    @property
    def seats(self) -> list[Seat]: ...
    @property
    def phase(self) -> str: ...
    @property
    def table(self) -> Table | None: ...
    def bot_agent(self, seat: int, level: str, game: Game | None = None) -> Shown: ...
    def announce(self, kind: NoteKind, line: str) -> None: ...
    def broadcast_room(self) -> None: ...


def watch_from_here(room: AwayRoom, game: Game, judged: Sequence[dict[str, Any]]) -> None:
    """A game starts or resumes: the people not connected now are gone from now on (after a
    restart, nobody is yet), and each seat's actions are counted from here."""
    people = [index for index, token_hash in enumerate(room.game_tokens) if token_hash is not None]
    present = [seat.index for seat in room.seats if seat.kind == "human" and seat.conn is not None]
    for seat in room.seats:
        seat.stand_in = None
    room.absence.begin(people, present, room.clock.wall())
    room.play_count = PlayCount(people, len(room.seats))
    if game.action_count:
        room.play_count.resumed(game.actions_since(0), judged)


def back(room: AwayRoom, seat: Seat) -> None:
    """The person in ``seat`` is connected again: a stand-in gives the seat back."""
    if room.phase != "playing" or seat.stand_in is None or room.table is None:
        return
    seat.stand_in = None
    room.table.replace_agent(seat.index, Shown(RemoteSeat(room.settings.turn_timeout_ms),
                                               room.clock.now))
    name = room.game_names[seat.index]
    log.info("room %s: %s is back in seat %d", room.code, name, seat.index)
    room.announce("seat_back", f"{name} is back and plays again")


def stand_ins_due(room: AwayRoom) -> bool:
    """Seat a stand-in bot for each person gone long enough; whether every person has been gone
    too long (the room then abandons the game: `ratscrew.server.room.ending.abandon`)."""
    table = room.table
    newly, abandoned = room.absence.due(room.clock.wall())
    if abandoned:
        return True
    for index in newly:
        assert table is not None
        room.seats[index].stand_in = STAND_IN_BOT
        table.replace_agent(index, room.bot_agent(index, STAND_IN_BOT))
        name = room.game_names[index]
        log.info("room %s: %s is away; a %s bot plays seat %d", room.code, name, STAND_IN_BOT, index)
        room.announce("seat_away", f"{name} is away: a bot plays for {name} until they come back")
    if newly:
        room.broadcast_room()
    return False
