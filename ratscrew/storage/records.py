"""The records the store keeps and returns, and its errors: plain values shared by every part of
`ratscrew.storage` and by its callers (rooms, players, ratings), with no database in them."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ratscrew.protocol.names import name_key


class StoreError(Exception):
    """The database cannot be used; the message says why and what to do."""


class StoreInUse(StoreError):
    """Another server process holds the database (or this shard of it). ``holder`` says who,
    without the advice for a server that the message adds (another file, another shard), which
    ``ratscrew admin`` replaces with its own."""

    def __init__(self, holder: str, advice: str) -> None:
        super().__init__(f"{holder}; stop it first, {advice}")
        self.holder = holder


class StoreUnavailable(StoreError):
    """The database cannot be reached right now (it may come back): nothing was written."""


@dataclass(frozen=True)
class SeatRow:
    """One stored seat."""

    seat: int
    kind: str
    name: str | None
    bot: str | None
    token_hash: str | None
    player_id: str | None = None
    """The public id of the keyed player who sits here (``None``: a guest, a bot, nobody)."""


@dataclass(frozen=True)
class RoomRow:
    """One stored room, with its seats, the tokens of seatless members and kicked tokens."""

    code: str
    settings: dict[str, Any]
    host_hash: str | None
    phase: str
    games_played: int
    game_id: int | None
    seats: tuple[SeatRow, ...]
    members: dict[str, str]
    kicked: frozenset[str]


@dataclass(frozen=True)
class GameInProgress:
    """A game that was being played when the server stopped: how it started, and every action."""

    game_id: int
    start: dict[str, Any]
    clock_start: float
    actions: list[tuple[str, int | None, int]]
    judged: list[dict[str, Any]]


@dataclass(frozen=True)
class StepRows:
    """One step of a game to append: the actions the engine took, numbered from
    ``first_action``, and how people's actions were judged, numbered from ``first_judged``."""

    game_id: int
    first_action: int
    actions: Sequence[tuple[str, int | None, int]]
    first_judged: int
    judged: Sequence[dict[str, Any]]


StepsDone = Callable[[Exception | None], None]
"""What hears how a batch of steps started without a task ended (`start_steps`): ``None`` once
stored, else the store's error."""


@dataclass(frozen=True)
class SeatResult:
    """How one seat did in a finished game (for statistics and leaderboards)."""

    seat: int
    kind: str
    name: str
    token_hash: str | None
    won: bool
    slaps: int
    misslaps: int
    reactions: tuple[int, ...]
    player_id: str | None = None
    """The keyed player in this seat (``None``: a guest or a bot)."""
    bot: str | None = None
    """The bot level in this seat (``None``: a person)."""


BOT_PREFIX = "bot:"
"""A bot level's participant name in ratings: ``bot:casual`` (a player id never holds ``:``)."""


def participant(result: SeatResult) -> str | None:
    """Who a seat is in ratings: a keyed person's player id, ``bot:LEVEL`` for a bot, or
    ``None`` for a guest (left out of ratings).

    >>> participant(SeatResult(0, "bot", "Casual bot", None, False, 0, 0, (), bot="casual"))
    'bot:casual'
    >>> participant(SeatResult(1, "human", "Ann", "hash", True, 0, 0, ())) is None
    True
    """
    if result.kind == "human":
        return result.player_id
    return None if result.bot is None else BOT_PREFIX + result.bot


class NameTaken(Exception):
    """Another player key holds this name now (see `Store.enter_player`)."""


@dataclass(frozen=True)
class ArenaRow:
    """One stored arena (issue 50). ``state`` is ``open`` (upcoming or running, by the clock),
    ``finished`` (its final standings are stored) or ``cancelled``."""

    arena_id: str
    rules_name: str
    players: int
    starts_at: float
    ends_at: float
    created_at: float
    creator: str | None
    """The public id of the player who made it (``None``: the operator)."""
    state: str
    finished_at: float | None


@dataclass(frozen=True)
class PlayerRow:
    """A keyed player: the public id and the latest name chosen."""

    player_id: str
    name: str


@dataclass(frozen=True)
class Rating:
    """A participant's rating in one ruleset: openskill's mu and sigma, and the games rated."""

    mu: float
    sigma: float
    games: int


@dataclass(frozen=True)
class RatingChange:
    """One participant's rating before and after a game."""

    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float


@dataclass(frozen=True)
class FinishedGame:
    """What rating a game needs: its ruleset, record and each seat's result."""

    game_id: int
    rules_name: str
    record: dict[str, Any]
    winner: int | None
    results: tuple[SeatResult, ...]
    earlier_quick_resigns: int = 0
    """Games that ended in a quick resignation between keys of this game's players lately
    (`ratscrew.storage.terms.FARM_WINDOW_S`)."""
    flagged: frozenset[str] = frozenset()
    """This game's players under an integrity flag not cleared."""
    established: frozenset[str] = frozenset()
    """This game's participants with rated games in the ruleset against
    `ratscrew.storage.terms.MIN_OPPONENTS` different opponents before it."""


@dataclass(frozen=True)
class GameRating:
    """What rating a game found: each seat's place (1 best) and slaps by pattern
    (``{pattern: [won, lost, misslaps]}``), and the new rating of each participant rated
    (empty when the game is not rated: no keyed person played)."""

    places: dict[int, int]
    patterns: dict[int, dict[str, list[int]]]
    changes: dict[str, RatingChange]
    unrated: str | None = None
    """Why the game was not rated (`ratscrew.server.ladder.rated`), or ``None``."""
    quick_resign: bool = False
    """A keyed person resigned it quickly (counted against the same keys' later games)."""
    seat_notes: dict[int, str] = field(default_factory=dict)
    """Why a seat's part changed no rating in a rated game (it left early; its win was over
    no one who counts), by seat: shown on that player's page and in the public record."""


Rater = Callable[[FinishedGame, Mapping[str, Rating]], GameRating]
"""Rates a finished game from the participants' current ratings (`ratscrew.server.ladder.ratings.rate`)."""


class RateCounter(Protocol):
    """How many times each key (an address) did something lately: ``allow`` counts one more
    unless the key is at its limit (`ratscrew.server.http.limits.WindowCounter` counts in memory)."""

    def allow(self, key: str, now: float) -> bool:
        """Count one more for ``key`` (``now`` is ``time.monotonic()``) unless it is over."""
        ...

    async def allow_async(self, key: str, now: float) -> bool:
        """`allow` without a database round trip on the event loop."""
        ...



def new_server_id() -> str:
    """A fresh random server identity."""
    return secrets.token_urlsafe(18)


def fold_name(name: str) -> str:
    """A name as compared for "two keys may not hold the same name": its confusable skeleton
    (`ratscrew.protocol.names.name_key`). A player stored before names were compared this way
    keeps the casefolded name until they next join; no two such values can collide.

    >>> fold_name("Ann") == fold_name("ANN") == fold_name("\\u0410nn")
    True
    """
    return name_key(name)
