"""Fair to honest players (issue 46): a farm of keys cannot buy a rank, and a stranger who sits
down and resigns cannot unrate the others' game.

Games are played action by action on the real engine between keyed people (every action in
the record's ``judging``, as the room stores it) and stored and rated by the real store and
rating, as in tests/test_ladder.py."""

from __future__ import annotations

from typing import Any

from test_ladder import ANN, BOB, CLASSIC, a_store, alternate, finish, played

from ratscrew.engine import Game
from ratscrew.events import Event, PileWon
from ratscrew.server.http.games import public_record
from ratscrew.server.ladder import ratings
from ratscrew.server.ladder.ranking import conservative, leaderboard
from ratscrew.server.ladder.rated import (
    ABORTED,
    LEFT_EARLY,
    NO_ESTABLISHED_OPPONENT,
    Rated,
    game_facts,
    rating_verdict,
)
from ratscrew.storage.records import SeatResult
from ratscrew.storage.roles import Store

FAY = "FayPublic123"
PUPPETS = [f"Puppet{n}Public" for n in range(8)]


def slapper_against_an_idle_key(seed: int, slapper: int = 0) -> tuple[dict[str, Any], int | None, int]:
    """A whole game in which seat ``slapper`` slaps every slappable pile 300 ms after it shows
    and the other seat never slaps: both play their cards 500 ms after their turn comes and
    take a won challenge when it is collected. Returns the record, the winner and the piles the
    idle seat won (by challenges)."""
    game = Game.deal(CLASSIC, players=2, seed=seed)
    judging: list[dict[str, Any]] = []
    events: list[Event] = []
    at = 0
    while not game.over and at < 3_600_000:
        if game.slap_pattern() is not None:
            at += 300
            events += game.slap(slapper, at)
            judging.append(own(slapper, "slap", at))
        elif game.turn is not None:
            at += 500
            seat = game.turn
            events += game.play(seat, at)
            judging.append(own(seat, "play", at))
        else:
            deadline = game.next_deadline
            assert deadline is not None
            at = max(at, deadline)
            events += game.advance(at)
    record = game.to_record()
    record["judging"] = judging
    idle_piles = sum(1 for e in events if isinstance(e, PileWon) and e.seat == 1 - slapper)
    return record, game.winner, idle_piles


def own(seat: int, kind: str, at: int) -> dict[str, Any]:
    """A judging entry for an action the person sent."""
    return {"seat": seat, "kind": kind, "judged_at": at, "accepted": True, "reaction_ms": None,
            "reported_ms": None, "link_ms": 0, "clamped": None}


def finish_with(store: Store, record: dict[str, Any], winner: int | None,
                people: list[str | None], bots: tuple[str, ...] = ()) -> int:
    """Store and rate a finished game of ``people`` (player ids by seat) and then ``bots``."""
    game_id = store.start_game("ABCDEF", 1, "classic", {}, 0.0)
    results = [SeatResult(seat, "human", f"P{seat}", f"token-{seat}", winner == seat, 0, 0, (), player_id)
               for seat, player_id in enumerate(people)]
    results += [SeatResult(len(people) + n, "bot", f"{level} bot", None, winner == len(people) + n, 0, 0, (),
                           bot=level) for n, level in enumerate(bots)]
    store.finish_game(game_id, record, winner, "won", results)
    ratings.rate_finished_game(store, game_id)
    return game_id


def rating_of(store: Store, player_id: str) -> float:
    (classic,) = store.ratings_of(player_id)
    return conservative(classic["mu"], classic["sigma"])


def test_a_farm_of_puppet_keys_buys_no_rating_and_no_rank() -> None:
    store = a_store()
    store.enter_player("k-fay", "Fay", FAY)
    for puppet in PUPPETS:
        store.enter_player(f"k-{puppet}", puppet, puppet)
    games = puppet_piles = 0
    for round_ in range(3):  # 24 games: every puppet loses three times to Fay, never slapping
        for number, puppet in enumerate(PUPPETS):
            record, winner, piles = slapper_against_an_idle_key(seed=100 * round_ + number)
            assert winner == 0
            finish_with(store, record, winner, [FAY, puppet])
            games += 1
            puppet_piles += piles
    assert puppet_piles > 0  # the puppets took part: what stops the farm is that none is established
    # each puppet took part (it won piles by challenges), but none is established: every
    # puppet has met one player only, so Fay's wins raised nothing and rank her nowhere
    (fay,) = store.ratings_of(FAY)
    assert fay["games"] == 24 and fay["rank"] is None
    assert rating_of(store, FAY) == 0.0  # where every new player starts
    assert leaderboard(store, "classic") == []
    notes = {g["note"] for g in store.player_games(FAY, 100)}
    assert notes == {NO_ESTABLISHED_OPPONENT}

    # an honest newcomer with as many games, against the server's bots, winning half of them
    store.enter_player("k-nia", "Nia", "NiaPublic123")
    for game in range(games):
        record, winner, _ = slapper_against_an_idle_key(seed=5000 + game, slapper=game % 2)
        finish_with(store, record, winner, ["NiaPublic123"], bots=("casual",))
    assert rating_of(store, FAY) <= rating_of(store, "NiaPublic123")


def established(store: Store, *players: str) -> None:
    """Each of ``players`` plays a game against each of three bot levels."""
    for player in players:
        for game, level in enumerate(("casual", "skilled", "expert")):
            record, winner, _ = slapper_against_an_idle_key(seed=700 + game, slapper=game % 2)
            finish_with(store, record, winner, [player], bots=(level,))


def test_an_established_key_that_sits_idle_is_no_opponent_to_gain_from() -> None:
    store = a_store()
    established(store, ANN, BOB)
    before = rating_of(store, ANN)
    # Bob, established, sits idle: he never slaps and Ann wins at once, before he wins a pile
    record = played(["7H 2C", "7S 3D"], [(0, "play", 1000, True), (1, "play", 1500, True),
                                        (0, "slap", 1800, True)])
    game_id = finish_with(store, record, 0, [ANN, BOB])
    assert rating_of(store, ANN) == before  # a win over someone who did not play
    assert [g["note"] for g in store.player_games(ANN, 1)] == [NO_ESTABLISHED_OPPONENT]
    assert store.rating_notes(game_id) == {"unrated": None, "seats": {"0": NO_ESTABLISHED_OPPONENT}}


def test_a_win_over_an_established_player_who_plays_counts() -> None:
    store = a_store()
    established(store, ANN, BOB)
    before = rating_of(store, ANN)
    record, winner, bob_piles = slapper_against_an_idle_key(seed=900)
    assert winner == 0 and bob_piles > 0  # Bob took part: he won piles by challenges
    game_id = finish_with(store, record, winner, [ANN, BOB])
    assert rating_of(store, ANN) > before
    assert store.rating_notes(game_id) == {"unrated": None, "seats": {}}
    assert {p["player_id"] for p in leaderboard(store, "classic")} == {ANN, BOB}


def test_a_strangers_early_resignation_leaves_the_others_game_rated_and_the_record_says_who_left() -> None:
    store = a_store()  # Ann and Bob, and a stranger who takes the third seat
    store.enter_player("k-sam", "Sam", "SamPublic123")
    hands = ["2C 3C 4C 5C 6C", "2D 3D 4D 5D 6D", "2H 3H 4H 5H 6H"]
    moves = [((i % 3), "play", 1000 + 1000 * i, True) for i in range(2)]
    moves.append((2, "resign", 2000, True))  # Sam resigns after 2 s without a card of his own
    moves += [((i % 2), "play", 4000 + 1000 * i, True) for i in range(8)]
    game = Game(CLASSIC, hands=hands, leader=0)
    for seat, kind, at, _ in moves:
        getattr(game, kind)(seat, at)
    record = played(hands, moves)
    facts = game_facts(record, [(0, ANN), (1, BOB), (2, "SamPublic123")],
                       rules_name="classic")
    assert rating_verdict(facts) == Rated(frozenset(), frozenset({2}))
    game_id = finish_with(store, record, game.winner, [ANN, BOB, "SamPublic123"])
    notes = store.rating_notes(game_id)
    assert notes is not None and notes["unrated"] is None and notes["seats"]["2"] == LEFT_EARLY
    assert store.ratings_of("SamPublic123") == []  # the leaver's part is void
    assert store.ratings_of(ANN)[0]["games"] == 1
    assert store.ratings_of(BOB)[0]["games"] == 1
    assert [g["note"] for g in store.player_games("SamPublic123", 1)] == [LEFT_EARLY]


def test_a_two_seat_game_left_early_is_still_aborted_for_both() -> None:
    store = a_store()
    record = played(["2C 3C 4C 5C", "2D 3D 4D 5D"], [*alternate(0, 2), (1, "resign", 2500, True)])
    game_id = finish(store, record, None)
    assert store.rating_notes(game_id) == {"unrated": ABORTED, "seats": {}}
    assert store.ratings_of(ANN) == []


def test_the_public_record_says_whether_and_why_a_game_is_unrated() -> None:
    assert public_record({"hands": []}, None)["rating"] == {"rated": False, "unrated": None, "seats": {}}
    aborted = public_record({"hands": []}, {"unrated": ABORTED, "seats": {}})
    assert aborted["unrated"] == ABORTED and aborted["rating"]["rated"] is True
    left = public_record({"hands": []}, {"unrated": None, "seats": {"2": LEFT_EARLY}})
    assert "unrated" not in left and left["rating"]["seats"] == {"2": LEFT_EARLY}
