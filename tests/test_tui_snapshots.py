"""SVG snapshots of the terminal game's main screens at 80x24.

Each scenario is deterministic: a fixed seed or a deal from card notation, the app's virtual
clock (time moves only when the scenario says), no blinking cursor. The screen is exported as
SVG and compared with ``tests/snapshots/NAME.svg``. After a deliberate change of the look,
regenerate them with ``RATSCREW_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/test_tui_snapshots.py``
and look at the SVGs (any browser opens them) before committing.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from pathlib import Path

import pytest
from textual.app import App
from textual.pilot import Pilot

from ratscrew.engine import Game
from ratscrew.ruleset import Ruleset
from ratscrew.tui.app import PlayApp
from ratscrew.tui.options import PlayOptions
from ratscrew.tui.replay import ReplayApp

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("RATSCREW_UPDATE_SNAPSHOTS") == "1"
MADE_WITH = SNAPSHOTS / "VERSIONS"
"""The Textual and Rich versions the snapshots were drawn with: another version draws the same
screen with other bytes, so the comparison only means something under these."""


def drawing_versions() -> str:
    return f"textual {version('textual')}, rich {version('rich')}\n"


def solo_against_bots(colour_blind: bool = False, players: int = 4, humans: int = 1) -> PlayApp:
    options = PlayOptions(rules=Ruleset.preset("classic"), humans=humans, bots=players - humans,
                          seed=42, colour_blind=colour_blind)
    return PlayApp(options, clock="virtual")


async def play_until_challenge(app: PlayApp, pilot: Pilot[None], pile: int = 5) -> None:
    """People press play whenever it is their turn; bots play on the virtual clock; stop once a
    challenge is on with ``pile`` cards down."""
    now = 0
    while not (len(app.game.live_pile) >= pile and app.game.challenge is not None):
        turn = app.game.turn
        if turn is not None and turn < len(app.humans):
            app.player_action(turn, "play")
        now += 100
        app.advance_to(now)
        assert now < 60_000, "the scenario never reached a challenge"
    await pilot.pause()


async def table_with_a_challenge(pilot: Pilot[None]) -> None:
    assert isinstance(pilot.app, PlayApp)
    await play_until_challenge(pilot.app, pilot)


async def claim_window_colour_blind(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, PlayApp)
    await pilot.press("a")      # Player 1: QH, Player 2 has two chances
    app.advance_to(400)
    await pilot.press("l")      # 3S
    app.advance_to(800)
    await pilot.press("k")      # Player 2 misslaps: five cards to the penalty pile
    app.advance_to(1200)
    await pilot.press("l")      # 9D: the challenge is lost, Player 1 alone may claim
    app.advance_to(2200)
    await pilot.pause()


async def help_screen(pilot: Pilot[None]) -> None:
    await pilot.press("f1")


async def settings_screen(pilot: Pilot[None]) -> None:
    await pilot.press("f2")


async def end_screen(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, PlayApp)
    await pilot.press("a")
    app.advance_to(450)
    await pilot.press("l")
    app.advance_to(800)
    await pilot.press("s")
    await pilot.pause()


async def eight_seats(pilot: Pilot[None]) -> None:
    assert isinstance(pilot.app, PlayApp)
    await play_until_challenge(pilot.app, pilot, pile=3)


async def replay_at_a_slap(pilot: Pilot[None]) -> None:
    await pilot.press("right_square_bracket")
    await pilot.press("right_square_bracket")


def people(hands: list[str], rules: str = "classic", colour_blind: bool = False) -> PlayApp:
    ruleset = Ruleset.preset(rules)
    options = PlayOptions(rules=ruleset, humans=len(hands), bots=0, seed=1, colour_blind=colour_blind)
    return PlayApp(options, game=Game(ruleset, hands, leader=0), clock="virtual")


def recorded_game() -> ReplayApp:
    game = Game.deal(Ruleset.preset("classic"), players=3, seed=5)
    from ratscrew.playout import play_simple_game

    finished, _ = play_simple_game(game.rules, 3, seed=5, game=game)
    return ReplayApp(finished.to_record())


SCENARIOS: dict[str, tuple[Callable[[], App[None]], Callable[[Pilot[None]], Awaitable[None]]]] = {
    "table_challenge": (solo_against_bots, table_with_a_challenge),
    "table_claim_window_colour_blind": (
        lambda: people(["QH 2C 4C", "3S 5D 6D 7D 8D 9S 9D TC"], rules="paranoid", colour_blind=True),
        claim_window_colour_blind),
    "table_eight_seats": (lambda: solo_against_bots(players=8, humans=4), eight_seats),
    "help": (lambda: people(["7H 2C", "8S 3D"], rules="northwest"), help_screen),
    "settings": (lambda: people(["7H 2C", "8S 3D"]), settings_screen),
    "end": (lambda: people(["7H", "7S"]), end_screen),
    "replay": (recorded_game, replay_at_a_slap),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
async def test_screen_matches_its_snapshot(name: str, tmp_path: Path) -> None:
    make_app, drive = SCENARIOS[name]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await drive(pilot)
        await pilot.pause()
        svg = app.export_screenshot(title=f"ratscrew {name}")
    expected_path = SNAPSHOTS / f"{name}.svg"
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        expected_path.write_text(svg, encoding="utf-8")
        MADE_WITH.write_text(drawing_versions(), encoding="utf-8")
        return
    if MADE_WITH.exists() and MADE_WITH.read_text(encoding="utf-8") != drawing_versions():
        pytest.skip(f"snapshots were drawn with {MADE_WITH.read_text().strip()}, this is "
                    f"{drawing_versions().strip()}: regenerate them with RATSCREW_UPDATE_SNAPSHOTS=1 "
                    "and look at them")
    assert expected_path.exists(), (
        f"no snapshot {expected_path.name}: run with RATSCREW_UPDATE_SNAPSHOTS=1 to create it")
    if svg != expected_path.read_text(encoding="utf-8"):
        actual = tmp_path / f"{name}.svg"
        actual.write_text(svg, encoding="utf-8")
        pytest.fail(f"screen {name!r} differs from {expected_path}; this run's screen is {actual}")
