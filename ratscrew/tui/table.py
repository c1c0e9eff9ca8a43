"""The table at a glance: seats, the pile drawn as real cards, challenges and timed windows.

Everything here is drawn from a spectator's observation (:meth:`ratscrew.engine.Game.observe`
with ``None``) and the table time; nothing is decided here. The same widgets show a live game
and a replay.

>>> obs = {"hand_sizes": [26, 0], "status": ["in", "out"]}
>>> seat_status_line(obs, 0), seat_status_line(obs, 1)
('26 cards', 'out · may slap in')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from ratscrew.cards import Card, Rank
from ratscrew.ruleset import Ruleset
from ratscrew.tui.cards import CARD_WIDTH, Palette, card_text, palette, row_of_cards
from ratscrew.tui.keys import SeatKeys, key_label
from ratscrew.tui.options import short_name

SHOWN_CARDS = 4
"""Face-up cards drawn on the pile; the rest are a stack with a count."""

_FACE_NAMES = {Rank.JACK: "Jack", Rank.QUEEN: "Queen", Rank.KING: "King", Rank.ACE: "Ace",
               Rank.JOKER: "Joker"}


@dataclass(frozen=True)
class SeatInfo:
    """Who sits in a seat: their name, whether a person plays it (and with which keys), or
    which bot level."""

    name: str
    human: bool
    keys: SeatKeys | None = None
    level: str | None = None


def seat_status_line(observation: Mapping[str, Any], seat: int, compact: bool = False) -> str:
    """How many cards the seat holds, or why it holds none (``compact`` for narrow seats).

    >>> obs = {"hand_sizes": [26, 0], "status": ["in", "out"]}
    >>> seat_status_line(obs, 1), seat_status_line(obs, 1, compact=True)
    ('out · may slap in', 'slap in')
    """
    size: int = observation["hand_sizes"][seat]
    status: str = observation["status"][seat]
    cards = f"{size} card" + ("" if size == 1 else "s")
    if compact:
        return {"in": cards, "locked": f"{size} locked", "out": "slap in", "barred": "barred",
                "eliminated": "out", "watching": "watch"}.get(status, status)
    return {
        "in": cards,
        "locked": f"{cards} · locked",
        "out": "out · may slap in",
        "barred": "out · barred",
        "eliminated": "out",
        "watching": "watching",
    }.get(status, status)


def seat_role_line(observation: Mapping[str, Any], seat: int, compact: bool = False) -> str:
    """What the seat is doing right now: to play, answering a challenge, owed the pile.

    >>> obs = {"turn": 1, "challenge": {"challenger": 0, "target": 1, "chances_left": 2,
    ...        "card": "QH"}, "collection": None}
    >>> seat_role_line(obs, 1), seat_role_line(obs, 1, compact=True)
    ('▶ 2 chances', '▶ 2 left')
    """
    challenge = observation.get("challenge")
    collection = observation.get("collection")
    if observation.get("over"):
        return "winner" if observation.get("winner") == seat else ""
    if collection is not None and collection["winner"] == seat:
        return "owed" if compact else "owed the pile"
    if challenge is not None and challenge["target"] == seat:
        left = challenge["chances_left"]
        if compact:
            return f"▶ {left} left"
        return f"▶ {left} chance" + ("" if left == 1 else "s")
    if observation.get("turn") == seat:
        return "▶ play" if compact else "▶ to play"
    return ""


def challenge_lines(observation: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The challenge in progress in words (two short lines), or no lines.

    >>> obs = {"challenge": {"challenger": 1, "target": 0, "chances_left": 2, "card": "KS"}}
    >>> challenge_lines(obs, ["Player 1", "Bot 1"])
    ['King from Bot 1', 'Player 1: 2 chances left']
    """
    challenge = observation.get("challenge")
    if challenge is None:
        return []
    card = Card.parse(challenge["card"])
    face = _FACE_NAMES.get(card.rank, "Face card")
    left = challenge["chances_left"]
    plural = "chance" if left == 1 else "chances"
    return [f"{face} from {names[challenge['challenger']]}",
            f"{names[challenge['target']]}: {left} {plural} left"]


def countdown_bar(remaining_ms: float, total_ms: float, width: int = 8) -> str:
    """A shrinking bar for a timed window.

    >>> countdown_bar(500, 1000, width=4)
    '▰▰▱▱'
    """
    if total_ms <= 0:
        return ""
    filled = max(0, min(width, round(width * remaining_ms / total_ms)))
    return "▰" * filled + "▱" * (width - filled)


def window_lines(observation: Mapping[str, Any], rules: Ruleset, names: Sequence[str],
                 now_ms: float) -> list[str]:
    """The timed windows open right now (grace, exclusive claim, tie), each with a countdown.

    >>> obs = {"collection": {"winner": 1, "collect_at": 1500, "exclusive_until": None,
    ...        "open_to_all": False}, "tie_window_until": None}
    >>> window_lines(obs, Ruleset.preset("classic"), ["Player 1", "Bot 1"], now_ms=1000)
    ['Bot 1 collects in 0.5 s ▰▰▰▰▱▱▱▱', 'a valid slap can still win it']
    """
    lines: list[str] = []
    collection = observation.get("collection")
    if collection is not None:
        winner = names[collection["winner"]]
        if collection["collect_at"] is not None:
            left = max(0.0, collection["collect_at"] - now_ms)
            lines.append(f"{winner} collects in {left / 1000:.1f} s "
                         f"{countdown_bar(left, rules.grace_ms)}")
            if rules.slaps:
                lines.append("a valid slap can still win it")
        elif collection["open_to_all"] or collection["exclusive_until"] is None:
            lines.append("Anyone may slap to claim the pile!")
        else:
            left = max(0.0, collection["exclusive_until"] - now_ms)
            lines.append(f"{winner} may claim: {left / 1000:.1f} s "
                         f"{countdown_bar(left, rules.claim_window_ms)}")
            lines.append("then anyone may slap to claim it")
    tie = observation.get("tie_window_until")
    if tie is not None:
        lines.append(f"Tie window: {max(0.0, tie - now_ms):.0f} ms")
    return lines


def pile_line(observation: Mapping[str, Any]) -> str:
    """The sizes of the pile, the burned cards under it and the penalty pile.

    >>> pile_line({"pile": ["7H", "3C"], "burned": ["4D"], "penalty_pile": 5})
    'Pile 2 · burned 1 · penalty pile 5'
    """
    parts = [f"Pile {len(observation['pile'])}"]
    if observation["burned"]:
        parts.append(f"burned {len(observation['burned'])}")
    if observation["penalty_pile"]:
        parts.append(f"penalty pile {observation['penalty_pile']}")
    return " · ".join(parts)


MAX_ROOMY_SEATS = 5
"""With more seats than this, each seat is narrow (under 14 cells at 80 columns) and uses short
names and words."""


class SeatPanel(Static):
    """One seat: name in the border, card count or status, and what the seat is doing."""

    def __init__(self, seat: int, info: SeatInfo, compact: bool = False) -> None:
        classes = "seat" + (" compact" if compact else "") + (" human" if info.human else "")
        super().__init__(id=f"seat-{seat}", classes=classes)
        self.seat = seat
        self.info = info
        self.compact = compact
        self.border_title = short_name(info.name) if compact else info.name
        if info.keys is not None:
            self.border_subtitle = f"{key_label(info.keys.play)}/{key_label(info.keys.slap)}"
        elif info.level is not None and not compact:
            self.border_subtitle = info.level

    def set_keys(self, keys: SeatKeys) -> None:
        """Show new keys after a remapping."""
        self.info = SeatInfo(self.info.name, self.info.human, keys, self.info.level)
        self.border_subtitle = f"{key_label(keys.play)}/{key_label(keys.slap)}"

    def show(self, observation: Mapping[str, Any]) -> None:
        """Redraw from an observation."""
        status = observation["status"][self.seat]
        role = seat_role_line(observation, self.seat, self.compact)
        self.set_class(observation.get("turn") == self.seat or role.startswith("▶"), "turn")
        self.set_class(status in ("out", "barred", "eliminated", "watching"), "out")
        self.set_class(bool(observation.get("over")) and observation.get("winner") == self.seat,
                       "winner")
        line = seat_status_line(observation, self.seat, self.compact)
        self.update(Text(f"{line}\n{role}", no_wrap=True, overflow="ellipsis"))


class PileView(Static):
    """The top cards of the pile as real cards, with who played each one."""

    def __init__(self, names: Sequence[str], pal: Palette) -> None:
        super().__init__(id="pile")
        self.names = list(names)
        self.palette = pal

    def show(self, observation: Mapping[str, Any]) -> None:
        """Redraw from an observation."""
        pile = [Card.parse(c) for c in observation["pile"]]
        shown = pile[-SHOWN_CARDS:]
        played_by = observation["pile_played_by"][-SHOWN_CARDS:]
        hidden = len(pile) - len(shown) + len(observation["burned"])
        labels = [self.names[s] if len(self.names[s]) <= CARD_WIDTH else short_name(self.names[s])
                  for s in played_by]
        self.update(row_of_cards(shown, self.palette, hidden_below=hidden, labels=labels))


class InfoPanel(Static):
    """Words beside the pile: the challenge, the open windows, the pile sizes."""

    def __init__(self, rules: Ruleset, names: Sequence[str], pal: Palette) -> None:
        super().__init__(id="info")
        self.rules = rules
        self.names = list(names)
        self.palette = pal

    def show(self, observation: Mapping[str, Any], now_ms: float) -> None:
        """Redraw from an observation at table time ``now_ms``."""
        text = Text(no_wrap=True, overflow="ellipsis")
        for line in challenge_lines(observation, self.names):
            text.append(line + "\n", style="bold yellow")
        for line in window_lines(observation, self.rules, self.names, now_ms):
            text.append(line + "\n", style="bold cyan")
        text.append(pile_line(observation) + "\n", style="dim")
        if "top_bottom" in self.rules.slaps and observation["pile"]:
            text.append("bottom card: ", style="dim")
            text.append_text(card_text(Card.parse(observation["pile"][0]), self.palette))
            text.append("\n")
        text.rstrip()
        self.update(text)


class TableView(Vertical):
    """Seats across the top, the pile and what is going on below them, and a line saying what
    the latest slap came to (or why a key press was refused)."""

    def __init__(self, rules: Ruleset, seats: Sequence[SeatInfo], colour_blind: bool = False,
                 id: str | None = "table") -> None:
        super().__init__(id=id)
        self.rules = rules
        self.seats = list(seats)
        self.names = [seat.name for seat in seats]
        self.palette = palette(colour_blind)

    def compose(self) -> ComposeResult:
        compact = len(self.seats) > MAX_ROOMY_SEATS
        with Horizontal(id="seats"):
            for seat, info in enumerate(self.seats):
                yield SeatPanel(seat, info, compact)
        with Horizontal(id="centre"):
            yield PileView(self.names, self.palette)
            yield InfoPanel(self.rules, self.names, self.palette)
        yield Static(id="verdict")

    def set_colour_blind(self, colour_blind: bool) -> None:
        """Switch palettes (the next :meth:`show` redraws)."""
        self.palette = palette(colour_blind)
        self.query_one(PileView).palette = self.palette
        self.query_one(InfoPanel).palette = self.palette

    def show(self, observation: Mapping[str, Any], now_ms: float, verdict: Text | None = None) -> None:
        """Redraw everything from a spectator's observation at table time ``now_ms``."""
        for panel in self.query(SeatPanel):
            panel.show(observation)
        self.query_one(PileView).show(observation)
        self.query_one(InfoPanel).show(observation, now_ms)
        self.query_one("#verdict", Static).update(verdict if verdict is not None else "")
