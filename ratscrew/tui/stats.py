"""How each player did, from a game's record: reaction times, slaps won and missed, misslaps.

A reaction time is the slap's time minus the time the top card appeared (its `CardPlayed`),
for every slap that was not a misslap and not the claim of a won challenge (a slap that came
too late, or tied, still shows how fast the player was). A *missed* slap is a card after which
the engine said the pile could be slapped, the player was allowed to slap, and the player did
not win it.

>>> from ratscrew.engine import Game
>>> from ratscrew.ruleset import Ruleset
>>> game = Game(Ruleset.preset("classic"), hands=["7H 2C 9C", "7S 3D 4D"], leader=0)
>>> _ = game.play(0, at=0), game.play(1, at=500), game.slap(0, at=830)
>>> _ = game.play(0, at=1500), game.slap(1, at=1700)
>>> you, bot = game_stats(game.to_record())
>>> you.reaction_ms, you.slaps_won, you.misslaps
([330], 1, 0)
>>> bot.slaps_missed, bot.misslaps
(1, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from ratscrew.events import CardPlayed, Misslap, SlapWon
from ratscrew.history import Step, replay_steps
from ratscrew.observation import SLAPPING_STATUSES


@dataclass
class PlayerStats:
    """One seat's figures over a game."""

    seat: int
    reaction_ms: list[int] = field(default_factory=list)
    slaps_won: int = 0
    slaps_missed: int = 0
    misslaps: int = 0
    piles_claimed: int = 0
    cards_played: int = 0

    @property
    def mean_reaction_ms(self) -> float | None:
        """Mean reaction time, or ``None`` without a counted slap."""
        return fmean(self.reaction_ms) if self.reaction_ms else None

    @property
    def best_reaction_ms(self) -> int | None:
        """Fastest reaction time, or ``None`` without a counted slap."""
        return min(self.reaction_ms) if self.reaction_ms else None

    def summary(self) -> str:
        """One line for the end screen.

        >>> PlayerStats(0, reaction_ms=[300, 420], slaps_won=2, slaps_missed=1).summary()
        'reaction 360 ms mean, 300 ms best; slaps won 2, missed 1; misslaps 0'
        """
        if self.mean_reaction_ms is None or self.best_reaction_ms is None:
            reaction = "no timed slaps"
        else:
            reaction = f"reaction {self.mean_reaction_ms:.0f} ms mean, {self.best_reaction_ms} ms best"
        return (f"{reaction}; slaps won {self.slaps_won}, missed {self.slaps_missed}; "
                f"misslaps {self.misslaps}")


def stats_from_steps(steps: list[Step], players: int) -> list[PlayerStats]:
    """Every seat's figures from the replayed steps of a game."""
    stats = [PlayerStats(seat) for seat in range(players)]
    card_at: int | None = None
    open_chances: set[int] = set()  # seats that could have won the slap on the current card
    for step in steps:
        won_by = {e.seat for e in step.events if isinstance(e, SlapWon) and e.pattern != "claim"}
        if step.kind == "slap" and step.seat is not None:
            misslapped = any(isinstance(e, Misslap) and e.seat == step.seat for e in step.events)
            claimed = any(isinstance(e, SlapWon) and e.pattern == "claim" and e.seat == step.seat
                          for e in step.events)
            if not misslapped and not claimed and card_at is not None:
                stats[step.seat].reaction_ms.append(step.at - card_at)
        for event in step.events:
            if isinstance(event, CardPlayed):
                card_at = event.at
                if event.seat is not None:
                    stats[event.seat].cards_played += 1
            elif isinstance(event, SlapWon) and event.seat is not None:
                if event.pattern == "claim":
                    stats[event.seat].piles_claimed += 1
                else:
                    stats[event.seat].slaps_won += 1
            elif isinstance(event, Misslap) and event.seat is not None:
                stats[event.seat].misslaps += 1
        if won_by or any(isinstance(e, CardPlayed) for e in step.events):
            for seat in open_chances - won_by:
                stats[seat].slaps_missed += 1
            open_chances = set()
        if any(isinstance(e, CardPlayed) for e in step.events) and step.pattern is not None:
            status = step.observation["status"]
            open_chances = {seat for seat in range(players) if status[seat] in SLAPPING_STATUSES}
    for seat in open_chances:
        stats[seat].slaps_missed += 1
    return stats


def game_stats(record: dict[str, Any]) -> list[PlayerStats]:
    """Every seat's figures from a game record (see `ratscrew.engine.Game.to_record`)."""
    steps = replay_steps(record)
    return stats_from_steps(steps, len(record["hands"]))
