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
>>> for part in judgement_text(contest, ["Ann", "Bob"]).split(": "): print(part)
Bob was 38 ms quicker than Ann and takes the double
no penalty for Ann, since being slower is not a mistake
>>> judgement_details(contest, ["Ann", "Bob"])
'From the card to the slap: Bob 200 ms, Ann 238 ms.'

The words say what happened and by how much; the figures behind them (each slap's time, and the
link compensation each was given) are the ``details``, shown on demand. Both come from the same
table times, so they add up: each slap's time is counted from when the card was shown to the
first slapper, and the difference between two of them is the margin the engine judged (timing
each slap from the moment its own connection was sent the card could differ by a millisecond or
two from one connection to the next, and did: "368 ms ... 369 ms ... 2 ms quicker").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import median

from ratscrew.bots.profile import ANTICIPATION_FLOOR_MS
from ratscrew.events import CardPlayed, Event, Misslap, PileWon, SlapIgnored, SlapTie, SlapWon
from ratscrew.narrate import TOO_SLOW_IS_NOT_WRONG
from ratscrew.protocol.server_messages import JudgedSlap, SeatFigures

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

    def public(self) -> SeatFigures:
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


def _names_and(names: Sequence[str]) -> str:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cat``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def judgement_text(contest: Contest, names: Sequence[str]) -> str:
    """The judgement of a contested slap in plain words: who took the pile and by how much they
    were quicker, and why a slower correct slap costs nothing (the figures are in
    :func:`judgement_details`)."""
    slaps = sorted(contest.slaps, key=lambda s: s.at)
    winner = next((s for s in slaps if s.result == "won"), None)
    late = [s for s in slaps if s.result == "late" and (winner is None or s.seat != winner.seat)]
    late_names = list(dict.fromkeys(names[s.seat] for s in late))
    if winner is not None:
        what = "the pile" if winner.pattern in (None, "claim") else \
            f"the {(winner.pattern or '').replace('_', ' ')}"
        margins = []
        for slap in late:
            margin = slap.margin_ms if slap.margin_ms is not None else max(0, slap.at - winner.at)
            margins.append(f"{margin} ms quicker than {names[slap.seat]}" if margin
                           else f"first, in the same ms as {names[slap.seat]},")
        quicker = f" was {' and '.join(margins)} and" if margins else ""
        text = f"{names[winner.seat]}{quicker} takes {what}"
    elif any(s.result == "void" for s in slaps):
        text = "A tie: nobody takes the pile, and play goes on"
    else:
        text = "Nobody takes the pile"
    if late_names:
        text += f": no penalty for {_names_and(late_names)}, since {TOO_SLOW_IS_NOT_WRONG}"
    return text


def judgement_details(contest: Contest, names: Sequence[str]) -> str:
    """The figures behind :func:`judgement_text`: each slap's time from the card, and the link
    compensation each was given (see the module docstring for why the times add up)."""
    slaps = sorted(contest.slaps, key=lambda s: s.at)
    anchor = next((s for s in slaps if s.reaction_ms is not None), None)
    if anchor is not None:
        assert anchor.reaction_ms is not None
        base = anchor.at - anchor.reaction_ms
        times = ", ".join(f"{names[s.seat]} {s.at - base} ms" for s in slaps)
        text = f"From the card to the slap: {times}."
    else:
        first = slaps[0]
        times = ", ".join(f"{names[s.seat]} {s.at - first.at} ms later" for s in slaps[1:])
        text = f"{names[first.seat]} slapped first; {times}."
    links = [f"{names[s.seat]} +{s.link_ms} ms" for s in slaps if s.link_ms >= 1]
    if links:
        text += f" Link compensation (the time a slap spent on the way): {', '.join(links)}."
    return text


def judgement_slaps(contest: Contest, names: Sequence[str]) -> list[JudgedSlap]:
    """The ``slaps`` of a ``judgement`` message (see docs/protocol.md)."""
    return [{"seat": s.seat, "name": names[s.seat], "reaction_ms": s.reaction_ms,
             "link_ms": s.link_ms, "compensated": s.link_ms >= 1,
             "result": s.result or "ignored"} for s in contest.slaps]
