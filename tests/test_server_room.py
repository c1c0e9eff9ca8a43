"""The room on a fake clock with fake connections: seats and tokens, the host's powers, a game
from start to record, stand-ins for idle players, and how actions are judged in table time."""

from __future__ import annotations

import pytest
from online import FakeConnection, FakeWall, act, make_room, move_to, run_until

from ratscrew.engine import Game
from ratscrew.protocol.client_messages import Configure, Kick, Ready, Rematch, SetSeat, Stand, Start, Watch
from ratscrew.protocol.codec import ProtocolError
from ratscrew.server.room.room import Room
from ratscrew.tui.stats import game_stats

# ---------------------------------------------------------------------------------- seats


def test_the_first_to_join_is_host_and_later_joiners_sit_in_open_seats_then_bot_seats() -> None:
    room, _ = make_room(seats=3, bots=["expert"])
    ann, bob, cat, dan = (FakeConnection(room) for _ in range(4))
    assert ann.join("Ann") | {"token": None} == {
        "type": "welcome", "protocol": 1, "code": room.code, "seat": 0, "token": None,
        "host": True, "name": "Ann", "status": "player", "player_id": None}  # a guest
    assert bob.join("Bob")["seat"] == 1 and not bob.last("welcome")["host"]
    assert cat.join("Cat")["seat"] == 2  # no open seat: Cat replaces the bot
    seats = ann.last("room")["seats"]
    assert [(s["kind"], s["name"], s["you"]) for s in seats] == [
        ("human", "Ann", True), ("human", "Bob", False), ("human", "Cat", False)]
    assert ann.last("room")["you"] == {"seat": 0, "host": True, "status": "player", "name": "Ann"}
    welcome = dan.join("Dan")
    assert welcome["seat"] is None and welcome["token"] and welcome["status"] == "waiting"
    assert ann.room_now()["waiting"] == [{"name": "Dan", "you": False}]
    assert dan.last("room")["waiting"] == [{"name": "Dan", "you": True}]
    assert dan.last("room")["spectators"] == 0  # waiting to play is not watching


def test_tokens_are_unguessable_and_never_sent_to_anyone_else() -> None:
    room, _ = make_room(seats=2)
    ann, bob = FakeConnection(room), FakeConnection(room)
    ann_token = ann.join("Ann")["token"]
    bob_token = bob.join("Bob")["token"]
    assert len(ann_token) >= 32 and ann_token != bob_token
    assert ann_token not in str(bob.sent) and bob_token not in str(ann.sent)
    assert all(ann_token not in str(seat) for seat in room.store.load_rooms()[0].seats)


def test_a_token_takes_the_seat_back_and_a_second_connection_replaces_the_first() -> None:
    room, _ = make_room(seats=2)
    first = FakeConnection(room)
    token = first.join("Ann")["token"]
    again = FakeConnection(room)
    welcome = again.join("Ann", token=token)
    assert welcome["seat"] == 0 and welcome["host"] and welcome["token"] == token
    assert first.last("replaced") and first.closed == (4001, "replaced")
    with pytest.raises(ProtocolError, match="send join or watch first"):
        first.do(Ready(True))  # the replaced connection acts for nobody


def test_a_forged_or_kicked_token_acts_for_nobody() -> None:
    room, _ = make_room(seats=3)
    host, bob = FakeConnection(room), FakeConnection(room)
    host.join("Ann")
    bob_token = bob.join("Bob")["token"]
    with pytest.raises(ProtocolError, match="not from this room") as forged:
        FakeConnection(room).join("Mallory", token="A" * 32)
    assert forged.value.code == "bad_token"
    host.do(Kick(1))
    assert bob.last("kicked") and bob.last("room")["you"] == {
        "seat": None, "host": False, "status": "watching", "name": None}
    assert room.seats[1].kind == "open"
    with pytest.raises(ProtocolError, match="removed") as kicked:
        FakeConnection(room).join("Bob", token=bob_token)
    assert kicked.value.code == "bad_token"


def test_only_the_host_changes_the_room() -> None:
    room, _ = make_room(seats=2)
    host, guest = FakeConnection(room), FakeConnection(room)
    host.join("Ann")
    guest.join("Bob")
    for message in (Start(), Configure(seats=3), SetSeat(1, "expert"), Kick(0), Rematch()):
        with pytest.raises(ProtocolError) as refused:
            guest.do(message)
        assert refused.value.code == "not_host"
    spectator = FakeConnection(room)
    room.connect(spectator)
    spectator.do(Watch())
    with pytest.raises(ProtocolError, match="only the host"):
        spectator.do(Start())


def test_the_host_changes_rules_seats_and_bots_before_the_start() -> None:
    room, _ = make_room(seats=2)
    host = FakeConnection(room)
    host.join("Ann")
    host.do(Configure(rules="northwest", seats=4, pace="fast", judging="first-packet"))
    host.do(SetSeat(3, "beginner"))
    message = host.last("room")
    assert message["rules"]["name"] == "northwest" and message["settings"]["seats"] == 4
    assert message["settings"]["pace"] == "fast" and message["settings"]["judging"] == "first-packet"
    assert [s["kind"] for s in message["seats"]] == ["human", "open", "open", "bot"]
    with pytest.raises(ProtocolError, match="tie_policy") as bad:
        host.do(Configure(rules="tie_policy = 'fastest'"))
    assert bad.value.code == "bad_rules" and room.settings.rules.name == "northwest"
    with pytest.raises(ProtocolError, match="person"):
        host.do(SetSeat(0, "expert"))
    with pytest.raises(ProtocolError, match="at most 5 players"):
        host.do(Configure(rules="pagat", seats=6))


def test_the_room_and_its_seats_are_stored() -> None:
    room, _ = make_room(seats=3, bots=["skilled"])
    FakeConnection(room).join("Ann")
    row = room.store.load_rooms()[0]
    assert row.code == room.code and row.phase == "lobby" and row.host_hash == room.seats[0].token_hash
    assert [(s.kind, s.name, s.bot) for s in row.seats] == [
        ("human", "Ann", None), ("open", None, None), ("bot", "Skilled bot", "skilled")]


# ---------------------------------------------------------------------------------- a game


def test_starting_fills_open_seats_and_each_connection_sees_its_own_view() -> None:
    room, _ = make_room(seats=3, seed=42)
    host, watcher = FakeConnection(room), FakeConnection(room)
    host.join("Ann")
    room.connect(watcher)
    watcher.do(Watch())
    host.do(Start())
    assert [s.kind for s in room.seats] == ["human", "bot", "bot"]
    dealt = Game.deal(room.settings.rules, players=3, seed=42)
    assert room.game is not None and room.game.initial_hands == dealt.initial_hands
    assert host.last("state")["observation"] == room.game.observe(0)
    assert watcher.last("state")["observation"] == room.game.observe(None)
    assert host.last("room")["phase"] == "playing"
    with pytest.raises(ProtocolError, match="already started"):
        host.do(Start())


def test_an_idle_player_is_played_for_after_the_turn_time_out() -> None:
    room, wall = make_room(seats=2, hands=["2C 3C", "4D 5D"], turn_timeout_ms=3000)
    ann = FakeConnection(room)
    ann.join("Ann")
    ann.do(Start())  # Bob's seat is filled by a bot; Ann leads but does nothing
    run_until(room, wall, 2990)
    assert room.game is not None and room.game.cards_played == 0
    run_until(room, wall, 3100)
    assert room.game.cards_played >= 1 and ann.last("state")["lines"][0] == "Ann plays 2♣"


def test_an_idle_challenge_winner_who_must_slap_is_collected_for() -> None:
    room, wall = make_room(rules="paranoid", seats=2, hands=["JC 2C 9H", "3D 4D 9S"],
                           turn_timeout_ms=2000)
    ann, bob = FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    bob.join("Bob")
    ann.do(Start())
    act(ann, wall, "play", 100, reaction_ms=90)   # Jack: Bob has one chance
    act(bob, wall, "play", 400, reaction_ms=200)  # 3D: Bob fails
    run_until(room, wall, 1000)
    assert room.game is not None and room.game.award is not None   # Ann must slap to claim
    run_until(room, wall, 4000)
    assert room.game.award is None and room.game.hand_size(0) == 4
    assert "Ann slaps to claim the pile" in [line for m in ann.of("state") for line in m["lines"]]


def test_a_kicked_player_is_replaced_by_a_bot_that_plays_on() -> None:
    room, wall = make_room(seats=3, seed=5, turn_timeout_ms=1000)  # Ann idles: played for
    ann, bob = FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    bob.join("Bob")
    ann.do(Start())
    ann.do(Kick(1))
    assert room.seats[1].kind == "bot" and room.seats[1].bot == "casual"
    with pytest.raises(ProtocolError, match="only a seated player"):
        bob.do(Ready(True))
    run_until(room, wall, 20_000)
    assert room.game is not None
    played_by_seat_1 = [a for a in room.game.actions_since(0) if a[0] == "play" and a[1] == 1]
    assert played_by_seat_1, "the bot in seat 1 never played"


def test_a_finished_game_is_stored_replays_and_counts_in_the_statistics() -> None:
    room, wall = make_room(seats=2, bots=["expert", "casual"], seed=3)
    watcher = FakeConnection(room)
    assert watcher.join("Ann")["seat"] == 1  # seats are all bots: Ann takes the last one...
    watcher.do(Stand())  # ...and gives it back to watch; the open seat gets a casual bot
    assert watcher.last("room")["you"]["host"]
    watcher.do(Start())
    run_until(room, wall, 3_600_000)
    assert room.game is not None and room.game.over and room.phase == "over"
    over = watcher.last("game_over")
    assert over["winner"] == room.game.winner and over["reason"] == room.game.end_reason
    record = room.store.game_record(over["game_id"])
    assert record is not None and over["record_url"] == f"/api/games/{over['game_id']}/record"
    replayed = Game.from_record(record)
    assert replayed.observe(None) == room.game.observe(None)
    assert record["names"] == ["Expert bot", "Casual bot"]
    from_record = game_stats(record)
    assert [r["slaps"] for r in over["results"]] == [s.slaps_won for s in from_record]
    assert [r["misslaps"] for r in over["results"]] == [s.misslaps for s in from_record]
    assert sum(r["slaps"] for r in over["results"]) > 0


def test_a_rematch_keeps_the_seats_and_deals_from_a_fresh_seed_not_the_next_one() -> None:
    room, wall = make_room(seats=2, bots=["expert", "expert"], seed=10)
    host = FakeConnection(room)
    host.join("Ann")
    host.do(Start())
    run_until(room, wall, 3_600_000)
    assert room.phase == "over"
    host.do(Rematch())
    assert room.phase == "playing" and room.games_played == 2
    assert room.game is not None
    # game 1's public record shows seed 10: the rematch must not be dealt from 11 (issue 29)
    assert room.game.seed != 11
    assert room.game.initial_hands != Game.deal(room.settings.rules, players=2, seed=11).initial_hands
    assert [seat.kind for seat in room.seats] == ["bot", "human"]  # Ann took the last bot's seat
    assert host.last("state")["observation"]["cards_played"] == 0


def test_a_restored_room_comes_back_at_the_same_state_and_plays_on() -> None:
    room, wall = make_room(seats=3, bots=["expert"], seed=8, turn_timeout_ms=1000)
    ann, bob = FakeConnection(room), FakeConnection(room)
    token = ann.join("Ann")["token"]
    bob.join("Bob")
    ann.do(Start())
    run_until(room, wall, 30_000)
    assert room.game is not None and room.game.cards_played > 10 and not room.game.over
    before = room.game.observe(None)
    row = room.store.load_rooms()[0]
    back = Room.restore(row, room.store, wall=wall, drive=False)
    assert back.phase == "playing" and back.game is not None
    assert back.game.observe(None) == before
    again = FakeConnection(back)
    assert again.join("Ann", token=token)["seat"] == 0
    assert again.last("state")["observation"] == back.game.observe(0)
    cards = back.game.cards_played
    move_to(back, wall, back.clock.now())
    run_until(back, wall, back.clock.now() + 20_000)
    assert back.game.cards_played > cards


def double_on_the_table(judging: str) -> tuple[Room, FakeWall, FakeConnection, FakeConnection, int]:
    """Ann (a 10 ms link) and Bob (a 200 ms link) see Bob cover Ann's 7H with 7S: a double.
    Returns the room time at which the server sent them that state."""
    room, wall = make_room(seats=2, hands=["7H 2C 3C", "7S 4D 5D"], judging=judging,
                           turn_timeout_ms=60_000)
    ann, bob = FakeConnection(room, rtt_ms=10), FakeConnection(room, rtt_ms=200)
    ann.join("Ann")
    bob.join("Bob")
    ann.do(Start())
    act(ann, wall, "play", 100, reaction_ms=95)
    act(bob, wall, "play", 800, reaction_ms=300)
    run_until(room, wall, 1200)
    assert room.game is not None and [str(c) for c in room.game.pile] == ["7H", "7S"]
    sent = int(ann.last("state")["sent_at"])
    assert bob.last("state")["version"] == ann.last("state")["version"]
    return room, wall, ann, bob, sent


@pytest.mark.parametrize(("judging", "winner"), [("fair", "Bob"), ("first-packet", "Ann")])
def test_the_quicker_reaction_wins_the_double_whoever_is_nearer(judging: str, winner: str) -> None:
    room, wall, ann, bob, sent = double_on_the_table(judging)
    # Ann sees the double 5 ms after it is sent and slaps 250 ms later: arrives at +260.
    # Bob sees it 100 ms after it is sent and slaps 200 ms later: arrives at +400.
    act(ann, wall, "slap", sent + 260, reaction_ms=250)
    act(bob, wall, "slap", sent + 400, reaction_ms=200)
    run_until(room, wall, sent + 2000)
    assert room.game is not None
    winner_seat = 0 if winner == "Ann" else 1
    assert room.game.hand_size(winner_seat) > room.game.hand_size(1 - winner_seat)
    judgement = ann.last("judgement")
    assert judgement["text"].startswith(f"{winner} was ") and "and takes the double" in judgement["text"]
    assert judgement["pile"] == ["7H", "7S"]  # the pile slapped, not the empty one after it
    bob_slap = next(s for s in judgement["slaps"] if s["name"] == "Bob")
    if judging == "fair":
        assert bob_slap["reaction_ms"] == 200 and bob_slap["compensated"]
        assert "link" not in judgement["text"]  # the link compensation is there on demand only
        assert "Bob 200 ms" in judgement["details"] and "Bob +200 ms" in judgement["details"]
    else:
        assert not bob_slap["compensated"]


def test_a_client_lying_about_its_reaction_gains_nothing_beyond_its_link() -> None:
    room, wall, ann, bob, sent = double_on_the_table("fair")
    # Ann, on a 10 ms link, slaps 330 ms after the state was sent but claims 120 ms; Bob's
    # honest 200 ms reaction (arriving at +400 over his slow link) is quicker than Ann's real one.
    act(ann, wall, "slap", sent + 330, reaction_ms=120)
    act(bob, wall, "slap", sent + 400, reaction_ms=200)
    run_until(room, wall, sent + 2000)
    assert room.game is not None and room.game.hand_size(1) > room.game.hand_size(0)
    ann_slap = next(s for s in ann.last("judgement")["slaps"] if s["name"] == "Ann")
    assert ann_slap["reaction_ms"] >= 310  # judged near its arrival, not at the claim


def test_a_slap_before_the_covering_card_in_table_time_still_wins_the_double() -> None:
    room, wall, ann, bob, sent = double_on_the_table("fair")
    # Ann covers the double 150 ms after it was sent (her play arrives at +160); Bob, far away,
    # slapped it 120 ms after seeing it, so his slap arrives later (+320) but came first.
    act(ann, wall, "play", sent + 160, reaction_ms=150)
    act(bob, wall, "slap", sent + 320, reaction_ms=120)
    run_until(room, wall, sent + 2000)
    assert room.game is not None and room.game.hand_size(1) > room.game.hand_size(0)
    lines = [line for m in bob.of("state") for line in m["lines"]]
    assert any(line.startswith("Bob slaps a double") for line in lines), lines
    assert not any(line.startswith("Ann plays 2") for line in lines[:lines.index(
        next(line for line in lines if line.startswith("Bob slaps a double")))])


class StoreCheckingConnection(FakeConnection):
    """A client that, at every state it is sent, checks the store already holds every action
    the engine had taken by then (persist before publish)."""

    def __init__(self, room: Room) -> None:
        super().__init__(room)
        self.checked = 0

    def send_state(self, version: int, encoded: str) -> None:
        game, game_id = self.room.game, self.room.game_id
        assert game is not None and game_id is not None
        stored = self.room.store.game_in_progress(game_id)
        held = [] if stored is None else stored.actions
        if stored is not None or not game.over:  # a finished game's actions sit in its record
            assert len(held) == game.action_count, (
                f"state {version} sent with {game.action_count} actions taken, {len(held)} stored")
            assert held == game.actions_since(0)
        self.checked += 1
        super().send_state(version, encoded)


def test_every_state_is_sent_only_after_the_actions_it_shows_are_stored() -> None:
    room, wall = make_room(seats=3, bots=["expert", "casual"], seed=11, turn_timeout_ms=1000)
    ann = StoreCheckingConnection(room)
    watcher = StoreCheckingConnection(room)
    ann.join("Ann")
    room.connect(watcher)
    watcher.do(Watch())
    ann.do(Start())
    run_until(room, wall, 60_000)  # Ann never acts: her turns time out, the bots play on
    assert room.game is not None and room.game.action_count > 20
    assert ann.checked > 20 and watcher.checked == ann.checked


def test_a_refused_action_is_told_in_words_with_names_not_seat_numbers() -> None:
    # the engine's own reason counts seats from 0 ("seat 1 cannot play: it is seat 0's turn"),
    # which a person in "seat 2" cannot read
    room, wall = make_room(seats=2, hands=["2C 3C", "4D 5D"])
    ann, bob = FakeConnection(room), FakeConnection(room)
    ann.join("Ann")
    bob.join("Bob")
    ann.do(Start())
    act(bob, wall, "play", 100)  # Ann leads
    run_until(room, wall, 400)
    assert bob.last("error") == {"type": "error", "code": "illegal",
                                 "message": "Bob: not your turn, Ann plays next."}
    act(ann, wall, "play", 500)
    act(ann, wall, "play", 600)  # twice in a row
    run_until(room, wall, 900)
    assert ann.last("error")["message"] == "Ann: not your turn, Bob plays next."


# ---------------------------------------------------------------------------------- a crowded lobby


def test_past_the_cap_of_people_waiting_a_newcomer_is_refused_and_may_watch() -> None:
    from ratscrew.server.room.lobby import MAX_WAITING_PEOPLE

    room, _ = make_room(seats=2)
    FakeConnection(room).join("Ann")
    FakeConnection(room).join("Bob")  # the table is full: everyone after waits
    for n in range(MAX_WAITING_PEOPLE):
        assert FakeConnection(room).join(f"Waiting {n}")["status"] == "waiting"
    late = FakeConnection(room)
    with pytest.raises(ProtocolError, match=f"{MAX_WAITING_PEOPLE} people already wait") as refusal:
        late.join("Late")
    assert refusal.value.code == "room_full"
    assert len(room.lobby.waiting) == MAX_WAITING_PEOPLE  # nothing changed
    late.do(Watch())
    assert late.last("welcome")["status"] == "watching"


def test_past_the_cap_of_watchers_a_watch_is_refused() -> None:
    from ratscrew.server.room.lobby import MAX_WATCHERS

    room, _ = make_room(seats=2)
    FakeConnection(room).join("Ann")
    for _ in range(MAX_WATCHERS):
        watcher = FakeConnection(room)
        room.connect(watcher)
        watcher.do(Watch())
    one_more = FakeConnection(room)
    room.connect(one_more)
    with pytest.raises(ProtocolError, match=f"{MAX_WATCHERS} people already watch") as refusal:
        one_more.do(Watch())
    assert refusal.value.code == "room_full"
    assert room.summary()["spectators"] == MAX_WATCHERS
