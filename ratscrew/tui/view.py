"""The screen every live table is drawn on: a top line, the table, the log and the key bar.

`ratscrew play` feeds it from a local `ratscrew.runtime.Table`, `ratscrew join` from an online
room's messages; both hand it observations (:class:`ratscrew.tui.table.TableView`) and log lines
(:class:`ratscrew.tui.gamelog.GameLog`), so both look and sound the same. A key press goes to
:meth:`TableScreen.player_key`, which the screen of each kind of table overrides.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.events import Key
from textual.screen import Screen
from textual.widgets import Static

from ratscrew.tui.gamelog import GameLog
from ratscrew.tui.table import TableView


class TableScreen(Screen[None]):
    """The table, the log and the key bar; turns the players' keys into actions."""

    def __init__(self, table_view: TableView, names: Sequence[str] | None = None) -> None:
        super().__init__(id="game")
        self.table_view = table_view
        self.names = list(table_view.names if names is None else names)

    def compose(self) -> ComposeResult:
        yield Static(id="topbar")
        yield self.table_view
        log = GameLog(self.names)
        log.can_focus = False
        yield log
        yield Static(id="keybar")

    def on_key(self, event: Key) -> None:
        """A player's play or slap key acts at once; any other key is left alone."""
        if self.player_key(event):
            event.stop()
            event.prevent_default()

    def player_key(self, event: Key) -> bool:
        """Act on a player's key; ``False`` if the key is nobody's (here: always)."""
        return False

    async def replace_table(self, table_view: TableView) -> None:
        """Draw another table in place of the current one (the seats changed)."""
        self.table_view = table_view
        if not self.is_attached:  # not composed yet (it will show this table), or closing
            return
        await self.query(TableView).remove()
        if self.table_view is table_view and self.is_attached:  # not replaced again meanwhile
            await self.mount(table_view, after="#topbar")
