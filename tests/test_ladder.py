"""A ladder you can trust (issue 30): look-alike rules, aborted and farmed games, seats played
for an absent person, and the integrity flags with the moderator's command that clears them.

Games are dealt from card notation and played action by action on the real engine; what a
person sent is in the record's ``judging`` (as the room stores it), everything else a seat did
was done for them (turn time-outs). They are stored and rated by the real store and rating."""

from __future__ import annotations

import dataclasses
import json
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from serving import ServerProcess
from starlette.testclient import TestClient
from test_server_app import new_room, receive

from ratscrew.bots.agent import draw_reaction_ms
from ratscrew.bots.profile import LEVELS
from ratscrew.cards import parse_cards
from ratscrew.cli import main
from ratscrew.engine import Game
from ratscrew.integrity import FLOOR_MIN, SlapSample, assess
from ratscrew.patterns import find_slap
from ratscrew.ruleset import Ruleset
from ratscrew.server.app import create_app
from ratscrew.server.ladder import ratings
from ratscrew.server.ladder.ranking import leaderboard
from ratscrew.server.ladder.rated import (
    ABORTED,
    CUSTOM_RULES,
    FARMED,
    FLAGGED,
    Rated,
    Unrated,
    game_facts,
    rating_verdict,
)
from ratscrew.storage.records import SeatResult
from ratscrew.storage.roles import Store
from ratscrew.storage.sqlite import SqliteStore

KEY_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
CLASSIC = Ruleset.preset("classic")
ANN, BOB = "AnnPublic123", "BobPublic123"

Move = tuple[int, str, int, bool]
"""(seat, "play" | "resign" | "slap", at ms, sent by the person themselves)."""


def played(hands: Sequence[str], moves: Sequence[Move], rules: Ruleset = CLASSIC) -> dict[str, Any]:
    """The record of a game dealt ``hands`` (seat 0 leads) after ``moves``, with a judging entry
    for each move the person sent (as the room records it)."""
    game = Game(rules, hands=list(hands), leader=0)
    judging = []
    for seat, kind, at, own in moves:
        if kind == "advance":  # time passing (a pile collected after its grace)
            game.advance(at)
            continue
        getattr(game, kind)(seat, at)
        if own:
            judging.append({"seat": seat, "kind": kind, "judged_at": at, "accepted": True,
                            "reaction_ms": None, "reported_ms": None, "link_ms": 0, "clamped": None})
    record = game.to_record()
    record["judging"] = judging
    return record


def alternate(first: int, count: int, start: int = 1000, gap: int = 1000,
              own: Sequence[bool] = (True, True)) -> list[Move]:
    """``count`` plays in turn between seats 0 and 1, ``first`` leading."""
    return [((first + i) % 2, "play", start + i * gap, own[(first + i) % 2]) for i in range(count)]


def a_store() -> SqliteStore:
    store = SqliteStore(":memory:")
    store.save_room("ABCDEF", {}, None, "over", 0, None, [])
    for key, name, player_id in (("k-ann", "Ann", ANN), ("k-bob", "Bob", BOB)):
        store.enter_player(key, name, player_id)
    return store


def finish(store: Store, record: dict[str, Any], winner: int | None, rules_name: str = "classic",
           people: Sequence[str | None] = (ANN, BOB)) -> int:
    """Store a finished game of ``people`` (player ids by seat) and rate it as the room does."""
    game_id = store.start_game("ABCDEF", 1, rules_name, {}, 0.0)
    results = [SeatResult(seat, "human", f"P{seat}", f"token-{seat}", winner == seat, 0, 0, (), player_id)
               for seat, player_id in enumerate(people)]
    store.finish_game(game_id, record, winner, "won", results)
    ratings.rate_finished_game(store, game_id)
    return game_id


def verdict_of(store: Store, game_id: int) -> Any:
    return next(g["unrated"] for g in store.player_games(ANN, 100) if g["id"] == game_id)


# ------------------------------------------------------------------------ 1. the real rules


def test_a_look_alike_rule_set_named_classic_is_custom_rules_and_unrated() -> None:
    look_alike = dataclasses.replace(CLASSIC, slaps=("double",))  # says "classic"; one setting changed
    assert look_alike.name == "classic"
    store = a_store()
    record = played(["2C 3C 4C 5C", "2D 3D 4D 5D"], alternate(0, 8), look_alike)
    game_id = finish(store, record, None)
    assert verdict_of(store, game_id) == CUSTOM_RULES == "custom rules (unrated)"
    assert store.ratings_of(ANN) == [] and store.ratings_of(BOB) == []
    # the same game under the real classic rules is rated
    real = finish(store, played(["2C 3C 4C 5C", "2D 3D 4D 5D"], alternate(0, 8)), None)
    assert verdict_of(store, real) is None and store.ratings_of(ANN)[0]["games"] == 1


def test_the_room_and_the_records_say_custom_rules_unrated_for_a_look_alike(tmp_path: Path) -> None:
    toml = CLASSIC.to_toml().replace('slaps = ["double", "sandwich"]', 'slaps = ["double"]')
    assert 'name = "classic"' in toml and toml != CLASSIC.to_toml()
    with TestClient(create_app(tmp_path / "ratscrew.db")) as client:
        code = new_room(client, rules=toml, bots=["casual"], seed=3)
        rules = client.get(f"/api/rooms/{code}").json()["rules"]
        assert rules["name"] == "classic" and rules["preset"] is False
        assert rules["unrated"] == "custom rules (unrated)"
        real = client.get(f"/api/rooms/{new_room(client, bots=['casual'])}").json()["rules"]
        assert real["preset"] is True and real["unrated"] is None
        with client.websocket_connect(f"/ws/{code}") as ws:
            ws.send_json({"type": "join", "name": "Ann", "player_key": "ann-key-Qm3xT9vLp2Zr7WbK4sYd8Hc"})
            ann = receive(ws, "welcome")["player_id"]
            ws.send_json({"type": "start"})
            receive(ws, "state")
            ws.send_json({"type": "resign"})
            over = receive(ws, "game_over")
        assert client.get(over["record_url"]).json()["unrated"] == "custom rules (unrated)"
        page = client.get(f"/api/players/{ann}").json()
        assert page["ratings"] == [] and [g["unrated"] for g in page["games"]] == ["custom rules (unrated)"]


# ------------------------------------------------------------------------ 2. aborted, farmed, absent


def test_a_resignation_before_the_game_really_started_aborts_it_for_everyone() -> None:
    store = a_store()
    # Bob resigns at 4 s having played 2 of his own cards: aborted, nobody is rated
    record = played(["2C 3C 4C 5C", "2D 3D 4D 5D"], [*alternate(0, 4), (1, "resign", 4500, True)])
    early = finish(store, record, None)
    assert verdict_of(store, early) == ABORTED and store.ratings_of(ANN) == store.ratings_of(BOB) == []


def test_quick_resignations_between_two_keys_are_farmed_unrated_and_the_farmer_is_unranked() -> None:
    store = a_store()
    verdicts = []
    for _ in range(4):  # Bob plays 3 cards, then resigns at 8 s: Ann wins, again and again
        record = played(["2C 3C 4C 5C 6C", "2D 3D 4D 5D 6D"],
                        [*alternate(0, 6), (1, "resign", 8000, True)])
        verdicts.append(verdict_of(store, finish(store, record, None)))
    assert verdicts == [None, FARMED, FARMED, FARMED]  # once may be someone called away
    (classic,) = store.ratings_of(ANN)
    assert classic["games"] == 1 and classic["rank"] is None  # one rated game, one opponent
    assert leaderboard(store, "classic") == []


def test_a_seat_time_outs_played_for_gains_nothing_from_its_win_and_its_opponents_loss_counts() -> None:
    store = a_store()
    # Ann plays her first three cards herself, then leaves: time-outs play the rest, her king
    # last; Bob has no card left to answer it, so Ann (absent) wins every card
    hands = ["2C 3C 4C 5C 6C 7C 8C 9C TC KC", "5D 6D 7D 8D 9D TD 2D 3D 4D"]
    game = Game(CLASSIC, hands=hands, leader=0)
    moves: list[Move] = []
    at = 1000
    while not game.over:
        seat = game.turn
        if seat is None:
            moves.append((0, "advance", at, False))
            game.advance(at)
        else:
            ann_plays = sum(1 for m in moves if m[0] == 0 and m[1] == "play")
            moves.append((seat, "play", at, seat == 1 or ann_plays < 3))
            game.play(seat, at)
        at += 1000 if at < 6000 else 5000
    assert game.winner == 0
    record = played(hands, moves)
    facts = game_facts(record, [(0, ANN), (1, BOB)], rules_name="classic")
    ann = facts.people[0]
    assert ann.own_actions == 3 and ann.played_for_share > 0.5 and not ann.left_early
    assert rating_verdict(facts) == Rated(frozenset({0}))
    game_id = finish(store, record, 0)
    assert verdict_of(store, game_id) is None
    assert store.ratings_of(ANN) == []  # her win gained her nothing
    (bob,) = store.rating_history(BOB, "classic")
    assert bob["mu_after"] < bob["mu_before"]  # Bob's loss counts


def test_the_verdict_names_one_reason_in_a_fixed_order() -> None:
    record = played(["2C 3C 4C 5C", "2D 3D 4D 5D"], [*alternate(0, 4), (1, "resign", 4500, True)])
    people = [(0, ANN), (1, BOB)]
    assert rating_verdict(game_facts(record, people, flagged=[BOB])) == Unrated(FLAGGED)
    assert rating_verdict(game_facts(record, people)) == Unrated(ABORTED)
    record["rules"] = dataclasses.replace(CLASSIC, jokers=True).to_dict()
    assert rating_verdict(game_facts(record, people, flagged=[BOB])) == Unrated(CUSTOM_RULES)


# ------------------------------------------------------------------------ 3. integrity


def slaps(reactions: Sequence[float]) -> list[SlapSample]:
    return [SlapSample(r, r, 5.0) for r in reactions]


def test_each_flag_fires_on_its_own_cheat_and_explains_itself() -> None:
    assert [f.name for f in assess(slaps([40.0] * 20)).flags if f.fired] == ["floor"]
    assert [f.name for f in assess(slaps([150.0, 155.0, 148.0, 152.0] * 8)).flags if f.fired] == [
        "flat", "fast", "model"]
    assert [f.name for f in assess(slaps([150.0, 155.0, 148.0, 152.0] * 5)).flags if f.fired] == [
        "fast", "model"]  # too few for `flat`, which waits for FLAT_MIN
    lag = [SlapSample(250.0, 0.0, 320.0, "link") for _ in range(12)]
    verdict = assess(lag)
    assert [f.name for f in verdict.flags if f.fired] == ["lag"] and verdict.checked_slaps == 12
    assert "delays its pings" in verdict.reasons[0]


def test_a_person_at_expert_speed_raises_no_flag_nor_does_one_anticipation_in_ten() -> None:
    expert = [262.0, 301.0, 355.0, 280.0, 318.0, 410.0, 291.0, 340.0, 276.0, 388.0]
    verdict = assess(slaps([*expert, 80.0] * 3))
    assert not verdict.flagged and verdict.reasons == [] and verdict.checked_slaps == 33


def a_flagged_player(tmp_path: Path) -> tuple[Path, str, list[int]]:
    """A database where Ann won piles with 40 ms slaps in three rated games against three bot
    levels (recorded as the room records them: each a true reaction, `is_reaction`)."""
    db = tmp_path / "ratscrew.db"
    store = SqliteStore(db)
    store.save_room("ABCDEF", {}, None, "over", 0, None, [])
    store.enter_player("k-ann", "Ann", ANN)
    games = []
    for _ in range(3):
        game_id = store.start_game("ABCDEF", 1, "classic", {}, 0.0)
        won_with_40_ms_slaps(store, game_id)
        games.append(game_id)
    store.close()
    return db, ANN, games


def won_with_40_ms_slaps(store: SqliteStore, game_id: int) -> None:
    """Finish and rate game ``game_id``: Ann (seat 0) wins it with six 40 ms slaps."""
    record = played(["2C 3C 4C 5C", "2D 3D 4D 5D", "2H 3H 4H 5H", "2S 3S 4S 5S"],
                    [(seat, "play", 1000 * (seat + 1), True) for seat in range(4)])
    record["judging"] += [{"seat": 0, "kind": "slap", "judged_at": 5000 + i, "accepted": True,
                           "reaction_ms": 40 + i % 2, "reported_ms": 40 + i % 2, "link_ms": 3,
                           "clamped": None, "outcome": "won", "pile_reaction_ms": 40 + i % 2}
                          for i in range(6)]
    store.finish_game(game_id, record, 0, "won", [
        SeatResult(0, "human", "Ann", "t", True, 6, 0, (40,) * 6, ANN),
        *(SeatResult(seat, "bot", "Bot", None, False, 0, 0, (), bot=level)
          for seat, level in enumerate(("casual", "skilled", "expert"), 1))])
    ratings.rate_finished_game(store, game_id)


def test_games_played_at_once_that_end_out_of_order_are_all_unrated_once_flagged(tmp_path: Path) -> None:
    """Two rooms at once: the game begun first ends after the next one. The flag's evidence
    begins at the earliest game (by id, as the ratings are taken back), not at the earliest to
    end, so no game of the evidence keeps its rating."""
    store = SqliteStore(tmp_path / "ratscrew.db")
    store.save_room("ABCDEF", {}, None, "over", 0, None, [])
    store.enter_player("k-ann", "Ann", ANN)
    games = [store.start_game("ABCDEF", 1, "classic", {}, 0.0) for _ in range(3)]
    for game_id in (games[1], games[0], games[2]):
        won_with_40_ms_slaps(store, game_id)
    flag = store.integrity_flag(ANN)
    assert flag is not None and flag["since_game"] == games[0]
    assert [g["unrated"] for g in store.player_games(ANN)] == [FLAGGED] * 3
    assert store.ratings_of(ANN) == [] and leaderboard(store, "classic") == []
    store.close()


def test_a_flagged_players_games_since_the_evidence_are_unrated_until_the_admin_clears_the_flag(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, ann, games = a_flagged_player(tmp_path)
    store = SqliteStore(db)
    flag = store.integrity_flag(ann)
    assert flag is not None and flag["cleared_at"] is None and flag["since_game"] == games[0]
    assert flag["checked_slaps"] == 18 and flag["reasons"][0].startswith("18 of 18 reactions were under")
    assert [g["unrated"] for g in store.player_games(ann)] == [FLAGGED] * 3
    assert store.ratings_of(ann) == [] and leaderboard(store, "classic") == []
    store.close()
    assert main(["admin", "players", "clear-flag", ann, "--db", str(db)]) == 0
    assert "cleared the integrity flag" in capsys.readouterr().out
    store = SqliteStore(db)
    assert store.integrity_flag(ann)["cleared_at"] is not None  # type: ignore[index]
    assert [g["unrated"] for g in store.player_games(ann)] == [None] * 3  # rated again
    assert store.ratings_of(ann)[0]["games"] == 3 and store.ratings_of(ann)[0]["rank"] == 1
    store.close()
    assert main(["admin", "players", "clear-flag", ann, "--db", str(db)]) == 1  # nothing left to clear


def test_the_admin_command_says_what_is_wrong_without_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["admin", "players", "clear-flag", ANN, "--db", str(tmp_path / "none.db")]) == 2
    assert "none.db: no such database file" in capsys.readouterr().err
    db, _, _ = a_flagged_player(tmp_path)
    assert main(["admin", "players", "clear-flag", "NoSuchPlayer", "--db", str(db)]) == 2
    assert "no player with the id" in capsys.readouterr().err
    assert main(["admin", "players", "show-flag", ANN, "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "flagged in classic" in out and "18 slaps checked" in out


def test_the_player_page_tells_a_flagged_player_why(tmp_path: Path) -> None:
    db, ann, _ = a_flagged_player(tmp_path)
    with TestClient(create_app(db)) as client:
        integrity = client.get(f"/api/players/{ann}").json()["integrity"]
    assert set(integrity) == {"flagged", "reasons", "checked_slaps"}
    assert integrity["flagged"] is True and integrity["checked_slaps"] == 18
    assert json.dumps(integrity["reasons"]).count("under 100 ms") == 1


# ------------------------------------------------------------------------ over the real websocket


SPARE_GAMES = 3
"""At most this many more games when the planned ones ended with too few slaps won."""
MAX_SLAPS = 30
"""Slaps the script sends in all its games, at most: the issue's bound on the slaps the review
has checked when it flags it (a slap counts only when won, so never more than were sent)."""
HONEST_MAX_SLAPS = 48
"""The bot-speed player's bound: it loses some slaps to the bots, so it may send more (16 a
game, as it did when its games ran one after another)."""
WON_FOR_THE_REVIEW = FLOOR_MIN + 3
"""Slaps won in all before the client resigns its games: a won slap that claims one's own pile
is not a reaction (issue 46), so a few more than the review's `FLOOR_MIN` make sure it has
enough."""


class Table:
    """One game of a `Slapper`'s, in a room of two against a bot of ``level``: it plays on its
    turn, slaps every slappable pile ``reaction()`` ms after it was shown, reporting that
    reaction, and resigns once its player has won the slaps it needs (`Slapper.enough`)."""

    def __init__(self, slapper: Slapper, level: str) -> None:
        self.slapper = slapper
        server = slapper.server
        code = server.new_room(seats=2, bots=[level], pace="fast", turn_timeout_ms=60_000)
        self.player = server.player(code)
        # the same random-looking key for every game (a new player's must look random)
        key = f"{slapper.name.lower()}-key-" + "".join(random.Random(slapper.name).choices(KEY_LETTERS, k=30))
        slapper.player_id = self.player.join(slapper.name, player_key=key)["player_id"]
        self.won = 0
        self.due: tuple[float, int, float] | None = None  # (monotonic time, version, reaction)
        self.acted: set[int] = set()
        self.resigned = False
        self.over = False
        self.player.send({"type": "start"})

    def step(self) -> None:
        """Read what came, act on what is due."""
        slapper = self.slapper
        message = self.player.poll(0.005)
        if message is not None and message["type"] == "game_over":
            self.player.close()
            self.over = True
            return
        if message is not None and message["type"] == "state":
            seat = message["observation"]["seat"]
            self.won += sum(1 for e in message["events"] if e["kind"] == "slap_won" and e["seat"] == seat)
            pile = parse_cards(" ".join(message["observation"]["pile"]))
            # once resigned it slaps no more (in classic a resigned player may slap back in, and
            # the states still on their way drew slaps past the bound); it still plays on its
            # turn, in case the resign was refused (a seat out of cards cannot resign)
            # a slap that takes the opponent's last cards ends the game, and a game that ends
            # before its slaps are won leaves the review short of the slaps it needs: let the
            # opponent play on (the deal is random, so that happened in some runs)
            last_cards = any(size == 0 for other, size in enumerate(message["observation"]["hand_sizes"])
                             if other != seat)
            if (not self.resigned and not last_cards
                    and find_slap(pile, CLASSIC.slaps, CLASSIC.pattern_options) is not None):
                reaction = slapper.reaction()
                self.due = (time.monotonic() + reaction / 1000.0, message["version"], reaction)
            elif message["observation"]["turn"] == seat and message["version"] not in self.acted:
                self.acted.add(message["version"])
                self.player.send({"type": "play"})
        if (self.due is not None and not self.resigned and slapper.slaps < slapper.max_slaps
                and time.monotonic() >= self.due[0]):
            _, version, reaction = self.due
            self.due = None
            self.player.send({"type": "slap", "version": version, "reaction_ms": round(reaction)})
            slapper.slaps += 1
        if (slapper.enough(self) or slapper.slaps >= slapper.max_slaps) and not self.resigned:
            self.resigned = True
            self.player.send({"type": "resign"})


class Slapper:
    """One keyed client playing a game against each of ``levels`` at once (a `Table` each):
    each game goes on until it has won ``wins`` slaps and the client `WON_FOR_THE_REVIEW` in
    all, and no game slaps once it has sent ``max_slaps`` in all. A random deal can still end a game early
    (an opponent that runs out of cards in a challenge): when the games are over with fewer
    than `FLOOR_MIN` slaps counted by the server's review (`reviewed_slaps`), it plays up to
    `SPARE_GAMES` more, one at a time, against ``spare`` until it has them (the likeliest
    reason one CI run's review had too few slaps to flag). The games run at once because they
    wait on the bots' pace: one after another they took minutes (76–316 s)."""

    def __init__(self, server: ServerProcess, name: str, reaction: Callable[[], float],
                 levels: Sequence[str], wins: int, max_slaps: int, spare: str = "expert") -> None:
        self.server, self.name, self.reaction, self.wins = server, name, reaction, wins
        self.max_slaps = max_slaps
        self.spare = spare
        self.spare_games = SPARE_GAMES
        self.player_id = ""
        self.slaps = 0
        """Slaps sent in all games."""
        self.tables = [Table(self, level) for level in levels]
        self.over = False

    @property
    def games(self) -> int:
        """Games started."""
        return len(self.tables)

    @property
    def won_in_all(self) -> int:
        """Slaps won in every game so far."""
        return sum(table.won for table in self.tables)

    def enough(self, table: Table) -> bool:
        """Whether ``table``'s game has won what it needs and may be resigned."""
        return table.won >= self.wins and self.won_in_all >= WON_FOR_THE_REVIEW

    def reviewed_slaps(self) -> int:
        """The slaps the server's review counted as reactions in this player's games, read once
        its page lists every game played (the record is written just after ``game_over``). Not
        every won slap is one: a slap judged late under a loaded machine is not (issue 46)."""
        deadline = time.monotonic() + 30
        while True:
            page = self.server.get(f"/api/players/{self.player_id}").json()
            if len(page["games"]) >= self.games or time.monotonic() > deadline:
                return int(page["integrity"]["checked_slaps"])
            time.sleep(0.05)

    def step(self) -> None:
        """Step every game still going; once all are over, a spare game if the review is short."""
        if self.over:
            return
        going = [table for table in self.tables if not table.over]
        for table in going:
            table.step()
        if going:
            return
        if self.spare_games > 0 and self.slaps < self.max_slaps and self.reviewed_slaps() < FLOOR_MIN:
            self.spare_games -= 1
            self.tables.append(Table(self, self.spare))
        else:
            self.over = True


def test_a_40_ms_slapper_is_flagged_within_30_slaps_and_off_the_board_while_a_bot_speed_player_is_not(
        tmp_path: Path) -> None:
    rng = random.Random(30)
    levels = ["beginner", "casual", "skilled"]  # three different opponents: both would be ranked
    with ServerProcess(tmp_path / "ratscrew.db") as server:
        script = Slapper(server, "Script", lambda: 40.0, levels, wins=5, max_slaps=MAX_SLAPS)
        honest = Slapper(server, "Honest", lambda: draw_reaction_ms(LEVELS["expert"], rng), levels, wins=5,
                         max_slaps=HONEST_MAX_SLAPS)
        deadline = time.monotonic() + 480  # 76-316 s one game after another; a spare game adds more
        while not (script.over and honest.over):
            assert time.monotonic() < deadline, (script.won_in_all, honest.won_in_all)
            script.step()
            honest.step()
        flagged = server.get(f"/api/players/{script.player_id}").json()
        fine = server.get(f"/api/players/{honest.player_id}").json()
        board = server.get("/api/leaderboard?rules=classic").json()["players"]
    assert flagged["integrity"]["flagged"] is True, (flagged["integrity"], script.games, script.won_in_all)
    assert 15 <= flagged["integrity"]["checked_slaps"] <= 30
    assert any("under 100 ms" in reason for reason in flagged["integrity"]["reasons"])
    assert len(flagged["games"]) == script.games >= 3
    assert flagged["ratings"] == [] and [g["unrated"] for g in flagged["games"]] == [FLAGGED] * script.games
    assert fine["integrity"]["flagged"] is False and fine["integrity"]["reasons"] == []
    assert fine["integrity"]["checked_slaps"] >= 15  # enough slaps for every flag to have been checked
    assert [p["player_id"] for p in board] == [honest.player_id]  # ranked after three opponents
