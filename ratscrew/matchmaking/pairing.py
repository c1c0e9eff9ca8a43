"""Pairing seekers into tables: the pure rule of quick play and arenas, with no server in it.

A pool (one per ruleset, table size and arena) holds `Seeker` s. Every few seconds a *wave*
(`pair_wave`) makes as many tables as it can from them, by rating: a table is allowed when the
spread of its ratings is within the allowed gap of the seeker it is made for (`allowed_gap`),
and that gap widens with each wave the seeker has waited, so a player far from everyone still
gets a game after a few waves (lichess pairs its pools the same way). Between waves a table is
made at once when one of close ratings is already waiting (`pair_wave` with ``at_once=True``:
every allowance as at the first wave).

Who may not sit together: one player id twice at a table (one key seeking from two places),
and two players who just played each other (each seeker's ``last_opponents``). In an arena the
``standing`` (the arena score) counts too: a table is made of seekers close in the standings
as well as in rating (`PairingRules.standing_weight`).

Who goes first: seekers put back at the front after a no-show (``front``), then those who have
waited the most waves, then the earliest to seek (``order``). The wave takes them in that order
and makes each one's table from the nearest seekers still free (greedy nearest-neighbour: pools
are small and the order is what players feel is fair).

>>> rules = PairingRules()
>>> ann, bob, cid = (Seeker("a", "ann", 10.0), Seeker("b", "bob", 12.0), Seeker("c", "cid", 30.0))
>>> [[s.player_id for s in table] for table in pair_wave([ann, bob, cid], 2, rules)]
[['ann', 'bob']]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

WAVE_S = 5.0
"""Seconds between waves: a pool pairs at most this often, unless a full table of close ratings
is waiting (then at once)."""


@dataclass(frozen=True)
class PairingRules:
    """How far apart a table's ratings may be (in rating points: mu - 3 sigma, 0 for a new
    player), and how much the standings weigh in an arena."""

    base_gap: float = 5.0
    """The widest spread of ratings allowed at a seeker's first wave."""
    widen_per_wave: float = 5.0
    """How much the allowed spread grows with each wave a seeker has waited."""
    standing_weight: float = 1.0
    """Rating points one point of arena score counts for when choosing the nearest seekers."""
    rematch_after_waves: int | None = 6
    """Waves after which a seeker may meet its last opponents again (``None``: never), so two
    people alone in a pool still get a game after half a minute."""


@dataclass(frozen=True)
class Seeker:
    """One seek in a pool."""

    seek_id: str
    """What names this seek (its socket): the table made for it is sent there."""
    player_id: str
    """The public id of the seeking key's player."""
    rating: float = 0.0
    """The player's rating under the pool's rules (mu - 3 sigma; 0 for a new player)."""
    waves: int = 0
    """How many waves this seeker has waited through without a table."""
    standing: float = 0.0
    """The player's arena score (0 in quick play)."""
    last_opponents: frozenset[str] = frozenset()
    """Player ids this player just played: not paired with them again at once."""
    front: bool = False
    """Put back at the front of the pool (the last table it was matched to did not start)."""
    order: float = 0.0
    """When it sought (any increasing number): earlier seekers are served first."""
    name: str = field(default="", compare=False)
    """The player's name, as shown to the others at the table."""


def allowed_gap(seeker: Seeker, rules: PairingRules, *, at_once: bool = False) -> float:
    """The widest spread of ratings ``seeker`` may be paired across now.

    >>> allowed_gap(Seeker("s", "p", waves=2), PairingRules(base_gap=5, widen_per_wave=5))
    15.0
    >>> allowed_gap(Seeker("s", "p", waves=2), PairingRules(base_gap=5), at_once=True)
    5.0
    """
    return float(rules.base_gap + (0 if at_once else seeker.waves) * rules.widen_per_wave)


def may_sit_together(a: Seeker, b: Seeker, rules: PairingRules | None = None) -> bool:
    """Whether ``a`` and ``b`` may be at one table: two players, who did not just play each other
    (a seeker's memory of its last opponents lasts `PairingRules.rematch_after_waves`).

    >>> may_sit_together(Seeker("1", "ann"), Seeker("2", "ann"))
    False
    >>> may_sit_together(Seeker("1", "ann", last_opponents=frozenset({"bob"})), Seeker("2", "bob"))
    False
    """
    after = (rules or PairingRules()).rematch_after_waves

    def remembers(seeker: Seeker, other: Seeker) -> bool:
        return other.player_id in seeker.last_opponents and (after is None or seeker.waves < after)

    return a.player_id != b.player_id and not remembers(a, b) and not remembers(b, a)


def priority(seeker: Seeker) -> tuple[bool, int, float]:
    """A sort key: who a wave serves first (see the module docstring)."""
    return (not seeker.front, -seeker.waves, seeker.order)


def distance(a: Seeker, b: Seeker, rules: PairingRules) -> float:
    """How far apart two seekers are: rating, plus the standings in an arena."""
    return abs(a.rating - b.rating) + rules.standing_weight * abs(a.standing - b.standing)


def pair_wave(seekers: Sequence[Seeker], players: int, rules: PairingRules, *,
              at_once: bool = False) -> list[tuple[Seeker, ...]]:
    """The tables of ``players`` seats one wave makes from ``seekers`` (each table led by the
    seeker it was made for; see the module docstring). ``at_once``: only tables every seeker
    would accept at its first wave (a table of close ratings waiting between waves)."""
    if players < 2:
        raise ValueError(f"a table has at least 2 players, not {players}")
    free = sorted(seekers, key=priority)
    tables: list[tuple[Seeker, ...]] = []
    index = 0
    while index < len(free):
        anchor = free[index]
        table = _table_for(anchor, free[index + 1:], players, rules, at_once)
        if table is None:
            index += 1
            continue
        tables.append(table)
        taken = {id(s) for s in table}
        free = [s for s in free if id(s) not in taken]
        # free[index] is now the next seeker after the anchor: look at it without moving on
    return tables


def _table_for(anchor: Seeker, others: Sequence[Seeker], players: int, rules: PairingRules,
               at_once: bool) -> tuple[Seeker, ...] | None:
    """The nearest seekers to ``anchor`` that make a table with it, or ``None``."""
    gap = allowed_gap(anchor, rules, at_once=at_once)
    table = [anchor]
    for candidate in sorted(others, key=lambda s: (distance(anchor, s, rules), priority(s))):
        if len(table) == players:
            break
        ratings = [s.rating for s in table] + [candidate.rating]
        if max(ratings) - min(ratings) > gap:
            continue
        if at_once and max(ratings) - min(ratings) > allowed_gap(candidate, rules, at_once=True):
            continue
        if all(may_sit_together(candidate, seated, rules) for seated in table):
            table.append(candidate)
    return tuple(table) if len(table) == players else None


def after_wave(left: Sequence[Seeker]) -> list[Seeker]:
    """The seekers a wave left without a table, one wave older.

    >>> after_wave([Seeker("s", "p", waves=1)])[0].waves
    2
    """
    return [replace(s, waves=s.waves + 1) for s in left]
