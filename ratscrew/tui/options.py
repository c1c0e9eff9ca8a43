"""What a terminal game is set up with, checked as a whole before anything starts.

`PlayOptions` gathers what ``ratscrew play`` was given; :func:`check_options` rejects a table
that cannot be played (too many seats for the rules, an unknown bot level, a key mapped twice)
with one clear message, so the program never starts half-way.

>>> from ratscrew.ruleset import Ruleset
>>> options = PlayOptions(rules=Ruleset.preset("classic"), humans=1, bots=3)
>>> check_options(options)
>>> seat_names(options)
['Player 1', 'Bot 1', 'Bot 2', 'Bot 3']
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ratscrew.bots.profile import LEVELS
from ratscrew.ruleset import Ruleset
from ratscrew.tui.keys import MAX_HUMANS, SeatKeys, check_keys, default_keys

MAX_BOTS = 5
"""Most bots at one table."""
MIN_PACE, MAX_PACE = 0.25, 4.0
"""Bounds of the bot pace multiplier (2.0: bots play their cards twice as fast)."""


class OptionsError(ValueError):
    """Options that cannot make a game; the message says which and why."""


@dataclass
class PlayOptions:
    """Everything a terminal game is set up with. ``keys`` holds one `SeatKeys` per human
    (the defaults when left empty); ``pace`` speeds up (> 1) or slows down (< 1) how fast
    bots play their cards."""

    rules: Ruleset
    humans: int = 1
    bots: int = 3
    level: str = "casual"
    keys: list[SeatKeys] = field(default_factory=list)
    seed: int | None = None
    pace: float = 1.0
    colour_blind: bool = False
    record_dir: Path = Path(".")
    bot_specs: tuple[str, ...] = ()
    """One seat spec per bot (a level, or a saved agent ``agent:NAME``); empty: every bot is
    of ``level``."""

    def __post_init__(self) -> None:
        if not self.keys and 1 <= self.humans <= MAX_HUMANS:
            self.keys = default_keys(self.humans)

    @property
    def players(self) -> int:
        """Seats at the table."""
        return self.humans + self.bots


def check_options(options: PlayOptions) -> None:
    """Raise `OptionsError` (or a `KeyConfigError`) if these options cannot make a game."""
    if not 1 <= options.humans <= MAX_HUMANS:
        raise OptionsError(f"--humans must be between 1 and {MAX_HUMANS}, not {options.humans}")
    if not 0 <= options.bots <= MAX_BOTS:
        raise OptionsError(f"--bots must be between 0 and {MAX_BOTS}, not {options.bots}")
    if options.players < 2:
        raise OptionsError("a game needs at least two players: add a bot (--bots 1) or a friend (--humans 2)")
    if options.players > options.rules.max_players:
        raise OptionsError(
            f"{options.players} players is more than the {options.rules.max_players} the "
            f"{options.rules.title} allow")
    if options.level not in LEVELS:
        raise OptionsError(f"unknown bot level {options.level!r}; choose one of {', '.join(LEVELS)}")
    if options.bot_specs:
        if len(options.bot_specs) != options.bots:
            raise OptionsError(f"{options.bots} bot seat(s) but {len(options.bot_specs)} spec(s)")
        from ratscrew.rl.agents import seat_profile

        for spec in options.bot_specs:
            try:
                seat_profile(spec)
            except ValueError as error:
                raise OptionsError(str(error)) from None
    if not MIN_PACE <= options.pace <= MAX_PACE:
        raise OptionsError(f"--pace must be between {MIN_PACE} and {MAX_PACE}, not {options.pace}")
    if len(options.keys) != options.humans:
        raise OptionsError(f"{options.humans} human(s) need {options.humans} key set(s), "
                           f"got {len(options.keys)}")
    check_keys(options.keys, seat_names(options)[:options.humans])
    if options.record_dir.exists() and not options.record_dir.is_dir():
        raise OptionsError(f"--record-dir {str(options.record_dir)!r} is not a directory")


def seat_names(options: PlayOptions) -> list[str]:
    """People first (``Player 1``...), then ``Bot 1``..."""
    return [f"Player {i + 1}" for i in range(options.humans)] + [f"Bot {i + 1}" for i in range(options.bots)]


def short_name(name: str) -> str:
    """A name that fits under a card or in a narrow seat: ``Player 2`` is ``P2``, ``Bot 3`` is
    ``B3``.

    >>> short_name("Player 2"), short_name("Bot 3"), short_name("Ann")
    ('P2', 'B3', 'Ann')
    """
    for long, short in (("Player ", "P"), ("Bot ", "B")):
        if name.startswith(long):
            return short + name.removeprefix(long)
    return name


def save_record(record: dict[str, Any], directory: Path, seed: int | None) -> Path:
    """Write a game record as JSON into ``directory`` (created if needed) under a new name;
    returns the path. ``ratscrew replay PATH`` plays it back."""
    directory.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    rules = record.get("rules", {}).get("name", "custom")
    base = f"ratscrew-{rules}-{stamp}" + ("" if seed is None else f"-seed{seed}")
    path = directory / f"{base}.json"
    number = 1
    while path.exists():
        number += 1
        path = directory / f"{base}-{number}.json"
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return path
