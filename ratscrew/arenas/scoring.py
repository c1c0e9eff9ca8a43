"""An arena's points and standings, from its games' results alone (pure: no server, no store).

An arena is a timed tournament (lichess's arenas): a player is re-paired as soon as a game ends,
and every game played in it scores. The rules of the points, each with one home here:

- a 2-player table: a win scores 2, anything else 0;
- a 4-player table: 4, 2, 1, 0 by finishing place (a tie shares the better place's points);
- a streak: after two wins in a row, each further win scores double (2 → 4, 4 → 8) until the
  player fails to win; the streak shown is the wins in a row so far;
- a game counts when it started before the arena ended (it finishes and counts); the caller
  picks those games (`ratscrew.server.http.arenas` reads them from the store).

Standings are ranked by score, then wins, then fewer games; players with the same score, wins
and games share a rank (``1 2 2 4``).

>>> results = [GameResult(1, "ann", "Ann", 1, True), GameResult(1, "bob", "Bob", 2, False),
...            GameResult(2, "ann", "Ann", 1, True), GameResult(2, "cy", "Cy", 2, False),
...            GameResult(3, "ann", "Ann", 1, True), GameResult(3, "bob", "Bob", 2, False)]
>>> [(s.rank, s.name, s.score, s.games, s.wins, s.streak) for s in standings(results, players=2)]
[(1, 'Ann', 8, 3, 3, 3), (2, 'Cy', 0, 1, 0, 0), (3, 'Bob', 0, 2, 0, 0)]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

WIN_POINTS = 2
"""A win at a 2-player table."""
PLACE_POINTS_4 = (4, 2, 1, 0)
"""Points by finishing place (1st to 4th) at a 4-player table."""
STREAK_START = 2
"""Wins in a row after which each further win scores double."""
TABLE_SIZES = (2, 4)
"""The table sizes an arena may have."""


@dataclass(frozen=True)
class GameResult:
    """One player's part in one finished arena game: the game (any id that orders the games in
    the order they finished), the player, the place (1 best; ``None`` when not known: 1 for the
    winner, last otherwise) and whether the player won."""

    game: int
    player_id: str
    name: str
    place: int | None
    won: bool


@dataclass(frozen=True)
class Standing:
    """One line of an arena's standings."""

    rank: int
    player_id: str
    name: str
    score: int
    games: int
    wins: int
    streak: int
    """Wins in a row up to the player's latest game (0 after a game not won)."""

    def as_json(self) -> dict[str, object]:
        """The standing as ``GET /api/arenas/ID`` sends it."""
        return asdict(self)


def base_points(place: int | None, won: bool, players: int) -> int:
    """A game's points before any streak doubling.

    >>> base_points(1, True, 2), base_points(2, False, 2)
    (2, 0)
    >>> [base_points(p, p == 1, 4) for p in (1, 2, 3, 4)]
    [4, 2, 1, 0]
    >>> base_points(1, False, 4)  # a drawn game's shared first place is not a win
    2
    """
    if players not in TABLE_SIZES:
        raise ValueError(f"an arena table has 2 or 4 players, not {players}")
    if won:
        return WIN_POINTS if players == 2 else PLACE_POINTS_4[0]
    if players == 2:
        return 0
    shown = max(2, min(len(PLACE_POINTS_4), place if place is not None else len(PLACE_POINTS_4)))
    return PLACE_POINTS_4[shown - 1]


def points(place: int | None, won: bool, players: int, wins_in_a_row: int) -> int:
    """A game's points for a player who had won ``wins_in_a_row`` games in a row before it.

    >>> [points(1, True, 2, streak) for streak in (0, 1, 2, 5)]
    [2, 2, 4, 4]
    >>> points(2, False, 4, 3)  # only a win is doubled
    2
    """
    scored = base_points(place, won, players)
    return scored * 2 if won and wins_in_a_row >= STREAK_START else scored


@dataclass
class _Tally:
    name: str
    score: int = 0
    games: int = 0
    wins: int = 0
    streak: int = 0


def standings(results: Iterable[GameResult], players: int) -> list[Standing]:
    """The standings after ``results`` (each player's games in the order of their ``game``),
    best first (see the module docstring)."""
    tallies: dict[str, _Tally] = {}
    for result in sorted(results, key=lambda r: r.game):
        tally = tallies.setdefault(result.player_id, _Tally(result.name))
        tally.name = result.name  # the latest name the player played under
        tally.score += points(result.place, result.won, players, tally.streak)
        tally.games += 1
        tally.wins += int(result.won)
        tally.streak = tally.streak + 1 if result.won else 0
    return ranked([(player_id, t.name, t.score, t.games, t.wins, t.streak)
                   for player_id, t in tallies.items()])


def ranked(lines: Sequence[tuple[str, str, int, int, int, int]]) -> list[Standing]:
    """Lines of ``(player_id, name, score, games, wins, streak)`` ranked: score, then wins, then
    fewer games; equal lines share a rank.

    >>> [(s.rank, s.player_id) for s in ranked([("a", "A", 2, 1, 1, 1), ("b", "B", 4, 3, 2, 0),
    ...                                         ("c", "C", 2, 1, 1, 0)])]
    [(1, 'b'), (2, 'a'), (2, 'c')]
    """
    def order(line: tuple[str, str, int, int, int, int]) -> tuple[int, int, int, str]:
        return (-line[2], -line[4], line[3], line[0])

    out: list[Standing] = []
    previous: tuple[int, int, int] | None = None
    for position, (player_id, name, score, games, wins, streak) in enumerate(sorted(lines, key=order), 1):
        same = previous == (score, wins, games)
        rank = out[-1].rank if same and out else position
        out.append(Standing(rank, player_id, name, score, games, wins, streak))
        previous = (score, wins, games)
    return out
