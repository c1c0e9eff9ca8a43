"""The contest tally of a room: the slaps made on each pile state and what came of each, the
judgement a contested slap gets, and each seat's figures for the results.

It reads only what the room hands it (the slap actions the engine accepted, the step's events,
the pile as it was shown, each slap's reaction and link compensation); it judges nothing: the
engine did. A room keeps one per game (:class:`ContestTally`).

>>> from ratscrew.events import SlapIgnored, SlapWon
>>> tally = ContestTally(seats=2)
>>> tally.slap(cards_before=2, seat=1, at=300, pile=["7H", "7S"], reaction_ms=200, link_ms=0)
>>> tally.slap(cards_before=2, seat=0, at=338, pile=["7H", "7S"], reaction_ms=238, link_ms=0)
>>> tally.events([SlapWon(at=300, seat=1, pattern="double"),
...               SlapIgnored(at=338, seat=0, reason="late", margin_ms=38, beaten_by=1)], reaction=None)
>>> contest = tally.close()
>>> judgement_text(contest, ["Ann", "Bob"])
'Bob 200 ms, Ann 238 ms: Bob takes the double; Ann slapped too: Bob was 38 ms quicker (no penalty)'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import Any

from ratscrew.bots.profile import ANTICIPATION_FLOOR_MS
from ratscrew.events import CardPlayed, Event, Misslap, PileWon, SlapIgnored, SlapTie, SlapWon

CONTEST_WINDOW_MS = 1000
"""Slaps on the same pile state this close together make a contested slap worth explaining."""

_SLAP_RESULTS = {"late": "late", "void": "void", "repeat": "ignored"}


@dataclass
class SlapRecord:
    """One slap on the current pile state: who, when, how quickly, what came of it."""

    seat: int
    at: int
    reaction_ms: int | None
    link_ms: int
    result: str | None = None
    pattern: str | None = None
    margin_ms: int | None = None
    """A ``late`` slap: how long after the pile was taken it came (the engine's figure)."""


@dataclass
class Contest:
    """The slaps made on one pile state (``cards_played`` says which)."""

    cards_played: int
    first_at: int
    pile: list[str]
    slaps: list[SlapRecord] = field(default_factory=list)

    @property
    def contested(self) -> bool:
        """Two or more seats slapped: worth a judgement."""
        return len({s.seat for s in self.slaps}) >= 2


@dataclass
class Tally:
    """One seat's figures in the current game."""

    slaps: int = 0
    misslaps: int = 0
    reactions: list[int] = field(default_factory=list)
    cards_won: int = 0

    def public(self) -> dict[str, Any]:
        """Slaps, misslaps, median and best reaction (anticipations are not reactions), and the
        cards this seat took in piles (penalty piles included)."""
        times = [r for r in self.reactions if r >= ANTICIPATION_FLOOR_MS]
        return {"slaps": self.slaps, "misslaps": self.misslaps,
                "median_reaction_ms": round(median(times)) if times else None,
                "best_reaction_ms": min(times) if times else None, "cards_won": self.cards_won}


class ContestTally:
    """The open contest, the contests it closes, and every seat's :class:`Tally`."""

    def __init__(self, seats: int) -> None:
        self.contest: Contest | None = None
        self.tallies = [Tally() for _ in range(seats)]
        self.closed: list[Contest] = []
        """Contests closed since the room last took them (:meth:`take_closed`)."""

    def slap(self, cards_before: int, seat: int, at: int, pile: list[str], reaction_ms: int | None,
             link_ms: int) -> None:
        """A slap the engine accepted on the pile state ``cards_before`` (shown as ``pile``)."""
        contest = self.contest
        if contest is None or contest.cards_played != cards_before:
            self.close()
            contest = self.contest = Contest(cards_before, at, list(pile))
        contest.slaps.append(SlapRecord(seat, at, reaction_ms, link_ms))

    def events(self, events: Sequence[Event], reaction: Callable[[int, int], int | None] | None) -> None:
        """What the step's events say of the slaps, and the seats' figures (``reaction`` gives a
        won slap's reaction time, if known)."""
        for event in events:
            if isinstance(event, SlapWon) and event.seat is not None:
                self._settle(event.seat, "won", event.pattern)
                if event.pattern != "claim":
                    tally = self.tallies[event.seat]
                    tally.slaps += 1
                    reaction_ms = None if reaction is None else reaction(event.seat, event.at)
                    if reaction_ms is not None:
                        tally.reactions.append(reaction_ms)
            elif isinstance(event, Misslap) and event.seat is not None:
                self._settle(event.seat, "misslap")
                self.tallies[event.seat].misslaps += 1
            elif isinstance(event, SlapIgnored) and event.seat is not None:
                self._settle(event.seat, _SLAP_RESULTS.get(event.reason, "ignored"),
                             margin_ms=event.margin_ms)
            elif isinstance(event, SlapTie):
                for seat in event.seats:
                    if seat != event.winner:
                        self._settle(seat, "void" if event.outcome == "void" else "tie")
            elif isinstance(event, PileWon) and event.seat is not None:
                self.tallies[event.seat].cards_won += event.cards + event.penalty_cards
            elif isinstance(event, CardPlayed) and self.contest is not None:
                self.close()

    def _settle(self, seat: int, result: str, pattern: str | None = None,
                margin_ms: int | None = None) -> None:
        contest = self.contest
        if contest is None:
            return
        for record in contest.slaps:
            if record.seat == seat and record.result is None:
                record.result, record.pattern, record.margin_ms = result, pattern, margin_ms
                return

    def due_at(self) -> int | None:
        """When the open contest is over by time (no more slaps count towards it)."""
        return None if self.contest is None else self.contest.first_at + CONTEST_WINDOW_MS

    def close(self) -> Contest | None:
        """Close the open contest; a contested one is kept for :meth:`take_closed`."""
        contest, self.contest = self.contest, None
        if contest is not None and contest.contested:
            self.closed.append(contest)
        return contest

    def take_closed(self) -> list[Contest]:
        """The contested slaps closed since the last call, oldest first."""
        closed, self.closed = self.closed, []
        return closed


def judgement_text(contest: Contest, names: Sequence[str]) -> str:
    """The judgement of a contested slap in one line: each slap's timing, then the outcome, and
    a too-slow slap's margin (it costs nothing)."""
    parts = []
    for slap in sorted(contest.slaps, key=lambda s: s.at):
        timing = f"{slap.reaction_ms} ms" if slap.reaction_ms is not None else "no stamp"
        if slap.link_ms >= 1:
            timing += f" (+{slap.link_ms} ms link, compensated)"
        parts.append(f"{names[slap.seat]} {timing}")
    winner = next((s for s in contest.slaps if s.result == "won"), None)
    if winner is not None:
        what = "the pile" if winner.pattern in (None, "claim") else \
            f"the {(winner.pattern or '').replace('_', ' ')}"
        outcome = f"{names[winner.seat]} takes {what}"
    elif any(s.result == "void" for s in contest.slaps):
        outcome = "a tie: play on"
    else:
        outcome = "nobody wins the pile"
    for slap in contest.slaps:  # too slow is not wrong: say by how much, and that it is free
        if slap.result == "late" and winner is not None and slap.seat != winner.seat:
            margin = slap.margin_ms if slap.margin_ms is not None else max(0, slap.at - winner.at)
            quicker = f"was {margin} ms quicker" if margin else "came first, in the same ms"
            outcome += f"; {names[slap.seat]} slapped too: {names[winner.seat]} {quicker} (no penalty)"
        elif slap.result == "late":
            outcome += f"; {names[slap.seat]} slapped too late (no penalty)"
    return f"{', '.join(parts)}: {outcome}"


def judgement_slaps(contest: Contest, names: Sequence[str]) -> list[dict[str, Any]]:
    """The ``slaps`` of a ``judgement`` message (see docs/protocol.md)."""
    return [{"seat": s.seat, "name": names[s.seat], "reaction_ms": s.reaction_ms,
             "link_ms": s.link_ms, "compensated": s.link_ms >= 1,
             "result": s.result or "ignored"} for s in contest.slaps]
