"""A room's numbered history: what it published in each game, so a page that reloads, reconnects
or missed messages redraws the same log and judgement lines, with no gap and no duplicate.

Every ``state`` a room sends has a ``version`` that grows by one per step (across games) and the
``game`` it belongs to; every ``judgement`` carries the ``version`` of the state it came after.
The history keeps, for the current game and the one before it, each step's events and lines
and each judgement, in the order they were sent, bounded to :data:`HISTORY_LIMIT` entries a game.
A client asks for ``history {since: V}`` (everything after state ``V``, plus the judgements made
at ``V``, which it may already have: it drops a judgement it holds) or ``since: null`` (all that
is kept, for a fresh page), and draws a divider where ``game`` changes.

>>> history = History()
>>> history.start_game(1)
>>> history.add_state(1, 1, [], [])
>>> history.add_state(1, 2, [{"kind": "card_played"}], ["Ann plays 7♥"])
>>> history.add_judgement(2, {"type": "judgement", "text": "Ann 212 ms, Bob 250 ms"})
>>> [entry["version"] for entry in history.message(since=1)["entries"]]
[2, 2]
>>> history.message(since=None)["complete"]
True
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from ratscrew.protocol.server_messages import (
    HistoryEntry,
    HistoryMessage,
    JudgementMessage,
    NoteKind,
    PublicEvent,
    StateEntry,
)

HISTORY_LIMIT = 2000
"""Entries kept per game: a long game has about 600 steps, so every ordinary game is whole."""


class History:
    """The entries of the current game and of the game before it (see the module docstring)."""

    def __init__(self, limit: int = HISTORY_LIMIT) -> None:
        self.limit = limit
        self._games: dict[int, deque[HistoryEntry]] = {}
        self._dropped: dict[int, int] = {}
        self.game: int | None = None

    def start_game(self, game: int) -> None:
        """A new game begins: keep the previous one, forget anything older."""
        if self.game is not None and game != self.game:
            for old in [g for g in self._games if g != self.game]:
                del self._games[old]
                self._dropped.pop(old, None)
        self.game = game
        self._games.setdefault(game, deque(maxlen=self.limit))
        self._dropped.setdefault(game, 0)

    def _append(self, game: int, entry: HistoryEntry) -> None:
        if game != self.game:
            self.start_game(game)
        entries = self._games[game]
        if len(entries) == entries.maxlen:
            self._dropped[game] += 1
        entries.append(entry)

    def add_state(self, game: int, version: int, events: list[PublicEvent], lines: list[str],
                  note_kinds: Sequence[NoteKind] = ()) -> None:
        """Record the step published as state ``version`` of ``game``; ``note_kinds``: the kind
        of each of the room's own lines after the events' (kept only when there are some).

        >>> history = History()
        >>> history.add_state(1, 7, [], ["Ann is back and plays again"], ["seat_back"])
        >>> history.message(since=None)["entries"][0]["note_kinds"]
        ['seat_back']
        """
        entry: StateEntry = {"game": game, "version": version, "events": events, "lines": lines}
        if note_kinds:
            entry["note_kinds"] = list(note_kinds)
        self._append(game, entry)

    def add_judgement(self, version: int, judgement: JudgementMessage) -> None:
        """Record a judgement sent after state ``version`` of the current game."""
        if self.game is None:
            return
        self._append(self.game, {"game": self.game, "version": version, "judgement": judgement})

    def forget_from(self, version: int) -> None:
        """Forget the entries of state ``version`` and after (never sent: the store lost them).

        >>> history = History()
        >>> for version in (1, 2, 3):
        ...     history.add_state(1, version, [], [f"line {version}"])
        >>> history.forget_from(2)
        >>> [entry["version"] for entry in history.message(since=None)["entries"]]
        [1]
        """
        for game, entries in self._games.items():
            self._games[game] = deque((e for e in entries if e["version"] < version), maxlen=entries.maxlen)

    def message(self, since: int | None) -> HistoryMessage:
        """The ``history`` message: the entries after state ``since`` (all kept if ``None``)."""
        entries: list[HistoryEntry] = []
        complete = True
        for game in sorted(self._games):
            kept = self._games[game]
            if since is None:
                entries.extend(kept)
                complete = complete and self._dropped[game] == 0
                continue
            chosen = [e for e in kept if e["version"] > since
                      or (e["version"] == since and "judgement" in e)]
            if chosen and self._dropped[game] and kept and kept[0]["version"] > since + 1:
                complete = False  # what came between ``since`` and the oldest kept is gone
            entries.extend(chosen)
        return {"type": "history", "game": self.game, "entries": entries, "complete": complete}
