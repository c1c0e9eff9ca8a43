"""The lag cheat (issue 46, item 4): a client that answers pings late, so that its link looks
slower than it is, and claims quick reactions. The room bounds a claim by the round trip the
link's own evidence supports (`ratscrew.server.room.judging.judge_on_link`): the lower of the pongs'
minimum and what the client's earlier stamped actions imply. Rooms run on the fake clock
(tests/online.py); each `FakeConnection`'s pongs are given as the round trip they measured.
"""

from __future__ import annotations

from online import FakeConnection, FakeWall, act, make_room, run_until

from ratscrew.protocol.client_messages import Start
from ratscrew.server.room.judging import (
    ALLOWANCE_CAP_MS,
    ALLOWANCE_FLOOR_MS,
    SETTLE_CAP_MS,
    allowance_ms,
)
from ratscrew.server.room.room import Room

ANN_ONE_WAY = 10.0
"""Ann is honest, 10 ms away each way, and slaps 350 ms after she sees the double."""
ANN_REACTION = 350.0


def double_after_honest_plays(bob_one_way: float, bob_pongs_ms: float,
                              bob_late_pongs_ms: tuple[float, ...] = ()) -> tuple[
        Room, FakeWall, FakeConnection, FakeConnection, float]:
    """Ann covers nothing with 7H, Bob covers it with 7S (a double); each plays 200-500 ms
    after seeing their turn, stamped as it happened, over their real links. Bob's pongs
    measured ``bob_pongs_ms``, then ``bob_late_pongs_ms``. Returns the room time the double
    was sent to both."""
    room, wall = make_room(seats=2, hands=["7H 2C 3C", "7S 4D 5D"], turn_timeout_ms=60_000)
    ann = FakeConnection(room, rtt_ms=2 * ANN_ONE_WAY)
    bob = FakeConnection(room, rtt_ms=bob_pongs_ms)
    for pong in bob_late_pongs_ms:
        bob.pinger.link.add(pong)
    ann.join("Ann")
    bob.join("Bob")
    ann.do(Start())
    sent = float(ann.last("state")["sent_at"])
    act(ann, wall, "play", sent + 2 * ANN_ONE_WAY + 200, reaction_ms=200)
    run_until(room, wall, room.clock.now() + SETTLE_CAP_MS)  # the card is out by then
    assert room.game is not None and [str(c) for c in room.game.pile] == ["7H"]
    sent = float(bob.last("state")["sent_at"])
    act(bob, wall, "play", sent + 2 * bob_one_way + 500, reaction_ms=500)
    run_until(room, wall, room.clock.now() + SETTLE_CAP_MS)
    assert [str(c) for c in room.game.pile] == ["7H", "7S"]
    double = float(ann.last("state")["sent_at"])
    assert float(bob.last("state")["sent_at"]) == double
    return room, wall, ann, bob, double


def race(room: Room, wall: FakeWall, ann: FakeConnection, bob: FakeConnection, double: float,
         bob_one_way: float, bob_real_ms: float, bob_claim_ms: float) -> dict[str, dict[str, object]]:
    """Ann and Bob slap the double; the judgement's slaps by name."""
    slaps = sorted([(double + 2 * ANN_ONE_WAY + ANN_REACTION, ann, ANN_REACTION),
                    (double + 2 * bob_one_way + bob_real_ms, bob, bob_claim_ms)], key=lambda s: s[0])
    for arrive, conn, claim in slaps:
        act(conn, wall, "slap", arrive, reaction_ms=claim)
    run_until(room, wall, double + 3000)
    judgement = ann.last("judgement")
    assert judgement["pile"] == ["7H", "7S"]
    return {str(s["name"]): s for s in judgement["slaps"]}


def test_a_client_that_answers_pings_late_does_not_win_with_a_quick_claim() -> None:
    # Bob's link is 60 ms slower than Ann's (40 ms each way), but he holds every pong 200 ms
    # (they read 280 ms); he slaps 450 ms after he sees the double and claims 300 ms. Before,
    # the 280 ms "explained" the claim and he took the double. His own play, stamped as it
    # happened, showed an 80 ms link: his slap is judged at most 80 ms + the allowance early.
    room, wall, ann, bob, double = double_after_honest_plays(bob_one_way=40, bob_pongs_ms=280)
    slaps = race(room, wall, ann, bob, double, bob_one_way=40, bob_real_ms=450, bob_claim_ms=300)
    assert slaps["Ann"]["result"] == "won" and slaps["Bob"]["result"] != "won"
    assert room.game is not None and room.game.hand_size(0) > room.game.hand_size(1)
    assert isinstance(slaps["Bob"]["link_ms"], int) and slaps["Bob"]["link_ms"] <= 80 + 5


def test_a_cheat_that_holds_its_pongs_unevenly_gets_no_wider_allowance() -> None:
    # The same cheat holds its pongs 200-260 ms: their jitter would allow it 50 ms more, but
    # pongs its own actions contradict are no evidence of jitter either
    late = (300.0, 340.0, 290.0, 335.0, 330.0)
    room, wall, ann, bob, double = double_after_honest_plays(40, 280, late)
    assert allowance_ms(bob.pinger.link) == ALLOWANCE_CAP_MS
    slaps = race(room, wall, ann, bob, double, bob_one_way=40, bob_real_ms=450, bob_claim_ms=300)
    assert slaps["Bob"]["link_ms"] == 80 + ALLOWANCE_FLOOR_MS and slaps["Ann"]["result"] == "won"


def test_an_honest_player_on_a_slow_link_keeps_the_whole_compensation() -> None:
    # The same pongs from a link that really is 280 ms: Bob's play implies 280 ms too, and his
    # real 300 ms reaction beats Ann's 350 ms as at one table.
    room, wall, ann, bob, double = double_after_honest_plays(bob_one_way=140, bob_pongs_ms=280)
    slaps = race(room, wall, ann, bob, double, bob_one_way=140, bob_real_ms=300, bob_claim_ms=300)
    assert slaps["Bob"]["result"] == "won" and slaps["Ann"]["result"] != "won"
    assert slaps["Bob"]["reaction_ms"] == 300 and slaps["Bob"]["link_ms"] == 280
