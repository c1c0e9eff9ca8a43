"""The terminal game: `PlayApp` seats people and bots at a `ratscrew.runtime.Table` and draws it.

How it fits together. The table runs the game under the real clock as an asyncio task in
Textual's own event loop (a worker), so bots act on time while the screen keeps drawing; a
key press calls :meth:`ratscrew.runtime.Table.submit` at once, stamped with the table clock, and
never waits for anything. The table calls back with the events of every action; the app writes
them to the log, explains the latest slap, and redraws the table from a spectator's observation.
Opening a dialog (pause, help, settings) pauses the table clock.

For tests and snapshots the app can run on a *virtual* clock instead: nothing moves until
:meth:`PlayApp.advance_to` is called, and key presses are stamped with that virtual time, so a
test decides exactly when each card and slap happens.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Literal

from rich.text import Text
from textual.app import App
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.events import Key
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import Worker

from ratscrew.bots.agent import BotAgent
from ratscrew.bots.profile import paced
from ratscrew.bots.spec import is_agent_spec, parse_bot_spec
from ratscrew.engine import Game
from ratscrew.events import Event, GameOver
from ratscrew.narrate import refusal_text
from ratscrew.runtime import ActionKind, Agent, HumanAgent, Rejection, Table
from ratscrew.sim.summary import game_seed
from ratscrew.tui.gamelog import GameLog, clock_label, verdict
from ratscrew.tui.keys import SeatKeys, key_label
from ratscrew.tui.options import MAX_PACE, MIN_PACE, PlayOptions, save_record, seat_names
from ratscrew.tui.screens import (
    APP_KEYS,
    EndScreen,
    HelpScreen,
    PauseScreen,
    Settings,
    SettingsScreen,
)
from ratscrew.tui.stats import game_stats
from ratscrew.tui.table import SeatInfo, SeatPanel, TableView
from ratscrew.tui.view import TableScreen

Clock = Literal["real", "virtual"]
PACE_STEP = 1.25
"""How much one press of ``+`` or ``-`` speeds up or slows down the bots."""
_ENDINGS = {
    "all_cards": "{name} wins, holding every card!",
    "last_holder": "{name} wins as the last player with cards!",
    "triple": "{name} slapped a triple and wins the game!",
    "triple_sixes": "Triple sixes: everyone loses.",
    "nobody_wins": "The cards ran out: nobody wins.",
    "cycle": "The game repeats itself forever: nobody wins.",
}


def key_bar_text(names: Sequence[str], keys: Sequence[SeatKeys]) -> str:
    """The bottom line: each person's keys, then the game's own keys.

    >>> key_bar_text(["You"], [SeatKeys("a", "s")])
    'a play · s slap │ Esc pause · F1 help · F2 settings · +/- bot pace · ^Q quit'
    """
    if len(keys) == 1:
        players = f"{key_label(keys[0].play)} play · {key_label(keys[0].slap)} slap"
    else:
        players = "keys: see names"
    return f"{players} │ {APP_KEYS}"


#: The key bar once the game is over: the end dialog's keys, then the table's when it is closed.
END_DIALOG_KEYS = "game over │ s save record · Esc look at the table · q quit"
END_TABLE_KEYS = "game over │ Enter results · ^Q quit"


class GameScreen(TableScreen):
    """The table, the log and the key bar of a local game; turns the players' keys into actions."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pause", "pause"),
        Binding("plus", "app.pace(1)", "faster bots"),
        Binding("minus", "app.pace(-1)", "slower bots"),
    ]

    def player_key(self, event: Key) -> bool:
        """A player's play or slap key acts at once."""
        app = self.app
        return isinstance(app, PlayApp) and app.handle_player_key(event.key)


class PlayApp(App[None]):
    """You (and friends on the same keyboard) against bots, under any ruleset.

    ``game`` replaces the seeded deal (tests build one from card notation); ``bot_agents``
    replaces the bots (``None`` entries leave a bot seat idle); ``clock="virtual"`` stops time
    until :meth:`advance_to` moves it.
    """

    CSS_PATH = "ratscrew.tcss"
    TITLE = "ratscrew"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit_game", "quit", priority=True),
        Binding("ctrl+c", "quit_game", "quit", priority=True, show=False),
        Binding("f1,question_mark", "help", "help"),
        Binding("f2", "settings", "settings"),
    ]

    def __init__(self, options: PlayOptions, *, game: Game | None = None,
                 bot_agents: Sequence[Agent | None] | None = None, clock: Clock = "real") -> None:
        super().__init__()
        self.options = options
        self.seed = options.seed if options.seed is not None else random.randrange(1_000_000)
        self.names = seat_names(options)
        self.game = game if game is not None else Game.deal(options.rules, options.players, self.seed)
        if self.game.players != options.players:
            raise ValueError(f"the game has {self.game.players} seats, the options {options.players}")
        self.clock = clock
        self.pace = options.pace
        self.keys = list(options.keys)
        self.colour_blind = options.colour_blind
        self.humans = [HumanAgent(self.names[seat]) for seat in range(options.humans)]
        if bot_agents is None:
            bot_agents = [self._seat_bot(seat) for seat in range(options.humans, options.players)]
        if len(bot_agents) != options.bots:
            raise ValueError(f"{options.bots} bot seat(s) but {len(bot_agents)} bot agent(s)")
        self.bot_agents = list(bot_agents)
        self.table = Table(self.game, [*self.humans, *self.bot_agents])
        self.table.add_listener(self._on_table_events)
        self.table.add_rejection_listener(self._on_rejection)
        self.events: list[Event] = []
        self.last_verdict: Text | None = None
        self.saved_record: Path | None = None
        self._virtual_now = 0.0
        self._table_worker: Worker[list[Event]] | None = None
        self._pauses = 0
        self._view_ready = False
        self._ended = False
        seats = [SeatInfo(name, seat < options.humans,
                          self.keys[seat] if seat < options.humans else None,
                          None if seat < options.humans else self._bot_label(seat))
                 for seat, name in enumerate(self.names)]
        self.table_view = TableView(options.rules, seats, colour_blind=self.colour_blind)
        self.game_screen = GameScreen(self.table_view)
        self.key_map = self._key_map()

    # ------------------------------------------------------------------ setup

    def _bot_spec(self, seat: int) -> str:
        specs = self.options.bot_specs
        return specs[seat - self.options.humans] if specs else self.options.level

    def _bot_label(self, seat: int) -> str:
        return self._bot_spec(seat)

    def _seat_bot(self, seat: int) -> Agent:
        """The bot of ``seat``: its level or spec at the table's pace, or a saved agent
        (``agent:NAME``, held to its human reaction profile; the pace does not apply)."""
        spec = self._bot_spec(seat)
        seed = game_seed(self.seed, seat)
        if is_agent_spec(spec):
            from ratscrew.rl.agents import agent_from_spec, table_agent

            return table_agent(agent_from_spec(spec), self.options.rules, self.options.players, seed)
        return BotAgent(paced(parse_bot_spec(spec), self.pace), seed=seed)

    def _key_map(self) -> dict[str, tuple[int, ActionKind]]:
        mapping: dict[str, tuple[int, ActionKind]] = {}
        for seat, seat_keys in enumerate(self.keys):
            mapping[seat_keys.play] = (seat, "play")
            mapping[seat_keys.slap] = (seat, "slap")
        return mapping

    def get_default_screen(self) -> Screen[None]:
        """The table is the screen under every dialog."""
        return self.game_screen

    def on_mount(self) -> None:
        """Start the clock once the table is on screen."""
        self.call_after_refresh(self._start)

    def _show_keys(self) -> None:
        self._show_key_bar(key_bar_text(self.names[:len(self.keys)], self.keys))

    def _show_key_bar(self, text: str) -> None:
        self.game_screen.query_one("#keybar", Static).update(text)

    def _start(self) -> None:
        self._view_ready = True
        self.game_screen.query_one(GameLog).add_events(self.events)
        self._show_keys()
        if self.clock == "real":
            self._table_worker = self.run_worker(self.table.run_realtime(), name="table", exclusive=True)
        else:
            self.table.start()
        self.set_interval(0.1, self.redraw)
        self.redraw()

    @property
    def now(self) -> float:
        """Table time in ms."""
        return self.table.now if self.clock == "real" else self._virtual_now

    # ------------------------------------------------------------------ the table talks

    def _on_table_events(self, events: Sequence[Event]) -> None:
        self.events.extend(events)
        if self._view_ready:
            self.game_screen.query_one(GameLog).add_events(events)
        judged = verdict(events, self.names)
        if judged is not None:
            self.last_verdict = judged
        self.redraw()
        if any(isinstance(e, GameOver) for e in events) and not self._ended:
            self._ended = True
            self.call_later(self.show_end)

    def _on_rejection(self, rejection: Rejection) -> None:
        if rejection.seat >= len(self.humans):
            return  # a bot's refused intent is its own business
        text = refusal_text(rejection, self.names[rejection.seat], self.game.observe(None), self.names)
        self.last_verdict = Text(text, style="italic yellow")
        self.redraw()

    def redraw(self) -> None:
        """Draw the table as it is now (also called ten times a second for the countdowns)."""
        if not self._view_ready:
            return
        try:
            topbar = self.game_screen.query_one("#topbar", Static)
        except NoMatches:  # the app is shutting down
            return
        observation = self.game.observe(None)
        self.table_view.show(observation, self.now, self.last_verdict)
        level = f"bots {self.options.level} · " if self.options.bots else ""
        state = " · paused" if self.table.paused else ""
        topbar.update(Text(
            f" ratscrew · {self.options.rules.name} · {level}pace ×{self.pace:g} · seed {self.seed}"
            f"{state}  {clock_label(int(self.now))}", no_wrap=True, overflow="ellipsis"))

    # ------------------------------------------------------------------ people act

    def handle_player_key(self, key: str) -> bool:
        """Act for the player whose play or slap key this is; ``False`` if it is nobody's."""
        if self._ended and key == "enter":
            self.show_end()
            return True
        binding = self.key_map.get(key)
        if binding is None:
            return False
        seat, kind = binding
        self.player_action(seat, kind)
        return True

    def player_action(self, seat: int, kind: ActionKind) -> list[Event]:
        """Seat ``seat`` (a person) plays or slaps now."""
        if self.game.over:
            return []
        if self.clock == "real":
            return self.humans[seat].press(kind)
        return self.table.submit(seat, kind, at=self._virtual_now)

    def advance_to(self, at_ms: float) -> list[Event]:
        """Virtual clock only: move table time to ``at_ms``, letting bots and timers act."""
        if self.clock != "virtual":
            raise RuntimeError("advance_to is for the virtual clock")
        self._virtual_now = max(self._virtual_now, at_ms)
        events = self.table.fire_due(self._virtual_now)
        self.redraw()
        return events

    # ------------------------------------------------------------------ dialogs

    def _hold(self) -> None:
        self._pauses += 1
        self.table.pause()
        self.redraw()

    def _release(self, _result: object = None) -> None:
        self._pauses = max(0, self._pauses - 1)
        if self._pauses == 0:
            self.table.resume()
        self.redraw()

    def action_pause(self) -> None:
        """Stop the clock until Esc."""
        if self.game.over:
            return
        self._hold()
        self.push_screen(PauseScreen(), self._release)

    def action_help(self) -> None:
        """The rules in play and every key."""
        self._hold()
        self.push_screen(HelpScreen(self.options.rules, self.names[:len(self.keys)], self.keys),
                         self._release)

    def action_settings(self) -> None:
        """Remap keys, change the bots' pace, switch palettes."""
        self._hold()
        current = Settings(keys=tuple(self.keys), pace=self.pace, colour_blind=self.colour_blind)

        def done(settings: Settings | None) -> None:
            if settings is not None:
                self.apply_settings(settings)
            self._release()

        self.push_screen(SettingsScreen(self.names[:len(self.keys)], current), done)

    def apply_settings(self, settings: Settings) -> None:
        """Use new keys, pace and palette from now on."""
        self.keys = list(settings.keys)
        self.key_map = self._key_map()
        for panel in self.game_screen.query(SeatPanel):
            if panel.seat < len(self.keys):
                panel.set_keys(self.keys[panel.seat])
        self._show_keys()
        self.set_pace(settings.pace)
        self.colour_blind = settings.colour_blind
        self.table_view.set_colour_blind(self.colour_blind)
        self.redraw()

    def set_pace(self, pace: float) -> None:
        """Bots play their cards ``pace`` times their level's usual speed."""
        self.pace = min(MAX_PACE, max(MIN_PACE, pace))
        for seat, bot in enumerate(self.bot_agents, start=self.options.humans):
            spec = self._bot_spec(seat)
            if isinstance(bot, BotAgent) and not is_agent_spec(spec):
                bot.profile = paced(parse_bot_spec(spec), self.pace)
        self.redraw()

    def action_pace(self, direction: int) -> None:
        """``+``: bots play faster; ``-``: slower."""
        self.set_pace(round(self.pace * (PACE_STEP if direction > 0 else 1 / PACE_STEP), 2))

    # ------------------------------------------------------------------ the end

    def show_end(self) -> None:
        """The end screen: winner, everyone's figures, save the record."""
        game = self.game
        winner = "nobody" if game.winner is None else self.names[game.winner]
        headline = _ENDINGS.get(game.end_reason or "", "The game is over.").format(name=winner)
        details = (f"cards played {game.cards_played} · piles won {game.tricks} · "
                   f"time {clock_label(game.now)}")
        stats = game_stats(game.to_record())
        self._show_key_bar(END_DIALOG_KEYS)
        self.push_screen(EndScreen(headline, self.names, stats, len(self.humans), details),
                         self._after_end)

    async def _after_end(self, choice: str | None) -> None:
        if choice == "quit":
            await self.action_quit_game()
        else:
            self._show_key_bar(END_TABLE_KEYS)

    def save_record(self) -> Path:
        """Write the game record (with the seats' names) into the record directory; returns
        its path."""
        record = {**self.game.to_record(), "names": self.names}
        self.saved_record = save_record(record, self.options.record_dir, self.seed)
        return self.saved_record

    async def action_quit_game(self) -> None:
        """Stop the table, let its run end, and leave."""
        self.table.stop()
        if self._table_worker is not None and self._table_worker.is_running:
            await self._table_worker.wait()
        self.exit()
