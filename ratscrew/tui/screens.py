"""The screens over the table: help (the active rules in plain words), pause, settings, and the
end of the game with each player's figures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.table import Table as RichTable
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static, Switch

from ratscrew.rulebook import explain
from ratscrew.ruleset import Ruleset
from ratscrew.tui.keys import RESERVED_KEYS, KeyConfigError, SeatKeys, check_keys, key_label, normalize_key
from ratscrew.tui.options import MAX_PACE, MIN_PACE
from ratscrew.tui.stats import PlayerStats

APP_KEYS = "Esc pause · F1 help · F2 settings · +/- bot pace · ^Q quit"
"""The keys the game keeps for itself, as the key bar shows them."""


def rules_text(rules: Ruleset, names: Sequence[str], keys: Sequence[SeatKeys],
               own_keys: Mapping[str, str] = RESERVED_KEYS) -> Text:
    """The help page: who plays with which keys, the game's own keys (``own_keys``: key ->
    what it does), then the rules."""
    text = Text()
    text.append(rules.title, style="bold underline")
    if rules.summary:
        text.append(f"\n{rules.summary}", style="italic")
    text.append("\n\nKeys\n", style="bold")
    for name, seat_keys in zip(names, keys, strict=False):
        text.append(f"- {name}: {key_label(seat_keys.play)} plays your top card, "
                    f"{key_label(seat_keys.slap)} slaps the pile\n")
    reserved: dict[str, list[str]] = {}
    for key, what in own_keys.items():
        reserved.setdefault(what, []).append(key_label(key))
    for what, labels in reserved.items():
        text.append(f"- {' or '.join(labels)}: {what}\n")
    for line in explain(rules):
        if line.startswith("-"):
            text.append(line + "\n")
        else:
            text.append("\n" + line.rstrip(":") + "\n", style="bold")
    text.rstrip()
    return text


class HelpScreen(ModalScreen[None]):
    """The active rules in plain words, and every key."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,f1,question_mark,q", "close", "close")]

    def __init__(self, rules: Ruleset, names: Sequence[str], keys: Sequence[SeatKeys],
                 own_keys: Mapping[str, str] = RESERVED_KEYS) -> None:
        super().__init__(classes="dialog-screen")
        self.body = rules_text(rules, names, keys, own_keys)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="help-dialog") as dialog:
            dialog.border_title = "Help"
            dialog.border_subtitle = "↑↓ scroll · Esc close"
            with VerticalScroll(id="help-scroll"):
                yield Static(self.body, id="help-text")

    def on_mount(self) -> None:
        """Arrow keys and PgUp/PgDn scroll the rules."""
        self.query_one("#help-scroll", VerticalScroll).focus()

    def action_close(self) -> None:
        """Back to the game."""
        self.dismiss(None)


class PauseScreen(ModalScreen[None]):
    """The game is paused: nothing happens until it is dismissed."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,space,enter", "close", "resume"),
        Binding("f1,question_mark", "app.help", "help"),
        Binding("f2", "app.settings", "settings"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="pause-dialog") as dialog:
            dialog.border_title = "Paused"
            yield Label("The table clock is stopped.\n\n"
                        "Esc resume · F1 help · F2 settings · ^Q quit", id="pause-text")

    def action_close(self) -> None:
        """Resume the game."""
        self.dismiss(None)


@dataclass(frozen=True)
class Settings:
    """What the settings screen can change during a game."""

    keys: tuple[SeatKeys, ...]
    pace: float
    colour_blind: bool


def read_settings(names: Sequence[str], key_texts: Sequence[tuple[str, str]], pace_text: str,
                  colour_blind: bool) -> Settings:
    """Check what was typed on the settings screen; a bad value is a `ValueError` that names it.

    >>> read_settings(["You"], [("a", "space")], "1.5", False).keys
    (SeatKeys(play='a', slap='space'),)
    >>> read_settings(["You"], [("a", "a")], "1", False)
    Traceback (most recent call last):
    ...
    ratscrew.tui.keys.KeyConfigError: key 'a' is mapped twice: You play and You slap
    """
    keys = tuple(SeatKeys(play=normalize_key(play), slap=normalize_key(slap)) for play, slap in key_texts)
    check_keys(keys, names)
    try:
        pace = float(pace_text)
    except ValueError:
        raise ValueError(f"bot pace must be a number, not {pace_text!r}") from None
    if not MIN_PACE <= pace <= MAX_PACE:
        raise ValueError(f"bot pace must be between {MIN_PACE} and {MAX_PACE}")
    return Settings(keys=keys, pace=pace, colour_blind=colour_blind)


def _field(value: str, id: str) -> Input:
    """A one-line text field with a steady cursor."""
    field = Input(value, id=id, classes="key-input")
    field.cursor_blink = False
    return field


class SettingsScreen(ModalScreen[Settings | None]):
    """Remap the players' keys, change the bots' pace, switch the colour-blind palette."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,f2", "cancel", "cancel")]

    def __init__(self, names: Sequence[str], current: Settings) -> None:
        super().__init__(classes="dialog-screen")
        self.names = list(names)
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="settings-dialog") as dialog:
            dialog.border_title = "Settings"
            dialog.border_subtitle = "Enter apply · Esc cancel"
            yield Label("A key is one character or a name: space, enter, tab, left, f5.",
                        id="settings-hint")
            for seat, (name, keys) in enumerate(zip(self.names, self.current.keys, strict=True)):
                with Horizontal(classes="setting-row"):
                    yield Label(f"{name[:10]:<10} play", classes="setting-label")
                    yield _field(keys.play, f"play-{seat}")
                    yield Label("slap", classes="setting-label-short")
                    yield _field(keys.slap, f"slap-{seat}")
            with Horizontal(classes="setting-row"):
                yield Label("bot pace ×", classes="setting-label")
                yield _field(f"{self.current.pace:g}", "pace")
            with Horizontal(classes="setting-row"):
                yield Label("colour-blind", classes="setting-label")
                yield Switch(self.current.colour_blind, id="colour-blind")
            yield Label("", id="settings-error")
            with Horizontal(classes="setting-row"):
                yield Button("Apply", id="apply", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in any field applies."""
        event.stop()
        self.apply()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Apply or cancel."""
        event.stop()
        if event.button.id == "apply":
            self.apply()
        else:
            self.dismiss(None)

    def apply(self) -> None:
        """Check the fields; close with the new settings, or say what is wrong."""
        texts = [(self.query_one(f"#play-{seat}", Input).value, self.query_one(f"#slap-{seat}", Input).value)
                 for seat in range(len(self.names))]
        try:
            settings = read_settings(self.names, texts, self.query_one("#pace", Input).value,
                                     self.query_one("#colour-blind", Switch).value)
        except (KeyConfigError, ValueError) as error:
            self.query_one("#settings-error", Label).update(Text(str(error), style="bold red"))
            return
        self.dismiss(settings)

    def action_cancel(self) -> None:
        """Close without changes."""
        self.dismiss(None)


def stats_table(names: Sequence[str], stats: Sequence[PlayerStats], humans: int) -> RichTable:
    """Each seat's figures as a table, people first."""
    table = RichTable(box=None, padding=(0, 1), header_style="bold")
    for column, justify in (("", "left"), ("reaction mean", "right"), ("best", "right"),
                            ("slaps won", "right"), ("missed", "right"), ("misslaps", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for seat, seat_stats in enumerate(stats):
        mean, best = seat_stats.mean_reaction_ms, seat_stats.best_reaction_ms
        table.add_row(
            Text(names[seat], style="bold" if seat < humans else "dim"),
            "-" if mean is None else f"{mean:.0f} ms",
            "-" if best is None else f"{best} ms",
            str(seat_stats.slaps_won), str(seat_stats.slaps_missed), str(seat_stats.misslaps),
        )
    return table


class EndScreen(ModalScreen[str]):
    """The game is over: who won, everyone's figures, and an offer to save the record.

    Dismissed with ``"quit"`` (or ``"close"`` to look at the table again)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "save", "save"), Binding("q", "quit", "quit"), Binding("escape", "close", "table")]

    def __init__(self, headline: str, names: Sequence[str], stats: Sequence[PlayerStats],
                 humans: int, details: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.headline = headline
        self.names = list(names)
        self.stats = list(stats)
        self.humans = humans
        self.details = details
        self.saved_to: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="end-dialog") as dialog:
            dialog.border_title = "Game over"
            dialog.border_subtitle = "s save record · Esc table · q quit"
            yield Static(Text(self.headline, style="bold magenta"), id="end-headline")
            if self.details:
                yield Static(Text(self.details, style="dim"), id="end-details")
            yield Static(stats_table(self.names, self.stats, self.humans), id="end-stats")
            yield Static("", id="end-saved")
            with Horizontal(classes="setting-row"):
                yield Button("Save record", id="save", variant="primary")
                yield Button("Quit", id="quit")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Save or quit."""
        event.stop()
        if event.button.id == "save":
            self.action_save()
        else:
            self.action_quit()

    def action_save(self) -> None:
        """Ask the app to save the record, and say where it went."""
        saver = getattr(self.app, "save_record", None)
        if saver is None:
            return
        try:
            path = saver()
        except OSError as error:
            self.query_one("#end-saved", Static).update(Text(f"could not save: {error}", style="bold red"))
            return
        self.saved_to = str(path)
        self.query_one("#end-saved", Static).update(
            Text(f"saved to {path}\nreplay it with: ratscrew replay {path}", style="green"))

    def action_quit(self) -> None:
        """Leave the game."""
        self.dismiss("quit")

    def action_close(self) -> None:
        """Back to the final table."""
        self.dismiss("close")
