"""The terminal game's parts on their own: card drawing, key bindings, player figures, replay
steps, options, the words beside the pile, and the replay viewer's stepping."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.cells import cell_len

from ratscrew.cards import Card, Rank, Suit, parse_cards, standard_deck
from ratscrew.engine import Game
from ratscrew.events import PileWon, SlapWon
from ratscrew.history import replay_steps
from ratscrew.playout import play_simple_game
from ratscrew.ruleset import Ruleset
from ratscrew.tui.app import PlayApp
from ratscrew.tui.cards import (
    CARD_HEIGHT,
    CARD_WIDTH,
    COLOUR_BLIND,
    STANDARD,
    Palette,
    card_lines,
    row_of_cards,
)
from ratscrew.tui.keys import (
    DEFAULT_KEYS,
    RESERVED_KEYS,
    KeyConfigError,
    SeatKeys,
    check_keys,
    format_key_spec,
    normalize_key,
    parse_key_spec,
)
from ratscrew.tui.options import OptionsError, PlayOptions, check_options, save_record
from ratscrew.tui.replay import ReplayApp
from ratscrew.tui.stats import game_stats
from ratscrew.tui.table import PileView, SeatPanel, TableView, pile_line, window_lines

# ---------------------------------------------------------------------------------- cards


@pytest.mark.parametrize("card", [*standard_deck(), Card.joker()], ids=str)
@pytest.mark.parametrize("pal", [STANDARD, COLOUR_BLIND], ids=["standard", "colour-blind"])
def test_every_card_is_drawn_in_a_fixed_box_with_its_rank_and_suit(card: Card, pal: Palette) -> None:
    lines = card_lines(card, pal)
    assert len(lines) == CARD_HEIGHT
    assert all(cell_len(line.plain) == CARD_WIDTH for line in lines)
    corner = lines[1].plain
    if card.suit is None:
        assert "JK" in corner
    else:
        assert ("10" if card.rank == 10 else card.rank.symbol) in corner
        assert card.suit.symbol in corner
        assert (card.suit.value in lines[2].plain) == (pal is COLOUR_BLIND)


def test_red_suits_are_red_and_black_suits_black() -> None:
    inks = {suit: STANDARD.style(Card(Rank.SEVEN, suit)).color for suit in Suit}
    assert inks[Suit.HEARTS] == inks[Suit.DIAMONDS] != inks[Suit.CLUBS] == inks[Suit.SPADES]


def test_the_colour_blind_deck_has_four_inks_and_never_relies_on_colour_alone() -> None:
    assert len({COLOUR_BLIND.ink[suit] for suit in Suit}) == 4
    for suit in Suit:
        centre = card_lines(Card(Rank.SEVEN, suit), COLOUR_BLIND)[2].plain
        assert suit.symbol in centre and suit.value in centre


def test_four_cards_and_the_stack_under_them_fit_beside_the_words_at_80_columns() -> None:
    row = row_of_cards(parse_cards("KS QH JD TC"), STANDARD, hidden_below=30,
                       labels=["Bot 1", "P2", "Bot 3", "P1"])
    widths = {cell_len(line) for line in row.plain.splitlines()}
    assert max(widths) == 5 * CARD_WIDTH + 4 <= 40


# ---------------------------------------------------------------------------------- keys


def test_the_default_keys_of_four_players_are_all_different_and_free() -> None:
    check_keys(DEFAULT_KEYS)
    assert len({k for keys in DEFAULT_KEYS for k in (keys.play, keys.slap)}) == 8


@pytest.mark.parametrize(("typed", "key"), [
    ("a", "a"), ("A", "a"), ("7", "7"), (";", "semicolon"), (",", "comma"), (".", "full_stop"),
    ("/", "slash"), ("[", "left_square_bracket"), (" ", "space"), ("Space", "space"),
    ("return", "enter"), ("Enter", "enter"), ("left", "left"), ("F5", "f5"), ("tab", "tab"),
])
def test_keys_are_read_as_textual_names_them(typed: str, key: str) -> None:
    assert normalize_key(typed) == key


@pytest.mark.parametrize("key", sorted(RESERVED_KEYS))
def test_the_games_own_keys_cannot_be_given_to_a_player(key: str) -> None:
    with pytest.raises(KeyConfigError, match="is kept for"):
        check_keys([SeatKeys(play=key, slap="s")])


def test_a_key_spec_reads_back_to_the_same_keys() -> None:
    keys = parse_key_spec("p1=play:space,slap:enter;p3=play:comma,slap:full_stop", humans=3)
    assert keys == [SeatKeys("space", "enter"), DEFAULT_KEYS[1], SeatKeys("comma", "full_stop")]
    assert parse_key_spec(format_key_spec(keys), humans=3) == keys


def test_a_key_used_by_two_players_names_both() -> None:
    with pytest.raises(KeyConfigError, match="key 'k' is mapped twice: Player 1 slap and Player 2 slap"):
        parse_key_spec("p1=slap:k", humans=2)


# ---------------------------------------------------------------------------------- stats


def test_a_slap_too_late_still_counts_as_a_reaction_but_not_as_a_win() -> None:
    game = Game(Ruleset.preset("classic"), hands=["7H 2C", "7S 3D"], leader=0)
    game.play(0, at=0)
    game.play(1, at=500)
    game.slap(0, at=800)             # wins the double, 300 ms after it appeared
    game.slap(1, at=820)             # inside the 30 ms tie window: too late, ignored
    first, second = game_stats(game.to_record())
    assert (first.reaction_ms, first.slaps_won, first.slaps_missed) == ([300], 1, 0)
    assert (second.reaction_ms, second.slaps_won, second.slaps_missed, second.misslaps) == ([320], 0, 1, 0)


def test_claiming_a_won_challenge_is_not_a_reaction_time() -> None:
    game = Game(Ruleset.preset("paranoid"), hands=["QH 2C", "3S 4D 5C"], leader=0)
    game.play(0, at=0)               # queen: two chances
    game.play(1, at=400)
    game.play(1, at=800)             # challenge lost; Player 1 must slap to claim
    game.slap(0, at=1300)
    first, _ = game_stats(game.to_record())
    assert (first.piles_claimed, first.slaps_won, first.reaction_ms) == (1, 0, [])


def test_a_misslap_is_counted_and_has_no_reaction_time() -> None:
    game = Game(Ruleset.preset("classic"), hands=["7H 2C", "8S 3D"], leader=0)
    game.play(0, at=0)
    game.play(1, at=500)
    game.slap(1, at=700)
    _, second = game_stats(game.to_record())
    assert (second.misslaps, second.reaction_ms, second.slaps_missed) == (1, [], 0)


def test_figures_over_a_whole_game_add_up_to_the_games_events() -> None:
    game, events = play_simple_game(Ruleset.preset("classic"), players=3, seed=8)
    stats = game_stats(game.to_record())
    assert sum(s.slaps_won for s in stats) == sum(
        1 for e in events if isinstance(e, SlapWon) and e.pattern != "claim")
    assert sum(s.cards_played for s in stats) == game.cards_played
    assert all(r >= 0 for s in stats for r in s.reaction_ms)


# ---------------------------------------------------------------------------------- history


def test_replaying_a_record_ends_where_the_game_ended() -> None:
    game, _ = play_simple_game(Ruleset.preset("northwest"), players=4, seed=3)
    steps = replay_steps(game.to_record())
    assert len(steps) == len(game.to_record()["actions"])
    assert steps[-1].observation == game.observe(None)


# ---------------------------------------------------------------------------------- options


def test_options_are_checked_as_a_whole() -> None:
    rules = Ruleset.preset("paranoid")
    with pytest.raises(OptionsError, match="unknown bot level 'wizard'"):
        check_options(PlayOptions(rules=rules, level="wizard"))
    with pytest.raises(OptionsError, match="need 2 key set"):
        check_options(PlayOptions(rules=rules, humans=2, keys=[DEFAULT_KEYS[0]]))


def test_a_saved_record_gets_a_new_name_each_time_and_replays(tmp_path: Path) -> None:
    game, _ = play_simple_game(Ruleset.preset("classic"), players=2, seed=1)
    first = save_record(game.to_record(), tmp_path / "games", seed=1)
    second = save_record(game.to_record(), tmp_path / "games", seed=1)
    assert first != second and first.parent == second.parent == tmp_path / "games"
    replayed = Game.from_record(json.loads(first.read_text()))
    assert replayed.observe(None) == game.observe(None)


# ---------------------------------------------------------------------------------- words


def test_an_open_claim_and_a_tie_window_are_shown() -> None:
    rules = Ruleset.preset("paranoid")
    observation = {"collection": {"winner": 0, "collect_at": None, "exclusive_until": 3000,
                                  "open_to_all": True}, "tie_window_until": 1030}
    assert window_lines(observation, rules, ["Player 1"], now_ms=1010) == [
        "Anyone may slap to claim the pile!", "Tie window: 20 ms"]


def test_the_pile_line_leaves_out_what_is_empty() -> None:
    assert pile_line({"pile": [], "burned": [], "penalty_pile": 0}) == "Pile 0"


async def test_the_table_shows_no_card_that_is_face_down() -> None:
    options = PlayOptions(rules=Ruleset.preset("classic"), humans=1, bots=3, seed=5)
    app = PlayApp(options, clock="virtual")
    async with app.run_test() as pilot:
        for now in range(0, 8000, 100):
            if app.game.turn == 0:
                app.player_action(0, "play")
            app.advance_to(now)
        await pilot.pause()
        view = app.query_one(TableView)
        shown = "".join(str(w.render()) for w in [*view.query(SeatPanel), view.query_one(PileView)])
        face_up = {card.pretty() for card in app.game.pile}
        labels = set(re.findall(r"(?:10|[2-9JQKA])[♣♦♥♠]", shown))
        assert labels <= face_up
        assert app.game.pile == [] or labels


# ---------------------------------------------------------------------------------- replay


async def test_the_replay_steps_forward_and_back_and_jumps_from_pile_to_pile() -> None:
    game, _ = play_simple_game(Ruleset.preset("classic"), players=3, seed=5)
    app = ReplayApp(game.to_record())
    async with app.run_test() as pilot:
        assert app.position == 0
        await pilot.press("right", "right", "right")
        assert app.position == 3
        await pilot.press("left")
        assert app.position == 2
        await pilot.press("right_square_bracket")
        step = app.steps[app.position - 1]
        assert any(isinstance(e, (PileWon, SlapWon)) for e in step.events)
        assert all(not any(isinstance(e, (PileWon, SlapWon)) for e in s.events)
                   for s in app.steps[2:app.position - 1])
        await pilot.press("end")
        assert app.position == len(app.steps)
        assert app.observation == game.observe(None)
        await pilot.press("right")
        assert app.position == len(app.steps)
        await pilot.press("home")
        assert app.position == 0 and app.observation["cards_played"] == 0
        await pilot.press("q")
    assert app.return_code == 0
