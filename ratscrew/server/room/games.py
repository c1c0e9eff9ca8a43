"""A room's game, from its deal to its last step: dealing and seating everyone at the table
(:func:`start_game`, :func:`begin`), the task that drives it (:func:`drive`), moving it on
(:func:`tick`, :func:`next_wake`), each step the engine took stored, then shown
(:func:`on_events`, :func:`publish`), the slaps handed to the contest tally
(:func:`track_slaps`) and the reaction times they are judged by.

Functions over the room, which they see through :class:`PlayingRoom` (checked against
`ratscrew.server.room.room.Room` at the end of that module, so that this one never imports it).
A game's end is `ratscrew.server.room.ending`'s; people away are `ratscrew.server.room.absence`'s.
"""

from __future__ import annotations

import logging
import math
import secrets
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from ratscrew.bots.agent import BotAgent
from ratscrew.bots.profile import LEVELS, paced
from ratscrew.bots.spec import is_agent_spec
from ratscrew.events import CardPlayed, Event
from ratscrew.narrate import refusal_text
from ratscrew.protocol.client_messages import PACE_FACTORS
from ratscrew.protocol.server_messages import error_message
from ratscrew.runtime import SUBMITTED, Intent, Rejection
from ratscrew.server.room import absence, ending
from ratscrew.server.room.agents import RemoteSeat, Shown
from ratscrew.server.room.lobby import DEFAULT_BOT
from ratscrew.server.room.tally import ContestTally
from ratscrew.sim.summary import game_seed
from ratscrew.storage.records import StoreUnavailable

if TYPE_CHECKING:
    from ratscrew.engine import Game
    from ratscrew.protocol.server_messages import NoteKind, ServerMessage
    from ratscrew.ruleset import Ruleset
    from ratscrew.server.room.admission import Admission
    from ratscrew.server.room.membership import Member
    from ratscrew.server.room.publisher import Connection

log = logging.getLogger("ratscrew.server")


class PlayingRoom(ending.EndingRoom, absence.AwayRoom, Protocol):
    """What playing a game asks of its room (`ratscrew.server.room.room.Room`): a game's end
    and people away are part of playing it."""

    drive: bool
    games_played: int
    deal: Callable[[Ruleset, int, int], Game]
    admission: Admission
    paused: str | None
    tracked_actions: int
    shown_pile: list[str]

    @property
    def horizon(self) -> float: ...
    @property
    def settle_ms(self) -> float: ...
    @property
    def version(self) -> int: ...
    def show_up_wait(self) -> float | None: ...
    def pause_for_store(self) -> None: ...
    def broadcast(self, message: ServerMessage) -> None: ...


# ---------------------------------------------------------------------- a game's start

def start_game(room: PlayingRoom) -> None:
    """Deal a new game and seat everyone at its table (open seats get bots)."""
    room.lobby.fill_open_seats()
    rules = room.settings.rules
    if room.settings.seed is not None and room.games_played == 0:
        seed = room.settings.seed  # the creator's chosen deal: a seeded room is never rated
    else:
        seed = secrets.randbits(62)  # never derived from a seed a public record shows
    game = room.deal(rules, len(room.seats), seed)
    room.games_played += 1
    room.clock.restart(0.0)
    room.game_id = room.recorder.start_game(room.games_played, game,
                                            [s.name for s in room.seats], room.room_info())
    begin(room, game)
    log.info("room %s: game %d started (%s, seed %d, game id %d)", room.code,
             room.games_played, rules.name, seed, room.game_id)


def begin(room: PlayingRoom, game: Game, judged: Sequence[dict[str, Any]] = ()) -> None:
    """Seat everyone at a table for ``game`` and start showing it."""
    room.game_names = room.lobby.names()
    room.game_tokens = [seat.token_hash if seat.kind == "human" else None for seat in room.seats]
    room.recorder.begin(game, len(judged))
    room.tracked_actions = game.action_count
    room.shown_pile = [str(card) for card in game.live_pile]
    room.tally = ContestTally(len(room.seats))
    room.game_finished = False
    room.publisher.start_game(room.games_played)
    room.lobby.phase = "playing"
    room.save()
    agents = [bot_agent(room, seat.index, seat.bot or DEFAULT_BOT, game) if seat.kind == "bot"
              else Shown(RemoteSeat(room.settings.turn_timeout_ms), room.clock.now)
              for seat in room.seats]
    table = room.driver.begin(game, agents, judged, partial(on_events, room), partial(on_rejected, room))
    absence.watch_from_here(room, game, judged)
    table.add_action_listener(partial(on_action, room))
    publish(room, [])
    room.publisher.card_version = room.version
    room.broadcast_room()
    drive(room)


def bot_agent(room: PlayingRoom, seat: int, level: str, game: Game | None = None) -> Shown:
    """The agent of a bot of ``level`` (or a saved agent's spec) in ``seat`` of ``game``."""
    game = game or room.game
    assert game is not None
    if is_agent_spec(level):  # a saved agent, held to its human reaction profile
        from ratscrew.rl.agents import agent_from_spec, table_agent

        agent = table_agent(agent_from_spec(level), room.settings.rules, len(room.seats),
                            game_seed(game.seed, seat))
        return Shown(agent, room.clock.now)
    profile = paced(LEVELS[level], PACE_FACTORS[room.settings.pace])
    return Shown(BotAgent(profile, seed=game_seed(game.seed, seat)), room.clock.now)


# ---------------------------------------------------------------------- driving it

def drive(room: PlayingRoom) -> None:
    """Start the task that moves the game on, unless the room's caller moves it (tests)."""
    if room.drive:
        room.driver.start(partial(step, room), partial(next_wake, room), room.pause_for_store,
                          partial(fail, room), name=f"room {room.code}")


def step(room: PlayingRoom) -> bool:
    """The driver's task: move the game on; whether there is more to drive."""
    if room.phase != "playing" or room.paused is not None:
        return False
    tick(room)
    return room.phase == "playing" and room.paused is None


def write_lost(room: PlayingRoom, error: Exception) -> None:
    """A write that went through the writer failed: nothing held behind it was sent."""
    if isinstance(error, StoreUnavailable):
        room.pause_for_store()
    else:
        log.error("room %s: a write to the store failed", room.code, exc_info=error)
        room.driver.cancel()
        fail(room)


def fail(room: PlayingRoom) -> None:
    """The game hit an error: it is over, and everyone is told."""
    log.error("room %s: the game is stopped after an error", room.code)
    room.lobby.phase = "over"
    room.broadcast(error_message("server", "the server hit an error and stopped this game"))


def tick(room: PlayingRoom) -> None:
    """Move the game up to the horizon (`GameDriver.feed`), then store what it took, close the
    contests that are due and, at the end, finish the game."""
    wait = room.show_up_wait()
    if wait is not None:
        if wait <= 0.0:
            room.admission.no_show()
        return
    game = room.game
    if game is None or room.phase != "playing":
        return
    if absence.stand_ins_due(room):  # everyone gone too long: the game is abandoned
        ending.abandon(room)
        return
    room.driver.feed(time_limit_at(room))
    track_slaps(room, [])  # slaps the engine took silently (held in a tie window)
    save_step(room)
    due = room.tally.due_at()
    if due is not None and (game.over or room.horizon >= due):
        room.tally.close()
    send_judgements(room)
    if game.over and not room.game_finished:
        ending.finish(room)


def next_wake(room: PlayingRoom) -> float | None:
    """The room time at which :func:`tick` next has something to do, if anything."""
    wait = room.show_up_wait()
    if wait is not None:  # wall seconds to room ms, rounded up to the next ms
        return math.ceil(room.clock.now() + wait * 1000.0)
    if room.phase != "playing":
        return None
    due = [at for at in (room.tally.due_at(), time_limit_at(room)) if at is not None]
    wake = room.driver.next_due(min(due) if due else None)
    away_at = room.absence.next_at()
    if away_at is not None:  # wall seconds to room ms, rounded up to the next ms
        at = room.clock.now() + max(0.0, away_at - room.clock.wall()) * 1000.0
        wake = math.ceil(at) if wake is None else min(wake, math.ceil(at))
    return wake


def time_limit_at(room: PlayingRoom) -> float | None:
    """The table time at which the game's time limit runs out, if it has one."""
    return float(room.settings.time_limit_ms) if room.settings.time_limit_ms else None


# ---------------------------------------------------------------------- each step: stored, then shown

def save_step(room: PlayingRoom) -> None:
    """Store the game's new actions and judgements (`RoomRecorder.save_step`)."""
    if room.game is not None and room.game_id is not None:
        room.recorder.save_step(room.game_id, room.game, room.driver.judged)


def on_rejected(room: PlayingRoom, rejection: Rejection) -> None:
    """The engine refused a person's action: they are told why, in words."""
    if rejection.intent.note != SUBMITTED:
        return  # a stand-in's planned action: nobody to tell
    conn = room.seats[rejection.seat].conn
    if conn is not None and room.game is not None:  # in words, with names, not seat indices
        message = refusal_text(rejection, room.game_names[rejection.seat], room.game.observe(None),
                               room.game_names)
        conn.send(error_message("illegal", message))


def on_events(room: PlayingRoom, events: Sequence[Event]) -> None:
    """After every step the engine accepted: store it, then show it."""
    save_step(room)
    track_slaps(room, events)
    publish(room, events)
    assert room.game is not None
    room.shown_pile = [str(card) for card in room.game.live_pile]


def on_action(room: PlayingRoom, seat: int, intent: Intent) -> None:
    """Count an action of ``seat`` (and whether it was made for its person)."""
    room.play_count.acted(seat, intent, room.absence.stand_ins)


def publish(room: PlayingRoom, events: Sequence[Event],
            notes: Sequence[tuple[NoteKind, str]] = ()) -> None:
    """Show the game's step (``events``, and log lines ``notes``) to every connection."""
    assert room.game is not None
    room.publisher.publish(room.game, room.games_played, events, room.game_names, room.settle_ms,
                           [(conn, seat_in_game(room, member))
                            for conn, member in room.connections.items()],
                           partial(reaction_ms, room), notes)


def announce(room: PlayingRoom, kind: NoteKind, line: str) -> None:
    """A line in everyone's log, of the given kind (a step of its own, kept in the history)."""
    if room.game is not None:
        publish(room, [], [(kind, line)])


def seat_in_game(room: PlayingRoom, member: Member) -> int | None:
    """The seat whose view of the current (or last) game ``member`` gets: their seat while a
    game is played; after it, the seat they had in it (``None``, a spectator's view, for
    someone who sat down since: seats added, moved or taken in the lobby count from the
    next game on)."""
    if room.phase == "playing":
        return member.seat
    if member.token_hash is None or member.seat is None:
        return None
    return next((index for index, token_hash in enumerate(room.game_tokens)
                 if token_hash == member.token_hash), None)


def send_current_state(room: PlayingRoom, conn: Connection) -> None:
    """The game as it is now, to ``conn`` (one that just came in)."""
    if room.game is None or room.phase == "lobby":
        return
    room.publisher.send_current(conn, seat_in_game(room, room.connections[conn]), room.game,
                                room.games_played, room.settle_ms, room.phase == "over")


# ---------------------------------------------------------------------- reactions and contested slaps

def reaction_ms(room: PlayingRoom, seat: int, at: int) -> int | None:
    """``at`` minus when the pile's top card was shown to ``seat``."""
    shown = None
    card_version = room.publisher.card_version
    conn = room.seats[seat].conn if seat < len(room.seats) else None
    if conn is not None:
        shown = conn.shown_at(card_version)
    if shown is None:
        shown = room.publisher.shown_at(card_version)
    return None if shown is None else round(at - shown)


def pile_reaction_ms(room: PlayingRoom, seat: int, at: float) -> float | None:
    """``at`` minus when the pile's top card was sent to ``seat``'s own connection (``None``
    if it was not: the seat could not have seen it); what the integrity review counts."""
    conn = room.seats[seat].conn if seat < len(room.seats) else None
    shown = None if conn is None else conn.shown_at(room.publisher.card_version)
    return None if shown is None else at - shown


def track_slaps(room: PlayingRoom, events: Sequence[Event]) -> None:
    """Hand the tally every slap action the engine accepted since the last call and the
    step's events (``events``), then send the judgements of the contests that closed."""
    game = room.game
    assert game is not None
    actions = game.actions_since(room.tracked_actions)
    room.tracked_actions += len(actions)
    # Slaps never play a card, so every slap here came before any card this step played.
    cards_before = game.cards_played - sum(isinstance(e, CardPlayed) for e in events)
    for kind, seat, at in actions:
        if kind == "slap" and seat is not None:
            # the pile the slap was made on: the step being tracked may have taken it
            room.tally.slap(cards_before, seat, at, room.shown_pile, reaction_ms(room, seat, at),
                            room.driver.slap_link_ms(seat, at))
    room.tally.events(events, partial(reaction_ms, room))
    send_judgements(room)


def send_judgements(room: PlayingRoom) -> None:
    """A ``judgement`` for each contested slap the tally closed, kept in the history."""
    for contest in room.tally.take_closed():
        room.publisher.judgement(contest, room.games_played, room.game_names, room.connections)
