"""The house rule *longer windows* for a slower table (issue 51): a room or ``/play`` asked for
``window_factor`` gets rules whose windows to act in are that many times as long, and its games
are unrated, as every look-alike of a preset is."""

from __future__ import annotations

import json

import pytest
from scenario import kinds, play_seats

from ratscrew.engine import Game
from ratscrew.offline.room import OfflineRoom, parse_play_query
from ratscrew.protocol.client_messages import parse_room_request
from ratscrew.protocol.codec import ProtocolError
from ratscrew.ruleset import Ruleset
from ratscrew.server.ladder.rated import CUSTOM_RULES, Unrated, game_facts, rating_verdict
from ratscrew.server.room.rules import rules_entry

CLASSIC = Ruleset.preset("classic")


def slower(factor: int) -> Ruleset:
    """The classic rules as a room asked for ``window_factor`` gets them."""
    return parse_room_request({"rules": "classic", "window_factor": factor}).rules


def test_every_window_to_act_in_grows_by_the_factor_and_the_tie_window_does_not() -> None:
    rules = slower(3)
    assert (rules.grace_ms, rules.claim_window_ms, rules.too_slow_ms) == (3000, 9000, 1500)
    assert rules.tie_window_ms == CLASSIC.tie_window_ms  # who slapped first is judged as before
    assert rules.summary.endswith("Longer windows (×3): a house rule for a slower table.")
    assert slower(1) == CLASSIC  # the default changes nothing: still the preset, still rated


@pytest.mark.parametrize(("rules", "expected"), [
    (CLASSIC, ["pile_won", "misslap"]),    # grace 1000 ms: the pile went at 1300, a slap at 1800 is wrong
    (slower(2), ["slap_won", "pile_won"]),  # grace 2000 ms: the sandwich is still there to slap
])
def test_at_a_slower_table_a_late_slap_in_the_grace_still_takes_the_pile(
        rules: Ruleset, expected: list[str]) -> None:
    game = Game(rules, hands=["5C JC 9C", "2H 2D 3D 4D"], leader=0)
    play_seats(game, "0101")  # 5C 2H JC 2D: seat 1 fails the jack with a sandwich on the pile
    events = game.slap(1, at=1800) + game.advance(at=1800 + rules.tie_window_ms)
    assert kinds(events) == expected


def test_a_game_with_longer_windows_is_unrated_and_the_room_says_so_before_it_starts() -> None:
    entry = rules_entry(slower(2))
    assert entry["name"] == "classic" and not entry["preset"] and entry["unrated"] == CUSTOM_RULES
    assert "Longer windows (×2)" in entry["summary"]
    game = Game.deal(slower(2), players=2, seed=3)
    while not game.over:  # nobody slaps: every card played, every pile collected in its time
        if game.turn is not None:
            game.play(game.turn, at=game.now + 100)
        else:
            game.advance(at=game.next_deadline or game.now + 100)
    facts = game_facts(game.to_record(), [(0, "ann-key"), (1, "bob-key")], rules_name="classic")
    assert rating_verdict(facts) == Unrated(CUSTOM_RULES)


@pytest.mark.parametrize("value", [0, 5, 2.5, "2"])
def test_a_factor_out_of_range_is_refused_naming_the_field(value: object) -> None:
    with pytest.raises(ProtocolError, match="window_factor"):
        parse_room_request({"rules": "classic", "window_factor": value})


def test_the_offline_table_takes_the_factor_from_its_address_and_shows_it_unrated() -> None:
    room = OfflineRoom(parse_play_query("pace=slow&window_factor=2&bots=casual"), wall=lambda: 0.0)
    frames = [json.loads(frame) for frame in room.receive(json.dumps({"type": "join", "name": "Ann"}))]
    rules = next(frame for frame in frames if frame["type"] == "room")["rules"]
    assert rules["unrated"] == CUSTOM_RULES and "Longer windows (×2)" in rules["summary"]
    assert room.request.rules.grace_ms == 2 * CLASSIC.grace_ms
    with pytest.raises(ProtocolError, match="window_factor"):
        parse_play_query("window_factor=soon")


@pytest.mark.parametrize("preset", Ruleset.presets())
def test_the_longer_rules_survive_their_toml_as_a_stored_room_and_record_keep_them(preset: str) -> None:
    rules = Ruleset.preset(preset).with_longer_windows(4)
    assert Ruleset.from_toml(rules.to_toml()) == rules
