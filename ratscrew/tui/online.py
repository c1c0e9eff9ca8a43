"""``ratscrew join``: the terminal table seated in an online room (or watching it).

The same screen as ``ratscrew play`` (:class:`ratscrew.tui.view.TableScreen`: seats, pile, log,
key bar, colours) is fed from the room's websocket instead of a local table: each ``state``
brings the engine's observation for this seat, the step's events and the server's words for
them; ``judgement`` says who was how fast on a contested slap; ``room`` says who sits where;
``game_over`` brings everyone's figures. Nothing here decides a rule: the player's keys become
``play``, ``slap`` and ``resign`` messages and the server answers.

Fair judging needs the player's reaction as the browser measures it: each state is stamped when
it is on screen (after Textual's refresh), and a key press sends ``reaction_ms`` from the newest
state on screen before it, with that state's ``version`` (:mod:`ratscrew.client.reaction`).

The websocket (:class:`ratscrew.client.link.RoomLink`) runs in Textual's own event loop,
answers pings at once and reconnects after a drop; each (re)connection joins with the token
kept for this room (:mod:`ratscrew.client.saved`), so the seat comes back.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from rich.table import Table as RichTable
from rich.text import Text
from textual._time import get_time
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ratscrew.client.address import RoomAddress
from ratscrew.client.link import RoomLink
from ratscrew.client.reaction import ShownStates
from ratscrew.client.saved import SavedState
from ratscrew.client.session import LogItem, Notice, RoomSession, Update
from ratscrew.observation import observed_may
from ratscrew.protocol.server_messages import GameOverMessage, RoomMessage, ServerMessage, StateMessage
from ratscrew.ruleset import Ruleset, RulesetError
from ratscrew.tui.gamelog import GameLog, clock_label, told_line, told_verdict
from ratscrew.tui.keys import DEFAULT_KEYS, SeatKeys, key_label
from ratscrew.tui.screens import HelpScreen
from ratscrew.tui.table import SeatInfo, TableView
from ratscrew.tui.view import TableScreen

ONLINE_KEYS: dict[str, str] = {
    "escape": "the room: seats, start, results",
    "f3": "the room: seats, start, results",
    "f1": "help",
    "question_mark": "help",
    "f10": "resign",
    "ctrl+q": "quit",
    "ctrl+c": "quit",
}
"""Keys the online table keeps for itself, and what they do."""
ONLINE_KEY_BAR = "Esc room · F1 help · F10 resign · ^Q quit"
"""The table's own keys on the key bar of a player in the game."""
WATCHING_KEY_BAR = "Esc room · F1 help · ^Q quit"
"""The table's own keys on the key bar of someone who watches (or waits): no resigning."""
NOTICE_STYLES = {"info": "bold cyan", "warning": "bold yellow", "error": "bold red",
                 "judgement": "bold"}
"""How a notice of each tone is drawn."""


def replaced_text(why: str) -> str:
    """What to say when the seat was taken over by another client with the same token.

    >>> replaced_text("taken over")  # doctest: +NORMALIZE_WHITESPACE
    'taken over: close the other ratscrew join or browser tab, or run this command again to take
     the seat back here'
    """
    return (f"{why or 'this seat was taken over elsewhere'}: close the other ratscrew join or "
            "browser tab, or run this command again to take the seat back here")


def seat_name(seat: dict[str, Any]) -> str:
    """How a seat of a ``room`` message is named at the table.

    >>> seat_name({"kind": "open", "name": None}), seat_name({"kind": "bot", "name": "Casual bot"})
    ('open seat', 'Casual bot')
    """
    name = seat.get("name")
    return str(name) if name else ("open seat" if seat.get("kind") == "open" else "?")


def length_lines(room: Mapping[str, Any]) -> list[str]:
    """How long a game here may take, as the browser's lobby says it: the room's time limit, if
    any, and the expected length the server simulated (once it is known).

    >>> room = {"settings": {"time_limit_ms": 600000},
    ...         "expected_length": {"median_minutes": 9.1, "p90_minutes": 25.4}}
    >>> for line in length_lines(room): print(line[:53])
    Time limit: 10 min. When it is up, the player holding
    A game here lasts about 9.1 minutes (1 game in 10 las
    >>> length_lines({"settings": {"time_limit_ms": 0}, "expected_length": None})
    []
    """
    lines: list[str] = []
    settings = room.get("settings")
    limit_ms = settings.get("time_limit_ms") if isinstance(settings, dict) else None
    if isinstance(limit_ms, int) and limit_ms > 0:
        lines.append(f"Time limit: {round(limit_ms / 60000)} min. When it is up, the player holding "
                     "the most cards wins (on a tie, the next of them to play).")
    expected = room.get("expected_length")
    if isinstance(expected, dict):
        lines.append(f"A game here lasts about {expected.get('median_minutes')} minutes (1 game in "
                     f"10 lasts over {expected.get('p90_minutes')} minutes), from simulated games "
                     "with these rules and seats.")
    return lines


def time_left(room: Mapping[str, Any] | None, observation: Any, now_ms: float) -> str:
    """The top bar's countdown of a game with a time limit, as the browser's status line has it.

    >>> time_left({"settings": {"time_limit_ms": 300000}}, {"over": False}, 4200)
    ' · 4:56 left'
    >>> time_left({"settings": {"time_limit_ms": 0}}, {"over": False}, 4200)
    ''
    """
    settings = room.get("settings") if room is not None else None
    limit_ms = settings.get("time_limit_ms") if isinstance(settings, dict) else None
    if not isinstance(limit_ms, int) or limit_ms <= 0 or not isinstance(observation, dict) \
            or observation.get("over"):
        return ""
    seconds = max(0, math.ceil((limit_ms - now_ms) / 1000))
    return f" · {seconds // 60}:{seconds % 60:02d} left"


def seat_lines(room: Mapping[str, Any], you: int | None) -> list[str]:
    """The lobby: one line per seat saying who sits there, you marked.

    >>> room = {"seats": [
    ...     {"seat": 0, "kind": "human", "name": "Ann", "host": True, "connected": True,
    ...      "ready": True, "ping_ms": 23},
    ...     {"seat": 1, "kind": "human", "name": "Tess", "host": False, "connected": True,
    ...      "ready": False, "ping_ms": None},
    ...     {"seat": 2, "kind": "bot", "name": "Casual bot", "bot": "casual"},
    ...     {"seat": 3, "kind": "open", "name": None}]}
    >>> for line in seat_lines(room, you=1): print(line)
     1  Ann          host · ready · ping 23 ms
     2  Tess (you)   here
     3  Casual bot   casual bot
     4  open seat    a person may sit here (or a bot at the start)
    """
    lines: list[str] = []
    for seat in room.get("seats", []):
        index = int(seat.get("seat", len(lines)))
        name = seat_name(seat) + (" (you)" if index == you else "")
        kind = seat.get("kind")
        if kind == "bot":
            what = f"{seat.get('bot')} bot"
        elif kind == "open":
            what = "a person may sit here (or a bot at the start)"
        else:
            tags = ["host"] if seat.get("host") else []
            if not seat.get("connected"):
                tags.append("away")
            elif seat.get("ready"):
                tags.append("ready")
            else:
                tags.append("here")
            if seat.get("connected") and seat.get("ping_ms") is not None:
                tags.append(f"ping {seat['ping_ms']} ms")
            what = " · ".join(tags)
        lines.append(f"{index + 1:>2}  {name:<12} {what}")
    return lines


def results_table(over: Mapping[str, Any]) -> RichTable:
    """Everyone's figures from a ``game_over`` message."""
    table = RichTable(box=None, padding=(0, 1), header_style="bold")
    for column, justify in (("", "left"), ("slaps", "right"), ("misslaps", "right"),
                            ("median", "right"), ("best", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]

    def ms(value: object) -> str:
        return "-" if not isinstance(value, (int, float)) else f"{value:.0f} ms"

    for result in over.get("results", []):
        table.add_row(Text(str(result.get("name")), style="bold" if result.get("kind") == "human" else "dim"),
                      str(result.get("slaps", 0)), str(result.get("misslaps", 0)),
                      ms(result.get("median_reaction_ms")), ms(result.get("best_reaction_ms")))
    return table


def log_text(item: LogItem) -> Text:
    """One log item as the log draws it: an event's line with its time, mark and colour (by
    its event kind), a judgement in bold, a divider between games, a notice in italics.

    >>> log_text(LogItem("line", "Ann slaps a double", 1, "slap_won", 61_500)).plain
    '01:01.5 ✔ Ann slaps a double'
    >>> log_text(LogItem("divider", "Game 2", 2, "divider")).plain
    '──── Game 2 ────'
    """
    if item.kind == "line":
        return told_line({"kind": item.event_kind or "", "at": item.at}, item.text)
    if item.kind == "divider":
        return Text(f"──── {item.text} ────", style="bold magenta")
    if item.kind == "judgement":
        return Text(item.text, style="bold")
    return Text(item.text, style="italic cyan")


def import_advice(address: RoomAddress) -> str:
    """How a person whose name is held by their own player on another device brings that
    player to this terminal (the import code; docs/online.md, "Players and ratings")."""
    return (f"If that is you on another device, bring your player here: copy the import code "
            f"from your player page there (in a browser: Your page; in a terminal: ratscrew "
            f"join --export-code --server {address.server}), then run ratscrew join "
            f"{address.code} --server {address.server} --import-code CODE. Otherwise run "
            "ratscrew join again with --name NAME.")


def notice_text(notice: Notice, address: RoomAddress) -> Text:
    """A session's notice as the line under the pile says it, with what to do in the terminal.

    >>> notice_text(Notice("kicked", "The host removed you.", "error"),
    ...             RoomAddress("http://127.0.0.1:8000", "K7QPX2")).plain
    'The host removed you. You are watching; Ctrl+Q leaves.'
    """
    text = notice.text
    if notice.code == "name_taken":
        text += " You are watching meanwhile. " + import_advice(address)
    elif notice.code == "bad_token":
        text += " You are watching. Run ratscrew join again to sit down as a new player."
    elif notice.code == "bad_key":
        text += " You are watching."
    elif notice.code == "kicked":
        text += " You are watching; Ctrl+Q leaves."
    elif notice.code in ("waiting", "watching"):
        text += " Ctrl+Q leaves."
    return Text(text, style=NOTICE_STYLES.get(notice.tone, "bold"))


class RoomScreen(ModalScreen[None]):
    """The room over the table: who sits where (you marked), the host's commands, and the
    results once a game is over."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f3", "close", "table"),
        Binding("s", "command('start')", "start"),
        Binding("r", "command('rematch')", "rematch"),
        Binding("y", "ready", "ready"),
        Binding("f1,question_mark", "app.help", "help"),
    ]

    def __init__(self) -> None:
        super().__init__(classes="dialog-screen")

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="room-dialog") as dialog:
            dialog.border_title = "Room"
            yield Static(id="room-text")

    def on_mount(self) -> None:
        """Show the room as the app knows it."""
        self.show()

    def show(self) -> None:
        """Redraw from the app's latest ``room`` (and ``game_over``) message."""
        app = self.app
        if not isinstance(app, OnlineApp):
            return
        with contextlib.suppress(NoMatches):  # not composed yet: on_mount shows it
            dialog = self.query_one("#room-dialog", Vertical)
            dialog.border_title = f"Room {app.address.code}"
            dialog.border_subtitle = app.room_keys()
            self.query_one("#room-text", Static).update(app.room_text())

    def action_close(self) -> None:
        """Back to the table."""
        self.dismiss(None)

    def action_command(self, command: str) -> None:
        """A host command: ``start`` in the lobby, ``rematch`` after a game."""
        app = self.app
        if isinstance(app, OnlineApp):
            app.host_command(command)

    def action_ready(self) -> None:
        """Say you are ready (or not any more)."""
        app = self.app
        if isinstance(app, OnlineApp):
            app.toggle_ready()


class ResignScreen(ModalScreen[bool]):
    """Ask before resigning: y resigns, anything else goes back."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("y", "answer(True)", "resign"),
                                             Binding("n,escape", "answer(False)", "back")]

    def __init__(self) -> None:
        super().__init__(classes="dialog-screen")  # centred over the table, as every dialog

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="pause-dialog") as dialog:
            dialog.border_title = "Resign?"
            yield Label("Resign this game?\nYour cards are burned under the pile.\n\n"
                        "y resign · n or Esc keep playing", id="resign-text")

    def action_answer(self, resign: bool) -> None:
        """Close with the answer."""
        self.dismiss(resign)


class OnlineTableScreen(TableScreen):
    """The table of an online room; the player's keys go to the server."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f3", "app.room", "room"),
        Binding("f10", "app.resign", "resign"),
    ]

    def player_key(self, event: Key) -> bool:
        """The play or slap key, stamped with when it was pressed."""
        app = self.app
        return isinstance(app, OnlineApp) and app.player_key(event.key, event.time)


class OnlineApp(App[None]):
    """The terminal at an online table (see the module docstring).

    ``connect=False`` opens no websocket (tests feed :meth:`handle_message` themselves);
    ``saved`` is where tokens and the name are kept (default: the user's state directory).
    After the app ends, :attr:`exit_message` says why if the room sent it away (the seat was
    taken over elsewhere, the server speaks another protocol, the room is gone).
    """

    CSS_PATH = "ratscrew.tcss"
    TITLE = "ratscrew"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit_game", "quit", priority=True),
        Binding("ctrl+c", "quit_game", "quit", priority=True, show=False),
        Binding("f1,question_mark", "help", "help"),
    ]

    def __init__(self, address: RoomAddress, name: str, *, watch: bool = False,
                 keys: SeatKeys = DEFAULT_KEYS[0], colour_blind: bool = False,
                 saved: SavedState | None = None, connect: bool = True) -> None:
        super().__init__()
        self.address = address
        self.player_name = name
        self.keys = keys
        self.colour_blind = colour_blind
        self.saved = saved if saved is not None else SavedState()
        self.session = RoomSession(address.code, watching=watch)
        """What this client knows of the room (:mod:`ratscrew.client.session`); drawn here."""
        self.shown = ShownStates()
        self.notice: Text | None = None
        """The line under the pile: the latest verdict, judgement or notice, styled."""
        self.status = "connecting…"
        self.exit_message: str | None = None
        self.rules = Ruleset.preset("classic")
        self._room_opened_itself = False
        self._connect = connect
        self.table_screen = OnlineTableScreen(TableView(self.rules, [], colour_blind=colour_blind))
        self.link = RoomLink(address.websocket_url, on_open=self._on_open,
                             on_message=self.handle_message, on_status=self._on_status, clock=get_time)

    # ------------------------------------------------------------------ the session, as before

    @property
    def seat(self) -> int | None:
        """This client's seat, if it holds one."""
        return self.session.seat

    @property
    def host(self) -> bool:
        """This client is the room's host."""
        return self.session.host

    @property
    def watching(self) -> bool:
        """This client only watches (asked to, or was refused a seat)."""
        return self.session.asked_to_watch

    @property
    def player_id(self) -> str | None:
        """This player's public id on the server (its page is /players/ID), once welcomed."""
        return self.session.player_id

    @property
    def room(self) -> RoomMessage | None:
        """The latest ``room`` message."""
        return self.session.room

    @property
    def state(self) -> StateMessage | None:
        """The latest ``state`` message."""
        return self.session.state

    @property
    def over(self) -> GameOverMessage | None:
        """The latest ``game_over`` message, while the room's phase is ``over``."""
        return self.session.over

    # ------------------------------------------------------------------ setup

    def get_default_screen(self) -> TableScreen:
        """The table is the screen under every dialog."""
        return self.table_screen

    def on_mount(self) -> None:
        """Draw, keep the countdowns moving, and connect."""
        self._show_keys()
        self.set_interval(0.1, self.redraw)
        self.redraw()
        if self._connect:
            self.run_worker(self._run_link(), name="link", exclusive=True)

    async def _run_link(self) -> None:
        reason = await self.link.run()
        if reason == "closed":
            return
        if reason == "replaced":
            self.leave(self.exit_message or replaced_text("this seat was taken over by a newer "
                                                          "connection with the same token"))
        else:
            self.leave(f"lost room {self.address.code} on {self.address.server}: {reason}")

    def key_bar(self) -> str:
        """The key bar: the player's keys and the table's own, as far as they apply now."""
        session = self.session
        if session.seated:
            slap = f"{key_label(self.keys.slap)} slap"
            if session.may_resign and not observed_may(session.observation, session.seat, "slap"):
                slap = "no slapping now"  # the engine's word (`Game.may`): locked out, barred, out
            players = f"{key_label(self.keys.play)} play · {slap}"
            own = ONLINE_KEY_BAR if session.may_resign else WATCHING_KEY_BAR
        else:
            players = "waiting for the next game" if session.status == "waiting" else "watching"
            own = WATCHING_KEY_BAR
        return f"{players} │ {own}"

    def _show_keys(self) -> None:
        with contextlib.suppress(NoMatches):
            self.table_screen.query_one("#keybar", Static).update(self.key_bar())

    # ------------------------------------------------------------------ the link talks

    def _on_open(self) -> None:
        """Each (re)connection: sit down again (with the kept token) or watch."""
        self.shown.clear()
        self.session.connected()
        if self.watching:
            self.link.send({"type": "watch"})
            return
        token = self.saved.token(self.address.server, self.address.code)
        self.link.send({"type": "join", "name": self.player_name,
                        "player_key": self.saved.player_key(self.address.server)}
                       | ({"token": token} if token else {}))

    def _on_status(self, status: str) -> None:
        self.status = status
        self.redraw()
        self._refresh_room_screen()  # it says so while the connection is down

    def handle_message(self, message: ServerMessage, arrived: float) -> None:
        """One message from the room (``arrived``: when, on Textual's clock): the session
        takes it in, and the screen draws what changed."""
        update = self.session.receive(message, arrived)
        self.apply(update)

    def apply(self, update: Update) -> None:
        """Draw what one message changed (see :class:`ratscrew.client.session.Update`)."""
        if update.leave is not None:
            self.leave(f"{self.address.server}: {update.leave}")
            return
        if update.replaced is not None:
            self.exit_message = replaced_text(update.replaced)
        if update.token is not None:
            self.saved.save_token(self.address.server, self.address.code, update.token)
        if update.forget_token:
            self.saved.forget_token(self.address.server, self.address.code)
        if update.seated:
            self.saved.remember_name(self.player_name)
        for message in update.send:
            self.link.send(message)
        if update.reset_log:
            with contextlib.suppress(NoMatches):
                self.table_screen.query_one(GameLog).clear()
        for item in update.log:
            self.write_log(log_text(item))
        if update.reset_log:  # a redrawn log opens at its newest line
            self.call_after_refresh(self._log_to_end)
        if update.seating:
            self._reseat()
        if update.clear_notice:  # before the state's own verdict, which stays
            self.notice = None
        if update.state:
            self._on_state(update)
        if update.notice is not None:
            self.notice = notice_text(update.notice, self.address)
        if update.show_room:
            self.show_room(by_itself=True)
        self._show_keys()
        self._refresh_room_screen()
        self.redraw()

    def _reseat(self) -> None:
        """Who sits where (or the rules) changed: a new table, and the keys that apply now."""
        room: Mapping[str, Any] = self.session.room or {}
        rules = room.get("rules", {})
        try:
            self.rules = Ruleset.from_toml(str(rules.get("toml", ""))) if rules else self.rules
        except RulesetError:
            self.rules = Ruleset.preset("classic")
        seats = room.get("seats", [])
        names = self.session.seat_names()
        you = self.session.seat if self.session.seated else None
        if you is not None and you < len(seats) and names[you] != seats[you].get("name"):
            you = None  # the finished game shown was played by someone else in this seat
        infos = [SeatInfo(names[index] or seat_name(s), human=index == you,
                          keys=self.keys if index == you else None,
                          level=s.get("bot") if s.get("kind") == "bot"
                          else ("away" if s.get("kind") == "human" and not s.get("connected") else None))
                 for index, s in enumerate(seats)]
        if infos:
            view = TableView(self.rules, infos, colour_blind=self.colour_blind)
            self.call_later(self._replace_table, view)
        self._show_keys()

    async def _replace_table(self, view: TableView) -> None:
        await self.table_screen.replace_table(view)
        self.redraw()

    def _on_state(self, update: Update) -> None:
        state: Mapping[str, Any] = self.session.state or {}
        events = [e for e in state.get("events", []) if isinstance(e, dict)]
        lines = [str(line) for line in state.get("lines", [])]
        judged = told_verdict(events, lines)
        if judged is not None:
            self.notice = judged
        if update.playing and self._room_opened_itself and isinstance(self.screen, RoomScreen):
            self.screen.dismiss(None)
        version = state.get("version")
        if isinstance(version, int):
            self.call_after_refresh(self._mark_shown, version)

    def _mark_shown(self, version: int) -> None:
        """State ``version`` is on screen now."""
        self.shown.shown(version, get_time())

    def _log_to_end(self) -> None:
        with contextlib.suppress(NoMatches):
            self.table_screen.query_one(GameLog).scroll_end(animate=False)

    def write_log(self, line: Text) -> None:
        """Add a line to the game log."""
        with contextlib.suppress(NoMatches):
            self.table_screen.query_one(GameLog).write(line)

    def say(self, text: str, style: str) -> None:
        """Show a line under the pile (and in the room screen)."""
        self.notice = Text(text, style=style)
        self.redraw()
        self._refresh_room_screen()

    # ------------------------------------------------------------------ drawing

    @property
    def now_ms(self) -> float:
        """Room time now, as far as this client can tell (:meth:`RoomSession.now_ms`)."""
        return self.session.now_ms(get_time())

    def redraw(self) -> None:
        """Draw the table as it is now (also ten times a second, for the countdowns)."""
        try:
            topbar = self.table_screen.query_one("#topbar", Static)
        except NoMatches:
            return
        view = self.table_screen.table_view
        observation = None if self.state is None else self.state.get("observation")
        if isinstance(observation, dict) and view.is_mounted \
                and len(observation.get("hand_sizes", [])) == len(view.seats):
            with contextlib.suppress(NoMatches):
                view.show(observation, self.now_ms, self.notice)
        session = self.session
        if session.seated and self.seat is not None:
            who = f"you: {self.player_name}, seat {self.seat + 1}"
        else:
            who = "waiting" if session.status == "waiting" else "watching"
        parts = ["ratscrew", f"room {self.address.code}", self.rules.name, who, session.phase or "",
                 self.status]
        clock = f"  {clock_label(int(self.now_ms))}" if self.state is not None else ""
        clock += time_left(self.room, observation, self.now_ms)
        topbar.update(Text(" " + " · ".join(p for p in parts if p) + clock, no_wrap=True,
                           overflow="ellipsis"))

    def room_text(self) -> Text:
        """What the room screen says: rules, seats, how to invite, results, the latest notice."""
        text = Text()
        room = self.room
        if room is None:
            text.append(f"Connecting to {self.address.server}… ({self.status})")
            return text
        rules = room.get("rules", {})
        text.append(f"{rules.get('name', '?')}", style="bold")
        if rules.get("summary"):
            text.append(f": {rules['summary']}")
        phase = room.get("phase")
        for line in length_lines(room):
            text.append(f"\n{line}", style="dim")
        text.append(f"\n{self.headline()}\n", style="italic")
        if not self.link.connected:  # the seats below are as the room last said
            text.append(f"Not connected ({self.status}).\n", style="bold red")
        text.append("\n")
        text.append("\n".join(seat_lines(room, self.seat)) + "\n")
        waiting = [str(w.get("name")) + (" (you)" if w.get("you") else "")
                   for w in room.get("waiting", []) if isinstance(w, dict)]
        if waiting:
            text.append(f"waiting for the next game: {', '.join(waiting)}\n", style="dim")
        spectators = room.get("spectators", 0)
        if spectators:
            text.append(f"and {spectators} watching\n", style="dim")
        if self.over is not None and phase == "over":
            winner = self.over.get("winner")
            names = self.session.seat_names()  # the finished game's players, not the next one's
            who = "Nobody wins." if not isinstance(winner, int) or winner >= len(names) \
                else f"{names[winner] or 'Seat ' + str(winner + 1)} wins!"
            text.append(f"\n{who}\n", style="bold magenta")
            text.append("\n")
            console_table = results_table(self.over)
            text.append_text(_render(console_table))
            if self.over.get("replay_url"):
                text.append(f"\nreplay: {self.address.server}{self.over['replay_url']}\n", style="dim")
            if self.player_id is not None:
                text.append(f"your rating and games: {self.address.server}/players/{self.player_id}\n",
                            style="dim")
        text.append(f"\nInvite: ratscrew join {self.address.code} --server {self.address.server}"
                    f"\n    or: {self.address.page_url}\n", style="dim")
        if self.notice is not None:
            text.append("\n")
            text.append_text(self.notice)
        text.rstrip()
        return text

    def headline(self) -> str:
        """The room screen's line under the rules: what happens next, for this client."""
        session = self.session
        phase = session.phase
        if phase == "lobby":
            if self.host:
                return "You are the host: press s to start when everyone is here."
            return "Waiting for the host to start."
        if phase == "playing":
            if session.status == "waiting":
                return "A game is on: you will be dealt into the next one. Esc shows the table."
            return "A game is on."
        if phase == "over":
            if self.host:
                return "The game is over: press r for a rematch."
            return "The game is over: the host may ask for a rematch."
        return str(phase)

    def room_keys(self) -> str:
        """The room screen's keys, as far as they apply to this player now."""
        phase = self.session.phase
        keys = []
        if self.host and phase == "lobby":
            keys.append("s start")
        if self.host and phase == "over":
            keys.append("r rematch")
        if self.session.seated and phase == "lobby":
            keys.append("y ready")
        keys += ["Esc table", "F1 help", "^Q quit"]
        return " · ".join(keys)

    def show_room(self, by_itself: bool = False) -> None:
        """Open the room screen (if it is not open already); ``by_itself``: not asked for by
        the player, so the next game's first state closes it."""
        if not isinstance(self.screen, RoomScreen):
            self._room_opened_itself = by_itself
            self.push_screen(RoomScreen())

    def _refresh_room_screen(self) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, RoomScreen) and screen.is_mounted:
                screen.show()

    # ------------------------------------------------------------------ the player acts

    def player_key(self, key: str, pressed_at: float) -> bool:
        """Send ``play`` or ``slap`` for the player's key; ``False`` if it is not one."""
        kind = {self.keys.play: "play", self.keys.slap: "slap"}.get(key)
        if kind is None or not self.session.seated:
            return False
        self.act(kind, pressed_at)
        return True

    def act(self, kind: str, pressed_at: float) -> dict[str, Any] | None:
        """Send ``kind`` with the reaction to the newest state on screen at ``pressed_at`` (on
        Textual's clock); the message sent, or ``None`` if nothing could be sent."""
        if not self.session.game_on:
            self.say("There is no game on: the host starts one from the room screen (Esc).",
                     "italic yellow")
            return None
        message: dict[str, Any] = {"type": kind}
        stamp = self.shown.reaction_to(pressed_at)
        if stamp is not None:
            message["version"], message["reaction_ms"] = stamp
        if not self.send_or_say(message, "that key press"):
            return None
        return message

    def send_or_say(self, message: dict[str, Any], what: str) -> bool:
        """Send ``message``, or say on the log that ``what`` was not sent (nothing is kept to send
        after a reconnection: the game moves on meanwhile)."""
        if self.link.send(message):
            return True
        self.say(f"Not connected ({self.status}): {what} was not sent.", "bold red")
        return False

    def host_command(self, command: str) -> None:
        """``start`` or ``rematch``, if this player is the host."""
        if not self.host:
            self.say("Only the host can do that.", "italic yellow")
            return
        self.send_or_say({"type": command}, f"the {command}")

    def toggle_ready(self) -> None:
        """Tell the room this player is ready (or not any more)."""
        if not self.session.seated or self.room is None:
            return
        mine: Mapping[str, Any] = next((s for s in self.room.get("seats", [])
                                        if s.get("seat") == self.seat), {})
        self.send_or_say({"type": "ready", "ready": not mine.get("ready", False)}, "ready")

    # ------------------------------------------------------------------ app keys

    def action_room(self) -> None:
        """Open the room screen: seats, the host's commands, the results."""
        self.show_room()

    def action_resign(self) -> None:
        """Ask, then resign the game (only a player in the game that is on)."""
        if not self.session.may_resign:
            return

        def answer(resign: bool | None) -> None:
            if resign:
                self.send_or_say({"type": "resign"}, "the resignation")

        self.push_screen(ResignScreen(), answer)

    def action_help(self) -> None:
        """The rules in play and every key."""
        seated = self.session.seated
        names: Sequence[str] = [self.player_name] if seated else []
        keys = [self.keys] if seated else []
        own = ONLINE_KEYS if seated else {k: v for k, v in ONLINE_KEYS.items() if k != "f10"}
        self.push_screen(HelpScreen(self.rules, names, keys, own))

    def leave(self, message: str) -> None:
        """Stop, and say why once the screen is gone."""
        self.exit_message = message
        self.link.stop()
        self.exit()

    async def action_quit_game(self) -> None:
        """Close the connection and leave."""
        self.link.stop()
        self.exit()


def _render(renderable: RichTable) -> Text:
    """A rich table as text (for a Static that shows text and a table together)."""
    from rich.console import Console

    console = Console(width=72, record=True, color_system=None)
    with console.capture() as capture:
        console.print(renderable)
    return Text(capture.get().rstrip("\n"))
