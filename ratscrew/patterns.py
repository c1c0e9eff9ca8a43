"""Slap patterns: pure predicates over the live cards of the pile.

Each pattern looks only at the *live* cards of the pile, bottom to top; burned cards sit under
the pile and never take part. A ruleset names the patterns it allows, in order; when several
match, :func:`find_slap` reports the first one named.

>>> from ratscrew.cards import parse_cards
>>> find_slap(parse_cards("3C 7H 7S"), ("sandwich", "double"))
'double'
>>> find_slap(parse_cards("7H 3C 7S"), ("double",)) is None
True
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ratscrew.cards import Card, Rank


@dataclass(frozen=True, slots=True)
class PatternOptions:
    """The ruleset settings that some patterns depend on."""

    run_length: int = 4
    run_wraps: bool = False


Pattern = Callable[[Sequence[Card], PatternOptions], bool]


def is_double(live: Sequence[Card], options: PatternOptions) -> bool:
    """The top two cards have the same rank (``7H 7S``)."""
    return len(live) >= 2 and live[-1].rank == live[-2].rank


def is_sandwich(live: Sequence[Card], options: PatternOptions) -> bool:
    """The top card and the third from the top have the same rank (``7H 3C 7S``)."""
    return len(live) >= 3 and live[-1].rank == live[-3].rank


def is_triple(live: Sequence[Card], options: PatternOptions) -> bool:
    """The top three cards have the same rank (``7H 7C 7S``)."""
    return len(live) >= 3 and live[-1].rank == live[-2].rank == live[-3].rank


def is_top_bottom(live: Sequence[Card], options: PatternOptions) -> bool:
    """The top card has the rank of the lowest live card of the pile (``7H 2C 9D 7S``)."""
    return len(live) >= 2 and live[-1].rank == live[0].rank


def is_add_to_ten(live: Sequence[Card], options: PatternOptions) -> bool:
    """The top two cards are number cards (ace = 1) that sum to ten (``3C 7H``, ``AS 9D``)."""
    if len(live) < 2:
        return False
    first, second = live[-1].rank.number_value, live[-2].rank.number_value
    return first is not None and second is not None and first + second == 10


_ROYALS = {Rank.KING, Rank.QUEEN}


def is_marriage(live: Sequence[Card], options: PatternOptions) -> bool:
    """A king and a queen lie on top of each other, in either order (``KH QS``)."""
    return len(live) >= 2 and {live[-1].rank, live[-2].rank} == _ROYALS


def is_divorce(live: Sequence[Card], options: PatternOptions) -> bool:
    """A king and a queen with one card between them (``KH 5C QS``)."""
    return len(live) >= 3 and {live[-1].rank, live[-3].rank} == _ROYALS


def is_run(live: Sequence[Card], options: PatternOptions) -> bool:
    """The top ``run_length`` cards are consecutive ranks going up or down (``4H 5C 6D 7S``).

    An ace is either above a king or below a two (but not both in one run); with ``run_wraps``
    the run may also go "around the corner" (``QH KC AD 2S``). Jokers never belong to a run.
    """
    n = options.run_length
    if len(live) < n or n < 2:
        return False
    top = live[-n:]
    if any(card.is_joker for card in top):
        return False
    ace_high = [int(card.rank) for card in top]
    ace_low = [1 if value == Rank.ACE else value for value in ace_high]
    for values in (ace_high, ace_low):
        steps = {b - a for a, b in itertools.pairwise(values)}
        if steps in ({1}, {-1}):
            return True
    if options.run_wraps:
        steps = {(b - a) % 13 for a, b in itertools.pairwise(ace_high)}
        return steps in ({1}, {12})
    return False


def is_joker(live: Sequence[Card], options: PatternOptions) -> bool:
    """A joker is on top of the pile."""
    return len(live) >= 1 and live[-1].is_joker


def is_sixty_nine(live: Sequence[Card], options: PatternOptions) -> bool:
    """A six and a nine lie on top of each other, in either order (``6H 9C``)."""
    return len(live) >= 2 and {live[-1].rank, live[-2].rank} == {Rank.SIX, Rank.NINE}


@dataclass(frozen=True, slots=True)
class PatternFacts:
    """Everything the project knows of one slap pattern, in its one home.

    ``shows`` is the predicate; ``description`` says it to players (the rulebook, ``ratscrew
    judge``, the lab); ``example`` is a pile (bottom to top, notation) that shows it, for
    teaching; ``difficulty`` is how much harder it is to see than a double (1.0), from which a
    bot's chance to miss it grows (:meth:`ratscrew.bots.profile.BotProfile.miss_chance`);
    ``kernel_code`` is its number in the compiled simulation kernel
    (:data:`ratscrew.sim.kernel_compiled.PATTERN_CODES`): 0, 1, ... in turn, a new pattern
    taking the next one, and never renumbered (numba caches the compiled kernel by its own
    source file, not by this one). Which presets allow it is read from the presets themselves
    (:func:`ratscrew.rulebook.presets_allowing`)."""

    name: str
    shows: Pattern
    description: str
    example: str
    difficulty: float
    kernel_code: int


PATTERN_FACTS: dict[str, PatternFacts] = {facts.name: facts for facts in (
    PatternFacts("double", is_double,
                 "the top two cards have the same rank (7 7)",
                 "3C 7H 7S", difficulty=1.0, kernel_code=0),
    PatternFacts("sandwich", is_sandwich,
                 "the top card matches the rank of the third card from the top (7 3 7)",
                 "7H 3C 7S", difficulty=1.6, kernel_code=1),
    PatternFacts("triple", is_triple,
                 "the top three cards have the same rank (7 7 7)",
                 "7H 7C 7S", difficulty=1.0, kernel_code=2),
    PatternFacts("top_bottom", is_top_bottom,
                 "the top card matches the rank of the bottom card of the pile",
                 "7H 2C 9D 7S", difficulty=2.6, kernel_code=3),
    PatternFacts("add_to_ten", is_add_to_ten,
                 "the top two are number cards adding up to ten, ace counting one (3 7, A 9)",
                 "QC 3D 7S", difficulty=2.4, kernel_code=4),
    PatternFacts("marriage", is_marriage,
                 "a king and a queen lie on top of each other (K Q or Q K)",
                 "5D KH QS", difficulty=1.5, kernel_code=5),
    PatternFacts("divorce", is_divorce,
                 "a king and a queen with one card between them (K 5 Q)",
                 "KH 5C QS", difficulty=2.2, kernel_code=6),
    PatternFacts("run", is_run,
                 "the top cards are consecutive ranks going up or down (4 5 6 7)",
                 "3H 4C 5D 6S", difficulty=3.0, kernel_code=7),
    PatternFacts("joker", is_joker,
                 "a joker is on top",
                 "5C JK", difficulty=0.6, kernel_code=8),
    PatternFacts("sixty_nine", is_sixty_nine,
                 "a six and a nine lie on top of each other (6 9 or 9 6)",
                 "2D 6H 9C", difficulty=1.6, kernel_code=9),
)}
"""Every slap pattern by name, in the order the docs describe them: the registry every table
below (and the bots' difficulties, the kernel's codes) is read from."""

PATTERNS: dict[str, Pattern] = {name: facts.shows for name, facts in PATTERN_FACTS.items()}
"""Every slap pattern's predicate by name, in the registry's order."""

PATTERN_DESCRIPTIONS: dict[str, str] = {
    name: facts.description for name, facts in PATTERN_FACTS.items()}
"""What each pattern means, for players."""

PATTERN_EXAMPLES: dict[str, str] = {name: facts.example for name, facts in PATTERN_FACTS.items()}
"""A pile (bottom to top, notation) that shows each pattern, for teaching; the tests check that
each one is slappable by its own pattern under every preset that allows it."""


def example_pile(name: str, options: PatternOptions | None = None) -> list[Card]:
    """A pile that shows pattern ``name`` under ``options`` (a ``run`` as long as it must be).

    >>> " ".join(str(card) for card in example_pile("run", PatternOptions(run_length=3)))
    '3H 4C 5D'
    """
    if name == "run":
        length = (options or PatternOptions()).run_length
        ranks, suits = "3456789TJQKA2", "HCDS"
        return [Card.parse(ranks[i % 13] + suits[i % 4]) for i in range(length)]
    return [Card.parse(token) for token in PATTERN_EXAMPLES[name].split()]


def find_slap(
    live: Sequence[Card], slaps: Sequence[str], options: PatternOptions | None = None
) -> str | None:
    """The first pattern in ``slaps`` that the live pile shows, or ``None``.

    >>> from ratscrew.cards import parse_cards
    >>> find_slap(parse_cards("4H 5C 6D 7S"), ("double", "run"))
    'run'
    >>> find_slap(parse_cards("QH KC AD 2S"), ("run",), PatternOptions(run_wraps=True))
    'run'
    """
    opts = options or PatternOptions()
    for name in slaps:
        if PATTERNS[name](live, opts):
            return name
    return None
