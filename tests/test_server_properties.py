"""Properties of the server over many random games and random (often hostile) message streams:
no client is ever sent a face-down card, each room's deck is conserved, a spectator or a
stranger acts for nobody, and every stored record replays to the same game."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from online import FakeConnection, SecrecyWatch, WatchedConnection, act, card_strings, make_room, run_until

from ratscrew.bots.profile import LEVELS
from ratscrew.cards import parse_cards
from ratscrew.engine import Game
from ratscrew.protocol.client_messages import Act, parse_client_message
from ratscrew.protocol.codec import ProtocolError
from ratscrew.protocol.server_messages import ErrorMessage
from ratscrew.ruleset import PRESET_NAMES
from ratscrew.server.room.room import Room

GAME_TIME_LIMIT_MS = 3_600_000


def deck_size(room: Room) -> int:
    assert room.game is not None
    return sum(len(cards) for cards in room.game.zones().values())


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(PRESET_NAMES), seats=st.integers(2, 4),
       levels=st.lists(st.sampled_from(sorted(LEVELS)), min_size=4, max_size=4),
       seed=st.integers(0, 2**32))
def test_random_games_through_a_room_leak_no_card_and_replay(rules: str, seats: int,
                                                             levels: list[str], seed: int) -> None:
    # seat 0 is a person who never acts (a stand-in plays for them), the rest are bots; a
    # spectator watches too. Every message to either is checked for face-down cards.
    room, wall = make_room(rules=rules, seats=seats, bots=levels[:seats - 1], seed=seed,
                           turn_timeout_ms=1000)
    watch = SecrecyWatch(room)
    player, spectator = WatchedConnection(room, watch), WatchedConnection(room, watch)
    player.join("Ann")
    room.connect(spectator)
    room.handle(spectator, parse_client_message('{"type": "watch"}'))
    player.do(parse_client_message('{"type": "start"}'))
    assert room.game is not None
    cards = deck_size(room)
    run_until(room, wall, GAME_TIME_LIMIT_MS)
    game = room.game
    assert game is not None and deck_size(room) == cards
    assert watch.messages > 10
    if game.over:
        over = spectator.last("game_over")
        record = room.store.game_record(over["game_id"])
        assert record is not None
        replayed = Game.from_record(json.loads(json.dumps(record)))
        assert (replayed.winner, replayed.end_reason) == (game.winner, game.end_reason)
        assert replayed.observe(None) == game.observe(None)


# ---------------------------------------------------------------------------------- fuzz

CLIENTS = 4  # 0 host, 1 a second player, 2 a spectator, 3 a stranger with a forged token

valid_messages = st.one_of(
    st.just({"type": "join", "name": "Ann"}),
    st.just({"type": "watch"}),
    st.builds(lambda r: {"type": "ready", "ready": r}, st.booleans()),
    st.just({"type": "start"}),
    st.just({"type": "play"}),
    st.builds(lambda r, v: {"type": "slap", "reaction_ms": r, "version": v},
              st.floats(0, 2000), st.integers(0, 50)),
    st.just({"type": "slap"}),
    st.just({"type": "resign"}),
    st.just({"type": "rematch"}),
    st.builds(lambda s: {"type": "kick", "seat": s}, st.integers(-1, 4)),
    st.builds(lambda s, b: {"type": "set_seat", "seat": s, "bot": b}, st.integers(0, 3),
              st.sampled_from([None, "casual", "expert"])),
    st.builds(lambda n: {"type": "configure", "seats": n}, st.integers(1, 9)),
    st.builds(lambda i: {"type": "pong", "id": i}, st.integers(0, 100)),
    st.just({"type": "join", "name": "Mallory", "token": "A" * 32}),
)
json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8)
garbage = st.one_of(
    st.text(max_size=40),
    st.binary(max_size=40),
    json_values.map(json.dumps),
    st.builds(lambda t, extra: json.dumps({"type": t, **extra}),
              st.sampled_from(["join", "slap", "play", "configure", "kick", "nope"]),
              st.dictionaries(st.sampled_from(["name", "seat", "reaction_ms", "version", "bot",
                                               "rules", "token", "x"]), json_values, max_size=3)),
    st.just('{"type": "slap", "reaction_ms": NaN}'),
    st.just('{"type": "slap", "reaction_ms": 1e400}'),
)
steps = st.lists(st.one_of(
    st.tuples(st.just("send"), st.integers(0, CLIENTS - 1), valid_messages.map(json.dumps)),
    st.tuples(st.just("send"), st.integers(0, CLIENTS - 1), garbage),
    st.tuples(st.just("wait"), st.just(0), st.integers(1, 3000).map(str)),
), max_size=40)


def deliver(room: Room, conn: FakeConnection, frame: str | bytes) -> ErrorMessage | None:
    """What the websocket endpoint does with a frame: parse it, hand it to the room, answer a
    refusal with an error. Returns the error, if any."""
    try:
        room.handle(conn, parse_client_message(frame))
    except ProtocolError as error:
        message = error.to_message()
        conn.send(message)
        return message
    return None


def is_action(frame: str | bytes) -> bool:
    """Whether ``frame`` is a well-formed play, slap or resign."""
    try:
        return isinstance(parse_client_message(frame), Act)
    except ProtocolError:
        return False


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 1000), script=steps)
def test_random_message_streams_from_several_clients_break_nothing(
        seed: int, script: list[tuple[str, int, Any]]) -> None:
    room, wall = make_room(rules="classic", seats=3, bots=["casual"], seed=seed,
                           turn_timeout_ms=60_000)
    watch = SecrecyWatch(room)
    clients = [WatchedConnection(room, watch) for _ in range(CLIENTS)]
    host, second, spectator, stranger = clients
    for conn in clients:
        room.connect(conn)
    deliver(room, host, '{"type": "join", "name": "Host"}')
    deliver(room, second, '{"type": "join", "name": "Bea"}')
    deliver(room, spectator, '{"type": "watch"}')
    assert deliver(room, stranger, '{"type": "join", "name": "Eve", "token": "' + "F" * 32 + '"}')
    wall_ms = 0.0
    for kind, who, payload in script:
        if kind == "wait":
            wall_ms += int(payload)
            run_until(room, wall, wall_ms)
        else:
            conn = clients[who]
            member = room.connections.get(conn)
            seated = member is not None and member.seat is not None
            error = deliver(room, conn, payload)
            if not seated and is_action(payload):
                assert error is not None, "an action from someone without a seat was taken"
            run_until(room, wall, wall_ms)
        # after every step: the room answers, the deck is whole, the record replays
        assert room.summary()["code"] == room.code
        if room.game is not None:
            assert deck_size(room) == 52
            replayed = Game.from_record(room.game.to_record())
            assert replayed.observe(None) == room.game.observe(None)
    assert not any(c.closed for c in (host, second))


def test_a_spectator_and_a_forger_cannot_play_for_anyone() -> None:
    room, wall = make_room(rules="classic", seats=2, seed=9, turn_timeout_ms=60_000)
    host, bea, spectator, forger = (FakeConnection(room) for _ in range(4))
    host.join("Host")
    bea.join("Bea")
    room.connect(spectator)
    deliver(room, spectator, '{"type": "watch"}')
    room.connect(forger)
    error = deliver(room, forger, '{"type": "join", "name": "Eve", "token": "' + "Z" * 32 + '"}')
    assert error is not None and error["code"] == "bad_token"
    deliver(room, host, '{"type": "start"}')
    for conn in (spectator, forger):
        for frame in ('{"type": "play"}', '{"type": "slap"}', '{"type": "resign"}',
                      '{"type": "start"}', '{"type": "kick", "seat": 1}'):
            refused = deliver(room, conn, frame)
            assert refused is not None and refused["code"] in ("not_seated", "not_host")
    run_until(room, wall, 2000)
    assert room.game is not None and room.game.action_count == 0


def test_the_secrecy_watch_catches_a_face_down_card() -> None:
    room, _ = make_room(rules="classic", seats=2, bots=["casual"], seed=3)
    watch = SecrecyWatch(room)
    host = WatchedConnection(room, watch)
    host.join("Ann")
    host.do(parse_client_message('{"type": "start"}'))
    assert room.game is not None
    hidden = str(room.game.zones()["hand 1"][-1])
    with pytest.raises(AssertionError, match="face-down"):
        watch.check({"type": "state", "lines": [f"Bob holds {hidden}"], "card": hidden})


# ---------------------------------------------------------------------------------- face-down cards


@pytest.mark.parametrize("rules", PRESET_NAMES)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32),
       slaps=st.lists(st.integers(0, 60_000), min_size=1, max_size=30, unique=True))
def test_no_message_names_a_face_down_card_when_a_person_slaps_at_random(
        rules: str, seed: int, slaps: list[int]) -> None:
    # seat 0 slaps at random moments (mostly misslaps, paying the rules' penalty); bots play the
    # other seats; the person, a second person and a spectator check everything they are sent
    room, wall = make_room(rules=rules, seats=3, bots=["casual"], seed=seed, turn_timeout_ms=1000)
    watch = SecrecyWatch(room)
    slapper, other, spectator = (WatchedConnection(room, watch) for _ in range(3))
    slapper.join("Ann")
    other.join("Bea")
    room.connect(spectator)
    room.handle(spectator, parse_client_message('{"type": "watch"}'))
    slapper.do(parse_client_message('{"type": "start"}'))
    for at in sorted(slaps):
        run_until(room, wall, at)
        if room.phase != "playing":
            break
        slapper.do(Act("slap"))
    run_until(room, wall, max(slaps) + 5000)
    assert watch.messages > 10


def test_a_paranoid_misslap_shows_everyone_how_many_cards_went_to_the_penalty_pile_not_which() -> None:
    # paranoid: a misslap puts five cards from the slapper's hand face down in a penalty pile
    room, wall = make_room(rules="paranoid", seats=2, hands=["7H QC TS 4S 5S 6S 8C", "3D 4D 9D"],
                           turn_timeout_ms=60_000)
    watch = SecrecyWatch(room)
    ann, bea, spectator = (WatchedConnection(room, watch) for _ in range(3))
    ann.join("Ann")
    bea.join("Bea")
    room.connect(spectator)
    room.handle(spectator, parse_client_message('{"type": "watch"}'))
    ann.do(parse_client_message('{"type": "start"}'))
    act(ann, wall, "play", 100)
    act(ann, wall, "slap", 400)  # a lone 7H is no pattern
    run_until(room, wall, 2000)
    assert room.game is not None and room.game.observe(None)["penalty_pile"] == 5
    paid = {str(card) for card in parse_cards("QC TS 4S 5S 6S")}
    for conn in (ann, bea, spectator):
        misslaps = [event for state in conn.of("state") for event in state["events"]
                    if event["kind"] == "misslap"]
        assert [(m["penalty"], m["paid"], m["cards"]) for m in misslaps] == [("penalty_pile", 5, [])]
        assert not card_strings(conn.sent) & paid, "a penalty card left the server"


def test_the_secrecy_watch_catches_a_penalty_pile_card() -> None:
    room, wall = make_room(rules="paranoid", seats=2, hands=["7H QC TS 4S 5S 6S 8C", "3D 4D 9D"],
                           turn_timeout_ms=60_000)
    watch = SecrecyWatch(room)
    ann = WatchedConnection(room, watch)
    ann.join("Ann")
    FakeConnection(room).join("Bea")
    ann.do(parse_client_message('{"type": "start"}'))
    act(ann, wall, "play", 100)
    act(ann, wall, "slap", 400)
    run_until(room, wall, 2000)
    with pytest.raises(AssertionError, match="face-down"):
        watch.check({"type": "state", "events": [{"kind": "misslap", "cards": ["QC", "TS"]}]})
