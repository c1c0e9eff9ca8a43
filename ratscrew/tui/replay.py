"""``ratscrew replay``: step through a saved game, forward and back.

The record is replayed through the engine once (:func:`ratscrew.history.replay_steps`); each
step keeps the spectator's observation after it, so stepping back is as cheap as stepping
forward and every state shown is one the engine produced. Only steps that did something are
shown (a timer that fired with no effect is skipped).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from ratscrew.engine import Game
from ratscrew.events import PileWon, SlapWon
from ratscrew.history import Step, replay_steps, start_of
from ratscrew.narrate import seat_names
from ratscrew.observation import Observation
from ratscrew.tui.gamelog import GameLog, clock_label, log_line, verdict
from ratscrew.tui.screens import HelpScreen
from ratscrew.tui.table import SeatInfo, TableView

LOG_LINES = 60
"""Events of earlier steps kept in the log while stepping."""


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a game record from a JSON file; a missing, unreadable or malformed file is a
    `ValueError` with a message naming the file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file") from None
    except OSError as error:
        raise ValueError(f"cannot read {str(path)!r}: {error.strerror}") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not valid JSON ({error})") from None
    if not isinstance(record, dict):
        raise ValueError(f"{path}: not a ratscrew game record")
    return record


def record_names(record: dict[str, Any], players: int) -> list[str]:
    """The seats' names saved with the record by ``ratscrew play``, else ``Player 1``...

    >>> record_names({"names": ["Player 1", "Bot 1"]}, 2), record_names({}, 2)
    (['Player 1', 'Bot 1'], ['Player 1', 'Player 2'])
    """
    names = record.get("names")
    if isinstance(names, list) and len(names) == players and all(isinstance(n, str) for n in names):
        return list(names)
    return seat_names(players)


def visible_steps(steps: Sequence[Step]) -> list[Step]:
    """The steps worth stopping at: those that produced events."""
    return [step for step in steps if step.events]


def step_lines(steps: Sequence[Step], names: Sequence[str]) -> list[str]:
    """Every step as plain narrated lines (what ``ratscrew replay --text`` prints)."""
    lines = []
    for number, step in enumerate(steps, 1):
        for event in step.events:
            lines.append(f"{number:>4} {log_line(event, names).plain}")
    return lines


class ReplayApp(App[None]):
    """Steps through a replayed game: the table as it was after each step, and the story so far."""

    CSS_PATH = "ratscrew.tcss"
    TITLE = "ratscrew replay"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,l,space", "step(1)", "next"),
        Binding("left,h,backspace", "step(-1)", "back"),
        Binding("pagedown", "step(10)", "+10"),
        Binding("pageup", "step(-10)", "-10"),
        Binding("home", "go(0)", "start"),
        Binding("end", "go(-1)", "end"),
        Binding("right_square_bracket", "pile(1)", "next pile"),
        Binding("left_square_bracket", "pile(-1)", "previous pile"),
        Binding("f1,question_mark", "help", "help"),
        Binding("q,escape,ctrl+q", "quit", "quit", priority=True),
    ]

    def __init__(self, record: dict[str, Any], colour_blind: bool = False, start: int = 0) -> None:
        super().__init__()
        self.record = record
        self.start_game: Game = start_of(record)
        self.steps = visible_steps(replay_steps(record))
        self.names = record_names(record, self.start_game.players)
        self.position = max(0, min(start, len(self.steps)))
        """0 is the deal; ``n`` is after the n-th shown step."""
        seats = [SeatInfo(name, human=False) for name in self.names]
        self.table_view = TableView(self.start_game.rules, seats, colour_blind=colour_blind)

    def compose(self) -> ComposeResult:
        yield Static(id="topbar")
        yield self.table_view
        log = GameLog(self.names)
        log.can_focus = False
        yield log
        yield Static("←/→ step · PgUp/PgDn ×10 · Home/End · [ ] piles · F1 rules · q quit", id="keybar")

    def on_mount(self) -> None:
        """Show the starting position."""
        self.show()

    @property
    def observation(self) -> Observation:
        """The table after the current step."""
        if self.position == 0:
            return self.start_game.observe(None)
        return self.steps[self.position - 1].observation

    def show(self) -> None:
        """Draw the table and the story up to the current step."""
        observation = self.observation
        current = self.steps[self.position - 1] if self.position else None
        judged = verdict(current.events, self.names) if current is not None else None
        self.table_view.show(observation, observation["now"], judged)
        log = self.query_one(GameLog)
        log.clear()
        earlier = [e for step in self.steps[:max(0, self.position - 1)] for e in step.events]
        for event in earlier[-LOG_LINES:]:
            log.write(log_line(event, self.names))
        if current is not None:
            for event in current.events:
                log.write(Text.assemble(log_line(event, self.names), style="reverse"))
        total = len(self.steps)
        what = "the deal" if current is None else f"step {self.position}/{total}"
        self.query_one("#topbar", Static).update(Text(
            f" replay · {self.start_game.rules.name} · {what} · {clock_label(observation['now'])}"
            f" · {observation['cards_played']} cards played", no_wrap=True, overflow="ellipsis"))

    def action_step(self, delta: int) -> None:
        """Move ``delta`` steps (negative: back)."""
        self.position = max(0, min(len(self.steps), self.position + delta))
        self.show()

    def action_go(self, position: int) -> None:
        """Jump to the deal (0) or the end (-1)."""
        self.position = len(self.steps) if position < 0 else min(position, len(self.steps))
        self.show()

    def action_pile(self, direction: int) -> None:
        """Jump to the next (or previous) step where a pile was won or a slap judged."""
        def notable(step: Step) -> bool:
            return any(isinstance(e, (PileWon, SlapWon)) for e in step.events)

        if direction > 0:
            for index in range(self.position, len(self.steps)):
                if notable(self.steps[index]):
                    self.position = index + 1
                    break
            else:
                self.position = len(self.steps)
        else:
            for index in range(self.position - 2, -1, -1):
                if notable(self.steps[index]):
                    self.position = index + 1
                    break
            else:
                self.position = 0
        self.show()

    def action_help(self) -> None:
        """The rules the game was played under."""
        self.push_screen(HelpScreen(self.start_game.rules, [], []))
