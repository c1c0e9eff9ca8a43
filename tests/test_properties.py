"""Properties over random games for every preset: the deck is conserved, no face-down card
leaks into any observation, a failed action changes nothing, a replay is identical, and every
game ends (a repeated state counts as an end: a reported cycle)."""

import contextlib
import copy
import dataclasses
import functools
import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratscrew.cards import Card
from ratscrew.engine import Game
from ratscrew.errors import IllegalActionError
from ratscrew.playout import play_simple_game
from ratscrew.ruleset import PRESET_NAMES, Ruleset

PRESETS = st.sampled_from(PRESET_NAMES)
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
FEW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def strings_in(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []


@functools.cache
def card_text(text: str) -> str | None:
    """``text`` as the card it names (``str(Card.parse(text))``), or None if it names none;
    remembered, since the same few hundred strings come back in every observation."""
    with contextlib.suppress(ValueError):
        return str(Card.parse(text))
    return None


def card_strings(value: Any) -> set[str]:
    return {card for text in strings_in(value) if (card := card_text(text)) is not None}


def state_of(game: Game) -> Any:
    return (game.zones(), game.turn, game.challenge, game.award, game.now, game.over,
            game.to_record()["actions"], [game.status(s) for s in range(game.players)])


def observation_from_accessors(game: Game, seat: int | None) -> dict[str, Any]:
    """What `Game.observe` must show, rebuilt the slow, obvious way from the public
    accessors, in its order (the engine builds it in a hurry: this keeps it honest). Who
    played each pile card and the tie window have no accessor of their own, so are left out."""
    challenge, award = game.challenge, game.award
    return {
        "seat": seat, "now": game.now, "rules": game.rules.name, "players": game.players,
        "turn": game.turn, "pile": [str(c) for c in game.live_pile],
        "burned": [str(c) for c in game.burned], "penalty_pile": len(game.penalty_pile),
        "hand_sizes": [game.hand_size(s) for s in range(game.players)],
        "status": [game.status(s) for s in range(game.players)],
        "challenge": None if challenge is None else {
            "challenger": challenge.challenger, "target": challenge.target,
            "chances_left": challenge.chances_left, "card": str(challenge.card)},
        "collection": None if award is None else {
            "winner": award.winner, "collect_at": award.collect_at,
            "exclusive_until": award.exclusive_until, "open_to_all": award.claim_opened},
        "cards_played": game.cards_played,
        "tricks": game.tricks, "over": game.over, "winner": game.winner,
        "end_reason": game.end_reason,
        "may": {kind: [game.may(s, kind) for s in range(game.players)] for kind in ("play", "slap")},
    }


def _no_timer_before(game: Game, at: int) -> bool:
    """Nothing fires before an action at ``at``: it meets the game `Game.may` was asked about."""
    deadline = game.next_deadline
    return at >= game.now and (deadline is None or deadline > at)


def play_as_may_says(game: Game, seat: int, at: int) -> None:
    """``seat`` plays at ``at``; when no timer fires first (nor the tie window a card closes),
    the engine accepts the play exactly when `Game.may` said the seat may play (a play out of
    turn under ``out_of_turn = "burn"`` is accepted too: it burns cards as a penalty)."""
    may = game.may(seat, "play")
    checked = (_no_timer_before(game, at) and game.rules.out_of_turn != "burn"
               and game.observe(None)["tie_window_until"] is None)  # a card closes a tie window
    try:
        game.play(seat, at=at)
    except IllegalActionError:
        assert not (checked and may), f"seat {seat} may play, yet its play was refused"
        raise
    assert may or not checked, f"seat {seat} may not play, yet its play was accepted"


def slap_as_may_says(game: Game, seat: int, at: int) -> None:
    """``seat`` slaps at ``at``; when no timer fires first, the engine accepts the slap (won,
    missed or ignored) exactly when `Game.may` said the seat may slap."""
    may = game.may(seat, "slap")
    checked = _no_timer_before(game, at)
    try:
        game.slap(seat, at=at)
    except IllegalActionError:
        assert not (checked and may), f"seat {seat} may slap, yet its slap was refused"
        raise
    assert may or not checked, f"seat {seat} may not slap, yet its slap was accepted"


def chaos(game: Game, rng: random.Random, steps: int) -> None:
    """Random actions from every seat, legal or not, checking the invariants after each."""
    deck = Counter(game.initial_hands[s][i] for s in range(game.players)
                   for i in range(len(game.initial_hands[s])))
    at = 0
    for _ in range(steps):
        if game.over:
            break
        at += rng.choice([0, 0, 5, 20, 100, 400, 1200])
        choice = rng.random()
        seat = rng.randrange(game.players)
        before = state_of(game)
        try:
            if choice < 0.45 and game.turn is not None:
                game.play(game.turn, at=at)
            elif choice < 0.55:
                play_as_may_says(game, seat, at)
            elif choice < 0.85:
                slap_as_may_says(game, seat, at)
            elif choice < 0.99:
                game.advance(at=at)
            else:
                game.resign(seat, at=at)
        except IllegalActionError:
            assert state_of(game) == before, "a refused action changed the game"
        zones = game.zones()
        assert Counter(c for cards in zones.values() for c in cards) == deck
        face_up = {str(c) for c in zones["pile"] + zones["burned"]}
        spectators = game.observe(None)
        for viewer in [None, *range(game.players)]:
            observation = game.observe(viewer)
            # every seat sees the same table: the server encodes one view per step for a
            # whole room and puts each seat's number in it (ratscrew.server.room.publisher.seat_view)
            assert list(observation.items()) == list({**spectators, "seat": viewer}.items())
            shown = {key: value for key, value in observation.items()
                     if key not in ("pile_played_by", "tie_window_until")}
            assert list(shown.items()) == list(observation_from_accessors(game, viewer).items())
            json.dumps(observation)
            leaked = card_strings(observation) - face_up
            assert not leaked, f"seat {viewer} can see face-down cards {leaked}"


@FEW
@given(preset=PRESETS, seed=SEEDS, players=st.integers(min_value=2, max_value=5))
def test_random_actions_keep_every_invariant(preset: str, seed: int, players: int) -> None:
    rules = Ruleset.preset(preset)
    outsiders = 1 if players < rules.max_players and seed % 3 == 0 else 0
    game = Game.deal(rules, players=players, seed=seed, outsiders=outsiders)
    chaos(game, random.Random(seed), steps=400)


@FEW
@given(preset=PRESETS, seed=SEEDS, players=st.integers(min_value=2, max_value=5))
def test_replay_of_a_record_is_identical(preset: str, seed: int, players: int) -> None:
    rules = Ruleset.preset(preset)
    if preset in ("classic", "ratscrew"):
        rules = dataclasses.replace(rules, tie_policy="random")
    game = Game.deal(rules, players=players, seed=seed)
    chaos(game, random.Random(seed), steps=300)
    record = json.loads(json.dumps(game.to_record()))
    replayed = Game.from_record(record)
    assert state_of(replayed) == state_of(game)
    assert replayed.observe(None) == game.observe(None)
    assert (replayed.winner, replayed.end_reason) == (game.winner, game.end_reason)


@settings(max_examples=12, deadline=None)
@given(preset=PRESETS, seed=SEEDS, players=st.integers(min_value=2, max_value=4))
def test_every_game_ends_or_is_reported_as_a_cycle(preset: str, seed: int, players: int) -> None:
    game, events = play_simple_game(Ruleset.preset(preset), players=players, seed=seed)
    assert game.over, f"{preset} seed {seed} still running after {game.cards_played} cards"
    assert events[-1].kind == "game_over"
    assert game.end_reason in {"all_cards", "last_holder", "triple", "triple_sixes", "nobody_wins", "cycle"}
    if game.winner is not None:
        assert game.hand_size(game.winner) == sum(len(h) for h in game.initial_hands) or (
            game.end_reason == "triple")


VARIANTS = st.sampled_from([
    {"misslap_penalty": "lockout"},
    {"misslap_penalty": "lockout", "collect": "slap", "claim_window_ms": 300},
    {"slap_in_bar_after": 1},
    {"out_of_cards": "out"},
    {"resign_bars_slap_in": True, "outsiders_slap_in": False},
])


@FEW
@given(variant=VARIANTS, seed=SEEDS, players=st.integers(min_value=2, max_value=4))
def test_every_status_is_observed_as_the_accessors_give_it(
        variant: dict[str, Any], seed: int, players: int) -> None:
    """Lockouts, bars, eliminations and watching outsiders, which the presets rarely or never
    reach, seen by every seat after every random action (`chaos` compares each observation)."""
    rules = dataclasses.replace(Ruleset.preset("classic"), **variant)
    game = Game.deal(rules, players=players, seed=seed, outsiders=1)
    chaos(game, random.Random(seed), steps=300)


def random_actions(game: Game, rng: random.Random, steps: int) -> None:
    """Random actions from every seat, legal or not (refused ones change nothing)."""
    for _ in range(steps):
        if game.over:
            return
        at = game.now + rng.choice([0, 5, 100, 400, 1200])
        seat = rng.randrange(game.players)
        kind = rng.choice(["play", "play", "slap", "slap", "advance"])
        with contextlib.suppress(IllegalActionError):
            if kind == "advance":
                game.advance(at=at)
            elif kind == "play":
                game.play(seat, at=at)
            else:
                game.slap(seat, at=at)


@FEW
@given(preset=PRESETS, seed=SEEDS, players=st.integers(min_value=2, max_value=5),
       played=st.integers(min_value=0, max_value=300))
def test_a_copy_plays_on_as_a_deep_copy_would_and_leaves_its_game_alone(
        preset: str, seed: int, players: int, played: int) -> None:
    game = Game.deal(Ruleset.preset(preset), players=players, seed=seed)
    random_actions(game, random.Random(seed), played)
    before = state_of(game)
    twin, deep = game.copy(), copy.deepcopy(game)
    for trial in (twin, deep):
        random_actions(trial, random.Random(seed + 1), 60)
    assert state_of(game) == before
    assert state_of(twin) == state_of(deep)
    assert twin.observe(None) == deep.observe(None)
    assert twin.to_record() == deep.to_record()
