"""A game's end: finished by the engine (`finish`), or abandoned because every one of its
people was gone too long (`abandon`). Either way the open contests are closed and judged, the
last step stored, the record made (names, judging, each seat's actions, whether it is rated:
`ratscrew.server.ladder.rated.room_verdict`), the seats' results stored (the recorder rates the
game), ``game_over`` sent to everyone, and the people who waited seated for the rematch.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from ratscrew.server.ladder.rated import room_verdict
from ratscrew.server.ops.metrics import TALLY
from ratscrew.storage.records import SeatResult

if TYPE_CHECKING:
    from ratscrew.engine import Game
    from ratscrew.protocol.server_messages import NoteKind, SeatResultInfo
    from ratscrew.server.room.absence import AbsenceTimes, PlayCount
    from ratscrew.server.room.driver import GameDriver
    from ratscrew.server.room.lobby import Lobby, RoomSettings, Seat
    from ratscrew.server.room.membership import Member
    from ratscrew.server.room.persistence import RoomParts, RoomRecorder
    from ratscrew.server.room.publisher import Connection, Publisher
    from ratscrew.server.room.tally import ContestTally

log = logging.getLogger("ratscrew.server")


class EndingRoom(Protocol):
    """What a game's end asks of its room (`ratscrew.server.room.room.Room`)."""

    code: str
    settings: RoomSettings
    lobby: Lobby
    driver: GameDriver
    tally: ContestTally
    recorder: RoomRecorder
    publisher: Publisher
    play_count: PlayCount
    absence_times: AbsenceTimes
    game_id: int | None
    game_names: list[str]
    game_finished: bool

    @property
    def game(self) -> Game | None: ...
    @property
    def seats(self) -> list[Seat]: ...
    @property
    def connections(self) -> dict[Connection, Member]: ...
    @property
    def waiting(self) -> list[str]: ...
    def parts(self) -> RoomParts: ...
    def room_info(self) -> dict[str, Any]: ...
    def save(self) -> None: ...
    def save_step(self) -> None: ...
    def send_judgements(self) -> None: ...
    def announce(self, kind: NoteKind, line: str) -> None: ...
    def seat_the_waiting(self) -> None: ...
    def broadcast_room(self) -> None: ...


def abandon(room: EndingRoom) -> None:
    """Every person of the game has been gone too long: the game ends with no winner,
    unrated, stored as abandoned, and the room goes back to the lobby."""
    game, game_id = room.game, room.game_id
    assert game is not None and game_id is not None
    room.game_finished = True
    room.tally.close()
    room.send_judgements()
    room.save_step()
    minutes = room.absence_times.abandon_after_s / 60
    room.announce("game_abandoned",
                  f"Everyone has been away for {minutes:g} minute{'s' if minutes != 1 else ''}: "
                  "the game is abandoned, and nobody wins")
    record, stored, public = game_results(room, game)
    record["abandoned"] = True
    room.lobby.phase = "lobby"
    for seat in room.seats:
        seat.stand_in = None
    room.recorder.finish_game(game_id, record, game, stored, room.parts(), reason="abandoned")
    log.info("room %s: game id %d abandoned after %d cards: everyone was away", room.code,
             game_id, game.cards_played)
    room.publisher.finish({
        "type": "game_over", "winner": None, "reason": "abandoned", "game_id": game_id,
        "record_url": f"/api/games/{game_id}/record", "replay_url": f"/games/{game_id}",
        "results": public}, room.connections)
    if room.waiting:
        room.seat_the_waiting()
        room.save()
    room.broadcast_room()


def finish(room: EndingRoom) -> None:
    """The engine ended the game: closed, stored, rated by the recorder, ``game_over`` to
    everyone, and those who waited seated for the rematch."""
    game, game_id = room.game, room.game_id
    assert game is not None and game_id is not None
    room.game_finished = True
    TALLY.games_finished += 1
    room.tally.close()
    room.send_judgements()
    room.save_step()
    record, stored, public = game_results(room, game)
    room.lobby.phase = "over"
    room.recorder.finish_game(game_id, record, game, stored, room.parts())
    log.info("room %s: game id %d over (%s, winner %s) after %d cards", room.code, game_id,
             game.end_reason, "nobody" if game.winner is None else room.game_names[game.winner],
             game.cards_played)
    room.publisher.finish({
        "type": "game_over", "winner": game.winner, "reason": game.end_reason or "unknown",
        "game_id": game_id, "record_url": f"/api/games/{game_id}/record",
        "replay_url": f"/games/{game_id}", "results": public}, room.connections)
    if room.waiting:
        room.seat_the_waiting()  # people who waited sit down now, for the rematch
        room.save()
    room.broadcast_room()


def game_results(room: EndingRoom, game: Game
                 ) -> tuple[dict[str, Any], list[SeatResult], list[SeatResultInfo]]:
    """The finished game's record, each seat's stored result, and the ``results`` of
    ``game_over`` (with each seat's actions and those made for its person)."""
    record = game.to_record()
    record["names"] = list(room.game_names)
    record["room"] = room.room_info()
    record["judging"] = list(room.driver.judged)
    plays = [play.public() for play in room.play_count.seats]
    record["seat_actions"] = plays
    record["seeded"] = room.settings.seed is not None
    if (unrated := room_verdict(game.rules, seeded=record["seeded"])) is not None:
        record["unrated"] = unrated  # issue 30 and 29: custom rules, or a seeded deal
    tallies = [t.public() for t in room.tally.tallies]
    results = [SeatResult(seat.index, seat.kind if seat.kind != "open" else "bot",
                          room.game_names[seat.index],
                          seat.token_hash if seat.kind == "human" else None,
                          game.winner == seat.index, tallies[seat.index]["slaps"],
                          tallies[seat.index]["misslaps"],
                          tuple(room.tally.tallies[seat.index].reactions),
                          seat.player_id if seat.kind == "human" else None,  # issue 17
                          seat.bot if seat.kind == "bot" else None) for seat in room.seats]
    public: list[SeatResultInfo] = [
        {"seat": seat.index, "name": room.game_names[seat.index], "kind": seat.kind,
         **tallies[seat.index], "actions": plays[seat.index]["actions"],
         "by_stand_in": plays[seat.index]["by_stand_in"],
         "by_time_out": plays[seat.index]["by_time_out"]}
        for seat in room.seats]
    return record, results, public
