"""The learning environments (ratscrew.rl): PettingZoo's and Gymnasium's own conformance tests,
properties over random play (masks only allow legal actions, the deck is conserved, rewards add
up to the results), the reaction limit, reproducible seeds and clear errors for bad input."""

from __future__ import annotations

import dataclasses
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, parallel_api_test, seed_test

import ratscrew.rl as rl
from ratscrew.engine import Game
from ratscrew.errors import IllegalActionError
from ratscrew.events import CardsBurned, Event, Misslap, PileWon
from ratscrew.rl import PLAY, SLAP, WAIT, EnvStateError, ErsEnv, TickTable, learn
from ratscrew.rl.core import place_scores
from ratscrew.ruleset import PRESET_NAMES, Ruleset

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
TABLES = [("classic", 2), ("northwest", 4), ("ratscrew", 3), ("paranoid", 5), ("pagat", 5),
          ("classic", 8), ("bmn", 2)]


def masked_random(rng: np.random.Generator, mask: np.ndarray[Any, Any]) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


# ---------------------------------------------------------------------------------- conformance


@pytest.mark.parametrize(("rules", "players"), TABLES)
def test_pettingzoo_aec_api(rules: str, players: int) -> None:
    api_test(rl.env(rules=rules, players=players), num_cycles=200)


@pytest.mark.parametrize(("rules", "players"), TABLES)
def test_pettingzoo_parallel_api(rules: str, players: int) -> None:
    parallel_api_test(rl.parallel_env(rules=rules, players=players), num_cycles=400)


@pytest.mark.parametrize(("rules", "players"), [("classic", 2), ("northwest", 4), ("ratscrew", 3)])
def test_pettingzoo_seeds(rules: str, players: int) -> None:
    seed_test(lambda: rl.env(rules=rules, players=players), num_cycles=200)


def test_parallel_env_seeded_resets_replay_exactly() -> None:
    """(PettingZoo's parallel_seed_test samples actions without their masks, which this
    environment refuses; this is the same check with masked actions.)"""
    def run() -> list[Any]:
        env = rl.parallel_env(rules="northwest", players=4)
        rng = np.random.default_rng(3)
        observations, _ = env.reset(seed=42)
        seen: list[Any] = []
        for _ in range(500):
            if not env.agents:
                break
            actions = {a: masked_random(rng, observations[a]["action_mask"]) for a in env.agents}
            observations, rewards, _, _, _ = env.step(actions)
            seen.append(({a: o["observation"].tolist() for a, o in observations.items()}, rewards))
        return seen

    assert run() == run()


def test_parallel_env_with_bots_in_some_seats() -> None:
    env = rl.parallel_env(rules="classic", players=4, bots={1: "casual", 3: "expert"})
    assert env.possible_agents == ["seat_0", "seat_2"]
    parallel_api_test(env, num_cycles=300)


@pytest.mark.parametrize("rules", ["classic", "ratscrew"])  # seat 0 leads: check_env samples unmasked
def test_gymnasium_check_env(rules: str) -> None:
    env = gymnasium.make("ratscrew/ERS-v0", rules=rules, opponents=["casual", "expert"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_vector_runs_several_environments(mode: str) -> None:
    envs = gymnasium.make_vec("ratscrew/ERS-v0", num_envs=3, vectorization_mode=mode,
                              rules="classic", opponents=["casual"])
    observations, _ = envs.reset(seed=5)
    size = rl.ErsEnv("classic", opponents=["casual"]).core.encoder.size
    assert observations["observation"].shape == (3, size)
    rng = np.random.default_rng(0)
    for _ in range(300):
        masks = observations["action_mask"]
        actions = np.array([masked_random(rng, mask) for mask in masks])
        observations, _, _, _, infos = envs.step(actions)
    assert observations["action_mask"].shape == (3, 3)
    assert infos["raw_observation"][0]["players"] == 2  # the view, whole, from any process
    envs.close()


# ---------------------------------------------------------------------------------- properties

FEW = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def zones_hold_the_deck(game: Game, total: int) -> None:
    counts = Counter(str(card) for cards in game.zones().values() for card in cards)
    assert sum(counts.values()) == total
    assert all(count == 1 or card == "JK" for card, count in counts.items())


@FEW
@given(preset=st.sampled_from(PRESET_NAMES), players=st.integers(2, 5), seed=st.integers(0, 2**31 - 1),
       shaping=st.sampled_from([0.0, 1.0]))
def test_random_play_is_legal_conserves_the_deck_and_pays_the_result(
        preset: str, players: int, seed: int, shaping: float) -> None:
    """With no reaction delay an action lands at the moment it is chosen, so every action the
    mask lets through must be one the engine accepts: none is ever refused."""
    env = ErsEnv(preset, opponents=["casual"] * (players - 1), reaction=None, shaping=shaping,
                 max_ticks=6000)
    rng = np.random.default_rng(seed)
    observation, _ = env.reset(seed=seed)
    core = env.core
    assert core.game is not None and core.table is not None
    total = core.total_cards
    net = [0]

    def count(events: Sequence[Event]) -> None:  # the cards seat 0 wins and pays
        for event in events:
            if isinstance(event, PileWon) and event.seat == 0:
                net[0] += event.cards + event.penalty_cards
            elif isinstance(event, (Misslap, CardsBurned)) and event.seat == 0:
                net[0] -= len(event.cards)

    core.table.add_listener(count)
    earned = 0.0
    done = False
    steps = 0
    while not done:
        action = masked_random(rng, observation["action_mask"])
        if action and steps % 5 == 0:  # the engine itself accepts it, right now
            trial = core.game.copy()
            try:
                (trial.play if action == PLAY else trial.slap)(0, trial.now)
            except IllegalActionError as error:  # pragma: no cover - the failure being tested
                pytest.fail(f"the mask allowed {rl.ACTIONS[action]} but the engine says: {error}")
        observation, reward, terminated, truncated, info = env.step(action)
        earned += reward
        done = terminated or truncated
        steps += 1
        if steps % 50 == 0:
            zones_hold_the_deck(core.game, total)
    zones_hold_the_deck(core.game, total)
    assert core._learner_agents[0].rejections == 0
    expected = core.scores[0] + shaping * net[0] / total
    assert earned == pytest.approx(expected)
    assert info["place"] == core.places[0]


@FEW
@given(preset=st.sampled_from(PRESET_NAMES), players=st.integers(2, 5), seed=st.integers(0, 2**31 - 1))
def test_every_seat_learning_the_rewards_are_the_places(preset: str, players: int, seed: int) -> None:
    env = rl.parallel_env(rules=preset, players=players, max_ticks=4000)
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    places: dict[str, int] = {}
    while env.agents:
        actions = {agent: masked_random(rng, observations[agent]["action_mask"]) for agent in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
            if terminations[agent] or truncations[agent]:
                places[agent] = infos[agent]["place"]
    assert sorted(places) == sorted(env.possible_agents)
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
    for agent, place in places.items():
        better = [other for other, p in places.items() if p < place]
        assert all(totals[other] >= totals[agent] for other in better)


def test_place_scores_share_ties_and_sum_to_zero() -> None:
    scores = place_scores([[3], [0, 2], [1]], first_place=1, players=4)
    assert scores == pytest.approx({3: 1.0, 0: 0.0, 2: 0.0, 1: -1.0})
    assert place_scores([[0], [1]], first_place=1, players=2) == {0: 1.0, 1: -1.0}


def test_the_vector_is_the_seats_observation_encoded() -> None:
    """The encoded observation is built from Game.observe(seat) alone: encoding the engine's
    own answer at any moment gives the same vector."""
    table = TickTable("northwest", players=3, learners=[0], bots={1: "casual", 2: "casual"})
    table.reset(seed=11)
    rng = np.random.default_rng(1)
    game = table.game
    assert game is not None
    for step in range(3000):
        table.step({0: masked_random(rng, table.mask(0))})
        if not table.is_active(0):
            break
        if step % 97 == 0:
            fresh = game.observe(0)
            vector = table.encoder.encode(fresh, 0, table.now, table._card_at, game.slap_pattern(),
                                          table.in_flight(0), table.total_cards)
            assert np.array_equal(vector, table.vector(0))
            assert np.all((vector >= 0) & (vector <= 1))


def table_state(table: TickTable) -> tuple[Any, ...]:
    return ({seat: table.vector(seat).tobytes() for seat in table.learners},
            {seat: table.mask(seat).tobytes() for seat in table.learners},
            list(table._in_flight), dict(table.places), table.done, list(table._ran_out),
            list(table._hands))


@pytest.mark.parametrize(("rules", "players", "learners", "reaction"),
                         [("classic", 2, [0], "casual"), ("northwest", 4, [1, 3], None),
                          ("ratscrew", 3, [0, 1, 2], 250)])
def test_a_ticks_shortcuts_leave_what_a_full_refresh_would(
        rules: str, players: int, learners: list[int], reaction: Any) -> None:
    """Most ticks move only the clocks, and a tick with nothing but new plans only the
    in-flight slots: after every tick, a full refresh of the masks and vectors changes
    nothing. (It also holds the runtime's quick "nothing due yet" answer to the full look.)"""
    bots = {seat: "casual" for seat in range(players) if seat not in learners}
    table = TickTable(rules, players=players, learners=learners, bots=bots, reaction=reaction,
                      max_ticks=6000)
    table.reset(seed=5)
    rng = np.random.default_rng(5)
    while not table.done:
        actions = {seat: masked_random(rng, table.mask(seat)) for seat in learners
                   if table.is_active(seat)}
        table.step(actions)
        kept = table_state(table)
        table._refresh()
        assert table_state(table) == kept


def test_step_seat_is_step_for_one_seat() -> None:
    def run(one: bool) -> list[Any]:
        table = TickTable("classic", players=3, learners=[1], bots={0: "casual", 2: "expert"},
                          shaping=0.5, max_ticks=5000)
        table.reset(seed=8)
        rng = np.random.default_rng(8)
        seen = []
        while not table.done:
            action = masked_random(rng, table.mask(1))
            reward = table.step_seat(1, action) if one else table.step({1: action})[1]
            seen.append((reward, table.vector(1).tobytes(), table.mask(1).tobytes()))
        return seen

    assert run(True) == run(False)


# ---------------------------------------------------------------------------------- time


def test_an_action_lands_one_reaction_time_after_it_is_chosen() -> None:
    table = TickTable("classic", players=2, learners=[0], bots={1: "casual"}, reaction=300)
    table.reset(seed=2)
    table.step({0: PLAY})
    assert table.in_flight(0) == ["play"]
    while table.in_flight(0):
        table.step({0: WAIT})
    assert table.game is not None
    assert table.game.actions_since(0)[0] == ("play", 0, 300)
    assert table.mask(0).tolist()[SLAP] == 1


def test_asking_again_for_an_action_on_its_way_changes_nothing() -> None:
    table = TickTable("classic", players=2, learners=[0], bots={1: "casual"}, reaction=300)
    table.reset(seed=2)
    table.step({0: PLAY})
    table.step({0: PLAY})
    while table.in_flight(0):
        table.step({0: WAIT})
    assert table.game is not None
    assert [a for a in table.game.actions_since(0) if a[1] == 0] == [("play", 0, 300)]


def test_a_slap_at_a_pile_that_changes_before_it_lands_is_held_back() -> None:
    """Seat 0's card is on its way when it decides to slap: the slap was aimed at the pile
    before that card, so it is held back when the card lands first (as the bots do)."""
    table = TickTable("classic", players=2, learners=[0], bots={1: "casual"}, reaction=1000)
    table.reset(seed=2)
    table.step({0: PLAY})  # lands at 1000
    table.step({0: SLAP})  # would land at 1025
    for _ in range(60):
        table.step({0: WAIT})
    assert table.game is not None
    assert not [a for a in table.game.actions_since(0) if a[0] == "slap" and a[1] == 0]


def test_the_same_seed_and_actions_replay_the_same_episode() -> None:
    def run() -> dict[str, Any]:
        env = ErsEnv("ratscrew", opponents=["casual", "skilled"], reaction="expert")
        rng = np.random.default_rng(4)
        observation, _ = env.reset(seed=99)
        for _ in range(2000):
            action = masked_random(rng, observation["action_mask"])
            observation, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break
        assert env.core.game is not None
        return env.core.game.to_record()

    assert run() == run()


def test_a_tick_limit_truncates_the_episode() -> None:
    env = ErsEnv("classic", opponents=["casual"], max_ticks=40)
    env.reset(seed=0)
    for _ in range(39):
        assert env.step(WAIT)[3] is False
    _, reward, terminated, truncated, info = env.step(WAIT)
    assert truncated and not terminated
    assert info["place"] in (1, 2) and reward in (1.0, -1.0, 0.0)


# ---------------------------------------------------------------------------------- bad input


def test_an_action_the_mask_forbids_is_refused_and_changes_nothing() -> None:
    env = ErsEnv("classic", opponents=["casual"], reaction=300)
    env.reset(seed=3)
    env.step(PLAY)
    for _ in range(20):  # the card lands; the bot's turn
        env.step(WAIT)
    assert env.core.game is not None
    record, now = env.core.game.to_record(), env.core.now
    with pytest.raises(ValueError, match=r"seat 0 may not play now \(it is not its turn\)"):
        env.step(PLAY)
    assert env.core.game.to_record() == record and env.core.now == now


@pytest.mark.parametrize("action", [3, -1, 1.0, True, "slap", None])
def test_an_action_that_is_not_one_is_refused(action: Any) -> None:
    env = ErsEnv("classic", opponents=["casual"])
    env.reset(seed=3)
    with pytest.raises(ValueError, match=r"an action is 0 \(wait\), 1 \(play\) or 2 \(slap\)"):
        env.step(action)
    assert env.core.now == 0


def test_an_action_for_a_seat_that_is_out_or_unknown_is_refused() -> None:
    env = rl.parallel_env(rules="classic", players=3)
    env.reset(seed=1)
    env.core.places[1] = 3  # as if seat 1 were out for good
    env.agents.remove("seat_1")
    with pytest.raises(ValueError, match="'seat_1' is not an agent still playing"):
        env.step({"seat_1": WAIT})
    with pytest.raises(ValueError, match="seat 1, which is out of the game"):
        env.core.check_actions({1: WAIT})
    with pytest.raises(ValueError, match="'seat_9' is not an agent"):
        env.step({"seat_9": WAIT})


def test_a_step_after_the_end_is_refused() -> None:
    env = ErsEnv("classic", opponents=["casual"], max_ticks=2)
    with pytest.raises(EnvStateError, match="call reset"):
        env.step(WAIT)
    env.reset(seed=0)
    env.step(WAIT)
    env.step(WAIT)
    with pytest.raises(EnvStateError, match="episode is over"):
        env.step(WAIT)
    par = rl.parallel_env(rules="classic", players=2, max_ticks=1)
    par.reset(seed=0)
    par.step({})
    with pytest.raises(EnvStateError):
        par.step({})


def test_the_aec_form_refuses_a_bad_action_before_storing_it() -> None:
    env = rl.raw_env(rules="classic", players=2)
    env.reset(seed=0)
    env.step(PLAY)  # seat_0 leads
    assert env.agent_selection == "seat_1"
    with pytest.raises(ValueError, match="seat 1 may not play now"):
        env.step(PLAY)
    assert env.agent_selection == "seat_1"


@pytest.mark.parametrize(("options", "message"), [
    ({"rules": "nosuch"}, "unknown rules 'nosuch'"),
    ({"rules": 7}, "rules must be a preset name"),
    ({"players": 1}, "players must be a whole number from 2 to 8"),
    ({"players": 9}, "players must be a whole number from 2 to 8"),
    ({"players": "4"}, "players must be a whole number from 2 to 8"),
    ({"bots": {1: "grandmaster"}}, "unknown bot level 'grandmaster'; choose one of beginner"),
    ({"bots": {5: "casual"}}, "bots: 5 is not a seat"),
    ({"bots": {0: "casual", 1: "casual", 2: "casual", 3: "casual"}}, "at least one seat must"),
    ({"reaction": "slow"}, "unknown bot level 'slow'"),
    ({"reaction": -5}, "a fixed reaction is a number of ms"),
    ({"tick_ms": 0}, "tick_ms must be"),
    ({"max_ticks": 0}, "max_ticks must be"),
    ({"shaping": -1}, "shaping must be"),
])
def test_bad_options_are_named(options: dict[str, Any], message: str) -> None:
    arguments: dict[str, Any] = {"rules": "classic", "players": 4, **options}
    with pytest.raises(ValueError, match=message):
        rl.parallel_env(**arguments)


def test_bad_gymnasium_options_are_named() -> None:
    with pytest.raises(ValueError, match="unknown bot level 'pro'"):
        gymnasium.make("ratscrew/ERS-v0", opponents=["pro"])
    with pytest.raises(ValueError, match="opponents must be a list"):
        ErsEnv(opponents="casual")
    with pytest.raises(ValueError, match="more than the 2 that"):
        ErsEnv(dataclasses.replace(Ruleset.preset("classic"), max_players=2), opponents=["casual"] * 2)


# ---------------------------------------------------------------------------------- the experiment


def test_the_docs_experiment_runs_and_plots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "curve.png"
    assert learn.main(["--episodes", "2", "--window", "1", "--evaluate", "1", "--max-ticks", "1500",
                       "--out", str(out)]) == 0
    assert out.stat().st_size > 0
    assert out.with_suffix(".csv").read_text().splitlines()[0] == "episodes,win_rate,steps_per_s"
    assert "sure hand" in capsys.readouterr().out


def test_the_learners_features_read_the_vector() -> None:
    env = ErsEnv("classic", opponents=["casual"])
    observation, _ = env.reset(seed=0)
    state = learn.feature_reader(env)(observation["observation"])
    assert learn.describe_state(state) == "fresh, my_turn, holding"  # seat 0 leads, pile empty


def test_ansi_render_shows_the_table_and_no_hidden_card() -> None:
    env = ErsEnv("classic", opponents=["casual"], render_mode="ansi", reaction=300)
    env.reset(seed=4)
    for _ in range(30):
        env.step(PLAY if env.action_masks()[PLAY] else WAIT)
    text = env.render()
    assert text is not None and "seat 0 (agent)" in text and "seat 1 (bot)" in text
    assert env.core.game is not None
    hidden = {str(card) for seat in range(2) for card in env.core.game.hand(seat)}
    assert not any(token in hidden for token in text.replace("(", " ").split())


def test_rules_from_a_toml_file_or_a_ruleset(tmp_path: Path) -> None:
    rules = dataclasses.replace(Ruleset.preset("classic"), slaps=("double", "marriage"))
    path = tmp_path / "mine.toml"
    path.write_text(rules.to_toml())
    for spec in (str(path), rules):
        env = rl.parallel_env(rules=spec, players=3)
        env.reset(seed=0)
        assert env.core.rules.slaps == ("double", "marriage")
        assert env.core.encoder.patterns == {"double": 0, "marriage": 1}


def test_the_learners_help_says_what_it_does_in_whole_sentences(capsys: pytest.CaptureFixture[str]) -> None:
    from ratscrew.rl.learn import main as learn_main

    with pytest.raises(SystemExit) as exit_info:
        learn_main(["--help"])
    assert exit_info.value.code == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "python -m ratscrew.rl.learn" in help_text
    assert ("REINFORCE against a bot and at that bot's own reaction profile "
            '("equal hands": only the decisions differ).') in help_text
