"""ERS-Bench: fixed deals played from every seat, the command's JSON, agent files, and saved
agents seated where bots sit (``ratscrew play``, ``ratscrew sim``, an online room)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from online import FakeConnection, make_room, run_until
from piloting import until

from ratscrew.bots.agent import BotAgent
from ratscrew.bots.profile import ANTICIPATION_FLOOR_MS, LEVELS
from ratscrew.cli import main
from ratscrew.engine import Game
from ratscrew.events import CardPlayed, Misslap, SlapWon
from ratscrew.protocol.client_messages import Act, Join, Stand, Start
from ratscrew.rl import agents, bench
from ratscrew.rl.core import TickTable
from ratscrew.rl.encoding import ObservationEncoder
from ratscrew.ruleset import Ruleset
from ratscrew.runtime import Table
from ratscrew.tui.app import PlayApp
from ratscrew.tui.options import PlayOptions

ROW_KEYS = {"agent", "preset", "players", "track", "win_share", "low", "high", "cards_per_game",
            "misslaps_per_game"}


# ---------------------------------------------------------------------- deals and seats

def test_evaluation_deals_are_fixed_by_preset_and_size_and_differ_between_them() -> None:
    seeds = [bench.deal_seed("classic", 2, i) for i in range(50)]
    assert seeds == [bench.deal_seed("classic", 2, i) for i in range(50)]
    assert len(set(seeds)) == 50
    assert not set(seeds) & {bench.deal_seed("classic", 4, i) for i in range(50)}
    assert not set(seeds) & {bench.deal_seed("pagat", 2, i) for i in range(50)}
    assert bench.deal_seed("classic", 2, 0) == 3918821653245265922  # the same on every machine


def test_every_deal_is_played_from_every_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    played: list[tuple[int, int]] = []

    def fake_game(agent: Any, rules: Ruleset, players: int, seat: int, seed: int,
                  track: str) -> bench.GameResult:
        played.append((seed, seat))
        return bench.GameResult(won=seat == 0, cards=2, misslaps=1, finished=True)

    monkeypatch.setattr(bench, "play_game", fake_game)
    cell = bench.evaluate(agents.load("casual"), "classic", 4, "human", deals=3)
    seeds = [bench.deal_seed("classic", 4, i) for i in range(3)]
    assert sorted(played) == sorted((seed, seat) for seed in seeds for seat in range(4))
    assert (cell.games, cell.wins) == (12, 3)
    row = cell.row()
    assert row["win_share"] == 0.25 and row["cards_per_game"] == 2 and row["misslaps_per_game"] == 1
    assert row["low"] < 0.25 < row["high"]


def test_a_policy_agent_and_a_bot_agent_are_dealt_the_same_cards_from_a_deal(
        monkeypatch: pytest.MonkeyPatch) -> None:
    dealt: list[int] = []
    real_deal = Game.deal.__func__  # type: ignore[attr-defined]

    def recording_deal(cls: type[Game], rules: Ruleset, players: int, seed: int) -> Game:
        dealt.append(seed)
        return real_deal(cls, rules, players, seed)  # type: ignore[no-any-return]

    monkeypatch.setattr(Game, "deal", classmethod(recording_deal))
    rules = Ruleset.preset("classic")
    seed = bench.deal_seed("classic", 2, 0)
    bench.play_game(agents.load("never-slap"), rules, 2, 1, seed, "human")
    bench.play_game(agents.load("casual"), rules, 2, 1, seed, "human")
    assert len(dealt) == 2 and dealt[0] == dealt[1]


def test_a_cell_is_the_same_bit_for_bit_when_run_again() -> None:
    first = bench.evaluate(agents.load("sure-hand"), "classic", 2, "human", deals=2).row()
    again = bench.evaluate(agents.load("sure-hand"), "classic", 2, "human", deals=2).row()
    assert first == again and first["games"] == 4


def test_the_unlimited_track_lets_a_policy_act_at_once() -> None:
    """The same deals: without the reaction limit the sure hand wins at least as often."""
    human = bench.evaluate(agents.load("sure-hand"), "classic", 2, "human", deals=3)
    unlimited = bench.evaluate(agents.load("sure-hand"), "classic", 2, "unlimited", deals=3)
    assert unlimited.wins >= human.wins and unlimited.wins == unlimited.games


# ---------------------------------------------------------------------- the command

@pytest.mark.parametrize("name", ["sure-hand", "tabular", "ppo", "random", "always-slap"])
def test_play_out_plays_the_same_game_as_a_step_at_every_tick(name: str) -> None:
    agent = agents.load(name)
    for preset, track in (("classic", "human"), ("ratscrew", "human"), ("classic", "unlimited")):
        games = []
        for fast in (False, True):
            table = TickTable(preset, 2, learners=[0], bots={1: "casual"},
                              reaction=agent.reaction if track == "human" else None)
            table.reset(bench.deal_seed(preset, 2, 3))
            policy = agent.policy(table.encoder, table.rules, seed=7)
            if fast:
                table.play_out(0, policy)
            else:
                while 0 not in table.places:
                    table.step_seat(0, policy(table.vector(0), table.mask(0)))
            assert table.game is not None
            games.append((table.game.actions_since(0), table.ticks, table.now, table.places,
                          table.vector(0).tobytes()))
        assert games[0] == games[1], (preset, track)
        assert len(games[0][0]) > 10  # a game, not a deal that ended at once


def test_quick_json_has_the_public_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--quick", "--json", "--agents", "never-slap,casual", "--workers", "1"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["deals"] == 2 and result["tracks"] == ["human", "unlimited"]
    rows = result["rows"]
    assert len(rows) == 2 * 2 * 1 * 2  # agents x presets (classic, pagat) x sizes (2) x tracks
    assert all(set(row) >= ROW_KEYS for row in rows)
    assert {(r["agent"], r["preset"], r["players"], r["track"]) for r in rows} == {
        (a, p, 2, t) for a in ("never-slap", "casual") for p in ("classic", "pagat")
        for t in ("human", "unlimited")}
    assert all(0 <= r["low"] <= r["win_share"] <= r["high"] <= 1 for r in rows)
    assert all(r["games"] == 4 for r in rows)  # 2 deals x 2 seats


def test_the_table_is_printed_and_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--presets", "classic", "--players", "2", "--deals", "1",
                 "--track", "human", "--agents", "casual", "--out", str(tmp_path)]) == 0
    shown = capsys.readouterr().out
    assert "casual" in shown and "classic 2p human (casual)" in shown
    assert json.loads((tmp_path / "bench.json").read_text())["rows"][0]["agent"] == "casual"
    assert "| casual |" in (tmp_path / "bench.md").read_text()


@pytest.mark.parametrize(("argv", "message"), [
    (["--agents", "grandmaster"], "unknown agent 'grandmaster'"),
    (["--presets", "fastest"], "unknown rules 'fastest'"),
    (["--players", "two"], "--players takes table sizes"),
    (["--players", "9"], "--players takes table sizes from 2 to 8"),
    (["--deals", "0"], "--deals must be at least 1"),
    (["--presets", "bmn", "--players", "9"], "from 2 to 8"),
])
def test_bad_bench_options_are_one_clear_line(argv: list[str], message: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("ratscrew: error: ") and message in err and "\n" not in err


# ---------------------------------------------------------------------- agent files

def _vectors(rules: Ruleset, players: int, count: int) -> list[tuple[Any, Any]]:
    """Observation vectors and masks from a game of random actions."""
    table = TickTable(rules, players, learners=[0], bots={s: "casual" for s in range(1, players)})
    table.reset(seed=5)
    rng = np.random.default_rng(0)
    seen: list[tuple[Any, Any]] = []
    while len(seen) < count and 0 not in table.places:
        mask = table.mask(0)
        seen.append((table.vector(0).copy(), mask.copy()))
        allowed = np.flatnonzero(mask)
        table.step_seat(0, int(rng.choice(allowed)))
    return seen


@pytest.mark.parametrize("policy", ["tabular", "mlp"])
def test_an_agent_file_round_trips_with_the_same_actions(tmp_path: Path, policy: str) -> None:
    rng = np.random.default_rng(1)
    weights = ({"theta": rng.normal(size=(128, 3))} if policy == "tabular" else
               {"w1": rng.normal(size=(len(agents.MLP_FEATURES), 8)), "b1": rng.normal(size=8),
                "w2": rng.normal(size=(8, 3)), "b2": rng.normal(size=3)})
    agent = agents.Agent(agents.AgentSpec(name="mine", kind="policy", policy=policy,
                                          description="a test", reaction="expert",
                                          info={"episodes": 3}), weights)
    path = agent.save(tmp_path / "mine")
    assert path.suffix == ".npz"
    assert agent.save(tmp_path / "again.npz").read_bytes() == path.read_bytes()  # same bytes
    with np.load(path, allow_pickle=False) as data:  # NumPy alone reads it
        assert json.loads(data["spec"].tobytes())["name"] == "mine"
    loaded = agents.load(str(path))
    assert loaded.spec == agent.spec
    rules = Ruleset.preset("classic")
    encoder = ObservationEncoder(rules, 2)
    before, after = agent.policy(encoder, rules), loaded.policy(encoder, rules)
    samples = _vectors(rules, 2, 400)
    actions = [before(x.copy(), mask) for x, mask in samples]
    assert actions == [after(x.copy(), mask) for x, mask in samples]
    assert len(set(actions)) > 1


@pytest.mark.parametrize("name", ["tabular", "ppo"])
def test_training_is_reproducible_to_the_byte(name: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    for out in ("one.npz", "two.npz"):
        assert main(["bench", "train", name, "--episodes", "4", "--seed", "7",
                     "--out", str(tmp_path / out)]) == 0
    assert (tmp_path / "one.npz").read_bytes() == (tmp_path / "two.npz").read_bytes()
    trained = agents.load(str(tmp_path / "one.npz"))
    assert trained.spec.info["episodes"] == 4 and trained.spec.info["seed"] == 7
    assert f"ratscrew bench train {name} --episodes 4 --seed 7" in capsys.readouterr().out


def test_shipped_agents_load_by_name_and_act() -> None:
    assert {"random", "never-slap", "always-slap", "sure-hand", "beginner", "casual", "skilled",
            "expert", "referee", "counting", "tabular", "ppo"} <= set(agents.names())
    rules = Ruleset.preset("classic")
    encoder = ObservationEncoder(rules, 2)
    for name in ("tabular", "ppo"):
        agent = agents.load(name)
        assert agent.weights and agent.spec.info["episodes"] > 0
        policy = agent.policy(encoder, rules)
        assert {policy(x.copy(), mask) for x, mask in _vectors(rules, 2, 200)} <= {0, 1, 2}


NO_RL_EXTRA = """
import importlib.abc
import sys


class NoRlExtra(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("gymnasium", "pettingzoo"):
            raise ImportError(f"{name} is not installed here", name=name)
        return None


sys.meta_path.insert(0, NoRlExtra())
"""
"""Run first in a subprocess: Python as if the ``rl`` extra (Gymnasium, PettingZoo) were
not installed."""


def test_agents_load_and_play_with_numpy_alone_without_the_rl_extra() -> None:
    script = NO_RL_EXTRA + """
import numpy as np
from ratscrew.rl import agents, bench
from ratscrew.rl.encoding import ObservationEncoder
from ratscrew.ruleset import Ruleset

rules = Ruleset.load("classic")
encoder = ObservationEncoder(rules, 2)
for name in ("tabular", "ppo"):
    agent = agents.load(name)
    vector, mask = np.zeros(encoder.size, dtype=np.float32), np.array((1, 1, 1), dtype=np.int8)
    print(name, "acts", agent.policy(encoder, rules)(vector, mask) in (0, 1, 2))
    result = bench.play_game(agent, rules, 2, 0, bench.deal_seed("classic", 2, 0), "human")
    print(name, "finished", result.finished)
print("loaded", sorted(m for m in sys.modules if m.partition(".")[0] in ("gymnasium", "pettingzoo")))
import ratscrew.rl
try:
    ratscrew.rl.parallel_env(rules="classic", players=2)
except ImportError as error:
    print("environments:", error)
"""
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [
        "tabular acts True", "tabular finished True", "ppo acts True", "ppo finished True",
        "loaded []",
        "environments: ratscrew.rl's environments need PettingZoo and Gymnasium: "
        "pip install 'ratscrew[rl]'"]


def test_bad_agent_files_are_refused_clearly(tmp_path: Path) -> None:
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(agents.AgentFileError, match="not an agent file"):
        agents.load(str(junk))
    no_spec = tmp_path / "nospec.npz"
    np.savez(no_spec, theta=np.zeros(3))
    with pytest.raises(agents.AgentFileError, match="has no spec"):
        agents.load(str(no_spec))
    spec = agents.AgentSpec(name="x", kind="policy", policy="tabular", description="")
    with pytest.raises(agents.AgentFileError, match="needs weights theta"):
        agents.load(str(agents.Agent(spec).save(tmp_path / "empty")))
    with pytest.raises(agents.AgentFileError, match="unknown agent 'nobody'"):
        agents.load("nobody")


# ---------------------------------------------------------------------- at real tables

def test_at_a_real_table_an_agent_holds_back_a_slap_at_a_pile_someone_else_took() -> None:
    """The sure hand slaps only patterns; a slap on its way when the casual bot takes the pile
    first must be held back, or it would land on the next pile as a misslap."""
    rules = Ruleset.preset("classic")
    sure_hand = agents.load("sure-hand")
    taken_first = 0
    for seed in range(8):
        game = Game.deal(rules, players=2, seed=seed)
        table = Table(game, [agents.table_agent(sure_hand, rules, 2, seed),
                             BotAgent(LEVELS["casual"], seed=seed + 1)], max_ms=5_000_000)
        table.run_virtual()
        assert not [e for e in table.events if isinstance(e, Misslap) and e.seat == 0]
        taken_first += sum(isinstance(e, SlapWon) and e.seat == 1 for e in table.events)
    assert taken_first > 0  # the casual bot did beat it to some piles


def _waiting_agent() -> agents.Agent:
    """A table policy that always prefers to wait: it would never play a card on its own."""
    theta = np.zeros((128, 3))
    theta[:, 0] = 10.0
    return agents.Agent(agents.AgentSpec(name="waiter", kind="policy", policy="tabular",
                                         description="waits"), {"theta": theta})


def test_a_policy_that_would_stall_is_played_for_on_a_turn_clock() -> None:
    rules = Ruleset.preset("classic")
    result = bench.play_game(_waiting_agent(), rules, 2, 0, bench.deal_seed("classic", 2, 0), "human")
    assert result.finished
    game = Game.deal(rules, players=2, seed=1)
    table = Table(game, [agents.table_agent(_waiting_agent(), rules, 2, 1),
                         BotAgent(LEVELS["casual"], seed=2)], max_ms=5_000_000)
    table.run_virtual()
    assert game.over and table.stop_reason == "game_over"
    plays = [e for e in table.events if isinstance(e, CardPlayed) and e.seat == 0]
    assert plays and all(e.at >= 5000 for e in plays[:1])


def test_sim_seats_an_agent(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--bots", "agent:sure-hand", "casual", "--games", "6", "--json",
                 "--workers", "1", "--no-progress"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["engine"] == "reference" and report["games"] == 6
    assert [seat["bot"] for seat in report["seats"]] == ["agent:sure-hand", "casual"]
    assert report["seats"][0]["slaps_per_game"] > 0  # it slapped: a policy, not an idle seat


def test_sim_refuses_an_unknown_agent(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--bots", "agent:nobody", "casual", "--games", "2"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err


def test_play_takes_agent_seats_from_the_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[PlayOptions] = []
    monkeypatch.setattr(PlayApp, "run", lambda self, *a, **k: started.append(self.options))
    assert main(["play", "--bots", "agent:sure-hand,expert", "--seed", "2"]) == 0
    assert started[0].bots == 2 and started[0].bot_specs == ("agent:sure-hand", "expert")
    assert main(["play", "--bots", "agent:nobody"]) == 2


async def test_an_agent_takes_a_seat_in_the_terminal_game() -> None:
    from ratscrew.commands.play import bot_seats

    bots, specs = bot_seats("agent:sure-hand", humans=1)
    options = PlayOptions(rules=Ruleset.preset("classic"), humans=1, bots=bots, bot_specs=specs,
                          seed=4)
    app = PlayApp(options, clock="virtual")
    assert type(app.bot_agents[0]).__name__ == "PolicySeat"
    async with app.run_test() as pilot:
        await pilot.press("a")  # Player 1 plays; the agent answers with its card
        for at in range(100, 4000, 100):
            app.advance_to(at)
        await until(pilot, lambda: any(isinstance(e, CardPlayed) and e.seat == 1
                                       for e in app.events), "the agent's card")
        assert "agent:sure-hand" in str(app.query_one("#seat-1").border_subtitle)


def test_an_agent_plays_an_online_game_to_the_end_at_human_speed() -> None:
    room, wall = make_room(seats=2, bots=["agent:sure-hand", "casual"], seed=3)
    watcher = FakeConnection(room)
    watcher.join("Ann")
    watcher.do(Stand())
    watcher.do(Start())
    run_until(room, wall, 3_600_000)
    game = room.game
    assert game is not None and game.over and room.phase == "over"
    over = watcher.last("game_over")
    record = room.store.game_record(over["game_id"])
    assert record is not None and record["names"] == ["Sure-hand agent", "Casual bot"]
    card_at = 0
    answered = []
    for kind, seat, at in ((a[0], a[1], a[2]) for a in game.actions_since(0)):
        if kind == "play":
            card_at = at
        elif kind == "slap" and seat == 0:
            answered.append(at - card_at)
    assert answered, "the agent never slapped"
    assert min(answered) >= ANTICIPATION_FLOOR_MS  # human-limited: no slap beats the floor


ANN_KEY = "ann-key-Qm3xT9vLp2Zr7WbK4sYd8Hc"


def _keyed_game_against(opponent: str) -> dict[str, Any]:
    """Ann (keyed) sits at a 3-seat room with ``opponent`` and a casual bot, resigns early,
    and the two play to the end on the fake clock (an unseeded room: its games may be rated).
    Returns what the store says of it."""
    room, wall = make_room(seats=3, bots=[opponent, "casual"], seed=None)
    ann = FakeConnection(room)
    room.connect(ann)
    ann.do(Join("Ann", None, ANN_KEY))
    seat = ann.last("welcome")["seat"]
    ann.do(Start())
    run_until(room, wall, 2_000)
    ann.do(Act("resign"))  # with one keyed player an early resignation is only her loss
    run_until(room, wall, 3_600_000)
    game = room.game
    assert game is not None and game.over and room.phase == "over"
    over = ann.last("game_over")
    player_id = ann.last("welcome")["player_id"]
    (played,) = room.store.player_games(player_id)
    assert seat != _seat_of(room, opponent)
    return {"room": room, "game": game, "over": over, "played": played,
            "seat": _seat_of(room, opponent),
            "ann": room.store.ratings_of(player_id),
            "opponent": room.store.ratings_of(f"bot:{opponent}"),
            "casual": room.store.ratings_of("bot:casual")}


def _seat_of(room: Any, bot: str) -> int:
    return int(next(seat.index for seat in room.seats if seat.kind == "bot" and seat.bot == bot))


def test_an_agents_online_game_is_recorded_and_rated_as_a_bot_levels_is() -> None:
    agent = _keyed_game_against("agent:sure-hand")
    level = _keyed_game_against("skilled")
    for game in (agent, level):
        assert game["played"]["unrated"] is None and game["played"]["note"] is None
        assert [r["games"] for r in game["ann"]] == [1]  # her game counts ...
        assert [(r["rules"], r["games"], r["rank"]) for r in game["opponent"]] == [
            ("classic", 1, None)]  # ... and the opponent is rated, as a bot (never ranked)
        assert [r["games"] for r in game["casual"]] == [1]
    record = agent["room"].store.game_record(agent["over"]["game_id"])
    assert record is not None and "Sure-hand agent" in record["names"]
    answered = _agent_reactions(agent)
    for _ in range(9):  # an unseeded deal leaves the agent nothing to slap in a few games in 100
        if answered:
            break
        answered = _agent_reactions(_keyed_game_against("agent:sure-hand"))
    assert answered and min(answered) >= ANTICIPATION_FLOOR_MS  # held to human reactions


def _agent_reactions(played: dict[str, Any]) -> list[int]:
    """How long after the card before it each of the agent's slaps came (ms of table time)."""
    card_at, answered = 0, []
    for kind, seat, at in ((a[0], a[1], a[2]) for a in played["game"].actions_since(0)):
        if kind == "play":
            card_at = at
        elif kind == "slap" and seat == played["seat"]:
            answered.append(at - card_at)
    return answered


def test_a_win_over_an_agent_raises_a_rating_as_a_win_over_a_bot_level_does() -> None:
    from ratscrew.server.ladder.ratings import rate
    from ratscrew.storage.records import FinishedGame, SeatResult

    def win_over(bot: str) -> Any:
        results = (SeatResult(0, "human", "Ann", "t", True, 0, 0, (), "AnnPublic123"),
                   SeatResult(1, "bot", "them", None, False, 0, 0, (), bot=bot))
        return rate(FinishedGame(1, "classic", {}, 0, results), {})  # rated by the winner

    for bot in ("agent:sure-hand", "skilled"):
        rating = win_over(bot)
        assert rating.unrated is None and rating.seat_notes == {}  # an opponent who counts
        assert set(rating.changes) == {"AnnPublic123", f"bot:{bot}"}
        assert rating.changes["AnnPublic123"].mu_after > 25.0 > rating.changes[f"bot:{bot}"].mu_after


def test_rooms_seat_only_agents_known_by_name(client_app: Any) -> None:
    client = client_app
    listed = client.get("/api/bots").json()
    assert "agent:sure-hand" in {a["name"] for a in listed["agents"]}
    assert all(a["reaction"] and a["mean_reaction_ms"] >= 100 for a in listed["agents"])
    made = client.post("/api/rooms", json={"rules": "classic", "seats": 2,
                                           "bots": ["agent:tabular"]})
    assert made.status_code == 201
    info = client.get(f"/api/rooms/{made.json()['code']}").json()
    assert info["seats"][1]["bot"] == "agent:tabular"
    refused = client.post("/api/rooms", json={"rules": "classic", "seats": 2,
                                              "bots": ["agent:/etc/passwd"]})
    assert refused.status_code == 400 and "saved agent" in refused.json()["error"]


@pytest.fixture
def client_app() -> Any:
    from starlette.testclient import TestClient

    from ratscrew.server.app import create_app
    from ratscrew.storage.sqlite import SqliteStore

    with TestClient(create_app(SqliteStore(":memory:"))) as client:
        yield client
