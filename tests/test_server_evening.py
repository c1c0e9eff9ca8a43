"""A group of friends playing on through an evening, on a fake clock: a seat added in the lobby
after a game, a time limit on a game, and people who go away and come back (issue 26)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from online import FakeConnection, FakeWall, make_room, run_until
from serving import ServerProcess
from starlette.testclient import TestClient

from ratscrew.cli import main
from ratscrew.engine import Game
from ratscrew.events import ChallengeLost, Misslap
from ratscrew.narrate import describe_event
from ratscrew.protocol.client_messages import (
    Act,
    Configure,
    Join,
    Rematch,
    Start,
    Watch,
    parse_client_message,
    parse_room_request,
)
from ratscrew.protocol.codec import ProtocolError
from ratscrew.ruleset import Ruleset
from ratscrew.server.app import create_app
from ratscrew.server.room.absence import AbsenceTimes
from ratscrew.server.room.room import Room
from ratscrew.server.room.tally import Contest, SlapRecord, judgement_details, judgement_text
from ratscrew.storage.sqlite import SqliteStore

# ---------------------------------------------------------------------- a seat added after a game


def test_a_seat_added_after_a_game_seats_a_friend_and_applies_to_the_next_game() -> None:
    room, wall = make_room(seats=2, bots=["expert"], turn_timeout_ms=1000)
    host = FakeConnection(room)
    host.join("Ann")
    host.do(Start())
    run_until(room, wall, 3_600_000)
    assert room.phase == "over" and room.game is not None and room.game.players == 2
    host.do(Configure(seats=3))  # "Back to lobby", Seats 2 -> 3
    friend = FakeConnection(room)
    welcome = friend.join("Bob")  # "Sit down": this was NoSuchSeatError: no seat 2 at this table of 2
    assert (welcome["seat"], welcome["status"]) == (2, "player")
    # the finished game is shown as it was: Bob had no seat in it, so he sees it as a spectator
    state = friend.last("state")
    assert state["observation"]["players"] == 2 and state["observation"]["seat"] is None
    assert friend.last("game_over")["winner"] in (0, 1)
    assert [s["name"] for s in host.last("room")["seats"]] == ["Ann", "Expert bot", "Bob"]
    # a page joining now sees the same; the host still sees the game from the seat she had in it
    late = FakeConnection(room)
    late.room.connect(late)
    late.do(Watch())
    assert late.last("state")["observation"]["seat"] is None
    reloaded = FakeConnection(room)  # Ann reloads her page
    reloaded.join("Ann", token=host.last("welcome")["token"])
    assert reloaded.last("state")["observation"]["seat"] == 0
    reloaded.do(Rematch())  # the lobby's change applies to the next game
    assert room.game is not None and room.game.players == 3
    assert friend.last("state")["observation"]["seat"] == 2
    assert len(friend.last("state")["observation"]["hand_sizes"]) == 3


# ---------------------------------------------------------------------- a time limit


def test_a_game_with_a_time_limit_ends_and_the_player_holding_the_most_cards_wins() -> None:
    # nobody acts: every card is played on the 20 s turn time-out, so when the minute is up
    # Ann (9 cards dealt) and Bob (8) have each played one card and a third comes too late
    room, wall = make_room(seats=2, hands=["2C 3C 4C 5C 6C 7C 8C 9C 2H", "2D 3D 4D 5D 6D 7D 8D 9D"],
                           turn_timeout_ms=20_000)
    ann, bob = FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    bob.join("Bob")
    ann.do(Configure(time_limit_ms=60_000))
    assert ann.last("room")["settings"]["time_limit_ms"] == 60_000
    ann.do(Start())
    run_until(room, wall, 59_000)
    assert room.phase == "playing"
    run_until(room, wall, 61_000)
    over = bob.last("game_over")
    assert (over["winner"], over["reason"]) == (0, "time_limit")
    assert bob.last("state")["observation"]["hand_sizes"] == [8, 7]
    assert "Ann holds the most cards when time is up and wins" in bob.last("state")["lines"]
    stored = room.store.game_record(over["game_id"])
    assert stored is not None and stored["actions"][-1] == ["time_up", None, 60_000]
    assert stored["room"]["time_limit_ms"] == 60_000


@pytest.mark.parametrize(("value", "why"), [
    (-1, "from 0 to 14400000, not -1"), (90.5, "must be a whole number"),
    (10**12, "not 1000000000000"), (5_000, "a minute"), ("10 min", "must be a whole number")])
def test_a_time_limit_that_is_not_one_is_refused_with_the_reason(value: object, why: str) -> None:
    with pytest.raises(ProtocolError, match=why):
        parse_room_request({"time_limit_ms": value})
    with pytest.raises(ProtocolError, match=why):
        parse_client_message(json.dumps({"type": "configure", "time_limit_ms": value}))
    assert parse_room_request({}).time_limit_ms == 0  # no limit by default


def test_the_api_answers_a_bad_time_limit_with_a_400_and_keeps_a_good_one(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "rooms.db")) as client:
        refused = client.post("/api/rooms", json={"time_limit_ms": -5})
        assert refused.status_code == 400 and "time_limit_ms" in refused.text
        made = client.post("/api/rooms", json={"time_limit_ms": 600_000})
        assert made.status_code < 300
        room = client.get(f"/api/rooms/{made.json()['code']}").json()
        assert room["settings"]["time_limit_ms"] == 600_000


# ---------------------------------------------------------------------- people who go away

ANN_KEY = "ann-player-key-0123456789"


def absent_room(seats: int = 2, bots: Sequence[str] = (), away_s: float = 120.0,
                abandon_s: float = 300.0, store: SqliteStore | None = None) -> tuple[Room, FakeWall]:
    """A room on a fake clock, with the two absence durations."""
    request = parse_room_request({"seats": seats, "bots": list(bots), "seed": 1})
    wall = FakeWall()
    room = Room.create(request, store or SqliteStore(":memory:"), wall=wall, drive=False,
                       absence=AbsenceTimes(away_s, abandon_s))
    return room, wall


def lines(conn: FakeConnection) -> list[str]:
    return [line for state in conn.of("state") for line in state["lines"]]


def noted(entries: Sequence[Mapping[str, Any]], words: str) -> tuple[list[str], list[str]]:
    """The lines and ``note_kinds`` of the one state (or history entry) with a line with ``words``."""
    [entry] = [e for e in entries if any(words in line for line in e.get("lines", []))]
    return entry["lines"], entry.get("note_kinds", [])


def kept(room: Room) -> list[Mapping[str, Any]]:
    """The room's history entries, as a page that reloads is sent them."""
    return list(room.publisher.history.message(None)["entries"])


def test_a_person_away_for_two_minutes_is_played_by_a_bot_until_they_come_back() -> None:
    room, wall = absent_room()
    ann, bob = FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    token = bob.join("Bob")["token"]
    ann.do(Configure(time_limit_ms=150_000))
    ann.do(Start())
    run_until(room, wall, 1_000)
    room.disconnect(bob)  # Bob's phone went to sleep
    run_until(room, wall, 120_500)
    assert not any("Bob is away" in line for line in lines(ann))
    assert room.seats[1].stand_in is None
    run_until(room, wall, 121_500)
    assert "Bob is away: a bot plays for Bob until they come back" in lines(ann)
    # the note comes after the step's events' lines, with its kind, live and in the history
    away = (["Bob is away: a bot plays for Bob until they come back"], ["seat_away"])
    assert noted(ann.of("state"), "Bob is away") == away == noted(kept(room), "Bob is away")
    assert ann.last("room")["seats"][1]["stand_in"] == "casual"
    run_until(room, wall, 135_000)
    assert room.phase == "playing"
    back = FakeConnection(room)
    back.join("Bob", token=token)
    assert "Bob is back and plays again" in lines(ann)
    returned = (["Bob is back and plays again"], ["seat_back"])
    assert noted(ann.of("state"), "Bob is back") == returned == noted(kept(room), "Bob is back")
    assert all("note_kinds" not in state for state in ann.of("state")
               if not any("Bob is" in line for line in state["lines"]))  # only with notes
    assert ann.last("room")["seats"][1]["stand_in"] is None
    assert room.seats[1].stand_in is None and room.absence.stand_ins == set()
    back.do(Act("slap"))  # Bob's own action (a misslap or not, it is his)
    run_until(room, wall, 152_000)  # the game's time limit: two and a half minutes
    over = ann.last("game_over")
    bob_result = over["results"][1]
    # Bob's turns timed out while he was gone, then the stand-in played; Ann never acted
    assert bob_result["by_time_out"] > 0 and bob_result["by_stand_in"] > 0
    assert over["reason"] == "time_limit"
    assert bob_result["actions"] == bob_result["by_time_out"] + bob_result["by_stand_in"] + 1  # + slap
    assert over["results"][0]["by_stand_in"] == 0
    assert over["results"][0]["actions"] == over["results"][0]["by_time_out"]
    record = room.store.game_record(over["game_id"])
    assert record is not None
    assert record["seat_actions"] == [{k: r[k] for k in ("actions", "by_stand_in", "by_time_out")}
                                      | {"seat": r["seat"]} for r in over["results"]]


def test_a_game_everyone_left_for_five_minutes_is_abandoned_unrated_and_back_to_the_lobby() -> None:
    room, wall = absent_room(seats=3, bots=["casual"], away_s=60.0, abandon_s=90.0)
    ann, bob, cat = FakeConnection(room), FakeConnection(room), FakeConnection(room)
    room.connect(ann)
    ann.do(Join("Ann", None, ANN_KEY))  # a keyed player and a bot: a game that would be rated
    bob.join("Bob")
    ann.do(Start())
    room.connect(cat)
    cat.do(Watch())
    run_until(room, wall, 1_000)
    room.disconnect(ann)
    run_until(room, wall, 20_000)
    room.disconnect(bob)  # everyone has gone from 20 s on; the game is abandoned at 110 s
    run_until(room, wall, 109_000)
    assert room.phase == "playing"
    run_until(room, wall, 111_000)
    assert room.phase == "lobby"
    over = cat.last("game_over")
    assert (over["winner"], over["reason"]) == (None, "abandoned")
    assert "the game is abandoned, and nobody wins" in " ".join(lines(cat))
    assert noted(cat.of("state"), "is abandoned")[1] == ["game_abandoned"]
    assert cat.last("room")["phase"] == "lobby"
    record = room.store.game_record(over["game_id"])
    assert record is not None and record["abandoned"] is True
    player_id = ann.last("welcome")["player_id"]
    assert room.store.ratings_of(player_id) == []  # unrated
    assert room.store.unrated_games() == []  # ... and not left for the next start to rate
    run_until(room, wall, 400_000)
    assert room.phase == "lobby" and len(cat.of("game_over")) == 1


def test_a_room_restored_after_a_restart_whose_people_never_return_is_abandoned() -> None:
    store = SqliteStore(":memory:")
    room, wall = absent_room(store=store, abandon_s=300.0)
    ann, bob = FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    bob.join("Bob")
    ann.do(Start())
    run_until(room, wall, 30_000)
    row = store.load_room(room.code)  # the server restarts; nobody comes back
    assert row is not None and row.phase == "playing"
    wall.t += 3600.0  # the server was down for an hour: the absence clock starts at the restart
    restored = Room.restore(row, store, wall=wall, drive=False, absence=AbsenceTimes(120.0, 300.0))
    assert restored.phase == "playing"
    watcher = FakeConnection(restored)
    restored.connect(watcher)
    watcher.do(Watch())
    start = restored.clock.now()
    run_until(restored, wall, start + 295_000)
    assert restored.phase == "playing"
    assert restored.absence.stand_ins == {0, 1}  # bots have played both seats since 120 s
    run_until(restored, wall, start + 301_000)
    assert restored.phase == "lobby"
    assert watcher.last("game_over")["reason"] == "abandoned"


# ---------------------------------------------------------------------- words


def test_a_judgement_says_who_was_quicker_in_plain_words_and_its_figures_add_up() -> None:
    # Ann's and Bob's pages were sent the double a millisecond apart: timed from each page's own
    # send, their slaps read 368 and 369 ms, while the engine judged them 2 ms apart
    contest = Contest(cards_played=5, first_at=1368, pile=["7H", "7S"], slaps=[
        SlapRecord(seat=0, at=1368, reaction_ms=368, link_ms=0, result="won", pattern="double"),
        SlapRecord(seat=1, at=1370, reaction_ms=369, link_ms=12, result="late", margin_ms=2)])
    text = judgement_text(contest, ["Ann", "Bob"])
    assert text == ("Ann was 2 ms quicker than Bob and takes the double: no penalty for Bob, since "
                    "being slower is not a mistake")
    assert "link" not in text and "368" not in text  # the figures are there on demand
    details = judgement_details(contest, ["Ann", "Bob"])
    assert details.startswith("From the card to the slap: Ann 368 ms, Bob 370 ms.")  # 370 - 368 = 2
    assert "Bob +12 ms" in details


def test_the_log_says_a_lost_challenge_a_free_misslap_and_a_resignation_as_people_would() -> None:
    names = ["Ann", "Bob"]
    lost = ChallengeLost(at=900, seat=0, winner=1, collect_at=1900, exclusive_until=None)
    assert describe_event(lost, names) == "Ann found no face card: the pile goes to Bob"
    claim = ChallengeLost(at=900, seat=0, winner=1, collect_at=None, exclusive_until=3900)
    assert describe_event(claim, names) == "Ann found no face card: Bob must slap to claim the pile"
    unanswered = ChallengeLost(at=900, seat=1, winner=1, collect_at=1900, exclusive_until=None)
    assert describe_event(unanswered, names) == "Nobody can answer Bob's face card: the pile goes to Bob"
    free = Misslap(at=5, seat=0, penalty="none", cards=(), pile_to=None, why="the pile is empty")
    assert describe_event(free, names) == ("Ann slapped an empty pile. No penalty: these rules do not "
                                           "punish a misslap")
    game = Game(Ruleset.preset("classic"), hands=["2H 7C", "3S 9D"], leader=0)
    assert [describe_event(e, names) for e in game.resign(0, at=0)] == [
        "Ann resigns", "Ann burns 2♥ 7♣ on resigning"]


def test_serve_help_describes_todays_seating(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "bots fill empty seats" not in shown
    assert "takes an open seat" in shown and "dealt into the next one" in shown
    assert "--away-after-s" in shown and "--abandon-after-s" in shown


def test_a_real_server_stands_in_and_abandons_after_the_durations_it_was_given(tmp_path: Path) -> None:
    # `ratscrew serve --away-after-s 1 --abandon-after-s 3`: Ann and Bob close their pages
    with ServerProcess(tmp_path / "rooms.db", "--away-after-s", "1", "--abandon-after-s", "3") as server:
        code = server.new_room(seats=2, seed=4)
        ann, bob, cat = server.player(code), server.player(code), server.player(code)
        ann.join("Ann")
        bob.join("Bob")
        ann.send({"type": "start"})
        ann.wait_for("state")
        cat.send({"type": "watch"})
        cat.wait_for("welcome")
        ann.close()
        bob.close()
        away = cat.wait_for("state", lambda m: any("is away" in line for line in m["lines"]), timeout=10)
        assert "a bot plays for" in " ".join(away["lines"])
        over = cat.wait_for("game_over", timeout=15)
        assert (over["winner"], over["reason"]) == (None, "abandoned")
        assert server.get(f"/api/rooms/{code}").json()["phase"] == "lobby"
        cat.close()
