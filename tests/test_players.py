"""Players and ratings (docs/online.md, "Players and ratings"): a player is a key, never a typed
name; a game with a keyed person in it is rated once, by its finishing order, with bots as rated
opponents and guests left out; the player's record is ``GET /api/players/ID``."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_server_app import new_room, receive

from ratscrew.bots.agent import BotAgent
from ratscrew.bots.profile import LEVELS
from ratscrew.engine import Game
from ratscrew.events import Misslap, PlayerOut, SlappedIn, SlapWon
from ratscrew.results import FinishingOrder
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import Table
from ratscrew.server.app import create_app
from ratscrew.server.http import pages as app_module
from ratscrew.server.ladder import ratings
from ratscrew.server.ladder.players import PUBLIC_ID_PATTERN, export_code, hash_key
from ratscrew.server.ladder.ratings import rate, replay_places
from ratscrew.server.room.outage import watch_store
from ratscrew.server.room.room import StoredRoom
from ratscrew.storage.records import FinishedGame, Rating, SeatResult
from ratscrew.storage.sqlite import SqliteStore

ANN_KEY = "ann-key-Qm3xT9vLp2Zr7WbK4sYd8Hc"
BOB_KEY = "bob-key-Jt6Nq1FgX5uPe0RzVa9LwMk"


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(SqliteStore(":memory:"))) as test_client:
        yield test_client


def join(client: TestClient, code: str, name: str, key: str | None = None) -> dict[str, Any]:
    """Join ``code`` and return the answer (``welcome`` or ``error``)."""
    with client.websocket_connect(f"/ws/{code}") as ws:
        ws.send_json({"type": "join", "name": name} | ({"player_key": key} if key else {}))
        return receive(ws, "welcome") if key is None else _answer(ws)


def _answer(ws: Any) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = ws.receive_json()
        if message["type"] in ("welcome", "error"):
            return message


def play_and_resign(client: TestClient, name: str, key: str | None, bots: list[str]) -> dict[str, Any]:
    """A game of ``name`` against ``bots`` that ``name`` resigns (the bots win): its game_over."""
    code = new_room(client, seats=1 + len(bots), bots=bots)
    with client.websocket_connect(f"/ws/{code}") as ws:
        ws.send_json({"type": "join", "name": name} | ({"player_key": key} if key else {}))
        receive(ws, "welcome")
        ws.send_json({"type": "start"})
        receive(ws, "state")
        ws.send_json({"type": "resign"})
        return receive(ws, "game_over")


def store_of(client: TestClient) -> Any:
    return client.app.state.server.store  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------- who you are


def test_a_key_is_a_player_with_a_public_id_that_reveals_nothing_of_the_key(client: TestClient) -> None:
    welcome = join(client, new_room(client), "Ann", ANN_KEY)
    player_id = welcome["player_id"]
    assert welcome["type"] == "welcome" and PUBLIC_ID_PATTERN.fullmatch(player_id)
    assert player_id not in ANN_KEY and player_id not in hash_key(ANN_KEY)
    assert join(client, new_room(client), "Ann", ANN_KEY)["player_id"] == player_id  # another room
    row = store_of(client)._db.execute("SELECT * FROM players").fetchone()
    assert row["key_hash"] == hashlib.sha256(ANN_KEY.encode()).hexdigest()
    assert ANN_KEY not in [str(value) for value in tuple(row)]  # only the hash is stored


def test_the_name_is_the_keys_latest_and_typing_it_does_not_make_you_that_player(
        client: TestClient) -> None:
    ann = join(client, new_room(client), "Ann", ANN_KEY)["player_id"]
    join(client, new_room(client), "Annie", ANN_KEY)
    assert client.get(f"/api/players/{ann}").json()["name"] == "Annie"
    bob = join(client, new_room(client), "Ann", BOB_KEY)  # Ann's old name is free again
    assert bob["type"] == "welcome" and bob["player_id"] != ann


def test_a_name_another_key_holds_is_refused_and_nothing_changes(client: TestClient) -> None:
    ann = join(client, new_room(client), "Ann", ANN_KEY)["player_id"]
    code = new_room(client)
    refused = join(client, code, "ANN", BOB_KEY)
    assert refused["type"] == "error" and refused["code"] == "name_taken"
    assert "choose another name" in refused["message"]
    assert all(seat["kind"] != "human" for seat in client.get(f"/api/rooms/{code}").json()["seats"])
    assert store_of(client).player_by_key(hash_key(BOB_KEY)) is None
    assert client.get(f"/api/players/{ann}").json()["name"] == "Ann"
    assert join(client, code, "Ann")["player_id"] is None  # a guest may type any name


@pytest.mark.parametrize("key", ["short", "x" * 65, "has spaces in it......", "dots.are.not.allowed.x", 42])
def test_a_malformed_key_is_refused_and_nothing_changes(client: TestClient, key: Any) -> None:
    code = new_room(client)
    refused = join(client, code, "Ann", key)
    assert refused["type"] == "error" and refused["code"] == "bad_key"
    assert all(seat["kind"] != "human" for seat in client.get(f"/api/rooms/{code}").json()["seats"])
    assert store_of(client)._db.execute("SELECT COUNT(*) FROM players").fetchone()[0] == 0


def test_a_guest_plays_as_before_and_is_neither_rated_nor_listed(client: TestClient) -> None:
    welcome = join(client, new_room(client), "Gus")
    assert welcome["player_id"] is None and welcome["seat"] == 0
    over = play_and_resign(client, "Gus", None, ["casual"])
    assert over["winner"] == 1
    assert client.get("/api/leaderboard").json()["players"] == []
    assert store_of(client).ratings_of("bot:casual") == []  # no keyed person: nobody rated
    assert store_of(client).unrated_games() == []  # but the game is done with


# ---------------------------------------------------------------------------------- ratings


def test_a_finished_game_rates_the_keyed_player_and_the_bot_and_the_page_shows_it(
        client: TestClient) -> None:
    code = new_room(client, seats=3, bots=["casual"])
    with client.websocket_connect(f"/ws/{code}") as ws, client.websocket_connect(f"/ws/{code}") as guest:
        ws.send_json({"type": "join", "name": "Ann", "player_key": ANN_KEY})
        receive(ws, "welcome")
        guest.send_json({"type": "join", "name": "Gus"})
        receive(guest, "welcome")
        ws.send_json({"type": "start"})
        receive(ws, "state")
        ws.send_json({"type": "resign"})  # Ann goes out first, then the guest: the bot wins
        receive(guest, "state", lambda m: any(e["kind"] == "player_out" for e in m["events"]))
        guest.send_json({"type": "resign"})
        over = receive(ws, "game_over")
    assert over["winner"] == 2
    ann = store_of(client).player_by_key(hash_key(ANN_KEY)).player_id
    # rated, but not ranked yet: one opponent (the casual bot; the guest is not rated), and a
    # player is ranked after rated games against three different ones (issue 30)
    assert client.get("/api/leaderboard?rules=classic").json()["players"] == []
    page = client.get(f"/api/players/{ann}").json()
    assert set(page) == {"player_id", "name", "ratings", "games", "reactions", "slaps", "export_hint",
                         "integrity", "arenas"}
    assert page["arenas"] == []  # final standings of finished arenas (issue 50): none yet
    assert page["player_id"] == ann and page["name"] == "Ann"
    (classic,) = page["ratings"]
    assert set(classic) >= {"rules", "rating", "mu", "sigma", "games", "provisional", "rank", "history"}
    assert classic["rules"] == "classic" and classic["games"] == 1 and classic["rank"] is None
    assert classic["rating"] < 0.0 and classic["provisional"]  # beaten by the bot: below 0
    (step,) = classic["history"]
    assert step["game_id"] == over["game_id"] and step["rating_before"] == 0.0
    assert step["rating_after"] == classic["rating"] and step["at"].endswith("Z")
    assert (step["mu"], step["sigma"]) == (classic["mu"], classic["sigma"])
    (game,) = page["games"]  # the bot first, the guest (out last) second, Ann (out first) third
    assert game == {"id": over["game_id"], "rules": "classic", "finished_at": game["finished_at"],
                    "place": 3, "players": 3, "replay": f"/games/{over['game_id']}", "unrated": None,
                    "note": None}
    assert page["integrity"] == {"flagged": False, "reasons": [], "checked_slaps": 0}
    assert set(page["reactions"]) == {"you", "bots"} and set(page["reactions"]["bots"]) == set(LEVELS)
    assert all(isinstance(ms, int) for ms in page["reactions"]["bots"]["casual"])
    assert page["export_hint"] == "losing your key loses your record"
    casual = store_of(client).ratings_of("bot:casual")
    assert [(r["games"], r["rank"]) for r in casual] == [(1, None)]  # one level, one update
    assert casual[0]["mu"] > 25.0  # the bot beat Ann
    assert store_of(client).rating_history("bot:casual", "classic")[0]["game_id"] == over["game_id"]
    rated = store_of(client)._db.execute("SELECT participant FROM rating_updates").fetchall()
    assert sorted(row[0] for row in rated) == sorted([ann, "bot:casual"])  # the guest is left out


def test_ratings_are_per_ruleset_and_each_update_follows_the_last(client: TestClient) -> None:
    for _ in range(3):
        play_and_resign(client, "Ann", ANN_KEY, ["casual"])
    ann = store_of(client).player_by_key(hash_key(ANN_KEY)).player_id
    (classic,) = client.get(f"/api/players/{ann}").json()["ratings"]
    history = classic["history"]
    assert len(history) == classic["games"] == 3
    assert [h["rating_before"] for h in history[1:]] == [h["rating_after"] for h in history[:-1]]
    assert history[0]["rating_after"] > history[1]["rating_after"] > history[2]["rating_after"]
    assert client.get("/api/leaderboard?rules=pagat").json()["players"] == []


def result(seat: int, kind: str, player_id: str | None = None, bot: str | None = None) -> SeatResult:
    return SeatResult(seat, kind, f"seat {seat}", None, seat == 0, 0, 0, (), player_id, bot)


def finished(*results: SeatResult, winner: int = 0) -> FinishedGame:
    return FinishedGame(1, "classic", {}, winner, results)  # (an empty record: rated by the winner)


def test_a_game_without_a_keyed_person_changes_no_rating() -> None:
    game = finished(result(0, "human"), result(1, "bot", bot="casual"))
    assert rate(game, {}).changes == {}


def test_the_winner_gains_the_losers_drop_and_guests_are_left_out() -> None:
    game = finished(result(0, "human", "AnnPublic123"), result(1, "human"),  # seat 1: a guest
                    result(2, "bot", bot="expert"))
    changes = rate(game, {"bot:expert": Rating(30.0, 2.0, 40)}).changes
    assert set(changes) == {"AnnPublic123", "bot:expert"}
    ann, expert = changes["AnnPublic123"], changes["bot:expert"]
    assert (ann.mu_before, ann.sigma_before) == (25.0, 25.0 / 3) and ann.mu_after > 25.0
    assert ann.sigma_after < ann.sigma_before
    assert (expert.mu_before, expert.sigma_before) == (30.0, 2.0) and expert.mu_after < 30.0
    # a well-known bot (small sigma) moves less than a new player
    assert abs(expert.mu_after - 30.0) < abs(ann.mu_after - 25.0)


def test_two_bots_of_one_level_make_one_update_of_that_level() -> None:
    game = finished(result(0, "bot", bot="casual"), result(1, "human", "AnnPublic123"),
                    result(2, "bot", bot="casual"), winner=0)
    changes = rate(game, {}).changes
    assert set(changes) == {"AnnPublic123", "bot:casual"}
    # one casual bot won, one lost to... the winner only: places 1, 2, 2 → the level gains on mean
    assert changes["bot:casual"].mu_after > 25.0 > changes["AnnPublic123"].mu_after


def test_a_player_who_plays_only_bots_gets_a_rating_that_follows_their_results() -> None:
    store = SqliteStore(":memory:")
    store.save_room("ABCDEF", {}, None, "over", 0, None, [])
    player = store.enter_player("key", "Ann", "AnnPublic123").player_id
    ratings_after = []
    for won in (True, True, True, False):
        game_id = store.start_game("ABCDEF", 1, "classic", {}, 0.0)
        store.finish_game(game_id, {}, 0 if won else 1, "won",
                          [SeatResult(0, "human", "Ann", "t", won, 0, 0, (), player),
                           SeatResult(1, "bot", "Casual bot", None, not won, 0, 0, (), bot="casual")])
        ratings.rate_finished_game(store, game_id)
        ratings_after.append(store.ratings_of(player)[0]["mu"] - 3 * store.ratings_of(player)[0]["sigma"])
    assert ratings_after[0] < ratings_after[1] < ratings_after[2] and ratings_after[3] < ratings_after[2]
    assert store.ratings_of("bot:casual")[0]["games"] == 4


# ---------------------------------------------------------------------------------- the finishing order


def bot_game(seed: int, players: int = 4) -> tuple[Game, list[Any]]:
    game = Game.deal(Ruleset.preset("classic"), players=players, seed=seed)
    levels = ["beginner", "casual", "skilled", "expert"][:players]
    events = Table(game, [BotAgent(LEVELS[level], seed=seed + i) for i, level in enumerate(levels)],
                   max_cards=5000).run_virtual()
    return game, events


def test_the_winner_is_first_and_those_who_went_out_follow_the_last_out_best() -> None:
    checked = 0
    for seed in range(6):
        game, events = bot_game(seed)
        if not game.over or game.winner is None:
            continue
        places, _ = replay_places(game.to_record(), game.players, game.winner)
        assert places[game.winner] == 1
        gone: list[int] = []  # in the order they went out for the last time
        for event in events:
            if isinstance(event, (PlayerOut, SlappedIn)) and event.seat in gone:
                gone.remove(event.seat)
            if isinstance(event, PlayerOut) and event.seat is not None:
                gone.append(event.seat)
        assert sorted(places[seat] for seat in gone) == list(range(game.players - len(gone) + 1,
                                                                  game.players + 1))
        assert [places[seat] for seat in gone] == sorted((places[seat] for seat in gone), reverse=True)
        checked += 1
    assert checked >= 3


def test_a_seat_whose_last_card_started_a_challenge_it_won_finishes_ahead_of_an_earlier_leaver() -> None:
    """Ann resigns; Cat's last card is a jack, Bob fails to answer it and makes a sandwich, and
    Bob's slap takes every card before Cat collects: the game ends at once with no event saying
    Cat is out (she was owed the pile). Cat went out after Ann, so she is second, not last."""
    game = Game(Ruleset.preset("classic"), hands=["2C", "7H 7S", "JC"], leader=1)
    events = game.resign(0, 0)
    for seat, at in ((1, 100), (2, 200), (1, 300)):
        events += game.play(seat, at)
    events += game.slap(1, 400)
    assert game.over and game.winner == 1
    assert [e.seat for e in events if isinstance(e, PlayerOut)] == [0, 1]  # Bob's, then he slapped in
    order = FinishingOrder()
    order.events(events)
    assert order.places_of(game) == [3, 1, 2]


def test_slaps_by_pattern_count_each_seats_won_slaps_and_misslaps() -> None:
    game, events = bot_game(4)
    _, patterns = replay_places(game.to_record(), game.players, game.winner)
    for seat in range(game.players):
        won: dict[str, int] = {}
        for event in events:
            if isinstance(event, SlapWon) and event.seat == seat:
                won[event.pattern] = won.get(event.pattern, 0) + 1
        counted = patterns.get(seat, {})
        assert {p: c[0] for p, c in counted.items() if c[0]} == won
        assert counted.get("none", [0, 0, 0])[2] == sum(
            1 for e in events if isinstance(e, Misslap) and e.seat == seat)
    assert any(patterns.values())


# ---------------------------------------------------------------------------------- moving a key


def test_an_import_code_brings_the_key_back_on_this_server_only(client: TestClient, tmp_path: Path) -> None:
    ann = join(client, new_room(client), "Ann", ANN_KEY)["player_id"]
    exported = client.post("/api/players/export", json={"player_key": ANN_KEY}).json()
    assert exported["player_id"] == ann and exported["code"].startswith(ANN_KEY + ".")
    imported = client.post("/api/players/import", json={"code": exported["code"]})
    assert imported.status_code == 200
    assert imported.json() == {"player_id": ann, "name": "Ann", "player_key": ANN_KEY}
    with TestClient(create_app(SqliteStore(tmp_path / "other.db"), close_store=True)) as other:
        elsewhere = other.post("/api/players/import", json={"code": exported["code"]})
        assert elsewhere.status_code == 400 and elsewhere.json()["error"] == "other_server"
        assert "another server" in elsewhere.json()["message"]
    unknown = client.post("/api/players/import",
                          json={"code": export_code(BOB_KEY, store_of(client).server_id())})
    assert unknown.status_code == 404 and unknown.json()["error"] == "unknown_player"
    for code in ("", ANN_KEY, "not a code.abcdef", ANN_KEY + ".abc"):
        bad = client.post("/api/players/import", json={"code": code})
        assert bad.status_code == 400 and bad.json()["error"] == "bad_code"
    assert client.post("/api/players/import", json={"nothing": 1}).status_code == 400
    assert client.post("/api/players/export", json={"player_key": "x"}).json()["error"] == "bad_key"
    assert client.post("/api/players/export", json={"player_key": BOB_KEY}).status_code == 404


def test_an_unknown_player_is_a_404_on_the_api_and_the_page(client: TestClient) -> None:
    answer = client.get("/api/players/AAAAAAAAAAAA")
    assert answer.status_code == 404 and answer.json()["error"] == "unknown_player"
    assert client.get("/api/players/..%2Fetc").status_code == 404
    assert client.get("/players/AAAAAAAAAAAA").status_code == 404


def test_the_player_page_is_served_for_a_known_player_when_it_exists(
        client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ann = join(client, new_room(client), "Ann", ANN_KEY)["player_id"]
    monkeypatch.setattr(app_module, "WEB_DIR", tmp_path)
    assert client.get(f"/players/{ann}").status_code == 404  # no page file: a clean 404
    (tmp_path / "player.html").write_text("<!doctype html><title>player</title>")
    page = client.get(f"/players/{ann}")
    assert page.status_code == 200 and "player" in page.text
    assert "content-security-policy" in page.headers


def test_a_seat_taken_back_with_its_token_after_a_restart_is_still_the_same_player(tmp_path: Path) -> None:
    db = tmp_path / "ratscrew.db"
    with TestClient(create_app(db)) as client:
        code = new_room(client, bots=["casual"])
        with client.websocket_connect(f"/ws/{code}") as ws:
            ws.send_json({"type": "join", "name": "Ann", "player_key": ANN_KEY})
            first = receive(ws, "welcome")
    with TestClient(create_app(db)) as client:  # the same database, a new server
        with client.websocket_connect(f"/ws/{code}") as ws:
            ws.send_json({"type": "join", "name": "Ann", "token": first["token"]})  # no key sent
            again = receive(ws, "welcome")
            assert again["seat"] == 0 and again["player_id"] == first["player_id"]
            ws.send_json({"type": "start"})
            receive(ws, "state")
            ws.send_json({"type": "resign"})
            receive(ws, "game_over")
        page = client.get(f"/api/players/{first['player_id']}").json()
        assert [g["place"] for g in page["games"]] == [2] and page["ratings"][0]["games"] == 1


class PausedRoom:
    """A room paused by a database outage (what `watch_store` sees of it)."""

    code = "ABCDEF"

    def __init__(self) -> None:
        self.paused: str | None = "the database is away"

    def read_stored(self) -> StoredRoom:
        return StoredRoom(None, None)

    def reload(self, stored: StoredRoom) -> None:
        self.paused = None


async def test_when_the_database_is_back_the_games_the_outage_left_unrated_are_rated() -> None:
    store = SqliteStore(":memory:")
    store.save_room("ABCDEF", {}, None, "over", 1, None, [])
    player = store.enter_player("key", "Ann", "AnnPublic123").player_id
    game_id = store.start_game("ABCDEF", 1, "classic", {}, 0.0)
    store.finish_game(game_id, {}, 1, "won", [  # stored; then the database went away: not rated
        SeatResult(0, "human", "Ann", "t", False, 0, 0, (), player),
        SeatResult(1, "bot", "Casual bot", None, True, 0, 0, (), bot="casual")])
    room = PausedRoom()
    watcher = asyncio.create_task(watch_store(store, {"ABCDEF": room}, every_s=0.01))  # type: ignore[dict-item]
    try:
        for _ in range(200):
            await asyncio.sleep(0.01)
            if not store.unrated_games():
                break
    finally:
        watcher.cancel()
    assert room.paused is None and store.unrated_games() == []
    assert [h["game_id"] for h in store.rating_history(player, "classic")] == [game_id]


def test_a_join_refused_for_its_token_leaves_the_keys_name_as_it_was(client: TestClient) -> None:
    ann = join(client, new_room(client), "Ann", ANN_KEY)["player_id"]
    with client.websocket_connect(f"/ws/{new_room(client)}") as ws:
        ws.send_json({"type": "join", "name": "Zed", "player_key": ANN_KEY,
                      "token": "t" * 32})  # a token this room never gave out
        refused = _answer(ws)
    assert refused["type"] == "error" and refused["code"] == "bad_token"
    assert client.get(f"/api/players/{ann}").json()["name"] == "Ann"
