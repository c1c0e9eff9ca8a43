"""The client session (``ratscrew.client.session``) fed recorded transcripts of a real server.

The transcripts in ``tests/transcripts/`` are every message one client was sent (recorded by
``tests/transcripts/record.py``): Tess joining a room mid-game, waiting, being seated when it
ends, playing the rematch and reconnecting; Bob in a contested slap. Replayed through a
`RoomSession`, they must give the log a person expects: the lines from before the join, each
line once, a divider between games, the judgement once, a gap filled from the history; and the
waiting, seating and clock a terminal shows; Ann through a database outage: the refusals, the
``resumed`` notice once, the gap in versions filled, and the room's away and back notes with
their kinds. ``tests/js/transcripts.test.mjs`` replays the same files through the page's own
session (``js/session.js``, the module ``js/room.js`` keeps its room in) and holds it to the same
expected log.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import pytest

from ratscrew.client.session import LogItem, Notice, RoomSession, Update, replay
from ratscrew.protocol.server_messages import ServerMessage

TRANSCRIPTS = Path(__file__).resolve().parent / "transcripts"


def partial(message: dict[str, Any]) -> ServerMessage:
    """A message with only the fields a test is about: the session reads every field with care
    (a server of another version may leave some out)."""
    return cast(ServerMessage, message)


def transcript(name: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((TRANSCRIPTS / f"{name}.json").read_text())
    return entries


def drawn(updates: list[Update]) -> list[LogItem]:
    """The log a screen shows after these updates (a reset clears it)."""
    log: list[LogItem] = []
    for update in updates:
        if update.reset_log:
            log.clear()
        log += update.log
    return log


def state_lines(messages: list[dict[str, Any]], game: int | None = None) -> list[str]:
    """Every line the room said in the states and history entries of ``messages``, by version,
    each version once."""
    by_version: dict[int, list[str]] = {}
    for message in messages:
        entries = message.get("entries", []) if message["type"] == "history" else \
            [message] if message["type"] == "state" else []
        for entry in entries:
            if "judgement" not in entry and (game is None or entry.get("game") == game) \
                    and entry.get("lines"):
                by_version[int(entry["version"])] = list(entry["lines"])
    return [line for version in sorted(by_version) for line in by_version[version]]


def until(messages: list[dict[str, Any]], kind: str, nth: int = 1) -> int:
    """The index just after the ``nth`` message of type ``kind``."""
    seen = 0
    for index, message in enumerate(messages):
        if message["type"] == kind:
            seen += 1
            if seen == nth:
                return index + 1
    raise AssertionError(f"no {kind} number {nth}")


def test_a_latecomer_waits_and_sees_the_log_from_before_it_joined() -> None:
    messages = transcript("late_joiner")
    session = RoomSession("K7QPX2")
    updates = replay(session, messages[:until(messages, "state")])
    assert session.status == "waiting" and session.seat is None and not session.seated
    assert session.notice is not None and session.notice.code == "waiting"
    assert "A game is on" in session.notice.text and "dealt into the next game" in session.notice.text
    history = next(m for m in messages if m["type"] == "history")
    assert [item.text for item in drawn(updates)] == state_lines([history])
    assert not session.may_resign


def test_each_line_is_drawn_once_with_its_event_kind_and_a_divider_between_games() -> None:
    messages = transcript("late_joiner")
    before_reconnect = messages[:until(messages, "connected", 2) - 1]
    log = drawn(replay(RoomSession("K7QPX2"), before_reconnect))
    assert [i.text for i in log if i.kind == "line"] == state_lines(before_reconnect)
    assert [(i.kind, i.text) for i in log if i.kind != "line"] == [("divider", "Game 2")]
    assert {i.game for i in log} == {1, 2}
    kinds = {i.text: i.event_kind for i in log}
    assert kinds["Ann plays 7♦"] == "card_played"
    assert kinds["Ann resigns"] == "player_out"
    slap = next(i for i in log if "slaps a double" in i.text)
    assert slap.event_kind == "slap_won" and slap.at is not None and slap.at > 0


def test_the_latecomer_is_seated_when_the_game_ends() -> None:
    messages = transcript("late_joiner")
    session = RoomSession("K7QPX2")
    replay(session, messages[:until(messages, "game_over")])
    assert session.over is not None and session.status == "waiting"
    seated = replay(session, messages[until(messages, "game_over"):until(messages, "room", 2)])[-1]
    assert session.seated and session.seat == 1 and session.phase == "over"
    assert seated.seated and seated.seating and seated.show_room
    assert seated.notice == Notice("seated", "You have a seat now: seat 2. The next game deals you "
                                             "in.", "info")
    assert session.room is not None and session.room["seats"][1]["name"] == "Tess"
    assert session.seat_names() == ["Ann", "Casual bot"]  # the finished game's, while it is shown
    game_two = replay(session, messages[until(messages, "room", 2):until(messages, "state", 9)])
    assert session.may_resign and any(u.playing for u in game_two)
    assert session.seat_names() == ["Ann", "Tess"] and any(u.seating for u in game_two)
    assert session.notice is None and any(u.clear_notice for u in game_two)  # it has dealt her in


def test_a_reconnection_redraws_the_whole_log_from_the_history_once() -> None:
    messages = transcript("late_joiner")
    session = RoomSession("K7QPX2")
    cut = until(messages, "connected", 2) - 1
    before = drawn(replay(session, messages[:cut]))
    after = replay(session, messages[cut:])
    fresh = next(u for u in after if u.reset_log)
    assert [(i.kind, i.text) for i in fresh.log] == [(i.kind, i.text) for i in before]
    assert sum(1 for u in after if u.reset_log) == 1  # the asked-for history adds, never resets
    asked = [m for m in messages[cut:] if m["type"] == "history"][-1]
    assert asked["entries"] and drawn([u for u in after if u is not fresh][:-1]) == []
    assert [i.text for i in after[-1].log] == messages[-1]["lines"]
    assert session.seated and session.connections == 2


def test_skipped_versions_ask_the_history_once_and_its_answer_fills_the_gap() -> None:
    messages = transcript("late_joiner")
    cut = until(messages, "connected", 2) - 1
    first = messages[:cut]
    lost = [m for m in first if m["type"] == "state" and m["version"] in (13, 14, 15)]
    assert len(lost) == 3
    kept = [m for m in first if m not in lost]
    session = RoomSession("K7QPX2")
    updates = replay(session, kept)
    asked = [message for update in updates for message in update.send]
    assert asked == [{"type": "history", "since": 12}]
    assert "Tess plays 2♥" not in [i.text for i in drawn(updates)]  # left for the history
    # the room answers what it kept after version 12 (from the recorded history)
    full = next(m for m in messages[cut:] if m["type"] == "history")
    answer = {**full, "entries": [e for e in full["entries"] if e["version"] > 12]}
    filled = session.receive(partial(answer), 9.0)
    assert not filled.reset_log
    assert [i.text for i in filled.log] == state_lines([answer])
    assert [i.text for i in drawn([*updates, filled]) if i.kind == "line"] == state_lines(first)


def test_a_contested_slap_is_judged_once_in_the_log_and_on_the_notice_line() -> None:
    messages = transcript("contested_slap")
    session = RoomSession("K7QPX2")
    updates = replay(session, messages)
    judgement = messages[-1]
    assert judgement["type"] == "judgement"
    [item] = [i for i in drawn(updates) if i.kind == "judgement"]
    assert item == LogItem("judgement", judgement["text"], 1, "judgement")
    assert session.notice == Notice("judgement", judgement["text"], "judgement")
    assert session.judgement is not None and session.judgement["slaps"]
    again = session.receive(partial({"type": "history", "game": 1, "complete": True, "entries": [
        {"game": 1, "version": judgement["version"], "judgement": judgement}]}), 5.0)
    assert again.log == []  # from the history too, a judgement is drawn once


def test_a_notice_is_logged_and_shown_with_its_code() -> None:
    session = RoomSession("K7QPX2")
    update = session.receive({"type": "notice", "code": "resumed",
                              "message": "the database is back: the game goes on"}, 1.0)
    assert update.log == [LogItem("notice", "The database is back: the game goes on.", 1, "resumed")]
    assert update.notice == Notice("resumed", "The database is back: the game goes on.", "info")


def test_after_a_database_outage_the_resumed_notice_is_drawn_once_and_the_log_goes_on_whole() -> None:
    messages = transcript("database_outage")
    session = RoomSession("K7QPX2")
    updates = replay(session, messages)
    log = drawn(updates)
    notice = next(m for m in messages if m["type"] == "notice")
    assert [(i.kind, i.text, i.event_kind) for i in log if i.kind == "notice"] == [
        ("notice", "The database is back: the game goes on from its last stored move.", "resumed")]
    assert notice["code"] == "resumed" and notice["message"].startswith("the database is back")
    # while it was away, the refusals were said on the notice line, not logged
    refused = [u.notice for u in updates[:messages.index(notice)] if u.notice is not None][-2:]
    assert [(n.code, n.tone) for n in refused] == [("unavailable", "error")] * 2
    # the versions skipped over the outage were asked for once, and every line is drawn once
    assert sum(1 for u in updates for m in u.send if m["type"] == "history") == 1
    lines = [i.text for i in log if i.kind == "line"]
    assert lines == state_lines(messages) and len(lines) == len(set(lines))
    kinds = {i.text: i.event_kind for i in log}
    assert kinds["Bob is away: a bot plays for Bob until they come back"] == "seat_away"
    assert kinds["Bob is back and plays again"] == "seat_back"
    assert session.notice is not None and session.notice.code != "unavailable"


def test_the_rooms_own_lines_after_the_events_take_their_note_kinds() -> None:
    session = RoomSession("K7QPX2")
    live = session.receive(partial({"type": "state", "version": 1, "game": 1, "observation": {},
                                    "events": [{"kind": "card_played", "at": 1500, "seat": 0}],
                                    "lines": ["Ann plays 7♥", "Bob is away: a bot plays for Bob until they "
                                              "come back"], "note_kinds": ["seat_away"]}), 1.0)
    assert [(i.text[:11], i.event_kind, i.at) for i in live.log] == [
        ("Ann plays 7", "card_played", 1500), ("Bob is away", "seat_away", None)]
    told = session.receive({"type": "history", "game": 1, "complete": True, "entries": [
        {"game": 1, "version": 2, "events": [], "lines": ["Bob is back and plays again"],
         "note_kinds": ["seat_back"]},
        {"game": 1, "version": 3, "events": [], "lines": ["A line of a server with no kinds"]}]}, 2.0)
    assert [(i.text, i.event_kind) for i in told.log] == [
        ("Bob is back and plays again", "seat_back"), ("A line of a server with no kinds", None)]


def test_the_clock_runs_from_when_the_state_was_sent_and_stops_at_the_end() -> None:
    session = RoomSession("K7QPX2")
    assert session.now_ms(5.0) == 0.0
    session.receive(partial({"type": "state", "version": 3, "game": 1, "sent_at": 20_412,
                             "observation": {"now": 20_371, "over": False}, "events": [],
                             "lines": []}), 100.0)
    assert session.now_ms(100.25) == pytest.approx(20_662)
    session.receive(partial({"type": "state", "version": 4, "game": 1,
                             "observation": {"now": 30_000, "over": False}, "events": [],
                             "lines": []}), 200.0)
    assert session.now_ms(201.0) == pytest.approx(31_000)  # no sent_at: from the game's own time
    session.receive(partial({"type": "state", "version": 5, "game": 1, "sent_at": 41_000,
                             "observation": {"now": 40_990, "over": True}, "events": [],
                             "lines": []}), 300.0)
    assert session.now_ms(330.0) == 40_990


def test_a_late_joiners_first_state_carries_the_rooms_clock() -> None:
    messages = transcript("late_joiner")
    first = messages[until(messages, "state") - 1]
    assert first["events"] == [] and first["sent_at"] >= first["observation"]["now"] > 0


def test_a_server_of_another_protocol_is_left() -> None:
    update = RoomSession("K7QPX2").receive(partial({"type": "welcome", "protocol": 2, "seat": 0,
                                                    "token": "t"}), 0.0)
    assert update.leave is not None and "protocol version 2" in update.leave
    assert update.token is None


def test_a_name_another_player_holds_leaves_the_client_watching_with_the_servers_words() -> None:
    session = RoomSession("K7QPX2")
    refused = session.receive({"type": "error", "code": "name_taken", "message": "another player "
                               "already goes by 'Kim'. If that is you, bring your player to this "
                               "device with the import code …; otherwise choose another name"}, 0.0)
    assert refused.send == [{"type": "watch"}] and session.status == "watching"
    assert refused.notice is not None and refused.notice.text.startswith("Another player")
    assert "import code" in refused.notice.text
    watching = session.receive(partial({"type": "welcome", "protocol": 1, "seat": None, "token": None,
                                        "status": "watching"}), 0.1)
    assert watching.notice is None and session.notice is refused.notice  # the reason stays


def test_kicked_and_replaced() -> None:
    session = RoomSession("K7QPX2")
    session.receive(partial({"type": "welcome", "protocol": 1, "seat": 1, "token": "t",
                             "status": "player"}), 0.0)
    kicked = session.receive({"type": "kicked", "message": "the host removed you"}, 1.0)
    assert kicked.forget_token and not session.seated and session.status == "watching"
    assert kicked.notice == Notice("kicked", "The host removed you.", "error")
    replaced = session.receive({"type": "replaced", "message": "taken over"}, 2.0)
    assert replaced.replaced == "taken over"


@pytest.mark.parametrize("name", ["late_joiner", "contested_slap", "database_outage"])
def test_the_terminal_draws_the_log_the_page_draws_from_the_same_messages(name: str) -> None:
    expected = json.loads((TRANSCRIPTS / f"{name}.log.json").read_text())
    log = drawn(replay(RoomSession("K7QPX2"), transcript(name)))
    assert [{"kind": i.kind, "text": i.text, "game": i.game, "event_kind": i.event_kind}
            for i in log] == expected


def test_the_session_is_plain_python_without_a_screen() -> None:
    found = subprocess.run([sys.executable, "-c", "import sys, ratscrew.client.session; "
                            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
                            "('textual', 'rich')))"], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"


def test_a_full_waiting_list_leaves_the_client_watching_and_a_full_room_only_says_so() -> None:
    session = RoomSession("K7QPX2")
    refused = session.receive({"type": "error", "code": "room_full", "message": "32 people "
                               "already wait for the next game here; watch instead"}, 0.0)
    assert refused.send == [{"type": "watch"}] and session.status == "watching"
    assert refused.notice is not None and refused.notice.text.startswith("32 people")
    again = session.receive({"type": "error", "code": "room_full", "message": "200 people "
                             "already watch this room; try again later"}, 0.1)
    assert again.send == []  # no second watch: it would be refused again
    assert again.notice is not None and again.notice.text.startswith("200 people")
