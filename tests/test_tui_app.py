"""The terminal game driven by real key presses (Textual's pilot).

Most tests seat people only, with hands dealt from card notation, on the app's virtual clock:
the test decides when each key is pressed (``app.advance_to``), so every slap lands exactly when
the scenario says. A few run the real clock with bots to show the table runs by itself.
"""

from __future__ import annotations

import json
from pathlib import Path

from piloting import until
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from ratscrew.engine import Game
from ratscrew.events import ChallengeLost, GameOver, Misslap, PileWon, SlapWon
from ratscrew.history import replay_steps
from ratscrew.ruleset import Ruleset
from ratscrew.tui.app import PlayApp
from ratscrew.tui.options import PlayOptions
from ratscrew.tui.screens import EndScreen, HelpScreen, PauseScreen, SettingsScreen
from ratscrew.tui.table import InfoPanel, SeatPanel


def people_only(hands: list[str], rules: str = "classic", leader: int = 0, **extra: object) -> PlayApp:
    """A table of people sharing the keyboard (default keys: P1 a/s, P2 l/k, P3 z/x, P4 m/n),
    dealt ``hands`` (top card first), on the virtual clock."""
    ruleset = Ruleset.preset(rules)
    options = PlayOptions(rules=ruleset, humans=len(hands), bots=0, seed=1, **extra)  # type: ignore[arg-type]
    game = Game(ruleset, hands, leader=leader)
    return PlayApp(options, game=game, clock="virtual")


def shown(widget: Static) -> str:
    """The plain text a Static widget shows."""
    return str(widget.render())


def verdict_shown(app: PlayApp) -> str:
    """The line under the pile that explains the latest slap or refusal."""
    return shown(app.query_one("#verdict", Static))


async def test_a_slap_on_a_double_is_won() -> None:
    app = people_only(["7H 2C 9D", "7S 3D 4D"])
    async with app.run_test() as pilot:
        await pilot.press("a")  # Player 1 plays 7H
        app.advance_to(600)
        await pilot.press("l")  # Player 2 plays 7S: a double
        app.advance_to(900)
        await pilot.press("s")  # Player 1 slaps 300 ms later
        await pilot.pause()
        won = [e for e in app.events if isinstance(e, SlapWon)]
        assert [(e.seat, e.pattern, e.at) for e in won] == [(0, "double", 900)]
        assert app.game.hand_size(0) == 4
        assert "✔ Player 1 slaps a double (7♥ 7♠)" in verdict_shown(app)
        assert "4 cards" in shown(app.query_one("#seat-0", SeatPanel))


async def test_the_slower_hand_on_a_won_double_is_too_slow_and_pays_nothing() -> None:
    app = people_only(["7H 2C 9D", "7S 3D 4D"])
    async with app.run_test() as pilot:
        await pilot.press("a")
        app.advance_to(600)
        await pilot.press("l")  # 7H 7S: a double
        app.advance_to(900)
        await pilot.press("s")  # Player 1 slaps first...
        app.advance_to(1020)
        await pilot.press("k")  # ...and Player 2's hand lands 120 ms later
        await pilot.pause()
        assert not [e for e in app.events if isinstance(e, Misslap)]
        assert app.game.hand_size(1) == 2  # Player 2 kept every card
        assert ("Player 2 slapped too, but Player 1 was 120 ms quicker: no penalty, since being "
                "slower is not a mistake") in verdict_shown(app)


async def test_a_slap_on_nothing_burns_a_card_under_classic_rules() -> None:
    app = people_only(["7H 2C 9D", "8S 3D 4D"])
    async with app.run_test() as pilot:
        await pilot.press("a")
        app.advance_to(500)
        await pilot.press("l")
        app.advance_to(900)
        await pilot.press("k")  # Player 2 slaps 7H 8S: no pattern
        await pilot.pause()
        misslaps = [e for e in app.events if isinstance(e, Misslap)]
        assert [(e.seat, e.penalty, [str(c) for c in e.cards]) for e in misslaps] == [(1, "burn", ["3D"])]
        line = "Player 2 slapped 7♥ 8♠: no pattern. Player 2 burns 1 card (3♦) under the pile"
        assert line in verdict_shown(app)
        assert "burned 1" in shown(app.query_one(InfoPanel))
        assert app.game.hand_size(1) == 1


async def test_a_misslap_feeds_the_penalty_pile_under_paranoid_rules() -> None:
    app = people_only(["7H 2C 9D", "8S 3D 4D 5D 6D 7D 8D 9H"], rules="paranoid")
    async with app.run_test() as pilot:
        await pilot.press("a")
        app.advance_to(500)
        await pilot.press("l")
        app.advance_to(900)
        await pilot.press("k")
        await pilot.pause()
        misslap = next(e for e in app.events if isinstance(e, Misslap))
        assert misslap.penalty == "penalty_pile" and len(misslap.cards) == 5
        assert "penalty pile 5" in shown(app.query_one(InfoPanel))
        assert "Player 2 puts 5 cards on the penalty pile" in verdict_shown(app)


async def test_a_misslap_gives_the_pile_away_under_ratscrew_rules() -> None:
    app = people_only(["7H 2C 9D", "8S 3D 4D"], rules="ratscrew")
    async with app.run_test() as pilot:
        await pilot.press("a")
        app.advance_to(500)
        await pilot.press("l")
        app.advance_to(900)
        await pilot.press("k")  # Player 2 played the top card, so the pile goes to Player 1
        await pilot.pause()
        misslap = next(e for e in app.events if isinstance(e, Misslap))
        assert (misslap.penalty, misslap.pile_to) == ("give_pile", 0)
        assert "no pattern. The pile goes to Player 1" in verdict_shown(app)


async def test_a_lost_challenge_counts_down_then_the_challenger_collects() -> None:
    app = people_only(["KH 2C", "3S 4D 5C 6H"])
    async with app.run_test() as pilot:
        await pilot.press("a")  # King: Player 2 has three chances
        app.advance_to(500)
        await pilot.press("l")
        await pilot.pause()
        assert "King from Player 1\nPlayer 2: 2 chances left" in shown(app.query_one(InfoPanel))
        assert "▶ 2 chances" in shown(app.query_one("#seat-1", SeatPanel))
        app.advance_to(1000)
        await pilot.press("l")
        app.advance_to(1500)
        await pilot.press("l")  # the third number card: the challenge is lost
        await pilot.pause()
        assert any(isinstance(e, ChallengeLost) and e.winner == 0 for e in app.events)
        app.advance_to(1800)
        await pilot.pause()
        info = shown(app.query_one(InfoPanel))
        assert "Player 1 collects in 0.7 s" in info
        assert "owed the pile" in shown(app.query_one("#seat-0", SeatPanel))
        app.advance_to(2500)  # the grace window (1 s under classic rules) has run out
        await pilot.pause()
        collected = [e for e in app.events if isinstance(e, PileWon)]
        assert [(e.seat, e.reason, e.cards) for e in collected] == [(0, "challenge", 4)]


async def test_a_key_out_of_turn_is_explained_not_played() -> None:
    app = people_only(["7H 2C", "8S 3D"])
    async with app.run_test() as pilot:
        await pilot.press("l")  # Player 2 presses play, but Player 1 leads
        await pilot.pause()
        assert app.events == []
        assert "Player 2: not your turn, Player 1 plays next." in verdict_shown(app)


async def take_the_last_two_cards(pilot: Pilot[None], app: PlayApp) -> None:
    """Hands "7H" and "7S": both play, and Player 1 slaps the double, holding every card."""
    await pilot.press("a")
    app.advance_to(400)
    await pilot.press("l")
    app.advance_to(650)
    await pilot.press("s")
    await pilot.pause()


async def test_the_end_screen_shows_the_winner_and_saves_a_record(tmp_path: Path) -> None:
    app = people_only(["7H", "7S"], record_dir=tmp_path)
    async with app.run_test() as pilot:
        await take_the_last_two_cards(pilot, app)
        assert isinstance(app.events[-1], GameOver)
        assert isinstance(app.screen, EndScreen)
        headline = shown(app.screen.query_one("#end-headline", Static))
        assert headline == "Player 1 wins, holding every card!"
        stats = app.screen.stats
        assert stats[0].reaction_ms == [250] and stats[0].slaps_won == 1
        assert stats[1].slaps_missed == 1
        await pilot.press("s")
        await pilot.pause()
        saved = list(tmp_path.glob("*.json"))
        assert len(saved) == 1 and app.saved_record == saved[0]
        record = json.loads(saved[0].read_text())
        assert [step.kind for step in replay_steps(record)] == ["play", "play", "slap"]
        assert record["names"] == ["Player 1", "Player 2"]
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_after_game_over_the_key_bar_names_the_end_keys_not_slap() -> None:
    app = people_only(["7H", "7S"])
    async with app.run_test() as pilot:
        await pilot.pause()
        keybar = app.game_screen.query_one("#keybar", Static)
        assert "game over" not in shown(keybar)
        await take_the_last_two_cards(pilot, app)
        assert isinstance(app.screen, EndScreen)
        assert "slap" not in shown(keybar) and "s save record" in shown(keybar)
        await pilot.press("escape")  # back to the final table
        await pilot.pause()
        assert not isinstance(app.screen, EndScreen)
        assert "slap" not in shown(keybar) and "Enter results" in shown(keybar)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)


async def test_quit_mid_game_stops_the_table_cleanly() -> None:
    options = PlayOptions(rules=Ruleset.preset("classic"), humans=1, bots=3, seed=3, pace=4.0)
    app = PlayApp(options)
    async with app.run_test() as pilot:
        await pilot.press("a")
        await pilot.pause(0.5)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0
    assert app.table.stop_reason == "stopped"


async def test_bots_play_on_the_real_clock_without_waiting_for_keys() -> None:
    options = PlayOptions(rules=Ruleset.preset("classic"), humans=1, bots=3, seed=11, pace=4.0,
                          level="expert")
    dealt = Game.deal(options.rules, players=4, seed=11)
    bot_one_leads = Game(options.rules, [dealt.hand(seat) for seat in range(4)], leader=1)
    app = PlayApp(options, game=bot_one_leads)
    async with app.run_test() as pilot:
        for _ in range(50):  # nobody presses a key; give the bots up to 5 s
            await pilot.pause(0.1)
            played = [e.seat for e in app.events if e.kind == "card_played"]
            if len(played) >= 3:
                break
        assert len(played) >= 3
        assert set(played) <= {1, 2, 3}
        await pilot.press("ctrl+q")


async def test_pause_stops_the_table_clock_until_escape() -> None:
    options = PlayOptions(rules=Ruleset.preset("classic"), humans=1, bots=1, seed=2)
    app = PlayApp(options)
    async with app.run_test() as pilot:
        await pilot.pause(0.1)
        await pilot.press("escape")
        assert isinstance(app.screen, PauseScreen)
        assert app.table.paused
        frozen = app.table.now
        await pilot.pause(0.3)
        assert app.table.now == frozen
        await pilot.press("escape")
        assert not app.table.paused
        await pilot.press("ctrl+q")


async def test_help_lists_the_active_rules_in_plain_words() -> None:
    app = people_only(["7H 2C", "8S 3D"], rules="paranoid")
    async with app.run_test() as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        text = shown(app.screen.query_one("#help-text", Static))
        assert "paranoid rules" in text
        assert "Player 1: a plays your top card, s slaps the pile" in text
        assert "penalty pile" in text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_settings_remap_keys_and_refuse_a_key_mapped_twice() -> None:
    app = people_only(["7H 2C 9D", "7S 3D 4D"])
    async with app.run_test() as pilot:
        await pilot.press("f2")
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        screen.query_one("#slap-0", Input).value = "l"  # Player 2 already plays with l
        await pilot.click("#apply")
        await until(pilot, lambda: "mapped twice" in str(screen.query_one("#settings-error").render()),
                    "the settings error")
        assert isinstance(app.screen, SettingsScreen)
        assert "key 'l' is mapped twice" in str(screen.query_one("#settings-error").render())
        screen.query_one("#slap-0", Input).value = "space"
        screen.query_one("#pace", Input).value = "2"
        # A Textual button ignores clicks for 0.2 s after a press (its "-active" look); a person
        # clicking again waits for it, and so does the test.
        apply = screen.query_one("#apply", Button)
        await until(pilot, lambda: not apply.has_class("-active"), "the Apply button to come back up")
        await pilot.click("#apply")
        await until(pilot, lambda: not isinstance(app.screen, SettingsScreen), "the settings to close")
        assert app.pace == 2.0
        await pilot.press("a")
        app.advance_to(500)
        await pilot.press("l")
        app.advance_to(800)
        await pilot.press("space")  # Player 1's new slap key
        await pilot.pause()
        assert [(e.seat, e.pattern) for e in app.events if isinstance(e, SlapWon)] == [(0, "double")]
        assert app.query_one("#seat-0", SeatPanel).border_subtitle == "a/space"
