"""The scrolling game log and the one-line verdict on the latest slap.

Every line comes from :func:`ratscrew.narrate.describe_event`, so the log, ``ratscrew watch``
and replays tell a game in the same words; this module only adds the time and colour.

>>> from ratscrew.cards import parse_cards
>>> from ratscrew.events import SlapWon
>>> won = SlapWon(at=61_500, seat=0, pattern="double", top=tuple(parse_cards("7H 7S")))
>>> log_line(won, ["You", "Bot 1"]).plain
'01:01.5 ✔ You slaps a double (7♥ 7♠)'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text
from textual.widgets import RichLog

from ratscrew.events import (
    ChallengeLost,
    ChallengeStarted,
    Event,
    GameOver,
    Misslap,
    PileWon,
    SlapIgnored,
    SlapTie,
    SlapWon,
)
from ratscrew.narrate import describe_event

_STYLES: dict[type[Event], tuple[str, str]] = {
    SlapWon: ("✔ ", "bold green"),
    Misslap: ("✘ ", "bold red"),
    SlapIgnored: ("… ", "yellow"),
    SlapTie: ("= ", "yellow"),
    ChallengeStarted: ("", "yellow"),
    ChallengeLost: ("", "bold yellow"),
    PileWon: ("", "bold"),
    GameOver: ("★ ", "bold magenta"),
}


def clock_label(at_ms: int) -> str:
    """Game time as ``mm:ss.s``.

    >>> clock_label(61_500)
    '01:01.5'
    """
    seconds = at_ms / 1000
    return f"{int(seconds // 60):02d}:{seconds % 60:04.1f}"


def _look(event: Event) -> tuple[str, str]:
    """The mark and style of an event's kind (a subclass looks like its base)."""
    for kind, look in _STYLES.items():
        if isinstance(event, kind):
            return look
    return "", ""


def log_line(event: Event, names: Sequence[str]) -> Text:
    """One event as a timed, coloured line."""
    mark, style = _look(event)
    line = Text()
    line.append(clock_label(event.at) + " ", style="dim")
    line.append(mark + describe_event(event, names), style=style)
    return line


def verdict(events: Iterable[Event], names: Sequence[str]) -> Text | None:
    """What the latest slap in ``events`` came to - the pattern that won it, or why it was a
    misslap and what it cost - or ``None`` when no slap was judged.

    >>> from ratscrew.events import Misslap
    >>> miss = Misslap(at=0, seat=1, penalty="lockout", cards=(), pile_to=None, why="the pile is empty")
    >>> verdict([miss], ["You", "Bot 1"]).plain
    '✘ Bot 1 slapped an empty pile. Bot 1 may not slap until someone else wins a pile'
    """
    judged = [e for e in events if isinstance(e, (SlapWon, Misslap, SlapIgnored, SlapTie))]
    if not judged:
        return None
    event = judged[-1]
    mark, style = _look(event)
    return Text(mark + describe_event(event, names), style=style)


class GameLog(RichLog):
    """The scrolling log of a game, newest line at the bottom."""

    def __init__(self, names: Sequence[str], id: str | None = "log", max_lines: int = 2000) -> None:
        super().__init__(id=id, max_lines=max_lines, wrap=True, markup=False, min_width=20)
        self.names = list(names)

    def add_events(self, events: Iterable[Event]) -> None:
        """Write one line per event."""
        for event in events:
            self.write(log_line(event, self.names))


# ---------------------------------------------------------------------------------- told lines
# An online table is told its events as JSON (`Event.to_dict`) with the server's words for them;
# these give those lines the same time stamp, mark and colour as the events of a local game.


def _event_classes(base: type[Event] = Event) -> dict[str, type[Event]]:
    """Every event class by its ``kind``."""
    found: dict[str, type[Event]] = {}
    for sub in base.__subclasses__():
        found[sub.kind] = sub
        found.update(_event_classes(sub))
    return found


_KINDS = _event_classes()
_JUDGED = (SlapWon, Misslap, SlapIgnored, SlapTie)


_NOTE_LOOKS: dict[str, tuple[str, str]] = {
    "seat_away": ("○ ", "italic yellow"),
    "game_abandoned": ("○ ", "italic yellow"),
    "seat_back": ("● ", "italic green"),
}
"""The room's own notes (a state's ``note_kinds``, docs/protocol.md): someone away or the game
given up, someone back."""


def kind_look(kind: str) -> tuple[str, str]:
    """The mark and style of an event kind, as :func:`log_line` draws that event (or of a room
    note's kind).

    >>> kind_look("slap_won"), kind_look("challenge_passed"), kind_look("something_new")
    (('✔ ', 'bold green'), ('', 'yellow'), ('', ''))
    >>> kind_look("seat_away"), kind_look("seat_back")
    (('○ ', 'italic yellow'), ('● ', 'italic green'))
    """
    if kind in _NOTE_LOOKS:
        return _NOTE_LOOKS[kind]
    event_class = _KINDS.get(kind)
    if event_class is not None:
        for styled, look in _STYLES.items():
            if issubclass(event_class, styled):
                return look
    return "", ""


def told_line(event: dict[str, object], text: str) -> Text:
    """One event told as JSON (with ``kind`` and ``at``) and its words, as a log line.

    >>> told_line({"kind": "slap_won", "at": 61_500}, "Ann slaps a double (7♥ 7♠) in 212 ms").plain
    '01:01.5 ✔ Ann slaps a double (7♥ 7♠) in 212 ms'
    """
    mark, style = kind_look(str(event.get("kind", "")))
    at = event.get("at")
    line = Text()
    if isinstance(at, (int, float)):
        line.append(clock_label(int(at)) + " ", style="dim")
    line.append(mark + text, style=style)
    return line


def told_verdict(events: Sequence[dict[str, object]], lines: Sequence[str]) -> Text | None:
    """Like :func:`verdict`, for events told as JSON with their words: the latest judged slap.

    >>> told_verdict([{"kind": "card_played"}, {"kind": "misslap"}],
    ...              ["Bob plays 8♠", "Bob misslaps: burns 3♦"]).plain
    '✘ Bob misslaps: burns 3♦'
    """
    judged = [(event, line) for event, line in zip(events, lines, strict=False)
              if (kind := _KINDS.get(str(event.get("kind", "")))) is not None and issubclass(kind, _JUDGED)]
    if not judged:
        return None
    event, line = judged[-1]
    mark, style = kind_look(str(event.get("kind", "")))
    return Text(mark + line, style=style)
